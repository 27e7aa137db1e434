//! Contact as an impulse law (SPEC.md §3) and the cross-check of the optimiser (SPEC.md §4).

pub mod backend;
pub mod cross_check;
pub mod impulse_law;
pub mod records;
