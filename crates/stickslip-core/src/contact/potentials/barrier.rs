//! The log barrier (SPEC.md §2, §7), summed over the pairs of one type.
//!
//! Per pair with distance d (m) and contact area A, active when d < d̂, s = d/d̂, the book's form
//! (C¹ at d̂): b = A d̂ (κ/2)(s − 1) ln s (J); ∂b/∂d = A d̂ (κ/2)(ln s/d̂ + (s − 1)/d) (N);
//! ∂²b/∂d² = A d̂ κ (d + d̂)/(2 d² d̂) (N/m). With [`BarrierKind::Ipc`] the kernel is the C²
//! barrier of [`crate::contact::barrier::ipc`] (SPEC.md §6) instead. The barrier function b(d)
//! itself, its kinds and constants, is [`crate::contact::barrier`].
//!
//! Over the stencil: ∂b/∂x = b′ ∇d, ∂²b/∂x² = b″ ∇d ∇dᵀ + b′ ∇²d. For a pair whose distance
//! is linear (a node against a half-space: ∇d = n) the block b″ n nᵀ is PSD as it is; otherwise
//! it is projected to PSD (SPEC.md §2's rule).
//!
//! [`BarrierPotential`] sums over its candidates, so its value at any x the candidates cover is
//! exact whatever the last update; its gradient and Hessian are over the collisions active at
//! the last [`BarrierPotential::update`], which the solver makes at every iterate.

use crate::contact::ContactPair;
pub use crate::contact::barrier::{BarrierKind, BarrierParams};
use crate::contact::collisions::normal::{NormalCollision, active};
use crate::contact::pair::{MAX_STENCIL, MOLLIFIER_HESSIAN};
use crate::energy::psd::project_in_place;
use crate::energy::{Elements, Energy, StepState, Vector};

/// The barrier over the candidates of one pair type: a term of E. Its value sums over the
/// candidates; its gradient and Hessian over the collisions active at the last
/// [`BarrierPotential::update`], each evaluated at the x given (so they are exact at any x with
/// the same active set).
#[derive(Clone, Debug)]
pub struct BarrierPotential<const D: usize, P> {
    params: BarrierParams,
    /// The candidates of the last broad phase.
    pub(crate) candidates: Vec<P>,
    /// The candidates active at the last update.
    active: Vec<NormalCollision>,
    /// Their stencils, `P::NODES` nodes each: the elements.
    stencils: Vec<usize>,
    /// The candidates' stencils: the reserved elements ([`Energy::reserved_elements`]).
    candidate_stencils: Vec<usize>,
}

impl<const D: usize, P: ContactPair<D>> BarrierPotential<D, P> {
    /// The barrier with constants `params` and no candidates yet.
    pub fn new(params: BarrierParams) -> Self {
        BarrierPotential {
            params,
            candidates: Vec::new(),
            active: Vec::new(),
            stencils: Vec::new(),
            candidate_stencils: Vec::new(),
        }
    }

    /// The barrier with constants `params` over the given candidates (the stage finds them
    /// itself; for tests and tools that list pairs by hand), updated at `x`.
    pub fn with_candidates(params: BarrierParams, candidates: Vec<P>, x: &[Vector<D>]) -> Self {
        let mut b = BarrierPotential::new(params);
        b.candidates = candidates;
        b.candidates_changed();
        b.update(x);
        b
    }

    /// The barrier's constants.
    pub fn params(&self) -> &BarrierParams {
        &self.params
    }

    /// The candidates of the last broad phase.
    pub fn candidates(&self) -> &[P] {
        &self.candidates
    }

    /// To be called after the candidates were replaced: their stencils become the reserved
    /// elements.
    pub fn candidates_changed(&mut self) {
        self.candidate_stencils.clear();
        for pair in &self.candidates {
            self.candidate_stencils
                .extend_from_slice(&pair.nodes()[..P::NODES]);
        }
    }

    /// The collisions active at `x` (the candidates within d̂ there) become the elements.
    pub fn update(&mut self, x: &[Vector<D>]) {
        active(
            &self.candidates,
            x,
            self.params.dhat,
            &mut self.active,
            &mut self.stencils,
        );
    }

    /// The collisions active at the last update.
    pub fn active(&self) -> &[NormalCollision] {
        &self.active
    }

