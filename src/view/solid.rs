//! A 3D scene case (`kind = "scene"`, `dimension = 3`, SPEC.md §7) for the viewer: the
//! [`SolidRunner`] as a [`CaseRun`] (its lamps, its closed-form checks judged at the end, the
//! boundary surface its painter draws) and what the view reads of a [`SolidCase`] (contacts,
//! drivers' and forces' marks, the camera). Nothing here draws; the stepping is the runner's
//! own, the checks its own figures, the contacts and regimes those of `contacts.csv`.

use crate::analysis::slide_or_tip::Outcome;
use crate::contact::ContactSurface;
use crate::energy::Vec3;
use crate::run::multibody::solid::SolidRunner;
use crate::run::multibody::{ContactState, SceneRunError};
use crate::scene::multibody::DriverKind;
use crate::scene::multibody::solid::SolidScene;
use crate::scene::multibody::solid_clearance::solid_boundary;

use super::scene_case::{Case, CaseRun, ContactCounts, contact_regimes};
use crate::run::runner::SolverTotals;

/// The lamps every 3D scene has, in display order: [`super::multibody::SCENE_LAMPS`]' checks,
/// with tetrahedra where a 2D scene has triangles.
pub const SOLID_LAMPS: [&str; 3] = [
    "no penetration (min distance > 0)",
    "step converged (Newton returned Ok)",
    "no tetrahedron turned over",
];

/// The incline's acceleration against SPEC.md §6's g(sin θ − μ_k cos θ): within 1 % (the
/// tests hold `stickslip run` to 0.5 %).
pub const INCLINE_GOAL: f64 = 0.01;
/// The creep of a box friction holds against SPEC.md §6's v*: within 10 % (tests/scene/solid_scenes.rs).
pub const CREEP_GOAL: f64 = 0.1;
/// A sliding, spinning puck's stop times against SPEC.md §8's: within 3 % (tests/scene/solid_scenes.rs).
pub const STOP_GOAL: f64 = 0.03;
/// Its v/(Rω) near the end against SPEC.md §8's 0.653: within 5 % (tests/scene/solid_scenes.rs).
pub const RATIO_GOAL: f64 = 0.05;

/// A closed form of SPEC.md §6 or §8 the runner measures the scene against (as `stickslip
/// run`'s summary does), each a lamp judged at the run's end: its measured figures are over the
/// run's second half, or the whole run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SolidCheck {
    /// Two boxes stacked on an incline ([`SolidRunner::incline_stack`]): both accelerations.
    Stack,
    /// A box at rest on an incline ([`SolidRunner::slide_or_tip`]): stays, slides or tips.
    SlideOrTip,
    /// A lone body on an incline ([`SolidRunner::incline`]): its acceleration or its creep.
    Incline,
    /// A cylinder sliding and spinning on a level plane ([`SolidRunner::slide_spin`]).
    SlideSpin,
}

impl SolidCheck {
    /// Every check the runner's scene is a candidate for (its own detection, at t = 0).
    pub fn of(runner: &SolidRunner) -> Vec<SolidCheck> {
        let mut checks = Vec::new();
        if runner.incline_stack().is_some() {
            checks.push(SolidCheck::Stack);
        }
        let tips = match runner.slide_or_tip() {
            Some((_, a)) => {
                checks.push(SolidCheck::SlideOrTip);
                a.outcome == Outcome::Tip
            }
            None => false,
        };
        // A box the closed form says tips has no incline answer (the summary's rule).
        if !tips && runner.incline().is_some() {
            checks.push(SolidCheck::Incline);
        }
        if runner.slide_spin().is_some() {
            checks.push(SolidCheck::SlideSpin);
        }
        checks
    }

