//! Additive continuous collision detection (Li, Kaufman & Jiang 2021, "Codimensional
//! Incremental Potential Contact"; SPEC.md §7): a conservative bound on how far a pair may move
//! along a straight path before its distance falls below a target.
//!
//! Along x(α) = x + α p the distance d(α) between two primitives changes no faster than
//! l_p = ‖p_a‖ + max_j ‖p_b,j‖ per unit α, where p_a and p_b,j are the displacements of the
//! first primitive's node and of the second's nodes after the mean of all of them is taken off
//! (a common translation moves no distance): the closest point of a primitive moves by a convex
//! combination of its nodes' displacements. So from an α where the distance is d, every α′ up
//! to α + (d − target)/l_p keeps it at or above the target. The bound is advanced that way,
//! re-measuring d at each new α, until the next advance would pass 1 (the whole step is safe)
//! or the distance has come within a tenth of the remaining gap of the target (the pair really
//! is closing in; the α reached so far is returned).

use crate::energy::Vector;

/// Most advances of one query: each covers the remaining gap at the rate bound, so a pair
/// closing head-on reaches the stopping rule in a few; a pair sliding past with a large
/// tangential motion can take more. Past the bound the α reached (safe) is returned.
pub const MAX_ADVANCES: usize = 64;

/// The stopping rule: the distance is within this fraction of the initial gap d₀ − target of
/// the target.
pub const CLOSE_FRACTION: f64 = 0.1;

/// The largest α ≤ 1 found with d ≥ (1 − `fraction`) d₀ on all of [0, α], where d₀ =
/// `distance(0)` > 0, `rate` is l_p (m per unit α) and `distance(α)` measures the pair at
/// x + α p (m). Returns 1 when the whole step keeps the distance above the target.
pub fn additive_ccd(rate: f64, fraction: f64, mut distance: impl FnMut(f64) -> f64) -> f64 {
    let d0 = distance(0.0);
    if d0.is_nan() || d0 <= 0.0 {
        // Already at contact (which the step invariants exclude): no step at all.
        return 0.0;
    }
    if rate.is_nan() || rate <= 0.0 {
        // Nothing moves relative to the other: no bound from this pair.
        return 1.0;
    }
    let target = (1.0 - fraction) * d0;
    let stop = target + CLOSE_FRACTION * (d0 - target);
    let (mut alpha, mut d) = (0.0, d0);
    for _ in 0..MAX_ADVANCES {
        let advance = (d - target) / rate;
        if alpha + advance >= 1.0 {
            return 1.0;
        }
        alpha += advance;
        d = distance(alpha);
        if d <= stop {
            break;
        }
    }
    alpha
}

/// l_p of a pair whose first primitive is the node displacements `a` and whose second is `b`
/// (the mean of all taken off), m per unit α.
pub fn rate<const D: usize>(a: &[Vector<D>], b: &[Vector<D>]) -> f64 {
    let n = (a.len() + b.len()) as f64;
    let mean = (a.iter().sum::<Vector<D>>() + b.iter().sum::<Vector<D>>()) / n;
    let largest = |s: &[Vector<D>]| s.iter().map(|p| (p - mean).norm()).fold(0.0, f64::max);
    largest(a) + largest(b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contact::distance::point_edge;
    use nalgebra::Vector2;

    /// A point falling straight onto a segment's middle from 1 m, along p = (0, −2): it would
    /// touch at α = 0.5; with fraction 0.9 the bound must keep d ≥ 0.1 m (α ≤ 0.45) and come
    /// within the stopping rule of it (α ≥ 0.45 − 0.1·0.9/2).
    #[test]
    fn a_head_on_approach_stops_short_of_the_target() {
        let (e0, e1) = (Vector2::new(-1.0, 0.0), Vector2::new(1.0, 0.0));
        let x = Vector2::new(0.0, 1.0);
        let p = Vector2::new(0.0, -2.0);
        let l = rate(&[p], &[Vector2::zeros(), Vector2::zeros()]);
        let alpha = additive_ccd(l, 0.9, |a| point_edge::distance(&(x + p * a), &e0, &e1));
        assert!(alpha <= 0.45 + 1e-15, "{alpha}");
        assert!(alpha >= 0.45 - 0.045, "{alpha}");
    }

    /// Every bound it returns is safe: sampled finely, the distance on [0, α] never drops below
    /// the target, over random motions of a point and a segment in 2D.
    #[test]
    fn the_bound_is_conservative_for_random_motions() {
        let mut s = 5u64;
        let mut next = || {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        };
        let mut bounded = 0;
        for _ in 0..2000 {
            let x: Vec<Vector2<f64>> = (0..3).map(|_| Vector2::new(next(), next())).collect();
            let p: Vec<Vector2<f64>> = (0..3).map(|_| Vector2::new(next(), next()) * 2.0).collect();
            let at = |a: f64| {
                point_edge::distance(&(x[0] + p[0] * a), &(x[1] + p[1] * a), &(x[2] + p[2] * a))
            };
            let d0 = at(0.0);
            let l = rate(&p[..1], &p[1..]);
            let alpha = additive_ccd(l, 0.9, at);
            if alpha < 1.0 {
                bounded += 1;
            }
            let worst = (0..=2000)
                .map(|k| at(alpha * k as f64 / 2000.0))
                .fold(f64::INFINITY, f64::min);
            assert!(worst >= 0.1 * d0 * (1.0 - 1e-12), "{worst} < 0.1 · {d0}");
        }
        assert!(
            bounded > 100,
            "the random motions must exercise the bound ({bounded})"
        );
    }
}
