//! Node × half-space pairs (SPEC.md §2, §7): a contact vertex of a body against a half-space
//! obstacle. The distance is the signed d = n·(x − o), linear in x (∇d = n, ∇²d = 0); the
//! tangent frame is the half-space's (T ⟂ n, β = 1, v_s its surface velocity); the CCD is the
//! book's tunnelling filter α = fraction · d / (−p·n) for a node moving towards the surface.
//!
//! The broad phase is exact and needs no tree: d is linear along a straight segment, so a pair
//! can come within d̂ somewhere on x⁰ → x¹ exactly when it does at an end.

use super::AllPairs;
use crate::contact::pair::{ContactPair, MAX_STENCIL, TangentFrame, tangent_basis};
use crate::contact::{ContactSurface, HalfSpace};
use crate::energy::Vector;

/// A contact vertex against a half-space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlaneVertex<const D: usize> {
    /// The node of the state vector.
    pub node: usize,
    /// Its index in the contact surface.
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

impl<const D: usize> ContactPair<D> for PlaneVertex<D> {
    const NAME: &'static str = "node-half_space";
    const NODES: usize = 1;
    const LINEAR: bool = true;

    fn nodes(&self) -> [usize; MAX_STENCIL] {
        [self.node, 0, 0, 0]
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
        self.half_space.distance(&x[self.node])
    }

    fn distance_gradient(&self, _x: &[Vector<D>], out: &mut [Vector<D>; MAX_STENCIL]) {
        out[0] = self.half_space.normal;
    }

    fn distance_hessian(&self, _x: &[Vector<D>], out: &mut [f64]) {
        out.fill(0.0);
    }

    fn frame(&self, _x: &[Vector<D>]) -> TangentFrame<D> {
        TangentFrame {
            basis: tangent_basis(&self.half_space.normal),
            normal: self.half_space.normal,
            weights: [1.0, 0.0, 0.0, 0.0],
            surface_velocity: self.half_space.velocity,
        }
    }

    /// min(1, fraction · d / (−p·n)) when the node moves towards the surface (p·n < 0), else 1.
    fn max_step(&self, x: &[Vector<D>], p: &[Vector<D>], fraction: f64) -> f64 {
        let pn = p[self.node].dot(&self.half_space.normal);
        if pn < 0.0 {
            (fraction * self.distance(x) / -pn).min(1.0)
        } else {
            1.0
        }
    }
}

/// The broad phase of node × half-space pairs: every contact vertex against every half-space
/// ([`AllPairs`], exact).
pub type PlaneVertexSource<const D: usize> = AllPairs<PlaneVertex<D>>;

impl<const D: usize> AllPairs<PlaneVertex<D>> {
    /// Every vertex of `surface` against every half-space of `half_spaces` (each with its
    /// number in the friction table), vertex-major.
    pub fn plane_vertices(surface: &ContactSurface, half_spaces: &[(HalfSpace<D>, usize)]) -> Self {
        let mut pairs = Vec::with_capacity(surface.len() * half_spaces.len());
        for (vertex, &node) in surface.vertices.iter().enumerate() {
            for (plane, &(half_space, obstacle)) in half_spaces.iter().enumerate() {
                pairs.push(PlaneVertex {
                    node,
                    vertex,
                    area: surface.area[vertex],
                    body: surface.body[vertex],
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
    use crate::energy::Vec2;

    fn source() -> PlaneVertexSource<2> {
        let mut surface = ContactSurface::default();
        for node in 0..4 {
            surface.push(node, 0.25, 0);
        }
        let floor = HalfSpace::new(Vec2::new(0.0, 1.0), Vec2::zeros());
        let wall = HalfSpace::new(Vec2::new(1.0, 0.0), Vec2::new(-1.0, 0.0));
        PlaneVertexSource::plane_vertices(&surface, &[(floor, 1), (wall, 2)])
    }

    /// At x⁰ alone only the pairs within d̂; over a segment, also a pair that comes within d̂ at
    /// its far end (node 2 crossing the floor), in vertex-major order; a NaN is listed.
    #[test]
    fn candidates_are_the_pairs_within_dhat_at_either_end() {
        let mut s = source();
        let x0 = [
            Vec2::new(0.0, 0.005),
            Vec2::new(-0.995, 0.5),
            Vec2::new(0.0, 0.5),
            Vec2::new(3.0, 3.0),
        ];
        let mut out = Vec::new();
        s.candidates(&x0, None, 0.01, &mut out);
        let pairs: Vec<(usize, usize)> = out.iter().map(|p| (p.node, p.plane)).collect();
        assert_eq!(pairs, [(0, 0), (1, 1)]);
        let mut x1 = x0;
        x1[2].y = -0.1;
        s.candidates(&x0, Some(&x1), 0.01, &mut out);
        let pairs: Vec<(usize, usize)> = out.iter().map(|p| (p.node, p.plane)).collect();
        assert_eq!(pairs, [(0, 0), (1, 1), (2, 0)]);
        assert!(out.windows(2).all(|w| w[0].key() < w[1].key()));
        let mut x_nan = x0;
        x_nan[3].x = f64::NAN;
        s.candidates(&x_nan, None, 0.01, &mut out);
        assert!(out.iter().any(|p| p.node == 3 && p.plane == 1));
        assert!(s.min_distance(&x_nan, &[]).is_nan());
        assert!((s.min_distance(&x0, &[]) - 0.005).abs() < 1e-15);
    }

    /// The CCD stops a node moving into the floor at `fraction` of its distance, and sets no
    /// bound for a node moving away or parallel.
    #[test]
    fn the_filter_covers_a_fraction_of_the_distance() {
        let s = source();
        let x = [Vec2::new(0.0, 0.004); 4];
        let pair = s.pairs[0];
        let p = [Vec2::new(0.3, -0.008); 4];
        assert!((pair.max_step(&x, &p, 0.9) - 0.45).abs() < 1e-15);
        let away = [Vec2::new(0.3, 0.008); 4];
        assert_eq!(pair.max_step(&x, &away, 0.9), 1.0);
        let short = [Vec2::new(0.0, -0.001); 4];
        assert_eq!(pair.max_step(&x, &short, 0.9), 1.0);
    }
}
