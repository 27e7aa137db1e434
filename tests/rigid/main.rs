//! Tests of the rigid football on SE(3) (crates/stickslip-sim/src/rigid/): cases, geometry, impacts, the integrator.
//!
//! One test binary a layer of the source tree (linking the crate once, not once a file); each
//! module is one file of tests, as its own binary was before.

mod rigid_cases;
mod rigid_geometry;
mod rigid_impact;
mod rigid_integrator;
