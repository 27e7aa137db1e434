//! The case runner: steps a [`Simulation`] for a duration, keeps the trajectory, the solver
//! statistics and the contact records, and gives the verdict and summary.

use std::time::Instant;

use serde::Serialize;

use crate::contact::potentials::friction::StickModel;
use crate::cross_check::backend::BackendError;
use crate::cross_check::records::{ContactRecord, Recorder};
use crate::cross_check::{CrossCheck, CrossCheckReport};
use crate::energy::inversion::Inversion;
use crate::energy::{Projection, Vec2};
use crate::run::verdict::{self, Verdict};
use crate::scene::{Mesh, Scene};
use crate::solver::assembly::LinearSolveError;
use crate::solver::{Lagging, Simulation, SolveError, StepStats};

/// Steps between two cross-check batches, so the records held in memory stay bounded.
pub const RECORD_CHUNK_STEPS: usize = 10_000;

/// Errors of a run.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The solver failed a step.
    #[error("{case}: {source}")]
    Solve {
        /// Case name.
        case: String,
        /// The step's error, with its diagnostics.
        source: SolveError,
    },
    /// The solver could not be set up.
    #[error("{case}: {source}")]
    Setup {
        /// Case name.
        case: String,
        /// Cause.
        source: LinearSolveError,
    },
    /// The impulse-law post-pass failed.
    #[error("{case}: cross-check: {source}")]
    CrossCheck {
        /// Case name.
        case: String,
        /// Cause.
        source: BackendError,
    },
}

/// Column names of the slope's `trajectory.csv`, with units, one per field of a
/// [`TrajectoryRow`] in order.
pub const TRAJECTORY_HEADER: &str = "t_s,centroid_x_m,centroid_y_m,centroid_vx_m_per_s,centroid_vy_m_per_s,downhill_distance_m,downhill_speed_m_per_s,min_distance_to_slope_m,newton_iterations,final_residual_m_per_s";

/// One line of `trajectory.csv`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct TrajectoryRow {
    /// Time, s.
    pub t: f64,
    /// Centroid, m.
    pub centroid_x: f64,
    /// Centroid, m.
    pub centroid_y: f64,
    /// Centroid velocity, m/s.
    pub centroid_vx: f64,
    /// Centroid velocity, m/s.
    pub centroid_vy: f64,
    /// Centroid displacement since t = 0 along the downhill tangent, m.
    pub downhill_distance: f64,
    /// Centroid velocity along the downhill tangent, m/s.
    pub downhill_speed: f64,
    /// Smallest signed distance of any node to the slope, m.
    pub min_distance: f64,
    /// Newton iterations of the step that ended here (0 at t = 0).
    pub newton_iterations: usize,
    /// Final ‖p‖∞/h of that step, m/s.
    pub final_residual: f64,
}

/// Options of a run.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Simulated duration, s (default: the case's).
    pub duration: Option<f64>,
    /// Newton tolerance, m/s (default: the case's).
    pub tol: Option<f64>,
    /// Keep every step's [`StepStats`] (for invariant tests).
    pub keep_step_stats: bool,
}

