//! Normal collisions: the candidates whose distance at x is below d̂ (SPEC.md §2, §7), the
//! elements of the barrier's gradient and Hessian at x.

use crate::contact::ContactPair;
use crate::energy::Vector;

/// One candidate active at an x (its distance there below d̂).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NormalCollision {
    /// Its index in the candidate list.
    pub candidate: usize,
}

/// The candidates of `candidates` active at `x` (distance below `dhat`, m) into `out`, in
/// candidate order, and their stencils' nodes, `P::NODES` per collision, into `stencils`.
pub fn active<const D: usize, P: ContactPair<D>>(
    candidates: &[P],
    x: &[Vector<D>],
    dhat: f64,
    out: &mut Vec<NormalCollision>,
    stencils: &mut Vec<usize>,
) {
    out.clear();
    stencils.clear();
    for (candidate, pair) in candidates.iter().enumerate() {
        if pair.distance(x) < dhat {
            out.push(NormalCollision { candidate });
            stencils.extend_from_slice(&pair.nodes()[..P::NODES]);
        }
    }
}
