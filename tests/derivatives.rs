//! Every energy's gradient against central finite differences of its value, and its
//! unprojected Hessian against central finite differences of its gradient (SPEC.md §2), at
//! random states from a fixed seed: springs stretched and compressed, the barrier inside and
//! outside d̂, friction below and above ε_v. And the gradient and Hessian that `Simulation`
//! assembles for its linear solve, against finite differences of the E its line search uses.

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
    let (mut inside, mut outside) = (0, 0);
    for _ in 0..200 {
        // Distances log-uniform from e⁻³ d̂ = 0.05 d̂ to e^0.3 d̂ = 1.35 d̂: about a tenth of the
        // samples outside d̂, where energy, gradient and Hessian are zero. None within 0.1 %
        // of d̂, where the barrier is only C¹ (no second derivative to difference).
        let d = bar.dhat * r.random_range(-3.0f64..0.3).exp();
        if (d - bar.dhat).abs() < 1e-3 * bar.dhat {
            continue;
        }
        let x = bar.point + n * d + V2::new(n.y, -n.x) * r.random_range(-1.0..1.0);
        let area = 0.25;
        if d > bar.dhat {
            outside += 1;
            let mut g = [V2::zeros()];
            barrier::gradient(&[x], &[area], &bar, 1.0, &mut g);
            let mut h = [Matrix2::zeros()];
            barrier::hessian(&[x], &[area], &bar, 1.0, &mut h);
            assert_eq!(
                barrier::value(&[x], &[area], &bar),
                0.0,
                "no energy outside d̂"
            );
            assert_eq!(g[0], V2::zeros(), "no force outside d̂");
            assert_eq!(h[0], Matrix2::zeros(), "no stiffness outside d̂");
            assert_eq!(bar.normal_force(&x, area), 0.0, "λ = 0 outside d̂");
            // The central difference of the value is zero too: its step (half the distance
            // to d̂) never reaches inside.
            let val = |x: &V2| barrier::value(&[*x], &[area], &bar);
            let fd = fd_grad(&val, &x, 0.5 * (d - bar.dhat));
            assert_eq!(fd, V2::zeros());
            continue;
        }
        inside += 1;
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
    assert!(
        inside > 100 && outside > 10,
        "both sides of d̂ sampled: {inside} inside, {outside} outside"
    );
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

/// The gradient and Hessian `Simulation` assembles for its linear solve (sparse pattern,
/// projected blocks, every term scaled as in E) against central differences of the E that its
/// line search evaluates (`energy_at`), at one step of the μ = 0.11 case set up by hand: the
/// square aligned with the slope, stretched 2 % (so every spring's Hessian is PSD and the
/// projection changes nothing: the assembled Hessian must then be the exact one), its bottom
/// row inside d̂ (barrier and lagged friction active) with slip speeds below and above ε_v.
#[test]
fn assembled_gradient_and_hessian_of_the_simulation() {
    use stickslip::scene::Scene;
    use stickslip::solver::Simulation;
    let scene = Scene::load(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("cases/slope_mu0.11.toml"),
    )
    .unwrap();
    let (dhat, eps_v, h) = (scene.dhat, scene.eps_v, scene.h);
    let n = scene.normal;
    let t = V2::new(n.y, -n.x);
    let o = scene.point;
    let mut sim = Simulation::new(scene).unwrap();
    let mut r = rng();
    // Rest positions relative to the square's centre, rotated so the rest x axis runs along
    // the slope's tangent and y along its normal, stretched 2 %.
    let c0 = sim.mesh.x0.iter().sum::<V2>() / sim.mesh.len() as f64;
    let local: Vec<V2> = sim
        .mesh
        .x0
        .iter()
        .map(|x| {
            let q = (x - c0) * 1.02;
            t * q.x + n * q.y
        })
        .collect();
    let lowest = local
        .iter()
        .map(|q| q.dot(&n))
        .fold(f64::INFINITY, f64::min);
    // Bottom row at 0.4 d̂ from the slope; every node jittered by ±0.1 d̂ = 1 mm, under the
    // 2 % stretch of the shortest edge (5 mm), so every spring stays stretched.
    let x_n: Vec<V2> = local
        .iter()
        .map(|q| {
            o + n * (0.4 * dhat - lowest)
                + q
                + n * r.random_range(-0.1..0.1) * dhat
                + t * r.random_range(-0.1..0.1) * dhat
        })
        .collect();
    let bottom: Vec<usize> = (0..x_n.len())
        .filter(|&i| (x_n[i] - o).dot(&n) < dhat)
        .collect();
    assert_eq!(bottom.len(), 5, "the bottom row, and only it, inside d̂");
    sim.x = x_n.clone();
    sim.v = (0..x_n.len())
        .map(|_| V2::new(r.random_range(-0.5..0.5), r.random_range(-0.5..0.5)))
        .collect();
    sim.begin_step();
    // The evaluation point x = xⁿ + h w: the bottom row slips along the slope at 0.2, 0.5,
    // 2, 5 and 20 ε_v (away from the kink at ε_v) and moves ≤ 0.5 mm/s along the normal.
    let slips = [0.2, 0.5, 2.0, 5.0, 20.0];
    let mut x = x_n.clone();
    for (i, xi) in x.iter_mut().enumerate() {
        let w = match bottom.iter().position(|&b| b == i) {
            Some(k) => {
                t * slips[k] * eps_v * if k % 2 == 0 { 1.0 } else { -1.0 }
                    + n * r.random_range(-5e-4..5e-4)
            }
            None => V2::new(r.random_range(-0.1..0.1), r.random_range(-0.1..0.1)),
        };
        *xi += w * h;
    }
    let dofs = 2 * x.len();
    let (grad, lower) = sim.assembled_gradient_and_hessian(&x);
    let mut hess = nalgebra::DMatrix::<f64>::zeros(dofs, dofs);
    for (row, col, v) in lower.triplet_iter() {
        hess[(row, col)] = *v;
        hess[(col, row)] = *v;
    }
    // δ = 1e-8 m: the slip changes by δ/h = 1e-6 m/s ≤ 0.005 ε_v, far from the kink; the
    // rounding error of E (|E| ~ 1 kg·m², ε ~ 1e-16) over 2δ is ~1e-8, under 1e-6 of the
    // gradient's scale; the truncation error (δ² times the third derivative, over 6) is
    // smaller still.
    let delta = 1e-8;
    let perturbed = |k: usize, sign: f64| {
        let mut y = x.clone();
        y[k / 2][k % 2] += sign * delta;
        y
    };
    let g_scale = grad.iter().map(|g| g.amax()).fold(0.0, f64::max);
    let mut fd_hess = nalgebra::DMatrix::<f64>::zeros(dofs, dofs);
    for k in 0..dofs {
        let (xp, xm) = (perturbed(k, 1.0), perturbed(k, -1.0));
        let fd = (sim.energy_at(&xp) - sim.energy_at(&xm)) / (2.0 * delta);
        close(
            grad[k / 2][k % 2],
            fd,
            g_scale,
            &format!("assembled gradient, dof {k}"),
        );
        let (gp, _) = sim.assembled_gradient_and_hessian(&xp);
        let (gm, _) = sim.assembled_gradient_and_hessian(&xm);
        for j in 0..dofs {
            fd_hess[(j, k)] = (gp[j / 2][j % 2] - gm[j / 2][j % 2]) / (2.0 * delta);
        }
    }
    // Each entry against the scale sqrt(H_jj H_kk) that bounds it in a PSD matrix: so a spring
    // entry (~h²k = 2) between two free nodes is checked at its own size, not at the barrier's
    // (~10⁵) of the bottom row.
    for j in 0..dofs {
        for k in 0..dofs {
            let scale = (hess[(j, j)] * hess[(k, k)]).sqrt();
            close(
                hess[(j, k)],
                fd_hess[(j, k)],
                scale,
                &format!("assembled Hessian ({j}, {k})"),
            );
        }
    }
}