/// Solver statistics over a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct SolverTotals {
    /// Steps taken.
    pub steps: usize,
    /// Newton iterations over all steps.
    pub newton_iterations: usize,
    /// Most iterations in one step.
    pub max_iterations_in_step: usize,
    /// Line-search halvings over all steps.
    pub line_search_halvings: usize,
    /// Largest E(after) − E(before) of any accepted line search, J (≤ 0, or above it within
    /// E's rounding where a line search was accepted flat).
    pub max_energy_increase: f64,
    /// Line searches accepted within E's rounding on the gradient's fall
    /// ([`crate::solver::line_search`]).
    pub flat_line_searches: usize,
    /// Smallest node-to-slope distance over the run, m. In a scene, the smallest of
    /// `trajectory.csv`'s `NAME.min_distance_m` over every row (every node of every body to the
    /// half-spaces, and every contact pair), so also a penetration the barrier's pairs miss.
    pub min_distance: f64,
    /// Symbolic factorisations (one at the start, one more each time contact brought a
    /// coupling outside the Hessian's pattern; the slope's node × half-space pairs never do).
    pub symbolic_factorisations: usize,
    /// Numeric factorisations (one per search direction).
    pub numeric_factorisations: usize,
    /// Assemblies at which the active contact set had changed, the pattern kept or rebuilt.
    pub active_set_changes: usize,
    /// Re-solves after re-lagging friction's normal force, over all steps (implicit lagging).
    pub lagging_passes: usize,
    /// Most re-lagging passes in one step.
    pub max_lagging_passes_in_step: usize,
    /// Steps whose implicit lagging hit `max_lagging` with λ still changing beyond its tolerance.
    pub lagging_unconverged_steps: usize,
    /// Largest relative λ change left at the end of a step (implicit lagging; ≤ `lagging_tol`
    /// on every step when the lagging converged).
    pub max_final_lagging_change: f64,
    /// Iterations solved with H + τM because H was not positive definite (SPEC.md §6,
    /// [`crate::solver::newton::MASS_SHIFTS`]).
    pub mass_shifts: usize,
    /// Largest τ of those shifts, in units of the mass matrix (0 when none).
    pub max_shift: f64,
    /// Iterations redone with the clamped spring projection because H + τM was not positive
    /// definite even at the largest τ.
    pub projection_fallbacks: usize,
    /// Most mesh triangles inverted at the end of any step ([`crate::scene::Mesh::inverted_triangles`];
    /// 0 unless the square folded).
    pub max_inverted_triangles: usize,
    /// The first time a triangle was inverted at the end of a step, s (none if never).
    pub first_inversion_time: Option<f64>,
}

impl SolverTotals {
    /// Adds one step's statistics (`stats`, of the step `sim` just took) to the totals, and
    /// `inverted` (the elements inverted at its end) at time `t` (s). The scenes of bodies keep
    /// their totals by this in 2D and 3D.
    pub fn record_step<const D: usize>(
        &mut self,
        stats: &crate::solver::StepStats,
        sim: &crate::solver::Simulation<D>,
        inverted: usize,
    ) {
        self.steps += 1;
        self.newton_iterations += stats.iterations;
        self.max_iterations_in_step = self.max_iterations_in_step.max(stats.iterations);
        self.line_search_halvings += stats.halvings;
        self.flat_line_searches += stats.flat_line_searches;
        self.max_energy_increase = self.max_energy_increase.max(stats.max_energy_increase);
        self.min_distance = self.min_distance.min(stats.min_distance);
        self.mass_shifts += stats.mass_shifts;
        self.max_shift = self.max_shift.max(stats.max_shift);
        self.projection_fallbacks += stats.projection_fallbacks;
        self.lagging_passes += stats.lagging_passes;
        self.max_lagging_passes_in_step = self.max_lagging_passes_in_step.max(stats.lagging_passes);
        self.lagging_unconverged_steps += usize::from(stats.lagging_unconverged);
        self.max_final_lagging_change = self.max_final_lagging_change.max(stats.lagging_change);
        self.symbolic_factorisations = sim.symbolic_factorisations();
        self.numeric_factorisations = sim.numeric_factorisations();
        self.active_set_changes = sim.active_set_changes();
        self.max_inverted_triangles = self.max_inverted_triangles.max(inverted);
        if inverted > 0 && self.first_inversion_time.is_none() {
            self.first_inversion_time = Some(sim.time());
        }
    }
}

