//! How a 3D body's mesh moves and joins a system (SPEC.md §7), one file per body type behind
//! [`SolidModel`]: each node its own degrees of freedom ([`super::deformable::Deformable`]:
//! mass-spring or neo-Hookean), or every node placed by one affine map of four control nodes
//! ([`super::affine_solid::AffineSolid`]). A validated body holds its model; the system, the runner,
//! the viewer and the outputs ask it, never which type it is.

use std::borrow::Cow;
use std::fmt::Debug;
use std::ops::Range;

use super::affine::AffineBody;
use super::tet_mesh::TetMesh;
use crate::contact::{ContactSurface, EmbeddedVertices};
use crate::energy::{Projection, Vec3};
use crate::solver::SystemBuilder;

/// How a body is launched at t = 0.
pub struct Launch<'a> {
    /// Every mesh node's velocity, m/s (v + ω × (x − c)).
    pub velocities: &'a [Vec3],
    /// The centre's velocity v, m/s.
    pub velocity: Vec3,
    /// The angular velocity ω, rad/s.
    pub spin: Vec3,
}

/// Where a body's contact vertices go: its own nodes onto the contact surface, or vertices
/// embedded in its control nodes.
pub struct Contacts<'a> {
    /// Nodes of the state vector that are contact vertices.
    pub surface: &'a mut ContactSurface,
    /// Contact vertices placed by control nodes.
    pub embedded: &'a mut EmbeddedVertices,
}

/// A 3D body type: how its mesh's nodes are found from the state vector and what it adds to a
/// system.
pub trait SolidModel: Debug + Send + Sync {
    /// Its case key `material`'s value, as `summary.json` reports it.
    fn material_name(&self) -> &'static str;

    /// Adds body number `body` of mesh `mesh` (placed at t = 0, with the contact areas it is to
    /// carry), launched as `launch`, to `builder`: its nodes and masses, its elastic terms with
    /// Hessian `projection`, and its contact vertices. Returns its nodes in the state vector.
    fn add_to(
        &self,
        mesh: &TetMesh,
        launch: &Launch,
        builder: &mut SystemBuilder<3>,
        projection: Projection,
        body: usize,
        contacts: &mut Contacts,
    ) -> Range<usize>;

    /// Its mesh's nodes, m, from its nodes `x` of the state vector (the same for a body whose
    /// nodes are its mesh's).
    fn place<'a>(&self, x: &'a [Vec3]) -> Cow<'a, [Vec3]> {
        Cow::Borrowed(x)
    }

    /// How many of `mesh`'s tetrahedra are inverted (signed volume ≤ 0) with its nodes of the
    /// state vector at `x`.
    fn inverted_elements(&self, mesh: &TetMesh, x: &[Vec3]) -> usize {
        mesh.inverted_tets(x)
    }

    /// The body as an affine body, when it is one.
    fn affine(&self) -> Option<&AffineBody> {
        None
    }
}
