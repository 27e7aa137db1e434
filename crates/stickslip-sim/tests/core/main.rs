//! Tests of energy, contact and solver (crates/stickslip-core) on the simulator's scenes and
//! bodies, calling only the library: systems built by hand, the slope's assembled system, a
//! time step that cannot freeze motion, solver errors. The core's own tests, which need no
//! scene, are crates/stickslip-core/tests/; those that run the `stickslip` command are the root
//! package's `tests/core/`.
//!
//! One test binary a layer of the source tree; each module is one file of tests. A test binary
//! of the simulator crate, so it links neither macroquad nor plotters. Case files are read from
//! the workspace's `cases/` (`CARGO_MANIFEST_DIR/../..`).

#[path = "../../../stickslip-core/tests/derivatives/harness.rs"]
mod harness;

mod freeze;
mod slope_assembly;
mod solver_errors;
mod system;
