//! The contact stage of the incremental potential (SPEC.md §2, §6, §7), built as ipc-toolkit
//! builds it: **candidates → collisions → potentials**.
//!
//! * [`pair`]: the one trait of a contact pair type ([`pair::ContactPair`]): its stencil of
//!   nodes, its distance with derivatives, the tangent frame friction is lagged in, its CCD.
//! * [`candidates`]: one file per pair type with its broad phase (today node × half-space,
//!   [`candidates::plane_vertex`]; point–edge in 2D and point–triangle and edge–edge in 3D go
//!   beside it).
//! * [`collisions`]: the active pairs within d̂ at an x ([`collisions::normal`]) and the
//!   friction collisions lagged at xⁿ with their normal force λ, tangent basis T, barycentric
//!   weights and coefficients ([`collisions::tangential`]).
//! * [`barrier`]: the barrier function b(d) of one pair, its kinds and constants.
//! * [`potentials`]: the barrier summed over the candidates and the friction summed over the
//!   tangential collisions, each an [`crate::energy::Energy`] the solver assembles like any
//!   other term.
//! * [`pair_set`]: the three stages for one pair type ([`pair_set::Pairs`]), behind one
//!   object-safe trait so that a stage holds any mix of pair types.
//! * [`stage`]: the [`ContactStage`] a system has: its pair sets, the barrier's and friction's
//!   constants and the friction table; what the Newton loop calls at the start of a step, at
//!   every iterate and before every line search.
//! * [`embedded_stencil`]: the linear map from a 3D stencil's vertices to the control nodes
//!   of the affine bodies they are embedded in (gradient Jᵀ g, Hessian Jᵀ H⁺ J); not yet used
//!   by a pair type.
//! * [`obstacles`], [`surface`], [`friction_table`]: what pairs are made from.

pub mod barrier;
pub mod broad_phase;
pub mod candidates;
pub mod ccd;
pub mod collisions;
pub mod distance;
pub mod embedded_stencil;
pub mod friction_table;
pub mod obstacles;
pub mod pair;
pub mod pair_set;
pub mod potentials;
pub mod stage;
pub mod surface;

pub use barrier::{BarrierKind, BarrierParams};
pub use friction_table::{Coefficients, FrictionTable};
pub use obstacles::half_space::HalfSpace;
pub use pair::{ContactPair, MAX_STENCIL, TangentBasis, TangentFrame};
pub use potentials::friction::FrictionParams;
pub use stage::{ContactPoint, ContactStage, ContactTerm, PairDistance};
pub use surface::{ContactSurface, EmbeddedVertices};
