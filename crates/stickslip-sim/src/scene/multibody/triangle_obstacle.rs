//! A static triangle-mesh obstacle of a 3D scene (`type = "triangle_mesh"`, SPEC.md §7; issue
//! 21): a ramp, a step, a bowl, any surface of triangles, open or closed. As a 2D polyline is,
//! its vertices are nodes held fixed in the state vector, and its vertices, edges and triangles
//! join the bodies' boundary surface numbered as the obstacle: the point–triangle and edge–edge
//! pairs then serve body–obstacle contact as they serve body–body contact (never obstacle with
//! obstacle).
//!
//! Contact weights (m²) as the bodies': a vertex's is a third of the area of each triangle it is
//! on (ipc-toolkit's vertex area); an edge's, computed by the edge–edge source, a third of each
//! triangle on it.

use nalgebra::Vector3;

use super::solid_schema::SolidObstacleSection;
use crate::contact::ContactSurface;
use crate::energy::Vec3;
use crate::scene::case_file::{CaseError, Validator};

/// A mesh whose vertices are all within this fraction of its extent from one plane is flat
/// ([`TriangleObstacle::plane`]): rounding of coordinates written to 7–9 digits, far below any
/// intended relief.
pub const PLANAR_TOLERANCE: f64 = 1e-6;

/// A validated triangle-mesh obstacle.
#[derive(Clone, Debug, PartialEq)]
pub struct TriangleObstacle {
    /// Its vertices, m.
    pub vertices: Vec<Vec3>,
    /// Its triangles, three vertex indices each.
    pub triangles: Vec<[usize; 3]>,
    /// Every vertex's contact area, m².
    pub contact_area: Vec<f64>,
}

impl TriangleObstacle {
    /// The obstacle of `vertices` and `triangles` (indices valid, areas positive).
    pub fn new(vertices: Vec<Vec3>, triangles: Vec<[usize; 3]>) -> TriangleObstacle {
        let mut contact_area = vec![0.0; vertices.len()];
        for t in &triangles {
            let third = triangle_area(&t.map(|i| vertices[i])) / 3.0;
            for &i in t {
                contact_area[i] += third;
            }
        }
        TriangleObstacle {
            vertices,
            triangles,
            contact_area,
        }
    }

    /// Its edges, each once, the lower vertex first.
    pub fn edges(&self) -> Vec<[usize; 2]> {
        let mut edges: Vec<[usize; 2]> = self
            .triangles
            .iter()
            .flat_map(|t| (0..3).map(move |k| [t[k], t[(k + 1) % 3]]))
            .map(|[p, q]| [p.min(q), p.max(q)])
            .collect();
        edges.sort_unstable();
        edges.dedup();
        edges
    }

    /// The plane it lies in, as (unit normal, a point on it, m), when every vertex is within
    /// [`PLANAR_TOLERANCE`] of its extent from the plane through the first triangle; `None`
    /// for a mesh that is not flat. The normal's sign is the first triangle's winding.
    pub fn plane(&self) -> Option<(Vec3, Vec3)> {
        let t = self.triangles.first()?.map(|i| self.vertices[i]);
        let n = (t[1] - t[0]).cross(&(t[2] - t[0])).normalize();
        let extent = self
            .vertices
            .iter()
            .map(|v| (v - t[0]).norm())
            .fold(0.0, f64::max);
        self.vertices
            .iter()
            .all(|v| n.dot(&(v - t[0])).abs() <= PLANAR_TOLERANCE * extent)
            .then_some((n, t[0]))
    }

    /// Adds its vertices (with their areas), edges and triangles to `surface` as member
    /// `number`, its vertex i being node `offset + i`.
    pub fn push_boundary(&self, offset: usize, number: usize, surface: &mut ContactSurface) {
        for (i, &a) in self.contact_area.iter().enumerate() {
            surface.push(offset + i, a, number);
        }
        for [p, q] in self.edges() {
            surface.push_edge([offset + p, offset + q], number);
        }
        for t in &self.triangles {
            surface.push_triangle(t.map(|i| offset + i), number);
        }
    }
}

/// The area of triangle `t`, m².
fn triangle_area(t: &[Vec3; 3]) -> f64 {
    0.5 * (t[1] - t[0]).cross(&(t[2] - t[0])).norm()
}

/// The keys of a half-space, which a triangle mesh does not take.
const HALF_SPACE_KEYS: [&str; 4] = ["normal", "angle_deg", "point", "velocity"];

