//! The finite-difference harness of every term (`terms.rs`, `friction.rs`, and the book's
//! slope assembled in the simulator crate's `tests/core/slope_assembly.rs`, which includes this
//! file): central differences of a term's value against its gradient and of its gradient
//! against its Hessian, the projections' PSD checks, and the same for the system a
//! `Simulation` assembles.
#![allow(dead_code)] // each including binary uses a different part

use nalgebra::{DMatrix, SVector};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use stickslip_core::energy::term::scatter_gradient;
use stickslip_core::energy::{Energy, StepState};
use stickslip_core::solver::Simulation;

pub type V<const D: usize> = SVector<f64, D>;

/// Relative tolerance of a central difference. Its truncation error is ~δ²|f'''|/6 and its
/// rounding error ~ε|f|/δ; with the steps below both stay under ~1e-7 of the derivative's
/// scale for these energies, so 1e-5 leaves two orders of margin without hiding a wrong term
/// (a wrong factor or sign gives an O(1) relative error).
pub const FD_REL_TOL: f64 = 1e-5;

/// Relative tolerance of "w times the weight-1 result": the weight enters each quantity
/// through one or two extra roundings, a few ulps (1.1e-16 each); 1e-14 leaves margin.
pub const WEIGHT_REL_TOL: f64 = 1e-14;

/// Eigenvalues of a projection may be negative only by rounding: 1e-12 of the largest leaves
/// ~10⁴ ulps for the recomposition.
pub const PSD_REL_TOL: f64 = 1e-12;

pub fn close(a: f64, b: f64, scale: f64, what: &str) {
    assert!(
        (a - b).abs() <= FD_REL_TOL * scale,
        "{what}: analytic {a:e} vs finite difference {b:e} (scale {scale:e})"
    );
}

pub fn rng() -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(20261201)
}

pub fn random<const D: usize>(r: &mut ChaCha8Rng, size: f64) -> V<D> {
    V::<D>::from_fn(|_, _| r.random_range(-size..size))
}

/// The term's gradient per node (its element gradients scattered), weight `w`.
pub fn node_gradient<const D: usize>(
    term: &dyn Energy<D>,
    x: &[V<D>],
    step: &StepState<D>,
    w: f64,
) -> Vec<V<D>> {
    let elements = term.elements();
    let mut buf = vec![V::<D>::zeros(); elements.gradient_len()];
    term.gradient(x, step, w, &mut buf);
    let mut grad = vec![V::<D>::zeros(); x.len()];
    scatter_gradient(elements, &buf, &mut grad);
    grad
}

/// The dense matrix the term's element Hessian blocks sum to, weight `w`; `psd` selects
/// [`Energy::psd_hessian`].
pub fn dense_hessian<const D: usize>(
    term: &dyn Energy<D>,
    x: &[V<D>],
    step: &StepState<D>,
    w: f64,
    psd: bool,
) -> DMatrix<f64> {
    let elements = term.elements();
    let dofs = D * elements.nodes_per_element();
    let mut buf = vec![0.0; elements.hessian_len(D)];
    if psd {
        term.psd_hessian(x, step, w, &mut buf);
    } else {
        term.hessian(x, step, w, &mut buf);
    }
    let mut dense = DMatrix::zeros(D * x.len(), D * x.len());
    for e in 0..elements.len() {
        let global = |i: usize| D * elements.node(e, i / D) + i % D;
        for c in 0..dofs {
            for r in 0..dofs {
                dense[(global(r), global(c))] += buf[dofs * dofs * e + dofs * c + r];
            }
        }
    }
    dense
}

pub fn perturbed<const D: usize>(x: &[V<D>], dof: usize, by: f64) -> Vec<V<D>> {
    let mut y = x.to_vec();
    y[dof / D][dof % D] += by;
    y
}

