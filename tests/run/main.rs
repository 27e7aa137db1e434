//! Tests of runs and verdicts (crates/stickslip-sim/src/run/): the slope against its closed forms, refinement, stopping,
//! verdicts (the book's figures are their own binary, tests/book_figures.rs).
//!
//! One test binary a layer of the source tree (linking the crate once, not once a file); each
//! module is one file of tests, as its own binary was before.

mod analytic_slope;
mod exact_stick;
mod frozen_steps;
mod refined_convergence;
mod slope_stopping;
mod truthful_outputs;
mod verdict_cases;
