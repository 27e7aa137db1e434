//! Body types: one file each, generating a body's mesh and adding it to a
//! [`crate::solver::SystemBuilder`]: its nodes with their lumped masses and velocities, its
//! elastic terms over its own nodes (offset into the state vector), and its contact vertices.
//!
//! * [`mesh`]: a mass-spring triangle mesh ([`Mesh`]) and how it joins a system
//!   ([`Mesh::add_to`]);
//! * [`square`]: the book's square generator (SPEC.md §1);
//! * [`rectangle`]: a box of nx × ny cells (SPEC.md §7).

pub mod mesh;
pub mod rectangle;
pub mod square;

pub use mesh::Mesh;
