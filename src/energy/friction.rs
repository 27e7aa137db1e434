//! Semi-implicit smoothed friction (SPEC.md §2; the book's FrictionEnergy.py).
//!
//! With the lagged μλᵢ (N) from xⁿ, v = (x − xⁿ)/h, v̄ = T v with T = I − n nᵀ, y = ‖v̄‖ (m/s)
//! and ĥ = h: energy μλᵢ f₀(y) (J), gradient μλᵢ (f₁/y) T v̄ (N), Hessian
//! (μλᵢ/ĥ) T·PSD((f₁/y) I + ((f₁′y − f₁)/y²)/y · v̄ v̄ᵀ)·Tᵀ (N/m).
//!
//! **Static and kinetic coefficients** (SPEC.md §6; the `*_blended` functions). Each node carries
//! μ_kλᵢ and μ_sλᵢ. The coefficient follows the tangential speed y:
//! μ(y) = μ_s for y ≤ ε_v, μ_k for y ≥ 2ε_v, and in between
//! μ(y) = μ_s + (μ_k − μ_s) s(z), z = (y − ε_v)/ε_v, s(z) = 3z² − 2z³ (C¹ in y).
//! The friction force is the book's with μ replaced by μ(y): −μ(y)λ (f₁/y) T v̄. Static friction
//! therefore holds the full μ_s λ at y = ε_v, where f₁ reaches 1 (a blend inside [0, ε_v], as
//! ipc-toolkit's `smooth_mu` does, would cap the sticking force below μ_s λ), and the creep speed
//! under a static load is ε_v(1 − √(1 − tanθ/μ_s)). The energy is the exact integral of that
//! force along y, so value, gradient and Hessian stay consistent:
//! Ψ(y) = μ_sλ f₀(y) for y ≤ ε_v, else μ_sλ ε_vĥ + ĥ [μ_sλ (y − ε_v) + (μ_k − μ_s)λ ε_v S(z)],
//! S(z) = z³ − z⁴/2 for z ≤ 1 and z − ½ beyond (S′ = s). Between ε_v and 2ε_v the force falls
//! with y, so Ψ is not convex there; the Hessian is projected to PSD like the book's.
//! When μ_s = μ_k every blended function computes exactly the book's expressions.

use super::term::{Elements, Energy, Projection, StepState, write_node_block};
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
        let (t, inner) = self.single_inner(v);
        t * psd::project_2x2(&inner) * t.transpose() * (mu_lambda / self.h)
    }

    /// The unprojected Hessian ∂²/∂x² of one node's energy, N/m.
    pub fn node_hessian_unprojected(&self, v: &Vec2, mu_lambda: f64) -> Mat2 {
        let (t, inner) = self.single_inner(v);
        t * inner * t.transpose() * (mu_lambda / self.h)
    }

    /// T and the inner 2×2 (f₁/y) I + ((f₁′y − f₁)/y²)/y · v̄ v̄ᵀ of one μ.
    #[inline]
    fn single_inner(&self, v: &Vec2) -> (Mat2, Mat2) {
        let t = self.tangent_operator();
        let vbar = t * v;
        let y = vbar.norm();
        let mut inner = Mat2::identity() * f1_over_y(y, self.eps_v);
        if y != 0.0 {
            inner += vbar * vbar.transpose() * (hess_term(y, self.eps_v) / y);
        }
        (t, inner)
    }
}

/// The static-to-kinetic transition ends at this multiple of ε_v (it starts at ε_v).
pub const KINETIC_FROM_EPS_V: f64 = 2.0;

/// μ(y)λ of the blend in the module comment and its derivative d(μλ)/dy, from μ_kλ and μ_sλ
/// (N, N·s/m); y in m/s.
#[inline]
pub fn blended_mu_lambda(y: f64, eps_v: f64, kinetic: f64, stat: f64) -> (f64, f64) {
    let width = (KINETIC_FROM_EPS_V - 1.0) * eps_v;
    let z = (y - eps_v) / width;
    if z <= 0.0 {
        (stat, 0.0)
    } else if z >= 1.0 {
        (kinetic, 0.0)
    } else {
        let d = kinetic - stat;
        (
            stat + d * z * z * (3.0 - 2.0 * z),
            d * 6.0 * z * (1.0 - z) / width,
        )
    }
}

