//! Point–triangle pairs (SPEC.md §7, IPC in 3D): a boundary vertex of one body against a
//! boundary triangle of another. The distance is the unsigned distance from the point to the
//! triangle (`contact::distance::point_triangle`), curved in x, so the barrier takes its general
//! path (projected to PSD); the tangent frame is at the closest points (normal from the
//! triangle to the point, weights 1, −w₀, −w₁, −w₂ with w the closest point's barycentric
//! weights: friction acts on the point's velocity relative to the triangle's closest point);
//! the step filter is additive CCD (`contact::ccd`).
//!
//! Every boundary vertex is tested against the triangles of every other body, so where two
//! bodies touch, both sides' vertices make pairs; each pair's barrier is weighted by
//! [`AREA_WEIGHT`] of its vertex's contact area, as point–edge pairs are in 2D. A vertex is never
//! paired with its own body's triangles (no self-contact), nor an obstacle's vertex with an
//! obstacle's triangle (both are fixed).
//!
//! The broad phase is sort and sweep (`contact::broad_phase`) over each vertex's box of its path
//! x⁰ → x¹ grown by d̂ and each triangle's box of its path: every pair whose distance can be
//! below d̂ somewhere on the path has overlapping boxes, so it is listed.

use super::CandidateSource;
use crate::contact::ContactSurface;
use crate::contact::broad_phase::{Aabb, SweepAndPrune};
use crate::contact::ccd::{additive_ccd, rate};
use crate::contact::distance::point_triangle;
use crate::contact::pair::{ContactPair, MAX_STENCIL, TangentFrame, tangent_basis};
use crate::energy::Vector;

/// The fraction of a vertex's contact area a point–triangle pair is weighted by (module
/// comment).
pub const AREA_WEIGHT: f64 = 0.5;

/// A boundary vertex against a boundary triangle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PointTriangle {
    /// The point's node, then the triangle's three nodes.
    pub nodes: [usize; 4],
    /// The vertex's index in its source.
    pub vertex: u32,
    /// The triangle's index in its source.
    pub triangle: u32,
    /// The barrier's weight, m².
    pub area: f64,
    /// The point's body and the triangle's, as the friction table numbers them.
    pub bodies: (usize, usize),
}

impl PointTriangle {
    fn at(&self, x: &[Vector<3>]) -> (Vector<3>, [Vector<3>; 3]) {
        let [p, a, b, c] = self.nodes;
        (x[p], [x[a], x[b], x[c]])
    }
}

impl ContactPair<3> for PointTriangle {
    const NAME: &'static str = "point-triangle";
    const NODES: usize = 4;
    const LINEAR: bool = false;

    fn nodes(&self) -> [usize; MAX_STENCIL] {
        self.nodes
    }

    /// Vertex-major: (vertex index, triangle index).
    fn key(&self) -> u64 {
        ((self.vertex as u64) << 32) | self.triangle as u64
    }

    fn area(&self) -> f64 {
        self.area
    }

    fn bodies(&self) -> (usize, usize) {
        self.bodies
    }

    fn distance(&self, x: &[Vector<3>]) -> f64 {
        let (p, t) = self.at(x);
        point_triangle::distance(&p, &t)
    }

    fn distance_gradient(&self, x: &[Vector<3>], out: &mut [Vector<3>; MAX_STENCIL]) {
        let (p, t) = self.at(x);
        *out = point_triangle::gradient(&p, &t);
    }

    fn distance_hessian(&self, x: &[Vector<3>], out: &mut [f64]) {
        let (p, t) = self.at(x);
        point_triangle::hessian(&p, &t, out);
    }

    fn frame(&self, x: &[Vector<3>]) -> TangentFrame<3> {
        let (p, t) = self.at(x);
        let w = point_triangle::closest(&p, &t);
        let q = t[0] * w[0] + t[1] * w[1] + t[2] * w[2];
        let normal = (p - q).normalize();
        TangentFrame {
            basis: tangent_basis(&normal),
            normal,
            weights: [1.0, -w[0], -w[1], -w[2]],
            surface_velocity: Vector::<3>::zeros(),
        }
    }

    fn max_step(&self, x: &[Vector<3>], p: &[Vector<3>], fraction: f64) -> f64 {
        let [i, a, b, c] = self.nodes;
        let l = rate(&[p[i]], &[p[a], p[b], p[c]]);
        additive_ccd(l, fraction, |alpha| {
            let at = |k: usize| x[k] + p[k] * alpha;
            point_triangle::distance(&at(i), &[at(a), at(b), at(c)])
        })
    }
}

