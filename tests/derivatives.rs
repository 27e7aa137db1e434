//! Every energy's gradient against central finite differences of its value, and its
//! unprojected Hessian against central finite differences of its gradient (SPEC.md §2), at
//! random states from a fixed seed: springs stretched and compressed, the barrier inside d̂,
//! friction below and above ε_v.

use nalgebra::{Matrix2, Vector2};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use stickslip::energy::barrier::Barrier;
use stickslip::energy::friction::Friction;
use stickslip::energy::{barrier, friction, gravity, inertia, spring};

type V2 = Vector2<f64>;

/// Relative tolerance of a central difference. Its truncation error is ~δ²|f'''|/6 and its
/// rounding error ~ε|f|/δ; with the steps below both stay under ~1e-7 of the derivative's
/// scale for these energies, so 1e-5 leaves two orders of margin without hiding a wrong term
/// (a wrong factor or sign gives an O(1) relative error).
const FD_REL_TOL: f64 = 1e-5;

fn close(a: f64, b: f64, scale: f64, what: &str) {
    assert!(
        (a - b).abs() <= FD_REL_TOL * scale,
        "{what}: analytic {a:e} vs finite difference {b:e} (scale {scale:e})"
    );
}

fn fd_grad(f: &dyn Fn(&V2) -> f64, x: &V2, delta: f64) -> V2 {
    let mut g = V2::zeros();
    for k in 0..2 {
        let mut p = *x;
        let mut m = *x;
        p[k] += delta;
        m[k] -= delta;
        g[k] = (f(&p) - f(&m)) / (2.0 * delta);
    }
    g
}

fn fd_jac(f: &dyn Fn(&V2) -> V2, x: &V2, delta: f64) -> Matrix2<f64> {
    let mut h = Matrix2::zeros();
    for k in 0..2 {
        let mut p = *x;
        let mut m = *x;
        p[k] += delta;
        m[k] -= delta;
        let col = (f(&p) - f(&m)) / (2.0 * delta);
        h.set_column(k, &col);
    }
    h
}

fn check_grad(value: &dyn Fn(&V2) -> f64, grad: V2, x: &V2, delta: f64, what: &str) {
    let fd = fd_grad(value, x, delta);
    let scale = grad.amax().max(fd.amax()).max(1e-300);
    for k in 0..2 {
        close(grad[k], fd[k], scale, what);
    }
}

/// `term_scale`: the size of the terms the Hessian is a sum of (its entries may cancel to ~0,
/// as friction's do above ε_v in 2D, where T(I/y − v̄v̄ᵀ/y³)T = 0).
fn check_hess(
    gradient: &dyn Fn(&V2) -> V2,
    hess: Matrix2<f64>,
    x: &V2,
    delta: f64,
    term_scale: f64,
    what: &str,
) {
    let fd = fd_jac(gradient, x, delta);
    let scale = hess.amax().max(fd.amax()).max(term_scale).max(1e-300);
    for r in 0..2 {
        for c in 0..2 {
            close(hess[(r, c)], fd[(r, c)], scale, what);
        }
    }
}

fn rng() -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(20261201)
}

#[test]
fn inertia_and_gravity() {
    let mut r = rng();
    for _ in 0..50 {
        let x = V2::new(r.random_range(-2.0..2.0), r.random_range(-2.0..2.0));
        let xt = V2::new(r.random_range(-2.0..2.0), r.random_range(-2.0..2.0));
        let m = r.random_range(1.0..100.0);
        let g = V2::new(0.0, -9.81);
        let val = |x: &V2| inertia::value(&[*x], &[xt], &[m]) + gravity::value(&[*x], &[m], &g);
        let grad = |x: &V2| {
            let mut out = [V2::zeros()];
            inertia::gradient(&[*x], &[xt], &[m], 1.0, &mut out);
            gravity::gradient(&[m], &g, 1.0, &mut out);
            out[0]
        };
        check_grad(&val, grad(&x), &x, 1e-5, "inertia+gravity gradient");
        let mut h = [Matrix2::zeros()];
        inertia::hessian(&[m], 1.0, &mut h);
        check_hess(&grad, h[0], &x, 1e-5, 0.0, "inertia Hessian");
    }
}

