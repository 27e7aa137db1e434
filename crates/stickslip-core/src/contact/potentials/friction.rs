//! Smoothed Coulomb friction over the tangential collisions (SPEC.md §2, §6, §7; the book's
//! FrictionEnergy.py, generalised to pairs and to 3D).
//!
//! Per collision k with its lagged λ, frame (T, β, v_s) and coefficients: the relative velocity
//! v_rel = Σⱼ βⱼ (xⱼ − xⱼⁿ)/h − v_s (m/s), its tangential part u = Tᵀ v_rel (a 2-vector, the
//! second component zero in 2D), y = ‖u‖ and ĥ = h. Energy μλ f₀(y) (J), gradient on node j
//! βⱼ μλ (f₁/y) T u (N), Hessian on nodes j, l (βⱼ β_l μλ/ĥ) T·PSD((f₁/y) I + ((f₁′y − f₁)/y²)/y
//! · u uᵀ)·Tᵀ (N/m), with f₀, f₁ of SPEC.md §2.
//!
//! **Static and kinetic coefficients** (SPEC.md §6; the `*_blended` kernels). The coefficient
//! follows the tangential speed y: μ(y) = μ_s for y ≤ ε_v, μ_k for y ≥ 2ε_v, and in between
//! μ(y) = μ_s + (μ_k − μ_s) s(z), z = (y − ε_v)/ε_v, s(z) = 3z² − 2z³ (C¹ in y). The friction
//! force is the book's with μ replaced by μ(y): −μ(y)λ (f₁/y) T u. Static friction therefore
//! holds the full μ_s λ at y = ε_v, where f₁ reaches 1 (a blend inside [0, ε_v], as
//! ipc-toolkit's `smooth_mu` does, would cap the sticking force below μ_s λ), and the creep
//! speed under a static load is ε_v(1 − √(1 − tanθ/μ_s)). The energy is the exact integral of
//! that force along y, so value, gradient and Hessian stay consistent:
//! Ψ(y) = μ_sλ f₀(y) for y ≤ ε_v, else μ_sλ ε_vĥ + ĥ [μ_sλ (y − ε_v) + (μ_k − μ_s)λ ε_v S(z)],
//! S(z) = z³ − z⁴/2 for z ≤ 1 and z − ½ beyond (S′ = s). Between ε_v and 2ε_v the force falls
//! with y, so Ψ is not convex there; the Hessian is projected to PSD like the book's.
//! When μ_s = μ_k every blended kernel computes exactly the book's expressions.

use nalgebra::{Matrix2, Vector2};

use crate::contact::collisions::tangential::TangentialCollision;
use crate::contact::pair::TangentBasis;
use crate::energy::psd;
use crate::energy::{Elements, Energy, Matrix, Projection, StepState, Vector};

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

/// Ψ(y) of one contact with bounds μ_kλ = `kinetic`, μ_sλ = `stat` (N), J.
#[inline]
pub fn contact_value(y: f64, kinetic: f64, stat: f64, eps_v: f64, h: f64) -> f64 {
    if stat == kinetic {
        return kinetic * f0(y, eps_v, h);
    }
    if y <= eps_v {
        return stat * f0(y, eps_v, h);
    }
    let width = (KINETIC_FROM_EPS_V - 1.0) * eps_v;
    let z = (y - eps_v) / width;
    let s_integral = if z <= 1.0 {
        z * z * z * (1.0 - 0.5 * z)
    } else {
        z - 0.5
    };
    stat * f0(eps_v, eps_v, h) + h * (stat * (y - eps_v) + (kinetic - stat) * width * s_integral)
}

/// μ(y)λ f₁(y)/y, N·s/m: the factor c of the gradient c T u with respect to v_rel's nodes.
#[inline]
pub fn force_factor(y: f64, kinetic: f64, stat: f64, eps_v: f64) -> f64 {
    if stat == kinetic {
        return kinetic * f1_over_y(y, eps_v);
    }
    let (ml, _) = blended_mu_lambda(y, eps_v, kinetic, stat);
    ml * f1_over_y(y, eps_v)
}

