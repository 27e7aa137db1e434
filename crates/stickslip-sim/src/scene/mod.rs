//! Scenes: case files and the systems they build.
//!
//! * [`case_file`]: reading case files, shared by every kind (text, strict TOML, errors naming
//!   the file and key, the `kind` peek, the shared rules);
//! * [`kind`]: the registry of case kinds;
//! * [`slope`]: the square on the slope (SPEC.md §1–§4): schema, validation into a [`Scene`],
//!   and the [`crate::solver::System`] it builds;
//! * [`multibody`]: scenes of bodies, obstacles and drivers (SPEC.md §7);
//! * [`bodies`]: body types (the book's square, a mass-spring [`Mesh`]);
//! * [`bounce`]: seed 001's bounce scene (viewer only); [`builtin`]: the cases built into the
//!   binary; [`overrides`]: `--set KEY=VALUE`.

pub mod bodies;
pub mod body;
pub mod bounce;
pub mod builtin;
pub mod case_file;
pub mod kind;
pub mod limits;
pub mod multibody;
pub mod overrides;
pub mod slope;

pub use bodies::Mesh;
pub use case_file::CaseError;
pub use kind::CaseKind;
pub use overrides::{Override, OverrideError};
pub use slope::{CaseFile, Scene};