/// A case being run; the viewer and the CLI drive it step by step.
pub struct Runner {
    /// The validated scene the simulation was built from (changing it changes nothing in the
    /// stepping: the system was built from it).
    pub scene: Scene,
    /// The square's mesh (body 0: its nodes are the simulation's).
    pub mesh: Mesh,
    /// The simulation.
    pub sim: Simulation<2>,
    /// Trajectory, one row per step plus the initial state.
    pub rows: Vec<TrajectoryRow>,
    /// The body's rotation since t = 0 at every row, unwrapped, rad (the angle of the edge from
    /// node 0 to node n_seg; for the verdict).
    pub rotation: Vec<f64>,
    /// Per-step statistics (only with [`RunOptions::keep_step_stats`]).
    pub step_stats: Vec<StepStats>,
    /// Totals so far.
    pub totals: SolverTotals,
    /// Contact records not yet handed to a cross-check.
    pub records: Vec<ContactRecord>,
    /// Records of the last step alone (start index into `records`).
    last_step_records: usize,
    recorder: Recorder<2>,
    tol: f64,
    steps: usize,
    tangent: Vec2,
    c0: Vec2,
    angle0: f64,
    keep_step_stats: bool,
    started: Instant,
    post_pass_seconds: f64,
}

/// The unit tangent of the slope pointing downhill (the direction gravity pulls along it); for
/// a slope normal to gravity, the normal rotated clockwise.
pub fn downhill_tangent(normal: &Vec2, gravity: &Vec2) -> Vec2 {
    let t = Vec2::new(normal.y, -normal.x);
    if t.dot(gravity) < 0.0 { -t } else { t }
}

/// The angle of the square's left edge (node 0 → node n_seg), unwrapped next to `previous`, rad.
fn edge_angle(x: &[Vec2], n_seg: usize, previous: f64) -> f64 {
    verdict::unwrapped_angle(&x[0], &x[n_seg], previous)
}

/// The smallest distance of any node to the slope at the simulation's x, m.
fn min_distance(sim: &Simulation<2>) -> f64 {
    sim.contact()
        .map_or(f64::INFINITY, |c| c.min_distance(&sim.x))
}

fn centroid(x: &[Vec2]) -> Vec2 {
    x.iter().sum::<Vec2>() / x.len() as f64
}

impl Runner {
    /// A runner at t = 0.
    pub fn new(scene: Scene, opts: &RunOptions) -> Result<Runner, RunError> {
        let duration = opts.duration.unwrap_or(scene.duration);
        let tol = opts.tol.unwrap_or(scene.tol);
        let steps = scene.steps_for(duration);
        let tangent = downhill_tangent(&scene.normal, &scene.gravity);
        let case = scene.name.clone();
        let (system, mesh) = scene.system();
        let sim = Simulation::new(system).map_err(|source| RunError::Setup { case, source })?;
        let c0 = centroid(&sim.x);
        let min_distance = min_distance(&sim);
        let angle0 = edge_angle(&sim.x, scene.n_seg, 0.0);
        let mut rows = Vec::with_capacity(steps + 1);
        rows.push(TrajectoryRow {
            t: 0.0,
            centroid_x: c0.x,
            centroid_y: c0.y,
            centroid_vx: scene.velocity.x,
            centroid_vy: scene.velocity.y,
            downhill_distance: 0.0,
            downhill_speed: scene.velocity.dot(&tangent),
            min_distance,
            newton_iterations: 0,
            final_residual: 0.0,
        });
        Ok(Runner {
            totals: SolverTotals {
                min_distance,
                max_energy_increase: f64::NEG_INFINITY,
                symbolic_factorisations: sim.symbolic_factorisations(),
                ..Default::default()
            },
            recorder: Recorder::default(),
            scene,
            mesh,
            sim,
            rows,
            rotation: vec![0.0],
            angle0,
            step_stats: Vec::new(),
            records: Vec::new(),
            last_step_records: 0,
            tol,
            steps,
            tangent,
            c0,
            keep_step_stats: opts.keep_step_stats,
            started: Instant::now(),
            post_pass_seconds: 0.0,
        })
    }

