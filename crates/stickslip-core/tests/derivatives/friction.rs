//! The static/kinetic friction energy (SPEC.md §6, `contact::potentials::friction` module
//! comment) of one contact, in 2D and 3D, against finite differences: its gradient against
//! central differences of its value, its unprojected Hessian against central differences of
//! its gradient, at tangential speeds below ε_v, inside the transition (ε_v, 2ε_v), beyond it
//! and across both ends; and the force it gives against the stated law (μ_sλ at ε_v, μ_kλ from
//! 2ε_v, never above μ_sλ).

use nalgebra::{DMatrix, SVector};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use stickslip_core::contact::collisions::tangential::TangentialCollision;
use stickslip_core::contact::pair::{TangentFrame, tangent_basis};
use stickslip_core::contact::potentials::friction::{
    FrictionParams, FrictionPotential, KINETIC_FROM_EPS_V,
};
use stickslip_core::contact::{Coefficients, MAX_STENCIL};
use stickslip_core::energy::{Energy, Projection, StepState};

/// Relative tolerance of a central difference with the steps below: truncation ~δ²|f'''|/6 and
/// rounding ~ε|f|/δ both stay under ~1e-8 of the derivative's scale here (δ = 1e-4 ε_v h in x,
/// where the energy's third derivative is ~μλ/(h² ε_v²)); 1e-5 keeps three orders of margin
/// and still catches a wrong factor or sign (an O(1) error).
const FD_REL_TOL: f64 = 1e-5;

const EPS_V: f64 = 1e-3;
const H: f64 = 0.01;
/// λ and the coefficients: μ_kλ = 20 N and μ_sλ = 80 N (μ_k = 0.05, μ_s = 0.2 at λ = 400 N:
/// the test-3 coefficients).
const LAMBDA: f64 = 400.0;
const MU: Coefficients = Coefficients {
    mu_static: 0.2,
    mu_kinetic: 0.05,
};

/// Tangential speeds to test at, in multiples of ε_v: every regime and both ends of the
/// transition (a slight normal component is added, which friction must ignore).
const SPEEDS_OVER_EPS: [f64; 12] = [
    0.01, 0.3, 0.999, 1.0, 1.001, 1.2, 1.5, 1.9, 1.999, 2.0, 2.001, 7.0,
];

/// The ends of the transition: the Hessian is continuous there (the force's slope is zero on
/// both sides) but not differentiable, so a central difference of the gradient straddling one
/// carries an O(δ) error; the Hessian is compared just beside them, the gradient at them too.
const KINKS_OVER_EPS: [f64; 2] = [1.0, KINETIC_FROM_EPS_V];

/// A tilted unit normal in D dimensions.
fn normal<const D: usize>() -> SVector<f64, D> {
    SVector::<f64, D>::from_fn(|i, _| [0.1, 1.0, 0.3][if D == 2 { i } else { [0, 2, 1][i] }])
        .normalize()
}

/// One node's friction against a plane of normal n (node 0, β = 1, no surface velocity).
fn friction<const D: usize>(projection: Projection) -> FrictionPotential<D> {
    let n = normal::<D>();
    let collision = TangentialCollision {
        nodes: [0; MAX_STENCIL],
        key: 0,
        frame: TangentFrame {
            basis: tangent_basis(&n),
            normal: n,
            weights: [1.0, 0.0, 0.0, 0.0],
            surface_velocity: SVector::<f64, D>::zeros(),
        },
        normal_force: LAMBDA,
        coefficients: MU,
        bodies: (0, 1),
    };
    FrictionPotential::with_collisions(
        FrictionParams {
            eps_v: EPS_V,
            projection,
            stick_filter: false,
        },
        1,
        vec![collision],
    )
}

/// A velocity of tangential speed `y` in a random tangent direction, with a normal component.
fn velocity<const D: usize>(rng: &mut ChaCha8Rng, y: f64) -> SVector<f64, D> {
    let n = normal::<D>();
    let mut t = SVector::<f64, D>::from_fn(|_, _| rng.random::<f64>() - 0.5);
    t -= n * n.dot(&t);
    t.normalize() * y + n * (rng.random::<f64>() - 0.5) * EPS_V
}

fn gradient<const D: usize>(
    f: &FrictionPotential<D>,
    x: &SVector<f64, D>,
    step: &StepState<D>,
) -> SVector<f64, D> {
    let mut out = [SVector::<f64, D>::zeros()];
    f.gradient(&[*x], step, 1.0, &mut out);
    out[0]
}

