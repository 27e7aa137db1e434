//! `shape = "ellipsoid"`: a cube of tetrahedra mapped onto an ellipsoid
//! ([`crate::scene::bodies::ellipsoid`], SPEC.md §5, §7).

use super::{Generated, ShapeGenerator, ShapeInput, count_in_range};
use crate::energy::Vec3;
use crate::scene::bodies::ellipsoid::{ellipsoid, ellipsoid_size};
use crate::scene::bodies::mesh_rules::MeshSize;
use crate::scene::case_file::CaseError;
use crate::scene::multibody::shape_registry::ShapeKeys;
use crate::scene::multibody::solid_body::SolidShape;
use crate::scene::multibody::solid_schema::SolidBodySection;

/// The ellipsoid: `semi_axes` (m, along its local x, y, z) and `cells` a side of the cube
/// mapped onto it.
pub(crate) struct Ellipsoid;

impl ShapeKeys for Ellipsoid {
    fn name(&self) -> &'static str {
        "ellipsoid"
    }

    fn keys(&self) -> &'static [&'static str] {
        &["semi_axes", "cells"]
    }
}

impl ShapeGenerator for Ellipsoid {
    fn size(&self, b: &SolidBodySection) -> Option<MeshSize> {
        Some(ellipsoid_size(count_in_range(b.cells, 2)?))
    }

    fn generate(&self, s: &ShapeInput) -> Result<Generated, CaseError> {
        let b = s.b;
        let axes = b
            .semi_axes
            .ok_or_else(|| s.v.invalid(&s.key("semi_axes"), "missing", "nothing"))?;
        s.v.finite_n(&s.key("semi_axes"), axes)?;
        if let Some(a) = axes.iter().find(|a| **a <= 0.0) {
            return Err(s.v.invalid(&s.key("semi_axes"), "must be > 0", a));
        }
        ellipsoid_of(s, Vec3::from(axes))
    }
}

/// The ellipsoid of semi-axes `axes` (m, checked > 0) for body `s` from its key `cells`: sized,
/// built, and its axis nodes its poles along the local z (an ellipsoid's and a sphere's alike).
pub(super) fn ellipsoid_of(s: &ShapeInput, axes: Vec3) -> Result<Generated, CaseError> {
    let cells = s.need_count("cells", s.b.cells, 2)?;
    s.sized("cells", ellipsoid_size(cells), format!("cells = {cells}"))?;
    let mesh = ellipsoid(axes, cells, s.centre, s.rotation, s.b.density)
        .map_err(|e| s.mesh_error("shape", &e))?;
    let axis = s.axis_nodes(&mesh.x0);
    Ok(Generated {
        mesh,
        shape: SolidShape::Ellipsoid(axes),
        axis,
    })
}
