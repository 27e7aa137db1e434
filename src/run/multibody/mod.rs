//! A scene's run (`kind = "scene"`, SPEC.md §7–8): steps its system, keeps one trajectory row
//! per step with every body's centroid, velocity and rotation and every driver's force, and
//! gives each body's verdict, and for a spring on a belt the stick–slip cycle, for a spring
//! pulling a block its breakaway, for a lone box on an incline whether it stays, slides or tips,
//! each beside the closed form of SPEC.md §8.

mod contact_state;
pub mod slide_or_tip;
pub mod solid;
pub mod solid_driven;
pub mod solid_stack;
pub mod solid_summary;
pub mod stepped;
mod support;

use std::time::Instant;

use serde::Serialize;

pub use contact_state::ContactState;
pub use slide_or_tip::{SlideOrTip, SlideOrTipAnalytic};
pub use support::Support;

use crate::contact::{ContactPoint, PairDistance};
use crate::cross_check::post_pass::PostPass;
use crate::cross_check::{CrossCheck, CrossCheckReport};
use crate::energy::{Vec2, Vector};
use crate::run::physical::{BodyWatch, Physicality};
use crate::run::runner::{ExactStick, RECORD_CHUNK_STEPS, SolverTotals};
use crate::run::verdict::{self, Verdict};
use crate::scene::multibody::system::SceneLayout;
use crate::scene::multibody::{DriverKind, DriverSpec, MultibodyScene};
use crate::solver::assembly::LinearSolveError;
use crate::solver::{Simulation, SolveError};

/// The relative speed of a body over its support above which it slides, in multiples of ε_v:
/// 2 ε_v, where the static-to-kinetic transition of smoothed friction ends
/// (`contact::potentials::friction`). A body sticking under smoothed friction creeps below ε_v.
pub const SLIP_SPEED_OVER_EPS_V: f64 = 2.0;

/// Errors of a scene's run.
#[derive(Debug, thiserror::Error)]
pub enum SceneRunError {
    /// The solver failed a step.
    #[error("{case}: {source}")]
    Solve {
        /// Case name.
        case: String,
        /// The step's error.
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
    /// The impulse law's backend failed on a batch of contact records (3D scenes).
    #[error("{case}: cross-check: {source}")]
    CrossCheck {
        /// Case name.
        case: String,
        /// Cause.
        source: crate::cross_check::backend::BackendError,
    },
}

/// One body's state in a trajectory row.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct BodyState {
    /// Mass-weighted centroid, m.
    pub x: f64,
    /// m.
    pub y: f64,
    /// Mass-weighted velocity, m/s.
    pub vx: f64,
    /// m/s.
    pub vy: f64,
    /// Rotation since t = 0 of the body's left edge (node 0 → the top of its first column),
    /// unwrapped, rad, counter-clockwise positive.
    pub rotation: f64,
    /// The smallest distance of its nodes to an obstacle, m (+∞ without obstacles).
    pub min_distance: f64,
    /// The tangential speed of its friction contacts with what presses on it hardest (its
    /// support in this state) relative to that, m/s, their mean weighted by normal force (the
    /// vertex–vertex corrections' negative forces cancel the duplicate pairs they correct);
    /// 0 without contact. Under [`SLIP_SPEED_OVER_EPS_V`] ε_v it sticks.
    pub slip: f64,
    /// Angular velocity about its centroid, rad/s, counter-clockwise positive
    /// ([`verdict::angular_velocity_2d`]; not a column of `trajectory.csv`).
    #[serde(skip)]
    pub angular_velocity: f64,
}

/// One row of a scene's `trajectory.csv`.
#[derive(Clone, Debug, PartialEq)]
pub struct SceneRow {
    /// Time, s.
    pub t: f64,
    /// Every body, in the scene's order.
    pub bodies: Vec<BodyState>,
    /// Every driver's force on its body, N, in the scene's order.
    pub drivers: Vec<Vec2>,
    /// Newton iterations of the step that ended here.
    pub newton_iterations: usize,
    /// Final ‖p‖∞/h of that step, m/s.
    pub final_residual: f64,
}

/// One contact pair within d̂ at one step, as `contacts.csv` has it (opt-in: `--contacts`), in
/// 2D (the default) or 3D.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactRow<const D: usize = 2> {
    /// Time, s.
    pub t: f64,
    /// The pair type (`node-half_space`, `point-edge`, `vertex-vertex correction`).
    pub kind: &'static str,
    /// The first primitive's and the second's body or obstacle, as the friction table numbers
    /// them.
    pub members: (usize, usize),
    /// The stencil's nodes (the first `len`).
    pub nodes: [usize; crate::contact::MAX_STENCIL],
    /// Nodes in the stencil.
    pub len: usize,
    /// Distance, m.
    pub distance: f64,
    /// The barrier's normal force, N (negative on a correction pair).
    pub normal_force: f64,
    /// The unit normal from the second towards the first.
    pub normal: Vector<D>,
    /// The tangential relative velocity of the first's closest point over the second's, m/s.
    pub slip: Vector<D>,
}

/// Appends to `out` a row at time `t` (s) for every pair of `pairs` within `dhat` (m), with its
/// slip at the node velocities `v`.
pub fn push_contact_rows<const D: usize>(
    t: f64,
    dhat: f64,
    pairs: &[PairDistance<D>],
    v: &[Vector<D>],
    out: &mut Vec<ContactRow<D>>,
) {
    for p in pairs.iter().filter(|p| p.distance < dhat) {
        out.push(ContactRow {
            t,
            kind: p.kind,
            members: p.bodies,
            nodes: p.nodes,
            len: p.len,
            distance: p.distance,
            normal_force: p.normal_force,
            normal: p.normal,
            slip: p.slip(v),
        });
    }
}

