//! Embedded stencils (SPEC.md §7, affine bodies as in affine-body dynamics): the map from a
//! 3D point–triangle or edge–edge stencil's four vertices y to the state nodes they are
//! linear in. A vertex of a tetrahedral body or of a triangle-mesh obstacle is a node of the
//! state vector; a vertex of an affine body sits at y = A X + p = Σⱼ wⱼ x_{cⱼ}, linear in its
//! body's four control nodes with fixed weights (`contact::EmbeddedVertices`). So y = J x over
//! the stencil's distinct control nodes, J = W ⊗ I₃ with W the 4 × c weight matrix, and a pair
//! energy E(y) maps as g_x = Jᵀ g_y, H_x = Jᵀ H⁺ J: the 12 × 12 stencil Hessian H projected to
//! PSD first, so that the mapped block (up to 24 × 24: two affine bodies, eight control nodes)
//! is PSD as a congruence of a PSD matrix. The step of the vertices is J times the step of the
//! control nodes, so the CCD of the mapped positions and steps bounds the control nodes' step.
//!
//! This is the mapping alone; pair types over it are not yet in the contact stage.

use crate::energy::Vec3;
use crate::energy::psd::project_in_place;

/// The most distinct control nodes a mapped stencil has: two affine bodies, four each.
pub const MAX_CONTROL: usize = 8;

/// Entries of a stencil Hessian over its four vertices: 12 × 12.
pub const STENCIL_HESSIAN: usize = 144;

/// Entries of the largest mapped Hessian: (3 · [`MAX_CONTROL`])² = 24 × 24.
pub const MAPPED_HESSIAN: usize = 9 * MAX_CONTROL * MAX_CONTROL;

/// One vertex of a stencil.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum StencilVertex {
    /// A node of the state vector (a tetrahedral body's vertex, an obstacle's fixed node).
    Node(usize),
    /// A vertex at Σⱼ `weights`ⱼ x_{`nodes`ⱼ} (an affine body's; weights dimensionless,
    /// summing to 1, of either sign).
    Embedded {
        /// The body's four control nodes.
        nodes: [usize; 4],
        /// The vertex's weights over them.
        weights: [f64; 4],
    },
}

/// Four stencil vertices mapped onto their distinct control nodes: yᵢ = Σₖ Wᵢₖ x_{cₖ}.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EmbeddedStencil {
    /// The distinct control nodes cₖ (the first [`EmbeddedStencil::count`] are used).
    controls: [usize; MAX_CONTROL],
    /// How many there are.
    count: usize,
    /// Wᵢₖ: the weight of control node k in vertex i (dimensionless).
    weights: [[f64; MAX_CONTROL]; 4],
}

impl EmbeddedStencil {
    /// The map of `vertices`, or `None` when they span more than [`MAX_CONTROL`] distinct
    /// nodes (more than two bodies: never for a pair of two bodies' primitives).
    pub fn new(vertices: [StencilVertex; 4]) -> Option<Self> {
        let mut s = EmbeddedStencil {
            controls: [0; MAX_CONTROL],
            count: 0,
            weights: [[0.0; MAX_CONTROL]; 4],
        };
        for (i, v) in vertices.iter().enumerate() {
            match *v {
                StencilVertex::Node(n) => s.add(i, n, 1.0)?,
                StencilVertex::Embedded { nodes, weights } => {
                    for (n, w) in nodes.into_iter().zip(weights) {
                        s.add(i, n, w)?;
                    }
                }
            }
        }
        Some(s)
    }

    fn add(&mut self, vertex: usize, node: usize, weight: f64) -> Option<()> {
        let k = match self.controls[..self.count].iter().position(|&c| c == node) {
            Some(k) => k,
            None => {
                if self.count == MAX_CONTROL {
                    return None;
                }
                self.controls[self.count] = node;
                self.count += 1;
                self.count - 1
            }
        };
        self.weights[vertex][k] += weight;
        Some(())
    }

    /// The distinct control nodes, in the order the mapped gradient and Hessian use.
    pub fn controls(&self) -> &[usize] {
        &self.controls[..self.count]
    }

