//! A 3D scene's run (`kind = "scene"`, `dimension = 3`, SPEC.md §7–8): steps its system, keeps
//! one row per step with every body's centroid, velocity and angular velocity (from the nodes),
//! its tilt, and on an incline its downhill distance and speed; gives each body's support and
//! verdict. The experiments read off a run (the incline, slide-or-tip, the puck, the stacks,
//! breakaway) and `summary.json` are `crate::analysis`'s.

use std::borrow::Cow;
use std::ops::Range;

use super::scene_runner::{RunScene, Runner};
use super::support;
use crate::contact::{ContactPoint, PairDistance};
use crate::energy::Vec3;
use crate::run::verdict::{self, Verdict};
use crate::scene::body::BodyHandle;
use crate::scene::multibody::drivers::DriverForce;
use crate::scene::multibody::solid::SolidScene;
use crate::solver::{Simulation, System};

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
pub type SolidRunner = Runner<SolidScene, 3>;

/// Where a 3D scene's pieces are in its system, and what a run keeps of t = 0.
#[derive(Clone, Debug)]
pub struct SolidLayout {
    /// Every body's nodes in the state vector (an affine body's: its control nodes).
    pub bodies: Vec<Range<usize>>,
    /// How every driver's force on its body is found, in the scene's order.
    pub drivers: Vec<DriverForce<3>>,
    /// How every body sits on its support at t = 0.
    pub footing: Vec<Option<Footing>>,
    axis0: Vec<Vec3>,
    centre0: Vec<Vec3>,
}

impl RunScene<3> for SolidScene {
    type Parts = (Vec<Range<usize>>, Vec<DriverForce<3>>);
    type Layout = SolidLayout;
    type Row = SolidRow;

    fn system(&self) -> (System<3>, Self::Parts) {
        let (system, bodies, drivers) = self.system_and_drivers();
        (system, (bodies, drivers))
    }

    fn layout(&self, (bodies, drivers): Self::Parts, sim: &Simulation<3>) -> SolidLayout {
        let g = self.gravity;
        let footing = bodies
            .iter()
            .enumerate()
            .map(|(k, r)| {
                let support =
                    self.nearest_support(&BodyHandle::new(&self.bodies[k], r).positions(sim))?;
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
        let axis0 = self
            .bodies
            .iter()
            .zip(&bodies)
            .map(|(b, r)| {
                let x = BodyHandle::new(b, r).positions(sim);
                x[b.axis[1]] - x[b.axis[0]]
            })
            .collect();
        let centre0 = self
            .bodies
            .iter()
            .zip(&bodies)
            .map(|(b, r)| BodyHandle::new(b, r).centre_velocity(sim).0)
            .collect();
        SolidLayout {
            bodies,
            drivers,
            footing,
            axis0,
            centre0,
        }
    }

    fn nodes(layout: &SolidLayout, k: usize) -> &Range<usize> {
        &layout.bodies[k]
    }

    fn driver_forces(layout: &SolidLayout) -> &[DriverForce<3>] {
        &layout.drivers
    }

    fn drivers_mut(layout: &mut SolidLayout) -> &mut [DriverForce<3>] {
        &mut layout.drivers
    }

    fn row(
        run: &SolidRunner,
        contacts: &[ContactPoint<3>],
        pairs: &[PairDistance<3>],
        newton_iterations: usize,
        final_residual: f64,
    ) -> SolidRow {
        run.row_with(contacts, pairs, newton_iterations, final_residual)
    }

    fn trajectory_header(run: &SolidRunner) -> Vec<String> {
        solid_trajectory_header(run)
    }

    fn trajectory_values(row: &SolidRow) -> Vec<f64> {
        solid_trajectory_values(row)
    }

    fn time(row: &SolidRow) -> f64 {
        row.t
    }

    fn watched(row: &SolidRow, k: usize) -> (f64, f64) {
        let b = &row.bodies[k];
        (b.min_distance, b.angular_velocity.norm())
    }
}

impl SolidRunner {
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
        for k in 0..self.layout.bodies.len() {
            all.extend_from_slice(&self.body_positions(k));
        }
        let after = self.layout.bodies.last().map_or(0, |r| r.end);
        all.extend_from_slice(&self.sim.x[after..]);
        Cow::Owned(all)
    }

    fn row_with(
        &self,
        contacts: &[ContactPoint<3>],
        pairs: &[PairDistance<3>],
        newton_iterations: usize,
        final_residual: f64,
    ) -> SolidRow {
        let members = self.scene.members();
        let sim = &self.sim;
        let bodies = (0..self.layout.bodies.len())
            .map(|k| {
                let body = self.body(k);
                let (c, v) = body.centre_velocity(sim);
                let angular_velocity = body.angular_velocity(sim, c, v);
                let b = &self.scene.bodies[k];
                let placed = body.positions(sim);
                let axis = placed[b.axis[1]] - placed[b.axis[0]];
                let axis0 = self.layout.axis0[k];
                let cos = axis.dot(&axis0) / (axis.norm() * axis0.norm());
                let tilt = cos.clamp(-1.0, 1.0).acos();
                let to_half_spaces = self
                    .scene
                    .obstacles
                    .half_spaces
                    .iter()
                    .flat_map(|(_, h)| placed.iter().map(move |x| h.distance(x)))
                    .fold(f64::INFINITY, f64::min);
                let min_distance = support::nearest_distance(pairs, k, to_half_spaces);
                let footing = self.layout.footing[k];
                // Slip over what presses on it hardest in this state (else its half-space).
                let on = support::pressing(pairs, k, members)
                    .map(|(m, _)| m)
                    .or(footing.map(|f| f.member));
                let slip = support::slip_over(contacts, k, on);
                let fall = footing.and_then(|f| f.fall_line);
                let c0 = self.layout.centre0[k];
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
        SolidRow {
            t: self.sim.time(),
            bodies,
            drivers: self
                .layout
                .drivers
                .iter()
                .map(|d| d.on_body(&self.sim))
                .collect(),
            newton_iterations,
            final_residual,
        }
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
        let tilt: Vec<f64> = self.rows.iter().map(|r| r.bodies[k].tilt).collect();
        let n = self.scene.bodies.len();
        let relative: Vec<f64> = match support {
            Some((m, normal)) => {
                let first = self.rows[0].bodies[k].centre;
                // A belt's surface velocity; a body's motion is taken off below; a triangle
                // mesh is fixed.
                let surface = match m.checked_sub(n) {
                    Some(o) if o < self.scene.obstacles.half_spaces.len() => {
                        self.scene.obstacles.half_spaces[o].1.velocity
                    }
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
        self.judge(k, relative, &tilt)
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
        let footing = self.layout.footing[k]?;
        let h = &self.scene.obstacles.half_spaces[footing.half_space?].1;
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
        if runner.layout.footing[k].and_then(|f| f.fall_line).is_some() {
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