    /// Steps this run takes in all.
    pub fn total_steps(&self) -> usize {
        self.steps
    }

    /// Whether every step has been taken.
    pub fn done(&self) -> bool {
        self.sim.step >= self.steps
    }

    /// Newton tolerance in use, m/s.
    pub fn tol(&self) -> f64 {
        self.tol
    }

    /// The downhill unit tangent.
    pub fn tangent(&self) -> Vec2 {
        self.tangent
    }

    /// Takes one step, appends its row and its contact records.
    pub fn step(&mut self) -> Result<StepStats, RunError> {
        let stats = self
            .sim
            .step_with_tol(self.tol)
            .map_err(|source| RunError::Solve {
                case: self.scene.name.clone(),
                source,
            })?;
        let c = centroid(&self.sim.x);
        let v = centroid(&self.sim.v);
        self.rows.push(TrajectoryRow {
            t: stats.time,
            centroid_x: c.x,
            centroid_y: c.y,
            centroid_vx: v.x,
            centroid_vy: v.y,
            downhill_distance: (c - self.c0).dot(&self.tangent),
            downhill_speed: v.dot(&self.tangent),
            min_distance: stats.min_distance,
            newton_iterations: stats.iterations,
            final_residual: stats.residual,
        });
        let previous = self.rotation.last().copied().unwrap_or(0.0) + self.angle0;
        self.rotation
            .push(edge_angle(&self.sim.x, self.scene.n_seg, previous) - self.angle0);
        let t = &mut self.totals;
        t.steps += 1;
        t.newton_iterations += stats.iterations;
        t.max_iterations_in_step = t.max_iterations_in_step.max(stats.iterations);
        t.line_search_halvings += stats.halvings;
        t.flat_line_searches += stats.flat_line_searches;
        t.projection_fallbacks += stats.projection_fallbacks;
        t.mass_shifts += stats.mass_shifts;
        t.max_shift = t.max_shift.max(stats.max_shift);
        let inverted = self.mesh.inverted_triangles(&self.sim.x);
        t.max_inverted_triangles = t.max_inverted_triangles.max(inverted);
        if inverted > 0 && t.first_inversion_time.is_none() {
            t.first_inversion_time = Some(stats.time);
        }
        t.max_energy_increase = t.max_energy_increase.max(stats.max_energy_increase);
        t.min_distance = t.min_distance.min(stats.min_distance);
        t.symbolic_factorisations = self.sim.symbolic_factorisations();
        t.numeric_factorisations = self.sim.numeric_factorisations();
        t.active_set_changes = self.sim.active_set_changes();
        t.lagging_passes += stats.lagging_passes;
        t.max_lagging_passes_in_step = t.max_lagging_passes_in_step.max(stats.lagging_passes);
        t.lagging_unconverged_steps += usize::from(stats.lagging_unconverged);
        t.max_final_lagging_change = t.max_final_lagging_change.max(stats.lagging_change);
        self.last_step_records = self.records.len();
        self.recorder.push_step_records(
            &self.sim,
            self.scene.cross_check_restitution,
            &mut self.records,
        );
        if self.keep_step_stats {
            self.step_stats.push(stats);
        }
        Ok(stats)
    }

    /// The contact records of the last step.
    pub fn last_step_records(&self) -> &[ContactRecord] {
        &self.records[self.last_step_records.min(self.records.len())..]
    }

    /// Hands the records held so far to `check` and forgets them.
    pub fn flush_records(&mut self, check: &mut CrossCheck) -> Result<(), RunError> {
        let clock = Instant::now();
        check
            .push_batch(&self.records)
            .map_err(|source| RunError::CrossCheck {
                case: self.scene.name.clone(),
                source,
            })?;
        self.records.clear();
        self.last_step_records = 0;
        self.post_pass_seconds += clock.elapsed().as_secs_f64();
        Ok(())
    }

