//! Tests of runs (crates/stickslip-sim/src/run/) that run the `stickslip` command: exact stick on
//! the slope cases, truthful outputs (the book's figures are their own binary,
//! tests/book_figures.rs). Those that call only the library (the slope against its closed forms,
//! refinement, stopping, verdicts) are the simulator crate's (crates/stickslip-sim/tests/run/).
//!
//! One test binary a layer of the source tree (linking the crate once, not once a file); each
//! module is one file of tests, as its own binary was before.

mod exact_stick;
mod truthful_outputs;