    /// The lamp's name.
    pub fn lamp(self) -> &'static str {
        match self {
            SolidCheck::Stack => "stack's accelerations within 1 % (at end)",
            SolidCheck::SlideOrTip => "slide or tip as SPEC.md §8 says (at end)",
            SolidCheck::Incline => "incline: a within 1 %, creep 10 % (at end)",
            SolidCheck::SlideSpin => "stops within 3 %, v/(Rω) 5 % (at end)",
        }
    }

    /// Its outcome on the run so far (`None`: nothing to judge) and the figures behind it.
    pub fn judge(self, runner: &SolidRunner) -> (Option<bool>, String) {
        let off = |m: f64, a: f64| (m / a - 1.0).abs();
        // Every pair (measured, analytic, goal) where the closed form has a figure; none
        // measured is nothing to judge.
        let within = |pairs: &[(Option<f64>, Option<f64>, f64, &str)]| {
            let mut ok = Some(true);
            let mut text = Vec::new();
            for (m, a, goal, what) in pairs {
                let Some(a) = a else { continue };
                match m {
                    Some(m) => {
                        ok = ok.map(|o| o && off(*m, *a) <= *goal);
                        text.push(format!("{what} {m:.4} vs {a:.4}"));
                    }
                    None => ok = None,
                }
            }
            (ok, text.join(", "))
        };
        match self {
            SolidCheck::Stack => match runner.incline_stack() {
                Some((m, a)) => within(&[
                    (
                        Some(m.lower_acceleration_m_per_s2),
                        Some(a.lower_acceleration_m_per_s2),
                        super::multibody::STACK_GOAL,
                        "lower m/s²",
                    ),
                    (
                        Some(m.upper_acceleration_m_per_s2),
                        Some(a.upper_acceleration_m_per_s2),
                        super::multibody::STACK_GOAL,
                        "upper m/s²",
                    ),
                ]),
                None => (None, String::new()),
            },
            SolidCheck::SlideOrTip => match runner.slide_or_tip() {
                Some((m, a)) => (
                    Some(m.outcome == a.outcome),
                    format!("{:?} vs {:?}", m.outcome, a.outcome),
                ),
                None => (None, String::new()),
            },
            SolidCheck::Incline => match runner.incline() {
                Some((m, a)) => within(&[
                    (
                        m.acceleration_m_per_s2,
                        a.acceleration_m_per_s2,
                        INCLINE_GOAL,
                        "acceleration m/s²",
                    ),
                    (
                        m.creep_speed_m_per_s,
                        a.creep_speed_m_per_s,
                        CREEP_GOAL,
                        "creep m/s",
                    ),
                ]),
                None => (None, String::new()),
            },
            SolidCheck::SlideSpin => match runner.slide_spin() {
                Some((m, a)) => within(&[
                    (m.slide_stop_s, a.slide_stop_s, STOP_GOAL, "slide stops s"),
                    (m.spin_stop_s, a.spin_stop_s, STOP_GOAL, "spin stops s"),
                    (m.ratio, a.ratio, RATIO_GOAL, "v/(Rω)"),
                ]),
                None => (None, String::new()),
            },
        }
    }
}

/// A driver in the 3D view ([`SolidCase::driver_marks`]).
#[derive(Clone, Debug, PartialEq)]
pub struct DriverMark {
    /// A spring (drawn as a line to its anchor); else an arrow.
    pub spring: bool,
    /// Its node set's mean now, m.
    pub from: Vec3,
    /// The spring's anchor now, or the arrow's tip, m.
    pub to: Vec3,
    /// A force's size, written at the tip.
    pub label: Option<String>,
}

/// The longest contact-force arrow's length in the 3D view, a fraction of the camera's radius
/// (the bodies' extent), so that it reads at any scale.
pub const FORCE_ARROW_OF_RADIUS: f64 = 0.25;

/// A contact force on a body node in the 3D view ([`SolidCase::force_marks`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ForceMark {
    /// The node, m.
    pub from: Vec3,
    /// The arrow's tip, m.
    pub to: Vec3,
    /// Friction's (else the barrier's normal force, its damping included).
    pub friction: bool,
}

/// What a 3D case keeps beside its run.
pub struct SolidOwn {
    /// Every body's outward boundary triangles and every triangle mesh's, as node triples of
    /// the state vector, with their member's number (as `--obj` writes them).
    pub surface: ContactSurface,
    /// The closed forms the lamps after [`SOLID_LAMPS`] judge, in their order.
    pub checks: Vec<SolidCheck>,
}

