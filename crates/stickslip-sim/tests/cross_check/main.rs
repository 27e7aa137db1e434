//! Tests of the impulse law and its cross-check (this crate's src/cross_check/, src/gpu/): the GPU kernel
//! against the CPU law, the law's proofs, the slope cases checked.
//!
//! One test binary a layer of the source tree (linking the crate once, not once a file); each
//! module is one file of tests, as its own binary was before.
//!
//! A test binary of the simulator crate, so it links neither macroquad nor plotters (it runs no
//! command: everything here calls the library). The GPU helpers are shared with the root's
//! tests (`tests/common`, which names the simulator's `gpu` module).

#[path = "../../../../tests/common/mod.rs"]
mod common;

mod cross_check_slopes;
mod gpu_kernel;
mod impulse_law_proofs;
