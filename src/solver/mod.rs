//! Projected Newton on the incremental potential (SPEC.md §2).
//!
//! * [`assembly`]: the Hessian's fixed sparsity pattern, refilled per iteration, and the sparse
//!   Cholesky (faer) whose symbolic factorisation is done once per mesh.
//! * [`line_search`]: the tunnelling-safe backtracking line search.
//! * [`lagging`]: semi-implicit and fully implicit lagging of friction's normal force.
//! * [`potential`]: E as a list of weighted terms ([`crate::energy::Energy`]) with their buffers.
//! * [`newton`]: one implicit Euler step, the [`Simulation`] state and the invariants.

pub mod assembly;
pub mod lagging;
pub mod line_search;
pub mod newton;
pub mod potential;
pub mod skyline;

pub use newton::{IterationTrace, Simulation, SolveError, StepStats};
