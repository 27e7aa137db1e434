//! Unsigned distances between the primitives of contact pairs, with their derivatives
//! (SPEC.md §7), one file per pair of primitives, in D = 2 or 3: what a pair type's
//! `distance`, `distance_gradient` and `distance_hessian` are made of.
//!
//! * [`point_edge`]: a point and a segment (2D and 3D);
//! * [`point_triangle`], [`edge_edge`] (with the mollifier): 3D, each the distance between
//!   planes or lines ([`plane_distance`]) where the closest points are interior, else a
//!   point–edge distance.

pub mod edge_edge;
pub mod plane_distance;
pub mod point_edge;
pub mod point_triangle;
