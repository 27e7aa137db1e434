//! A 3D scene's run (`kind = "scene"`, `dimension = 3`, SPEC.md §7–8): steps its system, keeps
//! one row per step with every body's centroid, velocity and angular velocity (from the nodes),
//! its tilt, and on an incline its downhill distance and speed; gives each body's support and
//! verdict. The experiments read off a run (the incline, slide-or-tip, the puck, the stacks,
//! breakaway) and `summary.json` are `crate::analysis`'s.

use std::borrow::Cow;
use std::ops::Range;
use std::time::Instant;

use super::{ContactRow, SceneRunError, push_contact_rows, support};
use crate::contact::{ContactPoint, PairDistance};
use crate::cross_check::CrossCheck;
use crate::cross_check::post_pass::PostPass;
use crate::energy::Vec3;
use crate::run::physical::{BodyWatch, Physicality};
use crate::run::runner::RECORD_CHUNK_STEPS;
use crate::run::runner::SolverTotals;
use crate::run::verdict::{self, Verdict};
use crate::scene::body::{Body, BodyHandle};
use crate::scene::multibody::drivers::DriverForce;
use crate::scene::multibody::solid::SolidScene;
use crate::solver::Simulation;

/// One body's state in a trajectory row.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SolidBodyState {
    /// Mass-weighted centroid, m.
    pub centre: Vec3,
    /// Mass-weighted velocity, m/s.
    pub velocity: Vec3,
    /// Angular velocity about the centroid, rad/s: ω solving I ω = Σ mᵢ rᵢ × vᵢ (rᵢ, vᵢ
    /// relative to the centroid's).
    pub angular_velocity: Vec3,
    /// The angle its local z axis (two nodes on it) has turned since t = 0, rad, in [0, π].
    pub tilt: f64,
    /// Smallest distance of its nodes to a half-space, m.
    pub min_distance: f64,
    /// Its contacts' tangential speed over its support's surface, m/s, weighted by normal
    /// force (0 without contact).
    pub slip: f64,
    /// Downhill distance of the centroid since t = 0 along its incline's fall line, m (on an
    /// incline).
    pub downhill: Option<f64>,
    /// Downhill speed, m/s (on an incline).
    pub downhill_speed: Option<f64>,
}

/// One row of a 3D scene's `trajectory.csv`.
#[derive(Clone, Debug, PartialEq)]
pub struct SolidRow {
    /// Time, s.
    pub t: f64,
    /// Every body, in the scene's order.
    pub bodies: Vec<SolidBodyState>,
    /// Every driver's force on its body, N, in the scene's order.
    pub drivers: Vec<Vec3>,
    /// Newton iterations of the step that ended here.
    pub newton_iterations: usize,
    /// Final ‖p‖∞/h of that step, m/s.
    pub final_residual: f64,
}

/// How body `k` sits on its support at t = 0: the half-space or flat triangle mesh nearest it
/// ([`SolidScene::nearest_support`]).
#[derive(Clone, Copy, Debug)]
pub struct Footing {
    /// The support's number in the friction table's order (bodies, half-spaces, meshes).
    pub member: usize,
    /// Its index among the half-spaces, when it is one: the closed forms (the incline's, the
    /// slide-or-tip rule's, the puck's) are written for a half-space, its velocity included.
    pub half_space: Option<usize>,
    /// Unit downhill direction along it (gravity's tangential part), if it is inclined.
    pub fall_line: Option<Vec3>,
}

