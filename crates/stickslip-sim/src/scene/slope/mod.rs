//! The square on the slope (`kind = "slope_square"`, SPEC.md §1–§4): its case files' schema
//! ([`schema`]), their validation into a [`Scene`] (here: every value checked, every key named
//! in an error), and the [`crate::solver::System`] a scene builds ([`system`]).

pub mod schema;
pub mod system;

use std::path::{Path, PathBuf};

use nalgebra::Vector2;
use serde::Serialize;

pub use schema::*;

use crate::contact::BarrierKind;
use crate::contact::potentials::friction::StickModel;
use crate::energy::Projection;
use crate::energy::inversion::Inversion;
use crate::number_format::Short;
use crate::scene::case_file::{
    CaseError, Validator, parse_case_toml, peek_kind, read_case_file, whole_steps,
};
use crate::scene::kind::{CaseKind, SLOPE_KIND};
pub use crate::scene::limits::{
    DEFAULT_LAGGING_TOL, DEFAULT_MAX_LAGGING, MAX_HALVINGS, MAX_NEWTON_ITERATIONS, MAX_NODES,
    MAX_STEPS, MIN_START_CLEARANCE_OF_DHAT,
};
use crate::scene::overrides::{Override, attribute, parse_with_overrides};
use crate::solver::{InitialGuess, Lagging};

/// At most this much memory, bytes, by [`RunEstimate::bytes`] (2 GiB): the trajectory, the
/// per-node state and buffers, and the Cholesky factor. The book's square over the full 10⁷
/// steps needs 0.8 GB; a mesh of n_seg ≈ 770 (6·10⁵ nodes) reaches 2 GiB, and such a run
/// takes hours per simulated second; beyond it a run does not fit beside other work on a
/// 8–16 GB workstation. This bound, not [`MAX_NODES`], is what stops large meshes.
pub const MAX_ESTIMATED_BYTES: f64 = 2.0 * 1024.0 * 1024.0 * 1024.0;

/// Bytes of one trajectory row (10 numbers of 8 bytes).
const BYTES_PER_ROW: f64 = 80.0;

/// Bytes a node holds: positions, velocities, μλ, the Newton buffers, masses, areas, and its
/// share of the edge buffers and of the assembled matrix (~4 edges a node); an upper estimate.
const BYTES_PER_NODE: f64 = 1024.0;

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
    /// Iterations every step takes before Newton may stop (`newton.min_iterations`).
    pub min_iterations: usize,
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
    /// How friction holds a sticking contact (`friction.stick`, `friction.eps_d`; SPEC.md §9).
    #[serde(skip)]
    pub stick: StickModel,
    /// Where Newton starts a step (`newton.initial_guess`, default the book's xⁿ).
    pub initial_guess: InitialGuess,
    /// The cross-check's late window starts here, s.
    pub cross_check_late_from: f64,
    /// The restitution the cross-check gives the impulse law.
    pub cross_check_restitution: f64,
    /// The inversion barrier's constants, when the case turns it on.
    pub inversion: Option<Inversion>,
}

