//! `summary.json` of a 2D scene (SPEC.md §7–8): the run's bodies, drivers, solver totals and
//! cross-check, and every analysis the scene is beside its closed form, read from a finished
//! [`SceneRunner`]. A new 2D analysis adds its two fields here and one line in
//! [`SceneRunner::summary`].

use serde::Serialize;

use super::Analysis;
use super::breakaway::{Breakaway, PulledBlock};
use super::slide_or_tip::{BoxOnIncline, SlideOrTip, SlideOrTipAnalytic};
use super::stacked_blocks::{StackAccelerations, StackMembers};
use super::stick_slip_cycle::{BeltOscillator, MeasuredCycle, StickSlipCycle};
use crate::cross_check::CrossCheckReport;
use crate::cross_check::post_pass::PostPass;
use crate::run::multibody::{BodySummary, DriverSummary, SceneRunner};
use crate::run::physical::Physicality;
use crate::run::runner::{ExactStick, SolverTotals};
use crate::run::verdict;

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
    /// …and the closed form ([`super::slide_or_tip`]).
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

impl SceneRunner {
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
        let (cycle, cycle_analytic) = match BeltOscillator::analyse(self) {
            Some((m, a)) => (m, Some(a)),
            None => (None, None),
        };
        let (breakaway, breakaway_analytic) = match PulledBlock::analyse(self) {
            Some((m, a)) => (m, Some(a)),
            None => (None, None),
        };
        let (stack, stack_analytic) = match StackMembers::analyse(self) {
            Some((m, a)) => (Some(m), Some(a)),
            None => (None, None),
        };
        let (slide_or_tip, slide_or_tip_analytic) = match BoxOnIncline::analyse(self) {
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

impl super::Summarised<2> for crate::scene::multibody::MultibodyScene {
    type Summary = SceneSummary;

    fn summary(run: &SceneRunner) -> SceneSummary {
        run.summary()
    }

    fn verdicts(summary: &SceneSummary) -> Vec<(String, crate::run::verdict::Verdict)> {
        summary
            .bodies
            .iter()
            .map(|b| (b.name.clone(), b.verdict))
            .collect()
    }

    fn outcome(summary: &SceneSummary) -> (&str, &crate::run::physical::Physicality) {
        (&summary.case, &summary.physicality)
    }
}
