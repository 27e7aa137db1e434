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
//!
//! **Exact stick** (SPEC.md §9; [`StickModel::Exact`], case key `friction.stick = "exact"`).
//! Each contact carries an elastic tangential offset s₀ (m, in its tangent coordinates) from
//! step to step, a persistent anchor: s = s₀ + h u = s₀ + Tᵀ(Σⱼ βⱼ (xⱼ − xⱼⁿ) − h v_s) (m),
//! the displacement the smoothed model measures (a belt's surface motion taken off) added to
//! the carried one. The energy is a Huber function of r = ‖s‖ with yield displacement
//! s_y = ε_d (m) and stiffness k_t = μλ/ε_d (N/m): Ψ = k_t r²/2 for r ≤ ε_d,
//! μλ (r − ε_d/2) beyond (J); gradient on node j βⱼ T (k_t s) inside, βⱼ T (μλ ŝ) outside
//! (N); Hessian on nodes j, l βⱼβ_l T H_s Tᵀ with H_s = k_t I inside and μλ/r (I − ŝŝᵀ)
//! outside (N/m). Ψ is C¹ and, for a fixed μλ > 0, convex in x (a Huber function of an
//! affine map), so its blocks are PSD without projection. μ = μ_s while the contact stuck at
//! the last accepted step (‖s‖ ≤ ε_d there), μ_k while it slipped. After each accepted step
//! the return mapping ([`return_mapping`]) keeps s₀ ← s inside the yield radius and
//! s₀ ← ε_d ŝ beyond it. Under a tangential load W < μ_sλ the contact settles at
//! s = W/k_t and then moves by zero; at W ≥ μ_sλ it slides with the force μ_kλ exactly.

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

/// How friction holds a contact that sticks (SPEC.md §9; case key `friction.stick`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum StickModel {
    /// Smoothed friction (SPEC.md §2, §6; `"smoothed"`): no force at zero slip, so a contact
    /// under a static tangential load creeps.
    #[default]
    Smoothed,
    /// Exact stick (SPEC.md §9; `"exact"`): the persistent tangential spring of the module
    /// comment, with yield displacement `eps_d` = ε_d (m, > 0).
    Exact {
        /// ε_d, the elastic micro-slip a sticking contact may take before it slides, m.
        eps_d: f64,
    },
}

impl StickModel {
    /// Whether this is exact stick.
    pub fn is_exact(&self) -> bool {
        matches!(self, StickModel::Exact { .. })
    }
}

/// An exact-stick contact's state carried into a step (SPEC.md §9): its elastic tangential
/// offset s₀ (m, tangent coordinates of the step's frame; second component zero in 2D) and
/// whether it stuck at the last accepted step (μ_s) or slipped (μ_k).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StickAnchor {
    /// s₀, m.
    pub offset: Vector2<f64>,
    /// Stuck at the last accepted step (a new contact starts stuck).
    pub stuck: bool,
}

impl Default for StickAnchor {
    /// A new contact: no offset, stuck.
    fn default() -> Self {
        StickAnchor {
            offset: Vector2::zeros(),
            stuck: true,
        }
    }
}

/// Ψ of one exact-stick contact at elastic displacement r = ‖s‖ (m) with bound μλ (N) and
/// yield displacement ε_d (m): μλ r²/(2ε_d) for r ≤ ε_d, μλ (r − ε_d/2) beyond, J.
#[inline]
pub fn stick_value(r: f64, mu_lambda: f64, eps_d: f64) -> f64 {
    if r <= eps_d {
        mu_lambda * r * r / (2.0 * eps_d)
    } else {
        mu_lambda * (r - 0.5 * eps_d)
    }
}

/// The factor c of ∂Ψ/∂s = c s for one exact-stick contact: k_t = μλ/ε_d for r ≤ ε_d, μλ/r
/// beyond, N/m.
#[inline]
pub fn stick_force_factor(r: f64, mu_lambda: f64, eps_d: f64) -> f64 {
    if r <= eps_d {
        mu_lambda / eps_d
    } else {
        mu_lambda / r
    }
}

