//! The terms of the incremental potential that are not contact (SPEC.md §2, §7), one module
//! each, in D = 2 or 3.
//!
//! Every term implements [`term::Energy`]: `value` (the energy, J), `gradient` (each element's
//! ∂/∂x, N) and `hessian` (each element's Dk × Dk block, N/m), all three with the same
//! arguments and all scaled by the same weight (1 for inertia, h² for the potentials, as E in
//! SPEC.md §2 weighs them). Small pure per-element kernels sit beside each term. A new energy
//! is one file here with one `impl Energy<D>`; the solver sums the list a scene gives it. The
//! contact potentials (barrier, friction) implement the same trait in `contact::potentials`.

pub mod anchor_spring;
pub mod constant_force;
pub mod gravity;
pub mod inertia;
pub mod inversion;
pub mod neo_hookean;
pub mod orthogonality;
pub mod psd;
pub mod signed_svd;
pub mod spring;
pub mod stiffness_damping;
pub mod term;

pub use term::{BlockForm, DifferenceEnergy, Elements, Energy, Projection, StepState};

/// A vector of D f64 (positions in m, velocities in m/s, forces in N).
pub type Vector<const D: usize> = nalgebra::SVector<f64, D>;
/// A D × D matrix of f64 (Hessian blocks).
pub type Matrix<const D: usize> = nalgebra::SMatrix<f64, D, D>;
/// 2D vector.
pub type Vec2 = Vector<2>;
/// 3D vector.
pub type Vec3 = Vector<3>;
/// 2 × 2 matrix.
pub type Mat2 = Matrix<2>;
