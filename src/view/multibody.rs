//! A 2D scene case (`kind = "scene"`, SPEC.md §7) for the viewer: the [`SceneRunner`] as a
//! [`CaseRun`] (its lamps, its analytic check judged as it runs, the history its chart draws)
//! and what the view reads of a [`SceneCase`] (drivers' ends, contacts, node forces). Nothing
//! here draws; the stepping is the runner's own, the checks its own figures.

use crate::energy::Vec2;
use crate::run::multibody::{ContactState, SceneRunError, SceneRunner};
use crate::run::runner::SolverTotals;
use crate::scene::multibody::{DriverKind, MultibodyScene};

use super::scene_case::{Case, CaseRun, ContactCounts, contact_regimes};

/// The lamps every scene has, in display order (then those of [`AnalyticCheck`]).
pub const SCENE_LAMPS: [&str; 3] = [
    "no penetration (min distance > 0)",
    "step converged (Newton returned Ok)",
    "no triangle turned over",
];

/// The goal for the belt's stick–slip cycle and for a breakaway against SPEC.md §8:
/// within 2 % (tests/scene/scene_cases.rs holds the runs to it).
pub const CYCLE_GOAL: f64 = 0.02;
/// The goal for the stacked blocks' accelerations: within 1 % (tests/scene/scene_cases.rs).
pub const STACK_GOAL: f64 = 0.01;
/// Simulated seconds between two judgements of the analytic lamp (its measured figures are
/// found over every row so far, so not at every step).
pub const ANALYTIC_EVERY_S: f64 = 0.1;

/// Which closed form of SPEC.md §8 the scene's drivers make it a candidate for, judged by the
/// runner's own detection ([`SceneRunner::stick_slip`], [`SceneRunner::breakaway`],
/// [`SceneRunner::stack`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnalyticCheck {
    /// A spring with a fixed anchor (on a belt): the stick–slip cycle.
    StickSlip,
    /// A spring with a moving anchor: the breakaway force.
    Breakaway,
    /// A constant force (with a block on the pulled one): the accelerations, at the run's end.
    Stack,
}

impl AnalyticCheck {
    /// The check the scene's first driver of a kind with one gives, if any.
    pub fn of(scene: &MultibodyScene) -> Option<AnalyticCheck> {
        scene.drivers.iter().find_map(|d| match d.kind {
            DriverKind::Spring {
                anchor_velocity, ..
            } if anchor_velocity == Vec2::zeros()
                && scene
                    .obstacles
                    .iter()
                    .any(|o| o.surface_velocity() != Vec2::zeros()) =>
            {
                Some(AnalyticCheck::StickSlip)
            }
            DriverKind::Spring {
                anchor_velocity, ..
            } if anchor_velocity != Vec2::zeros() => Some(AnalyticCheck::Breakaway),
            DriverKind::Force { .. } if scene.bodies.len() >= 2 => Some(AnalyticCheck::Stack),
            _ => None,
        })
    }

    /// The lamp's name.
    pub fn lamp(self) -> &'static str {
        match self {
            AnalyticCheck::StickSlip => "stick-slip cycle within 2 % of SPEC.md §8",
            AnalyticCheck::Breakaway => "breakaway within 2 % of μ_s N",
            AnalyticCheck::Stack => "stack's accelerations within 1 % (at the end)",
        }
    }
}

/// What a 2D case keeps beside its run.
pub struct SceneOwn {
    /// The analytic check its lamp judges, if the scene has one.
    pub analytic: Option<AnalyticCheck>,
    /// (t, every driver's charted force), one entry a step and t = 0: a spring's tension
    /// along its line (positive pulling the node set towards the anchor), another driver's
    /// force magnitude, N.
    pub chart: Vec<(f64, Vec<f64>)>,
}

/// One 2D scene case in the viewer.
pub type SceneCase = Case<SceneRunner>;

