//! The schema of a 3D scene case file (`kind = "scene"`, `dimension = 3`, SPEC.md §7): tetrahedral
//! bodies on half-spaces, every vector of three components (z up by convention, not by rule:
//! gravity says which way is down). The friction, barrier, time and Newton sections are the 2D
//! scene's ([`super::schema`]); [`super::solid::SolidScene::from_file`] validates it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::schema::{BarrierSection, DriverSection, FrictionSection};
use crate::scene::case_file::{NewtonSection, TimeSection, exactly_n, exactly_n_opt};

/// `[bodies.NAME]` of a 3D scene: a tetrahedral body, its placement and material.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SolidBodySection {
    /// The shape's name, one of `scene::multibody::solid_shapes::SHAPES`, each naming the keys
    /// it reads: `"cuboid"`, `"cylinder"`, `"ellipsoid"`, … or `"mesh"` (a Gmsh `.msh` file).
    pub shape: String,
    /// A mesh's Gmsh `.msh` file (MSH 4.1, 4-node tetrahedra), relative to the case file; its
    /// mass-weighted centroid is placed at `centre`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// A cuboid's size along its local x, m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width: Option<f64>,
    /// A cuboid's size along its local y, m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<f64>,
    /// A cuboid's or cylinder's size along its local z (the cylinder's axis), m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub height: Option<f64>,
    /// Cells along a cuboid's width.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nx: Option<usize>,
    /// Cells along its depth.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ny: Option<usize>,
    /// Cells along its height.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nz: Option<usize>,
    /// A cylinder's radius, m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub radius: Option<f64>,
    /// Nodes on a cylinder's rim (at least 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub segments: Option<usize>,
    /// Rings of a cylinder's cross-section (at least 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rings: Option<usize>,
    /// Layers of tetrahedra along a cylinder's axis (at least 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layers: Option<usize>,
    /// An ellipsoid's semi-axes along its local x, y, z, m.
    #[serde(
        default,
        deserialize_with = "exactly_n_opt::<_, 3>",
        skip_serializing_if = "Option::is_none"
    )]
    pub semi_axes: Option<[f64; 3]>,
    /// Cells a side of the cube an ellipsoid is mapped from (at least 2;
    /// `scene::bodies::ellipsoid`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cells: Option<usize>,
    /// Centre (mass-weighted centroid) at t = 0, m.
    #[serde(deserialize_with = "exactly_n::<_, 3>")]
    pub centre: [f64; 3],
    /// The body's rotation about its centre at t = 0: a rotation vector (axis × angle),
    /// degrees (default none).
    #[serde(
        default,
        deserialize_with = "exactly_n_opt::<_, 3>",
        skip_serializing_if = "Option::is_none"
    )]
    pub rotation_deg: Option<[f64; 3]>,
    /// The centre's initial velocity, m/s (default 0).
    #[serde(
        default,
        deserialize_with = "exactly_n_opt::<_, 3>",
        skip_serializing_if = "Option::is_none"
    )]
    pub velocity: Option<[f64; 3]>,
    /// The initial angular velocity about the centre, rad/s (default 0): node i starts at
    /// v + ω × (xᵢ − c), a rigid motion.
    #[serde(
        default,
        deserialize_with = "exactly_n_opt::<_, 3>",
        skip_serializing_if = "Option::is_none"
    )]
    pub angular_velocity: Option<[f64; 3]>,
    /// Density, kg/m³, lumped from the tetrahedra's volumes (an affine ellipsoid: over the
    /// ellipsoid's own volume).
    pub density: f64,
    /// `"neo_hookean"` (the default in 3D), `"mass_spring"` (springs along every tetrahedron
    /// edge) or `"affine"` (one affine map for the whole body: `scene::bodies::affine`).
    #[serde(default = "default_solid_material")]
    pub material: String,
    /// Spring stiffness of every edge, N/m (mass-spring); κ of the orthogonality potential, Pa
    /// (affine).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stiffness: Option<f64>,
    /// Young's modulus E, Pa (neo-Hookean).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub youngs_modulus: Option<f64>,
    /// Poisson's ratio ν in (−1, 0.5) (neo-Hookean).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poisson_ratio: Option<f64>,
    /// Stiffness-proportional damping time β, s (neo-Hookean; default 0, none): the force
    /// −β K v (`energy::stiffness_damping`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub damping: Option<f64>,
    /// A boundary node's barrier weight against a half-space (docs/scenes.md "Contact
    /// weights"): `"facing"` (its share of the boundary's area facing the half-space it starts
    /// nearest; the default but for an ellipsoid) or `"full"` (its whole share; the default for
    /// an ellipsoid, and for any body that tumbles onto faces that do not face the ground at
    /// t = 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contact_weights: Option<String>,
}

fn default_solid_material() -> String {
    "neo_hookean".into()
}

/// `[obstacles.NAME]` of a 3D scene: a half-space n·(x − o) ≥ 0 (`normal` or `angle_deg`,
/// `point`, `velocity`) or a static triangle mesh (`vertices`, `triangles`).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SolidObstacleSection {
    /// `"half_space"` or `"triangle_mesh"`.
    #[serde(rename = "type")]
    pub kind: String,
    /// A triangle mesh's vertices, m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vertices: Option<Vec<[f64; 3]>>,
    /// A triangle mesh's triangles: three indices into `vertices` each.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub triangles: Option<Vec<[usize; 3]>>,
    /// Outward normal (normalised on load).
    #[serde(
        default,
        deserialize_with = "exactly_n_opt::<_, 3>",
        skip_serializing_if = "Option::is_none"
    )]
    pub normal: Option<[f64; 3]>,
    /// Or the incline's angle θ to the horizontal x–y plane, degrees, in [0, 90): normal
    /// (sin θ, 0, cos θ), descending towards +x.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub angle_deg: Option<f64>,
    /// A point on the surface, m.
    #[serde(
        default,
        deserialize_with = "exactly_n_opt::<_, 3>",
        skip_serializing_if = "Option::is_none"
    )]
    pub point: Option<[f64; 3]>,
    /// The surface's velocity along itself (a belt), m/s (default 0).
    #[serde(
        default,
        deserialize_with = "exactly_n_opt::<_, 3>",
        skip_serializing_if = "Option::is_none"
    )]
    pub velocity: Option<[f64; 3]>,
}

/// `[gravity]` of a 3D scene.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SolidGravitySection {
    /// Gravitational acceleration, m/s².
    #[serde(deserialize_with = "exactly_n::<_, 3>")]
    pub acceleration: [f64; 3],
}

/// A 3D scene case file as written.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SolidSceneFile {
    /// `"scene"`.
    pub kind: String,
    /// 3.
    pub dimension: u32,
    /// Human-readable name.
    pub name: String,
    /// Gravity.
    pub gravity: SolidGravitySection,
    /// The bodies, by name.
    pub bodies: BTreeMap<String, SolidBodySection>,
    /// The obstacles, by name.
    #[serde(default)]
    pub obstacles: BTreeMap<String, SolidObstacleSection>,
    /// The drivers, by name.
    #[serde(default)]
    pub drivers: BTreeMap<String, DriverSection<3>>,
    /// Friction.
    pub friction: FrictionSection,
    /// The barrier.
    pub barrier: BarrierSection,
    /// Time stepping.
    pub time: TimeSection,
    /// Newton.
    pub newton: NewtonSection,
}
