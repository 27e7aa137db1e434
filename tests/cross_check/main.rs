//! Tests of the impulse law and its cross-check (src/cross_check/, src/gpu/): the GPU kernel
//! against the CPU law, the law's proofs, the slope cases checked.
//!
//! One test binary a layer of the source tree (linking the crate once, not once a file); each
//! module is one file of tests, as its own binary was before.

#[path = "../common/mod.rs"]
mod common;

mod cross_check_slopes;
mod gpu_kernel;
mod impulse_law_proofs;
