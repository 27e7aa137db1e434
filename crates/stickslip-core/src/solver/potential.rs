//! The incremental potential E(x) = Σₖ wₖ Ψₖ(x) (SPEC.md §2, §7) as a list of weighted terms
//! (inertia with w = 1, the system's potentials and the contact stage's with w = h²), and the
//! per-term buffers for element gradients and Hessian blocks, kept between iterations: the
//! Newton loop's E, ∇E and element blocks come from here without allocating once the buffers
//! have grown to the largest active contact set.
//!
//! Terms that depend on x alone ([`Energy::depends_on_step`] false: springs, gravity, the
//! barrier) are not evaluated again at an x they were last evaluated at: their values, element
//! gradients and blocks are kept with the x they belong to (`AtX`), compared bit for bit. Each
//! step starts at the x the last one ended at, where the last step's final Newton iteration
//! computed their gradients and blocks and its line search their values, so the step's E(xⁿ)
//! and first assembly reuse them (docs/benchmarks.md). The values reused are the ones that
//! would be computed, so nothing changes to the last bit.

use crate::contact::ContactStage;
use crate::energy::term::{scatter_difference_gradient, scatter_gradient};
use crate::energy::{BlockForm, Elements, Energy, StepState, Vector};
use crate::solver::assembly::Group;

/// One term's weight and buffers.
struct Slot<const D: usize> {
    /// w: 1 for inertia, h² for a potential, in s² where it converts J to E's kg·m².
    weight: f64,
    /// Element gradients ([`Energy::gradient`]'s layout; for a term in difference form, one g
    /// per element).
    gradient: Vec<Vector<D>>,
    /// Element Hessian blocks ([`Energy::hessian`]'s layout, D² per element in difference
    /// form; empty for a linear term).
    blocks: Vec<f64>,
    /// How its Hessian reaches the solver.
    form: BlockForm,
    /// Whether the term is a function of x alone (its results may be reused at the same x).
    reusable: bool,
    /// Whether its Hessian is zero.
    linear: bool,
    /// Whether its elements never change.
    fixed: bool,
    /// Whether its blocks are made one element at a time during the assembly
    /// ([`IncrementalPotential::element_blocks`]) instead of into `blocks`.
    by_element: bool,
}

/// The reusable terms' values (weight 1, one per term; unused for the others) and the x they
/// were computed at. Behind a `RefCell`: E is evaluated through `&self`, and this is the one
/// thing an evaluation updates.
#[derive(Default)]
struct Values<const D: usize> {
    at: AtX<D>,
    of_term: Vec<f64>,
}

/// The x some results were computed at (empty: none yet), to tell whether they still hold.
#[derive(Default)]
struct AtX<const D: usize>(Vec<Vector<D>>);

impl<const D: usize> AtX<D> {
    /// Whether `x` is, bit for bit, the x recorded.
    fn holds(&self, x: &[Vector<D>]) -> bool {
        self.0.len() == x.len()
            && self.0.iter().zip(x).all(|(a, b)| {
                a.iter()
                    .zip(b.iter())
                    .all(|(a, b)| a.to_bits() == b.to_bits())
            })
    }

    /// Records `x` (no allocation once the length is reached).
    fn set(&mut self, x: &[Vector<D>]) {
        self.0.clear();
        self.0.extend_from_slice(x);
    }

    fn forget(&mut self) {
        self.0.clear();
    }
}

/// The i-th term of E: the system's terms, then the contact stage's potentials.
fn term<'a, const D: usize>(
    terms: &'a [Box<dyn Energy<D>>],
    contact: &'a Option<ContactStage<D>>,
    i: usize,
) -> &'a dyn Energy<D> {
    if i < terms.len() {
        &*terms[i]
    } else {
        let c = contact
            .as_ref()
            .expect("a contact potential's slot has a stage");
        c.potential(i - terms.len()).1
    }
}

