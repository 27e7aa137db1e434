//! The schema of a square-on-slope case file (`kind = "slope_square"`, SPEC.md §1): its
//! sections as written, parsed strictly (unknown keys rejected) by
//! `crate::scene::case_file::parse_case_toml`; [`super::Scene::from_case`] validates them.

use serde::{Deserialize, Serialize};

use crate::contact::BarrierKind;
use crate::scene::case_file::{
    NewtonSection, Stick, TimeSection, exactly_two, exactly_two_opt, is_smoothed,
};
use crate::scene::limits::{DEFAULT_LAGGING_TOL, DEFAULT_MAX_LAGGING};
use crate::solver::Lagging;

/// `[square]`: the elastic square and its grid.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SquareSection {
    /// Side length, m.
    pub side: f64,
    /// Segments per side; (n_seg+1)² nodes.
    pub n_seg: usize,
    /// Centre of the square at t = 0, m.
    #[serde(deserialize_with = "exactly_two")]
    pub centre: [f64; 2],
    /// Initial velocity of every node, m/s.
    #[serde(deserialize_with = "exactly_two")]
    pub velocity: [f64; 2],
}

/// `[material]`: density and spring stiffness.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MaterialSection {
    /// Areal density ρ, kg/m²; the mass ρ·side² is spread evenly over the nodes.
    pub density: f64,
    /// Spring stiffness k of every edge, N/m (SPEC.md §2 mass-spring energy).
    pub stiffness: f64,
}

/// `[gravity]`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct GravitySection {
    /// Gravitational acceleration, m/s².
    #[serde(deserialize_with = "exactly_two")]
    pub acceleration: [f64; 2],
}

/// `[slope]`: the half-space n·(x − o) ≥ 0. The normal is stated either as a vector
/// (`normal`) or by the slope's angle (`angle_deg`), exactly one of them.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SlopeSection {
    /// Outward normal (normalised on load; must be non-zero).
    #[serde(
        default,
        deserialize_with = "exactly_two_opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub normal: Option<[f64; 2]>,
    /// The slope's angle θ to the horizontal, degrees, in (0, 90): the normal is then
    /// (sin θ, cos θ), the book's convention (SPEC.md §1: n = (0.1, 1)/‖(0.1, 1)‖ is
    /// θ = atan 0.1, descending towards +x).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub angle_deg: Option<f64>,
    /// A point on the slope, m.
    #[serde(deserialize_with = "exactly_two")]
    pub point: [f64; 2],
}

/// `[barrier]`: the log barrier of SPEC.md §2.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BarrierSection {
    /// Which barrier function: `"book"` (SPEC.md §2, the default when absent) or `"ipc"` (the
    /// C² barrier of SPEC.md §6).
    #[serde(default)]
    pub kind: BarrierKind,
    /// Activation distance d̂, m.
    pub dhat: f64,
    /// Stiffness κ, Pa (N/m² per unit contact area).
    pub kappa: f64,
    /// Contact area A of every node, m (in 2D: a length). Optional: when the case does not
    /// state it, it follows the mesh as side/n_seg (SPEC.md §6), so refining the square with
    /// `--set square.n_seg=…` gives a consistent scene.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contact_area: Option<f64>,
}

