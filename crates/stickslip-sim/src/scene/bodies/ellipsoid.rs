//! An ellipsoid of tetrahedra (SPEC.md §7 bodies; the football of SPEC.md §5 on the core, issue
//! 21).
//!
//! The cube [−1, 1]³ of n × n × n cells, split as [`cuboid`] splits
//! its cells, is mapped onto the unit ball by the concentric map p ↦ p ‖p‖∞ / ‖p‖₂ (each cube
//! shell ‖p‖∞ = r onto the sphere of radius r; the centre stays), then stretched by the semi-axes
//! (a, b, c) along the local x, y, z axes. The map is continuous and one-to-one, so the mesh
//! stays conforming and its boundary is the cube's, now on the ellipsoid; every tetrahedron is
//! checked for positive volume by [`TetMesh::new`]. The polyhedron is inside the ellipsoid, its
//! volume short of 4/3 π a b c by a few per cent at n = 4 and less as n grows (tested).

use nalgebra::Rotation3;

use super::TetMesh;
use super::cuboid::{cuboid, cuboid_size};
use super::mesh_rules::{MeshError, MeshSize};
use crate::energy::Vec3;

/// The concentric map of the cube [−1, 1]³ onto the unit ball (module comment).
fn cube_to_ball(p: &Vec3) -> Vec3 {
    let r2 = p.norm();
    if r2 == 0.0 { *p } else { p * (p.amax() / r2) }
}

/// The size of [`ellipsoid`]'s mesh of `cells` a side: the cube's.
pub fn ellipsoid_size(cells: usize) -> MeshSize {
    cuboid_size([cells; 3])
}

/// An ellipsoid of semi-axes `semi_axes` = (a, b, c) (m, along the local x, y, z axes) from a
/// cube of `cells` ≥ 1 cells a side (module comment), centred at `centre` (m) and turned by
/// `rotation` about it, of density `density` (kg/m³). Its nodes are numbered as the cube's
/// ([`cuboid`]'s numbering).
pub fn ellipsoid(
    semi_axes: Vec3,
    cells: usize,
    centre: Vec3,
    rotation: &Rotation3<f64>,
    density: f64,
) -> Result<TetMesh, MeshError> {
    let cube = cuboid(
        Vec3::repeat(2.0),
        [cells; 3],
        Vec3::zeros(),
        &Rotation3::identity(),
        density,
    )?;
    let x0 = cube
        .x0
        .iter()
        .map(|p| centre + rotation * cube_to_ball(p).component_mul(&semi_axes))
        .collect();
    TetMesh::new(x0, cube.tets, density)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The boundary lies on the ellipsoid ((x/a)² + (y/b)² + (z/c)² = 1 within rounding), every
    /// node inside it, the mass is density × the polyhedron's volume, which approaches
    /// 4/3 π a b c from below as the cube is refined (its shortfall falls by more than half
    /// from n = 2 to n = 4 and again to n = 8: inscribed polyhedra converge as h²), and the
    /// turned and moved body is the same mesh moved.
    #[test]
    fn the_mesh_fills_the_ellipsoid_from_inside() {
        let axes = Vec3::new(0.14, 0.085, 0.085);
        let exact = 4.0 / 3.0 * std::f64::consts::PI * axes.x * axes.y * axes.z;
        let mut shortfalls = Vec::new();
        for n in [2, 4, 8] {
            let m = ellipsoid(axes, n, Vec3::zeros(), &Rotation3::identity(), 1.0).unwrap();
            let level = |x: &Vec3| x.component_div(&axes).norm_squared();
            for t in &m.boundary_triangles {
                for &i in t {
                    assert!((level(&m.x0[i]) - 1.0).abs() < 1e-12, "node {i}");
                }
            }
            assert!(m.x0.iter().all(|x| level(x) <= 1.0 + 1e-12));
            let volume: f64 = m.mass.iter().sum();
            assert!(volume < exact, "n = {n}: {volume} ≥ {exact}");
            shortfalls.push((exact - volume) / exact);
        }
        assert!(shortfalls[1] < 0.5 * shortfalls[0], "{shortfalls:?}");
        assert!(shortfalls[2] < 0.5 * shortfalls[1], "{shortfalls:?}");
        assert!(shortfalls[1] < 0.2, "{shortfalls:?}");
        let r = Rotation3::from_euler_angles(0.2, -0.5, 1.0);
        let c = Vec3::new(1.0, -2.0, 0.5);
        let (a, b) = (
            ellipsoid(axes, 4, Vec3::zeros(), &Rotation3::identity(), 1.0).unwrap(),
            ellipsoid(axes, 4, c, &r, 1.0).unwrap(),
        );
        for (p, q) in a.x0.iter().zip(&b.x0) {
            assert!((c + r * p - q).norm() < 1e-15);
        }
    }
}
