//! Projected Newton on the incremental potential (SPEC.md §2, §7), in D = 2 or 3, for any
//! system a scene builds.
//!
//! * [`system`]: what the solver steps: nodes, masses, potentials, contact stage, drivers and
//!   settings ([`System`], made with a [`SystemBuilder`]).
//! * [`driver`]: prescribed motions of degrees of freedom, eliminated from the linear system.
//! * [`potential`]: E as a list of weighted terms ([`crate::energy::Energy`], the contact
//!   stage's potentials among them) with their buffers.
//! * [`assembly`]: the Hessian's pattern over the free degrees of freedom, its maps refilled
//!   per iteration and rebuilt only when contact brings a new coupling, and the sparse Cholesky
//!   (faer, or the band for small banded systems, [`skyline`]).
//! * [`line_search`]: the backtracking line search from the step filter.
//! * [`newton`]: one implicit Euler step, the [`Simulation`] state and the invariants.

pub mod assembly;
pub mod driver;
pub mod line_search;
pub mod newton;
pub mod potential;
pub mod skyline;
pub mod system;

pub use newton::{IterationTrace, PhaseSeconds, Simulation, SolveError, StepStats};
pub use system::{InitialGuess, Lagging, SolverSettings, System, SystemBuilder, SystemError};
