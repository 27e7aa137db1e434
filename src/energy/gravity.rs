//! Gravity: Ψ = −Σ mᵢ g·xᵢ (SPEC.md §2), in J. Linear, so its Hessian is zero and never
//! assembled. One element per node.

use super::Vec2;
use super::term::{Elements, Energy, StepState};

/// −Σ mᵢ g·xᵢ over the nodes.
#[derive(Clone, Debug)]
pub struct GravityEnergy {
    /// Lumped mass of every node, kg.
    mass: Vec<f64>,
    /// Gravitational acceleration g, m/s².
    g: Vec2,
}

impl GravityEnergy {
    /// The term for nodes of masses `mass` (kg) in the field `g` (m/s²).
    pub fn new(mass: Vec<f64>, g: Vec2) -> Self {
        GravityEnergy { mass, g }
    }
}

impl Energy for GravityEnergy {
    fn name(&self) -> &'static str {
        "gravity"
    }

    fn elements(&self) -> Elements<'_> {
        Elements::EachNode(self.mass.len())
    }

    /// w · (−Σ mᵢ g·xᵢ).
    fn value(&self, x: &[Vec2], _step: &StepState, weight: f64) -> f64 {
        weight
            * x.iter()
                .zip(&self.mass)
                .map(|(x, m)| -m * self.g.dot(x))
                .sum::<f64>()
    }

    /// −w mᵢ g per node.
    fn gradient(&self, _x: &[Vec2], _step: &StepState, weight: f64, out: &mut [Vec2]) {
        for (o, m) in out.iter_mut().zip(&self.mass) {
            *o = -(self.g * (m * weight));
        }
    }

    /// Zero.
    fn hessian(&self, _x: &[Vec2], _step: &StepState, _weight: f64, out: &mut [f64]) {
        out.fill(0.0);
    }

    fn depends_on_step(&self) -> bool {
        false
    }

    fn is_linear(&self) -> bool {
        true
    }
}