/// The broad phase of point–triangle pairs over a contact surface's boundary.
#[derive(Clone, Debug)]
pub struct PointTriangleSource {
    /// (node, barrier weight, body) of every boundary vertex: a node of some triangle.
    points: Vec<(usize, f64, usize)>,
    /// (nodes, body) of every triangle.
    triangles: Vec<([usize; 3], usize)>,
    /// Bodies numbered from here on are obstacles (fixed): their vertices and triangles never
    /// pair.
    obstacles_from: usize,
    sweep: SweepAndPrune,
    point_boxes: Vec<Aabb<3>>,
    triangle_boxes: Vec<Aabb<3>>,
}

impl PointTriangleSource {
    /// The pairs of `surface`'s boundary: its vertices that lie on one of its triangles,
    /// against its triangles; `obstacles_from` is the friction table's number of the first
    /// obstacle.
    pub fn new(surface: &ContactSurface, obstacles_from: usize) -> Self {
        let on_triangle: std::collections::BTreeSet<usize> = surface
            .triangles
            .iter()
            .flat_map(|t| t.iter().copied())
            .collect();
        let points = (0..surface.len())
            .filter(|&i| on_triangle.contains(&surface.vertices[i]))
            .map(|i| {
                (
                    surface.vertices[i],
                    AREA_WEIGHT * surface.area[i],
                    surface.body[i],
                )
            })
            .collect();
        let triangles = surface
            .triangles
            .iter()
            .copied()
            .zip(surface.triangle_body.iter().copied())
            .collect();
        PointTriangleSource {
            points,
            triangles,
            obstacles_from,
            sweep: SweepAndPrune::default(),
            point_boxes: Vec::new(),
            triangle_boxes: Vec::new(),
        }
    }

    /// Boundary vertices.
    pub fn points(&self) -> usize {
        self.points.len()
    }

    /// Boundary triangles.
    pub fn triangles(&self) -> usize {
        self.triangles.len()
    }
}

impl CandidateSource<3> for PointTriangleSource {
    type Pair = PointTriangle;

    /// The pairs whose boxes overlap (at `x0` alone: whose distance is below d̂), vertex-major.
    fn candidates(
        &mut self,
        x0: &[Vector<3>],
        x1: Option<&[Vector<3>]>,
        dhat: f64,
        out: &mut Vec<PointTriangle>,
    ) {
        out.clear();
        let at = |node: usize| -> [Vector<3>; 2] {
            match x1 {
                Some(x1) => [x0[node], x1[node]],
                None => [x0[node], x0[node]],
            }
        };
        self.point_boxes.clear();
        self.point_boxes.extend(
            self.points
                .iter()
                .map(|&(n, _, _)| Aabb::around(&at(n), dhat)),
        );
        self.triangle_boxes.clear();
        self.triangle_boxes
            .extend(self.triangles.iter().map(|&([a, b, c], _)| {
                let (pa, pb, pc) = (at(a), at(b), at(c));
                Aabb::around(&[pa[0], pa[1], pb[0], pb[1], pc[0], pc[1]], 0.0)
            }));
        let (points, triangles, obstacles_from) =
            (&self.points, &self.triangles, self.obstacles_from);
        self.sweep
            .overlaps(&self.point_boxes, &self.triangle_boxes, |i, j| {
                let (node, area, body) = points[i];
                let (nodes, triangle_body) = triangles[j];
                if body == triangle_body
                    || (body >= obstacles_from && triangle_body >= obstacles_from)
                    || nodes.contains(&node)
                {
                    return;
                }
                let pair = PointTriangle {
                    nodes: [node, nodes[0], nodes[1], nodes[2]],
                    vertex: i as u32,
                    triangle: j as u32,
                    area,
                    bodies: (body, triangle_body),
                };
                if x1.is_none() {
                    let d = pair.distance(x0);
                    if !(d < dhat || d.is_nan()) {
                        return;
                    }
                }
                out.push(pair);
            });
        out.sort_unstable_by_key(ContactPair::<3>::key);
    }

