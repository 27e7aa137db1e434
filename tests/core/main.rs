//! Tests of energy, contact and solver (crates/stickslip-core): every term's derivatives, the
//! assembled system, elastic bodies, inversion, contact damping, solver errors, frozen steps.
//!
//! One test binary a layer of the source tree (linking the crate once, not once a file); each
//! module is one file of tests, as its own binary was before.

#[path = "../../crates/stickslip-core/tests/derivatives/harness.rs"]
mod harness;

mod contact_damping;
mod elastic_bodies;
mod freeze;
mod inversion;
mod slope_assembly;
mod solver_errors;
mod system;