/// E as a list of weighted terms, in the order they are summed.
pub struct IncrementalPotential<const D: usize> {
    terms: Vec<Box<dyn Energy<D>>>,
    contact: Option<ContactStage<D>>,
    slots: Vec<Slot<D>>,
    values: std::cell::RefCell<Values<D>>,
    /// Where the reusable terms' element gradients were computed.
    gradient_at: AtX<D>,
    /// Where their blocks were computed (forgotten when a fallback projection replaces them).
    blocks_at: AtX<D>,
}

impl<const D: usize> IncrementalPotential<D> {
    /// The potential of `terms` (energy, weight), summed in this order, then of the contact
    /// stage's potentials with weight `contact_weight`.
    pub fn new(
        terms: Vec<(Box<dyn Energy<D>>, f64)>,
        contact: Option<ContactStage<D>>,
        contact_weight: f64,
    ) -> Self {
        let contact_count = contact.as_ref().map_or(0, |c| c.potential_count());
        let (terms, weights): (Vec<_>, Vec<_>) = terms.into_iter().unzip();
        let count = terms.len() + contact_count;
        let slots = (0..count)
            .map(|i| {
                let e = term(&terms, &contact, i);
                let weight = weights.get(i).copied().unwrap_or(contact_weight);
                let form = if e.as_difference().is_some() {
                    BlockForm::Difference
                } else {
                    BlockForm::Full
                };
                Slot {
                    weight,
                    gradient: Vec::new(),
                    blocks: Vec::new(),
                    form,
                    reusable: !e.depends_on_step(),
                    linear: e.is_linear(),
                    fixed: e.fixed_elements(),
                    // Nothing replaces such a term's blocks later: they are PSD already (no
                    // fallback projection) and its elements never change.
                    by_element: e.assembles_by_element()
                        && form == BlockForm::Full
                        && e.fixed_elements()
                        && e.hessian_is_psd()
                        && !e.is_linear(),
                }
            })
            .collect();
        IncrementalPotential {
            terms,
            contact,
            slots,
            values: std::cell::RefCell::new(Values {
                at: AtX::default(),
                of_term: vec![0.0; count],
            }),
            gradient_at: AtX::default(),
            blocks_at: AtX::default(),
        }
    }

    /// Number of terms, contact potentials included.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// The i-th term.
    pub fn term(&self, i: usize) -> &dyn Energy<D> {
        term(&self.terms, &self.contact, i)
    }

    /// The i-th term (not a contact potential), to change it between steps; what was kept of
    /// the terms' values, gradients and blocks is forgotten, so that none is reused stale.
    pub fn term_mut(&mut self, i: usize) -> Option<&mut dyn Energy<D>> {
        self.values.get_mut().at.forget();
        self.gradient_at.forget();
        self.blocks_at.forget();
        self.terms
            .get_mut(i)
            .map(|t| &mut **t as &mut dyn Energy<D>)
    }

    /// The contact stage.
    pub fn contact(&self) -> Option<&ContactStage<D>> {
        self.contact.as_ref()
    }

    /// The contact stage, to update it.
    pub fn contact_mut(&mut self) -> Option<&mut ContactStage<D>> {
        self.contact.as_mut()
    }