#[test]
fn spring_element() {
    let mut r = rng();
    let k = 2e4;
    for _ in 0..200 {
        let l2: f64 = r.random_range(0.01..0.2);
        // Stretch from 0.3 (compressed; H_d indefinite) to 1.7 of the rest length.
        let s = r.random_range(0.3..1.7) * l2.sqrt();
        let ang: f64 = r.random_range(0.0..std::f64::consts::TAU);
        let xb = V2::new(r.random_range(-1.0..1.0), r.random_range(-1.0..1.0));
        let xa = xb + V2::new(ang.cos(), ang.sin()) * s;
        let val = |xa: &V2| spring::element_value(&(xa - xb), l2, k);
        let grad = |xa: &V2| spring::element_gradient(&(xa - xb), l2, k);
        check_grad(&val, grad(&xa), &xa, 1e-7, "spring gradient");
        check_hess(
            &grad,
            spring::element_hessian_block(&(xa - xb), l2, k),
            &xa,
            1e-7,
            0.0,
            "spring Hessian",
        );
        // The mesh-level sum agrees with the element kernel on a one-edge mesh.
        let mut g = [V2::zeros(); 2];
        let mut buf = [V2::zeros(); 1];
        spring::gradient(&[xa, xb], &[[0, 1]], &[l2], k, 1.0, &mut buf, &mut g);
        assert_eq!(g[0], grad(&xa));
        assert_eq!(g[1], -grad(&xa));
    }
}

#[test]
fn barrier_inside_dhat() {
    let mut r = rng();
    let n = V2::new(0.1, 1.0).normalize();
    let bar = Barrier {
        normal: n,
        point: V2::new(0.0, -1.0),
        dhat: 0.01,
        kappa: 1e5,
        kind: Default::default(),
    };
    for _ in 0..200 {
        // Distances from 1e-3 d̂ to 0.999 d̂, and a few outside (zero energy).
        let d = bar.dhat * r.random_range(-3.0f64..0.3).exp().min(0.999);
        let x = bar.point + n * d + V2::new(n.y, -n.x) * r.random_range(-1.0..1.0);
        let area = 0.25;
        let val = |x: &V2| barrier::value(&[*x], &[area], &bar);
        let grad = |x: &V2| {
            let mut g = [V2::zeros()];
            barrier::gradient(&[*x], &[area], &bar, 1.0, &mut g);
            g[0]
        };
        let mut h = [Matrix2::zeros()];
        barrier::hessian(&[x], &[area], &bar, 1.0, &mut h);
        // The step must stay well inside (0, d̂) and below the distance's own scale.
        let delta = 1e-4 * d.min(bar.dhat - d);
        check_grad(&val, grad(&x), &x, delta, "barrier gradient");
        check_hess(&grad, h[0], &x, delta, 0.0, "barrier Hessian");
        assert!(bar.normal_force(&x, area) > 0.0, "λ > 0 inside d̂");
    }
}

#[test]
fn friction_below_and_above_eps_v() {
    let mut r = rng();
    let n = V2::new(0.1, 1.0).normalize();
    let t = V2::new(n.y, -n.x);
    let fr = Friction {
        normal: n,
        eps_v: 1e-3,
        h: 0.01,
    };
    let mu_lambda = 30.0;
    let mut below = 0;
    let mut above = 0;
    for i in 0..400 {
        // Tangential speed log-uniform in [0.05 ε_v, 100 ε_v], with a normal component too.
        let y = fr.eps_v * r.random_range(-3.0f64..4.6).exp();
        if (y - fr.eps_v).abs() < 0.02 * fr.eps_v {
            continue; // the kink at ε_v (C¹ only): no second derivative there
        }
        let sign = if i % 2 == 0 { 1.0 } else { -1.0 };
        let v = t * (y * sign) + n * r.random_range(-0.1..0.1);
        let x_n = V2::new(r.random_range(-1.0..1.0), r.random_range(-1.0..1.0));
        let x = x_n + v * fr.h;
        if y < fr.eps_v {
            below += 1;
        } else {
            above += 1;
        }
        let val = |x: &V2| friction::value(&[*x], &[x_n], &[mu_lambda], &fr);
        let grad = |x: &V2| {
            let mut g = [V2::zeros()];
            friction::gradient(&[*x], &[x_n], &[mu_lambda], &fr, 1.0, &mut g);
            g[0]
        };
        // δx moves v by δx/h: keep that ≤ 1e-4 of y and of |y − ε_v| so no difference crosses
        // the kink.
        let delta = 1e-4 * y.min((y - fr.eps_v).abs()) * fr.h;
        check_grad(&val, grad(&x), &x, delta, "friction gradient");
        let h = fr.node_hessian_unprojected(&v, mu_lambda);
        let term = mu_lambda / fr.h * friction::f1_over_y(y, fr.eps_v);
        check_hess(&grad, h, &x, delta, term, "friction Hessian");
        // The projected Hessian equals the unprojected one here (the inner term is PSD in
        // exact arithmetic), up to rounding.
        let hp = fr.node_hessian(&v, mu_lambda);
        assert!((hp - h).amax() <= 1e-9 * term);
    }
    assert!(
        below > 50 && above > 50,
        "both regimes covered: {below} below, {above} above ε_v"
    );
}
