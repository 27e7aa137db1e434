//! Every energy through the one [`Energy`] trait, by one harness: the gradient it scatters
//! against central finite differences of its value, and the Hessian its element blocks sum to
//! (unprojected) against central finite differences of that gradient (SPEC.md §2), at
//! configurations that exercise every regime: springs stretched and compressed, the book's and
//! IPC's barrier inside and outside d̂, friction sticking (below ε_v), in the static-to-kinetic
//! transition and slipping. The same harness checks that value, gradient and Hessian scale
//! alike with the weight, and that the projected Hessians the solver uses are PSD and equal the
//! exact ones where those are PSD already. And the gradient and Hessian that `Simulation`
//! assembles for its linear solve (the sum of the terms), against finite differences of the E
//! its line search uses.

use nalgebra::{DMatrix, Matrix2, Vector2};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use stickslip::energy::barrier::{Barrier, BarrierEnergy, BarrierKind};
use stickslip::energy::friction::{Friction, FrictionEnergy, f1_over_y};
use stickslip::energy::gravity::GravityEnergy;
use stickslip::energy::inertia::InertiaEnergy;
use stickslip::energy::inversion::{Inversion, InversionEnergy, cell_triangles, signed_area};
use stickslip::energy::spring::SpringEnergy;
use stickslip::energy::term::scatter_gradient;
use stickslip::energy::{Energy, Projection, StepState};

type V2 = Vector2<f64>;

/// Relative tolerance of a central difference. Its truncation error is ~δ²|f'''|/6 and its
/// rounding error ~ε|f|/δ; with the steps below both stay under ~1e-7 of the derivative's
/// scale for these energies, so 1e-5 leaves two orders of margin without hiding a wrong term
/// (a wrong factor or sign gives an O(1) relative error).
const FD_REL_TOL: f64 = 1e-5;

/// Relative tolerance of "w times the weight-1 result": the weight enters each quantity
/// through one or two extra roundings, a few ulps (1.1e-16 each); 1e-14 leaves margin.
const WEIGHT_REL_TOL: f64 = 1e-14;

/// Eigenvalues of a projection may be negative only by rounding: 1e-12 of the largest leaves
/// ~10⁴ ulps for the recomposition.
const PSD_REL_TOL: f64 = 1e-12;

fn close(a: f64, b: f64, scale: f64, what: &str) {
    assert!(
        (a - b).abs() <= FD_REL_TOL * scale,
        "{what}: analytic {a:e} vs finite difference {b:e} (scale {scale:e})"
    );
}

fn rng() -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(20261201)
}

/// The term's gradient per node (its element gradients scattered), weight `w`.
fn node_gradient(term: &dyn Energy, x: &[V2], step: &StepState, w: f64) -> Vec<V2> {
    let elements = term.elements();
    let mut buf = vec![V2::zeros(); elements.gradient_len()];
    term.gradient(x, step, w, &mut buf);
    let mut grad = vec![V2::zeros(); x.len()];
    scatter_gradient(elements, &buf, &mut grad);
    grad
}

/// The dense matrix the term's element Hessian blocks sum to, weight `w`; `psd` selects
/// [`Energy::psd_hessian`].
fn dense_hessian(term: &dyn Energy, x: &[V2], step: &StepState, w: f64, psd: bool) -> DMatrix<f64> {
    let elements = term.elements();
    let dofs = 2 * elements.nodes_per_element();
    let mut buf = vec![0.0; elements.hessian_len()];
    if psd {
        term.psd_hessian(x, step, w, &mut buf);
    } else {
        term.hessian(x, step, w, &mut buf);
    }
    let mut dense = DMatrix::zeros(2 * x.len(), 2 * x.len());
    for e in 0..elements.len() {
        let global = |i: usize| 2 * elements.node(e, i / 2) + i % 2;
        for c in 0..dofs {
            for r in 0..dofs {
                dense[(global(r), global(c))] += buf[dofs * dofs * e + dofs * c + r];
            }
        }
    }
    dense
}

fn perturbed(x: &[V2], dof: usize, by: f64) -> Vec<V2> {
    let mut y = x.to_vec();
    y[dof / 2][dof % 2] += by;
    y
}

