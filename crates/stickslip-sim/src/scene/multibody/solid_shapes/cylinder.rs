//! `shape = "cylinder"`: a cylinder or puck of tetrahedra
//! ([`crate::scene::bodies::cylinder`], SPEC.md §7).

use super::{Generated, ShapeGenerator, ShapeInput, count_in_range};
use crate::scene::bodies::cylinder::{cylinder, cylinder_size};
use crate::scene::bodies::mesh_rules::MeshSize;
use crate::scene::case_file::CaseError;
use crate::scene::multibody::shape_registry::ShapeKeys;
use crate::scene::multibody::solid_body::SolidShape;
use crate::scene::multibody::solid_schema::SolidBodySection;

/// The cylinder: `radius` and `height` (m, its axis the local z), `segments` nodes on its rim,
/// `rings` rings of its cross-section and `layers` layers along its axis.
pub(crate) struct Cylinder;

impl ShapeKeys for Cylinder {
    fn name(&self) -> &'static str {
        "cylinder"
    }

    fn keys(&self) -> &'static [&'static str] {
        &["radius", "height", "segments", "rings", "layers"]
    }
}

impl ShapeGenerator for Cylinder {
    fn size(&self, b: &SolidBodySection) -> Option<MeshSize> {
        Some(cylinder_size(
            count_in_range(b.segments, 3)?,
            count_in_range(b.rings, 1)?,
            count_in_range(b.layers, 1)?,
        ))
    }

    fn generate(&self, s: &ShapeInput) -> Result<Generated, CaseError> {
        let b = s.b;
        let (radius, height) = (s.need("radius", b.radius)?, s.need("height", b.height)?);
        let segments = s.need_count("segments", b.segments, 3)?;
        let rings = s.need_count("rings", b.rings, 1)?;
        let layers = s.need_count("layers", b.layers, 1)?;
        s.sized(
            "segments",
            cylinder_size(segments, rings, layers),
            format!("segments, rings, layers = {segments}, {rings}, {layers}"),
        )?;
        let mesh = cylinder(
            radius, height, segments, rings, layers, s.centre, s.rotation, b.density,
        )
        .map_err(|e| s.mesh_error("rings", &e))?;
        let disk = mesh.len() / (layers + 1);
        Ok(Generated {
            mesh,
            shape: SolidShape::Cylinder { radius, height },
            axis: [0, layers * disk],
        })
    }
}
