//! One implicit Euler step by projected Newton (SPEC.md §2, §7), and the simulation state, in
//! D = 2 or 3.
//!
//! A step: x̃ = xⁿ + h vⁿ; the drivers' degrees of freedom set to x_D(t + h); the contact
//! stage's broad phase and friction lagged at xⁿ; then Newton on E: p solves H p = −∇E over
//! the free degrees of freedom, the step filter (the smallest `max_step` of the terms: the
//! contact CCD, the inversion filter, friction's stick zone) gives α₀, and α is halved until
//! E(x + αp) ≤ E(x), until ‖p‖∞/h < tol once `min_iterations` iterations are taken. With implicit lagging (SPEC.md §6), friction is then
//! lagged again at the converged x and the step solved again while λ moved by more than
//! `lagging_tol` relative to the largest normal force, up to `max_lagging` times. A fixed point
//! has λ^used = λ(x^{n+1}), as in the book's lecture 9.3 and IPC's friction iterations.

use crate::contact::{ContactPoint, ContactStage, ContactTerm};
use crate::energy::inertia::InertiaEnergy;
use crate::energy::{Energy, StepState, Vector};

use super::assembly::{DofMap, FactorChoice, HessianSystem, LinearSolveError, MAX_FACTOR_BYTES};
use super::driver::Driver;
use super::line_search::{self, LineSearchResult};
use super::potential::IncrementalPotential;
use super::system::{InitialGuess, Lagging, SolverSettings, System};

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
    /// The drivers moved nodes to where E is +∞ (into contact, or inverting an element).
    #[error(
        "step {step} (t = {time:.4} s): the drivers' prescribed positions at t = {end:.4} s put a pair into contact or an element inside out (E = +inf)"
    )]
    DrivenIntoContact {
        /// Step index.
        step: usize,
        /// Time at the start of the step, s.
        time: f64,
        /// The time the drivers' positions are for, s.
        end: f64,
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

/// Where the time outside the linear solve goes ([`Simulation::phase_seconds`]), s.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PhaseSeconds {
    /// The contact stage's broad phase.
    pub broad_phase: f64,
    /// The step filter.
    pub step_filter: f64,
    /// The assembly: the gradient, the terms' Hessians and the matrix (the factorisation not
    /// included).
    pub assembly: f64,
    /// The line search, its contact stage included (the broad phase and the step filter are
    /// also counted above).
    pub line_search: f64,
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
    /// acceptance rule, or above within E's rounding for a flat one; recorded as an independent
    /// check).
    pub max_energy_increase: f64,
    /// Line searches accepted flat: within E's rounding, on the gradient's fall
    /// ([`super::line_search`]'s module comment).
    pub flat_line_searches: usize,
    /// Smallest distance of any contact pair after the step, m (+∞ without contact).
    pub min_distance: f64,
    /// Wall time spent in numeric factorisation + solve, s.
    pub factor_solve_seconds: f64,
    /// Iterations whose Hessian was not positive definite and were solved with H + τM instead
    /// (the mass shift, [`MASS_SHIFTS`]).
    pub mass_shifts: usize,
    /// Largest τ of this step's mass shifts (0 when none), in units of the mass matrix.
    pub max_shift: f64,
    /// Iterations whose Hessian stayed indefinite up to the largest τ of [`MASS_SHIFTS`] and
    /// were redone with the clamped projection.
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
/// ends at 10 by measurement (docs/refinement.md). Within a step, an iteration starts one level
/// below the level the step's last iteration needed (unshifted, each τ, the projection), not at
/// the bottom: an iterate's Hessian is mostly indefinite where the last one was, and every
/// failed attempt is a whole numeric factorisation (at n_seg = 64, 38 % fewer factorisations
/// for the same iterations, docs/benchmarks.md).
pub const MASS_SHIFTS: [f64; 5] = [1e-3, 1e-2, 1e-1, 1.0, 10.0];

/// Preallocated buffers of the Newton loop (no allocation per iteration; the terms' element
/// buffers live in the [`IncrementalPotential`]).
struct Workspace<const D: usize> {
    x_tilde: Vec<Vector<D>>,
    x_n: Vec<Vector<D>>,
    grad: Vec<Vector<D>>,
    /// ∇E at a line search's trial point (its flat test, `line_search`'s module comment).
    grad_trial: Vec<Vector<D>>,
    p: Vec<Vector<D>>,
    trial: Vec<Vector<D>>,
    /// Over the free degrees of freedom.
    rhs: Vec<f64>,
}

/// One Newton iteration, for diagnostics.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IterationTrace {
    /// ‖p‖∞/h at the start of the iteration, m/s.
    pub residual: f64,
    /// The step filter's α₀.
    pub filter_alpha: f64,
    /// The accepted α.
    pub alpha: f64,
    /// E after the accepted line search, J.
    pub energy: f64,
    /// Smallest contact distance after it, m.
    pub min_distance: f64,
    /// The node with the largest |p| component (the one that set the residual).
    pub worst_node: usize,
    /// Re-lagging passes done before this iteration (0: the step's first solve, with λ lagged
    /// at xⁿ; implicit lagging only).
    pub lagging_pass: usize,
}

