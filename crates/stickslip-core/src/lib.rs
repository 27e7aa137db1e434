//! stickslip's core: the incremental potential, its contact stage and the solver that minimises
//! it (SPEC.md §2, §6, §7), generic over the dimension (`const D: usize`, 2 or 3) with one code
//! path for both.
//!
//! * [`energy`]: one module per term of the incremental potential, each implementing the
//!   [`energy::Energy`] trait (`value`, `gradient`, `hessian`).
//! * [`contact`]: the contact stage, built as ipc-toolkit builds it: candidates → collisions →
//!   potentials (barrier, friction, normal damping).
//! * [`solver`]: the system, drivers, projected Newton with a tunnelling-safe line search,
//!   fixed-pattern sparse assembly and the sparse Cholesky factorisations.
//! * [`parallel`]: parallel loops in which the calling thread does a share (the solver's
//!   element loops).
//!
//! This crate imports nothing of the simulator above it (scenes, runs, the cross-check, the
//! viewer, the GPU): Cargo enforces the layer. `docs/architecture.md` draws the flow.
#![warn(missing_docs)]

pub mod contact;
pub mod energy;
pub mod parallel;
pub mod solver;
