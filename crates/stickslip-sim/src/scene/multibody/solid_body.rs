//! A 3D body of a scene as validated: its tetrahedral mesh at t = 0, its shape, material and
//! launch (SPEC.md §7).

use std::borrow::Cow;

use crate::energy::Vec3;
use crate::scene::bodies::affine::AffineBody;
use crate::scene::bodies::{Material, TetMesh};
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
    /// What it is made of.
    pub material: Material,
    /// Stiffness-proportional damping time β, s (0: none; neo-Hookean only).
    pub damping: f64,
    /// Two nodes on its local z axis (bottom, top): their joining vector's turn is its tilt.
    pub axis: [usize; 2],
    /// Every node at rest in the body's own frame (before its rotation, about its centre), m:
    /// where the drivers' node sets are taken.
    pub local: Vec<Vec3>,
    /// Whether every boundary node keeps its full contact weight against a half-space
    /// (`contact_weights = "full"`) rather than the share facing it at t = 0.
    pub full_contact_weights: bool,
    /// The body as an affine body (`material = "affine"`): its four control nodes are its nodes in
    /// the state vector, and its mesh's nodes are placed by them.
    pub affine: Option<AffineBody>,
}

impl Body<3> for SolidBodySpec {
    fn name(&self) -> &str {
        &self.name
    }

    fn place<'a>(&self, x: &'a [Vec3]) -> Cow<'a, [Vec3]> {
        if self.affine.is_none() {
            return Cow::Borrowed(x);
        }
        let mut out = Vec::with_capacity(self.mesh.len());
        if let Some(a) = &self.affine {
            a.place(x, &mut out);
        }
        Cow::Owned(out)
    }

    fn elements(&self) -> usize {
        self.mesh.tets.len()
    }

    fn inverted_elements(&self, x: &[Vec3]) -> usize {
        match &self.affine {
            // Every tetrahedron shares the control tetrahedron's one map.
            Some(a) => usize::from(a.inverted(x)) * self.mesh.tets.len(),
            None => self.mesh.inverted_tets(x),
        }
    }
}
