//! `shape = "mesh"`: a Gmsh `.msh` tetrahedral mesh ([`crate::scene::bodies::gmsh`]), its
//! mass-weighted centroid placed at the body's centre.

use super::{Generated, ShapeGenerator, ShapeInput};
use crate::scene::bodies::gmsh::read_tet_mesh;
use crate::scene::bodies::tet_mesh::centroid;
use crate::scene::case_file::CaseError;
use crate::scene::multibody::shape_registry::{ShapeKeys, mesh_path};
use crate::scene::multibody::solid_body::SolidShape;

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

impl ShapeGenerator for MeshFile {
    fn generate(&self, s: &ShapeInput) -> Result<Generated, CaseError> {
        let file =
            s.b.file
                .as_ref()
                .ok_or_else(|| s.v.invalid(&s.key("file"), "missing", "nothing"))?;
        let resolved = mesh_path(s.case, file);
        let mut mesh = read_tet_mesh(&resolved, s.b.density)
            .map_err(|e| s.v.invalid(&s.key("file"), &e.to_string(), file))?;
        let c = centroid(&mesh);
        for x in &mut mesh.x0 {
            *x = s.centre + s.rotation * (*x - c);
        }
        let axis = s.axis_nodes(&mesh.x0);
        Ok(Generated {
            mesh,
            shape: SolidShape::Mesh,
            axis,
        })
    }
}
