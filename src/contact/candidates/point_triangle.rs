//! Point–triangle pairs (SPEC.md §7, IPC in 3D): a boundary vertex of one body against a
//! boundary triangle of another. The distance is the unsigned distance from the point to the
//! triangle (`contact::distance::point_triangle`), curved in x, so the barrier takes its general
//! path (projected to PSD); the tangent frame is at the closest points (normal from the
//! triangle to the point, weights 1, −w₀, −w₁, −w₂ with w the closest point's barycentric
//! weights: friction acts on the point's velocity relative to the triangle's closest point);
//! the step filter is additive CCD (`contact::ccd`).
//!
//! This version has the pair type; the broad phase that lists a 3D surface's pairs (and the
//! scenes of several 3D bodies that need it) is the next step of issue 21.

use crate::contact::ccd::{additive_ccd, rate};
use crate::contact::distance::point_triangle;
use crate::contact::pair::{ContactPair, MAX_STENCIL, TangentFrame, tangent_basis};
use crate::energy::Vector;

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
