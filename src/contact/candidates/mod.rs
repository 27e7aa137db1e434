//! Candidates: the pairs a broad phase finds near enough to matter, one file per pair type
//! (SPEC.md §7). A pair type is a [`crate::contact::ContactPair`] and a
//! [`CandidateSource`] that lists its candidates over a segment of motion x⁰ → x¹, inflated by
//! d̂, so that every pair whose distance can fall below d̂ anywhere on the segment is listed
//! (and, in a step's line search, every pair the step filter must bound).

pub mod edge_edge;
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
