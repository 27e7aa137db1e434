//! Body types: one file each, generating a body's mesh and adding it to a
//! [`crate::solver::SystemBuilder`]: its nodes with their lumped masses and velocities, its
//! elastic terms over its own nodes (offset into the state vector), and its contact vertices.
//!
//! * [`affine`]: a tetrahedral mesh moving with one affine map, twelve degrees of freedom (ABD,
//!   SPEC.md §7), its mesh's boundary embedded as contact vertices ([`affine::AffineBody`]);
//! * [`solid_model`]: how a 3D body's mesh moves and joins a system, one type a file behind
//!   [`solid_model::SolidModel`]: [`deformable::Deformable`] and [`affine_solid::AffineSolid`];
//! * [`material`]: what a deformable body is made of ([`Material`]: mass-spring or neo-Hookean);
//! * [`mesh`]: a 2D triangle mesh ([`Mesh`]) and how it joins a system ([`Mesh::add_to`]);
//! * [`square`]: the book's square generator (SPEC.md §1);
//! * [`rectangle`]: a box of nx × ny cells (SPEC.md §7);
//! * [`tet_mesh`]: a 3D tetrahedral mesh ([`TetMesh`]) and how it joins a system
//!   ([`TetMesh::add_to`]);
//! * [`cuboid`]: a box of nx × ny × nz cells, 6 tetrahedra each (SPEC.md §7);
//! * [`cylinder`]: a cylinder or puck of tetrahedra (SPEC.md §7);
//! * [`ellipsoid`]: an ellipsoid of tetrahedra, a cube mapped onto it (SPEC.md §5, §7);
//! * [`gmsh`]: 2D triangle and 3D tetrahedral meshes from Gmsh `.msh` files;
//! * [`mesh_rules`]: the rules every body mesh follows, with the errors that name them.

pub mod affine;
pub mod affine_solid;
pub mod cuboid;
pub mod cylinder;
pub mod deformable;
pub mod ellipsoid;
pub mod gmsh;
pub mod material;
pub mod mesh;
pub mod mesh_rules;
pub mod rectangle;
pub mod solid_model;
pub mod square;
pub mod tet_mesh;

pub use material::Material;
pub use mesh::Mesh;
pub use tet_mesh::TetMesh;
