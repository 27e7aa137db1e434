//! `summary.json` of a 3D scene (SPEC.md §6–8): the run's bodies, drivers, solver totals and
//! cross-check, and every analysis the scene is beside its closed form, read from a finished
//! [`SolidRunner`] (the runner itself only steps and records). A new 3D analysis adds its two
//! fields here and one line in [`SolidRunner::summary`].

use serde::Serialize;

use super::Analysis;
use super::breakaway::{Breakaway, PullingSpring};
use super::incline::Incline;
use super::incline_stack::{InclineStack, StackOnIncline};
use super::slide_or_tip::{Outcome, SlideOrTip, SlideOrTipAnalytic};
use super::slide_spin::{Puck, SlideSpin};
use super::stacked_blocks::StackAccelerations;
use crate::cross_check::CrossCheckReport;
use crate::cross_check::post_pass::PostPass;
use crate::run::multibody::DriverSummary;
use crate::run::multibody::solid::SolidRunner;
use crate::run::runner::{ExactStick, SolverTotals};
use crate::run::verdict::{self, Verdict};

/// A body in `summary.json`.
#[derive(Clone, Debug, Serialize)]
pub struct SolidBodySummary {
    /// Name.
    pub name: String,
    /// Its mesh's nodes.
    pub nodes: usize,
    /// Its mesh's tetrahedra.
    pub tetrahedra: usize,
    /// Its material (`"neo_hookean"`, `"mass_spring"` or `"affine"`: then the mesh's nodes are
    /// placed by four control nodes, the state's).
    pub material: &'static str,
    /// Total mass, kg.
    pub mass_kg: f64,
    /// The body or half-space it rests on at the end (pressing on it hardest, else the nearest
    /// half-space).
    pub support: Option<String>,
    /// Its verdict relative to its support's surface (SPEC.md §2's window).
    pub verdict: Verdict,
}

/// `summary.json` of a 3D scene.
#[derive(Clone, Debug, Serialize)]
pub struct SolidSummary {
    /// Case name.
    pub case: String,
    /// Case file.
    pub source: Option<String>,
    /// `--set` overrides, as given.
    pub overrides: Vec<String>,
    /// 3.
    pub dimension: usize,
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
    pub physicality: crate::run::physical::Physicality,
    /// The bodies.
    pub bodies: Vec<SolidBodySummary>,
    /// The verdict's rule in words.
    pub verdict_rule: String,
    /// The drivers, with their forces at the end.
    pub drivers: Vec<DriverSummary>,
    /// A body on an incline: measured.
    pub incline: Option<Incline>,
    /// …and SPEC.md §6's.
    pub incline_analytic: Option<Incline>,
    /// A cylinder launched sliding and/or spinning on a level plane: measured.
    pub slide_spin: Option<SlideSpin>,
    /// …and SPEC.md §8's.
    pub slide_spin_analytic: Option<SlideSpin>,
    /// A box started at rest on an incline: stay, slide or tip, measured (SPEC.md §8).
    pub slide_or_tip: Option<SlideOrTip>,
    /// …and by the closed form.
    pub slide_or_tip_analytic: Option<SlideOrTipAnalytic>,
    /// Two bodies stacked on an incline: measured ([`super::incline_stack`]).
    pub incline_stack: Option<InclineStack>,
    /// …and in closed form.
    pub incline_stack_analytic: Option<InclineStack>,
    /// A body pulled by a spring over a fixed half-space: its breakaway, measured
    /// ([`super::breakaway`]; none if it never broke away)…
    pub breakaway: Option<Breakaway>,
    /// …and SPEC.md §8's.
    pub breakaway_analytic: Option<Breakaway>,
    /// Two stacked bodies, the lower pulled by a constant force: the lower and upper bodies'
    /// names…
    pub stack_bodies: Option<[String; 2]>,
    /// …their accelerations along the ground, measured…
    pub stack: Option<StackAccelerations>,
    /// …and SPEC.md §8's.
    pub stack_analytic: Option<StackAccelerations>,
    /// Solver statistics (`max_inverted_triangles` counts tetrahedra here).
    pub solver: SolverTotals,
    /// The impulse-law cross-check over the records handed to it (none when off).
    pub cross_check: Option<CrossCheckReport>,
    /// Wall time of its post-pass, s.
    pub post_pass_seconds: f64,
    /// Wall time of the run, s.
    pub wall_seconds: f64,
}