/// The stick–slip cycle of a spring on a belt, measured or by SPEC.md §8.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct StickSlipCycle {
    /// The spring force when slip starts, N.
    pub f_max_n: f64,
    /// The spring force when the block sticks again, N.
    pub f_min_n: f64,
    /// Time stuck to the belt in a cycle, s.
    pub t_stick_s: f64,
    /// Time slipping in a cycle, s.
    pub t_slip_s: f64,
    /// t_stick + t_slip, s.
    pub period_s: f64,
}

impl StickSlipCycle {
    /// SPEC.md §8's cycle of a block of mass `m` (kg) pressed on a belt by `n` (N), with
    /// coefficients μ_s ≥ μ_k, held by a spring of stiffness `k` (N/m) to a fixed anchor, the
    /// belt at speed `v` (m/s): it sticks until the spring force reaches μ_s N, slips on a
    /// half-oscillation of ω = √(k/m) about the kinetic balance μ_k N, and sticks again at
    /// (2 μ_k − μ_s) N: ΔF = 2 (μ_s − μ_k) N, t_stick = ΔF/(k v), t_slip = (π + 2α)/ω with
    /// α = arctan(v/(ω A₀)), A₀ = (μ_s − μ_k) N/k.
    pub fn closed_form(m: f64, n: f64, mu_static: f64, mu_kinetic: f64, k: f64, v: f64) -> Self {
        let a0 = (mu_static - mu_kinetic) * n / k;
        let omega = (k / m).sqrt();
        let alpha = (v / (omega * a0)).atan();
        let drop = 2.0 * (mu_static - mu_kinetic) * n;
        let t_stick = drop / (k * v);
        let t_slip = (std::f64::consts::PI + 2.0 * alpha) / omega;
        StickSlipCycle {
            f_max_n: mu_static * n,
            f_min_n: (2.0 * mu_kinetic - mu_static) * n,
            t_stick_s: t_stick,
            t_slip_s: t_slip,
            period_s: t_stick + t_slip,
        }
    }
}

/// The measured cycle with how many full cycles it averages.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct MeasuredCycle {
    /// The means over the full cycles after the first slip.
    #[serde(flatten)]
    pub cycle: StickSlipCycle,
    /// Full cycles averaged.
    pub cycles: usize,
}

/// A block's breakaway: the first time it slides over its support, and the driver's force then.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Breakaway {
    /// s (none analytic: the closed form gives the force).
    pub time_s: Option<f64>,
    /// N.
    pub force_n: f64,
}

impl Breakaway {
    /// SPEC.md §8's breakaway of a block pressed on its support with `normal_force` N (with
    /// static coefficient `mu_static`) by a spring whose force along the support starts at
    /// `f0` N and grows at `rate` N/s while the block sticks: at μ_s N, at t = (μ_s N − f0)/rate
    /// (none without growth, or when the spring starts beyond it). Used in 2D and 3D.
    pub fn closed_form(mu_static: f64, normal_force: f64, f0: f64, rate: f64) -> Breakaway {
        let f_max = mu_static * normal_force;
        Breakaway {
            time_s: (rate > 0.0 && f0 < f_max).then(|| (f_max - f0) / rate),
            force_n: f_max,
        }
    }
}

/// Two stacked blocks, the lower pulled by a constant force (SPEC.md §8): the accelerations
/// along the ground, measured or in closed form.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct StackAccelerations {
    /// The lower block's, m/s².
    pub lower_m_per_s2: f64,
    /// The upper block's, m/s².
    pub upper_m_per_s2: f64,
    /// Whether the upper block slips on the lower (measured: its speed relative to the lower
    /// one at the end above 2 ε_v).
    pub upper_slips: bool,
}

impl StackAccelerations {
    /// SPEC.md §8's two stacked blocks, the lower (m₁, kg) pulled along the ground by `force`
    /// N (its component along the ground), gravity pressing into the ground at `g_n` m/s², with
    /// the ground's coefficients `ground` and those between the blocks `between`. With
    /// N₁ = (m₁ + m₂) g_n: a force at most μ_s,g N₁ moves nothing; else together
    /// a = (F − μ_k,g N₁)/(m₁ + m₂) while a ≤ μ_s g_n between the blocks; beyond, the upper
    /// block slips at μ_k g_n and the lower accelerates at (F − μ_k m₂ g_n − μ_k,g N₁)/m₁. Used
    /// in 2D and 3D.
    pub fn closed_form(
        force: f64,
        g_n: f64,
        m1: f64,
        m2: f64,
        ground: crate::contact::Coefficients,
        between: crate::contact::Coefficients,
    ) -> StackAccelerations {
        let n1 = (m1 + m2) * g_n;
        if force <= ground.mu_static * n1 {
            return StackAccelerations {
                lower_m_per_s2: 0.0,
                upper_m_per_s2: 0.0,
                upper_slips: false,
            };
        }
        let together = (force - ground.mu_kinetic * n1) / (m1 + m2);
        if together <= between.mu_static * g_n {
            StackAccelerations {
                lower_m_per_s2: together,
                upper_m_per_s2: together,
                upper_slips: false,
            }
        } else {
            StackAccelerations {
                lower_m_per_s2: (force - between.mu_kinetic * m2 * g_n - ground.mu_kinetic * n1)
                    / m1,
                upper_m_per_s2: between.mu_kinetic * g_n,
                upper_slips: true,
            }
        }
    }
}

