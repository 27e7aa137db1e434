//! Embedded vertex × half-space pairs (SPEC.md §2, §7): a contact vertex of an affine body
//! (`scene::bodies::affine`) against a half-space. The vertex is not a node of the state
//! vector; it sits at p = Σⱼ wⱼ xⱼ over its body's four control nodes with fixed weights
//! (`contact::EmbeddedVertices`). The distance d = n·(p − o) is linear in the stencil
//! (∇_{xⱼ} d = wⱼ n, ∇²d = 0); the tangent frame is the half-space's, with β = w, so friction
//! sees the vertex's own velocity Σ wⱼ vⱼ less the surface velocity; the CCD is the book's
//! tunnelling filter on the vertex's step Σ wⱼ pⱼ.
//!
//! The broad phase is exact, as for node × half-space pairs: d is linear along a straight
//! segment of the control nodes, so a pair comes within d̂ somewhere on x⁰ → x¹ exactly when
//! it does at an end.

use super::AllPairs;
use crate::contact::pair::{ContactPair, MAX_STENCIL, TangentFrame, tangent_basis};
use crate::contact::{EmbeddedVertices, HalfSpace};
use crate::energy::Vector;

/// An embedded contact vertex against a half-space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EmbeddedPlaneVertex<const D: usize> {
    /// The control nodes of the state vector.
    pub nodes: [usize; 4],
    /// The vertex's weights over them (dimensionless, summing to 1).
    pub weights: [f64; 4],
    /// Its index among the embedded vertices.
    pub vertex: usize,
    /// Its contact area, m^(D−1).
    pub area: f64,
    /// Its body's number.
    pub body: usize,
    /// The half-space's index among the stage's half-spaces.
    pub plane: usize,
    /// The half-space's number in the friction table.
    pub obstacle: usize,
    /// The half-space.
    pub half_space: HalfSpace<D>,
}

impl<const D: usize> EmbeddedPlaneVertex<D> {
    /// The vertex's position Σ wⱼ xⱼ at `x` (or its step, for a step `x`), m.
    #[inline]
    fn point(&self, x: &[Vector<D>]) -> Vector<D> {
        let mut p = Vector::<D>::zeros();
        for j in 0..4 {
            p += x[self.nodes[j]] * self.weights[j];
        }
        p
    }
}

impl<const D: usize> ContactPair<D> for EmbeddedPlaneVertex<D> {
    const NAME: &'static str = "embedded_node-half_space";
    const NODES: usize = 4;
    const LINEAR: bool = true;

    fn nodes(&self) -> [usize; MAX_STENCIL] {
        self.nodes
    }

    /// Vertex-major: (vertex index, half-space index).
    fn key(&self) -> u64 {
        ((self.vertex as u64) << 20) | self.plane as u64
    }

    fn area(&self) -> f64 {
        self.area
    }

    fn bodies(&self) -> (usize, usize) {
        (self.body, self.obstacle)
    }

    #[inline]
    fn distance(&self, x: &[Vector<D>]) -> f64 {
        self.half_space.distance(&self.point(x))
    }

    fn distance_gradient(&self, _x: &[Vector<D>], out: &mut [Vector<D>; MAX_STENCIL]) {
        for (o, w) in out.iter_mut().zip(self.weights) {
            *o = self.half_space.normal * w;
        }
    }

    fn distance_hessian(&self, _x: &[Vector<D>], out: &mut [f64]) {
        out.fill(0.0);
    }

    fn frame(&self, _x: &[Vector<D>]) -> TangentFrame<D> {
        TangentFrame {
            basis: tangent_basis(&self.half_space.normal),
            normal: self.half_space.normal,
            weights: self.weights,
            surface_velocity: self.half_space.velocity,
        }
    }

    /// min(1, fraction · d / (−Δp·n)) when the vertex moves towards the surface, else 1.
    fn max_step(&self, x: &[Vector<D>], p: &[Vector<D>], fraction: f64) -> f64 {
        let pn = self.point(p).dot(&self.half_space.normal);
        if pn < 0.0 {
            (fraction * self.distance(x) / -pn).min(1.0)
        } else {
            1.0
        }
    }
}

/// The broad phase of embedded vertex × half-space pairs: every vertex against every
/// half-space ([`AllPairs`], exact).
pub type EmbeddedPlaneVertexSource<const D: usize> = AllPairs<EmbeddedPlaneVertex<D>>;

