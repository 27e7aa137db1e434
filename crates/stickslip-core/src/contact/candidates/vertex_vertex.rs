//! Vertex–vertex corrections to the point–edge pairs (SPEC.md §7; the "improved max
//! approximator" of Li, Kaufman & Jiang's convergent IPC, as ipc-toolkit offers it).
//!
//! Summing the barrier over every point–edge pair counts a point near a boundary vertex v twice:
//! once against each of v's two edges, whose closest point is then v itself (for a point
//! sliding along a flat surface, the edge it has not reached yet pulls it back and pushes it up
//! as it crosses each vertex). Each boundary vertex of valence k (the number of boundary edges
//! at it) is therefore also paired with every nearby vertex of another body with a negative
//! weight, −(k − 1) times the point–edge weight: near v the sum over v's edges less the
//! correction is the barrier of the nearest edge alone, and away from the vertices it changes
//! nothing. The sum stays ≥ 0 (each correction is matched by an edge term at least as large).
//! Friction is corrected alike (a negative normal force on the pair); the solver's Hessian
//! blocks of a negative pair are projected to zero (they are negative semi-definite), so the
//! matrix over-estimates the corrected Hessian near vertices, which the line search allows.
//!
//! The pair of vertices a (body A, contact area A_a, valence k_a) and b (B, A_b, k_b) stands
//! for both corrections, a against b's edges and b against a's:
//! weight −w (A_a (k_b − 1) + A_b (k_a − 1)), with w the point–edge pairs' area weight.

use super::CandidateSource;
use super::point_edge::AREA_WEIGHT;
use crate::contact::ContactSurface;
use crate::contact::broad_phase::{Aabb, SweepAndPrune};
use crate::contact::pair::{ContactPair, MAX_STENCIL, TangentFrame, tangent_basis};
use crate::energy::Vector;

/// Two boundary vertices of different bodies, with a negative barrier weight.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VertexVertex {
    /// The two nodes.
    pub nodes: [usize; 2],
    /// Their indices in the source.
    pub vertices: [u32; 2],
    /// The barrier's weight (module comment), m^(D−1), negative.
    pub area: f64,
    /// Their bodies, as the friction table numbers them.
    pub bodies: (usize, usize),
}

impl<const D: usize> ContactPair<D> for VertexVertex {
    const NAME: &'static str = "vertex-vertex correction";
    const NODES: usize = 2;
    const LINEAR: bool = false;

    fn nodes(&self) -> [usize; MAX_STENCIL] {
        [self.nodes[0], self.nodes[1], 0, 0]
    }

    fn key(&self) -> u64 {
        ((self.vertices[0] as u64) << 32) | self.vertices[1] as u64
    }

    fn area(&self) -> f64 {
        self.area
    }

    fn bodies(&self) -> (usize, usize) {
        self.bodies
    }

    #[inline]
    fn distance(&self, x: &[Vector<D>]) -> f64 {
        (x[self.nodes[0]] - x[self.nodes[1]]).norm()
    }

    /// (u, −u), u the unit vector from the second vertex to the first.
    fn distance_gradient(&self, x: &[Vector<D>], out: &mut [Vector<D>; MAX_STENCIL]) {
        let u = (x[self.nodes[0]] - x[self.nodes[1]]).normalize();
        out[0] = u;
        out[1] = -u;
    }

    /// [[P, −P], [−P, P]] with P = (I − u uᵀ)/d.
    fn distance_hessian(&self, x: &[Vector<D>], out: &mut [f64]) {
        let r = x[self.nodes[0]] - x[self.nodes[1]];
        let d = r.norm();
        let u = r / d;
        let n = 2 * D;
        for c in 0..n {
            for rr in 0..n {
                let sign = if (rr < D) == (c < D) { 1.0 } else { -1.0 };
                let delta = if rr % D == c % D { 1.0 } else { 0.0 };
                out[n * c + rr] = sign * (delta - u[rr % D] * u[c % D]) / d;
            }
        }
    }

    fn frame(&self, x: &[Vector<D>]) -> TangentFrame<D> {
        let u = (x[self.nodes[0]] - x[self.nodes[1]]).normalize();
        TangentFrame {
            basis: tangent_basis(&u),
            normal: u,
            weights: [1.0, -1.0, 0.0, 0.0],
            surface_velocity: Vector::<D>::zeros(),
        }
    }

    /// No bound of its own: its distance is never below that of the point–edge pairs of the
    /// edges at either vertex, whose CCD bounds the step.
    fn max_step(&self, _x: &[Vector<D>], _p: &[Vector<D>], _fraction: f64) -> f64 {
        1.0
    }
}

/// The broad phase of vertex–vertex corrections over a contact surface's boundary.
#[derive(Clone, Debug)]
pub struct VertexVertexSource<const D: usize> {
    /// (node, point–edge weight A w, body, valence − 1) of every boundary vertex.
    points: Vec<(usize, f64, usize, f64)>,
    /// Bodies numbered from here on are obstacles.
    obstacles_from: usize,
    sweep: SweepAndPrune,
    boxes: Vec<Aabb<D>>,
}

impl<const D: usize> VertexVertexSource<D> {
    /// The corrections of `surface`'s boundary: its vertices on two or more of its edges;
    /// `obstacles_from` is the friction table's number of the first obstacle.
    pub fn new(surface: &ContactSurface, obstacles_from: usize) -> Self {
        let mut valence = std::collections::BTreeMap::<usize, usize>::new();
        for e in &surface.edges {
            for &n in e {
                *valence.entry(n).or_default() += 1;
            }
        }
        let points = (0..surface.len())
            .filter_map(|i| {
                let node = surface.vertices[i];
                let k = *valence.get(&node)?;
                Some((
                    node,
                    AREA_WEIGHT * surface.area[i],
                    surface.body[i],
                    k as f64 - 1.0,
                ))
            })
            .collect();
        VertexVertexSource {
            points,
            obstacles_from,
            sweep: SweepAndPrune::default(),
            boxes: Vec::new(),
        }
    }
}

impl<const D: usize> CandidateSource<D> for VertexVertexSource<D> {
    type Pair = VertexVertex;

    fn candidates(
        &mut self,
        x0: &[Vector<D>],
        x1: Option<&[Vector<D>]>,
        dhat: f64,
        out: &mut Vec<VertexVertex>,
    ) {
        out.clear();
        self.boxes.clear();
        self.boxes
            .extend(self.points.iter().map(|&(n, ..)| match x1 {
                Some(x1) => Aabb::around(&[x0[n], x1[n]], 0.5 * dhat),
                None => Aabb::around(&[x0[n]], 0.5 * dhat),
            }));
        let (points, obstacles_from) = (&self.points, self.obstacles_from);
        self.sweep.overlaps(&self.boxes, &self.boxes, |i, j| {
            if i >= j {
                return;
            }
            let (na, wa, ba, ka) = points[i];
            let (nb, wb, bb, kb) = points[j];
            if ba == bb || (ba >= obstacles_from && bb >= obstacles_from) {
                return;
            }
            let area = -(wa * kb + wb * ka);
            if area == 0.0 {
                return;
            }
            let pair = VertexVertex {
                nodes: [na, nb],
                vertices: [i as u32, j as u32],
                area,
                bodies: (ba, bb),
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

    /// The smallest distance over `candidates` (+∞ without any).
    fn min_distance(&self, x: &[Vector<D>], candidates: &[VertexVertex]) -> f64 {
        candidates
            .iter()
            .map(|p| ContactPair::<D>::distance(p, x))
            .fold(
                f64::INFINITY,
                |a, b| if b < a || b.is_nan() { b } else { a },
            )
    }
}
