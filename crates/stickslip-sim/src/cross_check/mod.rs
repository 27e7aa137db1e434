//! The impulse-law post-pass (SPEC.md §3, §4): the contact law on the CPU ([`impulse_law`]), its
//! backends (CPU or the GPU kernel of [`crate::gpu`], [`backend`]), the contact records the
//! runner keeps of every step ([`records`]), the cross-check of the optimiser against the law
//! ([`report`]) and a scene runner's post-pass of it ([`post_pass`]).

pub mod backend;
pub mod impulse_law;
pub mod post_pass;
pub mod records;
pub mod report;

pub use report::{Agreement, CrossCheck, CrossCheckConfig, CrossCheckReport, GapAt};