impl<const D: usize> AllPairs<EmbeddedPlaneVertex<D>> {
    /// Every vertex of `vertices` against every half-space of `half_spaces` (each with its
    /// number in the friction table), vertex-major.
    pub fn embedded_vertices(
        vertices: &EmbeddedVertices,
        half_spaces: &[(HalfSpace<D>, usize)],
    ) -> Self {
        let mut pairs = Vec::with_capacity(vertices.len() * half_spaces.len());
        for vertex in 0..vertices.len() {
            for (plane, &(half_space, obstacle)) in half_spaces.iter().enumerate() {
                pairs.push(EmbeddedPlaneVertex {
                    nodes: vertices.nodes[vertex],
                    weights: vertices.weights[vertex],
                    vertex,
                    area: vertices.area[vertex],
                    body: vertices.body[vertex],
                    plane,
                    obstacle,
                    half_space,
                });
            }
        }
        AllPairs::new(pairs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contact::candidates::CandidateSource;
    use crate::energy::Vec3;

    /// Control nodes 0..4 at the unit tetrahedron's corners; vertex 0 at their centroid, vertex
    /// 1 outside the tetrahedron (a negative weight), against the floor z = 0.
    fn source() -> EmbeddedPlaneVertexSource<3> {
        let mut vertices = EmbeddedVertices::default();
        vertices.push([0, 1, 2, 3], [0.25; 4], 0.5, 0);
        vertices.push([0, 1, 2, 3], [1.5, -0.5, 0.0, 0.0], 0.5, 0);
        let floor = HalfSpace::new(Vec3::new(0.0, 0.0, 1.0), Vec3::zeros());
        EmbeddedPlaneVertexSource::embedded_vertices(&vertices, &[(floor, 1)])
    }

    fn corners(z: f64) -> [Vec3; 4] {
        [
            Vec3::new(0.0, 0.0, z),
            Vec3::new(1.0, 0.0, z),
            Vec3::new(0.0, 1.0, z),
            Vec3::new(0.0, 0.0, z + 1.0),
        ]
    }

    /// The distance is the floor's distance of the point the weights place, written out here:
    /// the centroid at z + 1/4, and 1.5 x₀ − 0.5 x₁ at z (on the floor's plane at z = 0, off
    /// the tetrahedron in x).
    #[test]
    fn the_distance_is_that_of_the_weighted_point() {
        let s = source();
        let x = corners(0.2);
        assert!((s.pairs[0].distance(&x) - 0.45).abs() < 1e-15);
        assert!((s.pairs[1].distance(&x) - 0.2).abs() < 1e-15);
        let mut g = [Vec3::zeros(); 4];
        s.pairs[1].distance_gradient(&x, &mut g);
        assert_eq!(g[0], Vec3::new(0.0, 0.0, 1.5));
        assert_eq!(g[1], Vec3::new(0.0, 0.0, -0.5));
    }

    /// Candidates within d̂ at either end of a segment; the CCD stops the weighted point at
    /// `fraction` of its distance when the control nodes move so that it approaches, even when
    /// the nodes' own steps differ (a turn).
    #[test]
    fn candidates_and_the_filter_follow_the_weighted_point() {
        let mut s = source();
        let x = corners(0.2);
        let mut out = Vec::new();
        s.candidates(&x, None, 0.3, &mut out);
        assert_eq!(out.iter().map(|p| p.vertex).collect::<Vec<_>>(), [1]);
        let lower = corners(0.0);
        s.candidates(&x, Some(&lower), 0.3, &mut out);
        assert_eq!(out.iter().map(|p| p.vertex).collect::<Vec<_>>(), [0, 1]);
        // Node 0 down by 0.2, node 1 up by 0.2: vertex 1 moves 1.5 (−0.2) − 0.5 (0.2) = −0.4.
        let mut p = [Vec3::zeros(); 4];
        p[0].z = -0.2;
        p[1].z = 0.2;
        assert!((s.pairs[1].max_step(&x, &p, 0.9) - 0.9 * 0.2 / 0.4).abs() < 1e-15);
        p[0].z = 0.2;
        assert_eq!(s.pairs[1].max_step(&x, &p, 0.9), 1.0);
        assert!((s.min_distance(&x, &[]) - 0.2).abs() < 1e-15);
    }
}
