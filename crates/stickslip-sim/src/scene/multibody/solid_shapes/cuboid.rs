//! `shape = "cuboid"`: a box of nx × ny × nz cells, six tetrahedra each
//! ([`crate::scene::bodies::cuboid`], SPEC.md §7).

use super::{Generated, ShapeGenerator, ShapeInput, count_in_range};
use crate::energy::Vec3;
use crate::scene::bodies::cuboid::{cuboid, cuboid_size};
use crate::scene::bodies::mesh_rules::MeshSize;
use crate::scene::case_file::CaseError;
use crate::scene::multibody::shape_registry::ShapeKeys;
use crate::scene::multibody::solid_body::SolidShape;
use crate::scene::multibody::solid_schema::SolidBodySection;

/// The cuboid: `width`, `depth`, `height` (m, along its local x, y, z) and the cells along
/// them, `nx`, `ny`, `nz`.
pub(crate) struct Cuboid;

impl ShapeKeys for Cuboid {
    fn name(&self) -> &'static str {
        "cuboid"
    }

    fn keys(&self) -> &'static [&'static str] {
        &["width", "depth", "height", "nx", "ny", "nz"]
    }
}

impl ShapeGenerator for Cuboid {
    fn size(&self, b: &SolidBodySection) -> Option<MeshSize> {
        Some(cuboid_size([
            count_in_range(b.nx, 1)?,
            count_in_range(b.ny, 1)?,
            count_in_range(b.nz, 1)?,
        ]))
    }

    fn generate(&self, s: &ShapeInput) -> Result<Generated, CaseError> {
        let b = s.b;
        let size = Vec3::new(
            s.need("width", b.width)?,
            s.need("depth", b.depth)?,
            s.need("height", b.height)?,
        );
        let cells = [
            s.need_count("nx", b.nx, 1)?,
            s.need_count("ny", b.ny, 1)?,
            s.need_count("nz", b.nz, 1)?,
        ];
        let [nx, ny, nz] = cells;
        s.sized(
            "nx",
            cuboid_size(cells),
            format!("nx, ny, nz = {nx}, {ny}, {nz}"),
        )?;
        let mesh = cuboid(size, cells, s.centre, s.rotation, b.density)
            .map_err(|e| s.mesh_error("shape", &e))?;
        Ok(Generated {
            mesh,
            shape: SolidShape::Cuboid(size),
            axis: [0, cells[2]],
        })
    }
}