/// The Hessian of Ψ with respect to v_rel in tangent coordinates u, times ĥ (so the block on
/// nodes j, l is βⱼ β_l T · this · Tᵀ / ĥ), unprojected, N·s/m: for one μ,
/// μλ [(f₁/y) I + ((f₁′y − f₁)/y²)/y · u uᵀ]; blended, (μλ f₁/y) I + (d(μλ f₁/y)/dy)/y · u uᵀ.
/// Returns the matrix and, for one μ, the factor μλ it is to be multiplied by after projection
/// (so that the book's roundings are kept); `None` blended, where μλ is inside.
#[inline]
pub fn tangent_hessian(
    u: &Vector2<f64>,
    kinetic: f64,
    stat: f64,
    eps_v: f64,
) -> (Matrix2<f64>, Option<f64>) {
    let y = u.norm();
    if stat == kinetic {
        let mut inner = Matrix2::identity() * f1_over_y(y, eps_v);
        if y != 0.0 {
            inner += u * u.transpose() * (hess_term(y, eps_v) / y);
        }
        return (inner, Some(kinetic));
    }
    let (ml, dml) = blended_mu_lambda(y, eps_v, kinetic, stat);
    let q = f1_over_y(y, eps_v);
    let mut inner = Matrix2::identity() * (ml * q);
    if y != 0.0 {
        let da = dml * q + ml * hess_term(y, eps_v);
        inner += u * u.transpose() * (da / y);
    }
    (inner, None)
}

/// Friction's constants.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FrictionParams {
    /// Smoothing speed ε_v, m/s.
    pub eps_v: f64,
    /// How the Hessian is made PSD ([`Projection::Clamp`], the solver's; [`Projection::None`]
    /// for the finite-difference tests).
    pub projection: Projection,
    /// The line search's stick-zone filter (case key `newton.stick_filter`,
    /// [`FrictionPotential`]'s `max_step`).
    pub stick_filter: bool,
}

/// Friction over the tangential collisions of one pair type: a term of E.
#[derive(Clone, Debug)]
pub struct FrictionPotential<const D: usize> {
    params: FrictionParams,
    /// Nodes per stencil.
    nodes: usize,
    /// The lagged collisions.
    pub(crate) collisions: Vec<TangentialCollision<D>>,
    /// Their stencils: the elements.
    pub(crate) stencils: Vec<usize>,
}

/// T u, m/s.
#[inline]
fn from_tangent<const D: usize>(t: &TangentBasis<D>, u: &Vector2<f64>) -> Vector<D> {
    t * u
}

impl<const D: usize> FrictionPotential<D> {
    /// Friction with constants `params` over pairs of `nodes` nodes each, with no collisions
    /// yet.
    pub fn new(params: FrictionParams, nodes: usize) -> Self {
        FrictionPotential {
            params,
            nodes,
            collisions: Vec::new(),
            stencils: Vec::new(),
        }
    }

    /// Friction with constants `params` over the given `collisions` of `nodes` nodes each (the
    /// stage lags them itself; for tests and tools that make collisions by hand).
    pub fn with_collisions(
        params: FrictionParams,
        nodes: usize,
        collisions: Vec<TangentialCollision<D>>,
    ) -> Self {
        let stencils = collisions
            .iter()
            .flat_map(|c| c.nodes[..nodes].iter().copied())
            .collect();
        FrictionPotential {
            params,
            nodes,
            collisions,
            stencils,
        }
    }

    /// Friction's constants.
    pub fn params(&self) -> &FrictionParams {
        &self.params
    }

    /// The lagged collisions.
    pub fn collisions(&self) -> &[TangentialCollision<D>] {
        &self.collisions
    }

    /// u = Tᵀ v_rel of collision `c` at `x`, m/s.
    #[inline]
    pub fn tangential_velocity(
        &self,
        c: &TangentialCollision<D>,
        x: &[Vector<D>],
        step: &StepState<D>,
    ) -> Vector2<f64> {
        let v = c.relative_velocity(x, step.x_n, step.h, self.nodes);
        c.frame.basis.transpose() * v
    }

    /// The friction force on the relative motion of collision `c` at `x` (the force on node j
    /// is βⱼ times it), N: −μ(y)λ (f₁/y) T u.
    pub fn force(
        &self,
        c: &TangentialCollision<D>,
        x: &[Vector<D>],
        step: &StepState<D>,
    ) -> Vector<D> {
        let u = self.tangential_velocity(c, x, step);
        let (k, s) = c.bounds();
        -from_tangent(
            &c.frame.basis,
            &(u * force_factor(u.norm(), k, s, self.params.eps_v)),
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn blocks(
        &self,
        x: &[Vector<D>],
        step: &StepState<D>,
        weight: f64,
        out: &mut [f64],
        project: bool,
        drop_negative: bool,
    ) {
        let n = D * self.nodes;
        for (c, out) in self.collisions.iter().zip(out.chunks_exact_mut(n * n)) {
            // A correction pair (negative λ) in the solver's modes: its positive twin's
            // projected block negated (it cancels the duplicate pair's), or dropped where every
            // block must be PSD (as the barrier's, `contact::potentials::barrier`).
            let negative = project && c.normal_force < 0.0;
            if negative && drop_negative {
                out.fill(0.0);
                continue;
            }
            let u = self.tangential_velocity(c, x, step);
            let (k, s) = c.bounds();
            let (k, s, sign) = if negative {
                (-k, -s, -1.0)
            } else {
                (k, s, 1.0)
            };
            let (inner, factor) = tangent_hessian(&u, k, s, self.params.eps_v);
            let inner = if project {
                psd::project_2x2(&inner)
            } else {
                inner
            };
            let t = &c.frame.basis;
            let tit: Matrix<D> = t * inner * t.transpose();
            // μλ/ĥ for one μ, 1/ĥ blended (the book's roundings).
            let block = match factor {
                Some(mu_lambda) => tit * (mu_lambda / step.h),
                None => tit / step.h,
            } * (weight * sign);
            let w = &c.frame.weights;
            for cj in 0..self.nodes {
                for rj in 0..self.nodes {
                    let ww = w[rj] * w[cj];
                    for cc in 0..D {
                        for rr in 0..D {
                            out[n * (D * cj + cc) + D * rj + rr] = block[(rr, cc)] * ww;
                        }
                    }
                }
            }
        }
    }
}

impl<const D: usize> Energy<D> for FrictionPotential<D> {
    fn name(&self) -> &'static str {
        "friction"
    }

    fn elements(&self) -> Elements<'_> {
        Elements::Tuples {
            k: self.nodes,
            nodes: &self.stencils,
        }
    }

