//! The terms of the incremental potential (SPEC.md §2), one module each.
//!
//! Every term implements [`term::Energy`]: `value` (the energy, J), `gradient` (each element's
//! ∂/∂x, N) and `hessian` (each element's 2k×2k block, N/m), all three with the same arguments
//! and all scaled by the same weight (1 for inertia, h² for the potentials, as E in SPEC.md §2
//! weighs them). Small pure per-element kernels sit beside each term. A new energy is one file
//! here with one `impl Energy`; the solver sums the list it is given.

pub mod barrier;
pub mod barrier_ipc;
pub mod friction;
pub mod gravity;
pub mod inertia;
pub mod inversion;
pub mod psd;
pub mod spring;
pub mod term;

pub use term::{BlockForm, DifferenceEnergy, Elements, Energy, Projection, StepState};

/// 2D vector of f64 (positions in m, velocities in m/s, forces in N).
pub type Vec2 = nalgebra::Vector2<f64>;
/// 2×2 matrix of f64 (Hessian blocks).
pub type Mat2 = nalgebra::Matrix2<f64>;
