//! stickslip: frictional contact by optimisation, cross-checked by an impulse law.
//!
//! * [`scene`]: case files (SPEC.md §1) and the square mesh.
//! * [`energy`]: one module per term of the incremental potential (SPEC.md §2), each with
//!   `value`, `gradient` and `hessian`.
//! * [`solver`]: projected Newton with a tunnelling-safe line search, fixed-pattern sparse
//!   assembly and faer's sparse Cholesky.
//! * [`contact`]: the impulse contact law (SPEC.md §3) on the CPU, the contact records and the
//!   cross-check of the optimiser against the law (SPEC.md §4).
//! * [`gpu`]: the wgpu context and the impulse-law compute kernel.
//! * [`rigid`]: a rigid ellipsoid on SE(3) with impacts (SPEC.md §5): CG4, the lowest point,
//!   event location and three impact models.
//! * [`sweep`]: parameter sweeps over case keys: the sweep file, shards, the sweep directory,
//!   the parallel pool, the merged map and its figure.
//! * [`app`]: orchestration: the case runner, verdicts, output files.
#![warn(missing_docs)]

pub mod app;
pub mod contact;
pub mod energy;
pub mod gpu;
pub mod rigid;
pub mod scene;
pub mod solver;
pub mod sweep;
