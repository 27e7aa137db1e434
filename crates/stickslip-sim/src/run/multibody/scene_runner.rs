//! One runner for a scene of either dimension (SPEC.md §7–8): [`Runner`] builds the scene's
//! system, steps it, keeps one trajectory row per step, the solver's totals, what every body
//! did (inversions, distances, spins), the contact pairs within d̂ (`contacts.csv`) and the
//! impulse-law cross-check's records. What a row holds and how a body's support and verdict
//! are read are the dimension's ([`RunScene`]: the 2D scene in `run::multibody`, the 3D scene
//! in `run::multibody::solid`).

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::Instant;

use super::stepped::SceneSteps;
use super::{ContactRow, SceneRunError, push_contact_rows};
use crate::contact::{ContactPoint, PairDistance};
use crate::cross_check::CrossCheck;
use crate::cross_check::post_pass::PostPass;
use crate::run::physical::{BodyWatch, Physicality};
use crate::run::runner::{RECORD_CHUNK_STEPS, SolverTotals};
use crate::run::verdict::{self, Verdict};
use crate::scene::CaseError;
use crate::scene::body::BodyHandle;
use crate::scene::multibody::drivers::{DriverForce, Steer};
use crate::scene::multibody::scene::SceneBasics;
use crate::solver::assembly::{FactorChoice, LinearSolveError, MAX_FACTOR_BYTES};
use crate::solver::{Simulation, System};

/// What a runner needs of a scene of dimension `D`, besides its [`SceneBasics`].
pub trait RunScene<const D: usize>: SceneBasics<D> + Sized {
    /// What building the system says of where the scene's pieces are.
    type Parts;
    /// Where the scene's pieces are in the system, and what a run keeps of t = 0.
    type Layout;
    /// One row of the trajectory.
    type Row;

    /// Its system, and where its pieces are.
    fn system(&self) -> (System<D>, Self::Parts);
    /// The layout of a run from `parts` and the simulation at t = 0.
    fn layout(&self, parts: Self::Parts, sim: &Simulation<D>) -> Self::Layout;
    /// Body `k`'s nodes in the state vector.
    fn nodes(layout: &Self::Layout, k: usize) -> &Range<usize>;
    /// How every driver's force is found, in the scene's order.
    fn driver_forces(layout: &Self::Layout) -> &[DriverForce<D>];
    /// The same, to steer them.
    fn drivers_mut(layout: &mut Self::Layout) -> &mut [DriverForce<D>];
    /// The row of `run`'s current state, with its contacts and pairs (within d̂) and the
    /// step's Newton iterations and final residual (m/s).
    fn row(
        run: &Runner<Self, D>,
        contacts: &[ContactPoint<D>],
        pairs: &[PairDistance<D>],
        newton_iterations: usize,
        final_residual: f64,
    ) -> Self::Row;
    /// The columns of `trajectory.csv`, with units.
    fn trajectory_header(run: &Runner<Self, D>) -> Vec<String>;
    /// The values of `row` in [`RunScene::trajectory_header`]'s order.
    fn trajectory_values(row: &Self::Row) -> Vec<f64>;
    /// A row's time, s.
    fn time(row: &Self::Row) -> f64;
    /// Body `k`'s smallest distance to an obstacle or body (m) and its angular speed (rad/s)
    /// in `row`.
    fn watched(row: &Self::Row, k: usize) -> (f64, f64);
}

/// A driver change a run cannot make ([`Runner::steer_driver`]).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SteerError {
    /// No driver of that name.
    #[error("no driver `{name}`; the scene's drivers are {drivers:?}")]
    NoSuchDriver {
        /// The name asked for.
        name: String,
        /// The scene's drivers.
        drivers: Vec<String>,
    },
    /// The change is not for the driver's type.
    #[error("driver `{name}` takes a change of its {takes} only")]
    WrongChange {
        /// The driver.
        name: String,
        /// The key its type takes.
        takes: &'static str,
    },
}

