//! `shape = "mesh"`: a Gmsh `.msh` triangle mesh ([`crate::scene::bodies::gmsh`]), its
//! area-weighted centroid placed at the body's centre.

use nalgebra::Rotation2;

use super::{Placed, PlaneInput, PlaneShape};
use crate::energy::Vec2;
use crate::energy::inversion::signed_area;
use crate::scene::Mesh;
use crate::scene::bodies::gmsh::read_triangle_mesh;
use crate::scene::case_file::CaseError;
use crate::scene::multibody::shape_registry::{ShapeKeys, mesh_path};

/// A mesh read from `file` (relative to the case file's folder).
pub(crate) struct MeshFile;

impl ShapeKeys for MeshFile {
    fn name(&self) -> &'static str {
        "mesh"
    }

    fn keys(&self) -> &'static [&'static str] {
        &["file"]
    }
}

impl PlaneShape for MeshFile {
    fn generate(&self, s: &PlaneInput) -> Result<Placed, CaseError> {
        let file =
            s.b.file
                .as_ref()
                .ok_or_else(|| s.v.invalid(&s.key("file"), "missing", "nothing"))?;
        let resolved = mesh_path(s.case, file);
        let read = read_triangle_mesh(&resolved, s.b.density, s.b.contact_area)
            .map_err(|e| s.v.invalid(&s.key("file"), &e.to_string(), file))?;
        Ok(placed_mesh(read, s.centre, s.rotation))
    }
}

/// A mesh read from a file, placed: its area-weighted centroid at `centre` (m), turned by
/// `rotation` (rad) about it; its reference nodes its leftmost and rightmost in its own frame.
fn placed_mesh(read: Mesh, centre: Vec2, rotation: f64) -> Placed {
    let area = read.area();
    let centroid = read
        .triangles
        .iter()
        .map(|&[a, b, c]| {
            let (pa, pb, pc) = (read.x0[a], read.x0[b], read.x0[c]);
            (pa + pb + pc) / 3.0 * signed_area(&pa, &pb, &pc)
        })
        .sum::<Vec2>()
        / area;
    let local: Vec<Vec2> = read.x0.iter().map(|p| p - centroid).collect();
    let rot = Rotation2::new(rotation);
    let x0 = local.iter().map(|p| centre + rot * p).collect();
    let by_x = |a: &&Vec2, b: &&Vec2| a.x.total_cmp(&b.x);
    let left = local
        .iter()
        .enumerate()
        .min_by(|a, b| by_x(&a.1, &b.1))
        .map_or(0, |(i, _)| i);
    let right = local
        .iter()
        .enumerate()
        .max_by(|a, b| by_x(&a.1, &b.1))
        .map_or(0, |(i, _)| i);
    let mesh = Mesh::new(x0, read.edges, read.triangles, read.mass, read.contact_area);
    Placed {
        mesh,
        local,
        reference: [left, right],
    }
}