impl Scene {
    /// The square's mesh (SPEC.md §1).
    pub fn mesh(&self) -> crate::scene::Mesh {
        crate::scene::bodies::square::square(
            self.side,
            self.n_seg,
            self.centre,
            self.density,
            self.contact_area,
        )
    }

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
            CaseKind::Scene => Some("`stickslip run`"),
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
        v.max_lagging("friction.max_lagging", case.friction.max_lagging)?;
        v.positive("friction.eps_v", case.friction.eps_v)?;
        v.positive("time.h", case.time.h)?;
        v.positive("time.duration", case.time.duration)?;
        v.positive("newton.tol", case.newton.tol)?;
        let stick = v.stick_model(
            case.friction.stick,
            case.friction.eps_d,
            case.friction.eps_v,
            case.time.h,
            case.barrier.dhat,
            case.newton.stick_filter,
        )?;
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
        if case.newton.min_iterations() > case.newton.max_iterations {
            return Err(v.invalid(
                "newton.min_iterations",
                "must be at most newton.max_iterations",
                format!(
                    "{} > {}",
                    case.newton.min_iterations(),
                    case.newton.max_iterations
                ),
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
            min_iterations: case.newton.min_iterations(),
            max_halvings: case.newton.max_halvings,
            spring_projection: case.newton.projection,
            filter_fraction: case.newton.filter_fraction,
            stick_filter: case.newton.stick_filter,
            stick,
            initial_guess: case.newton.initial_guess.unwrap_or_default(),
            cross_check_late_from: case.cross_check.late_from,
            cross_check_restitution: case.cross_check.restitution,
            inversion,
            overrides: Vec::new(),
        };
        if let Err(e) = scene.check_duration(scene.duration) {
            return Err(v.invalid(
                e.key,
                &e.rule,
                if e.key == "time.duration" {
                    e.value
                } else {
                    format!("time.duration = {} s, {}", Short(scene.duration), e.value)
                },
            ));
        }
        if let Err(e) = scene.check_tol(scene.tol) {
            return Err(v.invalid("newton.tol", &e.rule, e.value));
        }
        // Every node must start clear of the slope by MIN_START_CLEARANCE_OF_DHAT · d̂ (the
        // barrier is infinite at the slope and ill-conditioned just above it).
        let mesh = scene.mesh();
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
        check_derived(&v, &scene, &mesh)?;
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
                value: format!("{} s", Short(duration)),
            });
        }
        if self.steps_for(duration) == 0 {
            return Err(Violation {
                key: "time.h",
                rule: "the run must have at least one step (duration / h >= 1)".into(),
                value: format!("duration {} s, h {} s", Short(duration), Short(self.h)),
            });
        }
        if !(e.steps.is_nan() || e.steps > MAX_STEPS)
            && let Err(rule) = whole_steps(duration, self.h)
        {
            return Err(Violation {
                key: "time.duration",
                rule,
                value: format!("{} s / {} s", Short(duration), Short(self.h)),
            });
        }
        if e.steps.is_nan() || e.steps > MAX_STEPS {
            return Err(Violation {
                key: "time.h",
                rule: format!(
                    "duration / h must be at most {MAX_STEPS:e} steps (minutes of work for the book's square; more is a typing error)"
                ),
                value: format!(
                    "{} s / {} s = {:e} steps",
                    Short(duration),
                    Short(self.h),
                    e.steps
                ),
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
                value: Short(tol).to_string(),
            });
        }
        let bound = self.gravity.amax() * self.h;
        if bound > 0.0 && tol >= bound {
            return Err(Violation {
                key: "newton.tol",
                rule: format!(
                    "must be below |g|h = {bound:.4e} m/s (max |g component| x time.h), the first Newton residual of a body at rest; at or above it no Newton iteration runs and a falling body hangs in the air (SPEC.md §6): lower the tolerance or raise time.h"
                ),
                value: format!("{} m/s", Short(tol)),
            });
        }
        Ok(())
    }

    /// Number of time steps for `duration` seconds ([`Scene::check_duration`] makes sure it is
    /// a whole number; this rounds away the division's last bit).
    pub fn steps_for(&self, duration: f64) -> usize {
        (duration / self.h).round().max(0.0) as usize
    }
}

/// The quantities the solver derives from the case must be finite (and where it divides by
/// them, normal numbers > 0), each naming the key it comes from: the node mass ρ·side²/(n+1)²
/// (kg), the springs' squared rest lengths (m²), the inertia term m/h² (kg/s²), the springs'
/// energy scale k·l² (J), the kinetic and gravitational energies at t = 0 (J), the barrier's
/// energy and curvature scales κ·area and κ·area/d̂², and friction's stiffness
/// μ·κ·area/(d̂·ε_v·h) (SPEC.md §2). Inputs that are each in range can still overflow or
/// underflow in these; a run from them would fail at step 1 with a misleading message, or panic.
fn check_derived(v: &Validator, scene: &Scene, mesh: &crate::scene::Mesh) -> Result<(), CaseError> {
    let derived = |key: &str, what: &str, x: f64, normal: bool| -> Result<(), CaseError> {
        let ok = if normal {
            x.is_normal() && x > 0.0
        } else {
            x.is_finite()
        };
        if ok {
            return Ok(());
        }
        let kind = if normal {
            "a finite, normal number > 0"
        } else {
            "finite"
        };
        Err(v.invalid(
            key,
            &format!("{what} must be {kind} (the value is out of range)"),
            Short(x),
        ))
    };
    let m = mesh.mass.first().copied().unwrap_or(f64::NAN);
    derived(
        "material.density",
        "with square.side and square.n_seg, the node mass density*side^2/(n_seg+1)^2 (kg)",
        m,
        true,
    )?;
    let cell = scene.side / scene.n_seg as f64;
    derived(
        "square.side",
        "every spring's squared rest length: the cell's (side/n_seg)^2 (m^2)",
        cell * cell,
        true,
    )?;
    derived(
        "square.side",
        "the diagonal springs' squared rest length 2(side/n_seg)^2 (m^2)",
        2.0 * cell * cell,
        true,
    )?;
    let (l2_min, l2_max) = mesh
        .rest_l2
        .iter()
        .fold((f64::INFINITY, 0.0f64), |(lo, hi), &l| {
            (lo.min(l), hi.max(l))
        });
    // The rest lengths come from the nodes' positions: far from the origin, centre + offset
    // rounds the offset away.
    let lost = |l2: f64, exact: f64| {
        let error = ((l2 / exact) - 1.0).abs();
        error.is_nan() || error >= 1e-6
    };
    if lost(l2_min, cell * cell) || lost(l2_max, 2.0 * cell * cell) {
        return Err(v.invalid(
            "square.centre",
            "is so far from the origin for square.side that the nodes' positions round away the springs' lengths (their squared rest lengths differ from (side/n_seg)^2 by more than 1e-6)",
            format!(
                "{}, shortest squared rest length {} m^2 for {} m^2",
                crate::number_format::short_list(&[scene.centre.x, scene.centre.y]),
                Short(l2_min),
                Short(cell * cell)
            ),
        ));
    }
    derived(
        "material.stiffness",
        "the springs' Hessian scale 4 * stiffness (N/m)",
        4.0 * scene.stiffness,
        false,
    )?;
    derived(
        "time.h",
        "the inertia term m/h^2 (kg/s^2)",
        m / (scene.h * scene.h),
        false,
    )?;
    derived(
        "material.stiffness",
        "the springs' energy scale stiffness * rest length^2 (J)",
        scene.stiffness * l2_max,
        false,
    )?;
    let total_mass = m * mesh.mass.len() as f64;
    derived(
        "square.velocity",
        "the kinetic energy at t = 0 (J)",
        0.5 * total_mass * scene.velocity.norm_squared(),
        false,
    )?;
    let reach = mesh
        .x0
        .iter()
        .map(|x| (x - scene.point).amax())
        .fold(0.0f64, f64::max);
    derived(
        "gravity.acceleration",
        "the gravitational energy scale m|g||x - slope.point| at t = 0 (J)",
        total_mass * scene.gravity.amax() * reach,
        false,
    )?;
    let area = scene.contact_area;
    derived(
        "barrier.kappa",
        "the barrier's energy scale kappa*contact_area",
        scene.kappa * area,
        false,
    )?;
    derived(
        "barrier.kappa",
        "the barrier's curvature scale kappa*contact_area/dhat^2",
        scene.kappa * area / (scene.dhat * scene.dhat),
        false,
    )?;
    derived(
        "friction.eps_v",
        "friction's stiffness scale mu*kappa*contact_area/(dhat*eps_v*h)",
        scene.mu_static.max(scene.mu) * scene.kappa * area / (scene.dhat * scene.eps_v * scene.h),
        false,
    )
}

