//! Case files: every quantity of SPEC.md §1 stated in TOML, parsed strictly and validated.
//!
//! A case file has the sections `[square]`, `[material]`, `[gravity]`, `[slope]`, `[barrier]`,
//! `[friction]`, `[time]` and `[newton]`, and the optional `[cross_check]` and `[inversion]`;
//! unknown keys are rejected, and every value is checked (finite, positive where it must be, a
//! non-zero normal, μ ≥ 0, no node starting at or below the slope). Errors name the file, the key and the rule broken, on one line.

use std::path::{Path, PathBuf};

use nalgebra::Vector2;
use serde::{Deserialize, Deserializer, Serialize};

/// At most this many time steps a run (duration / h). A step of the book's 25-node square takes
/// about 20 µs, so 10⁷ steps are minutes of work and 800 MB of trajectory rows; far more is a
/// typing error (`h = 1e-12`), which would otherwise try to allocate the whole trajectory and
/// abort, or loop for centuries (`h = 1e-300`).
pub const MAX_STEPS: f64 = 1e7;

/// At most this many nodes, (n_seg + 1)², i.e. n_seg ≤ 999: a 2·10⁶-unknown sparse Cholesky
/// per Newton iteration, hours per simulated second; more is beyond what this solver is for.
pub const MAX_NODES: f64 = 1e6;

/// At most this much memory, bytes, by [`RunEstimate::bytes`] (2 GiB): the trajectory, the
/// per-node state and buffers, and the Cholesky factor. The book's square over the full 10⁷
/// steps needs 0.8 GB; a mesh of n_seg ≈ 770 (6·10⁵ nodes) reaches 2 GiB, and such a run
/// takes hours per simulated second; beyond it a run does not fit beside other work on a
/// 8–16 GB workstation. This bound, not [`MAX_NODES`], is what stops large meshes.
pub const MAX_ESTIMATED_BYTES: f64 = 2.0 * 1024.0 * 1024.0 * 1024.0;

/// A case file is a few hundred bytes; one over 1 MiB is not a case file.
const MAX_CASE_FILE_BYTES: u64 = 1 << 20;

/// Bytes of one trajectory row (10 numbers of 8 bytes).
const BYTES_PER_ROW: f64 = 80.0;

/// Bytes a node holds: positions, velocities, μλ, the Newton buffers, masses, areas, and its
/// share of the edge buffers and of the assembled matrix (~4 edges a node); an upper estimate.
const BYTES_PER_NODE: f64 = 1024.0;

/// The starting clearance every node must have from the slope, as a fraction of d̂.
///
/// Why: the barrier's curvature is A κ (d + d̂) / (2 d² d̂), growing as 1/d². At d = 10⁻³ d̂ it is
/// about 10⁶ times its value at d̂/2, which double precision still factorises next to the mass
/// term; at the d ≈ 10⁻¹⁷ m of a node placed exactly on the slope it is 10³⁰ times larger, the
/// Cholesky factorisation fails ("Hessian not positive definite") or the node is glued in
/// place. A body resting on the slope sits at a sizeable fraction of d̂ (the book's square at
/// ≈ 0.3 d̂), so no meaningful start is refused.
pub const MIN_START_CLEARANCE_OF_DHAT: f64 = 1e-3;

/// At most this many Newton iterations a step (`newton.max_iterations`): far above what any
/// case needs (SPEC.md §6: 175 in the worst step at n_seg = 16), so a larger bound only turns
/// a failing step into a hang.
pub const MAX_NEWTON_ITERATIONS: usize = 100_000;

/// At most this many line-search halvings (`newton.max_halvings`): α = 2⁻¹⁰⁷⁴ is the smallest
/// positive double, so further halvings only repeat α = 0.
pub const MAX_HALVINGS: usize = 1074;

/// Deserialises an array of exactly two numbers. serde's own `[f64; 2]` reads the first two
/// elements and ignores the rest, so `[0, 0, -9.81]` would be taken as `[0, 0]`.
fn exactly_two<'de, D: Deserializer<'de>>(d: D) -> Result<[f64; 2], D::Error> {
    let v = Vec::<f64>::deserialize(d)?;
    <[f64; 2]>::try_from(v.as_slice()).map_err(|_| {
        serde::de::Error::invalid_length(v.len(), &"an array of exactly 2 numbers, [x, y]")
    })
}

