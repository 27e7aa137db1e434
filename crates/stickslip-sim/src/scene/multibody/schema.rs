//! The schema of a scene case file (`kind = "scene"`, SPEC.md §7): bodies, obstacles and
//! drivers as tables keyed by their names (so that `--set` and sweeps address them:
//! `drivers.spring.stiffness`, `obstacles.belt.velocity`), parsed strictly (unknown keys
//! rejected); [`super::MultibodyScene::from_file`] validates them.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize, Serializer};

use crate::contact::BarrierKind;
use crate::scene::case_file::{
    NewtonSection, Stick, TimeSection, exactly_n_opt, exactly_two, exactly_two_opt, is_smoothed,
};
use crate::solver::Lagging;

/// `[bodies.NAME]`: one body: its shape and mesh, placement, density and material.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BodySection {
    /// `"square"` (the book's square: `side`, `n_seg`), `"box"` (`width`, `height`, `nx`,
    /// `ny`) or `"mesh"` (a Gmsh `.msh` triangle mesh: `file`).
    pub shape: String,
    /// A mesh's Gmsh `.msh` file (MSH 4.1, 3-node triangles in a plane z = const), relative to
    /// the case file; its area-weighted centroid is placed at `centre`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Side of a square, m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub side: Option<f64>,
    /// Segments a side of a square.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub n_seg: Option<usize>,
    /// Width of a box, m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width: Option<f64>,
    /// Height of a box, m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub height: Option<f64>,
    /// Cells along a box's width.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nx: Option<usize>,
    /// Cells along a box's height.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ny: Option<usize>,
    /// Centre at t = 0, m.
    #[serde(deserialize_with = "exactly_two")]
    pub centre: [f64; 2],
    /// The body's rotation about its centre at t = 0, degrees counter-clockwise (default 0).
    #[serde(default)]
    pub rotation_deg: f64,
    /// Initial velocity of every node, m/s (default 0).
    #[serde(
        default,
        deserialize_with = "exactly_two_opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub velocity: Option<[f64; 2]>,
    /// Areal density, kg/m²: for a mass-spring square or box the mass density × area spread
    /// evenly over the nodes, else lumped from the triangles' areas.
    pub density: f64,
    /// `"mass_spring"` (the book's, SPEC.md §2; the default) or `"neo_hookean"` (the stable
    /// neo-Hookean FEM over the triangles, SPEC.md §7: `youngs_modulus`, `poisson_ratio`).
    #[serde(default = "default_material")]
    pub material: String,
    /// Spring stiffness of every edge, N/m (mass-spring).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stiffness: Option<f64>,
    /// Young's modulus E, Pa (neo-Hookean; a 2D body is a plane-strain slab of unit
    /// thickness, as its areal density is).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub youngs_modulus: Option<f64>,
    /// Poisson's ratio ν in (−1, 0.5) (neo-Hookean).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poisson_ratio: Option<f64>,
    /// Contact area of every node, m (in 2D a length; default: the cell's width, the book's
    /// side/n_seg).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contact_area: Option<f64>,
}

fn default_material() -> String {
    "mass_spring".into()
}

/// `[obstacles.NAME]`: a half-space n·(x − o) ≥ 0 (the normal as a vector or by the slope's
/// angle, exactly one) with an optional surface velocity (a conveyor belt), or a static
/// polyline (a ramp, a step, a trough) that bodies touch on either side.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ObstacleSection {
    /// `"half_space"` or `"polyline"`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Outward normal of a half-space (normalised on load).
    #[serde(
        default,
        deserialize_with = "exactly_two_opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub normal: Option<[f64; 2]>,
    /// A half-space's angle θ to the horizontal, degrees, in [0, 90): normal (sin θ, cos θ),
    /// descending towards +x.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub angle_deg: Option<f64>,
    /// A point on a half-space's surface, m.
    #[serde(
        default,
        deserialize_with = "exactly_two_opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub point: Option<[f64; 2]>,
    /// The velocity of a half-space's surface (a belt), m/s, along it (default 0).
    #[serde(
        default,
        deserialize_with = "exactly_two_opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub velocity: Option<[f64; 2]>,
    /// A polyline's vertices in order, m: at least two, consecutive ones distinct.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub points: Option<Vec<[f64; 2]>>,
    /// A polyline vertex's contact area, m (default: half the length of its segments).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contact_area: Option<f64>,
}

