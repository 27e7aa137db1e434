//! One implicit Euler step by projected Newton (SPEC.md §2), and the simulation state.

use crate::energy::barrier::{self, Barrier, BarrierEnergy};
use crate::energy::friction::{self, Friction, FrictionEnergy};
use crate::energy::gravity::GravityEnergy;
use crate::energy::inertia::InertiaEnergy;
use crate::energy::inversion::{InversionEnergy, cell_triangles};
use crate::energy::spring::SpringEnergy;
use crate::energy::{Energy, Projection, StepState, Vec2};
use crate::scene::{Mesh, Scene, case::Lagging};

use super::assembly::{Factorisation, HessianSystem, LinearSolveError};
use super::lagging;
use super::line_search::{self, LineSearchResult};
use super::potential::IncrementalPotential;

/// A step that could not be completed. Every variant carries the step and enough to diagnose it.
#[derive(Debug, thiserror::Error)]
pub enum SolveError {
    /// Newton did not converge within the iteration bound.
    #[error(
        "step {step} (t = {time:.4} s): Newton did not converge in {iterations} iterations (‖p‖∞/h = {residual:.3e} m/s, tol {tol:.1e})"
    )]
    NotConverged {
        /// Step index.
        step: usize,
        /// Time at the start of the step, s.
        time: f64,
        /// Iterations done.
        iterations: usize,
        /// Last residual ‖p‖∞/h, m/s.
        residual: f64,
        /// Tolerance, m/s.
        tol: f64,
    },
    /// The line search halved α past its bound without decreasing E.
    #[error(
        "step {step} (t = {time:.4} s), iteration {iteration}: line search failed after {halvings} halvings (α = {alpha:.3e}, ‖p‖∞/h = {residual:.3e} m/s, E = {energy:.6e} J)"
    )]
    LineSearch {
        /// Step index.
        step: usize,
        /// Time at the start of the step, s.
        time: f64,
        /// Newton iteration.
        iteration: usize,
        /// Halvings done.
        halvings: usize,
        /// Last α.
        alpha: f64,
        /// Residual at that iteration, m/s.
        residual: f64,
        /// E at the start point, J.
        energy: f64,
    },
    /// The linear solve failed.
    #[error(
        "step {step} (t = {time:.4} s), iteration {iteration}: {source} (‖∇E‖∞ = {gradient:.3e} kg·m, last ‖p‖∞/h = {})",
        residual.map_or("none yet".to_string(), |r| format!("{r:.3e} m/s"))
    )]
    Linear {
        /// Step index.
        step: usize,
        /// Time at the start of the step, s.
        time: f64,
        /// Newton iteration.
        iteration: usize,
        /// ‖∇E‖∞ at the iterate whose Hessian failed, kg·m.
        gradient: f64,
        /// The residual ‖p‖∞/h of the previous iteration, m/s (none at the first).
        residual: Option<f64>,
        /// Cause.
        source: LinearSolveError,
    },
    /// An invariant broke after a step.
    #[error("step {step} (t = {time:.4} s): invariant broken: {what}")]
    Invariant {
        /// Step index.
        step: usize,
        /// Time at the end of the step, s.
        time: f64,
        /// Which invariant, with the node and value.
        what: String,
    },
}

/// What one step did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepStats {
    /// Step index (0-based).
    pub step: usize,
    /// Time at the end of the step, s.
    pub time: f64,
    /// Newton iterations (line searches) performed.
    pub iterations: usize,
    /// Final residual ‖p‖∞/h, m/s.
    pub residual: f64,
    /// Total line-search halvings in this step.
    pub halvings: usize,
    /// Largest E(after) − E(before) over the step's accepted line searches, J (≤ 0 by the
    /// acceptance rule; recorded as an independent check).
    pub max_energy_increase: f64,
    /// Minimum signed distance of any node to the slope after the step, m.
    pub min_distance: f64,
    /// Wall time spent in numeric factorisation + solve, s.
    pub factor_solve_seconds: f64,
    /// Iterations whose Hessian was not positive definite and were solved with H + τM instead
    /// (the mass shift, [`MASS_SHIFTS`]).
    pub mass_shifts: usize,
    /// Largest τ of this step's mass shifts (0 when none), in units of the mass matrix.
    pub max_shift: f64,
    /// Iterations whose Hessian stayed indefinite up to the largest τ of [`MASS_SHIFTS`] and
    /// were redone with the clamped spring projection.
    pub projection_fallbacks: usize,
    /// Re-solves after re-lagging friction's normal force (implicit lagging; 0 semi-implicit).
    pub lagging_passes: usize,
    /// λ's relative change at the last re-lagging check (implicit lagging; 0 semi-implicit).
    pub lagging_change: f64,
    /// Implicit lagging stopped at its bound with λ still changing by more than its tolerance.
    pub lagging_unconverged: bool,
}