/// The harness: `term` (configured without projection) at `x`, with the central-difference
/// step `delta[i]` for node i's coordinates (small against every length the term varies on
/// there, and never crossing a kink) and `hessian_floor[i]` the size of the terms node i's
/// Hessian entries are a sum of (they may cancel to ~0, as friction's do above ε_v in 2D).
/// Each gradient entry is compared at the scale of its node's gradient, each Hessian entry at
/// the scale of the larger of its row and its column.
fn check_energy(
    term: &dyn Energy,
    x: &[V2],
    step: &StepState,
    delta: &[f64],
    hessian_floor: &[f64],
) {
    let what = term.name();
    let dofs = 2 * x.len();
    let grad = node_gradient(term, x, step, 1.0);
    let hess = dense_hessian(term, x, step, 1.0, false);
    let mut fd_grad = vec![V2::zeros(); x.len()];
    let mut fd_hess = DMatrix::<f64>::zeros(dofs, dofs);
    for k in 0..dofs {
        let d = delta[k / 2];
        let (xp, xm) = (perturbed(x, k, d), perturbed(x, k, -d));
        fd_grad[k / 2][k % 2] =
            (term.value(&xp, step, 1.0) - term.value(&xm, step, 1.0)) / (2.0 * d);
        let gp = node_gradient(term, &xp, step, 1.0);
        let gm = node_gradient(term, &xm, step, 1.0);
        for j in 0..dofs {
            fd_hess[(j, k)] = (gp[j / 2][j % 2] - gm[j / 2][j % 2]) / (2.0 * d);
        }
    }
    for i in 0..x.len() {
        let scale = grad[i].amax().max(fd_grad[i].amax());
        for c in 0..2 {
            let at = format!("{what} gradient, node {i}");
            close(grad[i][c], fd_grad[i][c], scale, &at);
        }
    }
    let row_scale: Vec<f64> = (0..dofs)
        .map(|j| {
            (0..dofs)
                .map(|k| hess[(j, k)].abs().max(fd_hess[(j, k)].abs()))
                .fold(hessian_floor[j / 2], f64::max)
        })
        .collect();
    for j in 0..dofs {
        for k in 0..dofs {
            let at = format!("{what} Hessian ({j}, {k})");
            close(
                hess[(j, k)],
                fd_hess[(j, k)],
                row_scale[j].max(row_scale[k]),
                &at,
            );
        }
    }
    // One scaling convention: value, gradient and Hessian with weight w are w times their
    // weight-1 selves (w = h² of the book's step).
    let w = 1e-4;
    let v1 = term.value(x, step, 1.0);
    let vw = term.value(x, step, w);
    assert!(
        (vw - w * v1).abs() <= WEIGHT_REL_TOL * (w * v1).abs(),
        "{what} weighted value"
    );
    for (gw, g1) in node_gradient(term, x, step, w).iter().zip(&grad) {
        let err = (gw - g1 * w).amax();
        assert!(
            err <= WEIGHT_REL_TOL * w * g1.amax(),
            "{what} weighted gradient"
        );
    }
    let hw = dense_hessian(term, x, step, w, false);
    let err = (hw - &hess * w).amax();
    assert!(
        err <= WEIGHT_REL_TOL * w * hess.amax(),
        "{what} weighted Hessian"
    );
}

/// The smallest eigenvalue of the symmetric part of `m` relative to its largest magnitude.
fn min_relative_eigenvalue(m: &DMatrix<f64>) -> f64 {
    let eig = nalgebra::SymmetricEigen::new((m + m.transpose()) * 0.5).eigenvalues;
    eig.min() / eig.amax().max(1e-300)
}

/// A step state with x̃ = `x_tilde`, xⁿ = `x_n` and the friction bounds given.
fn state<'a>(
    x_tilde: &'a [V2],
    x_n: &'a [V2],
    kinetic: &'a [f64],
    stat: &'a [f64],
) -> StepState<'a> {
    StepState {
        x_tilde,
        x_n,
        mu_lambda_kinetic: kinetic,
        mu_lambda_static: stat,
    }
}

