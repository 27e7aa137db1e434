//! `shape = "square"`: the book's square of side `side` and `n_seg` cells a side (SPEC.md §1;
//! [`crate::scene::bodies::square`], or, turned, [`crate::scene::bodies::rectangle`]).

use super::{Placed, PlaneInput, PlaneShape, count_in_range};
use crate::scene::bodies::mesh_rules::MeshSize;
use crate::scene::bodies::rectangle::{rectangle, rectangle_size};
use crate::scene::bodies::square::square;
use crate::scene::case_file::CaseError;
use crate::scene::multibody::schema::BodySection;
use crate::scene::multibody::shape_registry::ShapeKeys;

/// The square: `side` (m) and `n_seg` cells a side.
pub(crate) struct Square;

impl ShapeKeys for Square {
    fn name(&self) -> &'static str {
        "square"
    }

    fn keys(&self) -> &'static [&'static str] {
        &["side", "n_seg"]
    }
}

impl PlaneShape for Square {
    fn size(&self, b: &BodySection) -> Option<MeshSize> {
        count_in_range(b.n_seg).map(|n| rectangle_size(n, n))
    }

    fn generate(&self, s: &PlaneInput) -> Result<Placed, CaseError> {
        let b = s.b;
        let side = s.need("side", b.side)?;
        let n = s.need_count("n_seg", b.n_seg, 1)?;
        s.sized("n_seg", n, n, format!("n_seg = {n}"))?;
        let area = b.contact_area.unwrap_or(side / n as f64);
        let mesh = if s.rotation == 0.0 {
            square(side, n, s.centre, b.density, area)
        } else {
            rectangle(side, side, n, n, s.centre, s.rotation, b.density, area)
        };
        Ok(s.grid(mesh, n, n, side, side))
    }
}