/// The shifts τ tried, in order, when the assembled Hessian H of E is not positive definite
/// (with `newton.projection = "none"` the springs' exact blocks make it indefinite where a
/// refined square is compressed hard or folds, docs/refinement.md): the first τ for which
/// H + τM factors gives the search direction. M is the lumped mass matrix, the Hessian of the
/// inertia term, so τ is dimensionless: H + τM is the Hessian of E with the inertia raised by
/// the factor 1 + τ, the smallest such change to the model that restores convexity along the
/// directions where it was lost. Unlike the clamped projection it leaves the curvature of every
/// other direction exact, so Newton moves off a saddle (a buckling column, a cell snapping
/// through) in a few iterations instead of creeping away from it geometrically. E, ∇E and the
/// line search are unchanged, so the minimiser is the same. Past the last τ (the inertia
/// raised elevenfold) the iteration falls back to the clamped projection of SPEC.md §2. The list
/// ends at 10 by measurement (docs/refinement.md): at n_seg = 64 with the inversion barrier and
/// the stick-zone filter, ending at 1 leaves a 53-iteration landing step at μ = 0.11, ending at
/// 100 a 52-iteration one at μ = 0.2; ending at 10 gives 44 and 39.
pub const MASS_SHIFTS: [f64; 5] = [1e-3, 1e-2, 1e-1, 1.0, 10.0];

/// Preallocated buffers of the Newton loop (no allocation per iteration; the terms' element
/// buffers live in the [`IncrementalPotential`]).
struct Workspace {
    x_tilde: Vec<Vec2>,
    x_n: Vec<Vec2>,
    grad: Vec<Vec2>,
    p: Vec<Vec2>,
    trial: Vec<Vec2>,
    rhs: Vec<f64>,
    relag_kinetic: Vec<f64>,
    relag_static: Vec<f64>,
    /// The lumped mass of every degree of freedom (2 per node), kg: M's diagonal.
    mass_diagonal: Vec<f64>,
}

impl Workspace {
    /// The step's state for E: this step's x̃ and xⁿ, and the lagged μλ given.
    fn step_state<'a>(&'a self, kinetic: &'a [f64], stat: &'a [f64]) -> StepState<'a> {
        StepState {
            x_tilde: &self.x_tilde,
            x_n: &self.x_n,
            mu_lambda_kinetic: kinetic,
            mu_lambda_static: stat,
        }
    }
}

/// What the Newton step reads besides the energies, copied from the scene once (SPEC.md §2,
/// §6): the step, the stopping rule, the line search's bounds and friction's lagging.
#[derive(Clone, Copy, Debug)]
struct NewtonSettings {
    /// Time step h, s.
    h: f64,
    /// Newton tolerance on ‖p‖∞/h, m/s.
    tol: f64,
    /// Newton iteration bound per step.
    max_iterations: usize,
    /// Line-search halving bound.
    max_halvings: usize,
    /// The tunnelling filter's fraction.
    filter_fraction: f64,
    /// Whether the line search stops at friction's stick zone, and the zone's half-width ε_v h, m.
    stick_filter: bool,
    stick_width: f64,
    /// Kinetic and static friction coefficients μ_k, μ_s.
    mu: f64,
    mu_static: f64,
    /// How friction's normal force is lagged, its tolerance and pass bound.
    lagging: Lagging,
    lagging_tol: f64,
    max_lagging: usize,
}

impl NewtonSettings {
    fn of(scene: &Scene) -> Self {
        NewtonSettings {
            h: scene.h,
            tol: scene.tol,
            max_iterations: scene.max_iterations,
            max_halvings: scene.max_halvings,
            filter_fraction: scene.filter_fraction,
            stick_filter: scene.stick_filter,
            stick_width: scene.eps_v * scene.h,
            mu: scene.mu,
            mu_static: scene.mu_static,
            lagging: scene.lagging,
            lagging_tol: scene.lagging_tol,
            max_lagging: scene.max_lagging,
        }
    }
}