fn hessian<const D: usize>(
    f: &FrictionPotential<D>,
    x: &SVector<f64, D>,
    step: &StepState<D>,
) -> DMatrix<f64> {
    let mut out = vec![0.0; D * D];
    f.hessian(&[*x], step, 1.0, &mut out);
    DMatrix::from_column_slice(D, D, &out)
}

fn gradient_and_hessian_match<const D: usize>() {
    let exact = friction::<D>(Projection::None);
    let projected = friction::<D>(Projection::Clamp);
    let mut rng = ChaCha8Rng::seed_from_u64(8);
    let x_n = [SVector::<f64, D>::from_fn(|i, _| 0.3 - 0.6 * i as f64)];
    let step = StepState {
        x_tilde: &x_n,
        x_n: &x_n,
        h: H,
        time: H,
    };
    let delta = 1e-4 * EPS_V * H;
    for &r in &SPEEDS_OVER_EPS {
        let v = velocity::<D>(&mut rng, r * EPS_V);
        let x = x_n[0] + v * H;
        let g = gradient(&exact, &x, &step);
        let mut fd_g = SVector::<f64, D>::zeros();
        let mut fd_h = DMatrix::<f64>::zeros(D, D);
        for k in 0..D {
            let (mut p, mut m) = (x, x);
            p[k] += delta;
            m[k] -= delta;
            fd_g[k] =
                (exact.value(&[p], &step, 1.0) - exact.value(&[m], &step, 1.0)) / (2.0 * delta);
            let column =
                (gradient(&exact, &p, &step) - gradient(&exact, &m, &step)) / (2.0 * delta);
            for j in 0..D {
                fd_h[(j, k)] = column[j];
            }
        }
        let g_scale = g.amax().max(fd_g.amax());
        assert!(
            (g - fd_g).amax() <= FD_REL_TOL * g_scale,
            "D = {D}, y = {r} ε_v: gradient {g:?} vs finite difference {fd_g:?}"
        );
        if KINKS_OVER_EPS.contains(&r) {
            continue;
        }
        let hess = hessian(&exact, &x, &step);
        // The Hessian's scale: μ_sλ f₁/y / h, its largest term below 2 ε_v.
        let h_scale = hess.amax().max(MU.mu_static * LAMBDA / (EPS_V * H));
        assert!(
            (&hess - &fd_h).amax() <= FD_REL_TOL * h_scale,
            "D = {D}, y = {r} ε_v: Hessian {hess} vs finite difference {fd_h}"
        );
        // The projected Hessian is PSD (the transition is not convex: the force falls there).
        let proj = hessian(&projected, &x, &step);
        let eig = nalgebra::SymmetricEigen::new(proj).eigenvalues;
        assert!(
            eig.min() >= -1e-12 * h_scale,
            "D = {D}, y = {r} ε_v: projected Hessian has eigenvalue {}",
            eig.min()
        );
    }
}

#[test]
fn gradient_and_hessian_match_finite_differences() {
    gradient_and_hessian_match::<2>();
    gradient_and_hessian_match::<3>();
}

fn force_follows_static_then_kinetic_in<const D: usize>() {
    let f = friction::<D>(Projection::Clamp);
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let x_n = [SVector::<f64, D>::zeros()];
    let step = StepState {
        x_tilde: &x_n,
        x_n: &x_n,
        h: H,
        time: H,
    };
    let mut force = |y: f64| gradient(&f, &(velocity::<D>(&mut rng, y) * H), &step).norm();
    let (stat, kinetic) = (MU.mu_static * LAMBDA, MU.mu_kinetic * LAMBDA);
    // Exactly μ_sλ at ε_v (f₁ = 1 there) and μ_kλ from 2 ε_v on; rounding only.
    let at_eps = force(EPS_V);
    assert!((at_eps - stat).abs() <= 1e-12 * stat, "D = {D}: {at_eps}");
    for r in [KINETIC_FROM_EPS_V, 3.0, 100.0] {
        let f = force(r * EPS_V);
        assert!(
            (f - kinetic).abs() <= 1e-12 * stat,
            "D = {D}, y = {r} ε_v: {f}"
        );
    }
    // Never above μ_sλ, and falling monotonically through the transition.
    let mut last = f64::INFINITY;
    for k in 0..=100 {
        let y = EPS_V * (1.0 + k as f64 / 100.0);
        let f = force(y);
        assert!(
            f <= stat * (1.0 + 1e-12) && f <= last * (1.0 + 1e-12),
            "D = {D}, y = {y}: {f}"
        );
        last = f;
    }
}

#[test]
fn force_follows_static_then_kinetic() {
    force_follows_static_then_kinetic_in::<2>();
    force_follows_static_then_kinetic_in::<3>();
}