    /// The four vertices' positions at `x` (or their step, for a step `x`), m.
    pub fn positions(&self, x: &[Vec3]) -> [Vec3; 4] {
        let mut y = [Vec3::zeros(); 4];
        for (yi, wi) in y.iter_mut().zip(&self.weights) {
            for k in 0..self.count {
                *yi += x[self.controls[k]] * wi[k];
            }
        }
        y
    }

    /// g_x = Jᵀ g_y: the gradient over the control nodes (into `out[..count]`) of one over the
    /// four vertices, in the units of `gy`.
    pub fn map_gradient(&self, gy: &[Vec3; 4], out: &mut [Vec3; MAX_CONTROL]) {
        for (k, o) in out.iter_mut().enumerate().take(self.count) {
            *o = Vec3::zeros();
            for (g, wi) in gy.iter().zip(&self.weights) {
                *o += g * wi[k];
            }
        }
    }

    /// H_x = Jᵀ H_y J: the 12 × 12 stencil Hessian `hy` (column-major) mapped onto the control
    /// nodes, (3·count)² entries column-major into `out`, in the units of `hy`. PSD where `hy`
    /// is (a congruence); [`EmbeddedStencil::map_projected_hessian`] projects first.
    pub fn map_hessian(&self, hy: &[f64], out: &mut [f64]) {
        let n = 3 * self.count;
        for l in 0..self.count {
            for b in 0..3 {
                for k in 0..self.count {
                    for a in 0..3 {
                        let mut s = 0.0;
                        for i in 0..4 {
                            let wik = self.weights[i][k];
                            if wik == 0.0 {
                                continue;
                            }
                            for j in 0..4 {
                                let wjl = self.weights[j][l];
                                if wjl != 0.0 {
                                    s += wik * wjl * hy[(3 * i + a) + 12 * (3 * j + b)];
                                }
                            }
                        }
                        out[(3 * k + a) + n * (3 * l + b)] = s;
                    }
                }
            }
        }
    }

    /// Friction's weights over the control nodes (into `out[..count]`, dimensionless): the
    /// relative velocity Σᵢ βᵢ ẏᵢ of a tangent frame's weights β over the four vertices
    /// (`contact::TangentFrame`) is Σₖ (Σᵢ βᵢ Wᵢₖ) ẋ_{cₖ}, so β_x = Wᵀ β (SPEC.md §7).
    pub fn map_weights(&self, beta: &[f64; 4], out: &mut [f64; MAX_CONTROL]) {
        out.fill(0.0);
        for (b, wi) in beta.iter().zip(&self.weights) {
            for k in 0..self.count {
                out[k] += b * wi[k];
            }
        }
    }

