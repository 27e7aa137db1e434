//! Tests of the rigid football on SE(3) (crates/stickslip-sim/src/rigid/) that run the
//! `stickslip` command: the shipped cases. Geometry, impacts and the integrator, which call only
//! the library, are the simulator crate's (crates/stickslip-sim/tests/rigid/).
//!
//! One test binary a layer of the source tree (linking the crate once, not once a file); each
//! module is one file of tests, as its own binary was before.

mod rigid_cases;
