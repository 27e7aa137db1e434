//! Inertia: ½ (x − x̃)ᵀ M (x − x̃) with the lumped mass M (SPEC.md §2), in J.

use super::{Mat2, Vec2};

/// ½ Σ mᵢ ‖xᵢ − x̃ᵢ‖², J.
pub fn value(x: &[Vec2], x_tilde: &[Vec2], mass: &[f64]) -> f64 {
    x.iter()
        .zip(x_tilde)
        .zip(mass)
        .map(|((x, xt), m)| 0.5 * m * (x - xt).norm_squared())
        .sum()
}

/// Adds `scale` · mᵢ (xᵢ − x̃ᵢ) to `grad[i]`.
pub fn gradient(x: &[Vec2], x_tilde: &[Vec2], mass: &[f64], scale: f64, grad: &mut [Vec2]) {
    for (((g, x), xt), m) in grad.iter_mut().zip(x).zip(x_tilde).zip(mass) {
        *g += (x - xt) * (m * scale);
    }
}

/// Adds `scale` · mᵢ I to the diagonal block of every node.
pub fn hessian(mass: &[f64], scale: f64, diag: &mut [Mat2]) {
    for (d, m) in diag.iter_mut().zip(mass) {
        *d += Mat2::identity() * (m * scale);
    }
}
