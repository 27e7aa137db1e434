//! Semi-implicit smoothed friction (SPEC.md §2; the book's FrictionEnergy.py).
//!
//! With the lagged μλᵢ (N) from xⁿ, v = (x − xⁿ)/h, v̄ = T v with T = I − n nᵀ, y = ‖v̄‖ (m/s)
//! and ĥ = h: energy μλᵢ f₀(y) (J), gradient μλᵢ (f₁/y) T v̄ (N), Hessian
//! (μλᵢ/ĥ) T·PSD((f₁/y) I + ((f₁′y − f₁)/y²)/y · v̄ v̄ᵀ)·Tᵀ (N/m).

use super::{Mat2, Vec2, psd};

/// Friction's constants for one step.
#[derive(Clone, Copy, Debug)]
pub struct Friction {
    /// Unit slope normal n (T = I − n nᵀ).
    pub normal: Vec2,
    /// Smoothing speed ε_v, m/s.
    pub eps_v: f64,
    /// Time step h = ĥ, s.
    pub h: f64,
}

/// f₀(y)·: y ĥ for y ≥ ε_v, else (yĥ)²(−yĥ/3 + ε_vĥ)/(ε_vĥ)² + ε_vĥ/3 (m).
#[inline]
pub fn f0(y: f64, eps_v: f64, hhat: f64) -> f64 {
    if y >= eps_v {
        y * hhat
    } else {
        let yh = y * hhat;
        let eh = eps_v * hhat;
        yh * yh * (-yh / 3.0 + eh) / (eh * eh) + eh / 3.0
    }
}

/// f₁(y)/y: 1/y for y ≥ ε_v, else (2ε_v − y)/ε_v² (s/m).
#[inline]
pub fn f1_over_y(y: f64, eps_v: f64) -> f64 {
    if y >= eps_v {
        1.0 / y
    } else {
        (2.0 * eps_v - y) / (eps_v * eps_v)
    }
}

/// (f₁′y − f₁)/y²: −1/y² for y ≥ ε_v, else −1/ε_v² (s²/m²).
#[inline]
pub fn hess_term(y: f64, eps_v: f64) -> f64 {
    if y >= eps_v {
        -1.0 / (y * y)
    } else {
        -1.0 / (eps_v * eps_v)
    }
}

impl Friction {
    /// T = I − n nᵀ.
    #[inline]
    pub fn tangent_operator(&self) -> Mat2 {
        Mat2::identity() - self.normal * self.normal.transpose()
    }

    /// Energy of one node, J.
    #[inline]
    pub fn node_value(&self, v: &Vec2, mu_lambda: f64) -> f64 {
        let vbar = self.tangent_operator() * v;
        mu_lambda * f0(vbar.norm(), self.eps_v, self.h)
    }

    /// ∂/∂x of one node's energy, N.
    #[inline]
    pub fn node_gradient(&self, v: &Vec2, mu_lambda: f64) -> Vec2 {
        let t = self.tangent_operator();
        let vbar = t * v;
        t * vbar * (mu_lambda * f1_over_y(vbar.norm(), self.eps_v))
    }

    /// The projected Hessian ∂²/∂x² of one node's energy, N/m.
    #[inline]
    pub fn node_hessian(&self, v: &Vec2, mu_lambda: f64) -> Mat2 {
        let t = self.tangent_operator();
        let vbar = t * v;
        let y = vbar.norm();
        let mut inner = Mat2::identity() * f1_over_y(y, self.eps_v);
        if y != 0.0 {
            inner += vbar * vbar.transpose() * (hess_term(y, self.eps_v) / y);
        }
        t * psd::project_2x2(&inner) * t.transpose() * (mu_lambda / self.h)
    }

    /// The unprojected Hessian (for finite-difference tests), N/m.
    pub fn node_hessian_unprojected(&self, v: &Vec2, mu_lambda: f64) -> Mat2 {
        let t = self.tangent_operator();
        let vbar = t * v;
        let y = vbar.norm();
        let mut inner = Mat2::identity() * f1_over_y(y, self.eps_v);
        if y != 0.0 {
            inner += vbar * vbar.transpose() * (hess_term(y, self.eps_v) / y);
        }
        t * inner * t.transpose() * (mu_lambda / self.h)
    }
}

/// Σ μλᵢ f₀(‖T vᵢ‖) over nodes with μλᵢ > 0, J; v = (x − xⁿ)/h.
pub fn value(x: &[Vec2], x_n: &[Vec2], mu_lambda: &[f64], fr: &Friction) -> f64 {
    let mut sum = 0.0;
    for ((x, xn), ml) in x.iter().zip(x_n).zip(mu_lambda) {
        if *ml > 0.0 {
            sum += fr.node_value(&((x - xn) / fr.h), *ml);
        }
    }
    sum
}

/// Adds `scale` · ∂Ψ/∂x to `grad`.
pub fn gradient(
    x: &[Vec2],
    x_n: &[Vec2],
    mu_lambda: &[f64],
    fr: &Friction,
    scale: f64,
    grad: &mut [Vec2],
) {
    for (((g, x), xn), ml) in grad.iter_mut().zip(x).zip(x_n).zip(mu_lambda) {
        if *ml > 0.0 {
            *g += fr.node_gradient(&((x - xn) / fr.h), *ml) * scale;
        }
    }
}

/// Adds `scale` · (projected) ∂²Ψ/∂x² to every node's diagonal block.
pub fn hessian(
    x: &[Vec2],
    x_n: &[Vec2],
    mu_lambda: &[f64],
    fr: &Friction,
    scale: f64,
    diag: &mut [Mat2],
) {
    for (((h, x), xn), ml) in diag.iter_mut().zip(x).zip(x_n).zip(mu_lambda) {
        if *ml > 0.0 {
            *h += fr.node_hessian(&((x - xn) / fr.h), *ml) * scale;
        }
    }
}
