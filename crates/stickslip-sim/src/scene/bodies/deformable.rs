//! `material = "mass_spring"` or `"neo_hookean"` on a 3D mesh (SPEC.md §7): every node of the
//! mesh is a node of the state vector, its elasticity the material's
//! ([`TetMesh::add_moving`]), and a neo-Hookean body may carry stiffness-proportional damping
//! ([`TetMesh::add_damping`]).

use std::ops::Range;

use super::material::Material;
use super::solid_model::{Contacts, Launch, SolidModel};
use super::tet_mesh::TetMesh;
use crate::energy::Projection;
use crate::solver::SystemBuilder;

/// A deformable 3D body.
#[derive(Clone, Copy, Debug)]
pub struct Deformable {
    /// What it is made of.
    pub material: Material,
    /// Stiffness-proportional damping time β, s (0: none; neo-Hookean only).
    pub damping: f64,
}

impl SolidModel for Deformable {
    fn material_name(&self) -> &'static str {
        match self.material {
            Material::MassSpring { .. } => "mass_spring",
            Material::NeoHookean(_) => "neo_hookean",
        }
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
        let range = mesh.add_moving(
            builder,
            launch.velocities,
            &self.material,
            projection,
            body,
            contacts.surface,
        );
        if let (Material::NeoHookean(elasticity), true) = (self.material, self.damping > 0.0) {
            mesh.add_damping(builder, range.start, elasticity, projection, self.damping);
        }
        range
    }
}
