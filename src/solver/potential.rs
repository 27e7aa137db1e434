//! The incremental potential E(x) = Σₖ wₖ Ψₖ(x) (SPEC.md §2) as a list of weighted terms, and
//! its per-term buffers for element gradients and Hessian blocks, allocated once: the Newton
//! loop's E, ∇E and element blocks come from here without allocating.

use crate::energy::{BlockForm, Elements, Energy, StepState, Vec2, term::scatter_gradient};

/// One term of E with its weight and buffers.
struct Weighted {
    energy: Box<dyn Energy>,
    /// w: 1 for inertia, h² for a potential, in s² where it converts J to E's kg·m².
    weight: f64,
    /// Element gradients ([`Energy::gradient`]'s layout; for a term in difference form, the
    /// scratch of [`crate::energy::DifferenceEnergy::add_difference_gradient`]).
    gradient: Vec<Vec2>,
    /// How its Hessian reaches the solver: [`BlockForm::Difference`] where the term has that
    /// form ([`Energy::as_difference`]).
    form: BlockForm,
}

fn form_of(energy: &dyn Energy) -> BlockForm {
    if energy.as_difference().is_some() {
        BlockForm::Difference
    } else {
        BlockForm::Full
    }
}

/// E as a list of weighted terms, in the order they are summed.
pub struct IncrementalPotential {
    terms: Vec<Weighted>,
    /// Element Hessian blocks of every term ([`Energy::hessian`]'s layout, or four entries per
    /// element for a term in difference form; empty for a linear term), in the order of
    /// [`IncrementalPotential::hessian_elements`].
    blocks: Vec<Vec<f64>>,
}

impl IncrementalPotential {
    /// The potential Σ wₖ Ψₖ of `terms` (energy, weight), summed in this order.
    pub fn new(terms: Vec<(Box<dyn Energy>, f64)>) -> Self {
        let blocks = terms
            .iter()
            .map(|(energy, _)| {
                if energy.is_linear() {
                    Vec::new()
                } else if form_of(energy.as_ref()) == BlockForm::Difference {
                    vec![0.0; 4 * energy.elements().len()]
                } else {
                    vec![0.0; energy.elements().hessian_len()]
                }
            })
            .collect();
        let terms = terms
            .into_iter()
            .map(|(energy, weight)| Weighted {
                gradient: vec![Vec2::zeros(); energy.elements().gradient_len()],
                form: form_of(energy.as_ref()),
                energy,
                weight,
            })
            .collect();
        IncrementalPotential { terms, blocks }
    }

    /// The elements whose Hessian blocks [`IncrementalPotential::hessian`] fills, one entry
    /// per term ([`Elements::NONE`] for a linear term): the input of the sparsity pattern.
    pub fn hessian_elements(&self) -> Vec<Elements<'_>> {
        self.terms
            .iter()
            .map(|t| {
                if t.energy.is_linear() {
                    Elements::NONE
                } else {
                    t.energy.elements()
                }
            })
            .collect()
    }

    /// The [`BlockForm`] of every term's blocks in [`IncrementalPotential::blocks`], in the
    /// order of [`IncrementalPotential::hessian_elements`].
    pub fn hessian_forms(&self) -> Vec<BlockForm> {
        self.terms.iter().map(|t| t.form).collect()
    }

    /// E(x), J·s² (kg·m²). Consecutive terms of equal weight are summed before their weight is
    /// applied: E = Ψ_inertia + h² (Ψ_spring + Ψ_gravity + Ψ_barrier + Ψ_friction), SPEC.md §2's
    /// form, with the rounding the solver has always had.
    pub fn value(&self, x: &[Vec2], step: &StepState) -> f64 {
        let mut total = 0.0;
        let mut k = 0;
        while k < self.terms.len() {
            let weight = self.terms[k].weight;
            let mut group = 0.0;
            while k < self.terms.len() && self.terms[k].weight == weight {
                group += self.terms[k].energy.value(x, step, 1.0);
                k += 1;
            }
            total += weight * group;
        }
        total
    }

    /// Adds ∇E(x) to `grad` (per node, kg·m), term by term in order.
    pub fn gradient(&mut self, x: &[Vec2], step: &StepState, grad: &mut [Vec2]) {
        for t in &mut self.terms {
            match t.energy.as_difference() {
                Some(d) => d.add_difference_gradient(x, step, t.weight, &mut t.gradient, grad),
                None => {
                    t.energy.gradient(x, step, t.weight, &mut t.gradient);
                    scatter_gradient(t.energy.elements(), &t.gradient, grad);
                }
            }
        }
    }

    /// Every term's weighted element Hessian blocks at x (projected as each term is
    /// configured) into [`IncrementalPotential::blocks`].
    pub fn hessian(&mut self, x: &[Vec2], step: &StepState) {
        for (t, out) in self.terms.iter().zip(&mut self.blocks) {
            if t.energy.is_linear() {
                continue;
            }
            match t.energy.as_difference() {
                Some(d) => d.difference_hessian(x, step, t.weight, out),
                None => t.energy.hessian(x, step, t.weight, out),
            }
        }
    }

    /// Replaces the blocks of every term whose Hessian may be indefinite by their PSD
    /// projection ([`Energy::psd_hessian`]); false when every term's blocks were PSD already
    /// (nothing to fall back to).
    pub fn project_indefinite_terms(&mut self, x: &[Vec2], step: &StepState) -> bool {
        let mut any = false;
        for (t, out) in self.terms.iter().zip(&mut self.blocks) {
            if !t.energy.is_linear() && !t.energy.hessian_is_psd() {
                match t.energy.as_difference() {
                    Some(d) => d.difference_psd_hessian(x, step, t.weight, out),
                    None => t.energy.psd_hessian(x, step, t.weight, out),
                }
                any = true;
            }
        }
        any
    }

    /// The smallest [`Energy::max_step`] of the terms along `p` from `x` (+∞ when no term
    /// bounds the step; the slope's tunnelling filter is applied by the caller).
    pub fn max_step(&self, x: &[Vec2], p: &[Vec2], fraction: f64) -> f64 {
        self.terms
            .iter()
            .map(|t| t.energy.max_step(x, p, fraction))
            .fold(f64::INFINITY, f64::min)
    }

    /// The element Hessian blocks of the last [`IncrementalPotential::hessian`], per term, in
    /// each term's [`BlockForm`] ([`IncrementalPotential::hessian_forms`]).
    pub fn blocks(&self) -> &[Vec<f64>] {
        &self.blocks
    }
}
