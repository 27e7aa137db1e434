//! Damped collisions: the normal damping's pairs, lagged at xⁿ
//! ([`crate::contact::potentials::normal_damping`]).
//!
//! Made at xⁿ from every candidate active there: the distance's gradient ∇d(xⁿ) over the stencil
//! (so that ∇d(xⁿ)·(x − xⁿ) is the pair's normal approach over the step, to first order) and the
//! barrier's normal stiffness k = ∂²b/∂d² at d(xⁿ), N/m (times the mollifier for a mollified
//! pair, whose energy is m A b(d); negative for a pair of negative barrier weight, a
//! vertex–vertex correction). Held fixed through the step, as friction's λ is; unlike friction
//! they are not lagged again at the converged x.

use crate::contact::ContactPair;
use crate::contact::barrier::BarrierParams;
use crate::contact::pair::MAX_STENCIL;
use crate::contact::pair::MOLLIFIER_HESSIAN;
use crate::energy::Vector;

/// One lagged damped pair.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DampedCollision<const D: usize> {
    /// The pair's stencil (the first `len` nodes are used).
    pub nodes: [usize; MAX_STENCIL],
    /// ∂d/∂xⱼ at xⁿ for each stencil node, dimensionless.
    pub gradient: [Vector<D>; MAX_STENCIL],
    /// The barrier's stiffness ∂²(A b)/∂d² at d(xⁿ), N/m.
    pub stiffness: f64,
}

impl<const D: usize> DampedCollision<D> {
    /// s = Σⱼ ∇ⱼd(xⁿ)·(xⱼ − xⱼⁿ), the pair's normal opening over the step to first order, m.
    #[inline]
    pub fn opening(&self, x: &[Vector<D>], x_n: &[Vector<D>], len: usize) -> f64 {
        let mut s = 0.0;
        for j in 0..len {
            let n = self.nodes[j];
            s += self.gradient[j].dot(&(x[n] - x_n[n]));
        }
        s
    }
}

/// The damped collisions at `x` (xⁿ) from the candidates active there (distance below d̂), in
/// candidate order, into `out` (cleared first) and their stencils into `stencils`.
pub fn lag<const D: usize, P: ContactPair<D>>(
    candidates: &[P],
    x: &[Vector<D>],
    barrier: &BarrierParams,
    out: &mut Vec<DampedCollision<D>>,
    stencils: &mut Vec<usize>,
) {
    out.clear();
    stencils.clear();
    for pair in candidates {
        let d = pair.distance(x);
        if d >= barrier.dhat || d.is_nan() {
            continue;
        }
        let mut stiffness = barrier.second(d, pair.area());
        if P::MOLLIFIED {
            let mut grad = [Vector::<D>::zeros(); MAX_STENCIL];
            let mut hess = [0.0; MOLLIFIER_HESSIAN];
            stiffness *= pair.mollifier(x, &mut grad, &mut hess);
        }
        if stiffness == 0.0 || !stiffness.is_finite() {
            continue;
        }
        let mut gradient = [Vector::<D>::zeros(); MAX_STENCIL];
        pair.distance_gradient(x, &mut gradient);
        let nodes = pair.nodes();
        out.push(DampedCollision {
            nodes,
            gradient,
            stiffness,
        });
        stencils.extend_from_slice(&nodes[..P::NODES]);
    }
}