/// Two stacked blocks: a body pulled by a constant force over an obstacle, and a body resting
/// on it (SPEC.md §8).
#[derive(Clone, Debug)]
pub struct StackMembers {
    /// The pulled body.
    pub lower: usize,
    /// The body resting on it.
    pub upper: usize,
    /// What the lower body rests on.
    pub ground: Support,
    /// The unit tangent of the ground along the force.
    pub along: Vec2,
    /// The constant force, N.
    pub force: Vec2,
}

/// A body in `summary.json`.
#[derive(Clone, Debug, Serialize)]
pub struct BodySummary {
    /// Name.
    pub name: String,
    /// Nodes.
    pub nodes: usize,
    /// Total mass, kg.
    pub mass_kg: f64,
    /// What it rests on at the end (the body or obstacle pressing on it hardest, else the
    /// nearest half-space), if anything.
    pub support: Option<String>,
    /// Its verdict relative to its support's surface (SPEC.md §2's window).
    pub verdict: Verdict,
}

/// A driver in `summary.json`.
#[derive(Clone, Debug, Serialize)]
pub struct DriverSummary {
    /// Name.
    pub name: String,
    /// `spring`, `move` or `force`.
    pub kind: &'static str,
    /// The body it acts on.
    pub body: String,
    /// Its node set and how many nodes that is.
    pub nodes: String,
    /// Its force on the body at the end, N (D components).
    pub final_force_n: Vec<f64>,
}

impl DriverSummary {
    /// Every driver of a scene with its force at the end (`forces`, in the drivers' order);
    /// `bodies` names the scene's bodies.
    pub fn all<const D: usize>(
        drivers: &[DriverSpec<D>],
        bodies: &[&str],
        forces: &[crate::energy::Vector<D>],
    ) -> Vec<DriverSummary> {
        drivers
            .iter()
            .zip(forces)
            .map(|(d, f)| DriverSummary {
                name: d.name.clone(),
                kind: d.kind.name(),
                body: bodies[d.body].to_string(),
                nodes: format!("{} ({} nodes)", d.node_set, d.nodes.len()),
                final_force_n: f.iter().copied().collect(),
            })
            .collect()
    }
}

/// `summary.json` of a scene.
#[derive(Clone, Debug, Serialize)]
pub struct SceneSummary {
    /// Case name.
    pub case: String,
    /// Case file.
    pub source: Option<String>,
    /// `--set` overrides, as given.
    pub overrides: Vec<String>,
    /// Time step, s.
    pub h: f64,
    /// Simulated duration, s.
    pub duration: f64,
    /// Exact stick's ε_d when `friction.stick = "exact"`; absent with smoothed friction.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exact_stick: Option<ExactStick>,
    /// Whether the run is physical (`"physical": false` and the reasons when a body inverted
    /// or penetrated) and its fast-spin warnings; nothing when physical without warnings.
    #[serde(flatten)]
    pub physicality: Physicality,
    /// The bodies.
    pub bodies: Vec<BodySummary>,
    /// The drivers.
    pub drivers: Vec<DriverSummary>,
    /// The verdict's rule in words.
    pub verdict_rule: String,
    /// For a spring holding a block on a belt: the measured cycle.
    pub stick_slip_cycle: Option<MeasuredCycle>,
    /// …and SPEC.md §8's.
    pub stick_slip_cycle_analytic: Option<StickSlipCycle>,
    /// For a spring whose anchor moves, pulling a block off a fixed support: the breakaway.
    pub breakaway: Option<Breakaway>,
    /// …and SPEC.md §8's (μ_s N).
    pub breakaway_analytic: Option<Breakaway>,
    /// For a block pulled by a constant force with another resting on it: the accelerations
    /// (least-squares slopes of the velocities along the ground over the run's second half).
    pub stack: Option<StackAccelerations>,
    /// …and SPEC.md §8's.
    pub stack_analytic: Option<StackAccelerations>,
    /// For a lone box started at rest on an incline: whether it stayed, slid or tipped.
    pub slide_or_tip: Option<SlideOrTip>,
    /// …and the closed form ([`slide_or_tip`]).
    pub slide_or_tip_analytic: Option<SlideOrTipAnalytic>,
    /// Solver statistics.
    pub solver: SolverTotals,
    /// The impulse-law cross-check over the records handed to it (none when off).
    pub cross_check: Option<CrossCheckReport>,
    /// Wall time of its post-pass, s.
    pub post_pass_seconds: f64,
    /// Wall time of the run, s.
    pub wall_seconds: f64,
}

/// A scene being run.
pub struct SceneRunner {
    /// The validated scene.
    pub scene: MultibodyScene,
    /// Where its pieces are in the system.
    pub layout: SceneLayout,
    /// The simulation.
    pub sim: Simulation<2>,
    /// One row per step, and t = 0.
    pub rows: Vec<SceneRow>,
    /// Totals so far.
    pub totals: SolverTotals,
    steps: usize,
    angle0: Vec<f64>,
    started: Instant,
    contacts: Vec<ContactPoint<2>>,
    pairs: Vec<PairDistance<2>>,
    /// Every contact pair within d̂ at every step, once [`SceneRunner::record_contacts`] was
    /// called.
    pub contact_rows: Vec<ContactRow>,
    recording: bool,
    /// The impulse-law cross-check, if on.
    check: Option<PostPass<2>>,
    /// What every body did, for [`SceneRunner::physicality`].
    watch: Vec<BodyWatch>,
}