/// `[friction]`: smoothed Coulomb friction (SPEC.md §2, §6). State either `mu` alone or both
/// `mu_static` and `mu_kinetic`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FrictionSection {
    /// One friction coefficient μ for sticking and sliding (dimensionless, ≥ 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mu: Option<f64>,
    /// Static coefficient μ_s (≥ μ_k), in force at tangential speeds up to ε_v.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mu_static: Option<f64>,
    /// Kinetic coefficient μ_k (≥ 0), in force from 2 ε_v on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mu_kinetic: Option<f64>,
    /// Smoothing speed ε_v, m/s.
    pub eps_v: f64,
    /// How the normal force of friction is lagged: `"semi-implicit"` (the book's: λ from xⁿ,
    /// the default) or `"implicit"` (re-lagged at the converged x until it agrees).
    #[serde(default, skip_serializing_if = "is_semi_implicit")]
    pub lagging: Lagging,
    /// Implicit lagging stops when max|λ_new − λ_used| / max|λ| ≤ this (dimensionless).
    #[serde(default = "default_lagging_tol")]
    pub lagging_tol: f64,
    /// Re-lagging passes allowed per step after the first solve (implicit lagging).
    #[serde(default = "default_max_lagging")]
    pub max_lagging: usize,
    /// How a sticking contact is held (SPEC.md §9): `"smoothed"` (the book's, the default) or
    /// `"exact"`.
    #[serde(default, skip_serializing_if = "is_smoothed")]
    pub stick: Stick,
    /// Exact stick's yield displacement ε_d, m (finite, > 0, at most `barrier.dhat`; ε_v·h
    /// when absent); only with `stick = "exact"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eps_d: Option<f64>,
}

fn is_semi_implicit(l: &Lagging) -> bool {
    *l == Lagging::SemiImplicit
}

fn default_lagging_tol() -> f64 {
    DEFAULT_LAGGING_TOL
}

fn default_max_lagging() -> usize {
    DEFAULT_MAX_LAGGING
}

/// `[inversion]`: the barrier against cells turning over ([`crate::energy::inversion`], an
/// extension of SPEC.md §6). Optional; the term is on when the table is present.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct InversionSection {
    /// κ_A, J/m² (energy per unit rest area of a triangle), > 0.
    pub kappa: f64,
    /// ŝ, the ratio of a triangle's area to its rest area below which the barrier acts, in
    /// (0, 1); [`DEFAULT_INVERSION_RATIO`] when absent.
    #[serde(default = "default_inversion_ratio")]
    pub ratio: f64,
}

/// Default of `inversion.ratio` (see docs/model.md for how it was chosen).
pub const DEFAULT_INVERSION_RATIO: f64 = 0.5;

fn default_inversion_ratio() -> f64 {
    DEFAULT_INVERSION_RATIO
}

/// `[cross_check]`: the impulse-law post-pass of SPEC.md §4. Optional; the defaults are SPEC's.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CrossCheckSection {
    /// Records from this time on make the "late" agreement, s (SPEC.md §4: 1 s, past the landing).
    #[serde(default = "default_late_from")]
    pub late_from: f64,
    /// Restitution e the law is given, dimensionless in [0, 1] (SPEC.md §4: 0, the optimiser's
    /// implicit Euler has no restitution).
    #[serde(default)]
    pub restitution: f64,
}

fn default_late_from() -> f64 {
    1.0
}

impl Default for CrossCheckSection {
    fn default() -> Self {
        CrossCheckSection {
            late_from: default_late_from(),
            restitution: 0.0,
        }
    }
}

/// A case file as written.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CaseFile {
    /// Which system the case is for: `"slope_square"` (the default) here; other kinds (e.g.
    /// `"rigid_ellipsoid"`, [`crate::rigid::case`]) are dispatched before this parser runs.
    #[serde(default)]
    pub kind: Option<String>,
    /// Human-readable name of the case.
    pub name: String,
    /// The square.
    pub square: SquareSection,
    /// Its material.
    pub material: MaterialSection,
    /// Gravity.
    pub gravity: GravitySection,
    /// The slope.
    pub slope: SlopeSection,
    /// The barrier.
    pub barrier: BarrierSection,
    /// Friction.
    pub friction: FrictionSection,
    /// Time stepping.
    pub time: TimeSection,
    /// Newton solver.
    pub newton: NewtonSection,
    /// The impulse-law cross-check (optional).
    #[serde(default)]
    pub cross_check: CrossCheckSection,
    /// The inversion barrier (optional; off when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inversion: Option<InversionSection>,
}
