//! The C² barrier of IPC (SPEC.md §6), per node, as a function of the signed distance d (m).
//!
//! b(d) = −c (d − d̂)² ln(d/d̂) for 0 < d < d̂, zero beyond, with c = A κ / (2 d̂) (J/m²): the
//! constant is chosen so that, as d → 0, b approaches the book's barrier A d̂ (κ/2)(s − 1) ln s
//! (both → −A d̂ (κ/2) ln s): the same `kappa` means the same stiffness near contact, and the
//! two kinds differ only near d̂, where this one is twice differentiable (value, slope and
//! curvature all vanish at d̂) and the book's has a curvature jump of A κ / d̂.
//!
//! b′(d) = −c [2 (d − d̂) ln(d/d̂) + (d − d̂)²/d] (N);
//! b″(d) = c [−2 ln(d/d̂) − 4 (d − d̂)/d + (d − d̂)²/d²] (N/m), every term ≥ 0 for 0 < d < d̂.

/// c = A κ / (2 d̂) for contact area `area` (m), stiffness `kappa`, activation distance `dhat` (m).
#[inline]
fn scale(area: f64, kappa: f64, dhat: f64) -> f64 {
    area * kappa / (2.0 * dhat)
}

/// b(d), J; +∞ at or below the slope, zero at or beyond d̂.
#[inline]
pub fn value(d: f64, dhat: f64, kappa: f64, area: f64) -> f64 {
    if d >= dhat {
        0.0
    } else if d <= 0.0 {
        f64::INFINITY
    } else {
        let e = d - dhat;
        -scale(area, kappa, dhat) * e * e * (d / dhat).ln()
    }
}

/// b′(d) = ∂b/∂d, N (≤ 0 inside d̂, zero beyond).
#[inline]
pub fn first(d: f64, dhat: f64, kappa: f64, area: f64) -> f64 {
    if d >= dhat {
        0.0
    } else {
        let e = d - dhat;
        -scale(area, kappa, dhat) * (2.0 * e * (d / dhat).ln() + e * e / d)
    }
}

/// b″(d) = ∂²b/∂d², N/m (≥ 0 inside d̂, zero beyond).
#[inline]
pub fn second(d: f64, dhat: f64, kappa: f64, area: f64) -> f64 {
    if d >= dhat {
        0.0
    } else {
        let e = d - dhat;
        scale(area, kappa, dhat) * (-2.0 * (d / dhat).ln() - 4.0 * e / d + e * e / (d * d))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DHAT: f64 = 0.01;
    const KAPPA: f64 = 1e5;
    const AREA: f64 = 0.0625;

    /// Relative tolerance of a central difference with step δ = 1e-7·d̂ at these distances
    /// (d ≥ 0.05 d̂, so δ ≤ 2e-6 d and the truncation error δ²|b‴|/6 is ~1e-12 of b′; the
    /// rounding error ε|b|/δ stays under ~1e-8 of the derivative): 1e-6 leaves margin and still
    /// catches any wrong factor or sign (an O(1) relative error).
    const FD_REL_TOL: f64 = 1e-6;

    fn distances() -> impl Iterator<Item = f64> {
        [0.05, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99]
            .into_iter()
            .map(|s| s * DHAT)
    }

    #[test]
    fn first_derivative_matches_finite_differences_of_the_value() {
        for d in distances() {
            let delta = 1e-7 * DHAT;
            let fd = (value(d + delta, DHAT, KAPPA, AREA) - value(d - delta, DHAT, KAPPA, AREA))
                / (2.0 * delta);
            let an = first(d, DHAT, KAPPA, AREA);
            assert!(
                (an - fd).abs() <= FD_REL_TOL * an.abs().max(fd.abs()),
                "d = {d}: b′ {an:e} vs FD {fd:e}"
            );
        }
    }

    #[test]
    fn second_derivative_matches_finite_differences_of_the_first() {
        for d in distances() {
            let delta = 1e-7 * DHAT;
            let fd = (first(d + delta, DHAT, KAPPA, AREA) - first(d - delta, DHAT, KAPPA, AREA))
                / (2.0 * delta);
            let an = second(d, DHAT, KAPPA, AREA);
            assert!(
                (an - fd).abs() <= FD_REL_TOL * an.abs().max(fd.abs()),
                "d = {d}: b″ {an:e} vs FD {fd:e}"
            );
            assert!(an > 0.0, "b″ must be positive inside d̂ (d = {d})");
        }
    }

    /// C² at d̂: value, slope and curvature all go to zero from inside, continuously, so the
    /// Newton model does not jump when a node enters the barrier (the reason for this kind).
    #[test]
    fn value_slope_and_curvature_vanish_at_dhat() {
        let d = DHAT * (1.0 - 1e-6);
        // Each term is O((d̂ − d)^k) for k = 3, 2, 1: scale the bound by that power of 1e-6.
        let c = AREA * KAPPA / (2.0 * DHAT);
        assert!(value(d, DHAT, KAPPA, AREA).abs() < c * DHAT * DHAT * 1e-17);
        assert!(first(d, DHAT, KAPPA, AREA).abs() < c * DHAT * 1e-11);
        assert!(second(d, DHAT, KAPPA, AREA).abs() < c * 1e-5);
        assert_eq!(second(DHAT, DHAT, KAPPA, AREA), 0.0);
    }

    /// As d → 0 the two kinds agree to leading order (the scaling stated in the module doc).
    #[test]
    fn agrees_with_the_book_barrier_near_contact() {
        let d = 1e-9 * DHAT;
        let s: f64 = d / DHAT;
        let book = AREA * DHAT * (KAPPA / 2.0) * (s - 1.0) * s.ln();
        let ipc = value(d, DHAT, KAPPA, AREA);
        // The ratio is (1 − s)² / (1 − s) = 1 − s: equal to ~1e-9.
        assert!((ipc / book - 1.0).abs() < 1e-8, "{ipc} vs {book}");
    }
}
