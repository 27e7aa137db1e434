//! The square on the slope as a system (SPEC.md §1, §2): the square's mass-spring body, gravity,
//! the inversion barrier when the case turns it on, and the slope as a half-space of the contact
//! stage with the case's barrier, friction and coefficients.

use crate::contact::{
    BarrierParams, Coefficients, ContactStage, ContactSurface, FrictionParams, FrictionTable,
    HalfSpace,
};
use crate::energy::Projection;
use crate::energy::gravity::GravityEnergy;
use crate::energy::inversion::{InversionEnergy, cell_triangles};
use crate::scene::bodies::Material;
use crate::scene::{Mesh, Scene};
use crate::solver::{SolverSettings, System, SystemBuilder};

impl Scene {
    /// The solver's settings of this scene.
    pub fn solver_settings(&self) -> SolverSettings {
        SolverSettings {
            h: self.h,
            tol: self.tol,
            max_iterations: self.max_iterations,
            min_iterations: self.min_iterations,
            max_halvings: self.max_halvings,
            filter_fraction: self.filter_fraction,
            lagging: self.lagging,
            lagging_tol: self.lagging_tol,
            max_lagging: self.max_lagging,
            initial_guess: self.initial_guess,
        }
    }

    /// The system of this scene, and the square's mesh (body 0, nodes 0 .. (n_seg + 1)²): the
    /// terms of E in the order they are summed, inertia (the solver's), springs, gravity, the
    /// inversion barrier when on, then the slope's barrier and friction.
    pub fn system(&self) -> (System<2>, Mesh) {
        let mesh = self.mesh();
        let mut builder = SystemBuilder::new(self.solver_settings());
        let mut surface = ContactSurface::default();
        let nodes = mesh.add_to(
            &mut builder,
            self.velocity,
            &Material::MassSpring {
                stiffness: self.stiffness,
            },
            self.spring_projection,
            0,
            &mut surface,
        );
        debug_assert_eq!(nodes.start, 0);
        builder.add_potential(Box::new(GravityEnergy::new(
            mesh.mass.clone(),
            self.gravity,
        )));
        if let Some(inversion) = self.inversion {
            builder.add_potential(Box::new(InversionEnergy::new(
                cell_triangles(self.n_seg),
                &mesh.x0,
                inversion,
            )));
        }
        let mut table = FrictionTable::uniform(Coefficients {
            mu_static: self.mu_static,
            mu_kinetic: self.mu,
        });
        table.bodies = 1;
        let mut stage = ContactStage::new(
            BarrierParams {
                dhat: self.dhat,
                kappa: self.kappa,
                kind: self.barrier_kind,
            },
            FrictionParams {
                eps_v: self.eps_v,
                projection: Projection::Clamp,
                stick_filter: self.stick_filter,
            },
            table,
        )
        .with_stick(self.stick);
        let slope = stage.friction_table().obstacle(0);
        stage.add_half_spaces(surface, &[(HalfSpace::new(self.normal, self.point), slope)]);
        builder.set_contact(stage);
        let system = builder
            .build()
            .expect("a validated scene's square names only its own nodes and has positive masses");
        (system, mesh)
    }
}
