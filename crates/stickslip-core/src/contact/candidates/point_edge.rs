//! Point–edge pairs (SPEC.md §7, IPC in 2D): a boundary vertex of one body against a boundary
//! edge of another body or of a polyline obstacle. The distance is the unsigned distance from
//! the point to the segment (`contact::distance::point_edge`), curved in x, so the barrier takes
//! its general path (projected to PSD); the tangent frame is at the closest points (normal from
//! the edge to the point, weights 1, −(1 − t), −t: friction acts on the point's velocity
//! relative to the edge's closest point); the step filter is additive CCD (`contact::ccd`).
//!
//! Every boundary vertex is tested against the edges of every other body, so where two bodies
//! touch, both sides' vertices make pairs. As in ipc-toolkit's area weighting, each pair's
//! barrier is weighted by half its vertex's contact area, so that a flat contact between two
//! bodies meshed alike carries about the barrier a half-space contact of one of them does.
//! A vertex of a body is never paired with the body's own edges (no self-contact), nor an
//! obstacle's vertex with an obstacle's edge (both are fixed).
//!
//! The broad phase is sort and sweep (`contact::broad_phase`) over each vertex's box of its
//! path x⁰ → x¹ grown by d̂ and each edge's box of its path: every pair whose distance can be
//! below d̂ somewhere on the path has overlapping boxes, so it is listed.

use super::CandidateSource;
use crate::contact::ContactSurface;
use crate::contact::broad_phase::{Aabb, SweepAndPrune};
use crate::contact::ccd::{additive_ccd, rate};
use crate::contact::distance::point_edge;
use crate::contact::pair::{ContactPair, MAX_STENCIL, TangentFrame, tangent_basis};
use crate::energy::Vector;

/// The fraction of a vertex's contact area a point–edge pair is weighted by (module comment).
pub const AREA_WEIGHT: f64 = 0.5;

/// A boundary vertex against a boundary edge.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PointEdge {
    /// The point's node, then the edge's two nodes.
    pub nodes: [usize; 3],
    /// The vertex's index in the source.
    pub vertex: u32,
    /// The edge's index in the source.
    pub edge: u32,
    /// The barrier's weight: [`AREA_WEIGHT`] times the vertex's contact area, m^(D−1).
    pub area: f64,
    /// The point's body and the edge's, as the friction table numbers them.
    pub bodies: (usize, usize),
}

impl<const D: usize> ContactPair<D> for PointEdge {
    const NAME: &'static str = "point-edge";
    const NODES: usize = 3;
    const LINEAR: bool = false;

    fn nodes(&self) -> [usize; MAX_STENCIL] {
        [self.nodes[0], self.nodes[1], self.nodes[2], 0]
    }

    /// Vertex-major: (vertex index, edge index).
    fn key(&self) -> u64 {
        ((self.vertex as u64) << 32) | self.edge as u64
    }

    fn area(&self) -> f64 {
        self.area
    }

    fn bodies(&self) -> (usize, usize) {
        self.bodies
    }

    #[inline]
    fn distance(&self, x: &[Vector<D>]) -> f64 {
        let [p, a, b] = self.nodes;
        point_edge::distance(&x[p], &x[a], &x[b])
    }

    fn distance_gradient(&self, x: &[Vector<D>], out: &mut [Vector<D>; MAX_STENCIL]) {
        let [p, a, b] = self.nodes;
        let g = point_edge::gradient(&x[p], &x[a], &x[b]);
        out[..3].copy_from_slice(&g);
    }

    fn distance_hessian(&self, x: &[Vector<D>], out: &mut [f64]) {
        let [p, a, b] = self.nodes;
        point_edge::hessian(&x[p], &x[a], &x[b], out);
    }

    fn frame(&self, x: &[Vector<D>]) -> TangentFrame<D> {
        let [p, a, b] = self.nodes;
        let (r, t, _) = point_edge::offset(&x[p], &x[a], &x[b]);
        let normal = r / r.norm();
        TangentFrame {
            basis: tangent_basis(&normal),
            normal,
            weights: [1.0, -(1.0 - t), -t, 0.0],
            surface_velocity: Vector::<D>::zeros(),
        }
    }

