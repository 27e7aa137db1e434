//! The terms of the incremental potential (SPEC.md §2), one module each.
//!
//! Every module has the same three functions over the whole mesh:
//! `value` (the energy, J), `gradient` (∂/∂x added into a per-node buffer, N) and `hessian`
//! (2×2 blocks added into per-node or per-edge buffers, N/m), with small pure element kernels
//! beside them. The Newton loop multiplies the potential energies by h² as E in SPEC.md §2 does.

pub mod barrier;
pub mod barrier_ipc;
pub mod friction;
pub mod gravity;
pub mod inertia;
pub mod psd;
pub mod spring;

/// 2D vector of f64 (positions in m, velocities in m/s, forces in N).
pub type Vec2 = nalgebra::Vector2<f64>;
/// 2×2 matrix of f64 (Hessian blocks).
pub type Mat2 = nalgebra::Matrix2<f64>;
