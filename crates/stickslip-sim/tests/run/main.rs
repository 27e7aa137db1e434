//! Tests of runs and verdicts (src/run/) that call only the library: the slope against its
//! closed forms, no frozen steps, refinement, stopping, verdicts. The run tests that run the
//! `stickslip` command are the root package's `tests/run/` (the book's figures are its own
//! binary there, `tests/book_figures.rs`).
//!
//! One test binary a layer of the source tree; each module is one file of tests. A test binary
//! of the simulator crate, so it links neither macroquad nor plotters. Case files are read from
//! the workspace's `cases/` (`CARGO_MANIFEST_DIR/../..`).

mod analytic_slope;
mod frozen_steps;
mod refined_convergence;
mod slope_stopping;
mod verdict_cases;
