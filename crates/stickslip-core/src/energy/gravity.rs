//! Gravity: Ψ = −Σ mᵢ g·xᵢ (SPEC.md §2), in J. Linear, so its Hessian is zero and never
//! assembled. One element per node.

use super::Vector;
use super::term::{Elements, Energy, StepState};

/// −Σ mᵢ g·xᵢ over the nodes.
#[derive(Clone, Debug)]
pub struct GravityEnergy<const D: usize> {
    /// Lumped mass of every node, kg.
    mass: Vec<f64>,
    /// Gravitational acceleration g, m/s².
    g: Vector<D>,
}

impl<const D: usize> GravityEnergy<D> {
    /// The term for nodes of masses `mass` (kg) in the field `g` (m/s²).
    pub fn new(mass: Vec<f64>, g: Vector<D>) -> Self {
        GravityEnergy { mass, g }
    }
}

impl<const D: usize> Energy<D> for GravityEnergy<D> {
    fn name(&self) -> &'static str {
        "gravity"
    }

    fn elements(&self) -> Elements<'_> {
        Elements::EachNode(self.mass.len())
    }

    /// w · (−Σ mᵢ g·xᵢ).
    fn value(&self, x: &[Vector<D>], _step: &StepState<D>, weight: f64) -> f64 {
        weight
            * x.iter()
                .zip(&self.mass)
                .map(|(x, m)| -m * self.g.dot(x))
                .sum::<f64>()
    }

    /// −w mᵢ g per node.
    fn gradient(&self, _x: &[Vector<D>], _step: &StepState<D>, weight: f64, out: &mut [Vector<D>]) {
        for (o, m) in out.iter_mut().zip(&self.mass) {
            *o = -(self.g * (m * weight));
        }
    }

    /// Zero.
    fn hessian(&self, _x: &[Vector<D>], _step: &StepState<D>, _weight: f64, out: &mut [f64]) {
        out.fill(0.0);
    }

    fn depends_on_step(&self) -> bool {
        false
    }

    fn is_linear(&self) -> bool {
        true
    }
}