impl SolidRunner {
    /// The run's summary.
    pub fn summary(&self) -> SolidSummary {
        let sc = &self.scene;
        let bodies = sc
            .bodies
            .iter()
            .enumerate()
            .map(|(k, b)| {
                let support = self.support(k);
                SolidBodySummary {
                    name: b.name.clone(),
                    nodes: b.mesh.len(),
                    tetrahedra: b.mesh.tets.len(),
                    material: b.model.material_name(),
                    mass_kg: self.body_mass(k),
                    support: support.map(|(m, _)| sc.member_name(m).to_string()),
                    verdict: self.body_verdict(k, support),
                }
            })
            .collect();
        let (slide_or_tip, slide_or_tip_analytic) = match self.slide_or_tip() {
            Some((m, a)) => (Some(m), Some(a)),
            None => (None, None),
        };
        // A box the closed form says tips has no incline answer (its acceleration or creep
        // assume it rests on its face).
        let tips = slide_or_tip_analytic.is_some_and(|a| a.outcome == Outcome::Tip);
        let (incline, incline_analytic) = match self.incline().filter(|_| !tips) {
            Some((m, a)) => (Some(m), Some(a)),
            None => (None, None),
        };
        let (slide_spin, slide_spin_analytic) = match Puck::analyse(self) {
            Some((m, a)) => (Some(m), Some(a)),
            None => (None, None),
        };
        let (incline_stack, incline_stack_analytic) = match StackOnIncline::analyse(self) {
            Some((m, a)) => (Some(m), Some(a)),
            None => (None, None),
        };
        let (breakaway, breakaway_analytic) = match PullingSpring::analyse(self) {
            Some((m, a)) => (m, Some(a)),
            None => (None, None),
        };
        let (stack_bodies, stack, stack_analytic) = match self.pulled_stack() {
            Some(p) => (
                Some([
                    sc.bodies[p.lower].name.clone(),
                    sc.bodies[p.upper].name.clone(),
                ]),
                Some(p.measured),
                Some(p.analytic),
            ),
            None => (None, None, None),
        };
        SolidSummary {
            case: sc.name.clone(),
            source: sc.source.as_ref().map(|p| p.display().to_string()),
            overrides: sc.overrides.clone(),
            dimension: 3,
            h: sc.settings.h,
            duration: self.sim.time(),
            exact_stick: ExactStick::of(sc.settings.stick),
            physicality: self.physicality(),
            bodies,
            drivers: DriverSummary::all(
                &sc.drivers,
                &sc.bodies
                    .iter()
                    .map(|b| b.name.as_str())
                    .collect::<Vec<_>>(),
                &self
                    .rows
                    .last()
                    .map_or_else(Vec::new, |r| r.drivers.clone()),
            ),
            verdict_rule: format!(
                "per body, relative to what it rests on at the end (the body or half-space pressing on it hardest, else the nearest half-space; a body's motion or a belt's surface velocity taken off), over the trailing {} s window: airborne if no node is within d_hat of it at any sample; tumbling if its local z axis turned more than {:.0} degrees; stopped if its displacement along the surface (the fall line on an incline, else its last window's motion) is under {} m and its mean angular speed about its centroid under {} rad/s; spinning if only the first holds; sliding if its mean speed along it exceeds {} m/s; else moving",
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
            incline,
            incline_analytic,
            slide_or_tip,
            slide_or_tip_analytic,
            slide_spin,
            slide_spin_analytic,
            incline_stack,
            incline_stack_analytic,
            breakaway,
            breakaway_analytic,
            stack_bodies,
            stack,
            stack_analytic,
            solver: self.totals,
            cross_check: self.check.as_ref().map(PostPass::report),
            post_pass_seconds: self.check.as_ref().map_or(0.0, PostPass::seconds),
            wall_seconds: self.started.elapsed().as_secs_f64(),
        }
    }
}

impl super::Summarised<3> for crate::scene::multibody::solid::SolidScene {
    type Summary = SolidSummary;

    fn summary(run: &SolidRunner) -> SolidSummary {
        run.summary()
    }

    fn verdicts(summary: &SolidSummary) -> Vec<(String, crate::run::verdict::Verdict)> {
        summary
            .bodies
            .iter()
            .map(|b| (b.name.clone(), b.verdict))
            .collect()
    }

    fn outcome(summary: &SolidSummary) -> (&str, &crate::run::physical::Physicality) {
        (&summary.case, &summary.physicality)
    }
}