    fn fixed_elements(&self) -> bool {
        false
    }

    /// w Σ Ψ(y) over the collisions, J.
    fn value(&self, x: &[Vector<D>], step: &StepState<D>, weight: f64) -> f64 {
        let mut sum = 0.0;
        for c in &self.collisions {
            let y = self.tangential_velocity(c, x, step).norm();
            let (k, s) = c.bounds();
            sum += contact_value(y, k, s, self.params.eps_v, step.h);
        }
        weight * sum
    }

    /// w βⱼ μ(y)λ (f₁/y) T u on every stencil node, N.
    fn gradient(&self, x: &[Vector<D>], step: &StepState<D>, weight: f64, out: &mut [Vector<D>]) {
        for (c, out) in self.collisions.iter().zip(out.chunks_exact_mut(self.nodes)) {
            let u = self.tangential_velocity(c, x, step);
            let (k, s) = c.bounds();
            let g =
                from_tangent(&c.frame.basis, &u) * force_factor(u.norm(), k, s, self.params.eps_v);
            for (o, b) in out.iter_mut().zip(&c.frame.weights) {
                *o = g * (b * weight);
            }
        }
    }

    /// w ∂²Ψ/∂x² per collision, projected as configured, N/m.
    fn hessian(&self, x: &[Vector<D>], step: &StepState<D>, weight: f64, out: &mut [f64]) {
        self.blocks(
            x,
            step,
            weight,
            out,
            self.params.projection == Projection::Clamp,
            false,
        );
    }

    /// PSD when projected and no correction pair (negative λ) is lagged.
    fn hessian_is_psd(&self) -> bool {
        self.params.projection == Projection::Clamp
            && !self.collisions.iter().any(|c| c.normal_force < 0.0)
    }

    fn psd_hessian(&self, x: &[Vector<D>], step: &StepState<D>, weight: f64, out: &mut [f64]) {
        self.blocks(x, step, weight, out, true, true);
    }

    /// The stick-zone filter (`newton.stick_filter`; off: +∞), below.
    fn max_step(
        &self,
        x: &[Vector<D>],
        p: &[Vector<D>],
        step: &StepState<D>,
        _fraction: f64,
    ) -> f64 {
        if !self.params.stick_filter {
            return f64::INFINITY;
        }
        let width = self.params.eps_v * step.h;
        self.collisions
            .iter()
            .filter(|c| c.normal_force > 0.0)
            .map(|c| stick_zone_max_step(c, self.nodes, x, p, step.x_n, step.h, width))
            .fold(f64::INFINITY, f64::min)
    }
}

