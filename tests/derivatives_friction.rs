//! The static/kinetic friction energy (SPEC.md §6, `energy::friction` module comment) against
//! finite differences: its gradient against central differences of its value, its unprojected
//! Hessian against central differences of its gradient, at tangential speeds below ε_v, inside
//! the transition (ε_v, 2ε_v), beyond it and across both ends; and the force it gives against
//! the stated law (μ_sλ at ε_v, μ_kλ from 2ε_v, never above μ_sλ).

use nalgebra::{Matrix2, Vector2};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use stickslip::energy::friction::{Friction, KINETIC_FROM_EPS_V};

type V2 = Vector2<f64>;

/// Relative tolerance of a central difference with the steps below: truncation ~δ²|f'''|/6 and
/// rounding ~ε|f|/δ both stay under ~1e-8 of the derivative's scale here (δ = 1e-4 ε_v h in x,
/// where the energy's third derivative is ~μλ/(h² ε_v²)); 1e-5 keeps three orders of margin
/// and still catches a wrong factor or sign (an O(1) error).
const FD_REL_TOL: f64 = 1e-5;

const EPS_V: f64 = 1e-3;
const H: f64 = 0.01;
/// μ_kλ and μ_sλ of a node, N (μ_k = 0.05, μ_s = 0.2 at λ = 400 N: the test-3 coefficients).
const KINETIC: f64 = 20.0;
const STATIC: f64 = 80.0;

fn friction() -> Friction {
    Friction {
        normal: V2::new(0.1, 1.0).normalize(),
        eps_v: EPS_V,
        h: H,
    }
}

/// Tangential speeds to test at, m/s: every regime and both ends of the transition, in
/// multiples of ε_v (a slight normal component is added, which friction must ignore).
const SPEEDS_OVER_EPS: [f64; 12] = [
    0.01, 0.3, 0.999, 1.0, 1.001, 1.2, 1.5, 1.9, 1.999, 2.0, 2.001, 7.0,
];

/// The ends of the transition: the Hessian is continuous there (the force's slope is zero on
/// both sides) but not differentiable, so a central difference of the gradient straddling one
/// carries an O(δ) error; the Hessian is compared just beside them, the gradient at them too.
const KINKS_OVER_EPS: [f64; 2] = [1.0, KINETIC_FROM_EPS_V];

fn velocity(rng: &mut ChaCha8Rng, fr: &Friction, y: f64) -> V2 {
    let n = fr.normal;
    let t = V2::new(n.y, -n.x);
    let sign = if rng.random::<bool>() { 1.0 } else { -1.0 };
    t * (sign * y) + n * (rng.random::<f64>() - 0.5) * EPS_V
}

#[test]
fn gradient_and_hessian_match_finite_differences() {
    let fr = friction();
    let mut rng = ChaCha8Rng::seed_from_u64(8);
    let x_n = V2::new(0.3, -0.9);
    let delta = 1e-4 * EPS_V * H;
    for &r in &SPEEDS_OVER_EPS {
        let v = velocity(&mut rng, &fr, r * EPS_V);
        let x = x_n + v * H;
        let value = |x: &V2| fr.node_value_blended(&((x - x_n) / H), KINETIC, STATIC);
        let grad = |x: &V2| fr.node_gradient_blended(&((x - x_n) / H), KINETIC, STATIC);
        let g = grad(&x);
        let mut fd_g = V2::zeros();
        let mut fd_h = Matrix2::zeros();
        for k in 0..2 {
            let mut p = x;
            let mut m = x;
            p[k] += delta;
            m[k] -= delta;
            fd_g[k] = (value(&p) - value(&m)) / (2.0 * delta);
            fd_h.set_column(k, &((grad(&p) - grad(&m)) / (2.0 * delta)));
        }
        let g_scale = g.amax().max(fd_g.amax());
        assert!(
            (g - fd_g).amax() <= FD_REL_TOL * g_scale,
            "y = {r} ε_v: gradient {g:?} vs finite difference {fd_g:?}"
        );
        if KINKS_OVER_EPS.contains(&r) {
            continue;
        }
        let hess = fr.node_hessian_blended_unprojected(&v, KINETIC, STATIC);
        // The Hessian's scale: μ_sλ f₁/y / h, its largest term below 2 ε_v.
        let h_scale = hess.amax().max(STATIC / (EPS_V * H));
        assert!(
            (hess - fd_h).amax() <= FD_REL_TOL * h_scale,
            "y = {r} ε_v: Hessian {hess:?} vs finite difference {fd_h:?}"
        );
        // The projected Hessian is PSD (the transition is not convex: the force falls there).
        let proj = fr.node_hessian_blended(&v, KINETIC, STATIC);
        let eig = proj.symmetric_eigenvalues();
        assert!(
            eig.min() >= -1e-12 * h_scale,
            "y = {r} ε_v: projected Hessian has eigenvalue {}",
            eig.min()
        );
    }
}

#[test]
fn force_follows_static_then_kinetic() {
    let fr = friction();
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let force = |y: f64, rng: &mut ChaCha8Rng| {
        fr.node_gradient_blended(&velocity(rng, &fr, y), KINETIC, STATIC)
            .norm()
    };
    // Exactly μ_sλ at ε_v (f₁ = 1 there) and μ_kλ from 2 ε_v on; rounding only.
    let at_eps = force(EPS_V, &mut rng);
    assert!((at_eps - STATIC).abs() <= 1e-12 * STATIC, "{at_eps}");
    for r in [KINETIC_FROM_EPS_V, 3.0, 100.0] {
        let f = force(r * EPS_V, &mut rng);
        assert!((f - KINETIC).abs() <= 1e-12 * STATIC, "y = {r} ε_v: {f}");
    }
    // Never above μ_sλ, and falling monotonically through the transition.
    let mut last = f64::INFINITY;
    for k in 0..=100 {
        let y = EPS_V * (1.0 + k as f64 / 100.0);
        let f = force(y, &mut rng);
        assert!(
            f <= STATIC * (1.0 + 1e-12) && f <= last * (1.0 + 1e-12),
            "y = {y}: {f}"
        );
        last = f;
    }
}