/// The bad-input error of a scene whose sparse Cholesky factor would take `bytes` (L's
/// `entries` non-zeros for `unknowns` unknowns, and the workspace), more than `limit`: blamed on
/// `bodies`, whose meshes make the pattern.
fn factor_too_large(
    source: Option<&Path>,
    entries: usize,
    unknowns: usize,
    bytes: u64,
    limit: u64,
) -> CaseError {
    let gib = |b: u64| b as f64 / f64::from(1u32 << 30);
    CaseError::Invalid {
        file: source.map_or_else(|| PathBuf::from("(inline case)"), Path::to_path_buf),
        key: "bodies".into(),
        rule: format!(
            "the sparse Cholesky factor of the bodies' Hessian must take at most {} GiB of memory (L's non-zeros at 8 bytes each and its workspace, counted before it is allocated); use coarser meshes",
            crate::number_format::Short(gib(limit))
        ),
        value: format!(
            "{} GiB: {entries:.2e} non-zeros of L for {unknowns} unknowns",
            crate::number_format::Sig(gib(bytes))
        ),
    }
}

/// A scene being run.
pub struct Runner<S: RunScene<D>, const D: usize> {
    /// The validated scene.
    pub scene: S,
    /// Where its pieces are in the system.
    pub layout: S::Layout,
    /// The simulation.
    pub sim: Simulation<D>,
    /// One row per step, and t = 0.
    pub rows: Vec<S::Row>,
    /// Totals so far.
    pub totals: SolverTotals,
    steps: usize,
    /// When the runner was made (the summary's wall time).
    pub(crate) started: Instant,
    contacts: Vec<ContactPoint<D>>,
    pairs: Vec<PairDistance<D>>,
    /// Every contact pair within d̂ at every step, once [`Runner::record_contacts`] was called.
    pub contact_rows: Vec<ContactRow<D>>,
    recording: bool,
    /// The impulse-law cross-check, if on.
    pub(crate) check: Option<PostPass<D>>,
    /// What every body did, for [`Runner::physicality`].
    watch: Vec<BodyWatch>,
}

impl<S: RunScene<D>, const D: usize> Runner<S, D> {
    /// A runner at t = 0 for `duration` s (the case's when `None`).
    pub fn new(scene: S, duration: Option<f64>) -> Result<Self, SceneRunError> {
        Self::with_factor_limit(scene, duration, MAX_FACTOR_BYTES)
    }

    /// [`Runner::new`] with the sparse Cholesky factor's memory bounded by `max_factor_bytes`
    /// (bytes) instead of [`MAX_FACTOR_BYTES`]. A scene whose factor would be larger is refused
    /// before it is allocated, as bad input under `bodies` ([`SceneRunError::Input`]): its
    /// bodies are too finely meshed for this solver.
    pub fn with_factor_limit(
        scene: S,
        duration: Option<f64>,
        max_factor_bytes: u64,
    ) -> Result<Self, SceneRunError> {
        let settings = scene.settings();
        let steps = settings.steps_for(duration.unwrap_or(settings.duration));
        let (system, parts) = scene.system();
        let sim = Simulation::with_factor_limit(system, FactorChoice::Auto, max_factor_bytes)
            .map_err(|source| match source {
                LinearSolveError::FactorTooLarge {
                    entries,
                    unknowns,
                    bytes,
                    limit,
                } => SceneRunError::Input(factor_too_large(
                    scene.source(),
                    entries,
                    unknowns,
                    bytes,
                    limit,
                )),
                source => SceneRunError::Setup {
                    case: scene.name().to_string(),
                    source,
                },
            })?;
        let layout = scene.layout(parts, &sim);
        let mut runner = Runner {
            totals: SolverTotals {
                min_distance: f64::INFINITY,
                max_energy_increase: f64::NEG_INFINITY,
                symbolic_factorisations: sim.symbolic_factorisations(),
                ..Default::default()
            },
            scene,
            layout,
            sim,
            rows: Vec::with_capacity(steps + 1),
            steps,
            started: Instant::now(),
            contacts: Vec::new(),
            pairs: Vec::new(),
            contact_rows: Vec::new(),
            recording: false,
            check: None,
            watch: Vec::new(),
        };
        let row = runner.row(0, 0.0);
        let bodies = runner.scene.body_count();
        runner.totals.min_distance = (0..bodies)
            .map(|k| S::watched(&row, k).0)
            .fold(f64::INFINITY, f64::min);
        runner.watch = (0..bodies)
            .map(|k| {
                let (distance, spin) = S::watched(&row, k);
                let mut w = BodyWatch::default();
                w.observe(0.0, 0, distance, spin);
                w
            })
            .collect();
        runner.rows.push(row);
        Ok(runner)
    }