impl SceneRunner {
    /// A runner at t = 0 for `duration` s (the case's when `None`).
    pub fn new(scene: MultibodyScene, duration: Option<f64>) -> Result<SceneRunner, SceneRunError> {
        let steps = scene.steps_for(duration.unwrap_or(scene.settings.duration));
        let (system, layout) = scene.system();
        let sim = Simulation::new(system).map_err(|source| SceneRunError::Setup {
            case: scene.name.clone(),
            source,
        })?;
        let angle0 = scene
            .bodies
            .iter()
            .zip(&layout.bodies)
            .map(|(b, r)| {
                let [a, c] = b.reference;
                verdict::unwrapped_angle(&sim.x[r.start + a], &sim.x[r.start + c], 0.0)
            })
            .collect();
        let mut runner = SceneRunner {
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
            angle0,
            started: Instant::now(),
            contacts: Vec::new(),
            pairs: Vec::new(),
            contact_rows: Vec::new(),
            recording: false,
            check: None,
            watch: Vec::new(),
        };
        let row = runner.row(0, 0.0);
        runner.totals.min_distance = row
            .bodies
            .iter()
            .map(|b| b.min_distance)
            .fold(f64::INFINITY, f64::min);
        runner.watch = row
            .bodies
            .iter()
            .map(|b| {
                let mut w = BodyWatch::default();
                w.observe(0.0, 0, b.min_distance, b.angular_velocity.abs());
                w
            })
            .collect();
        runner.rows.push(row);
        Ok(runner)
    }

    /// Steps in all.
    pub fn total_steps(&self) -> usize {
        self.steps
    }

    /// Whether every step has been taken.
    pub fn done(&self) -> bool {
        self.sim.step >= self.steps
    }

    /// The row of the current state.
    fn row(&mut self, newton_iterations: usize, final_residual: f64) -> SceneRow {
        let mut contacts = std::mem::take(&mut self.contacts);
        let mut pairs = std::mem::take(&mut self.pairs);
        self.sim.contacts(&mut contacts);
        match self.sim.contact() {
            Some(c) => c.distances(&self.sim.x, &mut pairs),
            None => pairs.clear(),
        }
        let row = self.row_with(&contacts, &pairs, newton_iterations, final_residual);
        if self.recording {
            self.push_contact_rows(&pairs);
        }
        self.contacts = contacts;
        self.pairs = pairs;
        row
    }

    /// From now on (this state included), every step's contact pairs within d̂ are kept in
    /// [`SceneRunner::contact_rows`].
    pub fn record_contacts(&mut self) {
        if self.recording {
            return;
        }
        self.recording = true;
        let mut pairs = std::mem::take(&mut self.pairs);
        if let Some(c) = self.sim.contact() {
            c.distances(&self.sim.x, &mut pairs);
        }
        self.push_contact_rows(&pairs);
        self.pairs = pairs;
    }

    fn push_contact_rows(&mut self, pairs: &[PairDistance<2>]) {
        push_contact_rows(
            self.sim.time(),
            self.scene.settings.barrier.dhat,
            pairs,
            &self.sim.v,
            &mut self.contact_rows,
        );
    }

    fn row_with(
        &self,
        contacts: &[ContactPoint<2>],
        pairs: &[PairDistance<2>],
        newton_iterations: usize,
        final_residual: f64,
    ) -> SceneRow {
        let sim = &self.sim;
        let mass = sim.mass();
        let bodies = self
            .scene
            .bodies
            .iter()
            .zip(&self.layout.bodies)
            .enumerate()
            .map(|(k, (b, r))| {
                let m: f64 = mass[r.clone()].iter().sum();
                let c = r.clone().map(|i| sim.x[i] * mass[i]).sum::<Vec2>() / m;
                let v = r.clone().map(|i| sim.v[i] * mass[i]).sum::<Vec2>() / m;
                let [a, e] = b.reference;
                let previous =
                    self.rows.last().map_or(0.0, |row| row.bodies[k].rotation) + self.angle0[k];
                let angle =
                    verdict::unwrapped_angle(&sim.x[r.start + a], &sim.x[r.start + e], previous);
                let to_half_spaces = self
                    .scene
                    .obstacles
                    .iter()
                    .filter_map(|o| o.half_space())
                    .flat_map(|h| r.clone().map(move |i| h.distance(&sim.x[i])))
                    .fold(f64::INFINITY, f64::min);
                let min_distance = pairs
                    .iter()
                    .filter(|p| p.bodies.0 == k || p.bodies.1 == k)
                    .map(|p| p.distance)
                    .fold(to_half_spaces, f64::min);
                // Slip over what presses on it hardest in this state.
                let members = self.scene.bodies.len() + self.scene.obstacles.len();
                let on = support::pressing(pairs, k, members).map(|(m, _)| m);
                let (mut weighted, mut total) = (0.0, 0.0);
                for p in contacts.iter().filter(|p| {
                    let other = on.unwrap_or(usize::MAX);
                    p.bodies == (k, other) || p.bodies == (other, k)
                }) {
                    weighted += p.normal_force * p.slip.norm();
                    total += p.normal_force;
                }
                let slip = if total > 0.0 { weighted / total } else { 0.0 };
                let angular_velocity = verdict::angular_velocity_2d(
                    &sim.x[r.clone()],
                    &sim.v[r.clone()],
                    &mass[r.clone()],
                );
                BodyState {
                    angular_velocity,
                    x: c.x,
                    y: c.y,
                    vx: v.x,
                    vy: v.y,
                    rotation: angle - self.angle0[k],
                    min_distance,
                    slip,
                }
            })
            .collect();
        let drivers = self.layout.drivers.iter().map(|d| d.on_body(sim)).collect();
        SceneRow {
            t: sim.time(),
            bodies,
            drivers,
            newton_iterations,
            final_residual,
        }
    }