/// Serialises an optional vector of `N` numbers as an array (serde's own impls of `[f64; N]`
/// are for literal lengths only).
fn vector_n_opt<S: Serializer, const N: usize>(
    x: &Option<[f64; N]>,
    s: S,
) -> Result<S::Ok, S::Error> {
    x.as_ref().map(|x| x.as_slice()).serialize(s)
}

/// `[drivers.NAME]`: a spring from a body's node set to an anchor, a prescribed motion of a node
/// set, or a constant force on a body; its vectors have `D` components, the scene's dimension.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DriverSection<const D: usize = 2> {
    /// `"spring"`, `"move"` or `"force"`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The body it acts on.
    pub body: String,
    /// The body's node set: `"all"` (the default), or the nodes on one side of the body's
    /// bounding box at rest, in the body's own frame: `"left"` / `"right"` (local −x / +x),
    /// `"bottom"` / `"top"` (in 2D −y / +y, in 3D −z / +z) and in 3D `"front"` / `"back"`
    /// (−y / +y).
    #[serde(default = "default_nodes")]
    pub nodes: String,
    /// Spring stiffness, N/m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stiffness: Option<f64>,
    /// Spring rest length, m (default 0: a zero-length spring).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rest_length: Option<f64>,
    /// The spring's anchor at t = 0, m.
    #[serde(
        default,
        deserialize_with = "exactly_n_opt::<_, D>",
        serialize_with = "vector_n_opt::<_, D>",
        skip_serializing_if = "Option::is_none"
    )]
    pub anchor: Option<[f64; D]>,
    /// The anchor's velocity, m/s (default 0: a fixed anchor).
    #[serde(
        default,
        deserialize_with = "exactly_n_opt::<_, D>",
        serialize_with = "vector_n_opt::<_, D>",
        skip_serializing_if = "Option::is_none"
    )]
    pub anchor_velocity: Option<[f64; D]>,
    /// The velocity a `"move"` driver moves its nodes at, m/s.
    #[serde(
        default,
        deserialize_with = "exactly_n_opt::<_, D>",
        serialize_with = "vector_n_opt::<_, D>",
        skip_serializing_if = "Option::is_none"
    )]
    pub velocity: Option<[f64; D]>,
    /// The total force of a `"force"` driver, N.
    #[serde(
        default,
        deserialize_with = "exactly_n_opt::<_, D>",
        serialize_with = "vector_n_opt::<_, D>",
        skip_serializing_if = "Option::is_none"
    )]
    pub force: Option<[f64; D]>,
}

impl<const D: usize> DriverSection<D> {
    /// Its keys as the driver's rules read them ([`super::drivers`]).
    pub(crate) fn fields(&self) -> super::drivers::DriverFields<'_, D> {
        super::drivers::DriverFields {
            kind: &self.kind,
            body: &self.body,
            nodes: &self.nodes,
            stiffness: self.stiffness,
            rest_length: self.rest_length,
            anchor: self.anchor,
            anchor_velocity: self.anchor_velocity,
            velocity: self.velocity,
            force: self.force,
        }
    }
}

fn default_nodes() -> String {
    "all".into()
}

/// `[gravity]`: the acceleration as a vector, or the ground's frame tilted by an incline
/// (exactly one of `acceleration` and `incline_deg`).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct GravitySection {
    /// Gravitational acceleration, m/s².
    #[serde(
        default,
        deserialize_with = "exactly_two_opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub acceleration: Option<[f64; 2]>,
    /// The incline θ, degrees in [0, 90): gravity g (sin θ, −cos θ), so that level ground
    /// (normal (0, 1)) is a slope of angle θ descending towards +x (SPEC.md §8's slide or tip).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub incline_deg: Option<f64>,
    /// g with `incline_deg`, m/s² (default [`STANDARD_GRAVITY`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub magnitude: Option<f64>,
}

