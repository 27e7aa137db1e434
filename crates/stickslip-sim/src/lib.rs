//! stickslip's simulator: everything between the core (`stickslip-core`: energy, contact,
//! solver) and the front-ends (the `stickslip` crate: the command line, the viewer, the plots).
//! It draws nothing and opens no window: Cargo keeps macroquad and plotters out of it.
//!
//! * [`scene`]: case files (SPEC.md §1), case kinds and bodies; builds a `System`.
//! * [`run`]: a case's run (the runner: trajectory, totals, contact records) and its verdict.
//! * [`analysis`]: the experiments of SPEC.md §6/§8 read off a scene's run (one file each behind
//!   one trait: detect, measure, closed form) and the scenes' `summary.json`.
//! * [`cross_check`]: the impulse contact law (SPEC.md §3) on the CPU, the contact records and the
//!   cross-check of the optimiser against the law (SPEC.md §4).
//! * [`gpu`]: the wgpu context and the impulse-law compute kernel (the cross-check's post-pass on
//!   a device).
//! * [`rigid`]: a rigid ellipsoid on SE(3) with impacts (SPEC.md §5): CG4, the lowest point,
//!   event location and three impact models.
//! * [`sweep`]: parameter sweeps over case keys: the sweep file, shards, the sweep directory,
//!   the parallel pool, the merged `map.csv` (its figure is the front-end's).
//! * [`api`]: the entry points the command line and the Python package share: loading a case of
//!   any kind, the options' rules, the cross-check's backend, a sweep's cells.
//! * [`console`]: what the commands share with the terminal: printing, option rules.
//! * [`number_format`]: numbers in messages and tables in a short form (`5e-324`).
//! * [`process_stamp`]: who wrote a staging directory and whether that process still runs (the
//!   owner check of every clean-up of stale files).
//! * [`png_marker`]: the mark of a PNG that stickslip wrote, read back by a sweep's directory.
//!
//! The core's modules are re-exported under the paths the code knows ([`energy`], [`contact`],
//! [`solver`], [`parallel`]). `docs/architecture.md` draws the flow and says where new code goes.
#![warn(missing_docs)]

pub mod analysis;
pub mod api;
pub mod console;
pub mod cross_check;
pub mod gpu;
pub mod number_format;
pub mod png_marker;
pub mod process_stamp;
pub mod rigid;
pub mod run;
pub mod scene;
pub mod sweep;

// The core crate (stickslip-core) under the paths the rest of the crate and its users know.
pub use stickslip_core::{contact, energy, parallel, solver};