/// The Newton loop's trial points: E, and for a first trial within E's rounding the test that
/// does resolve there, the gradient's 2-norm over the free degrees of freedom falling
/// ([`line_search`]'s module comment).
struct NewtonTrials<'a, const D: usize> {
    potential: &'a mut IncrementalPotential<D>,
    state: StepState<'a, D>,
    dofs: &'a DofMap,
    /// At the line search's start point.
    gradient_norm: f64,
    grad: &'a mut Vec<Vector<D>>,
    /// Σ wₜ |Ψₜ| at the last point whose E was evaluated, J·s²
    /// ([`IncrementalPotential::value_and_scale`]).
    scale: f64,
}

impl<const D: usize> line_search::TrialPoints<D> for NewtonTrials<'_, D> {
    fn energy(&mut self, x: &[Vector<D>]) -> f64 {
        let (e, scale) = self.potential.value_and_scale(x, &self.state);
        self.scale = scale;
        e
    }

    fn flat(&mut self, x: &[Vector<D>]) -> bool {
        // The gradient needs the contact stage's active set at x: the line search found new
        // candidates for the step, which the last update's active set may index past.
        self.potential.update_contact(x);
        self.grad.fill(Vector::<D>::zeros());
        self.potential.gradient(x, &self.state, self.grad);
        free_gradient_norm(self.dofs, self.grad) < self.gradient_norm
    }
}

/// The 2-norm of `g` over the free degrees of freedom (the prescribed ones carry the drivers'
/// reactions, which no step of the free ones removes).
fn free_gradient_norm<const D: usize>(dofs: &DofMap, g: &[Vector<D>]) -> f64 {
    g.iter()
        .flat_map(|g| g.iter())
        .enumerate()
        .filter(|(k, _)| dofs.row(*k) != DofMap::PRESCRIBED)
        .map(|(_, c)| c * c)
        .sum::<f64>()
        .sqrt()
}

/// The state of a simulation: positions, velocities and the solver.
pub struct Simulation<const D: usize> {
    /// Node positions, m.
    pub x: Vec<Vector<D>>,
    /// Node velocities, m/s.
    pub v: Vec<Vector<D>>,
    /// Completed steps.
    pub step: usize,
    settings: SolverSettings,
    mass: Vec<f64>,
    /// The lumped mass of every free degree of freedom, kg: M's diagonal in the linear system.
    mass_diagonal: Vec<f64>,
    drivers: Vec<Box<dyn Driver<D>>>,
    potential: IncrementalPotential<D>,
    system: HessianSystem,
    ws: Workspace<D>,
    /// The level of the last iteration's factorisation in this step: 0 unshifted, k the k-th
    /// of [`MASS_SHIFTS`], `MASS_SHIFTS.len() + 1` the clamped projection.
    shift_level: usize,
    /// Measure factor+solve time per step (adds two clock reads per iteration), and the
    /// contact stage's broad phase and the step filter in [`Simulation::phase_seconds`].
    pub time_linear_solve: bool,
    /// Seconds spent so far, while [`Simulation::time_linear_solve`] is set, in the contact
    /// stage's broad phase (start of step and before every line search) and in the step filter
    /// (every term's `max_step`: the contact CCD, the stick-zone and inversion filters).
    pub phase_seconds: PhaseSeconds,
    /// Record every Newton iteration of the last step in [`Simulation::iteration_trace`]
    /// (diagnostics; off by default).
    pub trace_iterations: bool,
    /// The iterations of the last step, when [`Simulation::trace_iterations`] is set.
    pub iteration_trace: Vec<IterationTrace>,
}

