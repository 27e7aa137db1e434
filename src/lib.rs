//! stickslip: frictional contact by optimisation, cross-checked by an impulse law. This crate is
//! the front-end: the command line, the viewer and the figures, over the simulator
//! (`stickslip-sim`) and its core (`stickslip-core`), whose modules it re-exports under the paths
//! they always had (`stickslip::scene`, `stickslip::run`, `stickslip::solver`, …).
//!
//! * [`app`]: the command line, output directories, signals, `plot`.
//! * [`view`]: `stickslip view`, the simulation in a window (macroquad); each scene paints itself
//!   behind one trait.
//! * [`graphics`]: the colours, the font and the one PNG writer of the figures and the viewer.
//! * [`sweep_map`]: a sweep's `map.png`, drawn from its collected cells (plotters).
//!
//! From the simulator: [`scene`], [`run`], [`analysis`], [`cross_check`], [`gpu`], [`rigid`],
//! [`sweep`], [`api`], [`console`], [`number_format`], [`process_stamp`]; from the core:
//! [`energy`], [`contact`], [`solver`], [`parallel`].
//!
//! `docs/architecture.md` draws the flow and says where new code goes.
#![warn(missing_docs)]

pub mod app;
pub mod graphics;
pub mod sweep_map;
pub mod view;

// The simulator (stickslip-sim) and, through it, the core (stickslip-core), under the paths the
// rest of the crate, the tests, the examples and the Python package know.
pub use stickslip_sim::{
    analysis, api, console, contact, cross_check, energy, gpu, number_format, parallel,
    process_stamp, rigid, run, scene, solver, sweep,
};
