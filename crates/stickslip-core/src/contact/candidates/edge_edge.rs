//! Edge–edge pairs (SPEC.md §7, IPC in 3D): a boundary edge of one body against a boundary edge
//! of another. The distance is the unsigned distance between the segments
//! (`contact::distance::edge_edge`), curved in x; the barrier is multiplied by the mollifier
//! m(‖u × v‖²) (Li et al. 2020), which fades the pair out as the edges turn parallel, with the
//! threshold ε_× = 10⁻³ ‖u₀‖²‖v₀‖² from the edges at rest. The tangent frame is at the closest
//! points (weights 1 − s, s, −(1 − t), −t: friction acts on the relative velocity of the two
//! closest points); the step filter is additive CCD (`contact::ccd`).
//!
//! Each pair's barrier is weighted by [`AREA_WEIGHT`] of the sum of its edges' contact areas (an
//! edge's: a third of the area of each boundary triangle it is on, ipc-toolkit's edge area), as
//! if each edge were paired with the other's body once, the way both sides' vertices make
//! point–triangle pairs. An edge never
//! pairs with its own body's edges, nor an obstacle's edge with an obstacle's.
//!
//! The broad phase is sort and sweep (`contact::broad_phase`) of the edges' boxes of their paths
//! x⁰ → x¹, each grown by d̂/2, against themselves: two boxes overlap when they are within d̂ on
//! every axis, so every pair whose distance can be below d̂ on the path is listed, once (the
//! smaller edge index first).

use super::CandidateSource;
use crate::contact::ContactSurface;
use crate::contact::broad_phase::{Aabb, SweepAndPrune};
use crate::contact::ccd::{additive_ccd, rate};
use crate::contact::distance::edge_edge;
use crate::contact::pair::{ContactPair, MAX_STENCIL, TangentFrame, tangent_basis};
use crate::energy::Vector;

/// The fraction of each of its two edges' contact areas an edge–edge pair is weighted by
/// (module comment).
pub const AREA_WEIGHT: f64 = 0.5;

/// A boundary edge against a boundary edge.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EdgeEdge {
    /// The first edge's two nodes, then the second's.
    pub nodes: [usize; 4],
    /// The first edge's index in its source.
    pub first: u32,
    /// The second edge's index in its source.
    pub second: u32,
    /// The barrier's weight, m².
    pub area: f64,
    /// The mollifier's threshold ε_× ([`edge_edge::mollifier_threshold`] at rest), m⁴.
    pub threshold: f64,
    /// The first edge's body and the second's, as the friction table numbers them.
    pub bodies: (usize, usize),
}

impl EdgeEdge {
    fn at(&self, x: &[Vector<3>]) -> [Vector<3>; 4] {
        self.nodes.map(|i| x[i])
    }
}

impl ContactPair<3> for EdgeEdge {
    const NAME: &'static str = "edge-edge";
    const NODES: usize = 4;
    const LINEAR: bool = false;
    const MOLLIFIED: bool = true;

    fn nodes(&self) -> [usize; MAX_STENCIL] {
        self.nodes
    }

    /// First-edge-major: (first index, second index).
    fn key(&self) -> u64 {
        ((self.first as u64) << 32) | self.second as u64
    }

    fn area(&self) -> f64 {
        self.area
    }

    fn bodies(&self) -> (usize, usize) {
        self.bodies
    }

    fn distance(&self, x: &[Vector<3>]) -> f64 {
        edge_edge::distance(&self.at(x))
    }

    fn distance_gradient(&self, x: &[Vector<3>], out: &mut [Vector<3>; MAX_STENCIL]) {
        *out = edge_edge::gradient(&self.at(x));
    }

    fn distance_hessian(&self, x: &[Vector<3>], out: &mut [f64]) {
        edge_edge::hessian(&self.at(x), out);
    }

    fn mollifier(
        &self,
        x: &[Vector<3>],
        grad: &mut [Vector<3>; MAX_STENCIL],
        hess: &mut [f64],
    ) -> f64 {
        let (m, g, h) = edge_edge::mollifier(&self.at(x), self.threshold);
        *grad = g;
        hess[..144].copy_from_slice(h.as_slice());
        m
    }

    fn frame(&self, x: &[Vector<3>]) -> TangentFrame<3> {
        let e = self.at(x);
        let (s, t) = edge_edge::closest(&e);
        let (pa, pb) = (e[0] + (e[1] - e[0]) * s, e[2] + (e[3] - e[2]) * t);
        let normal = (pa - pb).normalize();
        TangentFrame {
            basis: tangent_basis(&normal),
            normal,
            weights: [1.0 - s, s, -(1.0 - t), -t],
            surface_velocity: Vector::<3>::zeros(),
        }
    }

