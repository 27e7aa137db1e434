//! A spring from a node set to an anchor (SPEC.md §7 drivers): the node set's mean position
//! x̄ = (1/k) Σ xᵢ is pulled towards an anchor a(t) = a₀ + v_a t moving at a prescribed
//! velocity (fixed when v_a = 0), with stiffness k_s (N/m) and rest length L (m, 0 for a
//! zero-length spring):
//!
//! Ψ = ½ k_s (‖d‖ − L)², d = x̄ − a(t)   (J)
//!
//! ∂Ψ/∂xᵢ = (k_s/k) (‖d‖ − L) d/‖d‖ (N); the element is the whole node set, and its Hessian
//! block on nodes i, j is (1/k²) H_d with H_d = k_s [(1 − L/‖d‖) I + (L/‖d‖) d dᵀ/‖d‖²] (N/m),
//! whose eigenvalues are k_s along d and k_s (1 − L/‖d‖) across it: negative when the spring is
//! compressed, where the projection clamps the across part to zero (the element block
//! (1/k²) 1 1ᵀ ⊗ H_d is PSD exactly when H_d is). The term depends on time through a(t).

use super::term::{Elements, Energy, Projection, StepState};
use super::{Matrix, Vector};

/// A spring from `nodes`' mean position to a moving anchor.
#[derive(Clone, Debug, PartialEq)]
pub struct AnchorSpring<const D: usize> {
    nodes: Vec<usize>,
    /// a₀, the anchor at t = 0, m.
    anchor: Vector<D>,
    /// v_a, the anchor's velocity, m/s.
    velocity: Vector<D>,
    /// k_s, N/m.
    stiffness: f64,
    /// L, m.
    rest_length: f64,
    projection: Projection,
}

impl<const D: usize> AnchorSpring<D> {
    /// The spring from `nodes` (at least one) to the anchor a(t) = `anchor` + `velocity` t, of
    /// stiffness `stiffness` (N/m) and rest length `rest_length` (m).
    pub fn new(
        nodes: Vec<usize>,
        anchor: Vector<D>,
        velocity: Vector<D>,
        stiffness: f64,
        rest_length: f64,
        projection: Projection,
    ) -> Self {
        assert!(!nodes.is_empty(), "a spring needs a node");
        AnchorSpring {
            nodes,
            anchor,
            velocity,
            stiffness,
            rest_length,
            projection,
        }
    }

    /// The anchor at `time`, m.
    pub fn anchor_at(&self, time: f64) -> Vector<D> {
        self.anchor + self.velocity * time
    }

    /// The anchor's velocity v_a, m/s.
    pub fn anchor_velocity(&self) -> Vector<D> {
        self.velocity
    }

    /// Moves the anchor at `velocity` (m/s) from `time` (s) on, from where it is then: a(t) =
    /// a(`time`) + `velocity` (t − `time`), written a₀' + v t with a₀' = a(`time`) − v `time`.
    pub fn set_anchor_velocity(&mut self, velocity: Vector<D>, time: f64) {
        self.anchor = self.anchor_at(time) - velocity * time;
        self.velocity = velocity;
    }

    /// The nodes' mean position x̄, m.
    fn mean(&self, x: &[Vector<D>]) -> Vector<D> {
        self.nodes.iter().map(|&i| x[i]).sum::<Vector<D>>() / self.nodes.len() as f64
    }

    /// d = x̄ − a(t) at `x`, m.
    pub fn extension(&self, x: &[Vector<D>], time: f64) -> Vector<D> {
        self.mean(x) - self.anchor_at(time)
    }

    /// The force the spring exerts on the node set at `x` and `time`, N: −k_s (‖d‖ − L) d/‖d‖
    /// (zero at ‖d‖ = 0).
    pub fn force(&self, x: &[Vector<D>], time: f64) -> Vector<D> {
        let d = self.extension(x, time);
        -self.tension_over_length(&d) * d
    }

    /// k_s (‖d‖ − L)/‖d‖, N/m (k_s for a zero-length spring, and at ‖d‖ = 0 with L = 0).
    fn tension_over_length(&self, d: &Vector<D>) -> f64 {
        if self.rest_length == 0.0 {
            return self.stiffness;
        }
        let n = d.norm();
        if n == 0.0 {
            0.0
        } else {
            self.stiffness * (n - self.rest_length) / n
        }
    }

    /// H_d, projected when `project`, N/m.
    fn block(&self, d: &Vector<D>, project: bool) -> Matrix<D> {
        let n = d.norm();
        if self.rest_length == 0.0 || n == 0.0 {
            return Matrix::<D>::identity() * self.stiffness;
        }
        let ratio = self.rest_length / n;
        let mut across = self.stiffness * (1.0 - ratio);
        if project {
            across = across.max(0.0);
        }
        let ddt = d * d.transpose() / (n * n);
        ddt * self.stiffness + (Matrix::<D>::identity() - ddt) * across
    }

    fn blocks(
        &self,
        x: &[Vector<D>],
        step: &StepState<D>,
        weight: f64,
        out: &mut [f64],
        project: bool,
    ) {
        let k = self.nodes.len();
        let n = D * k;
        let d = self.extension(x, step.time);
        let b = self.block(&d, project) * (weight / (k * k) as f64);
        for cj in 0..k {
            for rj in 0..k {
                for c in 0..D {
                    for r in 0..D {
                        out[n * (D * cj + c) + D * rj + r] = b[(r, c)];
                    }
                }
            }
        }
    }
}

impl<const D: usize> Energy<D> for AnchorSpring<D> {
    fn as_any_mut(&mut self) -> Option<&mut dyn std::any::Any> {
        Some(self)
    }

    fn name(&self) -> &'static str {
        "anchor spring"
    }

    fn elements(&self) -> Elements<'_> {
        Elements::Tuples {
            k: self.nodes.len(),
            nodes: &self.nodes,
        }
    }

    /// w ½ k_s (‖d‖ − L)².
    fn value(&self, x: &[Vector<D>], step: &StepState<D>, weight: f64) -> f64 {
        let s = self.extension(x, step.time).norm() - self.rest_length;
        weight * 0.5 * self.stiffness * s * s
    }

    /// w (k_s/k)(‖d‖ − L) d/‖d‖ on every node of the set.
    fn gradient(&self, x: &[Vector<D>], step: &StepState<D>, weight: f64, out: &mut [Vector<D>]) {
        let d = self.extension(x, step.time);
        let g = d * (self.tension_over_length(&d) * weight / self.nodes.len() as f64);
        out.fill(g);
    }

    /// w (1/k²) H_d on every pair of the set's nodes, projected as configured.
    fn hessian(&self, x: &[Vector<D>], step: &StepState<D>, weight: f64, out: &mut [f64]) {
        self.blocks(x, step, weight, out, self.projection == Projection::Clamp);
    }

    fn hessian_is_psd(&self) -> bool {
        self.projection == Projection::Clamp || self.rest_length == 0.0
    }

    fn psd_hessian(&self, x: &[Vector<D>], step: &StepState<D>, weight: f64, out: &mut [f64]) {
        self.blocks(x, step, weight, out, true);
    }
}