#[test]
fn inertia_and_gravity() {
    let mut r = rng();
    let n = 6;
    let mut random = || V2::new(r.random_range(-2.0..2.0), r.random_range(-2.0..2.0));
    let x: Vec<V2> = (0..n).map(|_| random()).collect();
    let x_tilde: Vec<V2> = (0..n).map(|_| random()).collect();
    let mass: Vec<f64> = (0..n).map(|i| 1.0 + 15.0 * i as f64).collect();
    let (zeros, no_mu) = (vec![V2::zeros(); n], vec![0.0; n]);
    let step = state(&x_tilde, &zeros, &no_mu, &no_mu);
    // Quadratic and linear: no truncation error; δ = 1e-5 m keeps the rounding error
    // (ε ~ 1e-16 of E ≲ 10³ J, over 2δ) under 1e-8 N.
    let delta = vec![1e-5; n];
    check_energy(&InertiaEnergy::new(mass.clone()), &x, &step, &delta, &mass);
    let gravity = GravityEnergy::new(mass.clone(), V2::new(0.0, -9.81));
    check_energy(&gravity, &x, &step, &delta, &vec![0.0; n]);
    assert!(gravity.is_linear());
    assert_eq!(dense_hessian(&gravity, &x, &step, 1.0, false).amax(), 0.0);
}

#[test]
fn springs_stretched_and_compressed() {
    let mut r = rng();
    let k = 2e4;
    // Six nodes, nine springs sharing nodes (so their blocks overlap), each at its own
    // stretch: from 0.3 of its rest length (compressed; H_d indefinite) to 1.7 (stretched).
    let n = 6;
    let x: Vec<V2> = (0..n)
        .map(|_| V2::new(r.random_range(-1.0..1.0), r.random_range(-1.0..1.0)))
        .collect();
    let edges = vec![
        [0, 1],
        [1, 2],
        [2, 0],
        [2, 3],
        [3, 4],
        [4, 5],
        [5, 0],
        [1, 4],
        [3, 5],
    ];
    let stretch = [0.3, 0.6, 0.9, 0.99, 1.01, 1.1, 1.3, 1.5, 1.7];
    let rest_l2: Vec<f64> = edges
        .iter()
        .zip(stretch)
        .map(|(&[a, b], s)| (x[a] - x[b]).norm_squared() / (s * s))
        .collect();
    let (zeros, no_mu) = (vec![V2::zeros(); n], vec![0.0; n]);
    let step = state(&zeros, &zeros, &no_mu, &no_mu);
    // Edges are longer than 0.05 m here; δ = 1e-7 m is ≤ 2e-6 of that: truncation ~1e-12
    // relative, rounding ε|E|/δ ~ 1e-16·10³/1e-7 ~ 1e-6 N against gradients of 10²–10⁴ N.
    let min_len = edges
        .iter()
        .map(|&[a, b]| (x[a] - x[b]).norm())
        .fold(f64::INFINITY, f64::min);
    assert!(min_len > 0.05, "the random nodes are apart: {min_len}");
    let delta = vec![1e-7; n];
    let exact = SpringEnergy::new(edges.clone(), rest_l2.clone(), k, Projection::None);
    check_energy(&exact, &x, &step, &delta, &vec![0.0; n]);
    assert!(!exact.hessian_is_psd());
    // The solver's projection: PSD, the fallback's too; and for stretched springs only (H_d
    // PSD already) the projection changes nothing but rounding.
    let clamped = SpringEnergy::new(edges.clone(), rest_l2.clone(), k, Projection::Clamp);
    let h = dense_hessian(&clamped, &x, &step, 1.0, false);
    assert!(min_relative_eigenvalue(&h) >= -PSD_REL_TOL);
    assert!(min_relative_eigenvalue(&dense_hessian(&exact, &x, &step, 1.0, false)) < -0.01);
    assert_eq!(h, dense_hessian(&exact, &x, &step, 1.0, true));
    let stretched: Vec<usize> = (0..edges.len()).filter(|&e| stretch[e] > 1.0).collect();
    let pick_edges: Vec<[usize; 2]> = stretched.iter().map(|&e| edges[e]).collect();
    let pick_l2: Vec<f64> = stretched.iter().map(|&e| rest_l2[e]).collect();
    let of = |p: Projection| {
        let term = SpringEnergy::new(pick_edges.clone(), pick_l2.clone(), k, p);
        dense_hessian(&term, &x, &step, 1.0, false)
    };
    let (a, b) = (of(Projection::Clamp), of(Projection::None));
    assert!((a - &b).amax() <= 1e-12 * b.amax());
}

