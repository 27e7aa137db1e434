//! The shapes a 3D body is generated as (SPEC.md §7 bodies), one file each behind
//! [`ShapeGenerator`] and found by the case key `shape` in [`SHAPES`]: a new shape is its own
//! file and one line of [`SHAPES`].
//!
//! * [`cuboid`]: `shape = "cuboid"` (`width`, `depth`, `height`, `nx`, `ny`, `nz`);
//! * [`cylinder`]: `shape = "cylinder"` (`radius`, `height`, `segments`, `rings`, `layers`);
//! * [`ellipsoid`]: `shape = "ellipsoid"` (`semi_axes`, `cells`);
//! * [`sphere`]: `shape = "sphere"` (`radius`, `cells`);
//! * [`mesh_file`]: `shape = "mesh"` (a Gmsh `.msh` tetrahedral mesh: `file`).

pub mod cuboid;
pub mod cylinder;
pub mod ellipsoid;
pub mod mesh_file;
pub mod sphere;

use std::path::Path;

use nalgebra::Rotation3;

use super::shape_registry::{BodyKeys, ShapeKeys};
use super::solid_body::SolidShape;
use super::solid_schema::SolidBodySection;
use crate::energy::Vec3;
use crate::scene::bodies::TetMesh;
use crate::scene::bodies::mesh_rules::MeshSize;
use crate::scene::case_file::CaseError;

/// Every 3D shape, by its `shape` value; the order is that of the rule naming them.
pub(crate) const SHAPES: &[&dyn ShapeGenerator] = &[
    &cuboid::Cuboid,
    &cylinder::Cylinder,
    &ellipsoid::Ellipsoid,
    &sphere::Sphere,
    &mesh_file::MeshFile,
];

/// A shape a 3D body is generated as: the keys it reads and the mesh it builds from them.
pub(crate) trait ShapeGenerator: ShapeKeys {
    /// Its mesh's size from body `b`'s keys, when they are in their ranges (before any mesh
    /// is built); None where only the built mesh knows (a file).
    fn size(&self, _b: &SolidBodySection) -> Option<MeshSize> {
        None
    }

    /// Its mesh for body `input.name`, placed at its centre and rotation, with its
    /// [`SolidShape`] and its two axis nodes ([`Generated::axis`]).
    fn generate(&self, input: &ShapeInput) -> Result<Generated, CaseError>;
}

/// What a generator is given: the body's section and where it is placed.
pub(crate) struct ShapeInput<'a> {
    /// The body's keys (its name and the case file's validator).
    pub keys: BodyKeys<'a>,
    /// Its section of the case file.
    pub b: &'a SolidBodySection,
    /// The case file (mesh files are relative to its folder).
    pub case: Option<&'a Path>,
    /// Its centre at t = 0, m.
    pub centre: Vec3,
    /// Its rotation about the centre at t = 0.
    pub rotation: &'a Rotation3<f64>,
}

/// A generated body: its mesh at t = 0, its shape and two nodes on its local z axis.
pub(crate) struct Generated {
    /// The mesh, placed.
    pub mesh: TetMesh,
    /// What the analytic checks need of its shape.
    pub shape: SolidShape,
    /// Two nodes on its local z axis (bottom, top): their joining vector's turn is its tilt.
    pub axis: [usize; 2],
}

/// Every shape key of a body's section and whether it is given, in the order a key not read
/// by the body's shape is reported.
pub(crate) fn shape_keys(b: &SolidBodySection) -> [(&'static str, bool); 13] {
    [
        ("file", b.file.is_some()),
        ("width", b.width.is_some()),
        ("depth", b.depth.is_some()),
        ("height", b.height.is_some()),
        ("nx", b.nx.is_some()),
        ("ny", b.ny.is_some()),
        ("nz", b.nz.is_some()),
        ("radius", b.radius.is_some()),
        ("segments", b.segments.is_some()),
        ("rings", b.rings.is_some()),
        ("layers", b.layers.is_some()),
        ("semi_axes", b.semi_axes.is_some()),
        ("cells", b.cells.is_some()),
    ]
}

/// A count key of a generated shape in its range (`least` to 1000), for sizing before the
/// body's own validation has run.
pub(crate) fn count_in_range(n: Option<usize>, least: usize) -> Option<usize> {
    n.filter(|n| (least..=1000).contains(n))
}

impl<'a> std::ops::Deref for ShapeInput<'a> {
    type Target = BodyKeys<'a>;

    fn deref(&self) -> &BodyKeys<'a> {
        &self.keys
    }
}

impl ShapeInput<'_> {
    /// A generated mesh sized from its keys before it is built (issue 41): refused at key `k`,
    /// quoting `keys`, when over the limits.
    pub fn sized(&self, k: &str, size: MeshSize, keys: String) -> Result<(), CaseError> {
        match size.over_limits() {
            Some(rule) => Err(self.v.invalid(&self.key(k), &rule, keys)),
            None => Ok(()),
        }
    }

    /// A generator's refusal of its mesh, at key `k`.
    pub fn mesh_error(&self, k: &str, e: &dyn std::fmt::Display) -> CaseError {
        self.v
            .invalid(&self.key(k), &e.to_string(), "the generated mesh")
    }

    /// Two nodes of the placed mesh `x0` on (or nearest) its local z axis ([`axis_nodes`]).
    pub fn axis_nodes(&self, x0: &[Vec3]) -> [usize; 2] {
        axis_nodes(x0, self.rotation, self.centre)
    }
}

/// Two nodes of a placed mesh on (or nearest) its local z axis through `centre`: the lowest
/// and the highest in its own frame (`rotation` undone), each the nearest the axis among
/// those within a thousandth of the mesh's size of the extreme.
pub(crate) fn axis_nodes(x0: &[Vec3], rotation: &Rotation3<f64>, centre: Vec3) -> [usize; 2] {
    let local: Vec<Vec3> = x0
        .iter()
        .map(|x| rotation.inverse() * (x - centre))
        .collect();
    let size = local.iter().map(|p| p.amax()).fold(0.0, f64::max);
    let (lo, hi) = local
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
            (lo.min(p.z), hi.max(p.z))
        });
    let nearest = |z: f64| {
        (0..local.len())
            .filter(|&i| (local[i].z - z).abs() <= 1e-3 * size)
            .min_by(|&a, &b| local[a].xy().norm().total_cmp(&local[b].xy().norm()))
            .unwrap_or(0)
    };
    [nearest(lo), nearest(hi)]
}
