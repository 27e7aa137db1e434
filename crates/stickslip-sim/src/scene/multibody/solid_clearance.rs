//! The start of a 3D scene must be a state the barrier allows (SPEC.md §7): no two bodies, and
//! no body and triangle-mesh obstacle, closer than d̂ or overlapping. Checked once on load (the
//! half-spaces' clearance is checked in [`super::solid`]); each refusal names both.
//!
//! Three tests, each over a sort and sweep, never all pairs: a boundary vertex within d̂ of
//! another body's boundary triangle, or a boundary edge within d̂ of another's edge (the contact
//! pairs' own broad phases at t = 0); a boundary edge crossing another body's boundary
//! triangle (two surfaces that intersect, which the first test can miss where their triangles
//! are large); and one body wholly inside another (then its first node is inside one of the
//! other's tetrahedra).

use super::solid_body::SolidBodySpec;
use super::triangle_obstacle::TriangleObstacle;
use crate::contact::broad_phase::{Aabb, SweepAndPrune};
use crate::contact::candidates::CandidateSource;
use crate::contact::candidates::edge_edge::EdgeEdgeSource;
use crate::contact::candidates::point_triangle::PointTriangleSource;
use crate::contact::{ContactPair, ContactSurface};
use crate::energy::Vec3;
use crate::scene::case_file::{CaseError, Validator};
use crate::scene::limits::MIN_START_CLEARANCE_OF_DHAT;

/// Every body's nodes in one list (body by body), then every triangle mesh's vertices, and
/// their boundary surface, numbered as the friction table numbers them (the meshes from
/// `first_mesh` on); the state vector holds them in the same order.
pub fn solid_boundary(
    bodies: &[SolidBodySpec],
    meshes: &[(String, TriangleObstacle)],
    first_mesh: usize,
) -> (Vec<Vec3>, ContactSurface) {
    let mut x0 = Vec::new();
    let mut surface = ContactSurface::default();
    for (k, b) in bodies.iter().enumerate() {
        b.mesh.push_boundary(x0.len(), k, &mut surface);
        x0.extend_from_slice(&b.mesh.x0);
    }
    for (m, (_, mesh)) in meshes.iter().enumerate() {
        mesh.push_boundary(x0.len(), first_mesh + m, &mut surface);
        x0.extend_from_slice(&mesh.vertices);
    }
    (x0, surface)
}