impl<const D: usize> Simulation<D> {
    /// A simulation at t = 0 of `system`, with the factorisation chosen by its pattern.
    pub fn new(system: System<D>) -> Result<Simulation<D>, LinearSolveError> {
        Self::with_factorisation(system, FactorChoice::Auto)
    }

    /// As [`Simulation::new`], with the factorisation chosen by the caller (benchmarks).
    pub fn with_factorisation(
        system: System<D>,
        choice: FactorChoice,
    ) -> Result<Simulation<D>, LinearSolveError> {
        Self::with_factor_limit(system, choice, MAX_FACTOR_BYTES)
    }

    /// As [`Simulation::with_factorisation`], with the sparse factor's memory bounded by
    /// `max_factor_bytes` instead of [`MAX_FACTOR_BYTES`]: a larger one is refused with
    /// [`LinearSolveError::FactorTooLarge`] before it is allocated.
    pub fn with_factor_limit(
        system: System<D>,
        choice: FactorChoice,
        max_factor_bytes: u64,
    ) -> Result<Simulation<D>, LinearSolveError> {
        let System {
            x0,
            v0,
            mass,
            potentials,
            contact,
            drivers,
            settings,
        } = system;
        let n = x0.len();
        let h2 = settings.h * settings.h;
        let mut terms: Vec<(Box<dyn Energy<D>>, f64)> =
            vec![(Box::new(InertiaEnergy::new(mass.clone())), 1.0)];
        terms.extend(potentials.into_iter().map(|t| (t, h2)));
        let mut potential = IncrementalPotential::new(terms, contact, h2);
        let mut prescribed = vec![false; D * n];
        for d in &drivers {
            let axes = d.axes();
            for &node in d.nodes() {
                for (c, &on) in axes.iter().enumerate() {
                    prescribed[D * node + c] |= on;
                }
            }
        }
        let dofs = DofMap::from_prescribed(&prescribed);
        let mass_diagonal = (0..D * n)
            .filter(|&k| !prescribed[k])
            .map(|k| mass[k / D])
            .collect();
        let free = dofs.free();
        // The contact stage's collisions at x0, so that the pattern starts with them.
        if let Some(c) = potential.contact_mut() {
            c.begin_step(&x0, &x0);
        }
        let system = HessianSystem::with_factor_limit(
            D,
            dofs,
            &(0..potential.len())
                .map(|i| potential.group(i))
                .collect::<Vec<_>>(),
            choice,
            max_factor_bytes,
        )?;
        Ok(Simulation {
            ws: Workspace {
                x_tilde: vec![Vector::<D>::zeros(); n],
                x_n: x0.clone(),
                grad: vec![Vector::<D>::zeros(); n],
                grad_trial: vec![Vector::<D>::zeros(); n],
                p: vec![Vector::<D>::zeros(); n],
                trial: vec![Vector::<D>::zeros(); n],
                rhs: vec![0.0; free],
            },
            x: x0,
            v: v0,
            step: 0,
            settings,
            mass,
            mass_diagonal,
            drivers,
            potential,
            system,
            shift_level: 0,
            time_linear_solve: false,
            phase_seconds: PhaseSeconds::default(),
            trace_iterations: false,
            iteration_trace: Vec::new(),
        })
    }

    /// Simulated time, s.
    pub fn time(&self) -> f64 {
        self.step as f64 * self.settings.h
    }

    /// The solver's settings.
    pub fn settings(&self) -> &SolverSettings {
        &self.settings
    }

    /// The lumped mass of every node, kg.
    pub fn mass(&self) -> &[f64] {
        &self.mass
    }

    /// The contact stage, if the system has one.
    pub fn contact(&self) -> Option<&ContactStage<D>> {
        self.potential.contact()
    }

