//! Collisions (SPEC.md §7): what the barrier and friction sum over.
//!
//! * [`normal`]: the candidates active at an x (distance below d̂): the barrier's elements.
//! * [`tangential`]: friction's collisions, made at xⁿ (and again at the converged x with
//!   implicit lagging) from the candidates active there, each carrying its lagged normal force
//!   λ, tangent frame (T, barycentric weights, surface velocity) and coefficients μ_s, μ_k.
//! * [`damped`]: the normal damping's collisions, made at xⁿ from the candidates active there,
//!   each carrying ∇d(xⁿ) and the barrier's normal stiffness there.

pub mod damped;
pub mod normal;
pub mod tangential;
