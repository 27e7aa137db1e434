//! A box of nx × ny × nz cells of tetrahedra (SPEC.md §7 bodies, issue 21).
//!
//! Every cell is split into the six tetrahedra of its Kuhn (Freudenthal) split: one per order
//! of the three axes, from the cell's lowest corner stepping along the axes in that order to
//! its highest corner. All cells are split the same way, so every shared square face is cut
//! along the same diagonal (from its lowest to its highest corner) from both sides and the mesh
//! is conforming without the alternating pattern a five-tetrahedra split needs; the six
//! tetrahedra have equal volumes (a sixth of the cell's), so the lumped masses are uniform
//! wherever the node's neighbourhood is.

use nalgebra::Rotation3;

use super::TetMesh;
use super::mesh_rules::{MeshError, MeshSize, tet_volume};
use crate::energy::Vec3;

/// The orders of the three axes (the six permutations).
const AXIS_ORDERS: [[usize; 3]; 6] = [
    [0, 1, 2],
    [0, 2, 1],
    [1, 0, 2],
    [1, 2, 0],
    [2, 0, 1],
    [2, 1, 0],
];

/// The size of [`cuboid`]'s mesh of `cells` = [nx, ny, nz]: (nx + 1)(ny + 1)(nz + 1) nodes and
/// six tetrahedra a cell.
pub fn cuboid_size(cells: [usize; 3]) -> MeshSize {
    let [nx, ny, nz] = cells.map(|n| n as f64);
    MeshSize {
        nodes: (nx + 1.0) * (ny + 1.0) * (nz + 1.0),
        elements: 6.0 * nx * ny * nz,
    }
}

/// A box of `size` = (width, depth, height) (m, along the local x, y, z axes) of
/// `cells` = [nx, ny, nz] cells (each ≥ 1), centred at `centre` (m) and turned by `rotation`
/// about it, of density `density` (kg/m³). Node `(i (ny + 1) + j)(nz + 1) + k` sits at local
/// (−w/2 + i w/nx, −d/2 + j d/ny, −h/2 + k h/nz) before the rotation.
pub fn cuboid(
    size: Vec3,
    cells: [usize; 3],
    centre: Vec3,
    rotation: &Rotation3<f64>,
    density: f64,
) -> Result<TetMesh, MeshError> {
    let [nx, ny, nz] = cells;
    assert!(
        nx >= 1 && ny >= 1 && nz >= 1,
        "a box has at least one cell a side"
    );
    let id = |i: usize, j: usize, k: usize| (i * (ny + 1) + j) * (nz + 1) + k;
    let step = Vec3::new(size.x / nx as f64, size.y / ny as f64, size.z / nz as f64);
    let mut local = Vec::with_capacity((nx + 1) * (ny + 1) * (nz + 1));
    for i in 0..=nx {
        for j in 0..=ny {
            for k in 0..=nz {
                local.push(
                    Vec3::new(i as f64, j as f64, k as f64).component_mul(&step) - size / 2.0,
                );
            }
        }
    }
    let mut tets = Vec::with_capacity(6 * nx * ny * nz);
    for i in 0..nx {
        for j in 0..ny {
            for k in 0..nz {
                let corner =
                    |bits: usize| id(i + (bits & 1), j + ((bits >> 1) & 1), k + (bits >> 2));
                for order in AXIS_ORDERS {
                    let mut bits = 0;
                    let mut t = [corner(0); 4];
                    for (step, axis) in order.iter().enumerate() {
                        bits |= 1 << axis;
                        t[step + 1] = corner(bits);
                    }
                    if tet_volume(&local, &t) < 0.0 {
                        t.swap(0, 1);
                    }
                    tets.push(t);
                }
            }
        }
    }
    let x0 = local.iter().map(|p| centre + rotation * p).collect();
    TetMesh::new(x0, tets, density)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 3 × 2 × 2 cells: counts, every tetrahedron positive with a sixth of a cell's volume,
    /// the mass and volume add up, the boundary is the box's surface (two triangles per
    /// boundary square, their contact areas summing to the surface area, their cones from the
    /// origin summing to the volume: divergence theorem), turned or not, centred at `centre`.
    #[test]
    fn counts_volumes_and_a_closed_outward_surface() {
        let size = Vec3::new(0.3, 0.2, 0.4);
        let centre = Vec3::new(1.0, -2.0, 0.5);
        for rotation in [
            Rotation3::identity(),
            Rotation3::from_euler_angles(0.3, -0.7, 1.9),
        ] {
            let m = cuboid(size, [3, 2, 2], centre, &rotation, 800.0).unwrap();
            assert_eq!(m.len(), 4 * 3 * 3);
            assert_eq!(m.tets.len(), 6 * 12);
            let cell = 0.1 * 0.1 * 0.2;
            for t in &m.tets {
                assert!((tet_volume(&m.x0, t) - cell / 6.0).abs() < 1e-15);
            }
            let volume = 0.3 * 0.2 * 0.4;
            assert!((m.volume() - volume).abs() < 1e-14);
            let mass: f64 = m.mass.iter().sum();
            assert!((mass - 800.0 * volume).abs() < 1e-10);
            assert_eq!(m.boundary_triangles.len(), 2 * 2 * (3 * 2 + 2 * 2 + 3 * 2));
            let surface = 2.0 * (0.3 * 0.2 + 0.2 * 0.4 + 0.3 * 0.4);
            assert!((m.contact_area.iter().sum::<f64>() - surface).abs() < 1e-14);
            let enclosed: f64 = m
                .boundary_triangles
                .iter()
                .map(|f| m.x0[f[0]].dot(&m.x0[f[1]].cross(&m.x0[f[2]])) / 6.0)
                .sum();
            assert!((enclosed - volume).abs() < 1e-13, "{enclosed}");
            let c: Vec3 = m.x0.iter().sum::<Vec3>() / m.len() as f64;
            assert!((c - centre).amax() < 1e-14);
            assert_eq!(m.inverted_tets(&m.x0), 0);
            // The two interior nodes (i = 1, 2; j = k = 1): no contact area.
            assert_eq!(m.boundary_nodes().len(), m.len() - 2);
            // Euler: a closed surface of genus 0 has V − E + F = 2.
            let v = m.boundary_nodes().len() as i64;
            let e = m.boundary_edges().len() as i64;
            let f = m.boundary_triangles.len() as i64;
            assert_eq!(v - e + f, 2);
        }
    }
}
