//! Inertia: ½ (x − x̃)ᵀ M (x − x̃) with the lumped mass M (SPEC.md §2, §7), in kg·m² (J·s²; E's
//! other terms carry the weight h²). One element per node.

use super::term::{Elements, Energy, StepState, write_node_block};
use super::{Matrix, Vector};

/// ½ Σ mᵢ ‖xᵢ − x̃ᵢ‖² over the nodes, with x̃ from the [`StepState`].
#[derive(Clone, Debug)]
pub struct InertiaEnergy {
    /// Lumped mass of every node, kg.
    mass: Vec<f64>,
}

impl InertiaEnergy {
    /// The term for nodes of masses `mass` (kg).
    pub fn new(mass: Vec<f64>) -> Self {
        InertiaEnergy { mass }
    }
}

impl<const D: usize> Energy<D> for InertiaEnergy {
    fn name(&self) -> &'static str {
        "inertia"
    }

    fn elements(&self) -> Elements<'_> {
        Elements::EachNode(self.mass.len())
    }

    /// w · ½ Σ mᵢ ‖xᵢ − x̃ᵢ‖².
    fn value(&self, x: &[Vector<D>], step: &StepState<D>, weight: f64) -> f64 {
        weight
            * x.iter()
                .zip(step.x_tilde)
                .zip(&self.mass)
                .map(|((x, xt), m)| 0.5 * m * (x - xt).norm_squared())
                .sum::<f64>()
    }

    /// w mᵢ (xᵢ − x̃ᵢ) per node.
    fn gradient(&self, x: &[Vector<D>], step: &StepState<D>, weight: f64, out: &mut [Vector<D>]) {
        for (((o, x), xt), m) in out.iter_mut().zip(x).zip(step.x_tilde).zip(&self.mass) {
            *o = (x - xt) * (m * weight);
        }
    }

    /// w mᵢ I per node.
    fn hessian(&self, _x: &[Vector<D>], _step: &StepState<D>, weight: f64, out: &mut [f64]) {
        for (o, m) in out.chunks_exact_mut(D * D).zip(&self.mass) {
            write_node_block(&(Matrix::<D>::identity() * (m * weight)), o);
        }
    }
}
