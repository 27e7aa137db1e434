//! Tests of the rigid football on SE(3) (src/rigid/) that call only the library: geometry,
//! impacts, the integrator. The shipped football cases, run by the `stickslip` command, are the
//! root package's `tests/rigid/`.
//!
//! One test binary a layer of the source tree; each module is one file of tests. A test binary
//! of the simulator crate, so it links neither macroquad nor plotters. Case files are read from
//! the workspace's `cases/` (`CARGO_MANIFEST_DIR/../..`).

mod rigid_geometry;
mod rigid_impact;
mod rigid_integrator;