    /// Takes one step and appends its row.
    pub fn step(&mut self) -> Result<(), SceneRunError> {
        let stats = self.sim.step().map_err(|source| SceneRunError::Solve {
            case: self.scene.name.clone(),
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
        let inverted: Vec<usize> = self
            .scene
            .bodies
            .iter()
            .zip(&self.layout.bodies)
            .map(|(b, r)| b.mesh.inverted_triangles(&self.sim.x[r.clone()]))
            .collect();
        self.totals.record_step(
            &stats,
            &self.sim,
            inverted.iter().copied().max().unwrap_or(0),
        );
        // The summary's smallest distance is the trajectory's: every node (a body turned inside
        // out can put interior nodes past a half-space the solver's boundary pairs never see).
        for ((w, b), &n) in self.watch.iter_mut().zip(&row.bodies).zip(&inverted) {
            w.observe(row.t, n, b.min_distance, b.angular_velocity.abs());
            self.totals.min_distance = self.totals.min_distance.min(b.min_distance);
        }
        self.rows.push(row);
        Ok(())
    }

    /// Runs the impulse-law cross-check (SPEC.md §4) over every contact record of every step
    /// from now on: each node against a half-space in friction's set (less a belt's surface
    /// velocity), and each point–edge pair, between bodies or with a polyline obstacle, at its
    /// closest points' relative velocity ([`crate::cross_check::records::Recorder::push_step_records`]).
    pub fn set_cross_check(&mut self, check: CrossCheck) {
        self.check = Some(PostPass::new(check));
    }

    /// Hands the records held so far to the cross-check (at the end of a run, before
    /// [`SceneRunner::summary`]).
    pub fn flush_records(&mut self) -> Result<(), SceneRunError> {
        let Some(check) = self.check.as_mut() else {
            return Ok(());
        };
        check.flush().map_err(|source| SceneRunError::CrossCheck {
            case: self.scene.name.clone(),
            source,
        })
    }

    /// Whether the run so far is physical: every body's inversions and penetrations, and its
    /// spins past [`crate::run::physical::SPIN_PER_STEP_BOUND_RAD`] a step.
    pub fn physicality(&self) -> Physicality {
        let names: Vec<&str> = self.scene.bodies.iter().map(|b| b.name.as_str()).collect();
        let elements: Vec<usize> = self
            .scene
            .bodies
            .iter()
            .map(|b| b.mesh.triangles.len())
            .collect();
        Physicality::of(&names, &elements, &self.watch, self.scene.settings.h)
    }

    /// Body `k`'s support at the end ([`Support`]).
    pub fn support(&self, k: usize) -> Option<Support> {
        let mut pairs = Vec::new();
        if let Some(c) = self.sim.contact() {
            c.distances(&self.sim.x, &mut pairs);
        }
        Support::of(&self.scene, &self.layout, &self.sim.x, &pairs, k)
    }
    /// Body `k`'s displacement since t = 0 along `support`'s tangent relative to it (a body
    /// support's own motion and a belt's surface velocity taken off), m, one value a row.
    pub fn along_support(&self, k: usize, support: &Support) -> Vec<f64> {
        let at = |r: &SceneRow, b: usize| Vec2::new(r.bodies[b].x, r.bodies[b].y);
        let first = &self.rows[0];
        self.rows
            .iter()
            .map(|r| {
                let mut moved = at(r, k) - at(first, k);
                if let Some(b) = support.body(&self.scene) {
                    moved -= at(r, b) - at(first, b);
                }
                moved.dot(&support.tangent) - support.surface_speed * r.t
            })
            .collect()
    }

    /// Body `k`'s verdict relative to its support (SPEC.md §2's window; the displacement along
    /// the support, relative to it, oriented along the last window's motion).
    fn body_verdict(&self, k: usize, support: Option<&Support>) -> Verdict {
        let times: Vec<f64> = self.rows.iter().map(|r| r.t).collect();
        let rotation: Vec<f64> = self.rows.iter().map(|r| r.bodies[k].rotation).collect();
        let spin: Vec<f64> = self
            .rows
            .iter()
            .map(|r| r.bodies[k].angular_velocity.abs())
            .collect();
        let dhat = self.scene.settings.barrier.dhat;
        let in_contact: Vec<bool> = self
            .rows
            .iter()
            .map(|r| r.bodies[k].min_distance < dhat)
            .collect();
        let mut relative: Vec<f64> = match support {
            Some(s) => self.along_support(k, s),
            None => vec![0.0; self.rows.len()],
        };
        let w = verdict::window_steps(self.scene.settings.h);
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
                rotation: &rotation,
                in_contact: &in_contact,
                angular_speed: Some(&spin),
                exact_stick_radius: self
                    .scene
                    .settings
                    .stick
                    .is_exact()
                    .then(|| verdict::radius(&self.sim.x[self.layout.bodies[k].clone()])),
            },
            self.scene.settings.h,
        )
    }