/// What a run of a scene needs, estimated before anything is allocated.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunEstimate {
    /// Time steps, duration / h (not rounded; may be astronomically large).
    pub steps: f64,
    /// Nodes, (n_seg + 1)².
    pub nodes: f64,
    /// Memory, bytes: trajectory rows, per-node state and buffers, and the Cholesky factor.
    pub bytes: f64,
}

impl RunEstimate {
    /// The estimate for `n_seg` segments a side, step `h` s and `duration` s.
    ///
    /// The factor of a 2D grid's matrix (2 unknowns a node) has O(n log n) non-zeros under a
    /// fill-reducing ordering: 24 bytes × 2n × (2 log₂ 2n + 16) for the factor and its
    /// workspace. Measured (peak resident memory of `stickslip run`, `/usr/bin/time -v`): 133 MB
    /// at n_seg = 200 (estimate 135 MB), 548 MB at n_seg = 400 (estimate 571 MB).
    pub fn new(n_seg: usize, h: f64, duration: f64) -> RunEstimate {
        let side = n_seg as f64 + 1.0;
        let nodes = side * side;
        let steps = duration / h;
        let dofs = 2.0 * nodes;
        let factor = 24.0 * dofs * (2.0 * dofs.log2() + 16.0);
        RunEstimate {
            steps,
            nodes,
            bytes: (steps + 1.0) * BYTES_PER_ROW + nodes * BYTES_PER_NODE + factor,
        }
    }
}

/// A rule a run's duration or tolerance breaks: the rule and the value, for a message that
/// names the key or the option.
#[derive(Clone, Debug, PartialEq)]
pub struct Violation {
    /// The case-file key to blame: `time.h` when the number of steps is at fault (or the
    /// trajectory dominates the memory), `square.n_seg` when the mesh dominates it.
    pub key: &'static str,
    /// The rule broken.
    pub rule: String,
    /// The value, with what it was compared to.
    pub value: String,
}

use super::kind::CaseKind;
use crate::energy::barrier::BarrierKind;
use crate::energy::inversion::Inversion;
use crate::energy::spring::Projection;

