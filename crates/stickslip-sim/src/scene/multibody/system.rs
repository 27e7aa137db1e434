//! A scene as a system (SPEC.md §7): every body's nodes in one state vector (body by body, in
//! name order), its springs, gravity, the drivers' terms and prescribed motions, and the contact
//! stage with every body's nodes against every half-space and the scene's friction table.

use std::ops::Range;

use super::MultibodyScene;
pub use super::drivers::DriverForce;
use super::geometry::geometry;
use crate::contact::ContactSurface;
use crate::energy::gravity::GravityEnergy;
use crate::solver::driver::LinearMotion;
use crate::solver::{System, SystemBuilder};

/// Where a scene's pieces are in its system: what the runner needs to report them.
#[derive(Clone, Debug)]
pub struct SceneLayout {
    /// Every body's nodes in the state vector.
    pub bodies: Vec<Range<usize>>,
    /// Every polyline obstacle's nodes (held fixed), by obstacle index.
    pub polylines: Vec<(usize, Range<usize>)>,
    /// Per driver (in the scene's order), how its force is found.
    pub drivers: Vec<DriverForce>,
}

impl MultibodyScene {
    /// The system of this scene and where its pieces are.
    pub fn system(&self) -> (System<2>, SceneLayout) {
        let mut builder = SystemBuilder::new(self.settings.solver_settings());
        let mut surface = ContactSurface::default();
        let mut ranges = Vec::new();
        for (k, b) in self.bodies.iter().enumerate() {
            ranges.push(b.mesh.add_to(
                &mut builder,
                b.velocity,
                &b.material,
                self.settings.projection,
                k,
                &mut surface,
            ));
        }
        let mass = builder.masses().to_vec();
        builder.add_potential(Box::new(GravityEnergy::new(mass.clone(), self.gravity)));
        let drivers = self
            .drivers
            .iter()
            .map(|d| {
                let first = ranges[d.body].start;
                d.add_to(&mut builder, first, &self.bodies[d.body].mesh.x0)
            })
            .collect();
        let mut stage = self.settings.contact_stage(self.bodies.len());
        let half_spaces: Vec<_> = self
            .obstacles
            .iter()
            .enumerate()
            .filter_map(|(o, ob)| ob.half_space().map(|h| (*h, self.bodies.len() + o)))
            .collect();
        if !half_spaces.is_empty() {
            stage.add_half_spaces(surface, &half_spaces);
        }
        // Polylines: their vertices are nodes held fixed, so that one pair type (point–edge)
        // serves body–body and body–polyline contact.
        let geometry = geometry(&self.bodies, &self.obstacles);
        for (o, range) in &geometry.polylines {
            let points = &geometry.x0[range.clone()];
            let nodes = builder.add_fixed_nodes(points);
            debug_assert_eq!(nodes, *range);
            builder.add_driver(Box::new(LinearMotion::fixed(
                self.obstacles[*o].name.clone(),
                nodes.collect(),
                points.to_vec(),
            )));
        }
        if self.bodies.len() > 1 || !geometry.polylines.is_empty() {
            stage.add_point_edges(geometry.boundary);
        }
        builder.set_contact(stage);
        let system = builder
            .build()
            .expect("a validated scene names only its own nodes, with positive masses, and no node is moved twice");
        (
            system,
            SceneLayout {
                bodies: ranges,
                polylines: geometry.polylines,
                drivers,
            },
        )
    }
}
