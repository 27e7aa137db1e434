//! Tests of the command line and the entry points (src/app/, crates/stickslip-sim/src/api.rs): the CLI, the API, plots,
//! nothing of the user's lost, no import cycle.
//!
//! One test binary a layer of the source tree (linking the crate once, not once a file); each
//! module is one file of tests, as its own binary was before.

#[path = "../support/picture.rs"]
mod picture;

mod api_entry_points;
mod cli;
mod issue_23_nothing_lost;
mod issue_41_outputs;
mod issue_42_vtk;
mod module_cycles;
mod plot;