    /// The times slip starts and ends for body `k` (its contacts' mean slip speed crossing
    /// [`SLIP_SPEED_OVER_EPS_V`] ε_v up and down), as (onsets, re-sticks) row indices.
    fn slip_events(&self, k: usize) -> (Vec<usize>, Vec<usize>) {
        let threshold = SLIP_SPEED_OVER_EPS_V * self.scene.settings.eps_v;
        let speed: Vec<f64> = self.rows.iter().map(|r| r.bodies[k].slip).collect();
        let (mut on, mut off) = (Vec::new(), Vec::new());
        let mut slipping = speed.first().is_some_and(|s| s.abs() > threshold);
        for (i, s) in speed.iter().enumerate().skip(1) {
            let now = s.abs() > threshold;
            if now && !slipping {
                on.push(i);
            } else if !now && slipping {
                off.push(i);
            }
            slipping = now;
        }
        (on, off)
    }

    /// The spring driver whose body rests on a moving surface with a fixed anchor (the belt
    /// oscillator), as (driver, body, support, stiffness).
    pub fn belt_spring(&self) -> Option<(usize, usize, Support, f64)> {
        self.scene
            .drivers
            .iter()
            .enumerate()
            .find_map(|(i, d)| match d.kind {
                DriverKind::Spring {
                    stiffness,
                    anchor_velocity,
                    ..
                } if anchor_velocity == Vec2::zeros() => {
                    let s = self.support(d.body)?;
                    (s.surface_speed != 0.0).then_some((i, d.body, s, stiffness))
                }
                _ => None,
            })
    }

    /// The spring pulling a body over a fixed obstacle with a moving anchor, as (driver, body,
    /// support).
    pub fn pulling_spring(&self) -> Option<(usize, usize, Support)> {
        self.scene
            .drivers
            .iter()
            .enumerate()
            .find_map(|(i, d)| match d.kind {
                DriverKind::Spring {
                    anchor_velocity, ..
                } if anchor_velocity != Vec2::zeros() => {
                    let s = self.support(d.body)?;
                    (s.body(&self.scene).is_none() && s.surface_speed == 0.0)
                        .then_some((i, d.body, s))
                }
                _ => None,
            })
    }

    /// Body `k`'s mass, kg, and its weight's component into `support`, N (m g·(−n)).
    fn load(&self, k: usize, support: &Support) -> (f64, f64) {
        let m = self.mass(k);
        (m, m * self.scene.gravity.dot(&-support.normal))
    }

    /// Body `k`'s mass, kg.
    pub fn mass(&self, k: usize) -> f64 {
        self.sim.mass()[self.layout.bodies[k].clone()].iter().sum()
    }

    /// The coefficients between body `k` and `support`.
    pub fn coefficients(&self, k: usize, support: &Support) -> crate::contact::Coefficients {
        self.sim
            .contact()
            .expect("a scene has a contact stage")
            .friction_table()
            .get(k, support.member)
    }

    /// What [`StickSlipCycle::closed_form`] takes for the belt oscillator, if the scene has
    /// one: the block's mass (kg), its weight's component into the belt (N), the coefficients,
    /// the spring's stiffness (N/m) and the belt's speed (m/s).
    pub fn stick_slip_inputs(&self) -> Option<(f64, f64, crate::contact::Coefficients, f64, f64)> {
        let (_, k, s, stiffness) = self.belt_spring()?;
        let (m, n) = self.load(k, &s);
        let mu = self.coefficients(k, &s);
        Some((m, n, mu, stiffness, s.surface_speed.abs()))
    }

    /// The measured and the analytic stick–slip cycle of the belt oscillator, if the scene has
    /// one (SPEC.md §8).
    pub fn stick_slip(&self) -> Option<(Option<MeasuredCycle>, StickSlipCycle)> {
        let (d, k, s, stiffness) = self.belt_spring()?;
        let (m, n, mu, _, v) = self.stick_slip_inputs()?;
        let analytic = StickSlipCycle::closed_form(m, n, mu.mu_static, mu.mu_kinetic, stiffness, v);
        let (on, off) = self.slip_events(k);
        let force = |i: usize| self.rows[i].drivers[d].dot(&s.tangent).abs();
        // Full cycles after the first slip: onset k, re-stick after it, the next onset.
        let mut cycles = Vec::new();
        for w in on.windows(2).skip(1) {
            if let Some(&r) = off.iter().find(|&&r| r > w[0] && r < w[1]) {
                cycles.push((w[0], r, w[1]));
            }
        }
        let measured = (!cycles.is_empty()).then(|| {
            let time = |i: usize| self.rows[i].t;
            let mean = |f: &dyn Fn(&(usize, usize, usize)) -> f64| {
                cycles.iter().map(f).sum::<f64>() / cycles.len() as f64
            };
            MeasuredCycle {
                cycle: StickSlipCycle {
                    f_max_n: mean(&|c| force(c.0)),
                    f_min_n: mean(&|c| force(c.1)),
                    t_stick_s: mean(&|c| time(c.2) - time(c.1)),
                    t_slip_s: mean(&|c| time(c.1) - time(c.0)),
                    period_s: mean(&|c| time(c.2) - time(c.0)),
                },
                cycles: cycles.len(),
            }
        });
        Some((measured, analytic))
    }

