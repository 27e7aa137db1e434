//! Unsigned distances between the primitives of contact pairs, with their derivatives
//! (SPEC.md §7), one file per pair of primitives, in D = 2 or 3: what a pair type's
//! `distance`, `distance_gradient` and `distance_hessian` are made of.

pub mod point_edge;
