//! Stepping a scene's runner to its end with the impulse-law cross-check (SPEC.md §4 over every
//! contact record, docs/impulse.md §7), 2D ([`super::SceneRunner`]) or 3D
//! ([`super::solid::SolidRunner`]): what `stickslip run`, a sweep's cell and Python's
//! `Case.run` share.

use super::SceneRunError;
use crate::cross_check::CrossCheck;

/// What stepping a scene's runner needs of it.
pub trait SceneSteps {
    /// The scene's name (for a progress bar).
    fn name(&self) -> &str;
    /// Steps of the whole run.
    fn total_steps(&self) -> usize;
    /// Steps taken.
    fn steps_done(&self) -> usize;
    /// Whether the run is over.
    fn done(&self) -> bool;
    /// One step.
    fn step(&mut self) -> Result<(), SceneRunError>;
    /// Hands every step's contact records to `check`.
    fn set_cross_check(&mut self, check: CrossCheck);
    /// Hands the records still held to the check.
    fn flush_records(&mut self) -> Result<(), SceneRunError>;
}

/// Steps `runner` to its end with `check` fed every step's contacts, calling `after_step` after
/// each step (a progress bar, Ctrl-C, an output frame); the records still held are handed over
/// at the end, so that the summary's cross-check covers every step.
pub fn run_to_end<R: SceneSteps, E: From<SceneRunError>>(
    runner: &mut R,
    check: CrossCheck,
    mut after_step: impl FnMut(&R) -> Result<(), E>,
) -> Result<(), E> {
    runner.set_cross_check(check);
    while !runner.done() {
        runner.step()?;
        after_step(runner)?;
    }
    runner.flush_records()?;
    Ok(())
}