/// A 3D scene being run.
pub struct SolidRunner {
    /// The validated scene.
    pub scene: SolidScene,
    /// Every body's nodes in the state vector.
    pub bodies: Vec<Range<usize>>,
    /// The simulation.
    pub sim: Simulation<3>,
    /// How every driver's force on its body is found, in the scene's order.
    drivers: Vec<DriverForce<3>>,
    /// One row per step, and t = 0.
    pub rows: Vec<SolidRow>,
    /// Totals so far.
    pub totals: SolverTotals,
    steps: usize,
    /// How every body sits on its support at t = 0.
    pub footing: Vec<Option<Footing>>,
    axis0: Vec<Vec3>,
    centre0: Vec<Vec3>,
    /// When the runner was made (the summary's wall time).
    pub(crate) started: Instant,
    contacts: Vec<ContactPoint<3>>,
    pairs: Vec<PairDistance<3>>,
    /// The impulse-law cross-check of every contact, if on ([`SolidRunner::set_cross_check`]).
    pub(crate) check: Option<PostPass<3>>,
    /// Every step's contact pairs within d̂ once [`SolidRunner::record_contacts`] was called.
    pub contact_rows: Vec<ContactRow<3>>,
    recording: bool,
    /// What every body did, for [`SolidRunner::physicality`].
    watch: Vec<BodyWatch>,
}

impl SolidRunner {
    /// A runner at t = 0 for `duration` s (the case's when `None`).
    pub fn new(scene: SolidScene, duration: Option<f64>) -> Result<SolidRunner, SceneRunError> {
        let steps = scene.steps_for(duration.unwrap_or(scene.settings.duration));
        let (system, bodies, drivers) = scene.system_and_drivers();
        let sim = Simulation::new(system).map_err(|source| SceneRunError::Setup {
            case: scene.name.clone(),
            source,
        })?;
        let g = scene.gravity;
        let footing = bodies
            .iter()
            .enumerate()
            .map(|(k, r)| {
                let support =
                    scene.nearest_support(&BodyHandle::new(&scene.bodies[k], r).positions(&sim))?;
                let n = support.normal;
                let along = g - n * g.dot(&n);
                let fall_line = (along.norm() > 1e-9 * g.norm()).then(|| along.normalize());
                Some(Footing {
                    member: support.member,
                    half_space: support.half_space,
                    fall_line,
                })
            })
            .collect();
        let axis0 = scene
            .bodies
            .iter()
            .zip(&bodies)
            .map(|(b, r)| {
                let x = BodyHandle::new(b, r).positions(&sim);
                x[b.axis[1]] - x[b.axis[0]]
            })
            .collect();
        let mut runner = SolidRunner {
            totals: SolverTotals {
                min_distance: f64::INFINITY,
                max_energy_increase: f64::NEG_INFINITY,
                symbolic_factorisations: sim.symbolic_factorisations(),
                ..Default::default()
            },
            centre0: Vec::new(),
            scene,
            bodies,
            sim,
            drivers,
            rows: Vec::with_capacity(steps + 1),
            steps,
            footing,
            axis0,
            started: Instant::now(),
            contacts: Vec::new(),
            pairs: Vec::new(),
            check: None,
            contact_rows: Vec::new(),
            recording: false,
            watch: Vec::new(),
        };
        runner.centre0 = (0..runner.bodies.len())
            .map(|k| runner.body(k).centre_velocity(&runner.sim).0)
            .collect();
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
                w.observe(0.0, 0, b.min_distance, b.angular_velocity.norm());
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
        let inverted: Vec<usize> = (0..self.bodies.len())
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
        for ((w, b), &n) in self.watch.iter_mut().zip(&row.bodies).zip(&inverted) {
            w.observe(row.t, n, b.min_distance, b.angular_velocity.norm());
            self.totals.min_distance = self.totals.min_distance.min(b.min_distance);
        }
        self.rows.push(row);
        Ok(())
    }

    /// From now on (this state included), every step's contact pairs within d̂ are kept in
    /// [`SolidRunner::contact_rows`] (`contacts.csv`).
    pub fn record_contacts(&mut self) {
        if self.recording {
            return;
        }
        self.recording = true;
        let mut pairs = std::mem::take(&mut self.pairs);
        if let Some(c) = self.sim.contact() {
            c.distances(&self.sim.x, &mut pairs);
        }
        self.push_rows(&pairs);
        self.pairs = pairs;
    }

    /// Appends `pairs` within d̂ to [`SolidRunner::contact_rows`] at the current state.
    fn push_rows(&mut self, pairs: &[PairDistance<3>]) {
        push_contact_rows(
            self.sim.time(),
            self.scene.settings.barrier.dhat,
            pairs,
            &self.sim.v,
            &mut self.contact_rows,
        );
    }

