//! The incremental potential E(x) = Σₖ wₖ Ψₖ(x) (SPEC.md §2) as a list of weighted terms, and
//! its per-term buffers for element gradients and Hessian blocks, allocated once: the Newton
//! loop's E, ∇E and element blocks come from here without allocating.
//!
//! Terms that depend on x alone ([`Energy::depends_on_step`] false: springs, gravity, the
//! slope's barrier) are not evaluated again at an x they were last evaluated at: their values,
//! element gradients and blocks are kept with the x they belong to (`AtX`), compared bit for
//! bit. Each step starts at the x the last one ended at, where the last step's final Newton
//! iteration computed their gradients and blocks and its line search their values, so the
//! step's E(xⁿ) and first assembly reuse them (docs/benchmarks.md). The values reused are the
//! ones that would be computed, so nothing changes to the last bit.

use crate::energy::term::{scatter_difference_gradient, scatter_gradient};
use crate::energy::{BlockForm, Elements, Energy, StepState, Vec2};

/// One term of E with its weight and buffers.
struct Weighted {
    energy: Box<dyn Energy>,
    /// w: 1 for inertia, h² for a potential, in s² where it converts J to E's kg·m².
    weight: f64,
    /// Element gradients ([`Energy::gradient`]'s layout; for a term in difference form, one g
    /// per element, [`crate::energy::DifferenceEnergy::difference_gradient`]'s layout).
    gradient: Vec<Vec2>,
    /// How its Hessian reaches the solver: [`BlockForm::Difference`] where the term has that
    /// form ([`Energy::as_difference`]).
    form: BlockForm,
    /// Whether the term is a function of x alone (its results may be reused at the same x).
    reusable: bool,
}

/// The reusable terms' values (weight 1, one per term; unused for the others) and the x they
/// were computed at. Behind a `RefCell`: E is evaluated through `&self` (the line search's
/// closure), and this is the one thing an evaluation updates.
#[derive(Default)]
struct Values {
    at: AtX,
    of_term: Vec<f64>,
}

/// The x some results were computed at (empty: none yet), to tell whether they still hold.
#[derive(Default)]
struct AtX(Vec<Vec2>);

impl AtX {
    /// Whether `x` is, bit for bit, the x recorded.
    fn holds(&self, x: &[Vec2]) -> bool {
        self.0.len() == x.len()
            && self
                .0
                .iter()
                .zip(x)
                .all(|(a, b)| a.x.to_bits() == b.x.to_bits() && a.y.to_bits() == b.y.to_bits())
    }

    /// Records `x` (no allocation once the length is reached).
    fn set(&mut self, x: &[Vec2]) {
        self.0.clear();
        self.0.extend_from_slice(x);
    }