impl CaseRun for SceneRunner {
    type Scene = MultibodyScene;
    type Own = SceneOwn;
    const LAMPS: [&'static str; 3] = SCENE_LAMPS;
    const ELEMENTS: &'static str = "triangle(s)";

    fn start(scene: MultibodyScene, duration: Option<f64>) -> Result<Self, SceneRunError> {
        SceneRunner::new(scene, duration)
    }

    fn own(scene: &MultibodyScene, _runner: &Self) -> (SceneOwn, Vec<&'static str>) {
        let analytic = AnalyticCheck::of(scene);
        let own = SceneOwn {
            analytic,
            chart: Vec::new(),
        };
        (own, analytic.map(AnalyticCheck::lamp).into_iter().collect())
    }

    fn time(&self) -> f64 {
        self.sim.time()
    }

    fn h(scene: &MultibodyScene) -> f64 {
        scene.settings.h
    }

    fn totals(&self) -> &SolverTotals {
        &self.totals
    }

    /// The analytic lamp every [`ANALYTIC_EVERY_S`] and at the end.
    fn after_step(case: &mut SceneCase, step: usize) {
        let every = (ANALYTIC_EVERY_S / case.scene.settings.h).round().max(1.0) as usize;
        if step.is_multiple_of(every) || case.runner.done() {
            case.judge_analytic(step);
        }
    }

    /// Appends this state's charted driver forces.
    fn record(case: &mut SceneCase) {
        let values = case.driver_chart_values();
        let t = case.time();
        case.own.chart.push((t, values));
    }
}

impl SceneCase {
    /// The analytic lamp on the runner's measured figures so far against its closed form.
    fn judge_analytic(&mut self, step: usize) {
        let Some(check) = self.own.analytic else {
            return;
        };
        let off = |m: f64, a: f64| (m / a - 1.0).abs();
        let (outcome, detail) = match check {
            AnalyticCheck::StickSlip => match self.runner.stick_slip() {
                Some((Some(m), a)) => {
                    let c = m.cycle;
                    let worst = off(c.f_max_n, a.f_max_n)
                        .max(off(c.f_min_n, a.f_min_n))
                        .max(off(c.period_s, a.period_s));
                    (
                        Some(worst <= CYCLE_GOAL),
                        format!(
                            "F_max {:.4} vs {:.4} N, F_min {:.4} vs {:.4} N, period {:.4} vs {:.4} s",
                            c.f_max_n, a.f_max_n, c.f_min_n, a.f_min_n, c.period_s, a.period_s
                        ),
                    )
                }
                _ => (None, String::new()),
            },
            AnalyticCheck::Breakaway => match self.runner.breakaway() {
                Some((Some(m), a)) => (
                    Some(off(m.force_n, a.force_n) <= CYCLE_GOAL),
                    format!("{:.4} N vs μ_s N = {:.4} N", m.force_n, a.force_n),
                ),
                _ => (None, String::new()),
            },
            AnalyticCheck::Stack if self.runner.done() => match self.runner.stack() {
                Some((m, a)) if a.lower_m_per_s2 != 0.0 && a.upper_m_per_s2 != 0.0 => (
                    Some(
                        off(m.lower_m_per_s2, a.lower_m_per_s2) <= STACK_GOAL
                            && off(m.upper_m_per_s2, a.upper_m_per_s2) <= STACK_GOAL
                            && m.upper_slips == a.upper_slips,
                    ),
                    format!(
                        "lower {:.4} vs {:.4}, upper {:.4} vs {:.4} m/s²",
                        m.lower_m_per_s2, a.lower_m_per_s2, m.upper_m_per_s2, a.upper_m_per_s2
                    ),
                ),
                _ => (None, String::new()),
            },
            AnalyticCheck::Stack => (None, String::new()),
        };
        self.lamps.lamps[SCENE_LAMPS.len()].judge(step, outcome, || detail);
    }

    /// Every driver's charted force now, N: a spring's tension along its line, another
    /// driver's force magnitude (the runner's last row).
    pub fn driver_chart_values(&self) -> Vec<f64> {
        let row = self
            .runner
            .rows
            .last()
            .expect("a runner has the row of t = 0");
        self.scene
            .drivers
            .iter()
            .zip(&row.drivers)
            .enumerate()
            .map(|(d, (spec, f))| match spec.kind {
                DriverKind::Spring { .. } => {
                    let (mean, anchor) = self.spring_ends(d);
                    let along = mean - anchor;
                    if along.norm() > 0.0 {
                        -f.dot(&along.normalize())
                    } else {
                        0.0
                    }
                }
                _ => f.norm(),
            })
            .collect()
    }

    /// Driver `d`'s node set's positions now, m.
    pub fn driver_points(&self, d: usize) -> impl Iterator<Item = Vec2> + '_ {
        let spec = &self.scene.drivers[d];
        let x = self.runner.body(spec.body).of(&self.runner.sim.x);
        spec.nodes.iter().map(move |&n| x[n])
    }

    /// Driver `d`'s node set's mean position, m.
    pub fn driver_mean(&self, d: usize) -> Vec2 {
        let (sum, n) = self
            .driver_points(d)
            .fold((Vec2::zeros(), 0usize), |(s, n), p| (s + p, n + 1));
        sum / n.max(1) as f64
    }

    /// A spring driver's two ends now: its node set's mean and its anchor a₀ + v t, m (for
    /// another kind of driver, the mean twice).
    pub fn spring_ends(&self, d: usize) -> (Vec2, Vec2) {
        let mean = self.driver_mean(d);
        match self.scene.drivers[d].kind {
            DriverKind::Spring {
                anchor,
                anchor_velocity,
                ..
            } => (mean, anchor + anchor_velocity * self.time()),
            _ => (mean, mean),
        }
    }

    /// Every contact pair within d̂ now with a positive normal force (the vertex–vertex
    /// corrections' negative ones left out), with its point (the stencil's first node) and its
    /// regime: the pairs, slips and rule of `contacts.csv`
    /// ([`PairDistance::slip`](crate::contact::PairDistance::slip) at the current velocities,
    /// [`ContactState::of_slip`]).
    pub fn contact_points(&self) -> Vec<(Vec2, ContactState)> {
        contact_regimes(
            &self.runner.sim,
            self.scene.settings.barrier.dhat,
            self.scene.settings.eps_v,
        )
    }

    /// How many of [`SceneCase::contact_points`] are in each regime.
    pub fn contact_counts(&self) -> ContactCounts {
        ContactCounts::of(self.contact_points().iter().map(|(_, s)| *s))
    }

    /// The barrier force and the friction force on every node at the current positions, N
    /// (as the slope's viewer shows them; a polyline's fixed nodes too).
    pub fn node_forces(&self) -> Vec<(Vec2, Vec2)> {
        let sim = &self.runner.sim;
        let n = sim.x.len();
        let (mut barrier, mut friction) = (vec![Vec2::zeros(); n], vec![Vec2::zeros(); n]);
        sim.contact_forces(&mut barrier, &mut friction, &mut Vec::new());
        barrier.into_iter().zip(friction).collect()
    }
}