/// The state of a simulation: mesh, scene, positions, velocities and the solver.
pub struct Simulation {
    /// The validated scene this simulation was built from. The solver copied what it needs at
    /// construction (the terms of E, [`NewtonSettings`]); changing this afterwards changes
    /// nothing in the stepping.
    pub scene: Scene,
    /// The mesh.
    pub mesh: Mesh,
    /// Node positions, m.
    pub x: Vec<Vec2>,
    /// Node velocities, m/s.
    pub v: Vec<Vec2>,
    /// μλᵢ of the last step (lagged, from its xⁿ; from x^{n+1} with implicit lagging), N. With
    /// static and kinetic coefficients this is μ_kλᵢ.
    pub mu_lambda: Vec<f64>,
    /// μ_sλᵢ of the last step, N (equal to `mu_lambda` when the case states one μ).
    pub mu_lambda_static: Vec<f64>,
    /// Completed steps.
    pub step: usize,
    barrier: Barrier,
    friction: Friction,
    settings: NewtonSettings,
    potential: IncrementalPotential,
    system: HessianSystem,
    ws: Workspace,
    /// Measure factor+solve time per step (adds two clock reads per iteration).
    pub time_linear_solve: bool,
    /// Record every Newton iteration of the last step in [`Simulation::iteration_trace`]
    /// (diagnostics; off by default).
    pub trace_iterations: bool,
    /// The iterations of the last step, when [`Simulation::trace_iterations`] is set.
    pub iteration_trace: Vec<IterationTrace>,
}

/// One Newton iteration, for diagnostics.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IterationTrace {
    /// ‖p‖∞/h at the start of the iteration, m/s.
    pub residual: f64,
    /// The tunnelling filter's α₀.
    pub filter_alpha: f64,
    /// The accepted α.
    pub alpha: f64,
    /// E after the accepted line search, J.
    pub energy: f64,
    /// Smallest node-to-slope distance after it, m.
    pub min_distance: f64,
    /// The node with the largest |p| component (the one that set the residual).
    pub worst_node: usize,
    /// Re-lagging passes done before this iteration (0: the step's first solve, with λ lagged
    /// at xⁿ; implicit lagging only).
    pub lagging_pass: usize,
}

impl Simulation {
    /// A simulation at t = 0 for `scene`: the square's mesh ([`Mesh::square`]) and the terms of
    /// E built from it and the scene's constants.
    pub fn new(scene: Scene) -> Result<Simulation, LinearSolveError> {
        let mesh = Mesh::square(&scene);
        let n = mesh.len();
        let barrier = Barrier {
            normal: scene.normal,
            point: scene.point,
            dhat: scene.dhat,
            kappa: scene.kappa,
            kind: scene.barrier_kind,
        };
        let friction = Friction {
            normal: scene.normal,
            eps_v: scene.eps_v,
            h: scene.h,
        };
        let potential =
            IncrementalPotential::new(slope_square_terms(&mesh, &scene, &barrier, &friction));
        let system = HessianSystem::with_forms(
            n,
            &potential.hessian_elements(),
            &potential.hessian_forms(),
            Factorisation::for_dim(2 * n),
        )?;
        Ok(Simulation {
            x: mesh.x0.clone(),
            v: vec![scene.velocity; n],
            mu_lambda: vec![0.0; n],
            mu_lambda_static: vec![0.0; n],
            step: 0,
            barrier,
            friction,
            settings: NewtonSettings::of(&scene),
            potential,
            system,
            ws: Workspace {
                x_tilde: vec![Vec2::zeros(); n],
                x_n: vec![Vec2::zeros(); n],
                grad: vec![Vec2::zeros(); n],
                p: vec![Vec2::zeros(); n],
                trial: vec![Vec2::zeros(); n],
                rhs: vec![0.0; 2 * n],
                relag_kinetic: vec![0.0; n],
                relag_static: vec![0.0; n],
                mass_diagonal: mesh.mass.iter().flat_map(|&m| [m, m]).collect(),
            },
            scene,
            mesh,
            time_linear_solve: false,
            trace_iterations: false,
            iteration_trace: Vec::new(),
        })
    }

    /// Simulated time, s.
    pub fn time(&self) -> f64 {
        self.step as f64 * self.settings.h
    }

    /// The slope barrier.
    pub fn barrier(&self) -> &Barrier {
        &self.barrier
    }

    /// Friction constants of a step.
    pub fn friction(&self) -> Friction {
        self.friction
    }

