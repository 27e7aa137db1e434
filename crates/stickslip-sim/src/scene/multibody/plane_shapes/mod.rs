//! The shapes a 2D body is generated as (SPEC.md §1, §7 bodies), one file each behind
//! [`PlaneShape`] and found by the case key `shape` in [`SHAPES`]: a new shape is its own file
//! and one line of [`SHAPES`].
//!
//! * [`square`]: `shape = "square"` (`side`, `n_seg`: the book's square);
//! * [`grid_box`]: `shape = "box"` (`width`, `height`, `nx`, `ny`);
//! * [`mesh_file`]: `shape = "mesh"` (a Gmsh `.msh` triangle mesh: `file`).

pub mod grid_box;
pub mod mesh_file;
pub mod square;

use std::path::Path;

use super::schema::BodySection;
use super::shape_registry::{BodyKeys, ShapeKeys};
use crate::energy::Vec2;
use crate::scene::Mesh;
use crate::scene::bodies::Material;
use crate::scene::bodies::mesh_rules::MeshSize;
use crate::scene::bodies::rectangle::rectangle_size;
use crate::scene::case_file::CaseError;

/// Every 2D shape, by its `shape` value; the order is that of the rule naming them.
pub(crate) const SHAPES: &[&dyn PlaneShape] =
    &[&square::Square, &grid_box::GridBox, &mesh_file::MeshFile];

/// A shape a 2D body is generated as: the keys it reads and the mesh it builds from them.
pub(crate) trait PlaneShape: ShapeKeys {
    /// Its mesh's size from body `b`'s keys, when they are in their ranges (before any mesh
    /// is built); None where only the built mesh knows (a file).
    fn size(&self, _b: &BodySection) -> Option<MeshSize> {
        None
    }

    /// Its mesh for body `input.name`, placed at its centre and rotation.
    fn generate(&self, input: &PlaneInput) -> Result<Placed, CaseError>;
}

/// What a generator is given: the body's section, where it is placed and what it is made of.
pub(crate) struct PlaneInput<'a> {
    /// The body's keys (its name and the case file's validator).
    pub keys: BodyKeys<'a>,
    /// Its section of the case file.
    pub b: &'a BodySection,
    /// The case file (mesh files are relative to its folder).
    pub case: Option<&'a Path>,
    /// Its centre at t = 0, m.
    pub centre: Vec2,
    /// Its rotation about the centre at t = 0, rad (counter-clockwise).
    pub rotation: f64,
    /// What it is made of (a neo-Hookean grid's masses follow its triangles).
    pub material: Material,
}

/// A generated 2D body: its mesh at t = 0, its nodes in its own frame and two reference nodes.
pub(crate) struct Placed {
    /// The mesh, placed.
    pub mesh: Mesh,
    /// Its nodes at rest in its own frame (before rotation and placement), m.
    pub local: Vec<Vec2>,
    /// Two nodes whose joining edge gives its rotation.
    pub reference: [usize; 2],
}

/// Every shape key of a body's section and whether it is given, in the order a key not read
/// by the body's shape is reported.
pub(crate) fn shape_keys(b: &BodySection) -> [(&'static str, bool); 7] {
    [
        ("file", b.file.is_some()),
        ("side", b.side.is_some()),
        ("n_seg", b.n_seg.is_some()),
        ("width", b.width.is_some()),
        ("height", b.height.is_some()),
        ("nx", b.nx.is_some()),
        ("ny", b.ny.is_some()),
    ]
}

/// A cell count in its range (1 to 1000), for sizing before the body's own validation has run.
pub(crate) fn count_in_range(n: Option<usize>) -> Option<usize> {
    n.filter(|n| (1..=1000).contains(n))
}

impl<'a> std::ops::Deref for PlaneInput<'a> {
    type Target = BodyKeys<'a>;

    fn deref(&self) -> &BodyKeys<'a> {
        &self.keys
    }
}

impl PlaneInput<'_> {
    /// A grid of `nx` × `ny` cells sized from its keys before it is built (issue 41): refused
    /// at key `k`, quoting `keys`, when over the limits.
    pub fn sized(&self, k: &str, nx: usize, ny: usize, keys: String) -> Result<(), CaseError> {
        match rectangle_size(nx, ny).over_limits_of("triangles") {
            Some(rule) => Err(self.v.invalid(&self.key(k), &rule, keys)),
            None => Ok(()),
        }
    }

    /// A generated grid `mesh` of `nx` × `ny` cells of `width` × `height` (m) as a body: its
    /// nodes in its own frame (node i·(ny + 1) + j at (−w/2 + i w/nx, −h/2 + j h/ny)), its
    /// reference nodes the first column's ends, and, neo-Hookean, its masses lumped from its
    /// triangles (the mass-spring grids keep the book's even spread).
    pub fn grid(&self, mesh: Mesh, nx: usize, ny: usize, width: f64, height: f64) -> Placed {
        let (w, h) = (width, height);
        let local = (0..=nx)
            .flat_map(|i| {
                (0..=ny).map(move |j| {
                    Vec2::new(
                        -w / 2.0 + i as f64 * w / nx as f64,
                        -h / 2.0 + j as f64 * h / ny as f64,
                    )
                })
            })
            .collect();
        let mesh = match self.material {
            Material::MassSpring { .. } => mesh,
            Material::NeoHookean(_) => mesh.with_area_lumped_masses(self.b.density),
        };
        Placed {
            mesh,
            local,
            reference: [0, ny],
        }
    }
}
