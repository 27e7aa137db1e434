//! A scene's run (`kind = "scene"`, SPEC.md §7–8): steps its system, keeps one trajectory row
//! per step with every body's centroid, velocity and rotation and every driver's force, and
//! gives each body's support and verdict. The experiments read off a run (the belt's stick–slip
//! cycle, breakaway, stacked blocks, slide-or-tip, the incline, the puck) and `summary.json`
//! are `crate::analysis`'s.

mod contact_state;
pub mod scene_runner;
pub mod solid;
pub mod stepped;
mod support;

use serde::Serialize;

pub use contact_state::ContactState;
pub use scene_runner::{RunScene, Runner, SteerError};
pub use support::Support;

use crate::contact::{ContactPoint, PairDistance};
use crate::energy::{Vec2, Vector};
use crate::run::verdict::{self, Verdict};
use crate::scene::CaseError;
use crate::scene::body::BodyHandle;
use crate::scene::multibody::system::SceneLayout;
use crate::scene::multibody::{DriverSpec, MultibodyScene};
use crate::solver::assembly::LinearSolveError;
use crate::solver::{Simulation, SolveError, System};

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
    /// The scene is more than the solver can take (its Cholesky factor would pass
    /// [`crate::solver::assembly::MAX_FACTOR_BYTES`]): bad input, found before the factor is
    /// allocated (exit 2, like any other bad case-file value).
    #[error(transparent)]
    Input(CaseError),
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
    /// The stencil's weights βⱼ (dimensionless): the closest points' relative velocity is
    /// Σⱼ βⱼ vⱼ, and the pair's normal force on node j is βⱼ times its force along its normal.
    /// Not a column of `contacts.csv`; `run --vtk` spreads the force over the nodes with them.
    pub weights: [f64; crate::contact::MAX_STENCIL],
    /// Distance, m.
    pub distance: f64,
    /// The barrier's normal force, N (negative on a correction pair).
    pub normal_force: f64,
    /// The unit normal from the second towards the first.
    pub normal: Vector<D>,
    /// The tangential relative velocity of the first's closest point over the second's, m/s.
    pub slip: Vector<D>,
    /// The friction force on the pair's relative motion, N (on the stencil's node j, βⱼ times
    /// it): the friction set's of the step that ended in this state (SPEC.md §2's lagged
    /// force at this x); zero for a pair not in it (no normal force lagged at the step's start).
    pub friction_force: Vector<D>,
}

/// Appends to `out` a row at time `t` (s) for every pair of `pairs` within `dhat` (m), with its
/// slip at the node velocities `v` and its friction force among `friction` (the friction
/// set's contacts, `Simulation::contacts`; a pair is the same pair type, members and stencil).
pub fn push_contact_rows<const D: usize>(
    t: f64,
    dhat: f64,
    pairs: &[PairDistance<D>],
    v: &[Vector<D>],
    friction: &[ContactPoint<D>],
    out: &mut Vec<ContactRow<D>>,
) {
    let key = |kind: &'static str, members: (usize, usize), nodes: &[usize]| {
        let mut k = [usize::MAX; crate::contact::MAX_STENCIL];
        k[..nodes.len()].copy_from_slice(nodes);
        (kind, members, k)
    };
    let forces: std::collections::HashMap<_, Vector<D>> = friction
        .iter()
        .map(|c| (key(c.kind, c.bodies, &c.nodes[..c.len]), c.friction_force))
        .collect();
    for p in pairs.iter().filter(|p| p.distance < dhat) {
        out.push(ContactRow {
            t,
            kind: p.kind,
            members: p.bodies,
            nodes: p.nodes,
            weights: p.weights,
            len: p.len,
            distance: p.distance,
            normal_force: p.normal_force,
            normal: p.normal,
            slip: p.slip(v),
            friction_force: forces
                .get(&key(p.kind, p.bodies, &p.nodes[..p.len]))
                .copied()
                .unwrap_or_else(Vector::<D>::zeros),
        });
    }
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

/// A 2D scene being run.
pub type SceneRunner = Runner<MultibodyScene, 2>;

/// Where a 2D scene's pieces are in its system ([`SceneLayout`], which it derefs to), and
/// every body's angle at t = 0 (its reference nodes' line, rad).
#[derive(Clone, Debug)]
pub struct Layout {
    system: SceneLayout,
    angle0: Vec<f64>,
}

impl std::ops::Deref for Layout {
    type Target = SceneLayout;

    fn deref(&self) -> &SceneLayout {
        &self.system
    }
}

impl RunScene<2> for MultibodyScene {
    type Parts = SceneLayout;
    type Layout = Layout;
    type Row = SceneRow;

    fn system(&self) -> (System<2>, SceneLayout) {
        MultibodyScene::system(self)
    }