fn slope() -> (V2, V2) {
    (V2::new(0.1, 1.0).normalize(), V2::new(0.0, -1.0))
}

#[test]
fn barriers_inside_and_outside_dhat() {
    let (normal, point) = slope();
    let tangent = V2::new(normal.y, -normal.x);
    // Distances over d̂ from 0.05 to 0.99 (active; the book's kind is only C¹ at d̂, so none
    // within 1 % of it) and beyond d̂ (inactive: zero energy, force and stiffness).
    let over_dhat = [0.05, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99, 1.01, 1.5, 3.0];
    let n = over_dhat.len();
    let (zeros, no_mu) = (vec![V2::zeros(); n], vec![0.0; n]);
    let step = state(&zeros, &zeros, &no_mu, &no_mu);
    for kind in [BarrierKind::Book, BarrierKind::Ipc] {
        let bar = Barrier {
            normal,
            point,
            dhat: 0.01,
            kappa: 1e5,
            kind,
        };
        let x: Vec<V2> = over_dhat
            .iter()
            .enumerate()
            .map(|(i, s)| point + normal * (s * bar.dhat) + tangent * (0.3 * i as f64 - 1.0))
            .collect();
        // δ = 1e-4 of the distance to the slope and to d̂: no difference reaches either, and
        // the truncation error (relative ~δ²/d²) is ~1e-8.
        let delta: Vec<f64> = over_dhat
            .iter()
            .map(|s| 1e-4 * bar.dhat * s.min((s - 1.0).abs()))
            .collect();
        let term = BarrierEnergy::new(bar, vec![0.25; n]);
        check_energy(&term, &x, &step, &delta, &vec![0.0; n]);
        let grad = node_gradient(&term, &x, &step, 1.0);
        let hess = dense_hessian(&term, &x, &step, 1.0, false);
        assert!(
            min_relative_eigenvalue(&hess) >= -PSD_REL_TOL,
            "{kind:?}: PSD"
        );
        for (i, s) in over_dhat.iter().enumerate() {
            let inside = *s < 1.0;
            assert_eq!(
                grad[i] != V2::zeros(),
                inside,
                "{kind:?}: force only inside d̂"
            );
            assert_eq!(
                hess[(2 * i, 2 * i)] > 0.0,
                inside,
                "{kind:?}: stiffness inside d̂"
            );
        }
        let outside = BarrierEnergy::new(bar, vec![0.25; 3]);
        assert_eq!(
            outside.value(&x[7..], &step, 1.0),
            0.0,
            "no energy outside d̂"
        );
    }
}