    /// w ∂²b/∂x² of every active collision, exact (b″ ∇d ∇dᵀ + b′ ∇²d, indefinite where the
    /// distance is curved), N/m, in [`Energy::hessian`]'s layout: for the finite-difference
    /// tests; the solver uses the projection, [`Energy::hessian`].
    pub fn exact_hessian(&self, x: &[Vector<D>], weight: f64, out: &mut [f64]) {
        self.blocks(x, weight, out, Blocks::Exact);
    }

    /// Every active collision's w-scaled block into `out` (see [`Blocks`]).
    fn blocks(&self, x: &[Vector<D>], weight: f64, out: &mut [f64], mode: Blocks) {
        let n = D * P::NODES;
        let mut g = [Vector::<D>::zeros(); MAX_STENCIL];
        for (c, out) in self.active.iter().zip(out.chunks_exact_mut(n * n)) {
            let pair = &self.candidates[c.candidate];
            let (area, d) = (pair.area(), pair.distance(x));
            // A pair of negative weight (a vertex–vertex correction) in the solver's modes: the
            // block of its positive twin, projected, then negated or dropped.
            let negative = area < 0.0 && mode != Blocks::Exact;
            if negative && mode == Blocks::Psd {
                out.fill(0.0);
                continue;
            }
            let (area, sign) = if negative { (-area, -1.0) } else { (area, 1.0) };
            pair.distance_gradient(x, &mut g);
            let b2 = self.params.second(d, area) * weight;
            if P::LINEAR {
                // b″ ∇d ∇dᵀ, column by column.
                for (cj, gc) in g[..P::NODES].iter().enumerate() {
                    for (rj, gr) in g[..P::NODES].iter().enumerate() {
                        let block = gr * gc.transpose() * b2;
                        for cc in 0..D {
                            for rr in 0..D {
                                out[n * (D * cj + cc) + D * rj + rr] = block[(rr, cc)];
                            }
                        }
                    }
                }
            } else {
                pair.distance_hessian(x, out);
                let b1 = self.params.first(d, area) * weight;
                for k in 0..n {
                    for r in 0..n {
                        let (gk, gr) = (g[k / D][k % D], g[r / D][r % D]);
                        out[n * k + r] = b2 * gr * gk + b1 * out[n * k + r];
                    }
                }
                if P::MOLLIFIED {
                    // ∂²(m b)/∂x² = m ∂²b + b′ (∇m ∇dᵀ + ∇d ∇mᵀ) + b ∇²m.
                    let mut gm = [Vector::<D>::zeros(); MAX_STENCIL];
                    let mut hm = [0.0; MOLLIFIER_HESSIAN];
                    let m = pair.mollifier(x, &mut gm, &mut hm);
                    let b = self.params.value(d, area) * weight;
                    for k in 0..n {
                        for r in 0..n {
                            let (gk, gr) = (g[k / D][k % D], g[r / D][r % D]);
                            let (mk, mr) = (gm[k / D][k % D], gm[r / D][r % D]);
                            out[n * k + r] =
                                m * out[n * k + r] + b1 * (mr * gk + gr * mk) + b * hm[n * k + r];
                        }
                    }
                }
                if mode != Blocks::Exact {
                    project_in_place(out, n);
                }
                if sign < 0.0 {
                    out.iter_mut().for_each(|v| *v = -*v);
                }
            }
        }
    }
}

/// Which blocks [`BarrierPotential::blocks`] makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Blocks {
    /// b″ ∇d ∇dᵀ + b′ ∇²d as it is (the finite-difference tests).
    Exact,
    /// The solver's: a curved pair's block projected to PSD; a pair of negative weight (a
    /// vertex–vertex correction) the negative of its positive twin's projected block, which
    /// cancels the projected block of the duplicate point–edge pair it corrects exactly where
    /// that pair's closest point is the vertex (`contact::candidates::vertex_vertex`).
    Solver,
    /// Every block PSD: negative-weight pairs dropped (the fallback when [`Blocks::Solver`]
    /// leaves the matrix indefinite past the solver's mass shifts).
    Psd,
}