/// One 3D scene case in the viewer.
pub type SolidCase = Case<SolidRunner>;

impl CaseRun for SolidRunner {
    type Scene = SolidScene;
    type Own = SolidOwn;
    const LAMPS: [&'static str; 3] = SOLID_LAMPS;
    const ELEMENTS: &'static str = "tetrahedra";

    fn start(scene: SolidScene, duration: Option<f64>) -> Result<Self, SceneRunError> {
        SolidRunner::new(scene, duration)
    }

    fn own(scene: &SolidScene, runner: &Self) -> (SolidOwn, Vec<&'static str>) {
        let surface = solid_boundary(&scene.bodies, &scene.obstacles.meshes, scene.first_mesh()).1;
        let checks = SolidCheck::of(runner);
        let names = checks.iter().map(|c| c.lamp()).collect();
        (SolidOwn { surface, checks }, names)
    }

    fn time(&self) -> f64 {
        self.sim.time()
    }

    fn h(scene: &SolidScene) -> f64 {
        scene.settings.h
    }

    fn totals(&self) -> &SolverTotals {
        &self.totals
    }

    /// The closed-form lamps at the run's end.
    fn after_step(case: &mut SolidCase, step: usize) {
        if case.runner.done() {
            for (i, check) in case.own.checks.iter().enumerate() {
                let (outcome, detail) = check.judge(&case.runner);
                case.lamps.lamps[SOLID_LAMPS.len() + i].judge(step, outcome, || detail);
            }
        }
    }
}

impl SolidCase {
    /// Every contact pair within d̂ now with a positive normal force, its point (m) and regime:
    /// the pairs and rule of `contacts.csv` ([`contact_regimes`]).
    pub fn contact_points(&self) -> Vec<(Vec3, ContactState)> {
        contact_regimes(
            &self.runner.sim,
            self.scene.settings.barrier.dhat,
            self.scene.settings.eps_v,
        )
    }

    /// How many of [`SolidCase::contact_points`] are in each regime.
    pub fn contact_counts(&self) -> ContactCounts {
        ContactCounts::of(self.contact_points().iter().map(|(_, s)| *s))
    }

    /// Every body's nodes now, m (what the camera frames).
    pub fn body_points(&self) -> Vec<Vec3> {
        (0..self.runner.layout.bodies.len())
            .flat_map(|k| self.runner.body_positions(k).into_owned())
            .collect()
    }

    /// Every driver as the view draws it, in the scene's order: from its node set's mean now to
    /// a spring's anchor now (a₀ + v t), or `len` m along a prescribed motion's velocity or a
    /// constant force (none where that is zero).
    pub fn driver_marks(&self, len: f64) -> Vec<DriverMark> {
        let t = self.time();
        self.scene
            .drivers
            .iter()
            .filter_map(|d| {
                let placed = self.runner.body(d.body).positions(&self.runner.sim);
                let from = d.nodes.iter().map(|&i| placed[i]).sum::<Vec3>() / d.nodes.len() as f64;
                let along = |v: &Vec3| (v.norm() > 0.0).then(|| from + v.normalize() * len);
                let (to, label) = match d.kind {
                    DriverKind::Spring {
                        anchor,
                        anchor_velocity,
                        ..
                    } => (Some(anchor + anchor_velocity * t), None),
                    DriverKind::Move { velocity } => (along(&velocity), None),
                    DriverKind::Force { force } => {
                        (along(&force), Some(format!("{:.3} N", force.norm())))
                    }
                };
                Some(DriverMark {
                    spring: matches!(d.kind, DriverKind::Spring { .. }),
                    from,
                    to: to?,
                    label,
                })
            })
            .collect()
    }