impl Friction {
    /// Energy of one node with static and kinetic μλ (module comment), J. Equal to
    /// [`Friction::node_value`] when `stat == kinetic`.
    #[inline]
    pub fn node_value_blended(&self, v: &Vec2, kinetic: f64, stat: f64) -> f64 {
        if stat == kinetic {
            return self.node_value(v, kinetic);
        }
        let y = (self.tangent_operator() * v).norm();
        let eps = self.eps_v;
        if y <= eps {
            return stat * f0(y, eps, self.h);
        }
        let width = (KINETIC_FROM_EPS_V - 1.0) * eps;
        let z = (y - eps) / width;
        let s_integral = if z <= 1.0 {
            z * z * z * (1.0 - 0.5 * z)
        } else {
            z - 0.5
        };
        stat * f0(eps, eps, self.h)
            + self.h * (stat * (y - eps) + (kinetic - stat) * width * s_integral)
    }

    /// ∂/∂x of [`Friction::node_value_blended`], N.
    #[inline]
    pub fn node_gradient_blended(&self, v: &Vec2, kinetic: f64, stat: f64) -> Vec2 {
        if stat == kinetic {
            return self.node_gradient(v, kinetic);
        }
        let t = self.tangent_operator();
        let vbar = t * v;
        let y = vbar.norm();
        let (ml, _) = blended_mu_lambda(y, self.eps_v, kinetic, stat);
        t * vbar * (ml * f1_over_y(y, self.eps_v))
    }

    /// The unprojected ∂²/∂x² of [`Friction::node_value_blended`], N/m:
    /// (1/ĥ) T ((μλ f₁/y) I + (d(μλ f₁/y)/dy)/y · v̄ v̄ᵀ) Tᵀ.
    pub fn node_hessian_blended_unprojected(&self, v: &Vec2, kinetic: f64, stat: f64) -> Mat2 {
        let (t, inner) = self.blended_inner(v, kinetic, stat);
        t * inner * t.transpose() / self.h
    }

    /// [`Friction::node_hessian_blended_unprojected`] with its inner 2×2 projected to PSD, N/m.
    #[inline]
    pub fn node_hessian_blended(&self, v: &Vec2, kinetic: f64, stat: f64) -> Mat2 {
        if stat == kinetic {
            return self.node_hessian(v, kinetic);
        }
        let (t, inner) = self.blended_inner(v, kinetic, stat);
        t * psd::project_2x2(&inner) * t.transpose() / self.h
    }

    fn blended_inner(&self, v: &Vec2, kinetic: f64, stat: f64) -> (Mat2, Mat2) {
        let t = self.tangent_operator();
        let vbar = t * v;
        let y = vbar.norm();
        let (ml, dml) = blended_mu_lambda(y, self.eps_v, kinetic, stat);
        let q = f1_over_y(y, self.eps_v);
        let mut inner = Mat2::identity() * (ml * q);
        if y != 0.0 {
            let da = dml * q + ml * hess_term(y, self.eps_v);
            inner += vbar * vbar.transpose() * (da / y);
        }
        (t, inner)
    }
}