    /// Runs the impulse-law cross-check (SPEC.md §4) over every contact record of every step
    /// from now on: each node against a half-space in friction's set, and each pair between
    /// bodies or with a triangle mesh at its closest points' relative velocity
    /// ([`crate::cross_check::records::Recorder::push_step_records`]).
    pub fn set_cross_check(&mut self, check: CrossCheck) {
        self.check = Some(PostPass::new(check));
    }

    /// Hands the records held so far to the cross-check (at the end of a run, before
    /// [`SolidRunner::summary`]).
    pub fn flush_records(&mut self) -> Result<(), SceneRunError> {
        let Some(check) = self.check.as_mut() else {
            return Ok(());
        };
        check.flush().map_err(|source| SceneRunError::CrossCheck {
            case: self.scene.name.clone(),
            source,
        })
    }

    /// Body `k`'s mesh nodes now, m: its nodes of the state vector, or an affine body's mesh
    /// placed by its control nodes (`scene::bodies::affine`).
    pub fn body_positions(&self, k: usize) -> Cow<'_, [Vec3]> {
        self.body(k).positions(&self.sim)
    }

    /// Every body's mesh nodes, then every triangle mesh's vertices, now, m: the numbering of
    /// the scene's boundary surface (`solid_boundary`), which is the state vector's unless a
    /// body is affine.
    pub fn mesh_positions(&self) -> Cow<'_, [Vec3]> {
        if self.scene.bodies.iter().all(|b| b.model.affine().is_none()) {
            return Cow::Borrowed(&self.sim.x);
        }
        let mut all = Vec::new();
        for k in 0..self.bodies.len() {
            all.extend_from_slice(&self.body_positions(k));
        }
        let after = self.bodies.last().map_or(0, |r| r.end);
        all.extend_from_slice(&self.sim.x[after..]);
        Cow::Owned(all)
    }

    /// Body `k` and its nodes in the state vector.
    pub fn body(&self, k: usize) -> BodyHandle<'_, 3> {
        BodyHandle::new(&self.scene.bodies[k], &self.bodies[k])
    }

    fn row(&mut self, newton_iterations: usize, final_residual: f64) -> SolidRow {
        let mut contacts = std::mem::take(&mut self.contacts);
        let mut pairs = std::mem::take(&mut self.pairs);
        self.sim.contacts(&mut contacts);
        match self.sim.contact() {
            Some(c) => c.distances(&self.sim.x, &mut pairs),
            None => pairs.clear(),
        }
        let members = self.scene.members();
        let sim = &self.sim;
        let bodies = (0..self.bodies.len())
            .map(|k| {
                let body = self.body(k);
                let (c, v) = body.centre_velocity(sim);
                let angular_velocity = body.angular_velocity(sim, c, v);
                let b = &self.scene.bodies[k];
                let placed = body.positions(sim);
                let axis = placed[b.axis[1]] - placed[b.axis[0]];
                let cos = axis.dot(&self.axis0[k]) / (axis.norm() * self.axis0[k].norm());
                let tilt = cos.clamp(-1.0, 1.0).acos();
                let to_half_spaces = self
                    .scene
                    .obstacles
                    .iter()
                    .flat_map(|(_, h)| placed.iter().map(move |x| h.distance(x)))
                    .fold(f64::INFINITY, f64::min);
                let min_distance = pairs
                    .iter()
                    .filter(|p| p.bodies.0 == k || p.bodies.1 == k)
                    .map(|p| p.distance)
                    .fold(to_half_spaces, f64::min);
                let footing = self.footing[k];
                // Slip over what presses on it hardest in this state (else its half-space).
                let support = support::pressing(&pairs, k, members)
                    .map(|(m, _)| m)
                    .or(footing.map(|f| f.member));
                let (mut weighted, mut total) = (0.0, 0.0);
                for p in contacts.iter().filter(|p| {
                    let other = support.unwrap_or(usize::MAX);
                    p.bodies == (k, other) || p.bodies == (other, k)
                }) {
                    weighted += p.normal_force * p.slip.norm();
                    total += p.normal_force;
                }
                let slip = if total > 0.0 { weighted / total } else { 0.0 };
                let fall = footing.and_then(|f| f.fall_line);
                let c0 = self.centre0.get(k).copied().unwrap_or(c);
                SolidBodyState {
                    centre: c,
                    velocity: v,
                    angular_velocity,
                    tilt,
                    min_distance,
                    slip,
                    downhill: fall.map(|d| (c - c0).dot(&d)),
                    downhill_speed: fall.map(|d| v.dot(&d)),
                }
            })
            .collect();
        if self.recording {
            self.push_rows(&pairs);
        }
        self.contacts = contacts;
        self.pairs = pairs;
        SolidRow {
            t: self.sim.time(),
            bodies,
            drivers: self.drivers.iter().map(|d| d.on_body(&self.sim)).collect(),
            newton_iterations,
            final_residual,
        }
    }

    /// Whether the run so far is physical: every body's inversions and penetrations, and its
    /// spins past [`crate::run::physical::SPIN_PER_STEP_BOUND_RAD`] a step.
    pub fn physicality(&self) -> Physicality {
        let names: Vec<&str> = self.scene.bodies.iter().map(|b| b.name.as_str()).collect();
        let elements: Vec<usize> = self.scene.bodies.iter().map(Body::elements).collect();
        Physicality::of(&names, &elements, &self.watch, self.scene.settings.h)
    }

    /// What body `k` rests on at the end, as the friction table numbers it (bodies, then
    /// obstacles), with the unit normal of the contact (towards `k`): the body or half-space
    /// pressing on it hardest, else the nearest half-space.
    pub fn support(&self, k: usize) -> Option<(usize, Vec3)> {
        let mut pairs = Vec::new();
        if let Some(c) = self.sim.contact() {
            c.distances(&self.sim.x, &mut pairs);
        }
        let members = self.scene.members();
        if let Some((m, normal)) = support::pressing(&pairs, k, members) {
            return Some((m, normal.normalize()));
        }
        self.scene
            .nearest_support(&self.body_positions(k))
            .map(|s| (s.member, s.normal))
    }

    /// Body `k`'s verdict relative to `support` (a member and the contact's normal, SPEC.md
    /// §2's window): its displacement over the support's surface (a body support's own
    /// displacement, a belt's surface velocity taken off) along the fall line on an incline,
    /// else along its last window's motion; its tilt for the tumbling rule.
    pub fn body_verdict(&self, k: usize, support: Option<(usize, Vec3)>) -> Verdict {
        let times: Vec<f64> = self.rows.iter().map(|r| r.t).collect();
        let tilt: Vec<f64> = self.rows.iter().map(|r| r.bodies[k].tilt).collect();
        let spin: Vec<f64> = self
            .rows
            .iter()
            .map(|r| r.bodies[k].angular_velocity.norm())
            .collect();
        let dhat = self.scene.settings.barrier.dhat;
        let in_contact: Vec<bool> = self
            .rows
            .iter()
            .map(|r| r.bodies[k].min_distance < dhat)
            .collect();
        let n = self.scene.bodies.len();
        let mut relative: Vec<f64> = match support {
            Some((m, normal)) => {
                let first = self.rows[0].bodies[k].centre;
                // A belt's surface velocity; a body's motion is taken off below; a triangle
                // mesh is fixed.
                let surface = match m.checked_sub(n) {
                    Some(o) if o < self.scene.obstacles.len() => self.scene.obstacles[o].1.velocity,
                    _ => Vec3::zeros(),
                };
                let over: Vec<Vec3> = self
                    .rows
                    .iter()
                    .map(|r| {
                        let mut moved = r.bodies[k].centre - first;
                        if m < n {
                            moved -= r.bodies[m].centre - self.rows[0].bodies[m].centre;
                        }
                        moved - normal * moved.dot(&normal) - surface * r.t
                    })
                    .collect();
                let g = self.scene.gravity;
                let along = g - normal * g.dot(&normal);
                let w = verdict::window_steps(self.scene.settings.h).min(over.len() - 1);
                let last = over.len() - 1;
                let direction = if along.norm() > 1e-9 * g.norm() {
                    along.normalize()
                } else {
                    (over[last] - over[last - w])
                        .try_normalize(0.0)
                        .unwrap_or(Vec3::zeros())
                };
                over.iter().map(|m| m.dot(&direction)).collect()
            }
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
                rotation: &tilt,
                in_contact: &in_contact,
                angular_speed: Some(&spin),
                exact_stick_radius: self
                    .scene
                    .settings
                    .stick
                    .is_exact()
                    .then(|| verdict::radius(self.body(k).of(&self.sim.x))),
            },
            self.scene.settings.h,
        )
    }

    /// Whether the scene has drivers: the closed forms (the incline's, the slide-or-tip rule's,
    /// the puck's, the stack's) are written for bodies under gravity alone, and give no answer
    /// then.
    pub fn driven(&self) -> bool {
        !self.scene.drivers.is_empty()
    }

    /// Body `k`'s mass, kg.
    pub fn body_mass(&self, k: usize) -> f64 {
        self.body(k).mass(&self.sim)
    }

    /// The half-space body `k` rests on at t = 0, if it is one without surface velocity, as
    /// (its member number, its unit normal).
    pub fn fixed_half_space(&self, k: usize) -> Option<(usize, Vec3)> {
        let footing = self.footing[k]?;
        let h = &self.scene.obstacles[footing.half_space?].1;
        (h.velocity.norm() == 0.0).then_some((footing.member, h.normal))
    }
}

