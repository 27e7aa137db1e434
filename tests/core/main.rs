//! Tests of energy, contact and solver (crates/stickslip-core) that run the `stickslip` command:
//! elastic bodies, inversion, contact damping. Those that call only the library are the
//! simulator crate's (crates/stickslip-sim/tests/core/), the core's own are
//! crates/stickslip-core/tests/.
//!
//! One test binary a layer of the source tree (linking the crate once, not once a file); each
//! module is one file of tests, as its own binary was before.

mod contact_damping;
mod elastic_bodies;
mod inversion;