    /// Body `k` and its nodes in the state vector.
    pub fn body(&self, k: usize) -> BodyHandle<'_, D> {
        BodyHandle::new(self.scene.body(k), S::nodes(&self.layout, k))
    }

    /// Steps in all.
    pub fn total_steps(&self) -> usize {
        self.steps
    }

    /// Whether every step has been taken.
    pub fn done(&self) -> bool {
        self.sim.step >= self.steps
    }

    /// The row of the current state (its contact pairs kept when recording).
    fn row(&mut self, newton_iterations: usize, final_residual: f64) -> S::Row {
        let mut contacts = std::mem::take(&mut self.contacts);
        let mut pairs = std::mem::take(&mut self.pairs);
        self.sim.contacts(&mut contacts);
        match self.sim.contact() {
            Some(c) => c.distances(&self.sim.x, &mut pairs),
            None => pairs.clear(),
        }
        let row = S::row(self, &contacts, &pairs, newton_iterations, final_residual);
        if self.recording {
            self.push_contact_rows(&pairs, &contacts);
        }
        self.contacts = contacts;
        self.pairs = pairs;
        row
    }

    /// From now on (this state included), every step's contact pairs within d̂ are kept in
    /// [`Runner::contact_rows`] (`contacts.csv`).
    pub fn record_contacts(&mut self) {
        if self.recording {
            return;
        }
        self.recording = true;
        let mut pairs = std::mem::take(&mut self.pairs);
        if let Some(c) = self.sim.contact() {
            c.distances(&self.sim.x, &mut pairs);
        }
        let contacts = std::mem::take(&mut self.contacts);
        self.push_contact_rows(&pairs, &contacts);
        self.contacts = contacts;
        self.pairs = pairs;
    }

    /// Appends `pairs` within d̂ to [`Runner::contact_rows`] at the current state, with their
    /// friction forces among `friction` (the friction set's contacts).
    fn push_contact_rows(&mut self, pairs: &[PairDistance<D>], friction: &[ContactPoint<D>]) {
        push_contact_rows(
            self.sim.time(),
            self.scene.settings().barrier.dhat,
            pairs,
            &self.sim.v,
            friction,
            &mut self.contact_rows,
        );
    }

    /// Takes one step and appends its row.
    pub fn step(&mut self) -> Result<(), SceneRunError> {
        let stats = self.sim.step().map_err(|source| SceneRunError::Solve {
            case: self.scene.name().to_string(),
            source,
        })?;
        if let Some(check) = self.check.as_mut() {
            check.record_step(&self.sim);
            if self.sim.step.is_multiple_of(RECORD_CHUNK_STEPS) {
                self.flush_records()?;
            }
        }
        let row = self.row(stats.iterations, stats.residual);
        // The bodies' inversions are counted one body at a time (the most in one body).
        let inverted: Vec<usize> = (0..self.scene.body_count())
            .map(|k| self.body(k).inverted_elements(&self.sim))
            .collect();
        self.totals.record_step(
            &stats,
            &self.sim,
            inverted.iter().copied().max().unwrap_or(0),
        );
        // The summary's smallest distance is the trajectory's: every mesh node (a body turned
        // inside out can put interior nodes past a half-space the solver's boundary pairs never
        // see).
        let t = S::time(&row);
        for (k, (w, &n)) in self.watch.iter_mut().zip(&inverted).enumerate() {
            let (distance, spin) = S::watched(&row, k);
            w.observe(t, n, distance, spin);
            self.totals.min_distance = self.totals.min_distance.min(distance);
        }
        self.rows.push(row);
        Ok(())
    }

    /// Runs the impulse-law cross-check (SPEC.md §4) over every contact record of every step
    /// from now on: each node against a half-space in friction's set (less a belt's surface
    /// velocity), and each pair between bodies or with an obstacle's mesh at its closest
    /// points' relative velocity ([`crate::cross_check::records::Recorder::push_step_records`]).
    pub fn set_cross_check(&mut self, check: CrossCheck) {
        self.check = Some(PostPass::new(check));
    }

    /// Hands the records held so far to the cross-check (at the end of a run, before the
    /// summary).
    pub fn flush_records(&mut self) -> Result<(), SceneRunError> {
        let Some(check) = self.check.as_mut() else {
            return Ok(());
        };
        check.flush().map_err(|source| SceneRunError::CrossCheck {
            case: self.scene.name().to_string(),
            source,
        })
    }

    /// The columns of its `trajectory.csv` ([`RunScene::trajectory_header`]).
    pub fn trajectory_header(&self) -> Vec<String> {
        S::trajectory_header(self)
    }

    /// Every row's values in [`Runner::trajectory_header`]'s order.
    pub fn trajectory_values(&self) -> impl Iterator<Item = Vec<f64>> + '_ {
        self.rows.iter().map(S::trajectory_values)
    }

    /// Every driver's force on its body at the last step (the scene's order), N.
    pub fn driver_forces(&self) -> Vec<crate::energy::Vector<D>> {
        S::driver_forces(&self.layout)
            .iter()
            .map(|d| d.on_body(&self.sim))
            .collect()
    }

    /// Changes driver `name` from the next step on ([`Steer`]): a spring's anchor velocity, a
    /// prescribed motion's velocity or a constant force, each continuing from where it is now.
    pub fn steer_driver(&mut self, name: &str, change: Steer<D>) -> Result<(), SteerError> {
        let k = self
            .scene
            .drivers()
            .iter()
            .position(|d| d.name == name)
            .ok_or_else(|| SteerError::NoSuchDriver {
                name: name.to_string(),
                drivers: self
                    .scene
                    .drivers()
                    .iter()
                    .map(|d| d.name.clone())
                    .collect(),
            })?;
        S::drivers_mut(&mut self.layout)[k]
            .steer(&mut self.sim, change)
            .map_err(|takes| SteerError::WrongChange {
                name: name.to_string(),
                takes,
            })
    }

    /// Body `k`'s verdict (SPEC.md §2's window) from its displacement along its support
    /// since t = 0, m, one value a row (`relative`, oriented here along the last window's
    /// motion), and its rotation since t = 0 (rad, a row each): the times, whether it touched
    /// anything (within d̂) and its angular speed are read off the rows.
    pub fn judge(&self, k: usize, mut relative: Vec<f64>, rotation: &[f64]) -> Verdict {
        let settings = self.scene.settings();
        let times: Vec<f64> = self.rows.iter().map(S::time).collect();
        let spin: Vec<f64> = self.rows.iter().map(|r| S::watched(r, k).1).collect();
        let dhat = settings.barrier.dhat;
        let in_contact: Vec<bool> = self
            .rows
            .iter()
            .map(|r| S::watched(r, k).0 < dhat)
            .collect();
        let w = verdict::window_steps(settings.h);
        if let (Some(&last), Some(&before)) = (
            relative.last(),
            relative
                .len()
                .checked_sub(w + 1)
                .and_then(|i| relative.get(i)),
        ) && last < before
        {
            relative.iter_mut().for_each(|s| *s = -*s);
        }
        verdict::verdict(
            &verdict::Track {
                times: &times,
                downhill: &relative,
                rotation,
                in_contact: &in_contact,
                angular_speed: Some(&spin),
                exact_stick_radius: settings
                    .stick
                    .is_exact()
                    .then(|| verdict::radius(self.body(k).of(&self.sim.x))),
            },
            settings.h,
        )
    }

    /// Whether the run so far is physical: every body's inversions and penetrations, and its
    /// spins past [`crate::run::physical::SPIN_PER_STEP_BOUND_RAD`] a step.
    pub fn physicality(&self) -> Physicality {
        let bodies = 0..self.scene.body_count();
        let names: Vec<&str> = bodies.clone().map(|k| self.scene.body(k).name()).collect();
        let elements: Vec<usize> = bodies.map(|k| self.scene.body(k).elements()).collect();
        Physicality::of(&names, &elements, &self.watch, self.scene.settings().h)
    }
}

impl<S: RunScene<D>, const D: usize> SceneSteps for Runner<S, D> {
    fn name(&self) -> &str {
        self.scene.name()
    }
    fn total_steps(&self) -> usize {
        Runner::total_steps(self)
    }
    fn steps_done(&self) -> usize {
        self.sim.step
    }
    fn done(&self) -> bool {
        Runner::done(self)
    }
    fn step(&mut self) -> Result<(), SceneRunError> {
        Runner::step(self)
    }
    fn set_cross_check(&mut self, check: CrossCheck) {
        Runner::set_cross_check(self, check)
    }
    fn flush_records(&mut self) -> Result<(), SceneRunError> {
        Runner::flush_records(self)
    }
}
