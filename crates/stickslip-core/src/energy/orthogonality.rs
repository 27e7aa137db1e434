//! The orthogonality potential of an affine body (ABD, Lan et al. 2022; SPEC.md §7's bodies
//! taken as affine, `scene::bodies::affine`): over a simplex of D + 1 nodes whose deformation
//! gradient A = Σₐ xₐ Gₐᵀ every point of the body shares, Ψ = κ V ‖AᵀA − I‖²_F (J), with κ the
//! stiffness (Pa) and V the body's volume (m³; area in 2D). Zero exactly where A is a rotation
//! or a reflection, growing as A stretches or shears; a stiff κ keeps the body rigid. Between a
//! rotation and a reflection lies a barrier of order κ V (A must pass through a singular map),
//! out of reach of any load here, though nothing else forbids it.
//!
//! Why this and not a stiff neo-Hookean of A: Ψ is quadratic in C = AᵀA − I, so its value at a
//! rotation is rounded to κ V ε² (ε the rounding of C, ~10⁻¹⁶), where the neo-Hookean's
//! μ/2 (tr C) is rounded to μ V ε. At the stiffness that makes a body rigid (κ ~ 10¹¹ Pa) the
//! neo-Hookean's rounding hides the decrease of E the line search needs to see once the step is
//! below 10⁻⁶ m; this one does not.
//!
//! Derivatives, with P = ∂Ψ/∂A: Ψ = κ V ⟨C, C⟩, dC = dAᵀA + AᵀdA, so P = 4 κ V A C and
//! dP = 4 κ V (dA C + A (dAᵀ A + Aᵀ dA)). The node gradient is P Gₐ, the Hessian block of nodes
//! a, b in components i, j is (dP Gₐ)ᵢ with dA = e_j G_bᵀ; Ψ is not convex in A, so the block
//! is projected to PSD (`energy::psd`) where the term's [`Projection`] says.

use crate::energy::neo_hookean::{simplex_deformation_gradient, simplex_shape_gradients};
use crate::energy::psd::project_in_place;
use crate::energy::{Elements, Energy, Matrix, Projection, StepState, Vector};

/// κ V ‖AᵀA − I‖²_F over simplices of D + 1 nodes.
#[derive(Clone, Debug)]
pub struct Orthogonality<const D: usize> {
    /// The nodes, D + 1 per element, in positive order.
    nodes: Vec<usize>,
    /// Gₐ of every element, D + 1 per element, 1/m.
    shape_gradients: Vec<Vector<D>>,
    /// κ V of every element, J.
    scale: Vec<f64>,
    /// How the element Hessian is made PSD.
    projection: Projection,
}

/// A simplex that is not positive at rest.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
#[error("element {element}: rest measure {measure:e} must be positive and finite")]
pub struct DegenerateElement {
    /// The element.
    pub element: usize,
    /// Its rest area or volume (signed), m^D.
    pub measure: f64,
}

impl<const D: usize> Orthogonality<D> {
    /// The term over the simplices `nodes` (D + 1 node indices each, positive at rest) with rest
    /// positions `x0` (m), each standing for a body of stiffness κ (Pa) and volume V (m³; m² in
    /// 2D) given per element in `stiffness_volume` as κ V (J), its Hessian projected as
    /// `projection` says.
    pub fn new(
        nodes: Vec<usize>,
        x0: &[Vector<D>],
        stiffness_volume: Vec<f64>,
        projection: Projection,
    ) -> Result<Self, DegenerateElement> {
        let k = D + 1;
        assert_eq!(
            nodes.len(),
            k * stiffness_volume.len(),
            "D + 1 nodes an element"
        );
        let mut shape_gradients = Vec::with_capacity(nodes.len());
        for (e, el) in nodes.chunks_exact(k).enumerate() {
            simplex_shape_gradients(el, x0, &mut shape_gradients).map_err(|measure| {
                DegenerateElement {
                    element: e,
                    measure,
                }
            })?;
        }
        Ok(Orthogonality {
            nodes,
            shape_gradients,
            scale: stiffness_volume,
            projection,
        })
    }

    /// A of element `e` at `x`.
    pub fn deformation_gradient(&self, x: &[Vector<D>], e: usize) -> Matrix<D> {
        let k = D + 1;
        simplex_deformation_gradient(
            &self.nodes[k * e..k * e + k],
            &self.shape_gradients[k * e..k * e + k],
            x,
        )
    }

    fn strain(a: &Matrix<D>) -> Matrix<D> {
        a.transpose() * a - Matrix::<D>::identity()
    }

