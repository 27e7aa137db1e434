//! The log barrier against the slope (SPEC.md §2), the book's form, C¹ at d̂.
//!
//! Per node with signed distance d = n·(xᵢ − o) (m), active when d < d̂, s = d/d̂:
//! b = A d̂ (κ/2)(s − 1) ln s (J); ∂b/∂x = A d̂ (κ/2)(ln s/d̂ + (s − 1)/d) n (N);
//! ∂²b/∂x² = A d̂ κ (d + d̂)/(2 d² d̂) n nᵀ (N/m, PSD).
//!
//! With [`BarrierKind::Ipc`] the per-node kernel is the C² barrier of [`super::barrier_ipc`]
//! (SPEC.md §6) instead; everything else here (the term [`BarrierEnergy`], λ, the tunnelling
//! filter) is shared. One element per node.

use serde::{Deserialize, Serialize};

use super::term::{Elements, Energy, StepState, write_node_block};
use super::{Mat2, Vec2, barrier_ipc};

/// Which per-node barrier function (case key `barrier.kind`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BarrierKind {
    /// The book's A d̂ (κ/2)(s − 1) ln s, C¹ at d̂ (SPEC.md §2).
    #[default]
    Book,
    /// IPC's −(Aκ/2d̂)(d − d̂)² ln(d/d̂), C² at d̂ (SPEC.md §6; [`super::barrier_ipc`]).
    Ipc,
}

/// The half-space n·(x − o) ≥ 0 and the barrier's constants.
#[derive(Clone, Copy, Debug)]
pub struct Barrier {
    /// Unit outward normal.
    pub normal: Vec2,
    /// A point on the slope, m.
    pub point: Vec2,
    /// Activation distance d̂, m.
    pub dhat: f64,
    /// Stiffness κ.
    pub kappa: f64,
    /// The per-node barrier function.
    pub kind: BarrierKind,
}

impl Barrier {
    /// Signed distance of `x` to the slope, m.
    #[inline]
    pub fn distance(&self, x: &Vec2) -> f64 {
        self.normal.dot(&(x - self.point))
    }

    /// b(d) for a node of contact area `area`, J; +∞ at or below the slope.
    #[inline]
    pub fn node_value(&self, d: f64, area: f64) -> f64 {
        if self.kind == BarrierKind::Ipc {
            barrier_ipc::value(d, self.dhat, self.kappa, area)
        } else if d >= self.dhat {
            0.0
        } else if d <= 0.0 {
            f64::INFINITY
        } else {
            let s = d / self.dhat;
            area * self.dhat * (self.kappa / 2.0) * (s - 1.0) * s.ln()
        }
    }

    /// ∂b/∂d, N (≤ 0 inside d̂; zero outside).
    #[inline]
    pub fn node_dbdd(&self, d: f64, area: f64) -> f64 {
        if self.kind == BarrierKind::Ipc {
            barrier_ipc::first(d, self.dhat, self.kappa, area)
        } else if d >= self.dhat {
            0.0
        } else {
            let s = d / self.dhat;
            area * self.dhat * (self.kappa / 2.0) * (s.ln() / self.dhat + (s - 1.0) / d)
        }
    }

    /// ∂²b/∂d², N/m.
    #[inline]
    pub fn node_d2bdd2(&self, d: f64, area: f64) -> f64 {
        if self.kind == BarrierKind::Ipc {
            barrier_ipc::second(d, self.dhat, self.kappa, area)
        } else if d >= self.dhat {
            0.0
        } else {
            area * self.dhat * self.kappa * (d + self.dhat) / (2.0 * d * d * self.dhat)
        }
    }

    /// Normal force magnitude λ = −∂b/∂d at `x`, N (positive inside d̂, zero outside).
    #[inline]
    pub fn normal_force(&self, x: &Vec2, area: f64) -> f64 {
        -self.node_dbdd(self.distance(x), area)
    }
}

/// The slope barrier as a term of E: Σ b(dᵢ) over the nodes, each with its contact area.
#[derive(Clone, Debug)]
pub struct BarrierEnergy {
    /// The half-space and the barrier's constants.
    barrier: Barrier,
    /// Contact area of every node, m.
    area: Vec<f64>,
}

impl BarrierEnergy {
    /// The term for `barrier` over nodes of contact areas `area` (m).
    pub fn new(barrier: Barrier, area: Vec<f64>) -> Self {
        BarrierEnergy { barrier, area }
    }
}

impl Energy for BarrierEnergy {
    fn name(&self) -> &'static str {
        "barrier"
    }

    fn elements(&self) -> Elements<'_> {
        Elements::EachNode(self.area.len())
    }

    /// w Σ b(dᵢ), J (+∞ if any node is at or below the slope).
    fn value(&self, x: &[Vec2], _step: &StepState, weight: f64) -> f64 {
        let bar = &self.barrier;
        weight
            * x.iter()
                .zip(&self.area)
                .map(|(x, a)| bar.node_value(bar.distance(x), *a))
                .sum::<f64>()
    }

    /// w b′(dᵢ) n per node (zero outside d̂), N.
    fn gradient(&self, x: &[Vec2], _step: &StepState, weight: f64, out: &mut [Vec2]) {
        let bar = &self.barrier;
        for ((o, x), a) in out.iter_mut().zip(x).zip(&self.area) {
            let d = bar.distance(x);
            *o = if d < bar.dhat {
                bar.normal * (bar.node_dbdd(d, *a) * weight)
            } else {
                Vec2::zeros()
            };
        }
    }

    /// w b″(dᵢ) n nᵀ per node (PSD; zero outside d̂), N/m.
    fn depends_on_step(&self) -> bool {
        false
    }

    fn hessian(&self, x: &[Vec2], _step: &StepState, weight: f64, out: &mut [f64]) {
        let bar = &self.barrier;
        let nnt = bar.normal * bar.normal.transpose();
        for ((o, x), a) in out.chunks_exact_mut(4).zip(x).zip(&self.area) {
            let d = bar.distance(x);
            let block = if d < bar.dhat {
                nnt * (bar.node_d2bdd2(d, *a) * weight)
            } else {
                Mat2::zeros()
            };
            write_node_block(&block, o);
        }
    }
}

/// μλᵢ for every node at xⁿ (the lagged normal force of semi-implicit friction), N.
pub fn mu_lambda(x: &[Vec2], area: &[f64], barrier: &Barrier, mu: f64, out: &mut [f64]) {
    for ((o, x), a) in out.iter_mut().zip(x).zip(area) {
        *o = mu * barrier.normal_force(x, *a);
    }
}

/// The tunnelling filter (SPEC.md §2): the largest α ≤ 1 with which no node moving towards the
/// slope covers more than `fraction` of its distance (the case's `newton.filter_fraction`, 0.9
/// in the book), α = min(1, min_{p·n<0} fraction · d / (−p·n)).
pub fn max_step(x: &[Vec2], p: &[Vec2], barrier: &Barrier, fraction: f64) -> f64 {
    let mut alpha: f64 = 1.0;
    for (x, p) in x.iter().zip(p) {
        let pn = p.dot(&barrier.normal);
        if pn < 0.0 {
            alpha = alpha.min(fraction * barrier.distance(x) / -pn);
        }
    }
    alpha
}