/// The stick-zone filter of the line search (`newton.stick_filter`, docs/refinement.md): the
/// largest α such that no contact node (μ_kλ > 0 or μ_sλ > 0) that is sliding at `x` (tangential
/// displacement |u| = |t·(x − xⁿ)| above `width` = ε_v h, m) has its u change sign between x and
/// x + αp; +∞ when none would. α is where u reaches 0, the middle of the stick zone.
///
/// Friction's projected Hessian is zero on the slip side (f₁′ = 0 for |v̄| ≥ ε_v) and up to
/// 2μλ/(ε_v h) inside the zone, a band of 2ε_v h (2·10⁻⁵ m with the book's constants). A Newton
/// step taken from the slip side therefore sees no friction curvature and can jump across the
/// band to the slip side opposite; landing in it instead lets the next iteration see the
/// curvature. The filter only shortens the first trial: E, its minimiser and the stopping rule
/// (on p, before the line search) are unchanged. A node already inside the zone sets no bound
/// (bounding it would pin it at u = 0, where the step from it can be α = 0).
pub fn stick_zone_max_step(
    x: &[Vec2],
    x_n: &[Vec2],
    p: &[Vec2],
    mu_lambda_kinetic: &[f64],
    mu_lambda_static: &[f64],
    normal: &Vec2,
    width: f64,
) -> f64 {
    let t = Vec2::new(-normal.y, normal.x);
    let mut alpha = f64::INFINITY;
    for i in 0..x.len() {
        if mu_lambda_kinetic[i] <= 0.0 && mu_lambda_static[i] <= 0.0 {
            continue;
        }
        let u0 = t.dot(&(x[i] - x_n[i]));
        let u1 = u0 + t.dot(&p[i]);
        if u0.abs() > width && u0 * u1 < 0.0 {
            alpha = alpha.min(u0 / (u0 - u1));
        }
    }
    alpha
}

/// Semi-implicit friction as a term of E: Σ over the nodes with μ_kλᵢ > 0 or μ_sλᵢ > 0 of
/// the static/kinetic energy ([`Friction::node_value_blended`]) at v = (x − xⁿ)/h, with xⁿ and
/// the lagged μλ from the [`StepState`]. One element per node.
#[derive(Clone, Debug)]
pub struct FrictionEnergy {
    /// The step's friction constants.
    friction: Friction,
    /// Number of nodes.
    nodes: usize,
    /// [`Projection::Clamp`]: the inner 2×2 projected to PSD (SPEC.md §2, the solver's);
    /// [`Projection::None`]: the exact Hessian.
    projection: Projection,
}

impl FrictionEnergy {
    /// The term over `nodes` nodes with the constants `friction`.
    pub fn new(friction: Friction, nodes: usize, projection: Projection) -> Self {
        FrictionEnergy {
            friction,
            nodes,
            projection,
        }
    }

    /// Per node, v = (x − xⁿ)/h (m/s), μ_kλ and μ_sλ (N) where the node has a friction bound,
    /// None where it has none (no contact at xⁿ: no friction).
    fn nodes<'a>(
        &'a self,
        x: &'a [Vec2],
        step: &'a StepState,
    ) -> impl Iterator<Item = Option<(Vec2, f64, f64)>> + 'a {
        x.iter()
            .zip(step.x_n)
            .zip(step.mu_lambda_kinetic)
            .zip(step.mu_lambda_static)
            .map(|(((x, xn), k), s)| {
                (*k > 0.0 || *s > 0.0).then(|| ((x - xn) / self.friction.h, *k, *s))
            })
    }

    fn blocks(&self, x: &[Vec2], step: &StepState, weight: f64, out: &mut [f64], psd: bool) {
        let fr = &self.friction;
        for (o, node) in out.chunks_exact_mut(4).zip(self.nodes(x, step)) {
            let block = match node {
                Some((v, k, s)) if psd => fr.node_hessian_blended(&v, k, s) * weight,
                Some((v, k, s)) => fr.node_hessian_blended_unprojected(&v, k, s) * weight,
                None => Mat2::zeros(),
            };
            write_node_block(&block, o);
        }
    }
}

