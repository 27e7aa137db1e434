//! A constant external force on a node set (SPEC.md §7 drivers): the total force F (N) shared
//! by the nodes in proportion to their masses, fᵢ = F mᵢ / Σ m, so that it acts at the set's
//! centre of mass. Ψ = −Σ fᵢ·xᵢ (J), linear: its Hessian is zero and never assembled.

use super::Vector;
use super::term::{Elements, Energy, StepState};

/// The force F on `nodes`.
#[derive(Clone, Debug, PartialEq)]
pub struct ConstantForce<const D: usize> {
    nodes: Vec<usize>,
    /// mᵢ / Σ m of every node of the set.
    fractions: Vec<f64>,
    /// fᵢ of every node of the set, N.
    shares: Vec<Vector<D>>,
}

impl<const D: usize> ConstantForce<D> {
    /// The total force `force` (N) on `nodes`, shared by their masses `mass` (kg, one per node
    /// of the set, positive).
    pub fn new(nodes: Vec<usize>, mass: &[f64], force: Vector<D>) -> Self {
        assert_eq!(nodes.len(), mass.len(), "one mass per node");
        let total: f64 = mass.iter().sum();
        let fractions: Vec<f64> = mass.iter().map(|m| m / total).collect();
        let shares = fractions.iter().map(|&f| force * f).collect();
        ConstantForce {
            nodes,
            fractions,
            shares,
        }
    }

    /// Sets the total force to `force`, N, shared as before.
    pub fn set_total(&mut self, force: Vector<D>) {
        for (share, &f) in self.shares.iter_mut().zip(&self.fractions) {
            *share = force * f;
        }
    }

    /// The total force, N.
    pub fn total(&self) -> Vector<D> {
        self.shares.iter().sum()
    }
}

impl<const D: usize> Energy<D> for ConstantForce<D> {
    fn as_any_mut(&mut self) -> Option<&mut dyn std::any::Any> {
        Some(self)
    }

    fn name(&self) -> &'static str {
        "constant force"
    }

    fn elements(&self) -> Elements<'_> {
        Elements::Tuples {
            k: 1,
            nodes: &self.nodes,
        }
    }

    /// −w Σ fᵢ·xᵢ.
    fn value(&self, x: &[Vector<D>], _step: &StepState<D>, weight: f64) -> f64 {
        -weight
            * self
                .nodes
                .iter()
                .zip(&self.shares)
                .map(|(&i, f)| f.dot(&x[i]))
                .sum::<f64>()
    }

    /// −w fᵢ per node.
    fn gradient(&self, _x: &[Vector<D>], _step: &StepState<D>, weight: f64, out: &mut [Vector<D>]) {
        for (o, f) in out.iter_mut().zip(&self.shares) {
            *o = -f * weight;
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