    /// Element e's block, w ∂²Ψ/∂x² over its nodes, projected to PSD when `project`, into
    /// `out` ((D(D + 1))², column-major, local dof D a + i).
    fn element_block(
        &self,
        x: &[Vector<D>],
        e: usize,
        weight: f64,
        project: bool,
        out: &mut [f64],
    ) {
        let k = D + 1;
        let dofs = D * k;
        let a = self.deformation_gradient(x, e);
        let c = Self::strain(&a);
        let s = 4.0 * weight * self.scale[e];
        let g = &self.shape_gradients[k * e..k * e + k];
        for (b, gb) in g.iter().enumerate() {
            for j in 0..D {
                let mut da = Matrix::<D>::zeros();
                for col in 0..D {
                    da[(j, col)] = gb[col];
                }
                let dp = (da * c + a * (da.transpose() * a + a.transpose() * da)) * s;
                let column = D * b + j;
                for (p, gp) in g.iter().enumerate() {
                    let v = dp * gp;
                    for i in 0..D {
                        out[dofs * column + D * p + i] = v[i];
                    }
                }
            }
        }
        if project {
            project_in_place(&mut out[..dofs * dofs], dofs);
        }
    }

    fn blocks(&self, x: &[Vector<D>], weight: f64, project: bool, out: &mut [f64]) {
        let dofs = D * (D + 1);
        for (e, block) in out.chunks_exact_mut(dofs * dofs).enumerate() {
            self.element_block(x, e, weight, project, block);
        }
    }
}

impl<const D: usize> Energy<D> for Orthogonality<D> {
    fn name(&self) -> &'static str {
        "orthogonality"
    }

    fn elements(&self) -> Elements<'_> {
        Elements::Tuples {
            k: D + 1,
            nodes: &self.nodes,
        }
    }

    /// w Σ κ V ‖AᵀA − I‖²_F, J.
    fn value(&self, x: &[Vector<D>], _step: &StepState<D>, weight: f64) -> f64 {
        weight
            * (0..self.scale.len())
                .map(|e| {
                    let c = Self::strain(&self.deformation_gradient(x, e));
                    self.scale[e] * c.norm_squared()
                })
                .sum::<f64>()
    }

    /// w 4 κ V A C Gₐ per element node, N.
    fn gradient(&self, x: &[Vector<D>], _step: &StepState<D>, weight: f64, out: &mut [Vector<D>]) {
        let k = D + 1;
        for e in 0..self.scale.len() {
            let a = self.deformation_gradient(x, e);
            let p = a * Self::strain(&a) * (4.0 * weight * self.scale[e]);
            for j in 0..k {
                out[k * e + j] = p * self.shape_gradients[k * e + j];
            }
        }
    }

    /// The blocks, projected as configured, N/m.
    fn hessian(&self, x: &[Vector<D>], _step: &StepState<D>, weight: f64, out: &mut [f64]) {
        self.blocks(x, weight, self.projection == Projection::Clamp, out);
    }

    fn hessian_is_psd(&self) -> bool {
        self.projection == Projection::Clamp
    }

    fn psd_hessian(&self, x: &[Vector<D>], _step: &StepState<D>, weight: f64, out: &mut [f64]) {
        self.blocks(x, weight, true, out);
    }

    fn depends_on_step(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::energy::Vec3;
    use nalgebra::Rotation3;

    /// Zero energy and force at any rotation of the rest shape; a stretch by s along x gives
    /// κ V (s² − 1)², written out here.
    #[test]
    fn rotations_cost_nothing_and_a_stretch_its_square() {
        let x0 = vec![
            Vec3::zeros(),
            Vec3::new(0.3, 0.0, 0.0),
            Vec3::new(0.0, 0.2, 0.0),
            Vec3::new(0.0, 0.0, 0.1),
        ];
        let term =
            Orthogonality::<3>::new(vec![0, 1, 2, 3], &x0, vec![5.0], Projection::Clamp).unwrap();
        let step = StepState {
            x_tilde: &x0,
            x_n: &x0,
            h: 0.01,
            time: 0.0,
        };
        let turn = Rotation3::new(Vec3::new(0.4, -1.1, 2.0));
        let turned: Vec<Vec3> = x0
            .iter()
            .map(|x| turn * x + Vec3::new(1.0, 2.0, 3.0))
            .collect();
        // Moved by ~3 m, the edges (0.1–0.3 m) are rounded to ~1e-15 m: A to ~1e-14, C to
        // ~1e-14, the value to κ V C² ~ 1e-27 J and the forces to 4 κ V |A C G| ~ 1e-11 N,
        // against 4 κ V · 0.44 · 1.2 · 3.3 ≈ 35 N at the stretch below.
        assert!(term.value(&turned, &step, 1.0).abs() < 1e-24);
        let mut g = vec![Vec3::zeros(); 4];
        term.gradient(&turned, &step, 1.0, &mut g);
        assert!(g.iter().all(|v| v.norm() < 1e-9), "{g:?}");
        let stretched: Vec<Vec3> = x0.iter().map(|x| Vec3::new(1.2 * x.x, x.y, x.z)).collect();
        let expected = 5.0 * (1.44f64 - 1.0).powi(2);
        assert!((term.value(&stretched, &step, 1.0) - expected).abs() < 1e-12);
    }
}