impl Validator<'_> {
    /// No body within `dhat` (m) of another or of a triangle mesh, no boundaries crossing, no
    /// body inside another. `members` names the friction table's members (bodies, half-spaces,
    /// triangle meshes: the meshes are its last `meshes.len()`).
    pub(super) fn solid_clearances(
        &self,
        bodies: &[SolidBodySpec],
        meshes: &[(String, TriangleObstacle)],
        members: &[String],
        dhat: f64,
    ) -> Result<(), CaseError> {
        if bodies.len() < 2 && meshes.is_empty() {
            return Ok(());
        }
        let first_mesh = members.len() - meshes.len();
        let (x0, surface) = solid_boundary(bodies, meshes, first_mesh);
        let mut starts = Vec::with_capacity(bodies.len() + meshes.len());
        let mut n = 0;
        for len in bodies
            .iter()
            .map(|b| b.mesh.len())
            .chain(meshes.iter().map(|(_, m)| m.vertices.len()))
        {
            starts.push(n);
            n += len;
        }
        let local = |node: usize| -> usize {
            let k = starts.partition_point(|&s| s <= node) - 1;
            node - starts[k]
        };
        let nb = bodies.len();
        // A body near a triangle mesh is as near a half-space: allowed from 1e-3 d̂ (the barrier
        // holds it from the start); two bodies must start more than d̂ apart.
        let mesh_clearance = MIN_START_CLEARANCE_OF_DHAT * dhat;
        let too_close = |(a, b): (usize, usize), d: f64| {
            let limit = if a >= nb || b >= nb {
                mesh_clearance
            } else {
                dhat
            };
            d < limit || d.is_nan()
        };
        let apart = |a: usize, b: usize, what: String| -> CaseError {
            // The key is the later body's (the body's, beside a mesh).
            let (body, other) = if b >= nb || (a < nb && a > b) {
                (a, b)
            } else {
                (b, a)
            };
            let rule = if other >= nb {
                format!(
                    "`{}` must start at least {mesh_clearance:e} m (1e-3 barrier.dhat) from triangle mesh `{}`, and not cross it",
                    members[body], members[other]
                )
            } else {
                format!(
                    "`{}` and `{}` must start more than barrier.dhat = {dhat} m apart, and not overlap",
                    members[body], members[other]
                )
            };
            self.invalid(&format!("bodies.{}.centre", members[body]), &rule, what)
        };
        let mut points = PointTriangleSource::new(&surface, bodies.len());
        let mut close = Vec::new();
        points.candidates(&x0, None, dhat, &mut close);
        if let Some((pair, d)) = close
            .iter()
            .map(|p| (p, p.distance(&x0)))
            .find(|(p, d)| too_close(p.bodies, *d))
        {
            let (a, b) = pair.bodies;
            return Err(apart(
                a,
                b,
                format!(
                    "node {} of `{}` is {d:e} m from a boundary triangle of `{}`",
                    local(pair.nodes[0]),
                    members[a],
                    members[b]
                ),
            ));
        }
        let mut edges = EdgeEdgeSource::new(&surface, &x0, bodies.len());
        let mut close = Vec::new();
        edges.candidates(&x0, None, dhat, &mut close);
        if let Some((pair, d)) = close
            .iter()
            .map(|p| (p, p.distance(&x0)))
            .find(|(p, d)| too_close(p.bodies, *d))
        {
            let (a, b) = pair.bodies;
            return Err(apart(
                a,
                b,
                format!(
                    "a boundary edge of `{}` is {d:e} m from one of `{}`",
                    members[a], members[b]
                ),
            ));
        }
        // Crossing surfaces: a boundary edge through another body's boundary triangle.
        let edge_boxes: Vec<Aabb<3>> = surface
            .edges
            .iter()
            .map(|&[p, q]| Aabb::around(&[x0[p], x0[q]], 0.0))
            .collect();
        let triangle_boxes: Vec<Aabb<3>> = surface
            .triangles
            .iter()
            .map(|t| Aabb::around(&t.map(|n| x0[n]), 0.0))
            .collect();
        let mut crossing = None;
        SweepAndPrune::default().overlaps(&edge_boxes, &triangle_boxes, |i, j| {
            let (a, b) = (surface.edge_body[i], surface.triangle_body[j]);
            let [p, q] = surface.edges[i];
            let t = surface.triangles[j];
            if crossing.is_none()
                && a != b
                && (a < nb || b < nb)
                && segment_crosses_triangle(&x0[p], &x0[q], &t.map(|n| x0[n]))
            {
                crossing = Some((a, b));
            }
        });
        if let Some((a, b)) = crossing {
            return Err(apart(
                a,
                b,
                format!(
                    "their surfaces cross (`{}` and `{}`)",
                    members[a], members[b]
                ),
            ));
        }
        // One inside another with no surface crossing: then its first node is inside.
        for (k, b) in bodies.iter().enumerate() {
            for (j, other) in bodies.iter().enumerate() {
                if j != k && inside_tets(&b.mesh.x0, &b.mesh.tets, &other.mesh.x0[0]) {
                    return Err(apart(
                        j,
                        k,
                        format!("`{}` is inside `{}`", other.name, b.name),
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Whether the segment [p, q] passes through the triangle `t` (m): its ends strictly on either
/// side of the triangle's plane, and the point where it meets the plane inside the triangle
/// (barycentric weights all non-negative).
pub fn segment_crosses_triangle(p: &Vec3, q: &Vec3, t: &[Vec3; 3]) -> bool {
    let n = (t[1] - t[0]).cross(&(t[2] - t[0]));
    let (sp, sq) = (n.dot(&(p - t[0])), n.dot(&(q - t[0])));
    // Also false when either product is NaN (a degenerate triangle).
    if sp * sq >= 0.0 || (sp * sq).is_nan() {
        return false;
    }
    let s = sp / (sp - sq);
    let x = p + (q - p) * s;
    // Signed areas of the sub-triangles against the normal.
    (0..3).all(|i| {
        let (a, b) = (t[i], t[(i + 1) % 3]);
        n.dot(&(b - a).cross(&(x - a))) >= 0.0
    })
}

/// Whether point `x` (m) is inside (or on) one of the tetrahedra `tets` over nodes `nodes`.
pub fn inside_tets(nodes: &[Vec3], tets: &[[usize; 4]], x: &Vec3) -> bool {
    tets.iter().any(|t| {
        let [a, b, c, d] = t.map(|n| nodes[n]);
        let volume = |p: &Vec3, q: &Vec3, r: &Vec3, s: &Vec3| (q - p).dot(&(r - p).cross(&(s - p)));
        let whole = volume(&a, &b, &c, &d);
        let parts = [
            volume(x, &b, &c, &d),
            volume(&a, x, &c, &d),
            volume(&a, &b, x, &d),
            volume(&a, &b, &c, x),
        ];
        parts.iter().all(|v| v * whole >= 0.0)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::Vector3;

    /// A segment through a triangle's middle crosses it; one beside it, one stopping short of
    /// the plane, and one lying in the plane do not.
    #[test]
    fn a_segment_crosses_a_triangle_only_through_its_inside() {
        let t = [
            Vector3::new(0.0, 0.0, 0.0),
            Vector3::new(1.0, 0.0, 0.0),
            Vector3::new(0.0, 1.0, 0.0),
        ];
        let up =
            |x: f64, y: f64, lo: f64, hi: f64| (Vector3::new(x, y, lo), Vector3::new(x, y, hi));
        let (p, q) = up(0.2, 0.2, -1.0, 1.0);
        assert!(segment_crosses_triangle(&p, &q, &t));
        assert!(segment_crosses_triangle(&q, &p, &t));
        let (p, q) = up(0.8, 0.8, -1.0, 1.0);
        assert!(!segment_crosses_triangle(&p, &q, &t));
        let (p, q) = up(0.2, 0.2, 0.1, 1.0);
        assert!(!segment_crosses_triangle(&p, &q, &t));
        let (p, q) = (Vector3::new(-1.0, 0.3, 0.0), Vector3::new(2.0, 0.3, 0.0));
        assert!(!segment_crosses_triangle(&p, &q, &t));
    }

    /// A point at a tetrahedron's centroid is inside it (either orientation); one past a face is
    /// not.
    #[test]
    fn a_point_is_inside_a_tetrahedron_by_its_sub_volumes() {
        let nodes = [
            Vector3::new(0.0, 0.0, 0.0),
            Vector3::new(1.0, 0.0, 0.0),
            Vector3::new(0.0, 1.0, 0.0),
            Vector3::new(0.0, 0.0, 1.0),
        ];
        let centroid = nodes.iter().sum::<Vec3>() / 4.0;
        assert!(inside_tets(&nodes, &[[0, 1, 2, 3]], &centroid));
        assert!(inside_tets(&nodes, &[[0, 2, 1, 3]], &centroid));
        assert!(!inside_tets(
            &nodes,
            &[[0, 1, 2, 3]],
            &Vector3::new(0.5, 0.5, 0.5)
        ));
    }
}