    /// The barrier force (with a normal damping's) and the friction force on every body node
    /// at the current positions as arrows, the longest of either kind `len` m long, and that
    /// longest force, N (zero without contact: no arrows). A triangle mesh's fixed nodes are
    /// left out, as a 2D polyline's are: they carry the reactions of whole bodies; so is an
    /// affine body, whose contact forces act on its control nodes, not on its mesh.
    pub fn force_marks(&self, len: f64) -> (Vec<ForceMark>, f64) {
        let sim = &self.runner.sim;
        let n = sim.x.len();
        let (mut barrier, mut friction) = (vec![Vec3::zeros(); n], vec![Vec3::zeros(); n]);
        sim.contact_forces(&mut barrier, &mut friction, &mut Vec::new());
        // An affine body's forces act on its control nodes, not on its mesh: not drawn.
        let nodes = || {
            self.runner
                .layout
                .bodies
                .iter()
                .zip(&self.scene.bodies)
                .filter(|(_, b)| b.model.affine().is_none())
                .flat_map(|(r, _)| r.clone())
        };
        let largest = nodes()
            .map(|i| barrier[i].norm().max(friction[i].norm()))
            .fold(0.0f64, f64::max);
        if largest <= 0.0 {
            return (Vec::new(), 0.0);
        }
        let scale = len / largest;
        let marks = nodes()
            .flat_map(|i| {
                let p = sim.x[i];
                [(barrier[i], false), (friction[i], true)]
                    .into_iter()
                    .filter(|(f, _)| f.norm() > 0.0)
                    .map(move |(f, kind)| ForceMark {
                        from: p,
                        to: p + f * scale,
                        friction: kind,
                    })
            })
            .collect();
        (marks, largest)
    }

    /// The camera on the bodies now, from its default direction
    /// ([`super::solid_layout::solid_camera`]).
    pub fn camera(&self) -> super::solid_layout::SolidCamera {
        self.camera_from(super::solid_layout::Orbit::default())
    }

    /// The camera on the bodies now, turned by `orbit` (the keys A/D, W/X, I/O, C).
    pub fn camera_from(
        &self,
        orbit: super::solid_layout::Orbit,
    ) -> super::solid_layout::SolidCamera {
        super::solid_layout::solid_camera(&self.body_points(), &self.scene.gravity, orbit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn case(file: &str) -> SolidCase {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("cases")
            .join(file);
        SolidCase::new(SolidScene::load(&path, &[]).unwrap(), Some(0.01)).unwrap()
    }

    /// A spring's mark runs from its node set's mean now (the box's bottom nodes: those that
    /// start within a millimetre of the ground) to its anchor a₀ + v t = (0.05 t, 0, 0.0005) m;
    /// a force's runs `len` along the force from the mean of all the lower box's nodes.
    #[test]
    fn driver_marks_follow_the_node_sets_and_the_moving_anchor() {
        let mut pulled = case("pulled_block3d.toml");
        for _ in 0..5 {
            pulled.step();
        }
        let t = pulled.time();
        let x0 = &pulled.scene.bodies[0].mesh.x0;
        let x = &pulled.runner.sim.x;
        let bottom: Vec<usize> = (0..x0.len()).filter(|&i| x0[i].z < 1e-3).collect();
        assert_eq!(bottom.len(), 9, "a 2 × 2 cell box has 9 bottom nodes");
        let mean = bottom.iter().map(|&i| x[i]).sum::<Vec3>() / 9.0;
        let marks = pulled.driver_marks(0.1);
        assert_eq!(marks.len(), 1);
        assert!(marks[0].spring);
        assert!((marks[0].from - mean).norm() < 1e-12);
        assert!((marks[0].to - Vec3::new(0.05 * t, 0.0, 0.0005)).norm() < 1e-12);

        let stack = case("stack_pull3d.toml");
        let lower = stack.runner.body(0).of(&stack.runner.sim.x);
        let mean = lower.iter().sum::<Vec3>() / lower.len() as f64;
        let marks = stack.driver_marks(0.1);
        assert!(!marks[0].spring);
        assert!((marks[0].from - mean).norm() < 1e-12);
        assert!((marks[0].to - (mean + Vec3::new(0.1, 0.0, 0.0))).norm() < 1e-12);
        assert_eq!(marks[0].label.as_deref(), Some("100.000 N"));
    }
}
