//! Edge–edge pairs (SPEC.md §7, IPC in 3D): a boundary edge of one body against a boundary edge
//! of another. The distance is the unsigned distance between the segments
//! (`contact::distance::edge_edge`), curved in x; the barrier is multiplied by the mollifier
//! m(‖u × v‖²) (Li et al. 2020), which fades the pair out as the edges turn parallel, with the
//! threshold ε_× = 10⁻³ ‖u₀‖²‖v₀‖² from the edges at rest. The tangent frame is at the closest
//! points (weights 1 − s, s, −(1 − t), −t: friction acts on the relative velocity of the two
//! closest points); the step filter is additive CCD (`contact::ccd`).
//!
//! This version has the pair type; the broad phase that lists a 3D surface's pairs (and the
//! scenes of several 3D bodies that need it) is the next step of issue 21.

use crate::contact::ccd::{additive_ccd, rate};
use crate::contact::distance::edge_edge;
use crate::contact::pair::{ContactPair, MAX_STENCIL, TangentFrame, tangent_basis};
use crate::energy::Vector;

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