impl Validator<'_> {
    /// `[obstacles.NAME]` with `type = "triangle_mesh"`: `vertices` (m, finite, at least three),
    /// `triangles` (at least one, indices into `vertices`, each of positive area, every vertex
    /// on one).
    pub(super) fn solid_triangle_mesh(
        &self,
        name: &str,
        o: &SolidObstacleSection,
    ) -> Result<TriangleObstacle, CaseError> {
        let key = |k: &str| format!("obstacles.{name}.{k}");
        let given = [
            o.normal.is_some(),
            o.angle_deg.is_some(),
            o.point.is_some(),
            o.velocity.is_some(),
        ];
        if let Some(k) = HALF_SPACE_KEYS.iter().zip(given).find(|(_, g)| *g) {
            return Err(self.invalid(
                &key(k.0),
                "belongs to a half-space; a triangle mesh takes vertices and triangles",
                "given",
            ));
        }
        let vertices = o.vertices.as_ref().ok_or_else(|| {
            self.invalid(
                &key("vertices"),
                "missing: [[x, y, z], ...] in m",
                "nothing",
            )
        })?;
        if vertices.len() < 3 {
            return Err(self.invalid(
                &key("vertices"),
                "needs at least 3 vertices",
                vertices.len(),
            ));
        }
        for (i, p) in vertices.iter().enumerate() {
            self.finite_n(&format!("{}[{i}]", key("vertices")), *p)?;
        }
        let vertices: Vec<Vec3> = vertices.iter().map(|p| Vector3::from(*p)).collect();
        let triangles = o.triangles.as_ref().ok_or_else(|| {
            self.invalid(
                &key("triangles"),
                "missing: [[i, j, k], ...], indices into vertices",
                "nothing",
            )
        })?;
        if triangles.is_empty() {
            return Err(self.invalid(&key("triangles"), "needs at least one triangle", "none"));
        }
        let mut used = vec![false; vertices.len()];
        for (k, t) in triangles.iter().enumerate() {
            if let Some(&i) = t.iter().find(|&&i| i >= vertices.len()) {
                return Err(self.invalid(
                    &key("triangles"),
                    &format!("indices must be below the {} vertices", vertices.len()),
                    format!("triangle {k} names vertex {i}"),
                ));
            }
            let area = triangle_area(&t.map(|i| vertices[i]));
            // A triangle whose area is below the rounding of its edges' lengths is degenerate.
            let scale = t
                .iter()
                .map(|&i| vertices[i].norm())
                .fold(0.0, f64::max)
                .max(1.0);
            if area.is_nan() || area <= 1e-12 * scale * scale {
                return Err(self.invalid(
                    &key("triangles"),
                    "every triangle must have a positive area (three distinct, non-collinear vertices)",
                    format!("triangle {k} = {t:?} has area {area:e} m^2"),
                ));
            }
            for &i in t {
                used[i] = true;
            }
        }
        if let Some(i) = used.iter().position(|u| !u) {
            return Err(self.invalid(
                &key("vertices"),
                "every vertex must be on a triangle",
                format!("vertex {i} is on none"),
            ));
        }
        Ok(TriangleObstacle::new(vertices, triangles.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two triangles of a unit square: four vertices, five edges (the diagonal once), and the
    /// areas, a third of each triangle a vertex is on, summing to the square's 1 m².
    #[test]
    fn a_square_of_two_triangles_has_five_edges_and_its_area_shared_by_thirds() {
        let v = vec![
            Vector3::new(0.0, 0.0, 0.0),
            Vector3::new(1.0, 0.0, 0.0),
            Vector3::new(1.0, 1.0, 0.0),
            Vector3::new(0.0, 1.0, 0.0),
        ];
        let m = TriangleObstacle::new(v, vec![[0, 1, 2], [0, 2, 3]]);
        assert_eq!(m.edges(), vec![[0, 1], [0, 2], [0, 3], [1, 2], [2, 3]]);
        let third = 0.5 / 3.0;
        assert_eq!(m.contact_area, vec![2.0 * third, third, 2.0 * third, third]);
        let mut s = ContactSurface::default();
        m.push_boundary(10, 3, &mut s);
        assert_eq!(s.vertices, vec![10, 11, 12, 13]);
        assert_eq!(s.triangles, vec![[10, 11, 12], [10, 12, 13]]);
        assert!(
            s.body
                .iter()
                .chain(&s.edge_body)
                .chain(&s.triangle_body)
                .all(|&b| b == 3)
        );
    }

    /// A flat mesh has its plane, tilted or not, whatever its triangles' shapes; a vertex lifted
    /// by 10⁻³ of the extent makes it not flat, one lifted by 10⁻⁸ (rounding of its
    /// coordinates) does not.
    #[test]
    fn a_flat_mesh_has_a_plane_and_a_relief_has_none() {
        let tilt = nalgebra::Rotation3::from_axis_angle(&Vector3::y_axis(), 0.35);
        let square = |lift: f64| {
            let v = vec![
                Vector3::new(0.0, 0.0, 0.0),
                Vector3::new(2.0, 0.0, 0.0),
                Vector3::new(2.0, 1.0, lift),
                Vector3::new(0.0, 1.0, 0.0),
                Vector3::new(1.0, 0.5, 0.0),
            ]
            .into_iter()
            .map(|p| tilt * p + Vector3::new(0.3, -1.0, 2.0))
            .collect();
            TriangleObstacle::new(v, vec![[0, 1, 4], [1, 2, 4], [2, 3, 4], [3, 0, 4]])
        };
        let (n, p) = square(0.0).plane().unwrap();
        assert!((n - tilt * Vector3::z()).norm() < 1e-12, "{n}");
        assert!((p - Vector3::new(0.3, -1.0, 2.0)).norm() < 1e-12);
        assert!(square(1e-8).plane().is_some());
        assert!(square(2e-3).plane().is_none());
    }
}