/// An error reading or validating a case file. Its `Display` is one line naming the file, the key
/// and the rule.
#[derive(Debug, thiserror::Error)]
pub enum CaseError {
    /// The file could not be read.
    #[error("{file}: cannot read: {source}")]
    Io {
        /// The case file.
        file: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The path is not a regular file of a sensible size.
    #[error("{file}: not a case file: it is {what}; give the path of a TOML case file")]
    NotACaseFile {
        /// The path.
        file: PathBuf,
        /// What it is instead.
        what: &'static str,
    },
    /// The file is not valid TOML, or a key is unknown, missing or of the wrong type.
    #[error("{file}: key `{key}`: {message}")]
    Parse {
        /// The case file.
        file: PathBuf,
        /// Dotted path of the offending key (`(document)` when the TOML itself is malformed).
        key: String,
        /// What is wrong, on one line.
        message: String,
    },
    /// A value breaks a rule of the model.
    #[error("{file}: key `{key}`: {rule} (got {value})")]
    Invalid {
        /// The case file.
        file: PathBuf,
        /// Dotted path of the offending key.
        key: String,
        /// The rule broken.
        rule: String,
        /// The value as given.
        value: String,
    },
    /// An error about a key whose value came from a `--set` override
    /// ([`crate::scene::overrides`]).
    #[error("{source} [the value came from --set {setting}]")]
    FromOverride {
        /// The override as given (`KEY=VALUE`).
        setting: String,
        /// The error, as it would read for the same value in the file.
        source: Box<CaseError>,
    },
}

impl CaseError {
    /// The dotted key the error is about.
    pub fn key(&self) -> &str {
        match self {
            CaseError::Io { .. } | CaseError::NotACaseFile { .. } => "(file)",
            CaseError::Parse { key, .. } | CaseError::Invalid { key, .. } => key,
            CaseError::FromOverride { source, .. } => source.key(),
        }
    }
}

/// The `kind` of the square-on-slope case files (the default when `kind` is absent).
pub const SLOPE_KIND: &str = "slope_square";

/// The `kind` of the rigid-ellipsoid case files ([`crate::rigid::case`]).
pub const RIGID_KIND: &str = "rigid_ellipsoid";

/// The top-level `kind` of a case file's text, if it is TOML with a string `kind` (the CLI's
/// dispatch peeks at it before choosing a parser). Here rather than in `rigid/`, so that `scene`
/// does not depend on `rigid`.
pub fn peek_kind(text: &str) -> Option<String> {
    let table: toml::Table = toml::from_str(text).ok()?;
    table.get("kind")?.as_str().map(str::to_owned)
}

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

/// [`exactly_two`] for an optional key (called only when the key is present).
fn exactly_two_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<[f64; 2]>, D::Error> {
    exactly_two(d).map(Some)
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
    #[serde(default, skip_serializing_if = "Lagging::is_semi_implicit")]
    pub lagging: Lagging,
    /// Implicit lagging stops when max|λ_new − λ_used| / max|λ| ≤ this (dimensionless).
    #[serde(default = "default_lagging_tol")]
    pub lagging_tol: f64,
    /// Re-lagging passes allowed per step after the first solve (implicit lagging).
    #[serde(default = "default_max_lagging")]
    pub max_lagging: usize,
}

/// How friction's normal force λ is lagged within a step (SPEC.md §2 and §6).
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Lagging {
    /// λ from xⁿ, fixed through the step (the book's).
    #[default]
    SemiImplicit,
    /// λ re-lagged at the converged x^{n+1} and the step re-solved until λ agrees.
    Implicit,
}

impl Lagging {
    fn is_semi_implicit(&self) -> bool {
        *self == Lagging::SemiImplicit
    }
}

/// Default of `friction.lagging_tol`: 1e-6 of the largest normal force.
pub const DEFAULT_LAGGING_TOL: f64 = 1e-6;
/// Default of `friction.max_lagging`.
pub const DEFAULT_MAX_LAGGING: usize = 20;

fn default_lagging_tol() -> f64 {
    DEFAULT_LAGGING_TOL
}

fn default_max_lagging() -> usize {
    DEFAULT_MAX_LAGGING
}

/// `[time]`: implicit Euler.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TimeSection {
    /// Time step h, s.
    pub h: f64,
    /// Simulated duration, s.
    pub duration: f64,
}

/// `[newton]`: projected Newton and its line search.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct NewtonSection {
    /// Stop when ‖p‖∞ / h < tol, m/s.
    pub tol: f64,
    /// Iterations allowed per step before the step is an error.
    pub max_iterations: usize,
    /// Halvings allowed per line search before the step is an error.
    pub max_halvings: usize,
    /// How the spring Hessian is projected: `"clamp"` (SPEC.md §2, the default when absent) or
    /// `"none"` (the exact Hessian, clamped only in an iteration where it is not positive
    /// definite; for refined meshes, docs/refinement.md).
    #[serde(default)]
    pub projection: Projection,
    /// The tunnelling filter's fraction (SPEC.md §2): no node may cover more than this part of its
    /// distance to the slope in one line-search trial; in (0, 1), 0.9 in the book (the default).
    #[serde(default = "default_filter_fraction")]
    pub filter_fraction: f64,
    /// The stick-zone filter ([`crate::energy::friction::stick_zone_max_step`]): a line-search
    /// trial stops where a sliding contact node's tangential displacement would change sign, so
    /// Newton lands inside friction's stick zone instead of jumping across it. Off by default
    /// (the book's line search); for refined meshes, docs/refinement.md.
    #[serde(default)]
    pub stick_filter: bool,
}