    fn layout(&self, parts: SceneLayout, sim: &Simulation<2>) -> Layout {
        let angle0 = self
            .bodies
            .iter()
            .zip(&parts.bodies)
            .map(|(b, r)| {
                let x = BodyHandle::new(b, r).of(&sim.x);
                let [a, c] = b.reference;
                verdict::unwrapped_angle(&x[a], &x[c], 0.0)
            })
            .collect();
        Layout {
            system: parts,
            angle0,
        }
    }

    fn nodes(layout: &Layout, k: usize) -> &std::ops::Range<usize> {
        &layout.bodies[k]
    }

    fn driver_forces(layout: &Layout) -> &[crate::scene::multibody::drivers::DriverForce] {
        &layout.system.drivers
    }

    fn drivers_mut(layout: &mut Layout) -> &mut [crate::scene::multibody::drivers::DriverForce] {
        &mut layout.system.drivers
    }

    fn row(
        run: &SceneRunner,
        contacts: &[ContactPoint<2>],
        pairs: &[PairDistance<2>],
        newton_iterations: usize,
        final_residual: f64,
    ) -> SceneRow {
        run.row_with(contacts, pairs, newton_iterations, final_residual)
    }

    fn trajectory_header(run: &SceneRunner) -> Vec<String> {
        trajectory_header(&run.scene)
    }

    fn trajectory_values(row: &SceneRow) -> Vec<f64> {
        trajectory_values(row)
    }

    fn time(row: &SceneRow) -> f64 {
        row.t
    }

    fn watched(row: &SceneRow, k: usize) -> (f64, f64) {
        let b = &row.bodies[k];
        (b.min_distance, b.angular_velocity.abs())
    }
}

impl SceneRunner {
    fn row_with(
        &self,
        contacts: &[ContactPoint<2>],
        pairs: &[PairDistance<2>],
        newton_iterations: usize,
        final_residual: f64,
    ) -> SceneRow {
        let sim = &self.sim;
        let bodies = (0..self.scene.bodies.len())
            .map(|k| {
                let body = self.body(k);
                let (c, v) = body.centre_velocity(sim);
                let x = body.of(&sim.x);
                let [a, e] = self.scene.bodies[k].reference;
                let previous = self.rows.last().map_or(0.0, |row| row.bodies[k].rotation)
                    + self.layout.angle0[k];
                let angle = verdict::unwrapped_angle(&x[a], &x[e], previous);
                let to_half_spaces = self
                    .scene
                    .obstacles
                    .iter()
                    .filter_map(|o| o.half_space())
                    .flat_map(|h| x.iter().map(move |p| h.distance(p)))
                    .fold(f64::INFINITY, f64::min);
                let min_distance = support::nearest_distance(pairs, k, to_half_spaces);
                // Slip over what presses on it hardest in this state.
                let members = self.scene.bodies.len() + self.scene.obstacles.len();
                let on = support::pressing(pairs, k, members).map(|(m, _)| m);
                let slip = support::slip_over(contacts, k, on);
                let angular_velocity = body.angular_velocity(sim);
                BodyState {
                    angular_velocity,
                    x: c.x,
                    y: c.y,
                    vx: v.x,
                    vy: v.y,
                    rotation: angle - self.layout.angle0[k],
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

    /// Body `k`'s support at the end ([`Support`]).
    pub fn support(&self, k: usize) -> Option<Support> {
        let mut pairs = Vec::new();
        if let Some(c) = self.sim.contact() {
            c.distances(&self.sim.x, &mut pairs);
        }
        Support::of(&self.scene, self.body(k).of(&self.sim.x), &pairs, k)
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
    pub fn body_verdict(&self, k: usize, support: Option<&Support>) -> Verdict {
        let rotation: Vec<f64> = self.rows.iter().map(|r| r.bodies[k].rotation).collect();
        let relative: Vec<f64> = match support {
            Some(s) => self.along_support(k, s),
            None => vec![0.0; self.rows.len()],
        };
        self.judge(k, relative, &rotation)
    }

    /// Body `k`'s mass, kg, and its weight's component into `support`, N (m g·(−n)).
    pub fn load(&self, k: usize, support: &Support) -> (f64, f64) {
        let m = self.mass(k);
        (m, m * self.scene.gravity.dot(&-support.normal))
    }

    /// Body `k`'s mass, kg.
    pub fn mass(&self, k: usize) -> f64 {
        self.body(k).mass(&self.sim)
    }

    /// The coefficients between body `k` and `support`.
    pub fn coefficients(&self, k: usize, support: &Support) -> crate::contact::Coefficients {
        self.sim
            .contact()
            .expect("a scene has a contact stage")
            .friction_table()
            .get(k, support.member)
    }
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