/// ∂²Ψ/∂s² of one exact-stick contact at s (m): k_t I for ‖s‖ ≤ ε_d, μλ/‖s‖ (I − ŝŝᵀ)
/// beyond (PSD for μλ ≥ 0), N/m.
#[inline]
pub fn stick_hessian(s: &Vector2<f64>, mu_lambda: f64, eps_d: f64) -> Matrix2<f64> {
    let r = s.norm();
    if r <= eps_d {
        Matrix2::identity() * (mu_lambda / eps_d)
    } else {
        let hat = s / r;
        (Matrix2::identity() - hat * hat.transpose()) * (mu_lambda / r)
    }
}

/// The return mapping of one exact-stick contact after an accepted step (SPEC.md §9): from its
/// elastic displacement `s` at the end of the step (m), whether it held with μ_s (`was_stuck`)
/// and the coefficients `(μ_k, μ_s)`, the state it carries into the next step.
///
/// * The offset carried is s clamped to the yield radius ε_d (the slip of the step, beyond
///   ε_d, is dropped), scaled so that the force it carries is unchanged when the bound changes
///   from μ_k λ to μ_s λ.
/// * The contact holds with μ_s next step unless it *slid* in this one: its slip beyond ε_d
///   exceeded `slip_tolerance` (m; the solver passes ε_v h, so a slip speed above ε_v, where
///   smoothed friction leaves μ_s too). A contact that only just yields, as one contact of a
///   deformable body does while the load spreads to the others before the body breaks away,
///   keeps μ_s: the body breaks away at μ_s N, not when its first contact yields.
pub fn return_mapping(
    s: &Vector2<f64>,
    was_stuck: bool,
    coefficients: (f64, f64),
    eps_d: f64,
    slip_tolerance: f64,
) -> StickAnchor {
    let (mu_kinetic, mu_static) = coefficients;
    let r = s.norm();
    let held = if r <= eps_d { *s } else { s * (eps_d / r) };
    let stuck = r - eps_d <= slip_tolerance;
    let used = if was_stuck { mu_static } else { mu_kinetic };
    let next = if stuck { mu_static } else { mu_kinetic };
    let offset = if used == next || next == 0.0 {
        held
    } else if used < next {
        held * (used / next)
    } else {
        // μ_s → μ_k on sliding: the offset stays at the yield radius, so the contact carries
        // the kinetic bound μ_k λ from the next step on.
        held
    };
    StickAnchor { offset, stuck }
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
    /// How a sticking contact is held (SPEC.md §9).
    stick: StickModel,
    /// With exact stick, each collision's state carried into the step (aligned with
    /// `collisions`); empty when smoothed.
    pub(crate) anchors: Vec<StickAnchor>,
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
            stick: StickModel::Smoothed,
            anchors: Vec::new(),
        }
    }

    /// The same friction with sticking contacts held by `stick` (SPEC.md §9); with exact
    /// stick, every collision starts as a new contact ([`StickAnchor::default`]).
    pub fn with_stick(mut self, stick: StickModel) -> Self {
        self.stick = stick;
        self.anchors.clear();
        if let StickModel::Exact { .. } = stick {
            self.anchors
                .resize(self.collisions.len(), StickAnchor::default());
        }
        self
    }

    /// With exact stick, the collisions' carried states, one per collision in order (for tests
    /// and tools that make collisions by hand; the stage carries them itself). Panics when the
    /// lengths differ or friction is smoothed: a programming error.
    pub fn with_anchors(mut self, anchors: Vec<StickAnchor>) -> Self {
        assert!(self.stick.is_exact(), "anchors are exact stick's");
        assert_eq!(
            anchors.len(),
            self.collisions.len(),
            "one anchor a collision"
        );
        self.anchors = anchors;
        self
    }

    /// How a sticking contact is held.
    pub fn stick(&self) -> StickModel {
        self.stick
    }

    /// With exact stick, the collisions' carried states (aligned with
    /// [`FrictionPotential::collisions`]); empty when smoothed.
    pub fn anchors(&self) -> &[StickAnchor] {
        &self.anchors
    }

    /// With exact stick, the elastic displacement s = s₀ + h u of collision `i` at `x` (m,
    /// tangent coordinates).
    #[inline]
    pub fn elastic_slip(&self, i: usize, x: &[Vector<D>], step: &StepState<D>) -> Vector2<f64> {
        let c = &self.collisions[i];
        self.anchors[i].offset + self.tangential_velocity(c, x, step) * step.h
    }

    /// With exact stick, μλ of collision `i` this step: μ_sλ when it stuck at the last
    /// accepted step, μ_kλ when it slipped, N.
    #[inline]
    pub fn stick_bound(&self, i: usize) -> f64 {
        let (k, s) = self.collisions[i].bounds();
        if self.anchors[i].stuck { s } else { k }
    }

    /// The coefficient μ collision `i` applies at `x` and the friction force on its relative
    /// motion (on node j βⱼ times it), N: for smoothed friction μ(y) and
    /// [`FrictionPotential::force`]; with exact stick μ_s or μ_k ([`Self::stick_bound`]) and
    /// −T ∂Ψ/∂s.
    pub fn coefficient_and_force(
        &self,
        i: usize,
        x: &[Vector<D>],
        step: &StepState<D>,
    ) -> (f64, Vector<D>) {
        let c = &self.collisions[i];
        match self.stick {
            StickModel::Smoothed => {
                let u = self.tangential_velocity(c, x, step);
                let mu = c.coefficients;
                let (mu, _) =
                    blended_mu_lambda(u.norm(), self.params.eps_v, mu.mu_kinetic, mu.mu_static);
                (mu, self.force(c, x, step))
            }
            StickModel::Exact { eps_d } => {
                let mu = if self.anchors[i].stuck {
                    c.coefficients.mu_static
                } else {
                    c.coefficients.mu_kinetic
                };
                let s = self.elastic_slip(i, x, step);
                let f = s * stick_force_factor(s.norm(), self.stick_bound(i), eps_d);
                (mu, -from_tangent(&c.frame.basis, &f))
            }
        }
    }

    /// With exact stick, the return mapping ([`return_mapping`]) of every collision at the
    /// accepted `x`: each collision's key, its carried offset in world coordinates (T s₀, m)
    /// and whether it stuck, into `out` (cleared first). Nothing when smoothed.
    pub fn return_mappings(
        &self,
        x: &[Vector<D>],
        step: &StepState<D>,
        out: &mut Vec<(u64, Vector<D>, bool)>,
    ) {
        out.clear();
        let StickModel::Exact { eps_d } = self.stick else {
            return;
        };
        for (i, c) in self.collisions.iter().enumerate() {
            let s = self.elastic_slip(i, x, step);
            let mu = c.coefficients;
            let next = return_mapping(
                &s,
                self.anchors[i].stuck,
                (mu.mu_kinetic, mu.mu_static),
                eps_d,
                self.params.eps_v * step.h,
            );
            out.push((
                c.key,
                from_tangent(&c.frame.basis, &next.offset),
                next.stuck,
            ));
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
            stick: StickModel::Smoothed,
            anchors: Vec::new(),
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

    /// Exact stick's Hessian blocks (module comment), with the solver's modes for a
    /// correction pair (negative λ) as [`Self::blocks`] has them: its positive twin's block
    /// negated, or dropped where every block must be PSD.
    fn stick_blocks(
        &self,
        eps_d: f64,
        x: &[Vector<D>],
        step: &StepState<D>,
        weight: f64,
        out: &mut [f64],
        drop_negative: bool,
    ) {
        let n = D * self.nodes;
        for (i, (c, out)) in self
            .collisions
            .iter()
            .zip(out.chunks_exact_mut(n * n))
            .enumerate()
        {
            if drop_negative && c.normal_force < 0.0 {
                out.fill(0.0);
                continue;
            }
            let s = self.elastic_slip(i, x, step);
            let inner = stick_hessian(&s, self.stick_bound(i), eps_d);
            let t = &c.frame.basis;
            let block: Matrix<D> = t * inner * t.transpose() * weight;
            scatter_weighted(&block, &c.frame.weights, self.nodes, out);
        }
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
            scatter_weighted(&block, &c.frame.weights, self.nodes, out);
        }
    }
}