fn default_filter_fraction() -> f64 {
    0.9
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

/// A validated scene: everything the solver needs, in SI units, normal normalised.
#[derive(Clone, Debug, Serialize)]
pub struct Scene {
    /// Name of the case.
    pub name: String,
    /// Where it came from (for messages), if from a file.
    pub source: Option<PathBuf>,
    /// Side of the square, m.
    pub side: f64,
    /// Segments per side.
    pub n_seg: usize,
    /// Centre at t = 0, m.
    pub centre: Vector2<f64>,
    /// Initial velocity, m/s.
    pub velocity: Vector2<f64>,
    /// Areal density, kg/m².
    pub density: f64,
    /// Spring stiffness, N/m.
    pub stiffness: f64,
    /// Gravity, m/s².
    pub gravity: Vector2<f64>,
    /// Unit outward slope normal.
    pub normal: Vector2<f64>,
    /// Point on the slope, m.
    pub point: Vector2<f64>,
    /// Barrier activation distance d̂, m.
    pub dhat: f64,
    /// Barrier stiffness κ.
    pub kappa: f64,
    /// Contact area per node, m.
    pub contact_area: f64,
    /// The barrier function.
    pub barrier_kind: BarrierKind,
    /// Kinetic friction coefficient μ_k (the single μ when the case states `mu`).
    pub mu: f64,
    /// Static friction coefficient μ_s ≥ μ_k (equal to `mu` when the case states `mu`).
    pub mu_static: f64,
    /// Friction smoothing speed ε_v, m/s.
    pub eps_v: f64,
    /// How friction's normal force is lagged.
    pub lagging: Lagging,
    /// Relative tolerance of implicit lagging on λ.
    pub lagging_tol: f64,
    /// Re-lagging passes allowed per step.
    pub max_lagging: usize,
    /// Time step, s.
    pub h: f64,
    /// Duration, s.
    pub duration: f64,
    /// Newton tolerance on ‖p‖∞/h, m/s.
    pub tol: f64,
    /// Newton iteration bound per step.
    pub max_iterations: usize,
    /// Line-search halving bound.
    pub max_halvings: usize,
    /// Projection of the spring Hessian.
    pub spring_projection: Projection,
    /// The `--set` overrides applied to the case file, as given (`square.n_seg=16`).
    pub overrides: Vec<String>,
    /// The tunnelling filter's fraction, in (0, 1).
    pub filter_fraction: f64,
    /// Whether the line search also stops at friction's stick zone (`newton.stick_filter`).
    pub stick_filter: bool,
    /// The cross-check's late window starts here, s.
    pub cross_check_late_from: f64,
    /// The restitution the cross-check gives the impulse law.
    pub cross_check_restitution: f64,
    /// The inversion barrier's constants, when the case turns it on.
    pub inversion: Option<Inversion>,
}

/// The text of the case file at `path`, after checking, before opening it, that it is a regular
/// file of at most 1 MiB: opening a FIFO for reading blocks until a writer comes. Every reader of
/// case files (slope, rigid, `--set`, the `kind` peek) goes through here.
pub fn read_case_file(path: &Path) -> Result<String, CaseError> {
    let meta = std::fs::metadata(path).map_err(|source| CaseError::Io {
        file: path.to_path_buf(),
        source,
    })?;
    let ft = meta.file_type();
    let what = if meta.is_dir() {
        Some("a directory")
    } else if !ft.is_file() {
        Some("a FIFO, socket or device")
    } else if meta.len() > MAX_CASE_FILE_BYTES {
        Some("larger than 1 MiB")
    } else {
        None
    };
    if let Some(what) = what {
        return Err(CaseError::NotACaseFile {
            file: path.to_path_buf(),
            what,
        });
    }
    std::fs::read_to_string(path).map_err(|source| CaseError::Io {
        file: path.to_path_buf(),
        source,
    })
}

impl Scene {
    /// Read and validate a case file.
    pub fn load(path: &Path) -> Result<Scene, CaseError> {
        Scene::from_toml(&read_case_file(path)?, path)
    }

    /// Parse and validate case-file text; `path` is used in messages.
    pub fn from_toml(text: &str, path: &Path) -> Result<Scene, CaseError> {
        let file = path.to_path_buf();
        // A file for another system (or a misspelt kind) is named by its `kind` before the
        // square's keys are looked for.
        let runs_with = match CaseKind::of_text(text, path)? {
            CaseKind::SlopeSquare => None,
            CaseKind::RigidEllipsoid => Some("`stickslip run` or `stickslip view` (alone)"),
            CaseKind::Bounce => Some("`stickslip view` (alone)"),
        };
        if let Some(commands) = runs_with {
            let kind = peek_kind(text).unwrap_or_default();
            return Err(CaseError::Invalid {
                file,
                key: "kind".into(),
                rule: format!(
                    "a {kind} case runs only with {commands}; this needs square-on-slope cases"
                ),
                value: kind,
            });
        }
        let case: CaseFile = parse_case_toml(text, &file)?;
        Scene::from_case(&case, Some(path))
    }

    /// Validate a parsed case.
    pub fn from_case(case: &CaseFile, path: Option<&Path>) -> Result<Scene, CaseError> {
        let file = path
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("(inline case)"));
        let v = Validator { file: &file };
        if let Some(kind) = &case.kind
            && kind != SLOPE_KIND
        {
            let rule = format!("must be \"{SLOPE_KIND}\" (the default) for a square-on-slope case");
            return Err(v.invalid("kind", &rule, kind));
        }
        v.positive("square.side", case.square.side)?;
        if case.square.n_seg == 0 {
            return Err(v.invalid("square.n_seg", "must be at least 1", 0));
        }
        v.finite2("square.centre", case.square.centre)?;
        v.finite2("square.velocity", case.square.velocity)?;
        v.positive("material.density", case.material.density)?;
        v.positive("material.stiffness", case.material.stiffness)?;
        v.finite2("gravity.acceleration", case.gravity.acceleration)?;
        let normal = v.slope_normal(&case.slope)?;
        v.finite2("slope.point", case.slope.point)?;
        v.positive("barrier.dhat", case.barrier.dhat)?;
        v.positive("barrier.kappa", case.barrier.kappa)?;
        let contact_area = match case.barrier.contact_area {
            Some(a) => {
                v.positive("barrier.contact_area", a)?;
                a
            }
            None => case.square.side / case.square.n_seg as f64,
        };
        let (mu_static, mu_kinetic) = v.friction_coefficients(&case.friction)?;
        v.positive("friction.lagging_tol", case.friction.lagging_tol)?;
        v.positive("friction.eps_v", case.friction.eps_v)?;
        v.positive("time.h", case.time.h)?;
        v.positive("time.duration", case.time.duration)?;
        v.positive("newton.tol", case.newton.tol)?;
        let f = case.newton.filter_fraction;
        if !(f > 0.0 && f < 1.0) {
            return Err(v.invalid(
                "newton.filter_fraction",
                "must be in (0, 1): the share of a node's distance to the slope one trial may cover",
                f,
            ));
        }
        v.non_negative("cross_check.late_from", case.cross_check.late_from)?;
        let e = case.cross_check.restitution;
        if !(0.0..=1.0).contains(&e) {
            return Err(v.invalid("cross_check.restitution", "must be in [0, 1]", e));
        }
        if !(1..=MAX_NEWTON_ITERATIONS).contains(&case.newton.max_iterations) {
            return Err(v.invalid(
                "newton.max_iterations",
                &format!("must be at least 1 and at most {MAX_NEWTON_ITERATIONS}"),
                case.newton.max_iterations,
            ));
        }
        if !(1..=MAX_HALVINGS).contains(&case.newton.max_halvings) {
            return Err(v.invalid(
                "newton.max_halvings",
                &format!(
                    "must be at least 1 and at most {MAX_HALVINGS} (2^-{MAX_HALVINGS} is the smallest positive double)"
                ),
                case.newton.max_halvings,
            ));
        }
        let inversion = match &case.inversion {
            Some(section) => {
                v.positive("inversion.kappa", section.kappa)?;
                let s = section.ratio;
                if !(s > 0.0 && s < 1.0) {
                    return Err(v.invalid(
                        "inversion.ratio",
                        "must be in (0, 1): the share of a triangle's rest area below which the barrier acts",
                        s,
                    ));
                }
                Some(Inversion {
                    kappa: section.kappa,
                    ratio: s,
                })
            }
            None => None,
        };
        let nodes = (case.square.n_seg as f64 + 1.0).powi(2);
        if nodes > MAX_NODES {
            return Err(v.invalid(
                "square.n_seg",
                &format!("(n_seg + 1)^2 nodes must be at most {MAX_NODES:e}"),
                format!("{}, {nodes:e} nodes", case.square.n_seg),
            ));
        }
        let scene = Scene {
            name: case.name.clone(),
            source: path.map(Path::to_path_buf),
            side: case.square.side,
            n_seg: case.square.n_seg,
            centre: Vector2::from(case.square.centre),
            velocity: Vector2::from(case.square.velocity),
            density: case.material.density,
            stiffness: case.material.stiffness,
            gravity: Vector2::from(case.gravity.acceleration),
            normal,
            point: Vector2::from(case.slope.point),
            dhat: case.barrier.dhat,
            kappa: case.barrier.kappa,
            contact_area,
            barrier_kind: case.barrier.kind,
            mu: mu_kinetic,
            mu_static,
            eps_v: case.friction.eps_v,
            lagging: case.friction.lagging,
            lagging_tol: case.friction.lagging_tol,
            max_lagging: case.friction.max_lagging,
            h: case.time.h,
            duration: case.time.duration,
            tol: case.newton.tol,
            max_iterations: case.newton.max_iterations,
            max_halvings: case.newton.max_halvings,
            spring_projection: case.newton.projection,
            filter_fraction: case.newton.filter_fraction,
            stick_filter: case.newton.stick_filter,
            cross_check_late_from: case.cross_check.late_from,
            cross_check_restitution: case.cross_check.restitution,
            inversion,
            overrides: Vec::new(),
        };
        if let Err(e) = scene.check_duration(scene.duration) {
            return Err(v.invalid(
                e.key,
                &e.rule,
                format!("time.duration = {} s, {}", scene.duration, e.value),
            ));
        }
        if let Err(e) = scene.check_tol(scene.tol) {
            return Err(v.invalid("newton.tol", &e.rule, e.value));
        }
        // Every node must start clear of the slope by MIN_START_CLEARANCE_OF_DHAT · d̂ (the
        // barrier is infinite at the slope and ill-conditioned just above it).
        let mesh = crate::scene::Mesh::square(&scene);
        let lowest = mesh
            .x0
            .iter()
            .map(|x| scene.normal.dot(&(x - scene.point)))
            .fold(f64::INFINITY, f64::min);
        let clearance = MIN_START_CLEARANCE_OF_DHAT * scene.dhat;
        if lowest.is_nan() || lowest < clearance {
            return Err(v.invalid(
                "square.centre",
                &format!(
                    "every node must start at least {MIN_START_CLEARANCE_OF_DHAT:e} barrier.dhat = {clearance:e} m above the slope (closer, the barrier's curvature ~1/d^2 defeats the linear solve)"
                ),
                format!("{:?}, lowest node's signed distance {lowest:e} m", case.square.centre),
            ));
        }
        Ok(scene)
    }

    /// Whether a run of `duration` s fits the bounds: at least one step, at most [`MAX_STEPS`],
    /// and at most [`MAX_ESTIMATED_BYTES`] of memory by [`RunEstimate`].
    pub fn check_duration(&self, duration: f64) -> Result<(), Violation> {
        let e = RunEstimate::new(self.n_seg, self.h, duration);
        if !(duration.is_finite() && duration > 0.0) {
            return Err(Violation {
                key: "time.duration",
                rule: "the duration must be finite and > 0".into(),
                value: format!("{duration} s"),
            });
        }
        if self.steps_for(duration) == 0 {
            return Err(Violation {
                key: "time.h",
                rule: "the run must have at least one step (duration / h >= 0.5)".into(),
                value: format!("duration {duration} s, h {} s", self.h),
            });
        }
        if e.steps.is_nan() || e.steps > MAX_STEPS {
            return Err(Violation {
                key: "time.h",
                rule: format!(
                    "duration / h must be at most {MAX_STEPS:e} steps (minutes of work for the book's square; more is a typing error)"
                ),
                value: format!("{duration} s / {} s = {:e} steps", self.h, e.steps),
            });
        }
        if e.bytes.is_nan() || e.bytes > MAX_ESTIMATED_BYTES {
            let trajectory = (e.steps + 1.0) * BYTES_PER_ROW;
            return Err(Violation {
                key: if trajectory > 0.5 * e.bytes {
                    "time.h"
                } else {
                    "square.n_seg"
                },
                rule: format!(
                    "the run's estimated memory (trajectory, nodes, Cholesky factor) must be at most {} GiB",
                    MAX_ESTIMATED_BYTES / f64::from(1u32 << 30)
                ),
                value: format!(
                    "{:.1} GiB for {:e} steps and {:e} nodes",
                    e.bytes / f64::from(1u32 << 30),
                    e.steps,
                    e.nodes
                ),
            });
        }
        Ok(())
    }

    /// Whether Newton's stopping rule can let this scene move at all: `tol` must be below
    /// ‖g‖∞·h (SPEC.md §6).
    ///
    /// A body at rest in free fall starts each step at x = xⁿ with the Newton step
    /// p = h²g exactly (uniform gravity, unstretched springs: H p = −∇E is solved by a
    /// translation), so its first residual ‖p‖∞/h is ‖g‖∞·h. With tol at or above that, no
    /// iteration ever runs, x^{n+1} = xⁿ every step, and the body hangs in the air. Below it,
    /// gravity always acts; the book's tol = 10⁻² m/s with h = 10⁻² s is far below
    /// |g|h = 0.098 m/s, so the book's cases and figures are unchanged. Without gravity there is
    /// nothing to freeze and no bound.
    pub fn check_tol(&self, tol: f64) -> Result<(), Violation> {
        if !(tol.is_finite() && tol > 0.0) {
            return Err(Violation {
                key: "newton.tol",
                rule: "the tolerance must be finite and > 0".into(),
                value: format!("{tol}"),
            });
        }
        let bound = self.gravity.amax() * self.h;
        if bound > 0.0 && tol >= bound {
            return Err(Violation {
                key: "newton.tol",
                rule: format!(
                    "must be below |g|h = {bound:.4e} m/s (max |g component| x time.h), the first Newton residual of a body at rest; at or above it no Newton iteration runs and a falling body hangs in the air (SPEC.md §6): lower the tolerance or raise time.h"
                ),
                value: format!("{tol} m/s"),
            });
        }
        Ok(())
    }

    /// Number of time steps for `duration` seconds (rounded to the nearest whole step).
    pub fn steps_for(&self, duration: f64) -> usize {
        (duration / self.h).round().max(0.0) as usize
    }
}