    /// The verdict over the trajectory so far.
    pub fn verdict(&self) -> Verdict {
        let (t, s): (Vec<f64>, Vec<f64>) =
            self.rows.iter().map(|r| (r.t, r.downhill_distance)).unzip();
        let dhat = self.scene.dhat;
        let in_contact: Vec<bool> = self.rows.iter().map(|r| r.min_distance < dhat).collect();
        let track = verdict::Track {
            times: &t,
            downhill: &s,
            rotation: &self.rotation,
            in_contact: &in_contact,
            angular_speed: None,
            exact_stick_radius: self
                .scene
                .stick
                .is_exact()
                .then(|| verdict::radius(&self.sim.x)),
        };
        verdict::verdict(&track, self.scene.h)
    }

    /// Mean downhill speed over the last window, m/s (`None` before one window has passed).
    pub fn final_speed(&self) -> Option<f64> {
        let s: Vec<f64> = self.rows.iter().map(|r| r.downhill_distance).collect();
        verdict::window_speed(&s, s.len() - 1, self.scene.h)
    }

    /// The 95th percentile (nearest rank) of the Newton iterations of the steps taken so far.
    pub fn p95_iterations_per_step(&self) -> usize {
        let mut iterations: Vec<usize> = self
            .rows
            .iter()
            .skip(1)
            .map(|r| r.newton_iterations)
            .collect();
        iterations.sort_unstable();
        nearest_rank(&iterations, 0.95)
    }

    /// Seconds since the runner was made.
    pub fn wall_seconds(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }

    /// The run's summary.
    pub fn summary(&self, cross_check: Option<CrossCheckReport>) -> Summary {
        let sc = &self.scene;
        let last = self.rows.last().copied();
        Summary {
            case: sc.name.clone(),
            source: sc.source.as_ref().map(|p| p.display().to_string()),
            overrides: sc.overrides.clone(),
            mu: sc.mu,
            mu_static: sc.mu_static,
            lagging: sc.lagging,
            inversion: sc.inversion,
            projection: sc.spring_projection,
            stick_filter: sc.stick_filter,
            exact_stick: ExactStick::of(sc.stick),
            h: sc.h,
            tol: self.tol,
            min_iterations: sc.min_iterations,
            duration: self.steps as f64 * sc.h,
            nodes: self.mesh.len(),
            edges: self.mesh.edges.len(),
            verdict: self.verdict(),
            verdict_rule: if sc.stick.is_exact() {
                verdict::rule() + &verdict::exact_stick_rule()
            } else {
                verdict::rule()
            },
            downhill_distance: last.map_or(0.0, |r| r.downhill_distance),
            final_speed: self.final_speed(),
            solver: self.totals,
            mean_iterations_per_step: self.totals.newton_iterations as f64
                / self.totals.steps.max(1) as f64,
            p95_iterations_per_step: self.p95_iterations_per_step(),
            wall_seconds: self.wall_seconds(),
            post_pass_seconds: self.post_pass_seconds,
            cross_check,
        }
    }
}

/// The `q`-quantile (0 < q ≤ 1) of sorted `values` by the nearest-rank rule: the smallest value
/// with at least ⌈q·n⌉ values at or below it; 0 for no values.
pub fn nearest_rank(sorted: &[usize], q: f64) -> usize {
    if sorted.is_empty() {
        return 0;
    }
    let rank = (q * sorted.len() as f64).ceil().max(1.0) as usize;
    sorted[rank.min(sorted.len()) - 1]
}

/// Exact stick's setting in `summary.json` (SPEC.md §9), present only in a run with
/// `friction.stick = "exact"`: a summary without it ran the smoothed model.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ExactStick {
    /// The yield displacement ε_d, m (`friction.eps_d`).
    pub eps_d_m: f64,
}

impl ExactStick {
    /// The summary's entry for `model`: none for smoothed friction.
    pub fn of(model: StickModel) -> Option<ExactStick> {
        match model {
            StickModel::Exact { eps_d } => Some(ExactStick { eps_d_m: eps_d }),
            StickModel::Smoothed => None,
        }
    }
}