    fn max_step(&self, x: &[Vector<3>], p: &[Vector<3>], fraction: f64) -> f64 {
        let [a0, a1, b0, b1] = self.nodes;
        let l = rate(&[p[a0], p[a1]], &[p[b0], p[b1]]);
        additive_ccd(l, fraction, |alpha| {
            edge_edge::distance(&self.nodes.map(|k| x[k] + p[k] * alpha))
        })
    }
}

/// One boundary edge of an [`EdgeEdgeSource`].
#[derive(Clone, Copy, Debug)]
struct SourceEdge {
    nodes: [usize; 2],
    /// [`AREA_WEIGHT`] times its contact area, m².
    weight: f64,
    body: usize,
}

/// The broad phase of edge–edge pairs over a contact surface's boundary edges.
#[derive(Clone, Debug)]
pub struct EdgeEdgeSource {
    edges: Vec<SourceEdge>,
    /// Node positions at rest, m (the mollifier's thresholds).
    rest: Vec<Vector<3>>,
    /// Bodies numbered from here on are obstacles (fixed): their edges never pair.
    obstacles_from: usize,
    sweep: SweepAndPrune,
    boxes: Vec<Aabb<3>>,
}

impl EdgeEdgeSource {
    /// The pairs of `surface`'s boundary edges, with every node's position at rest `rest` (m),
    /// from which each edge's contact area and each pair's mollifier threshold are taken;
    /// `obstacles_from` is the friction table's number of the first obstacle.
    pub fn new(surface: &ContactSurface, rest: &[Vector<3>], obstacles_from: usize) -> Self {
        let mut area = std::collections::BTreeMap::new();
        for t in &surface.triangles {
            let a = 0.5
                * (rest[t[1]] - rest[t[0]])
                    .cross(&(rest[t[2]] - rest[t[0]]))
                    .norm();
            for (p, q) in [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])] {
                *area.entry([p.min(q), p.max(q)]).or_insert(0.0) += a / 3.0;
            }
        }
        let edges = surface
            .edges
            .iter()
            .zip(&surface.edge_body)
            .map(|(&[p, q], &body)| SourceEdge {
                nodes: [p, q],
                weight: AREA_WEIGHT * area.get(&[p.min(q), p.max(q)]).copied().unwrap_or(0.0),
                body,
            })
            .collect();
        EdgeEdgeSource {
            edges,
            rest: rest.to_vec(),
            obstacles_from,
            sweep: SweepAndPrune::default(),
            boxes: Vec::new(),
        }
    }

    /// Boundary edges.
    pub fn edges(&self) -> usize {
        self.edges.len()
    }
}

impl CandidateSource<3> for EdgeEdgeSource {
    type Pair = EdgeEdge;

    /// The pairs whose boxes overlap (at `x0` alone: whose distance is below d̂), first-edge
    /// major.
    fn candidates(
        &mut self,
        x0: &[Vector<3>],
        x1: Option<&[Vector<3>]>,
        dhat: f64,
        out: &mut Vec<EdgeEdge>,
    ) {
        out.clear();
        let at = |node: usize| -> [Vector<3>; 2] {
            match x1 {
                Some(x1) => [x0[node], x1[node]],
                None => [x0[node], x0[node]],
            }
        };
        self.boxes.clear();
        self.boxes.extend(self.edges.iter().map(|e| {
            let (pa, pb) = (at(e.nodes[0]), at(e.nodes[1]));
            Aabb::around(&[pa[0], pa[1], pb[0], pb[1]], 0.5 * dhat)
        }));
        let (edges, rest, obstacles_from) = (&self.edges, &self.rest, self.obstacles_from);
        self.sweep.overlaps(&self.boxes, &self.boxes, |i, j| {
            // Each unordered pair is met twice (as (i, j) and (j, i)): keep i < j.
            if i >= j {
                return;
            }
            let (a, b) = (edges[i], edges[j]);
            if a.body == b.body
                || (a.body >= obstacles_from && b.body >= obstacles_from)
                || a.nodes.iter().any(|n| b.nodes.contains(n))
            {
                return;
            }
            let nodes = [a.nodes[0], a.nodes[1], b.nodes[0], b.nodes[1]];
            let pair = EdgeEdge {
                nodes,
                first: i as u32,
                second: j as u32,
                area: a.weight + b.weight,
                threshold: edge_edge::mollifier_threshold(&nodes.map(|n| rest[n])),
                bodies: (a.body, b.body),
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

    fn min_distance(&self, x: &[Vector<3>], candidates: &[EdgeEdge]) -> f64 {
        candidates
            .iter()
            .map(|p| p.distance(x))
            .fold(
                f64::INFINITY,
                |a, b| if b < a || b.is_nan() { b } else { a },
            )
    }
}