/// The stick-zone filter of the line search for one collision (`newton.stick_filter`,
/// docs/model.md): the tangential displacement of the pair is u(α) = Tᵀ(Σⱼ βⱼ (xⱼ + α pⱼ − xⱼⁿ)
/// − h v_s); when the pair is sliding at `x` (‖u(0)‖ above `width` = ε_v h, m) and the step
/// passes through the stick zone, the bound is the α where u comes closest to zero: in 2D
/// where it changes sign, α = u₀/(u₀ − u₁); in 3D the closest approach of the segment to 0 when
/// it lies inside the zone. +∞ otherwise.
///
/// Friction's projected Hessian is zero on the slip side (f₁′ = 0 for y ≥ ε_v) and up to
/// 2μλ/(ε_v h) inside the zone, a band of 2ε_v h (2·10⁻⁵ m with the book's constants). A
/// Newton step taken from the slip side therefore sees no friction curvature and can jump
/// across the band to the slip side opposite; landing in it instead lets the next iteration see
/// the curvature. The filter only shortens the first trial: E, its minimiser and the stopping
/// rule (on p, before the line search) are unchanged. A pair already inside the zone sets no
/// bound (bounding it would pin it at u = 0, where the step from it can be α = 0).
pub fn stick_zone_max_step<const D: usize>(
    c: &TangentialCollision<D>,
    nodes: usize,
    x: &[Vector<D>],
    p: &[Vector<D>],
    x_n: &[Vector<D>],
    h: f64,
    width: f64,
) -> f64 {
    let mut d0 = -c.frame.surface_velocity * h;
    let mut dp = Vector::<D>::zeros();
    for j in 0..nodes {
        let (n, b) = (c.nodes[j], c.frame.weights[j]);
        d0 += (x[n] - x_n[n]) * b;
        dp += p[n] * b;
    }
    let t = &c.frame.basis;
    let u0 = t.transpose() * d0;
    let u1 = u0 + t.transpose() * dp;
    if D == 2 {
        let (u0, u1) = (u0.x, u1.x);
        if u0.abs() > width && u0 * u1 < 0.0 {
            return u0 / (u0 - u1);
        }
        return f64::INFINITY;
    }
    let du = u1 - u0;
    let dd = du.norm_squared();
    if u0.norm() <= width || dd == 0.0 {
        return f64::INFINITY;
    }
    let alpha = -u0.dot(&du) / dd;
    if alpha > 0.0 && alpha < 1.0 && (u0 + du * alpha).norm() < width {
        alpha
    } else {
        f64::INFINITY
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contact::Coefficients;
    use crate::contact::pair::{MAX_STENCIL, TangentFrame, tangent_basis};
    use crate::energy::{Vec2, Vec3};

    fn collision<const D: usize>(n: Vector<D>) -> TangentialCollision<D> {
        TangentialCollision {
            nodes: [0; MAX_STENCIL],
            key: 0,
            frame: TangentFrame {
                basis: tangent_basis(&n),
                normal: n,
                weights: [1.0, 0.0, 0.0, 0.0],
                surface_velocity: Vector::<D>::zeros(),
            },
            normal_force: 100.0,
            coefficients: Coefficients::single(0.1),
            bodies: (0, 1),
        }
    }

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
        let c = collision(n);
        let x_n = [Vec2::new(0.3, -0.5)];
        let x = [x_n[0] + t * 3e-4 + n * 2e-3];
        let p = [t * -4e-4 + n * -1e-3];
        let a = stick_zone_max_step(&c, 1, &x, &p, &x_n, 0.01, 1e-5);
        assert!((a - 0.75).abs() < 1e-12, "alpha = {a}");
        let u = |alpha: f64| (x[0] + p[0] * alpha - x_n[0]).dot(&t);
        assert!(u(a).abs() < 1e-15, "u(alpha) = {}", u(a));
        assert!(u(0.99 * a) > 0.0);
    }

    /// No bound from a node already inside the zone or a step that does not change the
    /// displacement's sign.
    #[test]
    fn only_sliding_pairs_that_cross_set_a_bound() {
        let (n, t) = slope();
        let c = collision(n);
        let zero = [Vec2::zeros()];
        let inside = stick_zone_max_step(&c, 1, &[t * 5e-6], &[t * -1e-3], &zero, 0.01, 1e-5);
        assert_eq!(inside, f64::INFINITY);
        let same_side = stick_zone_max_step(&c, 1, &[t * 1e-3], &[t * -9e-4], &zero, 0.01, 1e-5);
        assert_eq!(same_side, f64::INFINITY);
        let crossing = stick_zone_max_step(&c, 1, &[t * 1e-3], &[t * -2e-3], &zero, 0.01, 1e-5);
        assert!((crossing - 0.5).abs() < 1e-12);
    }

    /// In 3D a sliding node whose path passes through the zone off centre is stopped where it
    /// comes closest to zero displacement; one whose path misses the zone is not.
    #[test]
    fn in_3d_the_bound_is_the_closest_approach_inside_the_zone() {
        let n = Vec3::new(0.0, 0.0, 1.0);
        let c = collision(n);
        let zero = [Vec3::zeros()];
        // From (1e-3, 2e-6) to (-1e-3, 2e-6) in the tangent plane: closest at α = ½, 2e-6 < 1e-5.
        let x = [Vec3::new(1e-3, 2e-6, 0.0)];
        let p = [Vec3::new(-2e-3, 0.0, -5e-4)];
        let a = stick_zone_max_step(&c, 1, &x, &p, &zero, 0.01, 1e-5);
        assert!((a - 0.5).abs() < 1e-12, "alpha = {a}");
        let miss = [Vec3::new(1e-3, 5e-5, 0.0)];
        assert_eq!(
            stick_zone_max_step(&c, 1, &miss, &p, &zero, 0.01, 1e-5),
            f64::INFINITY
        );
    }
}