    /// `hy` projected to PSD in place, then mapped ([`EmbeddedStencil::map_hessian`]): the
    /// solver's block, PSD.
    pub fn map_projected_hessian(&self, hy: &mut [f64], out: &mut [f64]) {
        project_in_place(hy, 12);
        self.map_hessian(hy, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contact::distance::{edge_edge, point_triangle};
    use nalgebra::{DMatrix, Matrix3, SymmetricEigen};

    /// The log barrier b(d) = −(d − d̂)² ln(d/d̂) with d̂ = 0.1, and b′, b″, written out here.
    const DHAT: f64 = 0.1;
    fn b(d: f64) -> [f64; 3] {
        let (r, l) = (d - DHAT, (d / DHAT).ln());
        [
            -r * r * l,
            -2.0 * r * l - r * r / d,
            -2.0 * l - 4.0 * r / d + r * r / (d * d),
        ]
    }

    /// The rest control tetrahedron (0,0,0), (1,0,0), (0,1,0), (0,0,1): a rest point X has
    /// weights (1 − X₁ − X₂ − X₃, X₁, X₂, X₃).
    fn weights_of(x: Vec3) -> [f64; 4] {
        [1.0 - x.x - x.y - x.z, x.x, x.y, x.z]
    }

    /// Control nodes of an affine map x = A X + p placed at `nodes`.
    fn place(a: &Matrix3<f64>, p: Vec3, x: &mut [Vec3], nodes: [usize; 4]) {
        let rest = [Vec3::zeros(), Vec3::x(), Vec3::y(), Vec3::z()];
        for (n, r) in nodes.into_iter().zip(rest) {
            x[n] = a * r + p;
        }
    }

    fn embedded(nodes: [usize; 4], rest: Vec3) -> StencilVertex {
        StencilVertex::Embedded {
            nodes,
            weights: weights_of(rest),
        }
    }

    /// Body A's affine map: a turn of 0.2 rad about z with a small shear and stretch in z.
    fn body_a_map() -> Matrix3<f64> {
        let t = 0.2f64;
        Matrix3::new(
            t.cos(),
            -t.sin(),
            0.0,
            t.sin(),
            t.cos(),
            0.0,
            0.0,
            0.05,
            1.1,
        )
    }

    /// Body A (controls 0..4): a unit cube's corner region turned slightly and lifted; body B
    /// either affine (controls 4..8) or a tetrahedral body's nodes 8..11. Returns the state
    /// and the stencils: point–triangle (A's point over B's triangle) and edge–edge.
    fn scene(affine_b: bool) -> (Vec<Vec3>, EmbeddedStencil, EmbeddedStencil) {
        let mut x = vec![Vec3::zeros(); 11];
        let a = body_a_map();
        place(&a, Vec3::new(0.21, 0.17, 0.05), &mut x, [0, 1, 2, 3]);
        place(
            &Matrix3::identity(),
            Vec3::new(0.0, 0.0, -1.0),
            &mut x,
            [4, 5, 6, 7],
        );
        let top = [
            Vec3::new(0.0, 0.0, 1.0),
            Vec3::new(1.0, 0.0, 1.0),
            Vec3::new(0.0, 1.0, 1.0),
        ];
        for (k, r) in top.iter().enumerate() {
            x[8 + k] = r + Vec3::new(0.0, 0.0, -1.0);
        }
        let b_vertex = |k: usize| {
            if affine_b {
                embedded([4, 5, 6, 7], top[k])
            } else {
                StencilVertex::Node(8 + k)
            }
        };
        let point = embedded([0, 1, 2, 3], Vec3::new(0.1, 0.2, 0.0));
        let pt = EmbeddedStencil::new([point, b_vertex(0), b_vertex(1), b_vertex(2)]);
        // A's bottom edge along its rest x-axis, over B's top edge from corner 1 to corner 2.
        let ee = EmbeddedStencil::new([
            embedded([0, 1, 2, 3], Vec3::new(0.0, 0.3, 0.0)),
            embedded([0, 1, 2, 3], Vec3::new(0.6, 0.3, 0.0)),
            b_vertex(1),
            b_vertex(2),
        ]);
        (x, pt.expect("two bodies"), ee.expect("two bodies"))
    }

    type Kernel = fn(&[Vec3; 4], &mut [Vec3; 4], &mut [f64]) -> f64;

    fn pt_kernel(y: &[Vec3; 4], g: &mut [Vec3; 4], h: &mut [f64]) -> f64 {
        let t = [y[1], y[2], y[3]];
        *g = point_triangle::gradient(&y[0], &t);
        point_triangle::hessian(&y[0], &t, h);
        point_triangle::distance(&y[0], &t)
    }

    fn ee_kernel(y: &[Vec3; 4], g: &mut [Vec3; 4], h: &mut [f64]) -> f64 {
        *g = edge_edge::gradient(y);
        edge_edge::hessian(y, h);
        edge_edge::distance(y)
    }

    /// E(x) = b(d(J x)) with its mapped gradient and (unprojected) Hessian, through the map.
    fn energy(s: &EmbeddedStencil, kernel: Kernel, x: &[Vec3]) -> (f64, Vec<Vec3>, Vec<f64>) {
        let y = s.positions(x);
        let (mut gd, mut hd) = ([Vec3::zeros(); 4], [0.0; STENCIL_HESSIAN]);
        let d = kernel(&y, &mut gd, &mut hd);
        let [e, e1, e2] = b(d);
        let gy = gd.map(|g| g * e1);
        let mut hy = [0.0; STENCIL_HESSIAN];
        for c in 0..12 {
            for r in 0..12 {
                hy[r + 12 * c] = e1 * hd[r + 12 * c] + e2 * gd[r / 3][r % 3] * gd[c / 3][c % 3];
            }
        }
        let mut g = [Vec3::zeros(); MAX_CONTROL];
        s.map_gradient(&gy, &mut g);
        let mut h = vec![0.0; MAPPED_HESSIAN];
        s.map_hessian(&hy, &mut h);
        let n = 3 * s.controls().len();
        h.truncate(n * n);
        (e, g[..s.controls().len()].to_vec(), h)
    }

    /// The embedded vertices are where the affine map puts them (A X + p, written out here),
    /// and a tetrahedral body's nodes map to themselves.
    #[test]
    fn vertices_sit_at_the_affine_map() {
        let (x, pt, _) = scene(false);
        let a = body_a_map();
        let y = pt.positions(&x);
        let expected = a * Vec3::new(0.1, 0.2, 0.0) + Vec3::new(0.21, 0.17, 0.05);
        assert!((y[0] - expected).norm() < 1e-14);
        assert_eq!(y[1], x[8]);
        assert_eq!(pt.controls(), [0, 1, 2, 3, 8, 9, 10]);
    }

    /// Gradient and Hessian of b(d(J x)) over the control nodes against central differences
    /// of the energy and of the gradient, for affine–affine (24 DOF) and affine–tet (21 DOF)
    /// point–triangle and edge–edge stencils, with the pairs within d̂.
    #[test]
    fn mapped_derivatives_match_finite_differences() {
        for affine_b in [true, false] {
            let (x, pt, ee) = scene(affine_b);
            for (s, kernel) in [(pt, pt_kernel as Kernel), (ee, ee_kernel as Kernel)] {
                let d = kernel(&s.positions(&x), &mut [Vec3::zeros(); 4], &mut [0.0; 144]);
                assert!(d > 0.0 && d < DHAT, "the pair must be within d̂: {d}");
                let (_, g, h) = energy(&s, kernel, &x);
                let n = 3 * s.controls().len();
                let step = 1e-7;
                for c in 0..n {
                    let node = s.controls()[c / 3];
                    let shifted = |sign: f64| {
                        let mut xs = x.clone();
                        xs[node][c % 3] += sign * step;
                        energy(&s, kernel, &xs)
                    };
                    let (ep, gp, _) = shifted(1.0);
                    let (em, gm, _) = shifted(-1.0);
                    let fd = (ep - em) / (2.0 * step);
                    let scale = g.iter().map(|v| v.amax()).fold(1.0, f64::max);
                    assert!(
                        (fd - g[c / 3][c % 3]).abs() < 1e-6 * scale,
                        "gradient {c}: {fd} vs {}",
                        g[c / 3][c % 3]
                    );
                    let hscale = h.iter().fold(1.0f64, |m, v| m.max(v.abs()));
                    for r in 0..n {
                        let fd = (gp[r / 3][r % 3] - gm[r / 3][r % 3]) / (2.0 * step);
                        assert!(
                            (fd - h[r + n * c]).abs() < 1e-5 * hscale,
                            "hessian ({r}, {c}): {fd} vs {}",
                            h[r + n * c]
                        );
                    }
                }
            }
        }
    }

    /// The solver's block, Jᵀ H⁺ J, is PSD: its smallest eigenvalue ≥ −1e-9 ‖H‖ (checked by
    /// nalgebra's eigensolver on the mapped block).
    #[test]
    fn the_mapped_block_is_psd() {
        for affine_b in [true, false] {
            let (x, pt, ee) = scene(affine_b);
            for (s, kernel) in [(pt, pt_kernel as Kernel), (ee, ee_kernel as Kernel)] {
                let y = s.positions(&x);
                let (mut gd, mut hd) = ([Vec3::zeros(); 4], [0.0; STENCIL_HESSIAN]);
                let d = kernel(&y, &mut gd, &mut hd);
                let [_, e1, e2] = b(d);
                let mut hy = [0.0; STENCIL_HESSIAN];
                for c in 0..12 {
                    for r in 0..12 {
                        hy[r + 12 * c] =
                            e1 * hd[r + 12 * c] + e2 * gd[r / 3][r % 3] * gd[c / 3][c % 3];
                    }
                }
                let n = 3 * s.controls().len();
                let mut h = [0.0; MAPPED_HESSIAN];
                s.map_projected_hessian(&mut hy, &mut h);
                let m = DMatrix::from_column_slice(n, n, &h[..n * n]);
                let norm = m.norm();
                let min = SymmetricEigen::new(m).eigenvalues.min();
                assert!(norm > 0.0 && min >= -1e-9 * norm, "{min} vs ‖H‖ {norm}");
            }
        }
    }

    /// The step of the vertices is the map of the control nodes' step: a straight step of the
    /// control nodes moves each embedded vertex along a straight line (positions at α are
    /// y⁰ + α Δy), so CCD on the mapped positions and steps is CCD of the control nodes' step.
    #[test]
    fn the_step_maps_linearly() {
        let (x, pt, _) = scene(true);
        let p: Vec<Vec3> = (0..x.len())
            .map(|k| Vec3::new(0.01 * k as f64, -0.02, 0.03 * (k % 3) as f64))
            .collect();
        let (y0, dy) = (pt.positions(&x), pt.positions(&p));
        for alpha in [0.0, 0.3, 1.0] {
            let xa: Vec<Vec3> = x.iter().zip(&p).map(|(a, b)| a + b * alpha).collect();
            let ya = pt.positions(&xa);
            for i in 0..4 {
                assert!((ya[i] - (y0[i] + dy[i] * alpha)).norm() < 1e-14);
            }
        }
    }

    /// Friction's mapped weights give the vertices' relative velocity: Σₖ β_x,k ẋ_{cₖ} equals
    /// ẏ₀ − Σ wᵢ ẏᵢ of the point and the triangle's closest point, the vertices' velocities
    /// computed by the map of the control nodes' velocities (a rigid turn of body A, a
    /// translation of body B).
    #[test]
    fn mapped_friction_weights_give_the_relative_velocity() {
        let (x, pt, _) = scene(true);
        let omega = Vec3::new(0.3, -0.2, 1.1);
        let v: Vec<Vec3> = (0..x.len())
            .map(|k| {
                if k < 4 {
                    omega.cross(&x[k])
                } else {
                    Vec3::new(0.5, -0.1, 0.0)
                }
            })
            .collect();
        let vy = pt.positions(&v);
        let beta = [1.0, -0.2, -0.5, -0.3];
        let expected = vy[0] - vy[1] * 0.2 - vy[2] * 0.5 - vy[3] * 0.3;
        let mut bx = [0.0; MAX_CONTROL];
        pt.map_weights(&beta, &mut bx);
        let mapped = pt
            .controls()
            .iter()
            .zip(bx)
            .fold(Vec3::zeros(), |s, (&c, b)| s + v[c] * b);
        assert!((mapped - expected).norm() < 1e-14, "{mapped} vs {expected}");
        // The weights of each side sum to its β's sum: 1 for the point, −1 for the triangle.
        assert!((bx[..4].iter().sum::<f64>() - 1.0).abs() < 1e-14);
        assert!((bx[4..].iter().sum::<f64>() + 1.0).abs() < 1e-14);
    }

    /// More than two bodies' control nodes are refused, not truncated.
    #[test]
    fn a_stencil_over_three_bodies_is_refused() {
        let e = |k: usize| StencilVertex::Embedded {
            nodes: [4 * k, 4 * k + 1, 4 * k + 2, 4 * k + 3],
            weights: [0.25; 4],
        };
        assert!(EmbeddedStencil::new([e(0), e(1), e(2), e(2)]).is_none());
        assert!(EmbeddedStencil::new([e(0), e(1), e(1), e(1)]).is_some());
    }
}