    /// The friction force −∂Ψ_friction/∂x on node `i` at the current x, with the μλ of the last
    /// step (static/kinetic blend), N.
    pub fn friction_force(&self, i: usize) -> Vec2 {
        let v = (self.x[i] - self.ws.x_n[i]) / self.settings.h;
        -self
            .friction
            .node_gradient_blended(&v, self.mu_lambda[i], self.mu_lambda_static[i])
    }

    /// xⁿ of the last step (positions at its start), m.
    pub fn previous_positions(&self) -> &[Vec2] {
        &self.ws.x_n
    }

    /// Symbolic factorisations done so far (stays 1).
    pub fn symbolic_factorisations(&self) -> usize {
        self.system.symbolic_factorisations
    }

    /// Numeric factorisations done so far (one per search direction: iterations + 1 a step).
    pub fn numeric_factorisations(&self) -> usize {
        self.system.numeric_factorisations
    }

    /// Advance one step of h with the scene's Newton tolerance.
    pub fn step(&mut self) -> Result<StepStats, SolveError> {
        let tol = self.settings.tol;
        self.step_with_tol(tol)
    }

    /// Advance one step of h, stopping Newton when ‖p‖∞/h < `tol` (m/s).
    pub fn step_with_tol(&mut self, tol: f64) -> Result<StepStats, SolveError> {
        let h = self.settings.h;
        let step = self.step;
        let t0 = self.time();
        self.begin_step();
        let mut stats = StepStats {
            step,
            max_energy_increase: f64::NEG_INFINITY,
            ..Default::default()
        };
        let mut energy = self.energy_at(&self.x);
        let mut iteration = 0;
        self.iteration_trace.clear();
        loop {
            self.search_direction(step, iteration, &mut stats)?;
            let residual = self.ws.p.iter().map(|p| p.amax()).fold(0.0, f64::max) / h;
            stats.residual = residual;
            if residual < tol {
                if !self.relag_friction(&mut stats) {
                    break;
                }
                energy = self.energy_at(&self.x);
                continue;
            }
            if iteration >= self.settings.max_iterations {
                return Err(SolveError::NotConverged {
                    step,
                    time: t0,
                    iterations: iteration,
                    residual,
                    tol,
                });
            }
            let ls = self
                .line_search(energy)
                .map_err(|f| SolveError::LineSearch {
                    step,
                    time: t0,
                    iteration,
                    halvings: f.halvings,
                    alpha: f.alpha,
                    residual,
                    energy: f.energy_before,
                })?;
            std::mem::swap(&mut self.x, &mut self.ws.trial);
            stats.halvings += ls.halvings;
            stats.max_energy_increase = stats
                .max_energy_increase
                .max(ls.energy_after - ls.energy_before);
            energy = ls.energy_after;
            iteration += 1;
            if self.trace_iterations {
                let min_distance = self
                    .x
                    .iter()
                    .map(|x| self.barrier.distance(x))
                    .fold(f64::INFINITY, f64::min);
                let worst_node = (0..self.ws.p.len())
                    .max_by(|&a, &b| self.ws.p[a].amax().total_cmp(&self.ws.p[b].amax()))
                    .unwrap_or(0);
                self.iteration_trace.push(IterationTrace {
                    worst_node,
                    residual,
                    filter_alpha: ls.alpha * 2f64.powi(ls.halvings as i32),
                    alpha: ls.alpha,
                    energy,
                    min_distance,
                    lagging_pass: stats.lagging_passes,
                });
            }
        }
        stats.iterations = iteration;
        if iteration == 0 {
            stats.max_energy_increase = 0.0;
        }
        for i in 0..self.x.len() {
            self.v[i] = (self.x[i] - self.ws.x_n[i]) / h;
        }
        self.step += 1;
        stats.time = self.time();
        stats.min_distance = self.check_invariants(step)?;
        Ok(stats)
    }

    /// Sets what a step's E depends on from the current state: x̃ = xⁿ + h vⁿ, xⁿ, and the
    /// lagged μλ at xⁿ (SPEC.md §2). [`Simulation::step_with_tol`] starts with it. Public only
    /// for tests/derivatives.rs, which evaluates a step's E, gradient and Hessian without
    /// stepping; hidden from the documented API.
    #[doc(hidden)]
    pub fn begin_step(&mut self) {
        let h = self.settings.h;
        for i in 0..self.x.len() {
            self.ws.x_tilde[i] = self.x[i] + self.v[i] * h;
            self.ws.x_n[i] = self.x[i];
        }
        lagging::lag_normal_forces(
            &self.x,
            &self.mesh.contact_area,
            &self.barrier,
            self.settings.mu,
            self.settings.mu_static,
            &mut self.mu_lambda,
            &mut self.mu_lambda_static,
        );
    }