#[test]
fn friction_sticking_in_transition_and_slipping() {
    let mut r = rng();
    let (normal, _) = slope();
    let tangent = V2::new(normal.y, -normal.x);
    let fr = Friction {
        normal,
        eps_v: 1e-3,
        h: 0.01,
    };
    // Tangential speeds over ε_v: sticking below 1, the static-to-kinetic transition in
    // (1, 2), slipping beyond; none within 10 % of the kinks at 1 and 2 (C¹ only there). The
    // last node has no normal force, so no friction.
    let over_eps = [0.05, 0.5, 0.9, 1.2, 1.5, 1.8, 3.0, 20.0, 100.0, 0.7];
    let n = over_eps.len();
    let x_n: Vec<V2> = (0..n)
        .map(|_| V2::new(r.random_range(-1.0..1.0), r.random_range(-1.0..1.0)))
        .collect();
    let x: Vec<V2> = over_eps
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let sign = if i % 2 == 0 { 1.0 } else { -1.0 };
            // A normal component too, which friction must ignore.
            let v = tangent * (s * fr.eps_v * sign) + normal * r.random_range(-0.1..0.1);
            x_n[i] + v * fr.h
        })
        .collect();
    // δx moves v by δx/h: ≤ 1e-4 of the speed and of its distance to either kink.
    let delta: Vec<f64> = over_eps
        .iter()
        .map(|s| 1e-4 * fr.eps_v * fr.h * s.min((s - 1.0).abs()).min((s - 2.0).abs()))
        .collect();
    let zeros = vec![V2::zeros(); n];
    let mut kinetic = vec![30.0; n];
    kinetic[n - 1] = 0.0;
    for (label, stat_over_kinetic) in [("one μ", 1.0), ("μ_s = 4 μ_k", 4.0)] {
        let stat: Vec<f64> = kinetic.iter().map(|k| k * stat_over_kinetic).collect();
        let step = state(&zeros, &x_n, &kinetic, &stat);
        // The Hessian's terms are of size μ_sλ (f₁/y)/h per node.
        let floor: Vec<f64> = over_eps
            .iter()
            .zip(&stat)
            .map(|(s, ml)| ml / fr.h * f1_over_y(s * fr.eps_v, fr.eps_v))
            .collect();
        let exact = FrictionEnergy::new(fr, n, Projection::None);
        check_energy(&exact, &x, &step, &delta, &floor);
        let grad = node_gradient(&exact, &x, &step, 1.0);
        assert_eq!(
            grad[n - 1],
            V2::zeros(),
            "{label}: no normal force, no friction"
        );
        // The solver's projection is PSD and equals the exact Hessian outside the transition
        // (its inner 2×2 is PSD there in exact arithmetic) up to rounding; inside it, with
        // μ_s > μ_k, the force falls with speed and the projection changes the Hessian.
        let projected = FrictionEnergy::new(fr, n, Projection::Clamp);
        let hp = dense_hessian(&projected, &x, &step, 1.0, false);
        let he = dense_hessian(&exact, &x, &step, 1.0, false);
        assert_eq!(hp, dense_hessian(&exact, &x, &step, 1.0, true));
        let mut changed = false;
        for (i, s) in over_eps.iter().enumerate() {
            let block = |m: &DMatrix<f64>| Matrix2::from_fn(|r, c| m[(2 * i + r, 2 * i + c)]);
            let (bp, be) = (block(&hp), block(&he));
            let min = bp.symmetric_eigenvalues().min();
            assert!(min >= -PSD_REL_TOL * floor[i], "{label}, node {i}: {min}");
            if (1.0..2.0).contains(s) && stat_over_kinetic > 1.0 {
                changed |= (bp - be).amax() > 1e-6 * floor[i];
            } else {
                let err = (bp - be).amax();
                assert!(err <= 1e-9 * floor[i], "{label}, node {i}: {err:e}");
            }
        }
        assert_eq!(
            changed,
            stat_over_kinetic > 1.0,
            "{label}: projection in the transition"
        );
    }
}

/// A term that is another one with its gradient or its Hessian off by a relative 1e-3: the
/// harness must reject both (a check that passes whatever the derivatives are asserts nothing).
struct Skewed<'a> {
    term: &'a dyn Energy,
    gradient_factor: f64,
    hessian_factor: f64,
}

impl Energy for Skewed<'_> {
    fn name(&self) -> &'static str {
        "skewed"
    }
    fn elements(&self) -> stickslip::energy::Elements<'_> {
        self.term.elements()
    }
    fn value(&self, x: &[V2], step: &StepState, weight: f64) -> f64 {
        self.term.value(x, step, weight)
    }
    fn gradient(&self, x: &[V2], step: &StepState, weight: f64, out: &mut [V2]) {
        self.term
            .gradient(x, step, weight * self.gradient_factor, out);
    }
    fn hessian(&self, x: &[V2], step: &StepState, weight: f64, out: &mut [f64]) {
        self.term
            .hessian(x, step, weight * self.hessian_factor, out);
    }
}

#[test]
fn the_harness_rejects_a_gradient_or_hessian_off_by_a_thousandth() {
    let (normal, point) = slope();
    let bar = Barrier {
        normal,
        point,
        dhat: 0.01,
        kappa: 1e5,
        kind: BarrierKind::Book,
    };
    let x = vec![point + normal * 0.005];
    let (zeros, no_mu) = (vec![V2::zeros(); 1], vec![0.0; 1]);
    let step = state(&zeros, &zeros, &no_mu, &no_mu);
    let term = BarrierEnergy::new(bar, vec![0.25]);
    let delta = [1e-4 * 0.005];
    check_energy(&term, &x, &step, &delta, &[0.0]);
    for (g, h) in [(1.001, 1.0), (1.0, 1.001)] {
        let skewed = Skewed {
            term: &term,
            gradient_factor: g,
            hessian_factor: h,
        };
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            check_energy(&skewed, &x, &step, &delta, &[0.0])
        }));
        assert!(
            caught.is_err(),
            "gradient ×{g}, Hessian ×{h} passed the harness"
        );
    }
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

