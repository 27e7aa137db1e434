//! Stiffness-proportional (Rayleigh) damping of a neo-Hookean body as an incremental potential
//! (SPEC.md §2's form: a term of E the solver minimises like any other).
//!
//! The damping force is f = −β K v, with K the body's elastic Hessian (projected to PSD) and β
//! the damping time, s: each mode of stiffness k and mass m is damped at the ratio
//! ζ = β ω / 2, ω = √(k/m), so stiff modes (the ringing of a bounce) die out and slow ones
//! hardly feel it, and a rigid motion, in K's null space, is not damped at all. Over a step,
//! with v = (x − xⁿ)/h and K lagged at xⁿ (constant through the step, as friction's λ is), f
//! is −∂D/∂x of
//!
//!   D(x) = β/(2h) (x − xⁿ)ᵀ K(xⁿ) (x − xⁿ),   J,
//!
//! a convex quadratic: its gradient β/h K(xⁿ)(x − xⁿ), N, and Hessian β/h K(xⁿ), N/m, are exact,
//! and PSD by construction. K(xⁿ) is the elastic term's own projected element blocks, computed
//! once per step (when xⁿ changes) and kept.

use std::sync::Mutex;

use super::Vector;
use super::neo_hookean::NeoHookean;
use super::term::{Elements, Energy, StepState};

/// The elastic blocks lagged at one xⁿ.
#[derive(Debug, Default)]
struct Lagged<const D: usize> {
    /// The xⁿ they were computed at (empty before the first step), m.
    x_n: Vec<Vector<D>>,
    /// K(xⁿ)'s element blocks, weight 1, in [`Energy::hessian`]'s layout, N/m.
    blocks: Vec<f64>,
}

/// Stiffness-proportional damping of one body's neo-Hookean term (module comment).
#[derive(Debug)]
pub struct StiffnessDamping<const D: usize> {
    elastic: NeoHookean<D>,
    /// β, s.
    beta: f64,
    lagged: Mutex<Lagged<D>>,
}

impl<const D: usize> StiffnessDamping<D> {
    /// Damping of the body whose elastic term is `elastic`, with damping time `beta` (s, > 0).
    pub fn new(elastic: NeoHookean<D>, beta: f64) -> Self {
        StiffnessDamping {
            elastic,
            beta,
            lagged: Mutex::new(Lagged::default()),
        }
    }

    /// Calls `f` with K(xⁿ)'s element blocks, computing them first when xⁿ is new.
    fn with_blocks<R>(&self, step: &StepState<D>, f: impl FnOnce(&[f64]) -> R) -> R {
        let mut lagged = self
            .lagged
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if lagged.x_n.as_slice() != step.x_n {
            let len = self.elastic.elements().hessian_len(D);
            let mut blocks = std::mem::take(&mut lagged.blocks);
            blocks.resize(len, 0.0);
            self.elastic.psd_hessian(step.x_n, step, 1.0, &mut blocks);
            lagged.blocks = blocks;
            lagged.x_n.clear();
            lagged.x_n.extend_from_slice(step.x_n);
        }
        f(&lagged.blocks)
    }

    /// The element's displacement x − xⁿ over its nodes, stacked node by node.
    fn displacement(&self, x: &[Vector<D>], step: &StepState<D>, e: usize, d: &mut [f64]) {
        let elements = self.elastic.elements();
        for a in 0..D + 1 {
            let n = elements.node(e, a);
            for i in 0..D {
                d[D * a + i] = x[n][i] - step.x_n[n][i];
            }
        }
    }
}

impl<const D: usize> Energy<D> for StiffnessDamping<D> {
    fn name(&self) -> &'static str {
        "stiffness damping"
    }

    fn elements(&self) -> Elements<'_> {
        self.elastic.elements()
    }

    /// w β/(2h) Σₑ dₑᵀ Kₑ dₑ, J.
    fn value(&self, x: &[Vector<D>], step: &StepState<D>, weight: f64) -> f64 {
        let n = D * (D + 1);
        let scale = weight * self.beta / (2.0 * step.h);
        self.with_blocks(step, |blocks| {
            let mut d = [0.0; 12];
            let mut sum = 0.0;
            for (e, k) in blocks.chunks_exact(n * n).enumerate() {
                self.displacement(x, step, e, &mut d[..n]);
                for c in 0..n {
                    for r in 0..n {
                        sum += d[r] * k[n * c + r] * d[c];
                    }
                }
            }
            scale * sum
        })
    }

    /// w β/h Kₑ dₑ per element node, N.
    fn gradient(&self, x: &[Vector<D>], step: &StepState<D>, weight: f64, out: &mut [Vector<D>]) {
        let n = D * (D + 1);
        let scale = weight * self.beta / step.h;
        self.with_blocks(step, |blocks| {
            let mut d = [0.0; 12];
            for (e, (k, out)) in blocks
                .chunks_exact(n * n)
                .zip(out.chunks_exact_mut(D + 1))
                .enumerate()
            {
                self.displacement(x, step, e, &mut d[..n]);
                for (a, g) in out.iter_mut().enumerate() {
                    for i in 0..D {
                        let r = D * a + i;
                        g[i] = scale * (0..n).map(|c| k[n * c + r] * d[c]).sum::<f64>();
                    }
                }
            }
        });
    }

    /// w β/h Kₑ(xⁿ), N/m.
    fn hessian(&self, _x: &[Vector<D>], step: &StepState<D>, weight: f64, out: &mut [f64]) {
        let scale = weight * self.beta / step.h;
        self.with_blocks(step, |blocks| {
            for (o, k) in out.iter_mut().zip(blocks) {
                *o = scale * k;
            }
        });
    }

    fn hessian_is_psd(&self) -> bool {
        true
    }

    fn depends_on_step(&self) -> bool {
        true
    }
}