    /// The contact stage, to change what may change between steps (the friction table).
    pub fn contact_mut(&mut self) -> Option<&mut ContactStage<D>> {
        self.potential.contact_mut()
    }

    /// The drivers.
    pub fn drivers(&self) -> &[Box<dyn Driver<D>>] {
        &self.drivers
    }

    /// The system's potential `i` (its place in `System::potentials`), to change it between
    /// steps (a driver's anchor velocity or force); None past the last.
    pub fn potential_mut(&mut self, i: usize) -> Option<&mut dyn Energy<D>> {
        // Term 0 of E is the inertia the solver added before the system's potentials.
        self.potential.term_mut(i + 1)
    }

    /// Driver `i`, to change it between steps (a prescribed velocity); None past the last.
    pub fn driver_mut(&mut self, i: usize) -> Option<&mut dyn Driver<D>> {
        self.drivers
            .get_mut(i)
            .map(|d| &mut **d as &mut dyn Driver<D>)
    }

    /// ∇E at the x the last step ended at (its final assembly, where Newton found ‖p‖∞/h under
    /// tol), per node, kg·m. Zero on no degree of freedom in general: on a driven one it is h²
    /// times the force its driver exerts there (M(x − x̃)/h² + ∇Ψ, the constraint force).
    pub fn last_gradient(&self) -> &[Vector<D>] {
        &self.ws.grad
    }

    /// xⁿ of the last step (positions at its start), m.
    pub fn previous_positions(&self) -> &[Vector<D>] {
        &self.ws.x_n
    }