    /// The i-th term's blocks as the assembly takes them (its elements as they are now; none
    /// for a linear term).
    pub fn group(&self, i: usize) -> Group<'_> {
        let s = &self.slots[i];
        Group {
            elements: if s.linear {
                Elements::NONE
            } else {
                self.term(i).elements()
            },
            form: s.form,
            blocks: &s.blocks,
            fixed: s.fixed || s.linear,
            by_element: s.by_element,
            reserve: if s.linear {
                Elements::NONE
            } else {
                self.term(i).reserved_elements()
            },
        }
    }

    /// E(x), J·s² (kg·m²). Consecutive terms of equal weight are summed before their weight is
    /// applied: E = Ψ_inertia + h² (Ψ_spring + Ψ_gravity + … + Ψ_barrier + Ψ_friction),
    /// SPEC.md §2's form. The contact stage must have candidates covering x.
    pub fn value(&self, x: &[Vector<D>], step: &StepState<D>) -> f64 {
        self.value_and_scale(x, step).0
    }

    /// E(x) as [`IncrementalPotential::value`], and the sum of its terms' weighted magnitudes
    /// Σ wₜ |Ψₜ(x)| (J·s²): the size E's rounding is relative to, which |E| is not where the
    /// terms cancel (a body resting under gravity: E near zero, its terms not; the line
    /// search's module comment).
    pub fn value_and_scale(&self, x: &[Vector<D>], step: &StepState<D>) -> (f64, f64) {
        let mut values = self.values.borrow_mut();
        let reuse = values.at.holds(x);
        let (mut total, mut scale) = (0.0, 0.0);
        let mut k = 0;
        while k < self.slots.len() {
            let weight = self.slots[k].weight;
            let (mut group, mut magnitude) = (0.0, 0.0);
            while k < self.slots.len() && self.slots[k].weight == weight {
                let t = self.term(k);
                let v = if !self.slots[k].reusable {
                    t.value(x, step, 1.0)
                } else {
                    if !reuse {
                        values.of_term[k] = t.value(x, step, 1.0);
                    }
                    values.of_term[k]
                };
                group += v;
                magnitude += v.abs();
                k += 1;
            }
            total += weight * group;
            scale += weight.abs() * magnitude;
        }
        if !reuse {
            values.at.set(x);
        }
        (total, scale)
    }

    /// The contact stage's collisions at `x` (before a gradient or Hessian there).
    pub fn update_contact(&mut self, x: &[Vector<D>]) {
        if let Some(c) = &mut self.contact {
            c.update(x);
        }
    }

    /// Adds ∇E(x) to `grad` (per node, kg·m), term by term in order. The contact stage must
    /// have been updated at x ([`IncrementalPotential::update_contact`]).
    pub fn gradient(&mut self, x: &[Vector<D>], step: &StepState<D>, grad: &mut [Vector<D>]) {
        let reuse = self.gradient_at.holds(x);
        for (i, s) in self.slots.iter_mut().enumerate() {
            let t = term(&self.terms, &self.contact, i);
            let compute = !(reuse && s.reusable);
            let elements = t.elements();
            match t.as_difference() {
                Some(d) => {
                    if compute {
                        s.gradient.resize(elements.len(), Vector::<D>::zeros());
                        d.difference_gradient(x, step, s.weight, &mut s.gradient);
                    }
                    scatter_difference_gradient(elements, &s.gradient, grad);
                }
                None => {
                    if compute {
                        s.gradient
                            .resize(elements.gradient_len(), Vector::<D>::zeros());
                        t.gradient(x, step, s.weight, &mut s.gradient);
                    }
                    scatter_gradient(elements, &s.gradient, grad);
                }
            }
        }
        if !reuse {
            self.gradient_at.set(x);
        }
    }

    /// Every term's weighted element Hessian blocks at x (projected as each term is
    /// configured), kept for [`IncrementalPotential::group`]. The contact stage must have been
    /// updated at x.
    pub fn hessian(&mut self, x: &[Vector<D>], step: &StepState<D>) {
        let reuse = self.blocks_at.holds(x);
        for (i, s) in self.slots.iter_mut().enumerate() {
            if s.linear || s.by_element || (reuse && s.reusable) {
                continue;
            }
            let t = term(&self.terms, &self.contact, i);
            let elements = t.elements();
            match t.as_difference() {
                Some(d) => {
                    s.blocks.resize(elements.len() * D * D, 0.0);
                    d.difference_hessian(x, step, s.weight, &mut s.blocks);
                }
                None => {
                    s.blocks.resize(elements.hessian_len(D), 0.0);
                    t.hessian(x, step, s.weight, &mut s.blocks);
                }
            }
        }
        if !reuse {
            self.blocks_at.set(x);
        }
    }

    /// The assembly's `block` at `x` for the `step`: `(i, e, out)` writes term i's block of
    /// element e into `out`, for a term assembled by element ([`Group::by_element`]; only the
    /// system's terms are: a contact potential's elements change).
    pub fn element_blocks<'a>(
        &'a self,
        x: &'a [Vector<D>],
        step: &'a StepState<'a, D>,
    ) -> impl Fn(usize, usize, &mut [f64]) + Sync + 'a {
        let (terms, slots) = (&self.terms, &self.slots);
        move |i, e, out| {
            debug_assert!(slots[i].by_element && i < terms.len());
            terms[i].element_block(x, step, slots[i].weight, e, out);
        }
    }

    /// Replaces the blocks of every term whose Hessian may be indefinite by their PSD
    /// projection ([`Energy::psd_hessian`]); false when every term's blocks were PSD already
    /// (nothing to fall back to).
    pub fn project_indefinite_terms(&mut self, x: &[Vector<D>], step: &StepState<D>) -> bool {
        // The projected blocks are not the ones `hessian` computes at x.
        self.blocks_at.forget();
        let mut any = false;
        for (i, s) in self.slots.iter_mut().enumerate() {
            let t = term(&self.terms, &self.contact, i);
            if !s.linear && !t.hessian_is_psd() {
                match t.as_difference() {
                    Some(d) => d.difference_psd_hessian(x, step, s.weight, &mut s.blocks),
                    None => t.psd_hessian(x, step, s.weight, &mut s.blocks),
                }
                any = true;
            }
        }
        any
    }

    /// The smallest [`Energy::max_step`] of the terms along `p` from `x` (the step filter:
    /// contact's CCD, the inversion filter, friction's stick zone; +∞ when no term bounds the
    /// step). The contact stage's candidates must cover x → x + p.
    pub fn max_step(
        &self,
        x: &[Vector<D>],
        p: &[Vector<D>],
        step: &StepState<D>,
        fraction: f64,
    ) -> f64 {
        (0..self.slots.len())
            .map(|i| self.term(i).max_step(x, p, step, fraction))
            .fold(f64::INFINITY, f64::min)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::energy::Vec2;
    use crate::energy::inertia::InertiaEnergy;
    use crate::energy::spring::{Projection, SpringEnergy};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A term that counts its evaluations and passes them on to the term inside.
    struct Counted<E> {
        inner: E,
        calls: Arc<AtomicUsize>,
    }

    impl<E: Energy<2>> Energy<2> for Counted<E> {
        fn name(&self) -> &'static str {
            self.inner.name()
        }
        fn elements(&self) -> Elements<'_> {
            self.inner.elements()
        }
        fn value(&self, x: &[Vec2], step: &StepState<2>, weight: f64) -> f64 {
            self.calls.fetch_add(1, Ordering::Relaxed);
            self.inner.value(x, step, weight)
        }
        fn gradient(&self, x: &[Vec2], step: &StepState<2>, weight: f64, out: &mut [Vec2]) {
            self.calls.fetch_add(1, Ordering::Relaxed);
            self.inner.gradient(x, step, weight, out)
        }
        fn hessian(&self, x: &[Vec2], step: &StepState<2>, weight: f64, out: &mut [f64]) {
            self.calls.fetch_add(1, Ordering::Relaxed);
            self.inner.hessian(x, step, weight, out)
        }
        fn depends_on_step(&self) -> bool {
            self.inner.depends_on_step()
        }
    }

    /// Inertia (depends on the step's x̃) and a spring (x alone), each counted, in a potential.
    fn potential() -> (IncrementalPotential<2>, Arc<AtomicUsize>, Arc<AtomicUsize>) {
        let (inertia_calls, spring_calls) = (Arc::default(), Arc::default());
        let terms: Vec<(Box<dyn Energy<2>>, f64)> = vec![
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
            IncrementalPotential::new(terms, None, 1e-4),
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
            h: 0.01,
            time: 0.01,
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
            for i in 0..2 {
                assert_eq!(p.group(i).blocks, fresh.group(i).blocks);
            }
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
