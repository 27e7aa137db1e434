//! The scene: case files (SPEC.md §1) and the square mass-spring mesh built from them; the
//! registry of case kinds ([`kind`]), the bounce scene's case files ([`bounce`]) and the cases
//! built into the binary ([`builtin`]).

pub mod bounce;
pub mod builtin;
pub mod case;
pub mod kind;
pub mod mesh;
pub mod overrides;

pub use case::{CaseError, CaseFile, Scene};
pub use kind::CaseKind;
pub use mesh::Mesh;
pub use overrides::{Override, OverrideError};
