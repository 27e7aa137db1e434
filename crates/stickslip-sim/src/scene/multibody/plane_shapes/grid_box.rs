//! `shape = "box"`: a rectangle of `nx` × `ny` cells ([`crate::scene::bodies::rectangle`],
//! SPEC.md §7).

use super::{Placed, PlaneInput, PlaneShape, count_in_range};
use crate::scene::bodies::mesh_rules::MeshSize;
use crate::scene::bodies::rectangle::{rectangle, rectangle_size};
use crate::scene::case_file::CaseError;
use crate::scene::multibody::schema::BodySection;
use crate::scene::multibody::shape_registry::ShapeKeys;

/// The box: `width` × `height` (m) of `nx` × `ny` cells.
pub(crate) struct GridBox;

impl ShapeKeys for GridBox {
    fn name(&self) -> &'static str {
        "box"
    }

    fn keys(&self) -> &'static [&'static str] {
        &["width", "height", "nx", "ny"]
    }
}

impl PlaneShape for GridBox {
    fn size(&self, b: &BodySection) -> Option<MeshSize> {
        count_in_range(b.nx)
            .zip(count_in_range(b.ny))
            .map(|(x, y)| rectangle_size(x, y))
    }

    fn generate(&self, s: &PlaneInput) -> Result<Placed, CaseError> {
        let b = s.b;
        let (w, h) = (s.need("width", b.width)?, s.need("height", b.height)?);
        let (nx, ny) = (s.need_count("nx", b.nx, 1)?, s.need_count("ny", b.ny, 1)?);
        s.sized("nx", nx, ny, format!("nx, ny = {nx}, {ny}"))?;
        let area = b.contact_area.unwrap_or(w / nx as f64);
        let mesh = rectangle(w, h, nx, ny, s.centre, s.rotation, b.density, area);
        Ok(s.grid(mesh, nx, ny, w, h))
    }
}