    /// The measured and the analytic breakaway of a block pulled by a spring (SPEC.md §8).
    pub fn breakaway(&self) -> Option<(Option<Breakaway>, Breakaway)> {
        let (d, k, s) = self.pulling_spring()?;
        let (_, n) = self.load(k, &s);
        let mu = self.coefficients(k, &s);
        let t = s.tangent;
        let (on, _) = self.slip_events(k);
        let measured = on.first().map(|&i| Breakaway {
            time_s: Some(self.rows[i].t),
            force_n: self.rows[i].drivers[d].dot(&t).abs(),
        });
        // While the block sticks, the spring's force along the support grows at k·(v_anchor·t)
        // from its value at t = 0.
        let rate = self.scene.drivers[d].kind.spring_force_rate(&t);
        let f0 = self.rows[0].drivers[d].dot(&t).abs();
        Some((measured, Breakaway::closed_form(mu.mu_static, n, f0, rate)))
    }

    /// The members of two stacked blocks ([`SceneRunner::stack`]), if the scene has them.
    pub fn stack_members(&self) -> Option<StackMembers> {
        let (lower, ground, force) = self.scene.drivers.iter().find_map(|d| match d.kind {
            DriverKind::Force { force } => {
                let s = self.support(d.body)?;
                s.body(&self.scene).is_none().then_some((d.body, s, force))
            }
            _ => None,
        })?;
        let upper = (0..self.scene.bodies.len()).find(|&k| {
            k != lower
                && self
                    .support(k)
                    .is_some_and(|s| s.body(&self.scene) == Some(lower))
        })?;
        let along = if force.dot(&ground.tangent) < 0.0 {
            -ground.tangent
        } else {
            ground.tangent
        };
        Some(StackMembers {
            lower,
            upper,
            ground,
            along,
            force,
        })
    }

    /// Two stacked blocks, if the scene is that one (SPEC.md §8): a constant-force driver on a
    /// body A resting on an obstacle, and a body B resting on A. Returns the measured and the
    /// closed-form accelerations along the ground (the force's direction). With N₁ = (m₁ + m₂)
    /// g_n on the ground (g_n = g·(−n)) and μ_g its kinetic coefficient: together,
    /// a = (F − μ_g N₁)/(m₁ + m₂), while a ≤ μ_s g_n between the blocks; beyond, the upper
    /// block slips at μ_k g_n and the lower accelerates at (F − μ_k m₂ g_n − μ_g N₁)/m₁. A
    /// force below μ_s,g N₁ moves nothing.
    pub fn stack(&self) -> Option<(StackAccelerations, StackAccelerations)> {
        let StackMembers {
            lower,
            upper,
            ground,
            along,
            force,
        } = self.stack_members()?;
        let f = force.dot(&along);
        let g_n = self.scene.gravity.dot(&-ground.normal);
        let (m1, m2) = (self.mass(lower), self.mass(upper));
        let mu_g = self.coefficients(lower, &ground);
        let mu = self
            .sim
            .contact()
            .expect("a scene has a contact stage")
            .friction_table()
            .get(lower, upper);
        let analytic = StackAccelerations::closed_form(f, g_n, m1, m2, mu_g, mu);
        let half = self.rows.len() / 2;
        let slope = |k: usize| {
            let pts: Vec<(f64, f64)> = self.rows[half..]
                .iter()
                .map(|r| (r.t, Vec2::new(r.bodies[k].vx, r.bodies[k].vy).dot(&along)))
                .collect();
            least_squares_slope(&pts)
        };
        let last = self.rows.last().expect("a runner has the row of t = 0");
        let v = |k: usize| Vec2::new(last.bodies[k].vx, last.bodies[k].vy);
        let measured = StackAccelerations {
            lower_m_per_s2: slope(lower),
            upper_m_per_s2: slope(upper),
            upper_slips: (v(upper) - v(lower)).norm()
                > SLIP_SPEED_OVER_EPS_V * self.scene.settings.eps_v,
        };
        Some((measured, analytic))
    }

    /// A lone box on an incline, if the scene is one (one body, no driver, at rest at t = 0,
    /// resting at the end on a fixed obstacle with gravity pressing it on): what it did and
    /// the closed form ([`slide_or_tip`]). Its width and height are its nodes' extents along
    /// and across the support at t = 0 (a box or square placed flat on it).
    pub fn slide_or_tip(&self) -> Option<(SlideOrTip, SlideOrTipAnalytic)> {
        let sc = &self.scene;
        if sc.bodies.len() != 1 || !sc.drivers.is_empty() || sc.bodies[0].velocity != Vec2::zeros()
        {
            return None;
        }
        let s = self.support(0)?;
        if s.body(sc).is_some() || s.surface_speed != 0.0 {
            return None;
        }
        let into = sc.gravity.dot(&-s.normal);
        if into <= 0.0 {
            return None;
        }
        let x0 = &sc.bodies[0].mesh.x0;
        let (width, height) = (
            slide_or_tip::extent(x0, &s.tangent),
            slide_or_tip::extent(x0, &s.normal),
        );
        let mu = self.coefficients(0, &s);
        let tan_theta = sc.gravity.dot(&s.tangent).abs() / into;
        let analytic = SlideOrTipAnalytic::new(tan_theta, mu, width, height);
        let max_rotation_deg = self
            .rows
            .iter()
            .map(|r| r.bodies[0].rotation.abs())
            .fold(0.0, f64::max)
            .to_degrees();
        let (first, last) = (self.rows.first()?, self.rows.last()?);
        let displacement_m = Vec2::new(
            last.bodies[0].x - first.bodies[0].x,
            last.bodies[0].y - first.bodies[0].y,
        )
        .dot(&s.tangent);
        let measured = SlideOrTip {
            outcome: slide_or_tip::Outcome::measured(max_rotation_deg, displacement_m, width),
            max_rotation_deg,
            displacement_m,
        };
        Some((measured, analytic))
    }