/// The harness: `term` (configured without projection) at `x`, with the central-difference
/// step `delta[i]` for node i's coordinates (small against every length the term varies on
/// there, and never crossing a kink) and `hessian_floor[i]` the size of the terms node i's
/// Hessian entries are a sum of (they may cancel to ~0, as friction's do above ε_v in 2D).
/// Each gradient entry is compared at the scale of its node's gradient, each Hessian entry at
/// the scale of the larger of its row and its column.
pub fn check_energy<const D: usize>(
    term: &dyn Energy<D>,
    x: &[V<D>],
    step: &StepState<D>,
    delta: &[f64],
    hessian_floor: &[f64],
) {
    let what = format!("{} (D = {D})", term.name());
    let dofs = D * x.len();
    let grad = node_gradient(term, x, step, 1.0);
    let hess = dense_hessian(term, x, step, 1.0, false);
    let mut fd_grad = vec![V::<D>::zeros(); x.len()];
    let mut fd_hess = DMatrix::<f64>::zeros(dofs, dofs);
    for k in 0..dofs {
        let d = delta[k / D];
        let (xp, xm) = (perturbed(x, k, d), perturbed(x, k, -d));
        fd_grad[k / D][k % D] =
            (term.value(&xp, step, 1.0) - term.value(&xm, step, 1.0)) / (2.0 * d);
        let gp = node_gradient(term, &xp, step, 1.0);
        let gm = node_gradient(term, &xm, step, 1.0);
        for j in 0..dofs {
            fd_hess[(j, k)] = (gp[j / D][j % D] - gm[j / D][j % D]) / (2.0 * d);
        }
    }
    for i in 0..x.len() {
        let scale = grad[i].amax().max(fd_grad[i].amax());
        for c in 0..D {
            close(
                grad[i][c],
                fd_grad[i][c],
                scale,
                &format!("{what} gradient, node {i}"),
            );
        }
    }
    let row_scale: Vec<f64> = (0..dofs)
        .map(|j| {
            (0..dofs)
                .map(|k| hess[(j, k)].abs().max(fd_hess[(j, k)].abs()))
                .fold(hessian_floor[j / D], f64::max)
        })
        .collect();
    for j in 0..dofs {
        for k in 0..dofs {
            close(
                hess[(j, k)],
                fd_hess[(j, k)],
                row_scale[j].max(row_scale[k]),
                &format!("{what} Hessian ({j}, {k})"),
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
pub fn min_relative_eigenvalue(m: &DMatrix<f64>) -> f64 {
    let eig = nalgebra::SymmetricEigen::new((m + m.transpose()) * 0.5).eigenvalues;
    eig.min() / eig.amax().max(1e-300)
}

pub fn state<'a, const D: usize>(x_tilde: &'a [V<D>], x_n: &'a [V<D>], h: f64) -> StepState<'a, D> {
    StepState {
        x_tilde,
        x_n,
        h,
        time: h,
    }
}

/// The gradient and Hessian `sim` assembles for its linear solve (sparse pattern over the free
/// degrees of freedom, projected blocks, every term scaled as in E) at `x`, against central
/// differences of the E its line search evaluates (`energy_at`), with step `delta` (m). Each
/// Hessian entry is compared against the scale sqrt(H_jj H_kk) that bounds it in a PSD matrix:
/// so a spring entry (~h²k) between two free nodes is checked at its own size, not at the
/// barrier's of the contact nodes. Returns the number of free degrees of freedom.
pub fn assembled_system_matches<const D: usize>(
    sim: &mut Simulation<D>,
    x: &[V<D>],
    delta: f64,
) -> usize {
    let (grad, lower) = sim.assembled_gradient_and_hessian(x).unwrap();
    let free = lower.nrows();
    let mut hess = DMatrix::<f64>::zeros(free, free);
    for (row, col, v) in lower.triplet_iter() {
        hess[(row, col)] = *v;
        hess[(col, row)] = *v;
    }
    // The free degrees of freedom: those the drivers leave alone, in order (the system's rows).
    let mut prescribed = vec![false; D * x.len()];
    for d in sim.drivers() {
        for &node in d.nodes() {
            for (c, on) in d.axes().iter().enumerate() {
                prescribed[D * node + c] |= *on;
            }
        }
    }
    let free_dofs: Vec<usize> = (0..D * x.len()).filter(|&k| !prescribed[k]).collect();
    assert_eq!(free_dofs.len(), free);
    let perturbed = |k: usize, sign: f64| {
        let mut y = x.to_vec();
        y[k / D][k % D] += sign * delta;
        y
    };
    let g_scale = grad.iter().map(|g| g.amax()).fold(0.0, f64::max);
    let mut fd_hess = DMatrix::<f64>::zeros(free, free);
    for (col, &k) in free_dofs.iter().enumerate() {
        let (xp, xm) = (perturbed(k, 1.0), perturbed(k, -1.0));
        let fd = (sim.energy_at(&xp) - sim.energy_at(&xm)) / (2.0 * delta);
        close(
            grad[k / D][k % D],
            fd,
            g_scale,
            &format!("D = {D}: assembled gradient, dof {k}"),
        );
        let (gp, _) = sim.assembled_gradient_and_hessian(&xp).unwrap();
        let (gm, _) = sim.assembled_gradient_and_hessian(&xm).unwrap();
        for (row, &j) in free_dofs.iter().enumerate() {
            fd_hess[(row, col)] = (gp[j / D][j % D] - gm[j / D][j % D]) / (2.0 * delta);
        }
    }
    for j in 0..free {
        for k in 0..free {
            let scale = (hess[(j, j)] * hess[(k, k)]).sqrt();
            close(
                hess[(j, k)],
                fd_hess[(j, k)],
                scale,
                &format!("D = {D}: assembled Hessian ({j}, {k})"),
            );
        }
    }
    free
}