impl<const D: usize, P: ContactPair<D>> Energy<D> for BarrierPotential<D, P> {
    fn name(&self) -> &'static str {
        "barrier"
    }

    fn elements(&self) -> Elements<'_> {
        Elements::Tuples {
            k: P::NODES,
            nodes: &self.stencils,
        }
    }

    fn fixed_elements(&self) -> bool {
        false
    }

    /// The candidates' stencils.
    fn reserved_elements(&self) -> Elements<'_> {
        Elements::Tuples {
            k: P::NODES,
            nodes: &self.candidate_stencils,
        }
    }

    /// w Σ A b(d) over the candidates (m A b(d) for a mollified pair), J (+∞ if any is at or
    /// past contact).
    fn value(&self, x: &[Vector<D>], _step: &StepState<D>, weight: f64) -> f64 {
        let mut gm = [Vector::<D>::zeros(); MAX_STENCIL];
        let mut hm = [0.0; MOLLIFIER_HESSIAN];
        weight
            * self
                .candidates
                .iter()
                .map(|p| {
                    let b = self.params.value(p.distance(x), p.area());
                    if P::MOLLIFIED && b != 0.0 && b.is_finite() {
                        p.mollifier(x, &mut gm, &mut hm) * b
                    } else {
                        b
                    }
                })
                .sum::<f64>()
    }

    /// w b′(d) ∇d per active collision (w (m b′ ∇d + b ∇m) for a mollified pair), N.
    fn gradient(&self, x: &[Vector<D>], _step: &StepState<D>, weight: f64, out: &mut [Vector<D>]) {
        let mut g = [Vector::<D>::zeros(); MAX_STENCIL];
        let mut gm = [Vector::<D>::zeros(); MAX_STENCIL];
        let mut hm = [0.0; MOLLIFIER_HESSIAN];
        for (c, out) in self.active.iter().zip(out.chunks_exact_mut(P::NODES)) {
            let pair = &self.candidates[c.candidate];
            pair.distance_gradient(x, &mut g);
            let (d, area) = (pair.distance(x), pair.area());
            let b1 = self.params.first(d, area) * weight;
            if P::MOLLIFIED {
                let m = pair.mollifier(x, &mut gm, &mut hm);
                let b = self.params.value(d, area) * weight;
                for ((o, g), gm) in out.iter_mut().zip(&g).zip(&gm) {
                    *o = g * (m * b1) + gm * b;
                }
            } else {
                for (o, g) in out.iter_mut().zip(&g) {
                    *o = g * b1;
                }
            }
        }
    }

    /// w ∂²b/∂x² per active collision, projected (`Blocks::Solver`), N/m.
    fn hessian(&self, x: &[Vector<D>], _step: &StepState<D>, weight: f64, out: &mut [f64]) {
        self.blocks(x, weight, out, Blocks::Solver);
    }

    /// PSD unless a pair of negative weight is active.
    fn hessian_is_psd(&self) -> bool {
        !self
            .active
            .iter()
            .any(|c| self.candidates[c.candidate].area() < 0.0)
    }

    /// Every block PSD (`Blocks::Psd`).
    fn psd_hessian(&self, x: &[Vector<D>], _step: &StepState<D>, weight: f64, out: &mut [f64]) {
        self.blocks(x, weight, out, Blocks::Psd);
    }

    fn depends_on_step(&self) -> bool {
        false
    }

    /// The CCD of every candidate: min over them of [`ContactPair::max_step`].
    fn max_step(
        &self,
        x: &[Vector<D>],
        p: &[Vector<D>],
        _step: &StepState<D>,
        fraction: f64,
    ) -> f64 {
        self.candidates
            .iter()
            .map(|c| c.max_step(x, p, fraction))
            .fold(1.0, f64::min)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The book's kernel: its derivatives against central differences of its value, its
    /// curvature positive inside d̂, and all three zero outside; +∞ at contact.
    #[test]
    fn book_kernel_derivatives_match_finite_differences() {
        let b = BarrierParams {
            dhat: 0.01,
            kappa: 1e5,
            kind: BarrierKind::Book,
        };
        let area = 0.25;
        for s in [0.05, 0.2, 0.5, 0.8, 0.98] {
            let d = s * b.dhat;
            let delta = 1e-6 * d;
            let fd1 = (b.value(d + delta, area) - b.value(d - delta, area)) / (2.0 * delta);
            let fd2 = (b.first(d + delta, area) - b.first(d - delta, area)) / (2.0 * delta);
            assert!(
                (b.first(d, area) - fd1).abs() <= 1e-6 * fd1.abs(),
                "s = {s}"
            );
            assert!(
                (b.second(d, area) - fd2).abs() <= 1e-6 * fd2.abs(),
                "s = {s}"
            );
            assert!(b.second(d, area) > 0.0 && b.first(d, area) < 0.0);
        }
        let out = 1.5 * b.dhat;
        assert_eq!(
            (b.value(out, area), b.first(out, area), b.second(out, area)),
            (0.0, 0.0, 0.0)
        );
        assert_eq!(b.value(0.0, area), f64::INFINITY);
    }
}