    /// The step state of the last step taken (or of the first, before any), for evaluating
    /// its terms at the current x.
    pub fn last_step_state(&self) -> StepState<'_, D> {
        StepState {
            x_tilde: &self.ws.x_tilde,
            x_n: &self.ws.x_n,
            h: self.settings.h,
            time: self.time(),
        }
    }

    /// The contact and friction forces on every node at the current x with the last step's
    /// lagged friction, N: the normal contact force −∂Ψ_barrier/∂x (with a normal damping,
    /// −∂Ψ_damping/∂x added: it acts along the normals) into `barrier` and −∂Ψ_friction/∂x into
    /// `friction` (both zeroed first; zero without contact). Friction and damping are zero
    /// before the first step. `buf` holds the element forces meanwhile (kept by the caller
    /// between calls).
    pub fn contact_forces(
        &self,
        barrier: &mut [Vector<D>],
        friction: &mut [Vector<D>],
        buf: &mut Vec<Vector<D>>,
    ) {
        barrier.fill(Vector::<D>::zeros());
        friction.fill(Vector::<D>::zeros());
        let Some(contact) = self.contact() else {
            return;
        };
        let state = self.last_step_state();
        for k in 0..contact.potential_count() {
            let (kind, term) = contact.potential(k);
            if kind != ContactTerm::Barrier && self.step == 0 {
                continue;
            }
            let out = if kind == ContactTerm::Friction {
                &mut *friction
            } else {
                &mut *barrier
            };
            let elements = term.elements();
            buf.clear();
            buf.resize(elements.gradient_len(), Vector::<D>::zeros());
            term.gradient(&self.x, &state, -1.0, buf);
            crate::energy::term::scatter_gradient(elements, buf, out);
        }
    }

    /// Every lagged friction contact of the last step at the current x into `out`.
    pub fn contacts(&self, out: &mut Vec<ContactPoint<D>>) {
        out.clear();
        if let Some(c) = self.contact() {
            c.contacts(&self.x, &self.last_step_state(), out);
        }
    }

    /// Symbolic factorisations done so far (one at construction, one per pattern rebuild).
    pub fn symbolic_factorisations(&self) -> usize {
        self.system.symbolic_factorisations
    }

    /// The factorisation the linear system uses now (chosen at its last pattern build).
    pub fn factorisation(&self) -> super::assembly::Factorisation {
        self.system.factorisation()
    }

    /// Numeric factorisations done so far (one per search direction: iterations + 1 a step).
    pub fn numeric_factorisations(&self) -> usize {
        self.system.numeric_factorisations
    }

    /// Assemblies at which the active contact set had changed (with or without a new
    /// pattern).
    pub fn active_set_changes(&self) -> usize {
        self.system.active_set_changes
    }

    /// Advance one step of h with the system's Newton tolerance.
    pub fn step(&mut self) -> Result<StepStats, SolveError> {
        let tol = self.settings.tol;
        self.step_with_tol(tol)
    }

    /// The step state of the step being taken (end time t + h).
    fn state<'a>(ws: &'a Workspace<D>, settings: &SolverSettings, step: usize) -> StepState<'a, D> {
        StepState {
            x_tilde: &ws.x_tilde,
            x_n: &ws.x_n,
            h: settings.h,
            time: (step + 1) as f64 * settings.h,
        }
    }

    /// Advance one step of h, stopping Newton when ‖p‖∞/h < `tol` (m/s).
    pub fn step_with_tol(&mut self, tol: f64) -> Result<StepStats, SolveError> {
        let h = self.settings.h;
        let step = self.step;
        let t0 = self.time();
        self.begin_step();
        self.shift_level = 0;
        if self.settings.initial_guess == InitialGuess::Inertial {
            self.start_from_prediction();
        }
        let mut stats = StepStats {
            step,
            max_energy_increase: f64::NEG_INFINITY,
            ..Default::default()
        };
        let (mut energy, mut scale) = self.value_at_x();
        if !energy.is_finite() {
            return Err(SolveError::DrivenIntoContact {
                step,
                time: t0,
                end: t0 + h,
            });
        }
        let mut iteration = 0;
        self.iteration_trace.clear();
        loop {
            self.search_direction(step, iteration, &mut stats)?;
            let residual = self.ws.p.iter().map(|p| p.amax()).fold(0.0, f64::max) / h;
            stats.residual = residual;
            let may_stop = iteration >= self.settings.min_iterations || residual == 0.0;
            if residual < tol && may_stop {
                if !self.relag_friction(&mut stats) {
                    break;
                }
                (energy, scale) = self.value_at_x();
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
            let clock = self.time_linear_solve.then(std::time::Instant::now);
            let searched = self.line_search(energy, scale);
            if let Some(c) = clock {
                self.phase_seconds.line_search += c.elapsed().as_secs_f64();
            }
            let (ls, scale_after) = searched.map_err(|f| SolveError::LineSearch {
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
            stats.flat_line_searches += usize::from(ls.flat);
            stats.max_energy_increase = stats
                .max_energy_increase
                .max(ls.energy_after - ls.energy_before);
            energy = ls.energy_after;
            scale = scale_after;
            iteration += 1;
            if self.trace_iterations {
                let min_distance = self.min_distance();
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
        // Exact stick's return mapping at the accepted x (SPEC.md §9; nothing when smoothed).
        let state = Self::state(&self.ws, &self.settings, self.step);
        if let Some(c) = self.potential.contact_mut() {
            c.end_step(&self.x, &state);
        }
        for i in 0..self.x.len() {
            self.v[i] = (self.x[i] - self.ws.x_n[i]) / h;
        }
        self.step += 1;
        stats.time = self.time();
        stats.min_distance = self.check_invariants(step)?;
        Ok(stats)
    }

    /// Sets what a step's E depends on from the current state: x̃ = xⁿ + h vⁿ, xⁿ, the drivers'
    /// positions at the step's end, the contact stage's candidates and friction lagged at xⁿ
    /// (SPEC.md §2, §7). [`Simulation::step_with_tol`] starts with it. Public only for
    /// crates/stickslip-core/tests/derivatives/terms.rs, which evaluates a step's E, gradient and Hessian without
    /// stepping; hidden from the documented API.
    #[doc(hidden)]
    pub fn begin_step(&mut self) {
        let h = self.settings.h;
        let end = (self.step + 1) as f64 * h;
        for i in 0..self.x.len() {
            self.ws.x_tilde[i] = self.x[i] + self.v[i] * h;
            self.ws.x_n[i] = self.x[i];
        }
        for d in &self.drivers {
            let axes = d.axes();
            for (k, &node) in d.nodes().iter().enumerate() {
                let target = d.position(k, end);
                for (c, &on) in axes.iter().enumerate() {
                    if on {
                        self.x[node][c] = target[c];
                    }
                }
            }
        }
        let clock = self.time_linear_solve.then(std::time::Instant::now);
        if let Some(c) = self.potential.contact_mut() {
            c.begin_step(&self.ws.x_n, &self.x);
        }
        if let Some(c) = clock {
            self.phase_seconds.broad_phase += c.elapsed().as_secs_f64();
        }
    }

    /// Moves x from xⁿ towards x̃ on the free degrees of freedom, as far as the step filter lets
    /// it along that straight path (`InitialGuess::Inertial`).
    fn start_from_prediction(&mut self) {
        let dofs = self.system.dofs();
        for (k, p) in self.ws.p.iter_mut().flat_map(|p| p.iter_mut()).enumerate() {
            *p = if dofs.row(k) == DofMap::PRESCRIBED {
                0.0
            } else {
                self.ws.x_tilde[k / D][k % D] - self.x[k / D][k % D]
            };
        }
        for ((t, x), p) in self.ws.trial.iter_mut().zip(&self.x).zip(&self.ws.p) {
            *t = x + p;
        }
        if let Some(c) = self.potential.contact_mut() {
            c.find_candidates(&self.x, &self.ws.trial);
        }
        let state = Self::state(&self.ws, &self.settings, self.step);
        let alpha = self
            .potential
            .max_step(&self.x, &self.ws.p, &state, self.settings.filter_fraction)
            .min(1.0);
        for (x, p) in self.x.iter_mut().zip(&self.ws.p) {
            *x += p * alpha;
        }
    }

    /// E(x) of SPEC.md §2 for the current step (x̃, xⁿ and lagged friction as set by the step),
    /// J·s² (kg·m²), with the contact stage's candidates found at `x` first. Public only for
    /// the tests (finite differences of the E the line search uses), hidden from the
    /// documented API; the Newton loop evaluates E through its own candidates.
    #[doc(hidden)]
    pub fn energy_at(&mut self, x: &[Vector<D>]) -> f64 {
        if let Some(c) = self.potential.contact_mut() {
            c.find_candidates(x, x);
        }
        let state = Self::state(&self.ws, &self.settings, self.step);
        self.potential.value(x, &state)
    }

    /// ∇E at `x` (per node, kg·m) and the lower triangle of the projected Hessian over the free
    /// degrees of freedom (kg) as the solver assembles them for its linear solve, for the step
    /// set by [`Simulation::begin_step`]. Allocates: public only for crates/stickslip-core/tests/derivatives/terms.rs,
    /// hidden from the documented API, not for the Newton loop.
    #[doc(hidden)]
    pub fn assembled_gradient_and_hessian(
        &mut self,
        x: &[Vector<D>],
    ) -> Result<(Vec<Vector<D>>, nalgebra_sparse::CscMatrix<f64>), LinearSolveError> {
        if let Some(c) = self.potential.contact_mut() {
            c.find_candidates(x, x);
        }
        let saved = std::mem::replace(&mut self.x, x.to_vec());
        let assembled = self.assemble();
        self.x = saved;
        assembled?;
        Ok((self.ws.grad.clone(), self.system.matrix().clone()))
    }

    /// E at the current x, through the stage's current candidates, and its terms' magnitudes
    /// ([`IncrementalPotential::value_and_scale`]).
    fn value_at_x(&self) -> (f64, f64) {
        let state = Self::state(&self.ws, &self.settings, self.step);
        self.potential.value_and_scale(&self.x, &state)
    }

    /// The smallest contact distance at the current x, m (+∞ without contact).
    fn min_distance(&self) -> f64 {
        self.contact()
            .map_or(f64::INFINITY, |c| c.min_distance(&self.x))
    }

    /// Implicit lagging (module comment): at a converged x, friction lagged there; returns true
    /// (with the new collisions in place) when the step must be solved again.
    fn relag_friction(&mut self, stats: &mut StepStats) -> bool {
        if self.settings.lagging != Lagging::Implicit {
            return false;
        }
        let Some(contact) = self.potential.contact_mut() else {
            return false;
        };
        stats.lagging_change = contact.relag(&self.x);
        if stats.lagging_change <= self.settings.lagging_tol {
            return false;
        }
        if stats.lagging_passes >= self.settings.max_lagging {
            stats.lagging_unconverged = true;
            return false;
        }
        contact.accept_relag();
        stats.lagging_passes += 1;
        true
    }

    /// The line search from x along `ws.p` ([`line_search::backtrack`]) with E(x) =
    /// `energy_before` and its terms' magnitudes `scale`: its result and the terms' magnitudes
    /// at the accepted point.
    fn line_search(
        &mut self,
        energy_before: f64,
        scale: f64,
    ) -> Result<(LineSearchResult, f64), line_search::LineSearchFailure> {
        let mut trial = std::mem::take(&mut self.ws.trial);
        let p = std::mem::take(&mut self.ws.p);
        for ((t, x), p) in trial.iter_mut().zip(&self.x).zip(&p) {
            *t = x + p;
        }
        let clock = self.time_linear_solve.then(std::time::Instant::now);
        if let Some(c) = self.potential.contact_mut() {
            c.find_candidates(&self.x, &trial);
        }
        let filter_clock = self.time_linear_solve.then(std::time::Instant::now);
        let state = Self::state(&self.ws, &self.settings, self.step);
        let alpha0 = self
            .potential
            .max_step(&self.x, &p, &state, self.settings.filter_fraction)
            .min(1.0);
        if let (Some(c), Some(f)) = (clock, filter_clock) {
            self.phase_seconds.broad_phase += (f - c).as_secs_f64();
            self.phase_seconds.step_filter += f.elapsed().as_secs_f64();
        }
        let mut grad_trial = std::mem::take(&mut self.ws.grad_trial);
        let state = Self::state(&self.ws, &self.settings, self.step);
        let dofs = self.system.dofs();
        let predicted_decrease = alpha0
            * self
                .ws
                .grad
                .iter()
                .zip(&p)
                .map(|(g, p)| g.dot(p))
                .sum::<f64>()
                .abs();
        let mut points = NewtonTrials {
            potential: &mut self.potential,
            state,
            dofs,
            gradient_norm: free_gradient_norm(dofs, &self.ws.grad),
            grad: &mut grad_trial,
            scale,
        };
        let r = line_search::backtrack(
            &self.x,
            &p,
            alpha0,
            self.settings.max_halvings,
            line_search::StartPoint {
                energy: energy_before,
                scale,
                predicted_decrease,
            },
            &mut trial,
            &mut points,
        )
        .map(|r| (r, points.scale));
        self.ws.grad_trial = grad_trial;
        self.ws.trial = trial;
        self.ws.p = p;
        r
    }

    /// No non-finite x or v, no contact pair at or past contact. Returns the minimum distance.
    fn check_invariants(&self, step: usize) -> Result<f64, SolveError> {
        let bad = |what: String| SolveError::Invariant {
            step,
            time: self.time(),
            what,
        };
        for (i, (x, v)) in self.x.iter().zip(&self.v).enumerate() {
            if !(x.iter().all(|c| c.is_finite()) && v.iter().all(|c| c.is_finite())) {
                return Err(bad(format!(
                    "node {i} has a non-finite state x = {:?}, v = {:?}",
                    x.as_slice(),
                    v.as_slice()
                )));
            }
        }
        let d = self.min_distance();
        if d <= 0.0 || d.is_nan() {
            return Err(bad(format!(
                "a contact pair is at or past contact (distance {d:e} m)"
            )));
        }
        Ok(d)
    }

    /// ∇E into `ws.grad` and the projected Hessian into the system's matrix, at the current x.
    fn assemble(&mut self) -> Result<(), LinearSolveError> {
        self.potential.update_contact(&self.x);
        let state = StepState {
            x_tilde: &self.ws.x_tilde,
            x_n: &self.ws.x_n,
            h: self.settings.h,
            time: (self.step + 1) as f64 * self.settings.h,
        };
        self.ws.grad.fill(Vector::<D>::zeros());
        self.potential.gradient(&self.x, &state, &mut self.ws.grad);
        self.potential.hessian(&self.x, &state);
        let potential = &self.potential;
        self.system.assemble_by_element(
            potential.len(),
            |i| potential.group(i),
            &potential.element_blocks(&self.x, &state),
        )
    }

    /// ∇E and the projected Hessian at the current x; solves H p = −∇E into `ws.p` (zero on the
    /// prescribed degrees of freedom).
    fn search_direction(
        &mut self,
        step: usize,
        iteration: usize,
        stats: &mut StepStats,
    ) -> Result<(), SolveError> {
        let time = self.time();
        let previous_residual = (iteration > 0).then_some(stats.residual);
        let linear_error = |ws: &Workspace<D>, source| SolveError::Linear {
            step,
            time,
            iteration,
            gradient: ws.grad.iter().map(|g| g.amax()).fold(0.0, f64::max),
            residual: previous_residual,
            source,
        };
        let clock = self.time_linear_solve.then(std::time::Instant::now);
        let assembled = self.assemble();
        if let Some(c) = clock {
            self.phase_seconds.assembly += c.elapsed().as_secs_f64();
        }
        if let Err(source) = assembled {
            return Err(linear_error(&self.ws, source));
        }
        let dofs = self.system.dofs();
        let grad = self.ws.grad.iter().flat_map(|g| g.iter());
        if dofs.is_all_free() {
            for (r, g) in self.ws.rhs.iter_mut().zip(grad) {
                *r = -g;
            }
        } else {
            for (k, g) in grad.enumerate() {
                let row = dofs.row(k);
                if row != DofMap::PRESCRIBED {
                    self.ws.rhs[row] = -g;
                }
            }
        }
        let clock = self.time_linear_solve.then(std::time::Instant::now);
        // Start one level below the one the last iteration of this step needed
        // ([`MASS_SHIFTS`]' module comment): a Hessian indefinite at one iterate mostly is at the
        // next, and every failed attempt costs a numeric factorisation.
        let mut level = self.shift_level.saturating_sub(1);
        let mut applied = 0.0;
        if level > 0 {
            applied = MASS_SHIFTS[level - 1];
            self.system.add_to_diagonal(&self.mass_diagonal, applied);
        }
        let mut factored = self.system.factorize();
        while factored.is_err() && level < MASS_SHIFTS.len() {
            level += 1;
            let tau = MASS_SHIFTS[level - 1];
            // The skyline factors in place: the failed attempt left no matrix behind.
            let potential = &self.potential;
            let state = Self::state(&self.ws, &self.settings, self.step);
            self.system.restore_by_element(
                |i| potential.group(i),
                &potential.element_blocks(&self.x, &state),
                &self.mass_diagonal,
            );
            self.system
                .add_to_diagonal(&self.mass_diagonal, tau - applied);
            applied = tau;
            factored = self.system.factorize();
        }
        if factored.is_ok() && level > 0 {
            stats.mass_shifts += 1;
            stats.max_shift = stats.max_shift.max(applied);
        }
        if factored.is_err() {
            level = MASS_SHIFTS.len() + 1;
            let state = Self::state(&self.ws, &self.settings, self.step);
            // Still indefinite with the largest mass shift: this iteration falls back to the
            // clamped projection of SPEC.md §2.
            if self.potential.project_indefinite_terms(&self.x, &state) {
                let potential = &self.potential;
                if let Err(source) = self.system.assemble_by_element(
                    potential.len(),
                    |i| potential.group(i),
                    &potential.element_blocks(&self.x, &state),
                ) {
                    return Err(linear_error(&self.ws, source));
                }
                factored = self.system.factorize();
                stats.projection_fallbacks += 1;
            }
        }
        self.shift_level = level;
        if let Err(source) = factored {
            return Err(linear_error(&self.ws, source));
        }
        self.system.solve_in_place(&mut self.ws.rhs);
        if let Some(c) = clock {
            stats.factor_solve_seconds += c.elapsed().as_secs_f64();
        }
        let dofs = self.system.dofs();
        let p = self.ws.p.iter_mut().flat_map(|p| p.iter_mut());
        if dofs.is_all_free() {
            for (p, r) in p.zip(&self.ws.rhs) {
                *p = *r;
            }
        } else {
            for (k, p) in p.enumerate() {
                let row = dofs.row(k);
                *p = if row == DofMap::PRESCRIBED {
                    0.0
                } else {
                    self.ws.rhs[row]
                };
            }
        }
        Ok(())
    }
}