    fn min_distance(&self, x: &[Vector<3>], candidates: &[PointTriangle]) -> f64 {
        candidates
            .iter()
            .map(|p| p.distance(x))
            .fold(
                f64::INFINITY,
                |a, b| if b < a || b.is_nan() { b } else { a },
            )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contact::candidates::edge_edge::EdgeEdgeSource;
    use crate::contact::distance::edge_edge;
    use nalgebra::Vector3;

    fn lcg(s: &mut u64) -> f64 {
        *s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (*s >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Five little random triangle fans (four bodies and an obstacle), each with its triangles
    /// and their edges, near each other, and a random motion of every node.
    fn soup() -> (ContactSurface, Vec<Vector3<f64>>, Vec<Vector3<f64>>) {
        let mut s = 41u64;
        let mut surface = ContactSurface::default();
        let (mut x0, mut x1) = (Vec::new(), Vec::new());
        for body in 0..5 {
            let c = Vector3::new(lcg(&mut s), lcg(&mut s), lcg(&mut s)) * 0.12;
            let start = x0.len();
            for _ in 0..6 {
                let p = c + Vector3::new(lcg(&mut s), lcg(&mut s), lcg(&mut s)) * 0.08;
                x0.push(p);
                x1.push(p + Vector3::new(lcg(&mut s), lcg(&mut s), lcg(&mut s)) * 0.06);
                surface.push(x0.len() - 1, 0.01, body);
            }
            for k in 0..4 {
                let t = [start + k, start + k + 1, start + k + 2];
                surface.push_triangle(t, body);
                surface.push_edge([t[0], t[1]], body);
                surface.push_edge([t[0], t[2]], body);
            }
            surface.push_edge([start + 4, start + 5], body);
        }
        (surface, x0, x1)
    }

    fn allowed(a: usize, b: usize) -> bool {
        a != b && !(a >= 4 && b >= 4)
    }

    /// At x⁰ the sweeps list exactly the point–triangle and edge–edge pairs of different bodies
    /// (never two obstacle primitives) within d̂ that the test's own loops over every pair find;
    /// along x⁰ → x¹ they list every pair whose distance falls below d̂ at a sampled point.
    #[test]
    fn the_sweeps_find_every_pair_within_dhat() {
        let (surface, x0, x1) = soup();
        let dhat = 0.02;
        let at = |t: f64, n: usize| x0[n] + (x1[n] - x0[n]) * t;
        let mut points = PointTriangleSource::new(&surface, 4);
        let mut found = Vec::new();
        points.candidates(&x0, None, dhat, &mut found);
        let listed: Vec<(u32, u32)> = found.iter().map(|p| (p.vertex, p.triangle)).collect();
        let (mut expected, mut reached) = (Vec::new(), Vec::new());
        for i in 0..surface.len() {
            for (j, t) in surface.triangles.iter().enumerate() {
                let v = surface.vertices[i];
                if !allowed(surface.body[i], surface.triangle_body[j]) || t.contains(&v) {
                    continue;
                }
                let d = |s: f64| point_triangle::distance(&at(s, v), &t.map(|n| at(s, n)));
                if d(0.0) < dhat {
                    expected.push((i as u32, j as u32));
                }
                if (0..=50).any(|k| d(k as f64 / 50.0) < dhat) {
                    reached.push((i as u32, j as u32));
                }
            }
        }
        assert!(
            expected.len() > 5,
            "the fans must touch ({})",
            expected.len()
        );
        assert_eq!(listed, expected);
        points.candidates(&x0, Some(&x1), dhat, &mut found);
        let listed: Vec<(u32, u32)> = found.iter().map(|p| (p.vertex, p.triangle)).collect();
        assert!(reached.len() > expected.len());
        // Each pair is weighted by half its vertex's contact area (0.01 m² here).
        assert!(found.iter().all(|p| p.area == 0.005));
        for pair in &reached {
            assert!(listed.contains(pair), "point–triangle {pair:?} missed");
        }

        let mut edges = EdgeEdgeSource::new(&surface, &x0, 4);
        let mut found = Vec::new();
        edges.candidates(&x0, None, dhat, &mut found);
        let listed: Vec<(u32, u32)> = found.iter().map(|p| (p.first, p.second)).collect();
        let (mut expected, mut reached) = (Vec::new(), Vec::new());
        let e = &surface.edges;
        for i in 0..e.len() {
            for j in i + 1..e.len() {
                if !allowed(surface.edge_body[i], surface.edge_body[j]) {
                    continue;
                }
                let d = |s: f64| {
                    edge_edge::distance(&[
                        at(s, e[i][0]),
                        at(s, e[i][1]),
                        at(s, e[j][0]),
                        at(s, e[j][1]),
                    ])
                };
                if d(0.0) < dhat {
                    expected.push((i as u32, j as u32));
                }
                if (0..=50).any(|k| d(k as f64 / 50.0) < dhat) {
                    reached.push((i as u32, j as u32));
                }
            }
        }
        assert!(
            expected.len() > 3,
            "the edges must meet ({})",
            expected.len()
        );
        assert_eq!(listed, expected);
        edges.candidates(&x0, Some(&x1), dhat, &mut found);
        let listed: Vec<(u32, u32)> = found.iter().map(|p| (p.first, p.second)).collect();
        assert!(reached.len() > expected.len());
        for pair in &reached {
            assert!(listed.contains(pair), "edge–edge {pair:?} missed");
        }
    }
}
