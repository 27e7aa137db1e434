//! Lagging friction's normal force (SPEC.md §2 semi-implicit, §6 fully implicit).
//!
//! Semi-implicit (the book's): λᵢ = −∂b/∂d at xⁿ, fixed through the step. Implicit: once Newton
//! has converged with the lagged λ, λ is evaluated again at the converged x; when it moved by
//! more than `lagging_tol` relative to the largest normal force,
//! max_i |λᵢ(x) − λᵢ^used| / max(max_i λᵢ(x), max_i λᵢ^used) > lagging_tol,
//! the step is solved again from that x with the new λ, up to `max_lagging` times. A fixed point
//! has λ^used = λ(x^{n+1}): the friction bound is then the current normal force, as in the
//! book's lecture 9.3 and IPC's friction iterations. The slope is flat, so the tangent operator
//! does not need re-lagging.

use crate::energy::{Vec2, barrier, barrier::Barrier};

/// μ_kλᵢ into `kinetic` and μ_sλᵢ into `stat` at positions `x`, N (μ_s = μ_k computes the
/// static array as a copy, so the book's path is unchanged).
pub fn lag_normal_forces(
    x: &[Vec2],
    area: &[f64],
    bar: &Barrier,
    mu_kinetic: f64,
    mu_static: f64,
    kinetic: &mut [f64],
    stat: &mut [f64],
) {
    barrier::mu_lambda(x, area, bar, mu_kinetic, kinetic);
    if mu_static == mu_kinetic {
        stat.copy_from_slice(kinetic);
    } else {
        barrier::mu_lambda(x, area, bar, mu_static, stat);
    }
}

/// max_i |newᵢ − usedᵢ| / max(max_i |newᵢ|, max_i |usedᵢ|), dimensionless; 0 when both are zero
/// (no contact before or after). Both arrays carry the same μ, so this is λ's relative change.
pub fn relative_change(used: &[f64], new: &[f64]) -> f64 {
    let mut diff: f64 = 0.0;
    let mut scale: f64 = 0.0;
    for (u, n) in used.iter().zip(new) {
        diff = diff.max((n - u).abs());
        scale = scale.max(n.abs()).max(u.abs());
    }
    if scale == 0.0 { 0.0 } else { diff / scale }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_change_is_against_the_largest_force() {
        assert_eq!(relative_change(&[0.0, 0.0], &[0.0, 0.0]), 0.0);
        // A node entering contact with a small force counts against the largest force.
        assert!((relative_change(&[10.0, 0.0], &[10.0, 0.5]) - 0.05).abs() < 1e-15);
        assert!((relative_change(&[10.0, 2.0], &[8.0, 2.0]) - 0.2).abs() < 1e-15);
    }
}
