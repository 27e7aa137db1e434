//! The scene: case files (SPEC.md §1) and the square mass-spring mesh built from them.

pub mod case;
pub mod mesh;
pub mod overrides;

pub use case::{CaseError, CaseFile, Scene};
pub use mesh::Mesh;
pub use overrides::{Override, OverrideError};
