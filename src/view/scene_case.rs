//! A scene case (`kind = "scene"`, SPEC.md §7) for the viewer, 2D or 3D: [`Case`] holds a
//! runner stepped one step at a time, its lamps, and what only its dimension keeps
//! ([`CaseRun::Own`]: the 2D chart's history and analytic check, the 3D boundary surface and
//! closed-form checks). Nothing here draws; the stepping is the runner's own
//! ([`SceneSteps::step`]), the checks its own figures. What differs per dimension is
//! [`CaseRun`], implemented by the 2D runner (`multibody`) and the 3D runner (`solid`).

use crate::contact::PairDistance;
use crate::energy::Vector;
use crate::run::multibody::stepped::SceneSteps;
use crate::run::multibody::{ContactState, SceneRunError};
use crate::run::runner::SolverTotals;
use crate::solver::Simulation;

use super::lamps::LampStrip;
use super::scene_view::SteppedCase;

/// A scene's runner as the viewer steps it, of one dimension: how it starts, what its scene
/// says of the step, its lamps, and what its case keeps and judges after each step.
pub trait CaseRun: SceneSteps + Sized {
    /// The case as loaded.
    type Scene: Clone;
    /// What only a case of this dimension keeps.
    type Own;
    /// The lamps every scene of this dimension has, in display order: no penetration, the
    /// step converged, no element of a body turned over.
    const LAMPS: [&'static str; 3];
    /// What a body's elements are called in the inversion lamp's detail.
    const ELEMENTS: &'static str;
    /// The run of `scene` at t = 0, for `duration` s (the case's when `None`).
    fn start(scene: Self::Scene, duration: Option<f64>) -> Result<Self, SceneRunError>;
    /// What the case keeps at t = 0, and the names of the lamps it adds after [`Self::LAMPS`].
    fn own(scene: &Self::Scene, runner: &Self) -> (Self::Own, Vec<&'static str>);
    /// Simulated time, s.
    fn time(&self) -> f64;
    /// The scene's time step, s.
    fn h(scene: &Self::Scene) -> f64;
    /// The run's totals so far (the smallest distance, the inversions).
    fn totals(&self) -> &SolverTotals;
    /// After step `step` succeeded: the case's own lamps judged.
    fn after_step(case: &mut Case<Self>, step: usize);
    /// Records the state now in the case's history (at t = 0 and after every step).
    fn record(_case: &mut Case<Self>) {}
}

/// One scene case in the viewer.
pub struct Case<R: CaseRun> {
    /// The case as loaded (kept for reset).
    pub scene: R::Scene,
    /// `--duration`, s, if given.
    pub duration: Option<f64>,
    /// The run.
    pub runner: R,
    /// The error that stopped the run, if one did.
    pub error: Option<String>,
    /// The lamps ([`CaseRun::LAMPS`], then the case's own).
    pub lamps: LampStrip,
    /// What only a case of this dimension keeps ([`CaseRun::Own`]).
    pub own: R::Own,
}

impl<R: CaseRun> Case<R> {
    /// A case at t = 0, run for `duration` s (the case's when `None`).
    pub fn new(scene: R::Scene, duration: Option<f64>) -> Result<Case<R>, SceneRunError> {
        let runner = R::start(scene.clone(), duration)?;
        let (own, own_lamps) = R::own(&scene, &runner);
        let mut names = R::LAMPS.to_vec();
        names.extend(own_lamps);
        let mut case = Case {
            scene,
            duration,
            runner,
            error: None,
            lamps: LampStrip::new(&names),
            own,
        };
        R::record(&mut case);
        Ok(case)
    }

    /// Back to t = 0 (lamps too).
    pub fn reset(&mut self) -> Result<(), SceneRunError> {
        *self = Case::new(self.scene.clone(), self.duration)?;
        Ok(())
    }

    /// Whether the case can take another step (not at its end, not stopped by an error).
    pub fn can_step(&self) -> bool {
        self.error.is_none() && !self.runner.done()
    }

    /// Simulated time, s.
    pub fn time(&self) -> f64 {
        self.runner.time()
    }

    /// Takes one step ([`SceneSteps::step`]) and judges the lamps on it. A failed step turns
    /// the convergence lamp red and stops the case.
    pub fn step(&mut self) {
        if !self.can_step() {
            return;
        }
        let step = self.runner.steps_done() + 1;
        let outcome = self.runner.step().map_err(|e| e.to_string());
        judge_run_lamps(
            &mut self.lamps,
            step,
            &outcome,
            self.runner.totals(),
            R::ELEMENTS,
        );
        if let Err(text) = outcome {
            self.error = Some(text);
            return;
        }
        R::after_step(self, step);
        R::record(self);
    }
}

impl<R: CaseRun> SteppedCase for Case<R> {
    fn step(&mut self) {
        Case::step(self);
    }

    fn can_step(&self) -> bool {
        Case::can_step(self)
    }

    fn time(&self) -> f64 {
        Case::time(self)
    }

    fn h(&self) -> f64 {
        R::h(&self.scene)
    }

    fn reset(&mut self) -> Result<(), String> {
        Case::reset(self).map_err(|e| e.to_string())
    }
}

/// How many contact pairs stick, are in the transition, and slide ([`ContactState`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ContactCounts {
    /// Sticking.
    pub stick: usize,
    /// In the static-to-kinetic transition.
    pub transition: usize,
    /// Sliding.
    pub slide: usize,
}

impl ContactCounts {
    /// The counts of `states`.
    pub fn of(states: impl IntoIterator<Item = ContactState>) -> ContactCounts {
        let mut n = ContactCounts::default();
        for s in states {
            match s {
                ContactState::Stick => n.stick += 1,
                ContactState::Transition => n.transition += 1,
                ContactState::Slide => n.slide += 1,
            }
        }
        n
    }
}

/// Every contact pair of `sim` within `dhat` (m) now with a positive normal force (the
/// vertex–vertex corrections' negative ones left out), with its point ([`PairDistance::point`],
/// m) and its regime: the pairs, slips and rule of `contacts.csv` (SPEC.md §7;
/// [`PairDistance::slip`] at the current velocities, [`ContactState::of_slip`] with `eps_v`,
/// m/s), in 2D and 3D.
pub fn contact_regimes<const D: usize>(
    sim: &Simulation<D>,
    dhat: f64,
    eps_v: f64,
) -> Vec<(Vector<D>, ContactState)> {
    let mut pairs: Vec<PairDistance<D>> = Vec::new();
    if let Some(c) = sim.contact() {
        c.distances(&sim.x, &mut pairs);
    }
    pairs
        .iter()
        .filter(|p| p.distance < dhat && p.normal_force > 0.0 && p.len > 0)
        .map(|p| {
            (
                p.point(&sim.x),
                ContactState::of_slip(p.slip(&sim.v).norm(), eps_v),
            )
        })
        .collect()
}

/// Judges the three lamps every scene has (in [`CaseRun::LAMPS`]' order) on step `step`: its
/// outcome (the error's text when Newton failed), and the run's `totals` (the smallest
/// distance, m, and the most `elements` turned over: triangles in 2D, tetrahedra in 3D). A
/// failed step judges the convergence lamp only.
fn judge_run_lamps(
    lamps: &mut LampStrip,
    step: usize,
    outcome: &Result<(), String>,
    totals: &SolverTotals,
    elements: &str,
) {
    if let Err(text) = outcome {
        lamps.lamps[1].judge(step, Some(false), || text.clone());
        return;
    }
    lamps.lamps[1].judge(step, Some(true), String::new);
    let d = totals.min_distance;
    lamps.lamps[0].judge(step, Some(d > 0.0), || {
        format!("by step {step}: min distance {d:.3e} m")
    });
    let inverted = totals.max_inverted_triangles;
    lamps.lamps[2].judge(step, Some(inverted == 0), || {
        format!(
            "{inverted} {elements} of a body turned over at t = {:.3} s",
            totals.first_inversion_time.unwrap_or(f64::NAN)
        )
    });
}
