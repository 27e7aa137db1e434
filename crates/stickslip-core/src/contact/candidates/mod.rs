//! Candidates: the pairs a broad phase finds near enough to matter, one file per pair type
//! (SPEC.md §7). A pair type is a [`crate::contact::ContactPair`] and a
//! [`CandidateSource`] that lists its candidates over a segment of motion x⁰ → x¹, inflated by
//! d̂, so that every pair whose distance can fall below d̂ anywhere on the segment is listed
//! (and, in a step's line search, every pair the step filter must bound).

pub mod edge_edge;
pub mod embedded_plane_vertex;
pub mod plane_vertex;
pub mod point_edge;
pub mod point_triangle;
pub mod vertex_vertex;

use crate::contact::ContactPair;
use crate::energy::Vector;

/// The broad phase of one pair type.
pub trait CandidateSource<const D: usize>: Send + Sync {
    /// The pair type.
    type Pair: ContactPair<D>;

    /// Every pair whose distance can be below `dhat` (m) somewhere on the straight path from
    /// `x0` to `x1` (m; `None`: at `x0` alone), into `out` (cleared first), in the order of
    /// [`ContactPair::key`].
    fn candidates(
        &mut self,
        x0: &[Vector<D>],
        x1: Option<&[Vector<D>]>,
        dhat: f64,
        out: &mut Vec<Self::Pair>,
    );

    /// The smallest distance of any pair of this type at `x`, m (+∞ when there is none): the
    /// step invariant (it must stay positive) and the trajectory's `min_distance`.
    /// `candidates` are the last broad phase's, whose path reached `x`: a type whose broad
    /// phase is not exhaustive takes the minimum over them (every pair closer than d̂ at `x` is
    /// among them).
    fn min_distance(&self, x: &[Vector<D>], candidates: &[Self::Pair]) -> f64;
}

/// The broad phase of a pair type whose distance is linear in x (node × half-space, an
/// embedded vertex × half-space): every pair listed once, none missed. A linear distance along
/// a straight segment x⁰ → x¹ lies between its ends' values, so a pair comes within d̂ somewhere
/// on the segment exactly when it does at an end: no tree is needed.
#[derive(Clone, Debug)]
pub struct AllPairs<P> {
    /// Every pair, in key order: the candidates are those of them near enough.
    pairs: Vec<P>,
}

impl<P> AllPairs<P> {
    /// The broad phase over `pairs` (in [`ContactPair::key`] order).
    pub fn new(pairs: Vec<P>) -> Self {
        AllPairs { pairs }
    }
}

impl<const D: usize, P: ContactPair<D>> CandidateSource<D> for AllPairs<P> {
    type Pair = P;

    /// The pairs with min(d(x⁰), d(x¹)) < d̂, in key order.
    fn candidates(
        &mut self,
        x0: &[Vector<D>],
        x1: Option<&[Vector<D>]>,
        dhat: f64,
        out: &mut Vec<P>,
    ) {
        const {
            assert!(
                P::LINEAR,
                "the ends bound a pair on a segment only if it is linear"
            )
        };
        out.clear();
        for pair in &self.pairs {
            let d0 = pair.distance(x0);
            let d = match x1 {
                Some(x1) => d0.min(pair.distance(x1)),
                None => d0,
            };
            // A NaN distance is a candidate, so the step invariant sees it.
            if d < dhat || d.is_nan() {
                out.push(*pair);
            }
        }
    }

    /// Exact over every pair.
    fn min_distance(&self, x: &[Vector<D>], _candidates: &[P]) -> f64 {
        let mut min = f64::INFINITY;
        for pair in &self.pairs {
            let d = pair.distance(x);
            if d < min || d.is_nan() {
                min = d;
            }
        }
        min
    }
}