/// A pair's (D·k)² element block from its D × D `block` on the relative motion Σⱼ βⱼ xⱼ: the
/// (j, l) node block is βⱼ β_l `block`, column-major into `out` (k = `nodes`, β = `weights`).
fn scatter_weighted<const D: usize>(
    block: &Matrix<D>,
    weights: &[f64],
    nodes: usize,
    out: &mut [f64],
) {
    let n = D * nodes;
    for cj in 0..nodes {
        for rj in 0..nodes {
            let ww = weights[rj] * weights[cj];
            for cc in 0..D {
                for rr in 0..D {
                    out[n * (D * cj + cc) + D * rj + rr] = block[(rr, cc)] * ww;
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

    /// w Σ Ψ(y) over the collisions (exact stick: w Σ Ψ(‖s‖)), J.
    fn value(&self, x: &[Vector<D>], step: &StepState<D>, weight: f64) -> f64 {
        if let StickModel::Exact { eps_d } = self.stick {
            let mut sum = 0.0;
            for i in 0..self.collisions.len() {
                let r = self.elastic_slip(i, x, step).norm();
                sum += stick_value(r, self.stick_bound(i), eps_d);
            }
            return weight * sum;
        }
        let mut sum = 0.0;
        for c in &self.collisions {
            let y = self.tangential_velocity(c, x, step).norm();
            let (k, s) = c.bounds();
            sum += contact_value(y, k, s, self.params.eps_v, step.h);
        }
        weight * sum
    }

    /// w βⱼ μ(y)λ (f₁/y) T u on every stencil node (exact stick: w βⱼ T ∂Ψ/∂s), N.
    fn gradient(&self, x: &[Vector<D>], step: &StepState<D>, weight: f64, out: &mut [Vector<D>]) {
        if let StickModel::Exact { eps_d } = self.stick {
            for (i, (c, out)) in self
                .collisions
                .iter()
                .zip(out.chunks_exact_mut(self.nodes))
                .enumerate()
            {
                let s = self.elastic_slip(i, x, step);
                let f = s * stick_force_factor(s.norm(), self.stick_bound(i), eps_d);
                let g = from_tangent(&c.frame.basis, &f);
                for (o, b) in out.iter_mut().zip(&c.frame.weights) {
                    *o = g * (b * weight);
                }
            }
            return;
        }
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
        if let StickModel::Exact { eps_d } = self.stick {
            // PSD as it is for λ > 0; a correction pair's block is its twin's negated either way.
            self.stick_blocks(eps_d, x, step, weight, out, false);
            return;
        }
        self.blocks(
            x,
            step,
            weight,
            out,
            self.params.projection == Projection::Clamp,
            false,
        );
    }

    /// PSD when projected (exact stick: always) and no correction pair (negative λ) is
    /// lagged.
    fn hessian_is_psd(&self) -> bool {
        (self.params.projection == Projection::Clamp || self.stick.is_exact())
            && !self.collisions.iter().any(|c| c.normal_force < 0.0)
    }

    fn psd_hessian(&self, x: &[Vector<D>], step: &StepState<D>, weight: f64, out: &mut [f64]) {
        if let StickModel::Exact { eps_d } = self.stick {
            self.stick_blocks(eps_d, x, step, weight, out, true);
            return;
        }
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
        if !self.params.stick_filter || self.stick.is_exact() {
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

    /// The return mapping's states (SPEC.md §9), with ε_d = 1 µm, slip tolerance ε_v h =
    /// 0.1 µm, μ_k = 0.4, μ_s = 0.6: inside the yield radius a contact holds and keeps s; a
    /// yield of at most the tolerance keeps μ_s and carries ε_d ŝ; a larger one is a slide
    /// (μ_k, ε_d ŝ); a sliding contact that holds again carries the same force under μ_s
    /// (k_t s scaled by μ_k/μ_s).
    #[test]
    fn the_return_mapping_keeps_mu_s_until_the_contact_slides() {
        let (eps_d, tol, mu) = (1e-6, 1e-7, (0.4, 0.6));
        let inside = Vector2::new(0.6e-6, 0.0);
        assert_eq!(
            return_mapping(&inside, true, mu, eps_d, tol),
            StickAnchor {
                offset: inside,
                stuck: true
            }
        );
        let yielded = return_mapping(&Vector2::new(0.0, 1.05e-6), true, mu, eps_d, tol);
        assert!(yielded.stuck);
        assert!((yielded.offset - Vector2::new(0.0, eps_d)).norm() < 1e-18);
        let slid = return_mapping(&Vector2::new(-3e-6, 0.0), true, mu, eps_d, tol);
        assert!(!slid.stuck);
        assert!((slid.offset - Vector2::new(-eps_d, 0.0)).norm() < 1e-18);
        // Held again after sliding: force μ_k λ r/ε_d before, μ_s λ r'/ε_d after.
        let held = return_mapping(&inside, false, mu, eps_d, tol);
        assert!(held.stuck);
        assert!((held.offset * mu.1 - inside * mu.0).norm() < 1e-18);
    }

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