/// `summary.json`.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    /// Case name.
    pub case: String,
    /// Case file.
    pub source: Option<String>,
    /// The `--set` overrides applied to the case file, as given (`square.n_seg=16`).
    pub overrides: Vec<String>,
    /// μ (the kinetic μ_k when the case states static and kinetic coefficients).
    pub mu: f64,
    /// Static μ_s (equal to `mu` when the case states one μ).
    pub mu_static: f64,
    /// How friction's normal force was lagged.
    pub lagging: Lagging,
    /// The inversion barrier's κ_A (J/m²) and ŝ, `null` when off.
    pub inversion: Option<Inversion>,
    /// The spring Hessian's projection (`newton.projection`).
    pub projection: Projection,
    /// Whether the line search's stick-zone filter was on (`newton.stick_filter`).
    pub stick_filter: bool,
    /// Exact stick's ε_d when `friction.stick = "exact"`; absent with smoothed friction.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exact_stick: Option<ExactStick>,
    /// Time step, s.
    pub h: f64,
    /// Newton tolerance, m/s.
    pub tol: f64,
    /// Iterations every step took before Newton could stop (`newton.min_iterations`; 0 in
    /// the book's cases).
    pub min_iterations: usize,
    /// Simulated duration, s.
    pub duration: f64,
    /// Nodes.
    pub nodes: usize,
    /// Edges.
    pub edges: usize,
    /// Verdict at the end.
    pub verdict: Verdict,
    /// The verdict's rule in words.
    pub verdict_rule: String,
    /// Downhill distance travelled by the centroid, m.
    pub downhill_distance: f64,
    /// Mean downhill speed over the last second, m/s.
    pub final_speed: Option<f64>,
    /// Solver statistics.
    pub solver: SolverTotals,
    /// Newton iterations per step, mean (the maximum is `solver.max_iterations_in_step`, the
    /// line-search halvings `solver.line_search_halvings`).
    pub mean_iterations_per_step: f64,
    /// Newton iterations per step, 95th percentile (nearest rank).
    pub p95_iterations_per_step: usize,
    /// Wall time of the run, s (from the runner's creation to the summary).
    pub wall_seconds: f64,
    /// Of which the impulse-law post-pass (cross-check batches), s.
    pub post_pass_seconds: f64,
    /// The impulse-law cross-check (SPEC.md §4), when run.
    pub cross_check: Option<CrossCheckReport>,
}

/// Steps `runner` to the end. Records are handed to `check` every [`RECORD_CHUNK_STEPS`] steps
/// and at the end (or dropped without one); `after_step` sees the runner after every step, and
/// its error stops the run.
pub fn drive<E: From<RunError>>(
    runner: &mut Runner,
    mut check: Option<&mut CrossCheck>,
    mut after_step: impl FnMut(&Runner) -> Result<(), E>,
) -> Result<(), E> {
    while !runner.done() {
        runner.step()?;
        if runner.sim.step.is_multiple_of(RECORD_CHUNK_STEPS) || runner.done() {
            match check.as_deref_mut() {
                Some(c) => runner.flush_records(c)?,
                None => runner.records.clear(),
            }
        }
        after_step(runner)?;
    }
    Ok(())
}

/// Runs `scene` to the end with [`drive`]; `progress(done, total)` is called after every step.
pub fn run(
    scene: Scene,
    opts: &RunOptions,
    check: Option<&mut CrossCheck>,
    mut progress: impl FnMut(usize, usize),
) -> Result<Runner, RunError> {
    let mut runner = Runner::new(scene, opts)?;
    let total = runner.total_steps();
    drive(&mut runner, check, |r: &Runner| -> Result<(), RunError> {
        progress(r.sim.step, total);
        Ok(())
    })?;
    Ok(runner)
}