/// The rules of a slope case's friction and slope (the kind's own; the shared ones are
/// [`Validator`]'s).
impl Validator<'_> {
    /// (μ_s, μ_k) from `mu` alone or `mu_static` with `mu_kinetic`.
    fn friction_coefficients(&self, f: &FrictionSection) -> Result<(f64, f64), CaseError> {
        self.mu_pair(f.mu, f.mu_static, f.mu_kinetic)
    }

    /// (μ_s, μ_k) from `friction.mu` alone or `friction.mu_static` with `friction.mu_kinetic`
    /// (the slope's and a scene's `[friction]`).
    pub(crate) fn mu_pair(
        &self,
        mu: Option<f64>,
        mu_static: Option<f64>,
        mu_kinetic: Option<f64>,
    ) -> Result<(f64, f64), CaseError> {
        match (mu, mu_static, mu_kinetic) {
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
                // Scaled by its largest component before it is normalised, so that neither
                // [1e300, 1e300] nor [1e-320, 1e-320] over- or underflows: both are (1, 1)/√2.
                let scale = n[0].abs().max(n[1].abs());
                if scale == 0.0 {
                    return Err(self.invalid(
                        "slope.normal",
                        "must be a non-zero vector",
                        format!("{n:?}"),
                    ));
                }
                Ok((Vector2::from(n) / scale).normalize())
            }
            (None, Some(degrees)) => {
                if !(degrees.is_finite() && degrees > 0.0 && degrees < 90.0) {
                    return Err(self.invalid(
                        "slope.angle_deg",
                        "must be in (0, 90) degrees (the slope descends towards +x)",
                        Short(degrees),
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
}

impl Scene {
    /// Reads a case file, applies `overrides` in order (a later one wins) and validates the
    /// result as [`Scene::load`] does. The scene records the overrides.
    pub fn load_with_overrides(path: &Path, overrides: &[Override]) -> Result<Scene, CaseError> {
        let text = crate::scene::case_file::read_case_file(path)?;
        Scene::from_toml_with_overrides(&text, path, overrides)
    }

    /// [`Scene::from_toml`] with `overrides` applied to the parsed document first. With no
    /// overrides this is exactly [`Scene::from_toml`].
    pub fn from_toml_with_overrides(
        text: &str,
        path: &Path,
        overrides: &[Override],
    ) -> Result<Scene, CaseError> {
        if overrides.is_empty() {
            return Scene::from_toml(text, path);
        }
        let case: CaseFile = parse_with_overrides(text, path, overrides)?;
        let mut scene = Scene::from_case(&case, Some(path)).map_err(|e| attribute(e, overrides))?;
        scene.overrides = overrides.iter().map(|o| o.setting.clone()).collect();
        Ok(scene)
    }
}