/// The inversion barrier's exact (unprojected) Hessian through the harness: a wrapper whose
/// `hessian` is [`InversionEnergy::exact_hessian`], everything else the term's own.
struct ExactInversion(InversionEnergy);

impl Energy for ExactInversion {
    fn name(&self) -> &'static str {
        "inversion (exact Hessian)"
    }
    fn elements(&self) -> stickslip::energy::Elements<'_> {
        self.0.elements()
    }
    fn value(&self, x: &[V2], step: &StepState, w: f64) -> f64 {
        self.0.value(x, step, w)
    }
    fn gradient(&self, x: &[V2], step: &StepState, w: f64, out: &mut [V2]) {
        self.0.gradient(x, step, w, out)
    }
    fn hessian(&self, x: &[V2], _step: &StepState, w: f64, out: &mut [f64]) {
        self.0.exact_hessian(x, w, out)
    }
    fn hessian_is_psd(&self) -> bool {
        false
    }
}

#[test]
fn inversion_barrier_squashed_and_at_rest() {
    let mut r = rng();
    let (n_seg, cell) = (2, 0.5);
    let x0: Vec<V2> = (0..=n_seg)
        .flat_map(|i| (0..=n_seg).map(move |j| V2::new(i as f64 * cell, j as f64 * cell)))
        .collect();
    let constants = Inversion {
        kappa: 1e4,
        ratio: 0.5,
    };
    let triangles = cell_triangles(n_seg);
    let term = InversionEnergy::new(triangles.clone(), &x0, constants);
    // The first column of cells squashed to 0.3 of its height, the second left at 0.9; every
    // node jittered by ±0.02 m (4 % of a cell): triangles from r ≈ 0.2 to ≈ 1.
    let x: Vec<V2> = x0
        .iter()
        .enumerate()
        .map(|(k, p)| {
            let squash = if k / (n_seg + 1) == 0 { 0.3 } else { 0.9 };
            V2::new(p.x, p.y * squash)
                + V2::new(r.random_range(-0.02..0.02), r.random_range(-0.02..0.02))
        })
        .collect();
    let ratios: Vec<f64> = triangles
        .iter()
        .map(|t| {
            let rest = signed_area(&x0[t[0]], &x0[t[1]], &x0[t[2]]);
            signed_area(&x[t[0]], &x[t[1]], &x[t[2]]) / rest
        })
        .collect();
    // Active and inactive triangles, none within 0.02 of ŝ (where b is only C²) nor near 0.
    assert!(ratios.iter().any(|&q| q < 0.45) && ratios.iter().any(|&q| q > 0.55));
    assert!(
        ratios.iter().all(|&q| q > 0.1 && (q - 0.5).abs() > 0.02),
        "{ratios:?}"
    );
    let (zeros, no_mu) = (vec![V2::zeros(); x.len()], vec![0.0; x.len()]);
    let step = state(&zeros, &zeros, &no_mu, &no_mu);
    // δ = 1e-7 m moves r by ~|∇a|δ/a₀ ≈ 0.5·1e-7/0.125 = 4e-7 ≤ 4e-6 r (r > 0.1) and stays
    // 5·10⁴ δ's from ŝ: truncation ~1e-12 relative; rounding ε|E|/δ ≈ 1e-16·10³/1e-7 = 1e-6 N
    // against gradients of ~10³ N. The Hessian floor is κ_A (its entries are κ_A times
    // dimensionless factors of order 1–100).
    let n = x.len();
    check_energy(
        &ExactInversion(term.clone()),
        &x,
        &step,
        &vec![1e-7; n],
        &vec![constants.kappa; n],
    );
    // The solver's blocks: PSD (the exact ones are not), and zero at rest (r = 1 ≥ ŝ).
    assert!(term.hessian_is_psd());
    let exact = dense_hessian(&ExactInversion(term.clone()), &x, &step, 1.0, false);
    assert!(min_relative_eigenvalue(&exact) < -0.01);
    let projected = dense_hessian(&term, &x, &step, 1.0, false);
    assert!(min_relative_eigenvalue(&projected) >= -PSD_REL_TOL);
    assert_eq!(dense_hessian(&term, &x0, &step, 1.0, false).amax(), 0.0);
    assert_eq!(term.value(&x0, &step, 1.0), 0.0);
}
