//! Tangential collisions: friction's pairs, lagged (SPEC.md §2 semi-implicit, §6 implicit, §7).
//!
//! Made at xⁿ from every candidate active there: λ = −∂b/∂d at xⁿ (the barrier's normal force,
//! N, positive inside d̂; negative for a pair of negative barrier weight, a vertex–vertex
//! correction), the tangent frame at xⁿ ([`crate::contact::TangentFrame`]) and the
//! coefficients of the pair's two bodies from the friction table. A pair with μ_s = μ_k = 0
//! makes none. Friction then holds μλ fixed through the step's Newton iterations; implicit
//! lagging makes them again at the converged x until λ agrees (`solver::newton`).

use crate::contact::barrier::BarrierParams;
use crate::contact::pair::MAX_STENCIL;
use crate::contact::pair::MOLLIFIER_HESSIAN;
use crate::contact::{Coefficients, ContactPair, FrictionTable, TangentFrame};
use crate::energy::Vector;

/// One lagged friction pair.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TangentialCollision<const D: usize> {
    /// The pair's stencil (the first `len` nodes are used).
    pub nodes: [usize; MAX_STENCIL],
    /// The pair's [`ContactPair::key`], to match it with its lagged self after re-lagging.
    pub key: u64,
    /// The frame lagged at xⁿ.
    pub frame: TangentFrame<D>,
    /// λ, the normal force lagged at xⁿ, N.
    pub normal_force: f64,
    /// The pair's μ_s and μ_k.
    pub coefficients: Coefficients,
    /// The two bodies or obstacles the pair is between ([`ContactPair::bodies`]).
    pub bodies: (usize, usize),
}

impl<const D: usize> TangentialCollision<D> {
    /// μ_kλ and μ_sλ, N.
    #[inline]
    pub fn bounds(&self) -> (f64, f64) {
        (
            self.coefficients.mu_kinetic * self.normal_force,
            self.coefficients.mu_static * self.normal_force,
        )
    }

    /// v_rel = Σⱼ βⱼ (xⱼ − xⱼⁿ)/h − v_s at `x`, m/s.
    #[inline]
    pub fn relative_velocity(
        &self,
        x: &[Vector<D>],
        x_n: &[Vector<D>],
        h: f64,
        len: usize,
    ) -> Vector<D> {
        let mut v = Vector::<D>::zeros();
        for j in 0..len {
            let n = self.nodes[j];
            v += (x[n] - x_n[n]) / h * self.frame.weights[j];
        }
        v - self.frame.surface_velocity
    }
}

/// Friction's collisions at `x` from the candidates active there (distance below the
/// barrier's d̂), in candidate order, with the barrier `barrier`'s normal force and the
/// coefficients of `table`, into `out` (cleared first) and their stencils into `stencils`.
pub fn lag<const D: usize, P: ContactPair<D>>(
    candidates: &[P],
    x: &[Vector<D>],
    barrier: &BarrierParams,
    table: &FrictionTable,
    out: &mut Vec<TangentialCollision<D>>,
    stencils: &mut Vec<usize>,
) {
    out.clear();
    stencils.clear();
    for pair in candidates {
        let d = pair.distance(x);
        if d >= barrier.dhat || d.is_nan() {
            continue;
        }
        let mut normal_force = -barrier.first(d, pair.area());
        if P::MOLLIFIED {
            // The pair's energy is m A b(d): its normal force is m times the barrier's.
            let mut grad = [Vector::<D>::zeros(); MAX_STENCIL];
            let mut hess = [0.0; MOLLIFIER_HESSIAN];
            normal_force *= pair.mollifier(x, &mut grad, &mut hess);
        }
        let (a, b) = pair.bodies();
        let coefficients = table.get(a, b);
        // Negative for a correction pair (negative barrier weight), which corrects friction
        // alike; zero where the barrier exerts nothing.
        if normal_force == 0.0 || normal_force.is_nan() || coefficients.is_zero() {
            continue;
        }
        let nodes = pair.nodes();
        out.push(TangentialCollision {
            nodes,
            key: pair.key(),
            frame: pair.frame(x),
            normal_force,
            coefficients,
            bodies: (a, b),
        });
        stencils.extend_from_slice(&nodes[..P::NODES]);
    }
}

/// How far re-lagged normal forces moved: max over the pairs of |λ_new − λ_used| and max of
/// |λ| over both lists (a pair in one list only counts as λ = 0 in the other), both N. Both
/// lists are in key order.
pub fn change<const D: usize>(
    used: &[TangentialCollision<D>],
    new: &[TangentialCollision<D>],
) -> (f64, f64) {
    let (mut diff, mut scale) = (0.0f64, 0.0f64);
    let (mut i, mut j) = (0, 0);
    while i < used.len() || j < new.len() {
        let (a, b) = match (used.get(i), new.get(j)) {
            (Some(u), Some(n)) if u.key == n.key => {
                i += 1;
                j += 1;
                (u.normal_force, n.normal_force)
            }
            (Some(u), Some(n)) if u.key < n.key => {
                i += 1;
                (u.normal_force, 0.0)
            }
            (Some(u), None) => {
                i += 1;
                (u.normal_force, 0.0)
            }
            (_, Some(n)) => {
                j += 1;
                (0.0, n.normal_force)
            }
            (None, None) => break,
        };
        diff = diff.max((b - a).abs());
        scale = scale.max(a.abs()).max(b.abs());
    }
    (diff, scale)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::energy::Vec2;

    fn collision(key: u64, normal_force: f64) -> TangentialCollision<2> {
        TangentialCollision {
            nodes: [0; MAX_STENCIL],
            key,
            frame: TangentFrame {
                basis: Default::default(),
                normal: Vec2::y(),
                weights: [1.0, 0.0, 0.0, 0.0],
                surface_velocity: Vec2::zeros(),
            },
            normal_force,
            coefficients: Coefficients::single(0.1),
            bodies: (0, 1),
        }
    }

    /// Pairs are matched by key; a pair entering or leaving counts against zero; the scale is
    /// the largest force in either list.
    #[test]
    fn change_matches_pairs_by_key() {
        let used = [collision(1, 10.0), collision(3, 2.0), collision(5, 4.0)];
        let new = [collision(1, 9.0), collision(4, 0.5), collision(5, 4.0)];
        let (diff, scale) = change(&used, &new);
        assert_eq!(scale, 10.0);
        // Pair 3 left (2 → 0), pair 1 moved by 1, pair 4 entered (0 → 0.5).
        assert_eq!(diff, 2.0);
        assert_eq!(change::<2>(&[], &[]), (0.0, 0.0));
    }
}
