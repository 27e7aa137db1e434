//! A 3D scene's run (`kind = "scene"`, `dimension = 3`, SPEC.md §7–8): steps its system, keeps
//! one row per step with every body's centroid, velocity and angular velocity (from the nodes),
//! its tilt, and on an incline its downhill distance and speed; gives each body's verdict
//! relative to its support, and where the scene is one of SPEC.md §6/§8's the measured answer
//! beside the closed form: a body on an incline (its acceleration, or its creep when friction
//! holds it) and a cylinder sliding and spinning on a level plane (when each motion stops, and
//! v/(Rω) at the end).

use std::borrow::Cow;
use std::ops::Range;
use std::time::Instant;

use nalgebra::Matrix3;
use serde::Serialize;

use super::slide_or_tip::{self, Outcome, SlideOrTip, SlideOrTipAnalytic};
use super::{ContactRow, SceneRunError, least_squares_slope, push_contact_rows, support};
use crate::contact::{ContactPoint, PairDistance};
use crate::cross_check::CrossCheck;
use crate::cross_check::post_pass::PostPass;
use crate::energy::Vec3;
use crate::run::physical::{BodyWatch, Physicality};
use crate::run::runner::RECORD_CHUNK_STEPS;
use crate::run::runner::SolverTotals;
use crate::run::verdict::{self, Verdict};
use crate::scene::multibody::drivers::DriverForce;
use crate::scene::multibody::solid::SolidScene;
use crate::scene::multibody::solid_body::{SolidBodySpec, SolidShape};
use crate::solver::Simulation;

/// A body has stopped translating (spinning) once its centroid's speed over the surface (its
/// spin rate about the surface normal) stays below this fraction of its initial value to the
/// end of the run. Near the end both decay at a finite rate (≈ μg for a slide), so the time
/// from the threshold to rest is this fraction of the stop time or less: 0.1 %, well inside
/// the 3 % the closed forms are checked to.
pub const STOP_FRACTION: f64 = 1e-3;

/// v/(Rω) of a sliding, spinning disk is read when v + Rω has fallen to this fraction of its
/// initial value: late, since the ratio still falls towards its limit until the very end
/// (SPEC.md §8; docs/scenes.md tabulates ε(t)), but with v and Rω tens of ε_v (4 mm/s and
/// 6 mm/s for the shipped puck: 40 and 60 ε_v), above the smoothing and the ringing of the
/// body's centroid velocity after the stop (0.15 mm/s).
pub const RATIO_AT_FRACTION: f64 = 0.005;

/// The ratio ε* = v/(Rω) a sliding, spinning disk of uniform pressure tends to as both motions
/// stop (SPEC.md §8: Farkas, Bartels, Unger & Wolf 2003).
pub const SPIN_SLIDE_RATIO: f64 = 0.653;

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

/// A body on an incline, measured (over the run's second half) or in closed form (SPEC.md §6).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Incline {
    /// The body.
    pub body: usize,
    /// The incline's angle to the plane normal to gravity, degrees.
    pub angle_deg: f64,
    /// Downhill acceleration, m/s²: the least-squares slope of the downhill speed over the
    /// run's second half; analytic g(sin θ − μ_k cos θ) where μ_k < tan θ (none where friction
    /// holds).
    pub acceleration_m_per_s2: Option<f64>,
    /// Mean downhill speed over the run's second half, m/s; analytic the creep
    /// v* = ε_v (1 − √(1 − tan θ/μ_s)) where μ_s > tan θ (SPEC.md §6; none where it slides).
    pub creep_speed_m_per_s: Option<f64>,
}

/// A cylinder sliding and spinning on a level plane (SPEC.md §8), measured or in closed form.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SlideSpin {
    /// The body.
    pub body: usize,
    /// When the centroid's speed over the plane stops ([`STOP_FRACTION`]), s; analytic v₀/(μ g)
    /// for a pure slide.
    pub slide_stop_s: Option<f64>,
    /// When the spin about the plane's normal stops, s; analytic 3 R ω₀/(4 μ g) for a pure spin.
    pub spin_stop_s: Option<f64>,
    /// v/(R ω) when v + R ω has fallen to [`RATIO_AT_FRACTION`] of its start (both launched);
    /// analytic [`SPIN_SLIDE_RATIO`].
    pub ratio: Option<f64>,
    /// The launch's v₀/(R ω₀) (both launched; the same in the measured and the analytic).
    pub launch_ratio: Option<f64>,
}

