//! stickslip: frictional contact by optimisation, cross-checked by an impulse law.
//!
//! * [`scene`]: case files (SPEC.md §1) and the square mesh.
//! * [`energy`]: one module per term of the incremental potential (SPEC.md §2), each
//!   implementing the [`energy::Energy`] trait (`value`, `gradient`, `hessian`).
//! * [`solver`]: projected Newton with a tunnelling-safe line search, fixed-pattern sparse
//!   assembly and faer's sparse Cholesky.
//! * [`contact`]: the impulse contact law (SPEC.md §3) on the CPU, the contact records and the
//!   cross-check of the optimiser against the law (SPEC.md §4).
//! * [`gpu`]: the wgpu context and the impulse-law compute kernel.
//! * [`rigid`]: a rigid ellipsoid on SE(3) with impacts (SPEC.md §5): CG4, the lowest point,
//!   event location and three impact models.
//! * [`run`]: a slope case's run (the runner: trajectory, totals, contact records) and its
//!   verdict.
//! * [`analysis`]: the experiments of SPEC.md §6/§8 read off a scene's run (one file each behind
//!   one trait: detect, measure, closed form) and the scenes' `summary.json`.
//! * [`view`]: `stickslip view`, the simulation in a window; each scene paints itself behind one
//!   trait.
//! * [`graphics`]: the colours, the font and the one PNG writer of the figures and the viewer.
//! * [`console`]: what the commands share with the terminal: printing, option rules.
//! * [`parallel`]: parallel loops in which the calling thread does a share (the solver's
//!   element loops).
//! * [`number_format`]: numbers in messages and tables in a short form (`5e-324`).
//! * [`process_stamp`]: who wrote a staging directory and whether that process still runs (the
//!   owner check of every clean-up of stale files).
//! * [`sweep`]: parameter sweeps over case keys: the sweep file, shards, the sweep directory,
//!   the parallel pool, the merged map and its figure.
//! * [`api`]: the entry points the command line and the Python package share: loading a case of
//!   any kind, the options' rules, the cross-check's backend, a sweep's cells.
//! * [`app`]: the command line, output directories, signals, `plot`.
//!
//! `docs/architecture.md` draws the flow and says where new code goes.
#![warn(missing_docs)]

pub mod analysis;
pub mod api;
pub mod app;
pub mod console;
pub mod cross_check;
pub mod gpu;
pub mod graphics;
pub mod number_format;
pub mod process_stamp;
pub mod rigid;
pub mod run;
pub mod scene;
pub mod sweep;
pub mod view;

// The core crate (stickslip-core) under the paths the rest of the crate and its users know.
pub use stickslip_core::{contact, energy, parallel, solver};
