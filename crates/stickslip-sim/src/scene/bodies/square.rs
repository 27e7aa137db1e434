//! The book's square (SPEC.md §1): an n_seg × n_seg grid of cells as a mass-spring mesh.

use nalgebra::Vector2;

use super::Mesh;
use crate::energy::Vec2;

/// A square of side `side` (m) centred at `centre` (m), `n_seg` cells a side, of areal density
/// `density` (kg/m²): (n_seg + 1)² nodes, node `i·(n_seg+1) + j` at
/// `centre + (−side/2 + i·step, −side/2 + j·step)`; every grid edge and both diagonals of every
/// cell; the mass ρ·side² spread evenly; every node of contact area `contact_area` (m).
pub fn square(side: f64, n_seg: usize, centre: Vec2, density: f64, contact_area: f64) -> Mesh {
    let n = n_seg;
    let m = n + 1;
    let step = side / n as f64;
    let mut x0 = Vec::with_capacity(m * m);
    for i in 0..m {
        for j in 0..m {
            x0.push(
                centre + Vector2::new(-side / 2.0 + i as f64 * step, -side / 2.0 + j as f64 * step),
            );
        }
    }
    let id = |i: usize, j: usize| i * m + j;
    let mut edges = Vec::with_capacity(2 * n * m + 2 * n * n);
    // Horizontal and vertical edges.
    for i in 0..n {
        for j in 0..m {
            edges.push([id(i, j), id(i + 1, j)]);
            edges.push([id(j, i), id(j, i + 1)]);
        }
    }
    let mut triangles = Vec::with_capacity(2 * n * n);
    // Both diagonals of every cell.
    for i in 0..n {
        for j in 0..n {
            edges.push([id(i, j), id(i + 1, j + 1)]);
            edges.push([id(i + 1, j), id(i, j + 1)]);
            triangles.push([id(i, j), id(i + 1, j), id(i + 1, j + 1)]);
            triangles.push([id(i, j), id(i + 1, j + 1), id(i, j + 1)]);
        }
    }
    let node_mass = density * side * side / (m * m) as f64;
    Mesh::new(
        x0,
        edges,
        triangles,
        vec![node_mass; m * m],
        vec![contact_area; m * m],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rest state has no inverted triangle. The bottom-left corner (node 0) folded over its
    /// cell, to 1.5 cell steps along the cell's diagonal, flips both triangles of cell (0, 0)
    /// (the only two that contain it, by the hand computation below) and no other.
    #[test]
    fn counts_a_folded_corner() {
        let (side, n_seg) = (1.0, 4);
        let mesh = square(side, n_seg, Vec2::zeros(), 1000.0, 0.25);
        assert_eq!(mesh.len(), 25);
        assert_eq!(mesh.edges.len(), 72);
        assert_eq!(mesh.inverted_triangles(&mesh.x0), 0);
        let step = side / n_seg as f64;
        let mut x = mesh.x0.clone();
        x[0] += Vector2::new(1.5 * step, 1.5 * step);
        // Relative to node 0's rest position, in cell steps: triangle (0, n+1, n+2) has its
        // nodes at (1.5, 1.5), (1, 0), (1, 1): cross product of the edges from node 0 is
        // (−0.5)(−0.5) − (−1.5)(−0.5) = −0.5, against +1 at rest; triangle (0, n+2, 1) at
        // (1.5, 1.5), (1, 1), (0, 1): 0.25 − 0.75 = −0.5, against +1.
        assert_eq!(mesh.triangles.iter().filter(|t| t.contains(&0)).count(), 2);
        assert_eq!(mesh.inverted_triangles(&x), 2);
    }
}