    /// ∇E at `x` (per node, kg·m) and the lower triangle of the projected Hessian (kg) as the
    /// solver assembles them for its linear solve, for the step set by
    /// [`Simulation::begin_step`]. Allocates: public only for tests/derivatives.rs (the
    /// assembled system against finite differences of [`Simulation::energy_at`]), hidden from
    /// the documented API, not for the Newton loop.
    #[doc(hidden)]
    pub fn assembled_gradient_and_hessian(
        &mut self,
        x: &[Vec2],
    ) -> (Vec<Vec2>, nalgebra_sparse::CscMatrix<f64>) {
        let saved = std::mem::replace(&mut self.x, x.to_vec());
        self.assemble();
        self.x = saved;
        (self.ws.grad.clone(), self.system.matrix().clone())
    }

    /// Implicit lagging (SPEC.md §6, [`lagging`]): at a converged x, evaluates λ there; returns
    /// true (with the new λ in place) when the step must be solved again.
    fn relag_friction(&mut self, stats: &mut StepStats) -> bool {
        if self.settings.lagging != Lagging::Implicit {
            return false;
        }
        lagging::lag_normal_forces(
            &self.x,
            &self.mesh.contact_area,
            &self.barrier,
            self.settings.mu,
            self.settings.mu_static,
            &mut self.ws.relag_kinetic,
            &mut self.ws.relag_static,
        );
        stats.lagging_change =
            lagging::relative_change(&self.mu_lambda_static, &self.ws.relag_static);
        if stats.lagging_change <= self.settings.lagging_tol {
            return false;
        }
        if stats.lagging_passes >= self.settings.max_lagging {
            stats.lagging_unconverged = true;
            return false;
        }
        std::mem::swap(&mut self.mu_lambda, &mut self.ws.relag_kinetic);
        std::mem::swap(&mut self.mu_lambda_static, &mut self.ws.relag_static);
        stats.lagging_passes += 1;
        true
    }

    fn line_search(
        &mut self,
        energy_before: f64,
    ) -> Result<LineSearchResult, line_search::LineSearchFailure> {
        let mut trial = std::mem::take(&mut self.ws.trial);
        let p = std::mem::take(&mut self.ws.p);
        let fraction = self.settings.filter_fraction;
        // The slope's tunnelling filter, and the terms' own (the inversion barrier's, when on).
        let mut alpha0 = barrier::max_step(&self.x, &p, &self.barrier, fraction)
            .min(self.potential.max_step(&self.x, &p, fraction));
        if self.settings.stick_filter {
            // Friction's stick-zone filter (`newton.stick_filter`).
            alpha0 = alpha0.min(friction::stick_zone_max_step(
                &self.x,
                &self.ws.x_n,
                &p,
                &self.mu_lambda,
                &self.mu_lambda_static,
                &self.barrier.normal,
                self.settings.stick_width,
            ));
        }
        let r = line_search::backtrack(
            &self.x,
            &p,
            alpha0,
            self.settings.max_halvings,
            energy_before,
            &mut trial,
            |xt| self.energy_at(xt),
        );
        self.ws.trial = trial;
        self.ws.p = p;
        r
    }

    /// No node at or below the slope, no NaN/inf in x or v. Returns the minimum distance.
    fn check_invariants(&self, step: usize) -> Result<f64, SolveError> {
        let mut min_d = f64::INFINITY;
        for (i, (x, v)) in self.x.iter().zip(&self.v).enumerate() {
            let bad = |what: String| SolveError::Invariant {
                step,
                time: self.time(),
                what,
            };
            if !(x.iter().all(|c| c.is_finite()) && v.iter().all(|c| c.is_finite())) {
                return Err(bad(format!(
                    "node {i} has a non-finite state x = {x:?}, v = {v:?}"
                )));
            }
            let d = self.barrier.distance(x);
            if d <= 0.0 {
                return Err(bad(format!("node {i} at or below the slope (d = {d:e} m)")));
            }
            min_d = min_d.min(d);
        }
        Ok(min_d)
    }

    /// E(x) of SPEC.md §2 for the current step (x̃, xⁿ, μλ as set by the step), J·s² (kg·m²).
    pub fn energy_at(&self, x: &[Vec2]) -> f64 {
        let state = self.ws.step_state(&self.mu_lambda, &self.mu_lambda_static);
        self.potential.value(x, &state)
    }