    fn forget(&mut self) {
        self.0.clear();
    }
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
    /// The reusable terms' values and where they were computed.
    values: std::cell::RefCell<Values>,
    /// Where their element gradients were computed.
    gradient_at: AtX,
    /// Where their blocks were computed (forgotten when a fallback projection replaces them).
    blocks_at: AtX,
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
        let terms: Vec<Weighted> = terms
            .into_iter()
            .map(|(energy, weight)| Weighted {
                gradient: vec![Vec2::zeros(); energy.elements().gradient_len()],
                form: form_of(energy.as_ref()),
                reusable: !energy.depends_on_step(),
                energy,
                weight,
            })
            .collect();
        let values = std::cell::RefCell::new(Values {
            at: AtX::default(),
            of_term: vec![0.0; terms.len()],
        });
        IncrementalPotential {
            terms,
            blocks,
            values,
            gradient_at: AtX::default(),
            blocks_at: AtX::default(),
        }
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
        let mut values = self.values.borrow_mut();
        let reuse = values.at.holds(x);
        let mut total = 0.0;
        let mut k = 0;
        while k < self.terms.len() {
            let weight = self.terms[k].weight;
            let mut group = 0.0;
            while k < self.terms.len() && self.terms[k].weight == weight {
                let t = &self.terms[k];
                group += if !t.reusable {
                    t.energy.value(x, step, 1.0)
                } else {
                    if !reuse {
                        values.of_term[k] = t.energy.value(x, step, 1.0);
                    }
                    values.of_term[k]
                };
                k += 1;
            }
            total += weight * group;
        }
        if !reuse {
            values.at.set(x);
        }
        total
    }

    /// Adds ∇E(x) to `grad` (per node, kg·m), term by term in order.
    pub fn gradient(&mut self, x: &[Vec2], step: &StepState, grad: &mut [Vec2]) {
        let reuse = self.gradient_at.holds(x);
        for t in &mut self.terms {
            let compute = !(reuse && t.reusable);
            match t.energy.as_difference() {
                Some(d) => {
                    if compute {
                        d.difference_gradient(x, step, t.weight, &mut t.gradient);
                    }
                    scatter_difference_gradient(t.energy.elements(), &t.gradient, grad);
                }
                None => {
                    if compute {
                        t.energy.gradient(x, step, t.weight, &mut t.gradient);
                    }
                    scatter_gradient(t.energy.elements(), &t.gradient, grad);
                }
            }
        }
        if !reuse {
            self.gradient_at.set(x);
        }
    }

    /// Every term's weighted element Hessian blocks at x (projected as each term is
    /// configured) into [`IncrementalPotential::blocks`].
    pub fn hessian(&mut self, x: &[Vec2], step: &StepState) {
        let reuse = self.blocks_at.holds(x);
        for (t, out) in self.terms.iter().zip(&mut self.blocks) {
            if t.energy.is_linear() || (reuse && t.reusable) {
                continue;
            }
            match t.energy.as_difference() {
                Some(d) => d.difference_hessian(x, step, t.weight, out),
                None => t.energy.hessian(x, step, t.weight, out),
            }
        }
        if !reuse {
            self.blocks_at.set(x);
        }
    }

    /// Replaces the blocks of every term whose Hessian may be indefinite by their PSD
    /// projection ([`Energy::psd_hessian`]); false when every term's blocks were PSD already
    /// (nothing to fall back to).
    pub fn project_indefinite_terms(&mut self, x: &[Vec2], step: &StepState) -> bool {
        // The projected blocks are not the ones `hessian` computes at x.
        self.blocks_at.forget();
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::energy::inertia::InertiaEnergy;
    use crate::energy::spring::{Projection, SpringEnergy};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A term that counts its evaluations and passes them on to the term inside.
    struct Counted<E> {
        inner: E,
        calls: Arc<AtomicUsize>,
    }

    impl<E: Energy> Energy for Counted<E> {
        fn name(&self) -> &'static str {
            self.inner.name()
        }
        fn elements(&self) -> Elements<'_> {
            self.inner.elements()
        }
        fn value(&self, x: &[Vec2], step: &StepState, weight: f64) -> f64 {
            self.calls.fetch_add(1, Ordering::Relaxed);
            self.inner.value(x, step, weight)
        }
        fn gradient(&self, x: &[Vec2], step: &StepState, weight: f64, out: &mut [Vec2]) {
            self.calls.fetch_add(1, Ordering::Relaxed);
            self.inner.gradient(x, step, weight, out)
        }
        fn hessian(&self, x: &[Vec2], step: &StepState, weight: f64, out: &mut [f64]) {
            self.calls.fetch_add(1, Ordering::Relaxed);
            self.inner.hessian(x, step, weight, out)
        }
        fn depends_on_step(&self) -> bool {
            self.inner.depends_on_step()
        }
    }

    /// Inertia (depends on the step's x̃) and a spring (x alone), each counted, in a potential;
    /// and the same two terms uncounted, evaluated directly, as the reference.
    fn potential() -> (IncrementalPotential, Arc<AtomicUsize>, Arc<AtomicUsize>) {
        let (inertia_calls, spring_calls) = (Arc::default(), Arc::default());
        let terms: Vec<(Box<dyn Energy>, f64)> = vec![
            (
                Box::new(Counted {
                    inner: InertiaEnergy::new(vec![1.0 / 3.0; 3]),
                    calls: Arc::clone(&inertia_calls),
                }),
                1.0,
            ),
            (
                Box::new(Counted {
                    inner: SpringEnergy::new(
                        vec![[0, 1], [2, 1]],
                        vec![0.09, 0.04],
                        2e4,
                        Projection::Clamp,
                    ),
                    calls: Arc::clone(&spring_calls),
                }),
                1e-4,
            ),
        ];
        (
            IncrementalPotential::new(terms),
            inertia_calls,
            spring_calls,
        )
    }

    fn bits(v: &[Vec2]) -> Vec<u64> {
        v.iter()
            .flat_map(|p| [p.x.to_bits(), p.y.to_bits()])
            .collect()
    }

    /// A term of x alone is not evaluated again at the x it was last evaluated at (value,
    /// gradient and blocks each), the step-dependent one is, and every result is the one a
    /// potential that has never seen that x gives, bit for bit. A different x, even by one
    /// bit, is evaluated afresh; a fallback projection forgets the blocks.
    #[test]
    fn terms_of_x_alone_are_reused_at_the_same_x_only() {
        let x_tilde = [
            Vec2::new(0.1, 0.2),
            Vec2::new(0.35, 0.0),
            Vec2::new(0.3, -0.17),
        ];
        let x_n = x_tilde;
        let step = StepState {
            x_tilde: &x_tilde,
            x_n: &x_n,
            mu_lambda_kinetic: &[0.0; 3],
            mu_lambda_static: &[0.0; 3],
        };
        let a = vec![
            Vec2::new(0.0, 0.0),
            Vec2::new(0.31, 0.02),
            Vec2::new(0.29, -0.21),
        ];
        let mut b = a.clone();
        b[2].y = f64::from_bits(b[2].y.to_bits() + 1);
        let (mut p, inertia, spring) = potential();
        let mut results = vec![];
        for x in [&a, &a, &b, &a] {
            let mut grad = vec![Vec2::zeros(); 3];
            p.gradient(x, &step, &mut grad);
            p.hessian(x, &step);
            let value = p.value(x, &step);
            let (fresh, _, _) = &mut potential();
            let mut fresh_grad = vec![Vec2::zeros(); 3];
            fresh.gradient(x, &step, &mut fresh_grad);
            fresh.hessian(x, &step);
            assert_eq!(value.to_bits(), fresh.value(x, &step).to_bits());
            assert_eq!(bits(&grad), bits(&fresh_grad));
            assert_eq!(p.blocks(), fresh.blocks());
            results.push((
                inertia.swap(0, Ordering::Relaxed),
                spring.swap(0, Ordering::Relaxed),
            ));
        }
        // Inertia: value, gradient and blocks every time. The spring: all three at a, none
        // at a again, all three at b (one bit away) and at a after b.
        assert_eq!(results, [(3, 3), (3, 0), (3, 3), (3, 3)]);
        assert!(!p.project_indefinite_terms(&a, &step), "both terms are PSD");
        p.hessian(&a, &step);
        assert_eq!(spring.load(Ordering::Relaxed), 1, "blocks recomputed");
    }
}
