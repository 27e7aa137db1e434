//! Obstacles: static or moving geometry that is not part of the state x (SPEC.md §7). One file
//! per obstacle type; today the half-space ([`half_space`]); a static polyline (2D) or triangle
//! mesh (3D) goes beside it.

pub mod half_space;
