//! Tests of sweeps (crates/stickslip-sim/src/sweep/): the sweep file, the physics of maps, scene sweeps, shards (the
//! Slurm job array is its own binary, tests/slurm_array.rs).
//!
//! One test binary a layer of the source tree (linking the crate once, not once a file); each
//! module is one file of tests, as its own binary was before.

mod sweep_input;
mod sweep_physics;
mod sweep_scenes;
mod sweep_shards;