/// g with `gravity.incline_deg` when `gravity.magnitude` is absent, m/s² (the book's 9.81).
pub const STANDARD_GRAVITY: f64 = 9.81;

/// `[friction.pairs.NAME]`: the coefficients between two named bodies or obstacles.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FrictionPairSection {
    /// The two bodies or obstacles, by name.
    pub between: [String; 2],
    /// μ_s ≥ μ_k.
    pub mu_static: f64,
    /// μ_k ≥ 0.
    pub mu_kinetic: f64,
}

/// `[friction]`: smoothed Coulomb friction (SPEC.md §2, §6): the default coefficients (`mu`
/// alone, or both `mu_static` and `mu_kinetic`), per-pair entries, the smoothing speed and the
/// lagging.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FrictionSection {
    /// One coefficient μ for sticking and sliding (μ_s = μ_k = μ), instead of `mu_static` and
    /// `mu_kinetic`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mu: Option<f64>,
    /// The default μ_s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mu_static: Option<f64>,
    /// The default μ_k.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mu_kinetic: Option<f64>,
    /// Smoothing speed ε_v, m/s.
    pub eps_v: f64,
    /// `"semi-implicit"` (default) or `"implicit"`.
    #[serde(default)]
    pub lagging: Lagging,
    /// Implicit lagging's tolerance on λ's relative change.
    #[serde(default = "default_lagging_tol")]
    pub lagging_tol: f64,
    /// Implicit lagging's bound on re-solves a step.
    #[serde(default = "default_max_lagging")]
    pub max_lagging: usize,
    /// Coefficients for particular pairs.
    #[serde(default)]
    pub pairs: BTreeMap<String, FrictionPairSection>,
    /// How a sticking contact is held (SPEC.md §9): `"smoothed"` (the default) or `"exact"`.
    #[serde(default, skip_serializing_if = "is_smoothed")]
    pub stick: Stick,
    /// Exact stick's yield displacement ε_d, m (finite, > 0, at most `barrier.dhat`; ε_v·h
    /// when absent); only with `stick = "exact"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eps_d: Option<f64>,
}

fn default_lagging_tol() -> f64 {
    crate::scene::limits::DEFAULT_LAGGING_TOL
}

fn default_max_lagging() -> usize {
    crate::scene::limits::DEFAULT_MAX_LAGGING
}

/// `[barrier]`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BarrierSection {
    /// `"book"` (default) or `"ipc"`.
    #[serde(default)]
    pub kind: BarrierKind,
    /// Activation distance d̂, m.
    pub dhat: f64,
    /// Stiffness κ, Pa.
    pub kappa: f64,
    /// The barrier's normal damping β_c, s (≥ 0; absent or 0: none;
    /// `contact::potentials::normal_damping`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub damping: f64,
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

/// A scene case file as written.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SceneFile {
    /// `"scene"`.
    pub kind: String,
    /// The scene's dimension: 2 here (the default when absent); `dimension = 3` is a 3D scene
    /// ([`super::solid_schema::SolidSceneFile`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dimension: Option<u32>,
    /// Human-readable name.
    pub name: String,
    /// Gravity.
    pub gravity: GravitySection,
    /// The bodies, by name (numbered in name order).
    pub bodies: BTreeMap<String, BodySection>,
    /// The obstacles, by name.
    #[serde(default)]
    pub obstacles: BTreeMap<String, ObstacleSection>,
    /// The drivers, by name.
    #[serde(default)]
    pub drivers: BTreeMap<String, DriverSection>,
    /// Friction.
    pub friction: FrictionSection,
    /// The barrier.
    pub barrier: BarrierSection,
    /// Time stepping.
    pub time: TimeSection,
    /// Newton.
    pub newton: NewtonSection,
}