/// The columns of a 3D scene's `trajectory.csv` (docs/scenes.md): `t_s`; per body `NAME.x_m`,
/// `NAME.y_m`, `NAME.z_m` (mass-weighted centroid), `NAME.vx_m_per_s`, `NAME.vy_m_per_s`,
/// `NAME.vz_m_per_s`, `NAME.wx_rad_per_s`, `NAME.wy_rad_per_s`, `NAME.wz_rad_per_s` (angular
/// velocity), `NAME.tilt_rad`, `NAME.min_distance_m`, `NAME.slip_m_per_s`, and on an incline
/// `NAME.downhill_m`, `NAME.downhill_speed_m_per_s`; per driver `NAME.fx_N`, `NAME.fy_N`,
/// `NAME.fz_N` (its force on its body); then `newton_iterations`, `final_residual_m_per_s`.
pub fn solid_trajectory_header(runner: &SolidRunner) -> Vec<String> {
    let mut h = vec!["t_s".to_string()];
    for (k, b) in runner.scene.bodies.iter().enumerate() {
        let mut columns = vec![
            "x_m",
            "y_m",
            "z_m",
            "vx_m_per_s",
            "vy_m_per_s",
            "vz_m_per_s",
            "wx_rad_per_s",
            "wy_rad_per_s",
            "wz_rad_per_s",
            "tilt_rad",
            "min_distance_m",
            "slip_m_per_s",
        ];
        if runner.footing[k].and_then(|f| f.fall_line).is_some() {
            columns.extend(["downhill_m", "downhill_speed_m_per_s"]);
        }
        h.extend(columns.iter().map(|c| format!("{}.{c}", b.name)));
    }
    for d in &runner.scene.drivers {
        h.extend(["fx_N", "fy_N", "fz_N"].map(|c| format!("{}.{c}", d.name)));
    }
    h.push("newton_iterations".into());
    h.push("final_residual_m_per_s".into());
    h
}

/// The values of `row` in [`solid_trajectory_header`]'s order.
pub fn solid_trajectory_values(row: &SolidRow) -> Vec<f64> {
    let mut v = vec![row.t];
    for b in &row.bodies {
        v.extend(b.centre.iter());
        v.extend(b.velocity.iter());
        v.extend(b.angular_velocity.iter());
        v.extend([b.tilt, b.min_distance, b.slip]);
        if let (Some(d), Some(s)) = (b.downhill, b.downhill_speed) {
            v.extend([d, s]);
        }
    }
    for f in &row.drivers {
        v.extend(f.iter());
    }
    v.push(row.newton_iterations as f64);
    v.push(row.final_residual);
    v
}
