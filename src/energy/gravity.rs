//! Gravity: Ψ = −Σ mᵢ g·xᵢ (SPEC.md §2), in J. Linear, so its Hessian is zero.

use super::Vec2;

/// −Σ mᵢ g·xᵢ, J (g in m/s²).
pub fn value(x: &[Vec2], mass: &[f64], g: &Vec2) -> f64 {
    x.iter().zip(mass).map(|(x, m)| -m * g.dot(x)).sum()
}

/// Adds `scale` · (−mᵢ g) to `grad[i]`.
pub fn gradient(mass: &[f64], g: &Vec2, scale: f64, grad: &mut [Vec2]) {
    for (gr, m) in grad.iter_mut().zip(mass) {
        *gr -= g * (m * scale);
    }
}
