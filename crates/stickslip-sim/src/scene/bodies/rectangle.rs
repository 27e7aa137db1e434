//! A rectangle of nx × ny cells (SPEC.md §7 bodies): the book's grid (every grid edge and both
//! diagonals of every cell as springs) on a width × height box, placed and rotated.

use nalgebra::{Rotation2, Vector2};

use super::Mesh;
use super::mesh_rules::MeshSize;
use crate::energy::Vec2;

/// The size of [`rectangle`]'s mesh of `nx` × `ny` cells (the square's too, nx = ny = n_seg):
/// (nx + 1)(ny + 1) nodes and two triangles a cell.
pub fn rectangle_size(nx: usize, ny: usize) -> MeshSize {
    let (nx, ny) = (nx as f64, ny as f64);
    MeshSize {
        nodes: (nx + 1.0) * (ny + 1.0),
        elements: 2.0 * nx * ny,
    }
}

/// A `width` × `height` (m) rectangle of `nx` × `ny` cells, centred at `centre` (m) and turned by
/// `rotation` (rad, counter-clockwise) about it, of areal density `density` (kg/m²), every node
/// of contact area `contact_area` (m). Node `i·(ny + 1) + j` is at local
/// (−width/2 + i·width/nx, −height/2 + j·height/ny) before the rotation; the mass
/// density × width × height is spread evenly over the (nx + 1)(ny + 1) nodes.
#[allow(clippy::too_many_arguments)]
pub fn rectangle(
    width: f64,
    height: f64,
    nx: usize,
    ny: usize,
    centre: Vec2,
    rotation: f64,
    density: f64,
    contact_area: f64,
) -> Mesh {
    let rot = Rotation2::new(rotation);
    let (dx, dy) = (width / nx as f64, height / ny as f64);
    let id = |i: usize, j: usize| i * (ny + 1) + j;
    let mut x0 = Vec::with_capacity((nx + 1) * (ny + 1));
    for i in 0..=nx {
        for j in 0..=ny {
            let local = Vector2::new(-width / 2.0 + i as f64 * dx, -height / 2.0 + j as f64 * dy);
            x0.push(centre + rot * local);
        }
    }
    let mut edges = Vec::new();
    let mut triangles = Vec::new();
    for i in 0..=nx {
        for j in 0..=ny {
            if i < nx {
                edges.push([id(i, j), id(i + 1, j)]);
            }
            if j < ny {
                edges.push([id(i, j), id(i, j + 1)]);
            }
            if i < nx && j < ny {
                edges.push([id(i, j), id(i + 1, j + 1)]);
                edges.push([id(i + 1, j), id(i, j + 1)]);
                triangles.push([id(i, j), id(i + 1, j), id(i + 1, j + 1)]);
                triangles.push([id(i, j), id(i + 1, j + 1), id(i, j + 1)]);
            }
        }
    }
    let n = x0.len();
    let node_mass = density * width * height / n as f64;
    Mesh::new(
        x0,
        edges,
        triangles,
        vec![node_mass; n],
        vec![contact_area; n],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 3 × 2 cells: 12 nodes, 3·3 + 4·2 grid edges and 2 diagonals in each of 6 cells; every
    /// triangle counter-clockwise at rest (none inverted), turned or not; the mass adds up.
    #[test]
    fn counts_orientation_and_mass() {
        for rotation in [0.0, 0.7] {
            let m = rectangle(0.3, 0.2, 3, 2, Vec2::new(1.0, 2.0), rotation, 500.0, 0.1);
            assert_eq!(m.len(), 12);
            assert_eq!(m.edges.len(), 3 * 3 + 4 * 2 + 2 * 6);
            assert!(m.rest_orientation.iter().all(|&s| s > 0.0));
            assert_eq!(m.inverted_triangles(&m.x0), 0);
            let total: f64 = m.mass.iter().sum();
            assert!((total - 500.0 * 0.3 * 0.2).abs() < 1e-12);
            let c = m.x0.iter().sum::<Vec2>() / 12.0;
            assert!((c - Vec2::new(1.0, 2.0)).amax() < 1e-12);
        }
    }
}
