//! The cross-check as a scene runner's post-pass (SPEC.md §4), for 2D and 3D scenes alike: the
//! records of every step made ([`Recorder`]) and held, handed to the law in batches, and the
//! wall time that took.

use std::time::Instant;

use super::backend::BackendError;
use super::records::{ContactRecord, Recorder};
use super::{CrossCheck, CrossCheckReport};
use crate::solver::Simulation;

/// A cross-check running beside a scene's steps.
pub struct PostPass<const D: usize> {
    check: CrossCheck,
    recorder: Recorder<D>,
    /// Records not yet handed to the law.
    records: Vec<ContactRecord>,
    /// Wall time in the hand-overs, s.
    seconds: f64,
}

impl<const D: usize> PostPass<D> {
    /// A post-pass into `check`, with nothing recorded yet.
    pub fn new(check: CrossCheck) -> Self {
        PostPass {
            check,
            recorder: Recorder::default(),
            records: Vec::new(),
            seconds: 0.0,
        }
    }

    /// Keeps the records of the step `sim` has just taken, with e = 0 (the optimiser is
    /// inelastic, SPEC.md §4).
    pub fn record_step(&mut self, sim: &Simulation<D>) {
        self.recorder.push_step_records(sim, 0.0, &mut self.records);
    }

    /// Hands the records held so far to the law and forgets them.
    ///
    /// # Errors
    /// The backend's [`BackendError`]; the records are then kept and the counts unchanged.
    pub fn flush(&mut self) -> Result<(), BackendError> {
        let clock = Instant::now();
        self.check.push_batch(&self.records)?;
        self.records.clear();
        self.seconds += clock.elapsed().as_secs_f64();
        Ok(())
    }

    /// The report over the records handed over so far.
    pub fn report(&self) -> CrossCheckReport {
        self.check.report()
    }

    /// Wall time in the hand-overs so far, s.
    pub fn seconds(&self) -> f64 {
        self.seconds
    }
}