/// How body `k` sits on its support at t = 0: the half-space or flat triangle mesh nearest it
/// ([`SolidScene::nearest_support`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct Footing {
    /// The support's number in the friction table's order (bodies, half-spaces, meshes).
    pub(super) member: usize,
    /// Its index among the half-spaces, when it is one: the closed forms (the incline's, the
    /// slide-or-tip rule's, the puck's) are written for a half-space, its velocity included.
    pub(super) half_space: Option<usize>,
    /// Unit downhill direction along it (gravity's tangential part), if it is inclined.
    pub(super) fall_line: Option<Vec3>,
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
    pub(super) footing: Vec<Option<Footing>>,
    axis0: Vec<Vec3>,
    centre0: Vec<Vec3>,
    pub(super) started: Instant,
    contacts: Vec<ContactPoint<3>>,
    pairs: Vec<PairDistance<3>>,
    /// The impulse-law cross-check of every contact, if on ([`SolidRunner::set_cross_check`]).
    pub(super) check: Option<PostPass<3>>,
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
                    scene.nearest_support(&body_positions(&scene.bodies[k], &sim.x[r.clone()]))?;
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
                let x = body_positions(b, &sim.x[r.clone()]);
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
        runner.centre0 = runner
            .bodies
            .iter()
            .map(|r| runner.centre_velocity(r).0)
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
        let inverted: Vec<usize> = self
            .scene
            .bodies
            .iter()
            .zip(&self.bodies)
            .map(|(b, r)| match &b.affine {
                // Every tetrahedron shares the control tetrahedron's one map.
                Some(a) => usize::from(a.inverted(&self.sim.x[r.clone()])) * b.mesh.tets.len(),
                None => b.mesh.inverted_tets(&self.sim.x[r.clone()]),
            })
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
        body_positions(&self.scene.bodies[k], &self.sim.x[self.bodies[k].clone()])
    }

    /// Every body's mesh nodes, then every triangle mesh's vertices, now, m: the numbering of
    /// the scene's boundary surface (`solid_boundary`), which is the state vector's unless a
    /// body is affine.
    pub fn mesh_positions(&self) -> Cow<'_, [Vec3]> {
        if self.scene.bodies.iter().all(|b| b.affine.is_none()) {
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

    /// The mass-weighted centroid and velocity of the nodes `r`.
    fn centre_velocity(&self, r: &Range<usize>) -> (Vec3, Vec3) {
        let mass = self.sim.mass();
        let m: f64 = mass[r.clone()].iter().sum();
        let c = r.clone().map(|i| self.sim.x[i] * mass[i]).sum::<Vec3>() / m;
        let v = r.clone().map(|i| self.sim.v[i] * mass[i]).sum::<Vec3>() / m;
        (c, v)
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
        let mass = sim.mass();
        let bodies = self
            .bodies
            .iter()
            .enumerate()
            .map(|(k, r)| {
                let (c, v) = self.centre_velocity(r);
                let mut inertia = Matrix3::zeros();
                let mut momentum = Vec3::zeros();
                for i in r.clone() {
                    let (ri, vi) = (sim.x[i] - c, sim.v[i] - v);
                    inertia +=
                        (Matrix3::identity() * ri.norm_squared() - ri * ri.transpose()) * mass[i];
                    momentum += ri.cross(&vi) * mass[i];
                }
                let angular_velocity = inertia
                    .cholesky()
                    .map_or(Vec3::zeros(), |l| l.solve(&momentum));
                let b = &self.scene.bodies[k];
                let placed = self.body_positions(k);
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
        let elements: Vec<usize> = self
            .scene
            .bodies
            .iter()
            .map(|b| b.mesh.tets.len())
            .collect();
        Physicality::of(&names, &elements, &self.watch, self.scene.settings.h)
    }

    /// What body `k` rests on at the end, as the friction table numbers it (bodies, then
    /// obstacles), with the unit normal of the contact (towards `k`): the body or half-space
    /// pressing on it hardest, else the nearest half-space.
    pub(super) fn support(&self, k: usize) -> Option<(usize, Vec3)> {
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
    pub(super) fn body_verdict(&self, k: usize, support: Option<(usize, Vec3)>) -> Verdict {
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
                    .then(|| verdict::radius(&self.sim.x[self.bodies[k].clone()])),
            },
            self.scene.settings.h,
        )
    }

    /// The second half of the run's rows.
    fn second_half(&self) -> &[SolidRow] {
        &self.rows[self.rows.len() / 2..]
    }

    /// A lone body on an inclined half-space, launched (if at all) along the fall line without
    /// spin: measured and SPEC.md §6's.
    pub fn incline(&self) -> Option<(Incline, Incline)> {
        if self.driven() {
            return None;
        }
        if self.scene.bodies.len() != 1 {
            return None;
        }
        let b = &self.scene.bodies[0];
        let footing = self.footing[0]?;
        let fall = footing.fall_line?;
        let across = b.velocity - fall * b.velocity.dot(&fall);
        if across.norm() > 1e-12 || b.angular_velocity.norm() > 0.0 {
            return None;
        }
        let h = &self.scene.obstacles[footing.half_space?].1;
        if h.velocity.norm() > 0.0 {
            return None;
        }
        let g = self.scene.gravity.norm();
        let theta = (-self.scene.gravity.dot(&h.normal) / g)
            .clamp(-1.0, 1.0)
            .acos();
        let mu = self.scene.coefficients(0, footing.member);
        let tan = theta.tan();
        let slides = mu.mu_kinetic < tan;
        let half = self.second_half();
        let (first, last) = (half.first()?, half.last()?);
        let points: Vec<(f64, f64)> = half
            .iter()
            .map(|r| (r.t, r.bodies[0].downhill_speed.unwrap_or(0.0)))
            .collect();
        let mean_speed = (last.bodies[0].downhill.unwrap_or(0.0)
            - first.bodies[0].downhill.unwrap_or(0.0))
            / (last.t - first.t).max(f64::MIN_POSITIVE);
        let angle_deg = theta.to_degrees();
        let measured = Incline {
            body: 0,
            angle_deg,
            acceleration_m_per_s2: Some(least_squares_slope(&points)),
            creep_speed_m_per_s: Some(mean_speed),
        };
        let analytic = Incline {
            body: 0,
            angle_deg,
            acceleration_m_per_s2: slides.then(|| g * (theta.sin() - mu.mu_kinetic * theta.cos())),
            creep_speed_m_per_s: (mu.mu_static > tan)
                .then(|| self.scene.settings.eps_v * (1.0 - (1.0 - tan / mu.mu_static).sqrt())),
        };
        Some((measured, analytic))
    }

    /// A lone box started at rest on an inclined half-space (not a belt): does it stay, slide or
    /// tip (SPEC.md §8, [`slide_or_tip`])? Its width is its nodes' extent along the fall line at
    /// t = 0 and its height their extent along the half-space's normal (the box lies on a face),
    /// its rotation the tilt of its local z axis, its displacement the downhill distance at the
    /// end.
    pub fn slide_or_tip(&self) -> Option<(SlideOrTip, SlideOrTipAnalytic)> {
        if self.driven() {
            return None;
        }
        let sc = &self.scene;
        if sc.bodies.len() != 1 {
            return None;
        }
        let b = &sc.bodies[0];
        if !matches!(b.shape, SolidShape::Cuboid { .. })
            || b.velocity.norm() > 0.0
            || b.angular_velocity.norm() > 0.0
        {
            return None;
        }
        let footing = self.footing[0]?;
        let fall = footing.fall_line?;
        let h = &sc.obstacles[footing.half_space?].1;
        if h.velocity.norm() > 0.0 {
            return None;
        }
        let into = -sc.gravity.dot(&h.normal);
        if into <= 0.0 {
            return None;
        }
        let x0 = &b.mesh.x0;
        let (width, height) = (
            slide_or_tip::extent(x0, &fall),
            slide_or_tip::extent(x0, &h.normal),
        );
        let mu = sc.coefficients(0, footing.member);
        let tan_theta = sc.gravity.dot(&fall) / into;
        let analytic = SlideOrTipAnalytic::new(tan_theta, mu, width, height);
        let max_rotation_deg = self
            .rows
            .iter()
            .map(|r| r.bodies[0].tilt)
            .fold(0.0, f64::max)
            .to_degrees();
        let displacement_m = self.rows.last()?.bodies[0].downhill?;
        let measured = SlideOrTip {
            outcome: Outcome::measured(max_rotation_deg, displacement_m, width),
            max_rotation_deg,
            displacement_m,
        };
        Some((measured, analytic))
    }

    /// A lone cylinder launched sliding and/or spinning on a level half-space: measured and
    /// SPEC.md §8's.
    pub fn slide_spin(&self) -> Option<(SlideSpin, SlideSpin)> {
        if self.driven() {
            return None;
        }
        if self.scene.bodies.len() != 1 {
            return None;
        }
        let b = &self.scene.bodies[0];
        let SolidShape::Cylinder { radius, .. } = b.shape else {
            return None;
        };
        let footing = self.footing[0]?;
        if footing.fall_line.is_some() {
            return None;
        }
        let h = &self.scene.obstacles[footing.half_space?].1;
        let n = h.normal;
        let v0 = (b.velocity - n * b.velocity.dot(&n) - h.velocity).norm();
        let w0 = b.angular_velocity.dot(&n).abs();
        if v0 == 0.0 && w0 == 0.0 {
            return None;
        }
        let g = self.scene.gravity.norm();
        let mu = self.scene.coefficients(0, footing.member).mu_kinetic;
        let speed = |r: &SolidRow| {
            let v = r.bodies[0].velocity;
            (v - n * v.dot(&n) - h.velocity).norm()
        };
        let spin = |r: &SolidRow| r.bodies[0].angular_velocity.dot(&n).abs();
        let stop = |value: &dyn Fn(&SolidRow) -> f64, start: f64| -> Option<f64> {
            if start == 0.0 {
                return None;
            }
            let last_above = self
                .rows
                .iter()
                .rposition(|r| value(r) >= STOP_FRACTION * start)?;
            self.rows.get(last_above + 1).map(|r| r.t)
        };
        let ratio = (v0 > 0.0 && w0 > 0.0)
            .then(|| {
                let start = v0 + radius * w0;
                self.rows
                    .iter()
                    .rev()
                    .find(|r| speed(r) + radius * spin(r) >= RATIO_AT_FRACTION * start)
                    .map(|r| speed(r) / (radius * spin(r)))
            })
            .flatten();
        let launch_ratio = (v0 > 0.0 && w0 > 0.0).then(|| v0 / (radius * w0));
        let measured = SlideSpin {
            body: 0,
            slide_stop_s: stop(&speed, v0),
            spin_stop_s: stop(&spin, w0),
            ratio,
            launch_ratio,
        };
        let analytic = SlideSpin {
            body: 0,
            slide_stop_s: (w0 == 0.0).then(|| v0 / (mu * g)),
            spin_stop_s: (v0 == 0.0).then(|| 3.0 * radius * w0 / (4.0 * mu * g)),
            ratio: (v0 > 0.0 && w0 > 0.0).then_some(SPIN_SLIDE_RATIO),
            launch_ratio,
        };
        Some((measured, analytic))
    }

    /// Whether the scene has drivers: the closed forms (the incline's, the slide-or-tip rule's,
    /// the puck's, the stack's) are written for bodies under gravity alone, and give no answer
    /// then.
    pub fn driven(&self) -> bool {
        !self.scene.drivers.is_empty()
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

/// Body `b`'s mesh nodes from its nodes of the state vector `x`, m (placed when it is affine).
fn body_positions<'a>(b: &SolidBodySpec, x: &'a [Vec3]) -> Cow<'a, [Vec3]> {
    if b.affine.is_none() {
        return Cow::Borrowed(x);
    }
    let mut out = Vec::with_capacity(b.mesh.len());
    b.place(x, &mut out);
    Cow::Owned(out)
}
