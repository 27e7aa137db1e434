//! The start of a scene must be a state the barrier allows (SPEC.md §7): every node of a body
//! outside every half-space, and no two bodies, nor a body and a polyline, closer than d̂ or
//! overlapping. Checked once on load; each refusal names both parties.

use super::geometry::Geometry;
use super::{BodySpec, ObstacleShape, ObstacleSpec};
use crate::contact::ContactPair;
use crate::contact::broad_phase::{Aabb, SweepAndPrune};
use crate::contact::candidates::CandidateSource;
use crate::contact::candidates::point_edge::PointEdgeSource;
use crate::energy::Vec2;
use crate::scene::case_file::{CaseError, Validator};
use crate::scene::limits::MIN_START_CLEARANCE_OF_DHAT;

impl Validator<'_> {
    /// Every node clear of every half-space by [`MIN_START_CLEARANCE_OF_DHAT`] d̂; no body
    /// within d̂ of another body or of a polyline, no boundaries crossing, and no body (or
    /// polyline) inside another body.
    pub(super) fn clearances(
        &self,
        bodies: &[BodySpec],
        obstacles: &[ObstacleSpec],
        geometry: &Geometry,
        dhat: f64,
    ) -> Result<(), CaseError> {
        let clearance = MIN_START_CLEARANCE_OF_DHAT * dhat;
        for b in bodies {
            for o in obstacles {
                let Some(hs) = o.half_space() else { continue };
                for (i, x) in b.mesh.x0.iter().enumerate() {
                    let d = hs.distance(x);
                    if d < clearance || d.is_nan() {
                        return Err(self.invalid(
                            &format!("bodies.{}.centre", b.name),
                            &format!(
                                "every node must start at least {clearance:e} m (1e-3 barrier.dhat) outside obstacle `{}`",
                                o.name
                            ),
                            format!("node {i} at signed distance {d:e} m"),
                        ));
                    }
                }
            }
        }
        let name = |k: usize| -> &str {
            if k < bodies.len() {
                &bodies[k].name
            } else {
                &obstacles[k - bodies.len()].name
            }
        };
        let local = |node: usize| -> (usize, usize) {
            match geometry.bodies.iter().position(|r| r.contains(&node)) {
                Some(k) => (k, node - geometry.bodies[k].start),
                None => {
                    let (o, r) = geometry
                        .polylines
                        .iter()
                        .find(|(_, r)| r.contains(&node))
                        .expect("every boundary node is a body's or a polyline's");
                    (bodies.len() + o, node - r.start)
                }
            }
        };
        let apart = |a: usize, b: usize, what: String| -> CaseError {
            // The key is the later body's (or the body's, against an obstacle).
            let n = bodies.len();
            let (body, other) = if b >= n || (a < n && a > b) {
                (a, b)
            } else {
                (b, a)
            };
            self.invalid(
                &format!("bodies.{}.centre", name(body)),
                &format!(
                    "`{}` and `{}` must start more than barrier.dhat = {dhat} m apart, and not overlap",
                    name(body),
                    name(other)
                ),
                what,
            )
        };
        // Within d̂: a vertex near an edge.
        let x0 = &geometry.x0;
        let mut source = PointEdgeSource::<2>::new(&geometry.boundary, bodies.len());
        let mut close = Vec::new();
        source.candidates(x0, None, dhat, &mut close);
        if let Some(pair) = close.first() {
            let (a, b) = pair.bodies;
            let (_, vertex) = local(pair.nodes[0]);
            let d = ContactPair::<2>::distance(pair, x0);
            return Err(apart(
                a,
                b,
                format!(
                    "node {vertex} of `{}` is {d:e} m from an edge of `{}`",
                    name(a),
                    name(b)
                ),
            ));
        }
        // Crossing boundaries: two edges that cross (their ends can all be far from the other).
        let edges = &geometry.boundary.edges;
        let owner = &geometry.boundary.edge_body;
        let boxes: Vec<Aabb<2>> = edges
            .iter()
            .map(|&[p, q]| Aabb::around(&[x0[p], x0[q]], 0.0))
            .collect();
        let mut crossing = None;
        SweepAndPrune::default().overlaps(&boxes, &boxes, |i, j| {
            let (a, b) = (owner[i], owner[j]);
            if crossing.is_none()
                && i < j
                && a != b
                && !(a >= bodies.len() && b >= bodies.len())
                && cross(
                    &x0[edges[i][0]],
                    &x0[edges[i][1]],
                    &x0[edges[j][0]],
                    &x0[edges[j][1]],
                )
            {
                crossing = Some((a, b));
            }
        });
        if let Some((a, b)) = crossing {
            return Err(apart(
                a,
                b,
                format!("their boundaries cross (`{}` and `{}`)", name(a), name(b)),
            ));
        }
        // One inside another with no boundary crossing: then any one point of it is inside.
        for (k, b) in bodies.iter().enumerate() {
            let outline = b.mesh.boundary_edges();
            let inside = |p: &Vec2| b.mesh.contains_or_near(&outline, p, 0.0);
            for (j, other) in bodies.iter().enumerate() {
                if j != k && inside(&other.mesh.x0[0]) {
                    return Err(apart(
                        j,
                        k,
                        format!("`{}` is inside `{}`", other.name, b.name),
                    ));
                }
            }
            for (o, ob) in obstacles.iter().enumerate() {
                if let ObstacleShape::Polyline { points, .. } = &ob.shape
                    && inside(&points[0])
                {
                    return Err(apart(
                        k,
                        bodies.len() + o,
                        format!("polyline `{}` is inside `{}`", ob.name, b.name),
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Whether segments [a, b] and [c, d] cross: each one's ends strictly on either side of the
/// other's line.
fn cross(a: &Vec2, b: &Vec2, c: &Vec2, d: &Vec2) -> bool {
    let side = |p: &Vec2, q: &Vec2, r: &Vec2| (q - p).perp(&(r - p));
    let (s1, s2) = (side(a, b, c), side(a, b, d));
    let (s3, s4) = (side(c, d, a), side(c, d, b));
    s1 * s2 < 0.0 && s3 * s4 < 0.0
}