    fn max_step(&self, x: &[Vector<D>], p: &[Vector<D>], fraction: f64) -> f64 {
        let [i, a, b] = self.nodes;
        let l = rate(&[p[i]], &[p[a], p[b]]);
        additive_ccd(l, fraction, |alpha| {
            point_edge::distance(
                &(x[i] + p[i] * alpha),
                &(x[a] + p[a] * alpha),
                &(x[b] + p[b] * alpha),
            )
        })
    }
}

/// The broad phase of point–edge pairs over a contact surface's boundary.
#[derive(Clone, Debug)]
pub struct PointEdgeSource<const D: usize> {
    /// (node, barrier weight, body) of every boundary vertex: a node of some edge.
    points: Vec<(usize, f64, usize)>,
    /// (nodes, body) of every edge.
    edges: Vec<([usize; 2], usize)>,
    /// Bodies numbered from here on are obstacles (fixed): their vertices and edges never pair.
    obstacles_from: usize,
    sweep: SweepAndPrune,
    point_boxes: Vec<Aabb<D>>,
    edge_boxes: Vec<Aabb<D>>,
}

impl<const D: usize> PointEdgeSource<D> {
    /// The pairs of `surface`'s boundary: its vertices that lie on one of its edges, against its
    /// edges; `obstacles_from` is the friction table's number of the first obstacle.
    pub fn new(surface: &ContactSurface, obstacles_from: usize) -> Self {
        let on_edge: std::collections::BTreeSet<usize> = surface
            .edges
            .iter()
            .flat_map(|e| e.iter().copied())
            .collect();
        let points = (0..surface.len())
            .filter(|&i| on_edge.contains(&surface.vertices[i]))
            .map(|i| {
                (
                    surface.vertices[i],
                    AREA_WEIGHT * surface.area[i],
                    surface.body[i],
                )
            })
            .collect();
        let edges = surface
            .edges
            .iter()
            .copied()
            .zip(surface.edge_body.iter().copied())
            .collect();
        PointEdgeSource {
            points,
            edges,
            obstacles_from,
            sweep: SweepAndPrune::default(),
            point_boxes: Vec::new(),
            edge_boxes: Vec::new(),
        }
    }

    /// Boundary vertices.
    pub fn points(&self) -> usize {
        self.points.len()
    }

    /// Boundary edges.
    pub fn edges(&self) -> usize {
        self.edges.len()
    }
}

impl<const D: usize> CandidateSource<D> for PointEdgeSource<D> {
    type Pair = PointEdge;

