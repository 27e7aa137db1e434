//! The experiments of SPEC.md §6 and §8 read off a scene's run, one file per experiment, each
//! behind the one trait [`Analysis`]: it detects itself from the scene (and the run's supports),
//! measures its answer from the run's records, and gives SPEC.md's closed form beside it. The
//! runners (`crate::run::multibody`) only step and record; [`summary`] and [`solid_summary`]
//! gather every analysis a run has into its `summary.json`, which the table and the sweep's
//! columns read; the plots and the viewer call the runner method each analysis adds
//! (`SceneRunner::stick_slip`, `SolidRunner::incline`, …).
//!
//! A new experiment is one file here implementing [`Analysis`] for the runner it reads
//! ([`SceneRunner`] in 2D, [`SolidRunner`] in 3D), and in the summary that gathers it its two
//! fields (measured, `_analytic`) and one line calling [`Analysis::analyse`].
//!
//! 2D ([`SceneRunner`]): [`stick_slip_cycle`] (the belt oscillator), [`breakaway`] (a block
//! pulled off by a spring), [`stacked_blocks`] (a pulled block carrying another),
//! [`slide_or_tip`] (a box at rest on an incline). 3D ([`SolidRunner`]): [`incline`],
//! [`slide_or_tip`], [`slide_spin`] (the puck), [`incline_stack`], [`breakaway`] and
//! [`stacked_blocks`] (the pulled stack).

pub mod breakaway;
pub mod incline;
pub mod incline_stack;
pub mod slide_or_tip;
pub mod slide_spin;
pub mod solid_summary;
pub mod stacked_blocks;
pub mod stick_slip_cycle;
pub mod summary;

#[cfg(doc)]
use crate::run::multibody::SceneRunner;
use crate::run::multibody::solid::{Footing, SolidRunner};
use crate::run::multibody::{RunScene, Runner};
use crate::run::physical::Physicality;
use crate::run::verdict::Verdict;
use crate::scene::multibody::solid_body::SolidBodySpec;

/// One experiment on a run of type `Run` (a [`SceneRunner`] or a [`SolidRunner`]): what the
/// scene holds that makes it this experiment, its answer measured from the run's records, and
/// SPEC.md's closed form for the same scene.
pub trait Analysis<Run>: Sized {
    /// The measured answer (units in its fields' docs).
    type Measured;
    /// The closed form's answer.
    type ClosedForm;
    /// The experiment's members (bodies, drivers, support), if the scene is this experiment.
    fn detect(run: &Run) -> Option<Self>;
    /// Its answer read off the run's records.
    fn measure(&self, run: &Run) -> Self::Measured;
    /// SPEC.md's closed form for the scene.
    fn closed_form(&self, run: &Run) -> Self::ClosedForm;
    /// The measured answer and the closed form, if the scene is this experiment.
    fn analyse(run: &Run) -> Option<(Self::Measured, Self::ClosedForm)> {
        let found = Self::detect(run)?;
        Some((found.measure(run), found.closed_form(run)))
    }
}

/// A scene whose runs are summarised (`summary.json`): every analysis it has gathered, with
/// every body's verdict and whether the run was physical ([`summary`] in 2D, [`solid_summary`]
/// in 3D).
pub trait Summarised<const D: usize>: RunScene<D> {
    /// Its `summary.json`.
    type Summary: serde::Serialize;
    /// The summary of `run` so far.
    fn summary(run: &Runner<Self, D>) -> Self::Summary;
    /// Every body's name and verdict, in the scene's order.
    fn verdicts(summary: &Self::Summary) -> Vec<(String, Verdict)>;
    /// The case's name and whether its run was physical.
    fn outcome(summary: &Self::Summary) -> (&str, &Physicality);
}

/// The least-squares slope of y against x over `points` (0 for fewer than two distinct x).
pub fn least_squares_slope(points: &[(f64, f64)]) -> f64 {
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

/// The one body of an undriven 3D scene and how it sits on its support at t = 0, if the scene
/// has one body, no driver, and a footing for it: where the lone-body closed forms (the
/// incline's, slide-or-tip's, the puck's) can apply.
pub fn lone_body(run: &SolidRunner) -> Option<(&SolidBodySpec, Footing)> {
    if run.driven() || run.scene.bodies.len() != 1 {
        return None;
    }
    Some((&run.scene.bodies[0], run.layout.footing[0]?))
}