    /// ∇E into `ws.grad` and the projected Hessian into the system's matrix, at the current x.
    fn assemble(&mut self) {
        // Field by field: `ws.grad` is written while x̃ and xⁿ are read.
        let state = StepState {
            x_tilde: &self.ws.x_tilde,
            x_n: &self.ws.x_n,
            mu_lambda_kinetic: &self.mu_lambda,
            mu_lambda_static: &self.mu_lambda_static,
        };
        self.ws.grad.fill(Vec2::zeros());
        self.potential.gradient(&self.x, &state, &mut self.ws.grad);
        self.potential.hessian(&self.x, &state);
        self.system.assemble(self.potential.blocks());
    }

    /// ∇E and the projected Hessian at the current x; solves H p = −∇E into `ws.p`.
    fn search_direction(
        &mut self,
        step: usize,
        iteration: usize,
        stats: &mut StepStats,
    ) -> Result<(), SolveError> {
        let h = self.settings.h;
        self.assemble();
        let ws = &mut self.ws;
        for (i, g) in ws.grad.iter().enumerate() {
            ws.rhs[2 * i] = -g.x;
            ws.rhs[2 * i + 1] = -g.y;
        }
        let clock = self.time_linear_solve.then(std::time::Instant::now);
        let time = self.step as f64 * h;
        let previous_residual = (iteration > 0).then_some(stats.residual);
        let mut factored = self.system.factorize();
        let mut applied = 0.0;
        for tau in MASS_SHIFTS {
            if factored.is_ok() {
                break;
            }
            // The skyline factors in place: the failed attempt left no matrix behind.
            self.system
                .restore(self.potential.blocks(), &ws.mass_diagonal);
            self.system
                .add_to_diagonal(&ws.mass_diagonal, tau - applied);
            applied = tau;
            factored = self.system.factorize();
            if factored.is_ok() {
                stats.mass_shifts += 1;
                stats.max_shift = stats.max_shift.max(tau);
            }
        }
        if factored.is_err() {
            let state = ws.step_state(&self.mu_lambda, &self.mu_lambda_static);
            // Still indefinite with the largest mass shift: this iteration falls back to the
            // clamped projection of SPEC.md §2.
            if self.potential.project_indefinite_terms(&self.x, &state) {
                self.system.assemble(self.potential.blocks());
                factored = self.system.factorize();
                stats.projection_fallbacks += 1;
            }
        }
        factored.map_err(|source| SolveError::Linear {
            step,
            time,
            iteration,
            gradient: ws.grad.iter().map(|g| g.amax()).fold(0.0, f64::max),
            residual: previous_residual,
            source,
        })?;
        self.system.solve_in_place(&mut ws.rhs);
        if let Some(c) = clock {
            stats.factor_solve_seconds += c.elapsed().as_secs_f64();
        }
        for (i, p) in ws.p.iter_mut().enumerate() {
            *p = Vec2::new(ws.rhs[2 * i], ws.rhs[2 * i + 1]);
        }
        Ok(())
    }
}

/// The terms of E for the square on the slope (SPEC.md §2), in the order they are summed:
/// inertia (weight 1), then springs, gravity, barrier and friction (weight h²), and the
/// inversion barrier (weight h²) when the case has an `[inversion]` table.
fn slope_square_terms(
    mesh: &Mesh,
    scene: &Scene,
    barrier: &Barrier,
    friction: &Friction,
) -> Vec<(Box<dyn Energy>, f64)> {
    let n = mesh.len();
    let h2 = scene.h * scene.h;
    let mut terms: Vec<(Box<dyn Energy>, f64)> = vec![
        (Box::new(InertiaEnergy::new(mesh.mass.clone())), 1.0),
        (
            Box::new(SpringEnergy::new(
                mesh.edges.clone(),
                mesh.rest_l2.clone(),
                scene.stiffness,
                scene.spring_projection,
            )),
            h2,
        ),
        (
            Box::new(GravityEnergy::new(mesh.mass.clone(), scene.gravity)),
            h2,
        ),
        (
            Box::new(BarrierEnergy::new(*barrier, mesh.contact_area.clone())),
            h2,
        ),
        (
            Box::new(FrictionEnergy::new(*friction, n, Projection::Clamp)),
            h2,
        ),
    ];
    if let Some(inversion) = scene.inversion {
        let triangles = cell_triangles(scene.n_seg);
        terms.push((
            Box::new(InversionEnergy::new(triangles, &mesh.x0, inversion)),
            h2,
        ));
    }
    terms
}
