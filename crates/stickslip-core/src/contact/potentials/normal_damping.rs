//! Normal contact damping: stiffness-proportional damping of the barrier along each pair's
//! normal (case key `barrier.damping`, β_c in s; not in SPEC.md, docs/model.md "Contact
//! damping").
//!
//! The barrier is elastic: a body that rocks or rolls on it, or bounces on it, gives back what it
//! stored, and friction does no work where the contact point sticks. This term is the barrier's
//! counterpart of the bodies' stiffness-proportional damping (`energy::stiffness_damping`): per
//! damped collision k, lagged at xⁿ ([`crate::contact::collisions::damped`]) with the barrier's
//! normal stiffness k_k = ∂²b/∂d² at d(xⁿ) (N/m) and the distance's gradient gₖ = ∇d(xⁿ), and with
//! s_k = gₖ·(x − xⁿ) the pair's normal opening over the step (m),
//!
//!   D(x) = Σ_k β_c k_k s_k² / (2h),   J,
//!
//! whose force on the stencil, −β_c k_k (s_k/h) gₖ, is a dashpot of coefficient c = β_c k_k
//! (N·s/m) on the normal relative velocity s_k/h: each contact mode of stiffness k and mass m is
//! damped at the ratio ζ = β_c ω/2, ω = √(k/m), as the body's β damps its elastic modes. The
//! gradient β_c k_k (s_k/h) gₖ (N) and the Hessian β_c k_k gₖ gₖᵀ/h (N/m) are exact; the blocks
//! are PSD for k_k ≥ 0, and a correction pair's (k_k < 0) is negated as friction's is. The
//! dashpot acts both ways: it also resists a pair opening, so that while it separates fast the
//! pair's normal force (barrier plus damping) can be briefly attractive.

use crate::contact::collisions::damped::DampedCollision;
use crate::energy::{Elements, Energy, StepState, Vector};

/// Normal damping over the damped collisions of one pair type: a term of E.
#[derive(Clone, Debug)]
pub struct NormalDampingPotential<const D: usize> {
    /// β_c, s.
    beta: f64,
    /// Nodes per stencil.
    nodes: usize,
    /// The lagged collisions.
    pub(crate) collisions: Vec<DampedCollision<D>>,
    /// Their stencils: the elements.
    pub(crate) stencils: Vec<usize>,
}

impl<const D: usize> NormalDampingPotential<D> {
    /// Damping with damping time `beta` (s) over pairs of `nodes` nodes each, with no
    /// collisions yet.
    pub fn new(beta: f64, nodes: usize) -> Self {
        NormalDampingPotential {
            beta,
            nodes,
            collisions: Vec::new(),
            stencils: Vec::new(),
        }
    }

    /// Damping over the given `collisions` (for tests and tools that make them by hand).
    pub fn with_collisions(beta: f64, nodes: usize, collisions: Vec<DampedCollision<D>>) -> Self {
        let stencils = collisions
            .iter()
            .flat_map(|c| c.nodes[..nodes].iter().copied())
            .collect();
        NormalDampingPotential {
            beta,
            nodes,
            collisions,
            stencils,
        }
    }

    /// β_c, s.
    pub fn beta(&self) -> f64 {
        self.beta
    }

    /// The lagged collisions.
    pub fn collisions(&self) -> &[DampedCollision<D>] {
        &self.collisions
    }

    fn blocks(&self, step: &StepState<D>, weight: f64, out: &mut [f64], drop_negative: bool) {
        let n = D * self.nodes;
        for (c, out) in self.collisions.iter().zip(out.chunks_exact_mut(n * n)) {
            if drop_negative && c.stiffness < 0.0 {
                out.fill(0.0);
                continue;
            }
            let f = weight * self.beta * c.stiffness / step.h;
            let g = &c.gradient;
            for cj in 0..self.nodes {
                for rj in 0..self.nodes {
                    for cc in 0..D {
                        for rr in 0..D {
                            out[n * (D * cj + cc) + D * rj + rr] = f * g[rj][rr] * g[cj][cc];
                        }
                    }
                }
            }
        }
    }
}

impl<const D: usize> Energy<D> for NormalDampingPotential<D> {
    fn name(&self) -> &'static str {
        "contact damping"
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

    /// w Σ β_c k s²/(2h), J.
    fn value(&self, x: &[Vector<D>], step: &StepState<D>, weight: f64) -> f64 {
        let mut sum = 0.0;
        for c in &self.collisions {
            let s = c.opening(x, step.x_n, self.nodes);
            sum += c.stiffness * s * s;
        }
        weight * self.beta * sum / (2.0 * step.h)
    }

    /// w β_c k (s/h) ∇ⱼd on every stencil node, N.
    fn gradient(&self, x: &[Vector<D>], step: &StepState<D>, weight: f64, out: &mut [Vector<D>]) {
        for (c, out) in self.collisions.iter().zip(out.chunks_exact_mut(self.nodes)) {
            let s = c.opening(x, step.x_n, self.nodes);
            let f = weight * self.beta * c.stiffness * s / step.h;
            for (o, g) in out.iter_mut().zip(&c.gradient) {
                *o = g * f;
            }
        }
    }

    /// w β_c k ∇d ∇dᵀ/h per collision, exact, N/m.
    fn hessian(&self, _x: &[Vector<D>], step: &StepState<D>, weight: f64, out: &mut [f64]) {
        self.blocks(step, weight, out, false);
    }

    /// PSD unless a correction pair (negative stiffness) is lagged.
    fn hessian_is_psd(&self) -> bool {
        !self.collisions.iter().any(|c| c.stiffness < 0.0)
    }

    fn psd_hessian(&self, _x: &[Vector<D>], step: &StepState<D>, weight: f64, out: &mut [f64]) {
        self.blocks(step, weight, out, true);
    }
}