    /// The run's summary.
    pub fn summary(&self) -> SceneSummary {
        let sc = &self.scene;
        let last = self.rows.last().expect("a runner has the row of t = 0");
        let bodies = sc
            .bodies
            .iter()
            .enumerate()
            .map(|(k, b)| {
                let support = self.support(k);
                BodySummary {
                    name: b.name.clone(),
                    nodes: b.mesh.len(),
                    mass_kg: self.mass(k),
                    support: support
                        .as_ref()
                        .map(|s| sc.member_name(s.member).to_string()),
                    verdict: self.body_verdict(k, support.as_ref()),
                }
            })
            .collect();
        let names: Vec<&str> = sc.bodies.iter().map(|b| b.name.as_str()).collect();
        let drivers = DriverSummary::all(&sc.drivers, &names, &last.drivers);
        let (cycle, cycle_analytic) = match self.stick_slip() {
            Some((m, a)) => (m, Some(a)),
            None => (None, None),
        };
        let (breakaway, breakaway_analytic) = match self.breakaway() {
            Some((m, a)) => (m, Some(a)),
            None => (None, None),
        };
        let (stack, stack_analytic) = match self.stack() {
            Some((m, a)) => (Some(m), Some(a)),
            None => (None, None),
        };
        let (slide_or_tip, slide_or_tip_analytic) = match self.slide_or_tip() {
            Some((m, a)) => (Some(m), Some(a)),
            None => (None, None),
        };
        SceneSummary {
            case: sc.name.clone(),
            source: sc.source.as_ref().map(|p| p.display().to_string()),
            overrides: sc.overrides.clone(),
            h: sc.settings.h,
            duration: self.sim.time(),
            exact_stick: ExactStick::of(sc.settings.stick),
            physicality: self.physicality(),
            bodies,
            drivers,
            verdict_rule: format!(
                "per body, relative to what it rests on at the end (the body or obstacle pressing on it hardest, else the nearest half-space; a body's motion or a belt's surface velocity taken off), over the trailing {} s window: airborne if nothing is within d_hat of it at any sample; tumbling if its left edge turned more than {:.0} degrees; stopped if its displacement along the surface is under {} m and its mean angular speed about its centroid under {} rad/s; spinning if only the first holds; sliding if its mean speed along it exceeds {} m/s; else moving",
                verdict::WINDOW_S,
                verdict::TUMBLING_ANGLE_RAD.to_degrees(),
                verdict::STOPPED_DISPLACEMENT_M,
                verdict::STOPPED_ANGULAR_SPEED_RAD_PER_S,
                verdict::SLIDING_SPEED_M_PER_S
            ) + &if sc.settings.stick.is_exact() {
                verdict::exact_stick_rule()
            } else {
                String::new()
            },
            stick_slip_cycle: cycle,
            stick_slip_cycle_analytic: cycle_analytic,
            breakaway,
            breakaway_analytic,
            stack,
            stack_analytic,
            slide_or_tip,
            slide_or_tip_analytic,
            solver: self.totals,
            cross_check: self.check.as_ref().map(PostPass::report),
            post_pass_seconds: self.check.as_ref().map_or(0.0, PostPass::seconds),
            wall_seconds: self.started.elapsed().as_secs_f64(),
        }
    }
}

/// The least-squares slope of y against x over `points` (0 for fewer than two distinct x).
pub(crate) fn least_squares_slope(points: &[(f64, f64)]) -> f64 {
    let n = points.len() as f64;
    if points.len() < 2 {
        return 0.0;
    }
    let mx = points.iter().map(|p| p.0).sum::<f64>() / n;
    let my = points.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = points.iter().map(|p| (p.0 - mx) * (p.0 - mx)).sum();
    let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    if sxx > 0.0 { sxy / sxx } else { 0.0 }
}

/// The columns of a scene's `trajectory.csv`, with units: `t_s`, per body `NAME.x_m`,
/// `NAME.y_m` (mass-weighted centroid), `NAME.vx_m_per_s`, `NAME.vy_m_per_s`,
/// `NAME.rotation_rad`, `NAME.min_distance_m` (to the nearest obstacle), `NAME.slip_m_per_s`
/// (its contacts' mean tangential speed relative to the surface they touch), per driver
/// `NAME.fx_N`, `NAME.fy_N` (its force on its body), then `newton_iterations` and
/// `final_residual_m_per_s`.
pub fn trajectory_header(scene: &MultibodyScene) -> Vec<String> {
    let mut h = vec!["t_s".to_string()];
    for b in &scene.bodies {
        for c in [
            "x_m",
            "y_m",
            "vx_m_per_s",
            "vy_m_per_s",
            "rotation_rad",
            "min_distance_m",
            "slip_m_per_s",
        ] {
            h.push(format!("{}.{c}", b.name));
        }
    }
    for d in &scene.drivers {
        for c in ["fx_N", "fy_N"] {
            h.push(format!("{}.{c}", d.name));
        }
    }
    h.push("newton_iterations".into());
    h.push("final_residual_m_per_s".into());
    h
}

/// The values of `row` in [`trajectory_header`]'s order.
pub fn trajectory_values(row: &SceneRow) -> Vec<f64> {
    let mut v = vec![row.t];
    for b in &row.bodies {
        v.extend([b.x, b.y, b.vx, b.vy, b.rotation, b.min_distance, b.slip]);
    }
    for f in &row.drivers {
        v.extend([f.x, f.y]);
    }
    v.push(row.newton_iterations as f64);
    v.push(row.final_residual);
    v
}