struct Validator<'a> {
    file: &'a Path,
}

impl Validator<'_> {
    fn invalid(&self, key: &str, rule: &str, value: impl std::fmt::Display) -> CaseError {
        CaseError::Invalid {
            file: self.file.to_path_buf(),
            key: key.into(),
            rule: rule.into(),
            value: value.to_string(),
        }
    }
    fn positive(&self, key: &str, x: f64) -> Result<(), CaseError> {
        if x.is_finite() && x > 0.0 {
            Ok(())
        } else {
            Err(self.invalid(key, "must be finite and > 0", x))
        }
    }
    fn non_negative(&self, key: &str, x: f64) -> Result<(), CaseError> {
        if x.is_finite() && x >= 0.0 {
            Ok(())
        } else {
            Err(self.invalid(key, "must be finite and >= 0", x))
        }
    }
    /// (μ_s, μ_k) from `mu` alone or `mu_static` with `mu_kinetic`.
    fn friction_coefficients(&self, f: &FrictionSection) -> Result<(f64, f64), CaseError> {
        match (f.mu, f.mu_static, f.mu_kinetic) {
            (Some(mu), None, None) => {
                self.non_negative("friction.mu", mu)?;
                Ok((mu, mu))
            }
            (None, Some(mu_s), Some(mu_k)) => {
                self.non_negative("friction.mu_static", mu_s)?;
                self.non_negative("friction.mu_kinetic", mu_k)?;
                if mu_s < mu_k {
                    return Err(self.invalid(
                        "friction.mu_static",
                        "must be >= friction.mu_kinetic",
                        format!("{mu_s} < {mu_k}"),
                    ));
                }
                Ok((mu_s, mu_k))
            }
            (Some(_), _, _) => Err(self.invalid(
                "friction.mu",
                "state either mu alone or both mu_static and mu_kinetic",
                "mu together with mu_static/mu_kinetic",
            )),
            (None, None, None) => Err(self.invalid(
                "friction.mu",
                "missing: state mu, or both mu_static and mu_kinetic",
                "nothing",
            )),
            (None, Some(_), None) => Err(self.invalid(
                "friction.mu_kinetic",
                "missing: mu_static needs mu_kinetic",
                "nothing",
            )),
            (None, None, Some(_)) => Err(self.invalid(
                "friction.mu_static",
                "missing: mu_kinetic needs mu_static",
                "nothing",
            )),
        }
    }
    /// The unit normal from `slope.normal` or `slope.angle_deg` (exactly one of them).
    fn slope_normal(&self, slope: &SlopeSection) -> Result<Vector2<f64>, CaseError> {
        match (slope.normal, slope.angle_deg) {
            (Some(n), None) => {
                self.finite2("slope.normal", n)?;
                let normal = Vector2::from(n);
                if normal.norm() == 0.0 || !normal.norm().is_finite() {
                    return Err(self.invalid(
                        "slope.normal",
                        "must be a non-zero vector",
                        format!("{n:?}"),
                    ));
                }
                Ok(normal.normalize())
            }
            (None, Some(degrees)) => {
                if !(degrees.is_finite() && degrees > 0.0 && degrees < 90.0) {
                    return Err(self.invalid(
                        "slope.angle_deg",
                        "must be in (0, 90) degrees (the slope descends towards +x)",
                        degrees,
                    ));
                }
                let theta = degrees.to_radians();
                Ok(Vector2::new(theta.sin(), theta.cos()))
            }
            (Some(n), Some(degrees)) => Err(self.invalid(
                "slope.angle_deg",
                "state exactly one of slope.normal and slope.angle_deg",
                format!("both: normal {n:?}, angle_deg {degrees}"),
            )),
            (None, None) => Err(self.invalid(
                "slope.normal",
                "missing: state slope.normal or slope.angle_deg",
                "nothing",
            )),
        }
    }
    fn finite2(&self, key: &str, x: [f64; 2]) -> Result<(), CaseError> {
        if x.iter().all(|c| c.is_finite()) {
            Ok(())
        } else {
            Err(self.invalid(key, "every component must be finite", format!("{x:?}")))
        }
    }
}

