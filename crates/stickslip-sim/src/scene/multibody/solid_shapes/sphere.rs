//! `shape = "sphere"`: a ball of tetrahedra, the cube of `cells` a side mapped onto it as an
//! ellipsoid of equal semi-axes ([`crate::scene::bodies::ellipsoid`], SPEC.md §7). As a
//! [`crate::scene::multibody::solid_body::SolidShape::Ellipsoid`] it takes the ellipsoid's defaults: every boundary node's full
//! contact weight, and, affine, the true ball's mass ρ 4/3 π r³ and moment 2/5 m r².

use super::ellipsoid::ellipsoid_of;
use super::{Generated, ShapeGenerator, ShapeInput, count_in_range};
use crate::energy::Vec3;
use crate::scene::bodies::ellipsoid::ellipsoid_size;
use crate::scene::bodies::mesh_rules::MeshSize;
use crate::scene::case_file::CaseError;
use crate::scene::multibody::shape_registry::ShapeKeys;
use crate::scene::multibody::solid_schema::SolidBodySection;

/// The sphere: `radius` (m) and `cells` (at least 2) a side of the cube mapped onto it.
pub(crate) struct Sphere;

impl ShapeKeys for Sphere {
    fn name(&self) -> &'static str {
        "sphere"
    }

    fn keys(&self) -> &'static [&'static str] {
        &["radius", "cells"]
    }
}

impl ShapeGenerator for Sphere {
    fn size(&self, b: &SolidBodySection) -> Option<MeshSize> {
        Some(ellipsoid_size(count_in_range(b.cells, 2)?))
    }

    fn generate(&self, s: &ShapeInput) -> Result<Generated, CaseError> {
        let radius = s.need("radius", s.b.radius)?;
        ellipsoid_of(s, Vec3::repeat(radius))
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use nalgebra::Rotation3;

    use super::*;
    use crate::scene::case_file::Validator;
    use crate::scene::multibody::shape_registry::BodyKeys;
    use crate::scene::multibody::solid_body::SolidShape;

    fn section(toml: &str) -> SolidBodySection {
        toml::from_str(toml).unwrap()
    }

    /// A sphere of radius 0.1 m and 6 cells: the cube's (6 + 1)³ nodes, every node within the
    /// ball and the cube's boundary nodes on its surface (|x − c| = r within rounding), its
    /// volume (mass / ρ) short of 4/3 π r³ (an inscribed polyhedron) by under 5 % (the
    /// ellipsoid generator's measured 2.6 % at 4 cells a side, less at 6), and its axis nodes
    /// the poles: the lowest and highest nodes of the turned ball, at c ∓ r R ẑ.
    #[test]
    fn a_sphere_is_a_ball_of_its_radius() {
        let b = section(
            "shape = \"sphere\"\nradius = 0.1\ncells = 6\ncentre = [1.0, 2.0, 3.0]\ndensity = 1000.0\nmaterial = \"neo_hookean\"\nyoungs_modulus = 1e6\npoisson_ratio = 0.3",
        );
        let v = Validator {
            file: Path::new("sphere.toml"),
        };
        let rotation = Rotation3::new(Vec3::new(0.3, -0.2, 0.5));
        let centre = Vec3::new(1.0, 2.0, 3.0);
        let g = Sphere
            .generate(&ShapeInput {
                keys: BodyKeys {
                    v: &v,
                    name: "ball",
                },
                b: &b,
                case: None,
                centre,
                rotation: &rotation,
            })
            .unwrap();
        let (r, n) = (0.1, 6usize);
        assert_eq!(g.mesh.len(), (n + 1).pow(3));
        assert_eq!(g.shape, SolidShape::Ellipsoid(Vec3::repeat(r)));
        let on_surface = g
            .mesh
            .x0
            .iter()
            .filter(|x| ((*x - centre).norm() - r).abs() < 1e-12)
            .count();
        assert_eq!(
            on_surface,
            (n + 1).pow(3) - (n - 1).pow(3),
            "the cube's boundary nodes"
        );
        assert!(g.mesh.x0.iter().all(|x| (x - centre).norm() <= r + 1e-12));
        let ball = 4.0 / 3.0 * std::f64::consts::PI * r.powi(3);
        let volume: f64 = g.mesh.mass.iter().sum::<f64>() / 1000.0;
        assert!(volume < ball && volume > 0.95 * ball, "{volume} of {ball}");
        let pole = rotation * Vec3::new(0.0, 0.0, r);
        assert!((g.mesh.x0[g.axis[0]] - (centre - pole)).norm() < 1e-12);
        assert!((g.mesh.x0[g.axis[1]] - (centre + pole)).norm() < 1e-12);
    }

    /// Its keys are checked as the other shapes' are: a missing radius, too few cells and a
    /// cuboid's key are refused, naming the key.
    #[test]
    fn a_sphere_refuses_bad_keys() {
        let v = Validator {
            file: Path::new("sphere.toml"),
        };
        let generate = |extra: &str| {
            let b = section(&format!(
                "shape = \"sphere\"\ncentre = [0.0, 0.0, 1.0]\ndensity = 1000.0\nmaterial = \"neo_hookean\"\n{extra}"
            ));
            Sphere
                .generate(&ShapeInput {
                    keys: BodyKeys {
                        v: &v,
                        name: "ball",
                    },
                    b: &b,
                    case: None,
                    centre: Vec3::z(),
                    rotation: &Rotation3::identity(),
                })
                .map(|_| ())
                .unwrap_err()
                .to_string()
        };
        assert!(generate("cells = 4").contains("bodies.ball.radius`: missing"));
        assert!(generate("radius = 0.1\ncells = 1").contains("must be at least 2"));
        assert!(generate("radius = -0.1\ncells = 4").contains("bodies.ball.radius"));
    }
}