    /// The pairs whose boxes overlap (at `x0` alone: whose distance is below d̂), vertex-major.
    fn candidates(
        &mut self,
        x0: &[Vector<D>],
        x1: Option<&[Vector<D>]>,
        dhat: f64,
        out: &mut Vec<PointEdge>,
    ) {
        out.clear();
        let at = |node: usize| -> [Vector<D>; 2] {
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
        self.edge_boxes.clear();
        self.edge_boxes
            .extend(self.edges.iter().map(|&([a, b], _)| {
                let (pa, pb) = (at(a), at(b));
                Aabb::around(&[pa[0], pa[1], pb[0], pb[1]], 0.0)
            }));
        let (points, edges, obstacles_from) = (&self.points, &self.edges, self.obstacles_from);
        self.sweep
            .overlaps(&self.point_boxes, &self.edge_boxes, |i, j| {
                let (node, area, body) = points[i];
                let (nodes, edge_body) = edges[j];
                if body == edge_body
                    || (body >= obstacles_from && edge_body >= obstacles_from)
                    || nodes.contains(&node)
                {
                    return;
                }
                let pair = PointEdge {
                    nodes: [node, nodes[0], nodes[1]],
                    vertex: i as u32,
                    edge: j as u32,
                    area,
                    bodies: (body, edge_body),
                };
                if x1.is_none() {
                    let d = ContactPair::<D>::distance(&pair, x0);
                    if !(d < dhat || d.is_nan()) {
                        return;
                    }
                }
                out.push(pair);
            });
        out.sort_unstable_by_key(ContactPair::<D>::key);
    }

    /// The smallest distance over `candidates` (+∞ without any): every pair closer than d̂ at
    /// `x` is among the candidates of a broad phase whose path reached `x`.
    fn min_distance(&self, x: &[Vector<D>], candidates: &[PointEdge]) -> f64 {
        let mut min = f64::INFINITY;
        for pair in candidates {
            let d = ContactPair::<D>::distance(pair, x);
            if d < min || d.is_nan() {
                min = d;
            }
        }
        min
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::Vector2;

    fn lcg(s: &mut u64) -> f64 {
        *s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (*s >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Random little polygons (4 bodies of 6 boundary vertices each, and an obstacle polyline):
    /// the sort and sweep at x⁰ lists exactly the pairs of different bodies (never two
    /// obstacle primitives) within d̂ that the test's own loop over every vertex and edge finds;
    /// over a path x⁰ → x¹ it lists every pair whose distance falls below d̂ at some sampled
    /// point of the path.
    #[test]
    fn the_broad_phase_finds_every_pair_within_dhat() {
        let mut s = 23u64;
        let mut surface = ContactSurface::default();
        let mut x0 = Vec::new();
        let bodies = 4;
        for body in 0..bodies + 1 {
            let c = Vector2::new(lcg(&mut s), lcg(&mut s)) * 0.3;
            let start = x0.len();
            for k in 0..6 {
                let a = k as f64 * std::f64::consts::TAU / 6.0;
                x0.push(c + Vector2::new(a.cos(), a.sin()) * 0.08);
                surface.push(start + k, 0.01, body);
            }
            let closed = if body < bodies { 6 } else { 5 };
            for k in 0..closed {
                surface.push_edge([start + k, start + (k + 1) % 6], body);
            }
        }
        let x1: Vec<Vector2<f64>> = x0
            .iter()
            .map(|p| p + Vector2::new(lcg(&mut s) - 0.5, lcg(&mut s) - 0.5) * 0.1)
            .collect();
        let dhat = 0.03;
        let mut source = PointEdgeSource::<2>::new(&surface, bodies);
        let mut found = Vec::new();
        // Every pair the rules allow, by brute force.
        let allowed = |i: usize, j: usize| {
            let (vb, eb) = (surface.body[i], surface.edge_body[j]);
            vb != eb && !(vb >= bodies && eb >= bodies)
        };
        source.candidates(&x0, None, dhat, &mut found);
        let listed: Vec<(usize, usize)> = found
            .iter()
            .map(|p| (p.vertex as usize, p.edge as usize))
            .collect();
        let mut expected = Vec::new();
        for i in 0..surface.len() {
            for (j, &[a, b]) in surface.edges.iter().enumerate() {
                let d = point_edge::distance(&x0[surface.vertices[i]], &x0[a], &x0[b]);
                if allowed(i, j) && d < dhat {
                    expected.push((i, j));
                }
            }
        }
        assert!(
            expected.len() > 5,
            "the shapes must touch ({})",
            expected.len()
        );
        assert_eq!(listed, expected);
        source.candidates(&x0, Some(&x1), dhat, &mut found);
        let listed: Vec<(usize, usize)> = found
            .iter()
            .map(|p| (p.vertex as usize, p.edge as usize))
            .collect();
        let mut reached = 0;
        for i in 0..surface.len() {
            for (j, &[a, b]) in surface.edges.iter().enumerate() {
                let at = |t: f64, n: usize| x0[n] + (x1[n] - x0[n]) * t;
                let v = surface.vertices[i];
                let close = (0..=100).any(|k| {
                    let t = k as f64 / 100.0;
                    point_edge::distance(&at(t, v), &at(t, a), &at(t, b)) < dhat
                });
                if allowed(i, j) && close {
                    reached += 1;
                    assert!(listed.contains(&(i, j)), "pair ({i}, {j}) missed");
                }
            }
        }
        assert!(
            reached > expected.len(),
            "the path must bring more pairs close"
        );
        assert!(
            found
                .windows(2)
                .all(|w| ContactPair::<2>::key(&w[0]) < ContactPair::<2>::key(&w[1]))
        );
    }
}
