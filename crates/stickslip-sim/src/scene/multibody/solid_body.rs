//! A 3D body of a scene as validated: its tetrahedral mesh at t = 0, its shape, body type and
//! launch (SPEC.md §7).

use std::borrow::Cow;
use std::sync::Arc;

use crate::energy::Vec3;
use crate::scene::bodies::TetMesh;
use crate::scene::bodies::solid_model::SolidModel;
use crate::scene::body::Body;

/// The shape a 3D body was generated as (what the analytic checks need of it).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SolidShape {
    /// A cuboid of (width, depth, height), m.
    Cuboid(Vec3),
    /// A cylinder of `radius` and `height`, m.
    Cylinder {
        /// m.
        radius: f64,
        /// m.
        height: f64,
    },
    /// An ellipsoid of these semi-axes (local x, y, z), m.
    Ellipsoid(Vec3),
    /// A mesh read from a file.
    Mesh,
}

/// A 3D body.
#[derive(Clone, Debug)]
pub struct SolidBodySpec {
    /// Its name.
    pub name: String,
    /// Its mesh at t = 0.
    pub mesh: TetMesh,
    /// Its shape.
    pub shape: SolidShape,
    /// Every node's initial velocity, m/s (v + ω × (x − c)).
    pub velocities: Vec<Vec3>,
    /// The centre's initial velocity, m/s.
    pub velocity: Vec3,
    /// The initial angular velocity, rad/s.
    pub angular_velocity: Vec3,
    /// Its body type: how its mesh moves and joins a system (deformable or affine).
    pub model: Arc<dyn SolidModel>,
    /// Two nodes on its local z axis (bottom, top): their joining vector's turn is its tilt.
    pub axis: [usize; 2],
    /// Every node at rest in the body's own frame (before its rotation, about its centre), m:
    /// where the drivers' node sets are taken.
    pub local: Vec<Vec3>,
    /// Whether every boundary node keeps its full contact weight against a half-space
    /// (`contact_weights = "full"`) rather than the share facing it at t = 0.
    pub full_contact_weights: bool,
}

impl Body<3> for SolidBodySpec {
    fn name(&self) -> &str {
        &self.name
    }

    fn place<'a>(&self, x: &'a [Vec3]) -> Cow<'a, [Vec3]> {
        self.model.place(x)
    }

    fn elements(&self) -> usize {
        self.mesh.tets.len()
    }

    fn inverted_elements(&self, x: &[Vec3]) -> usize {
        self.model.inverted_elements(&self.mesh, x)
    }
}
