//! `material = "affine"` (SPEC.md §7, ABD): a 3D body whose mesh moves with one affine map of
//! four control nodes ([`AffineBody`]), held to a rotation by its orthogonality potential.

use std::borrow::Cow;
use std::ops::Range;

use super::affine::AffineBody;
use super::solid_model::{Contacts, Launch, SolidModel};
use super::tet_mesh::TetMesh;
use crate::energy::{Projection, Vec3};
use crate::solver::SystemBuilder;

/// `material = "affine"`: an affine body with the stiffness κ (Pa) of its orthogonality
/// potential.
#[derive(Clone, Debug)]
pub struct AffineSolid {
    /// The body.
    pub body: AffineBody,
    /// κ, Pa.
    pub stiffness: f64,
}

impl SolidModel for AffineSolid {
    fn material_name(&self) -> &'static str {
        "affine"
    }

    fn add_to(
        &self,
        mesh: &TetMesh,
        launch: &Launch,
        builder: &mut SystemBuilder<3>,
        projection: Projection,
        body: usize,
        contacts: &mut Contacts,
    ) -> Range<usize> {
        self.body.add_to(
            mesh,
            builder,
            launch.velocity,
            launch.spin,
            self.stiffness,
            projection,
            body,
            contacts.embedded,
        )
    }

    fn place<'a>(&self, x: &'a [Vec3]) -> Cow<'a, [Vec3]> {
        let mut out = Vec::with_capacity(self.body.weights.len());
        self.body.place(x, &mut out);
        Cow::Owned(out)
    }

    fn inverted_elements(&self, mesh: &TetMesh, x: &[Vec3]) -> usize {
        // Every tetrahedron shares the control tetrahedron's one map.
        usize::from(self.body.inverted(x)) * mesh.tets.len()
    }

    fn affine(&self) -> Option<&AffineBody> {
        Some(&self.body)
    }
}