/// The dotted key of a "duplicate key" error: the key at the error's span, prefixed by the
/// table header above it (`[friction]` then `mu` twice gives `friction.mu`; a header given
/// twice gives the header's name).
fn duplicate_key(e: &toml::de::Error, text: &str) -> Option<String> {
    if !e.message().contains("duplicate key") {
        return None;
    }
    let span = e.span()?;
    let name = text.get(span.clone())?.trim().trim_matches(['"', '\'']);
    if name.is_empty() {
        return None;
    }
    let line_start = text[..span.start].rfind('\n').map_or(0, |i| i + 1);
    if text[line_start..].trim_start().starts_with('[') {
        return Some(name.to_string());
    }
    let table = text[..line_start].lines().rev().find_map(|l| {
        let l = l.trim();
        l.starts_with('[').then(|| {
            l.trim_start_matches('[')
                .split(']')
                .next()
                .unwrap_or("")
                .trim()
        })
    });
    Some(match table {
        Some(t) if !t.is_empty() => format!("{t}.{name}"),
        _ => name.to_string(),
    })
}

/// Case-file text parsed strictly into `T` (unknown keys rejected by `T`'s serde attributes),
/// with errors naming the dotted key (a duplicate key by its own name) on one line. Every kind of
/// case file (slope, rigid) is read through here.
pub(crate) fn parse_case_toml<T: serde::de::DeserializeOwned>(
    text: &str,
    file: &Path,
) -> Result<T, CaseError> {
    let de = toml::Deserializer::parse(text).map_err(|e| CaseError::Parse {
        file: file.to_path_buf(),
        key: duplicate_key(&e, text).unwrap_or_else(|| "(document)".into()),
        message: one_line_toml(&e, text),
    })?;
    serde_path_to_error::deserialize(de).map_err(|e| {
        let key = e.path().to_string();
        CaseError::Parse {
            file: file.to_path_buf(),
            key: if key == "." { "(document)".into() } else { key },
            message: one_line_toml(e.inner(), text),
        }
    })
}

/// A TOML error on one line: its message and the line/column it points at.
pub(crate) fn one_line_toml(e: &toml::de::Error, text: &str) -> String {
    let msg = e.message().replace('\n', " ").trim().to_string();
    match e.span() {
        Some(span) => {
            let before = &text[..span.start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
            format!("{msg} (line {line}, column {col})")
        }
        None => msg,
    }
}