impl Energy for FrictionEnergy {
    fn name(&self) -> &'static str {
        "friction"
    }

    fn elements(&self) -> Elements<'_> {
        Elements::EachNode(self.nodes)
    }

    /// w Σ Ψᵢ, J.
    fn value(&self, x: &[Vec2], step: &StepState, weight: f64) -> f64 {
        let mut sum = 0.0;
        for (v, k, s) in self.nodes(x, step).flatten() {
            sum += self.friction.node_value_blended(&v, k, s);
        }
        weight * sum
    }

    /// w ∂Ψᵢ/∂x per node, N.
    fn gradient(&self, x: &[Vec2], step: &StepState, weight: f64, out: &mut [Vec2]) {
        for (o, node) in out.iter_mut().zip(self.nodes(x, step)) {
            *o = match node {
                Some((v, k, s)) => self.friction.node_gradient_blended(&v, k, s) * weight,
                None => Vec2::zeros(),
            };
        }
    }

    /// w ∂²Ψᵢ/∂x² per node, projected as configured, N/m.
    fn hessian(&self, x: &[Vec2], step: &StepState, weight: f64, out: &mut [f64]) {
        self.blocks(x, step, weight, out, self.projection == Projection::Clamp);
    }

    fn hessian_is_psd(&self) -> bool {
        self.projection == Projection::Clamp
    }

    fn psd_hessian(&self, x: &[Vec2], step: &StepState, weight: f64, out: &mut [f64]) {
        self.blocks(x, step, weight, out, true);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The slope of the book's scene, n = (0.1, 1)/‖·‖, and its tangent from a rotation of n
    /// written out here (not the filter's own).
    fn slope() -> (Vec2, Vec2) {
        let n = Vec2::new(0.1, 1.0).normalize();
        (n, Vec2::new(n.y, -n.x))
    }

    /// A node sliding 0.3 mm downhill whose full step would end 0.1 mm uphill (with a normal
    /// component that must not matter) is stopped where its tangential displacement is zero:
    /// α = 0.75, and the displacement there is zero to rounding while it keeps its sign at
    /// 0.99 α.
    #[test]
    fn a_sliding_node_stops_in_the_middle_of_the_stick_zone() {
        let (n, t) = slope();
        let x_n = [Vec2::new(0.3, -0.5)];
        let x = [x_n[0] + t * 3e-4 + n * 2e-3];
        let p = [t * -4e-4 + n * -1e-3];
        let a = stick_zone_max_step(&x, &x_n, &p, &[10.0], &[10.0], &n, 1e-5);
        assert!((a - 0.75).abs() < 1e-12, "alpha = {a}");
        let u = |alpha: f64| (x[0] + p[0] * alpha - x_n[0]).dot(&t);
        assert!(u(a).abs() < 1e-15, "u(alpha) = {}", u(a));
        assert!(u(0.99 * a) > 0.0);
    }

    /// No bound from a node already inside the zone, a node with no friction, or a step that
    /// does not change the displacement's sign; with several nodes the smallest bound wins.
    #[test]
    fn only_sliding_contact_nodes_that_cross_set_a_bound() {
        let (n, t) = slope();
        let zero = [Vec2::zeros()];
        let inside =
            stick_zone_max_step(&[t * 5e-6], &zero, &[t * -1e-3], &[10.0], &[10.0], &n, 1e-5);
        assert_eq!(inside, f64::INFINITY);
        let free = stick_zone_max_step(&[t * 1e-3], &zero, &[t * -2e-3], &[0.0], &[0.0], &n, 1e-5);
        assert_eq!(free, f64::INFINITY);
        let same_side =
            stick_zone_max_step(&[t * 1e-3], &zero, &[t * -9e-4], &[10.0], &[10.0], &n, 1e-5);
        assert_eq!(same_side, f64::INFINITY);
        let static_only =
            stick_zone_max_step(&[t * 1e-3], &zero, &[t * -2e-3], &[0.0], &[5.0], &n, 1e-5);
        assert!((static_only - 0.5).abs() < 1e-12);
        let two = stick_zone_max_step(
            &[t * 1e-3, t * -2e-3],
            &[Vec2::zeros(), Vec2::zeros()],
            &[t * -2e-3, t * 8e-3],
            &[10.0, 10.0],
            &[10.0, 10.0],
            &n,
            1e-5,
        );
        assert!((two - 0.25).abs() < 1e-12, "alpha = {two}");
    }
}
