//! Hyperelastic FEM: the stable neo-Hookean of Smith, de Goes & Kim 2018 (SPEC.md §7), over
//! linear simplices in D = 2 (triangles, 3 nodes) or D = 3 (tetrahedra, 4 nodes), one code path.
//!
//! **Element.** Rest positions X₀ … X_D with Dm = [X₁ − X₀, …, X_D − X₀] (m), rest measure
//! V = det(Dm)/D! (area in 2D, m², volume in 3D, m³; > 0: the nodes in positive order). The
//! shape-function gradients Gₐ (1/m) are the rows of Dm⁻¹ for a = 1 … D and G₀ = −Σ Gₐ, so the
//! deformation gradient of positions x is F = Σₐ xₐ Gₐᵀ (constant over the element,
//! dimensionless). The element energy is V Ψ(F) (J; in 2D a thickness-free model: energy
//! density × area, i.e. per metre of thickness, matching the project's areal densities).
//!
//! **Energy density** (Pa = J/m^D), with J = det F and C = cof F = ∂J/∂F:
//!
//! Ψ(F) = μ/2 (‖F‖² − D) − μ (J − 1) + λ′/2 (J − 1)²
//! P = ∂Ψ/∂F = μ F + (λ′ (J − 1) − μ) C
//! ∂²Ψ/∂F² = μ I + λ′ vec C vec Cᵀ + (λ′ (J − 1) − μ) ∂²J/∂F²
//!
//! with ∂²J/∂F_ij∂F_kl = ε_ik ε_jl in 2D and Σ_mn ε_ikm ε_jln F_mn in 3D. Ψ is finite for every
//! F, inverted (J ≤ 0) included, has P(I) = 0 and P(R) = 0 for every rotation R (so zero
//! energy and force at rest, in any orientation), and needs no step filter.
//!
//! **Lamé parameters.** From Young's modulus E (Pa) and Poisson's ratio ν: μ = E/(2(1 + ν)),
//! λ = E ν/((1 + ν)(1 − 2ν)) (in 2D these are plane strain's). Small strain: with F = I + H,
//! ε = sym H, ‖F‖² − D = 2 tr H + ‖H‖² and J − 1 = tr H + ½((tr H)² − tr(H²)) + O(H³), so
//! Ψ = μ/2 (‖H‖² + tr(H²)) + (λ′ − μ)/2 (tr H)² + O(H³) = μ ‖ε‖² + (λ′ − μ)/2 (tr ε)² + O(H³)
//! (‖H‖² + tr(H²) = 2‖ε‖²). Linear elasticity's μ‖ε‖² + λ/2 (tr ε)² needs λ′ = λ + μ, the
//! reparameterisation used here.
//!
//! **Hessian.** ∂²(VΨ)/∂xₐ∂x_b = V Σ_jl Gₐⱼ (∂²Ψ/∂F_·j∂F_·l) G_bl. The solver's blocks
//! ([`Projection::Clamp`]) project ∂²Ψ/∂F² (D² × D²: 4 × 4 in 2D, 9 × 9 in 3D) to PSD
//! (negative eigenvalues clamped) before that map: Gᵀ K G with K PSD is PSD, so every element
//! block is. In 2D by eigen-decomposition of the 4 × 4; in 3D from the closed-form eigensystem
//! (`eigensystem.rs`); docs/model.md gives the measured costs.

pub mod eigensystem;

use nalgebra::SMatrix;
use serde::Serialize;

use super::psd::ProjectFixed;
pub use super::term::Projection;
use super::term::{Elements, Energy, StepState};
use super::{Matrix, Vector};
use crate::parallel;

/// Meshes with at least this many elements are evaluated in parallel (rayon).
pub const PARALLEL_ELEMENTS: usize = 1024;
/// Elements per parallel work item; fixed so that parallel sums are deterministic.
pub const CHUNK: usize = 256;

/// The largest ∂²Ψ/∂F², 9 × 9 (D = 3), column-major with index i + D j for F_ij.
type StressDerivative = [f64; 81];

/// An isotropic linear-elastic material's constants (case keys `youngs_modulus`,
/// `poisson_ratio`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Elasticity {
    /// Young's modulus E, Pa (> 0).
    pub youngs_modulus: f64,
    /// Poisson's ratio ν, dimensionless, in (−1, ½).
    pub poisson_ratio: f64,
}

impl Elasticity {
    /// The shear modulus μ = E/(2(1 + ν)), Pa.
    pub fn shear_modulus(&self) -> f64 {
        self.youngs_modulus / (2.0 * (1.0 + self.poisson_ratio))
    }

    /// Lamé's first parameter λ = E ν/((1 + ν)(1 − 2ν)), Pa.
    pub fn lame_lambda(&self) -> f64 {
        let nu = self.poisson_ratio;
        self.youngs_modulus * nu / ((1.0 + nu) * (1.0 - 2.0 * nu))
    }

    /// Whether E is finite and positive and ν in (−1, ½).
    pub fn is_valid(&self) -> bool {
        self.youngs_modulus.is_finite()
            && self.youngs_modulus > 0.0
            && self.poisson_ratio > -1.0
            && self.poisson_ratio < 0.5
    }
}

/// A neo-Hookean term that cannot be made: a mistake of the code that built it (meshes are
/// validated before, `scene::bodies`).
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum NeoHookeanError {
    /// An element whose rest measure is not positive and finite.
    #[error(
        "element {element}: rest measure {measure:e} m^D must be > 0 (nodes in positive order)"
    )]
    Degenerate {
        /// The element's index.
        element: usize,
        /// Its signed rest area or volume.
        measure: f64,
    },
    /// The node list is not D + 1 nodes per element.
    #[error("{len} nodes do not make elements of {k}")]
    Length {
        /// Nodes given.
        len: usize,
        /// Nodes per element.
        k: usize,
    },
    /// Constants out of range.
    #[error(
        "Young's modulus {youngs_modulus} Pa must be > 0 and Poisson's ratio {poisson_ratio} in (-1, 0.5)"
    )]
    Constants {
        /// E, Pa.
        youngs_modulus: f64,
        /// ν.
        poisson_ratio: f64,
    },
}

/// D! (the measure of the unit simplex is 1/D!).
const fn factorial(d: usize) -> f64 {
    match d {
        2 => 2.0,
        3 => 6.0,
        _ => panic!("D must be 2 or 3"),
    }
}

/// The cofactor matrix C = ∂(det F)/∂F (so that C = J F⁻ᵀ where F is invertible), defined for
/// every F.
#[inline]
pub fn cofactor<const D: usize>(f: &Matrix<D>) -> Matrix<D> {
    let mut c = Matrix::<D>::zeros();
    match D {
        2 => {
            c[(0, 0)] = f[(1, 1)];
            c[(1, 1)] = f[(0, 0)];
            c[(0, 1)] = -f[(1, 0)];
            c[(1, 0)] = -f[(0, 1)];
        }
        3 => {
            // ∂(f₀ · (f₁ × f₂))/∂f_j = f_{j+1} × f_{j+2} (columns f_j, indices mod 3).
            for j in 0..3 {
                let (a, b) = ((j + 1) % 3, (j + 2) % 3);
                let (fa, fb) = (f.column(a), f.column(b));
                c[(0, j)] = fa[1] * fb[2] - fa[2] * fb[1];
                c[(1, j)] = fa[2] * fb[0] - fa[0] * fb[2];
                c[(2, j)] = fa[0] * fb[1] - fa[1] * fb[0];
            }
        }
        _ => panic!("D must be 2 or 3"),
    }
    c
}

/// det F, for D = 2 or 3.
#[inline]
pub fn determinant<const D: usize>(f: &Matrix<D>) -> f64 {
    match D {
        2 => f[(0, 0)] * f[(1, 1)] - f[(0, 1)] * f[(1, 0)],
        3 => {
            f[(0, 0)] * (f[(1, 1)] * f[(2, 2)] - f[(1, 2)] * f[(2, 1)])
                - f[(0, 1)] * (f[(1, 0)] * f[(2, 2)] - f[(1, 2)] * f[(2, 0)])
                + f[(0, 2)] * (f[(1, 0)] * f[(2, 1)] - f[(1, 1)] * f[(2, 0)])
        }
        _ => panic!("D must be 2 or 3"),
    }
}

/// The Levi-Civita sign of the distinct indices (i, k) in 2D or (i, k, 3 − i − k) in 3D.
#[inline]
fn levi_civita<const D: usize>(i: usize, k: usize) -> f64 {
    let even = if D == 2 { i < k } else { k == (i + 1) % 3 };
    if even { 1.0 } else { -1.0 }
}

/// Adds s · ∂²J/∂F² to `out` (D² × D², column-major, index i + D j for F_ij):
/// ∂²J/∂F_ij∂F_kl = ε_ik ε_jl in 2D, ε_ikm ε_jln F_mn (m, n the third indices) in 3D; zero
/// when i = k or j = l.
#[inline]
fn add_det_hessian<const D: usize>(f: &Matrix<D>, s: f64, out: &mut StressDerivative) {
    let n = D * D;
    for l in 0..D {
        for k in 0..D {
            for j in 0..D {
                for i in 0..D {
                    if i == k || j == l {
                        continue;
                    }
                    let sign = levi_civita::<D>(i, k) * levi_civita::<D>(j, l);
                    let minor = if D == 2 {
                        1.0
                    } else {
                        f[(3 - i - k, 3 - j - l)]
                    };
                    out[(i + D * j) + n * (k + D * l)] += s * sign * minor;
                }
            }
        }
    }
}

/// Ψ(F), Pa (J/m^D), for shear modulus `mu` and λ′ = `lambda` (Pa, module comment).
#[inline]
pub fn energy_density<const D: usize>(f: &Matrix<D>, mu: f64, lambda: f64) -> f64 {
    let j = determinant(f);
    0.5 * mu * (f.norm_squared() - D as f64) - mu * (j - 1.0) + 0.5 * lambda * (j - 1.0) * (j - 1.0)
}

/// P(F) = ∂Ψ/∂F = μ F + (λ′(J − 1) − μ) cof F, Pa.
#[inline]
pub fn first_piola<const D: usize>(f: &Matrix<D>, mu: f64, lambda: f64) -> Matrix<D> {
    let j = determinant(f);
    f * mu + cofactor(f) * (lambda * (j - 1.0) - mu)
}

/// ∂²Ψ/∂F² (Pa) into `out[.. D⁴]`, column-major with index i + D j for F_ij.
#[inline]
fn stress_derivative<const D: usize>(
    f: &Matrix<D>,
    mu: f64,
    lambda: f64,
    out: &mut StressDerivative,
) {
    let n = D * D;
    let c = cofactor(f);
    let j = determinant(f);
    for b in 0..n {
        for a in 0..n {
            out[a + n * b] = lambda * c[(a % D, a / D)] * c[(b % D, b / D)];
        }
        out[b + n * b] += mu;
    }
    add_det_hessian(f, lambda * (j - 1.0) - mu, out);
}

/// ∂²Ψ/∂F² at `f` projected to PSD in place: in 2D by eigen-decomposition of the 4 × 4 matrix
/// (negative eigenvalues clamped; [`ProjectFixed`]), in 3D from its eigensystem in closed form
/// (`eigensystem.rs`, the same projection within rounding).
#[inline]
fn project_stress_derivative<const D: usize>(
    k: &mut StressDerivative,
    f: &Matrix<D>,
    mu: f64,
    lambda: f64,
) {
    match D {
        2 => {
            let mut m = SMatrix::<f64, 4, 4>::from_column_slice(&k[..16]);
            if m.project_psd() {
                k[..16].copy_from_slice(m.as_slice());
            }
        }
        3 => {
            let f3 = nalgebra::Matrix3::from_fn(|r, c| f[(r, c)]);
            eigensystem::project(k, &f3, mu, lambda);
        }
        _ => panic!("D must be 2 or 3"),
    }
}

/// ∂²Ψ/∂F² of the stable neo-Hookean at `f` (Pa), D² × D² column-major (index i + D j for F_ij),
/// projected to PSD when `project`: for tests and measurements.
pub fn stress_derivative_matrix<const D: usize>(
    f: &Matrix<D>,
    mu: f64,
    lambda: f64,
    project: bool,
) -> Vec<f64> {
    let mut k = [0.0; 81];
    stress_derivative(f, mu, lambda, &mut k);
    if project {
        project_stress_derivative::<D>(&mut k, f, mu, lambda);
    }
    k[..D * D * D * D].to_vec()
}

/// A tetrahedron's 12 × 12 block `scale` Gᵀ K G into `out` (column-major, local dof 3a + i,
/// N/m for `scale` in m³), from K's three parts without forming the 9 × 9 K: with
/// α = λ′(J − 1) − μ and wₐ = cof(F) Gₐ, the 3 × 3 block of nodes a, b is
///
/// μ (Gₐ · G_b) I + λ′ wₐ w_bᵀ + α S(F (Gₐ × G_b)),   S(v)ᵢₖ = εᵢₖᵣ vᵣ,
///
/// (∂²J/∂Fᵢⱼ∂Fₖₗ = εᵢₖᵣ εⱼₗₛ Fᵣₛ contracted with Gₐ,ⱼ G_b,ₗ), less λ (Q Gₐ)(Q G_b)ᵀ for every
/// negative flip or twist (λ, Q) when `project` (`eigensystem::project`'s
/// projection). False, with `out` untouched, where the projection needs the full eigensystem
/// (the scaling block not positive definite): the caller builds the block from K then.
fn tetrahedron_block(
    f: &nalgebra::Matrix3<f64>,
    g: &[nalgebra::Vector3<f64>; 4],
    mu: f64,
    lambda: f64,
    project: bool,
    scale: f64,
    out: &mut [f64],
) -> bool {
    use eigensystem::{NegativeModes, negative_modes};
    let negative = if project {
        match negative_modes(f, mu, lambda) {
            Some(m) => m,
            None => return false,
        }
    } else {
        NegativeModes::none()
    };
    let cof = cofactor(f);
    let alpha = lambda * (determinant(f) - 1.0) - mu;
    let w: [nalgebra::Vector3<f64>; 4] = std::array::from_fn(|a| cof * g[a]);
    // Q Gₐ for every negative mode and node.
    let mut qg = [[nalgebra::Vector3::zeros(); 4]; 6];
    for (m, (_, q)) in negative.pairs().iter().enumerate() {
        for a in 0..4 {
            qg[m][a] = q * g[a];
        }
    }
    for b in 0..4 {
        for a in b..4 {
            let mut block = nalgebra::Matrix3::from_diagonal_element(mu * g[a].dot(&g[b]))
                + w[a] * (w[b].transpose() * lambda);
            if a != b {
                let v = f * g[a].cross(&g[b]) * alpha;
                block[(0, 1)] += v[2];
                block[(1, 0)] -= v[2];
                block[(0, 2)] -= v[1];
                block[(2, 0)] += v[1];
                block[(1, 2)] += v[0];
                block[(2, 1)] -= v[0];
            }
            for (m, (l, _)) in negative.pairs().iter().enumerate() {
                block -= qg[m][a] * (qg[m][b].transpose() * *l);
            }
            for c in 0..3 {
                for r in 0..3 {
                    let value = scale * block[(r, c)];
                    out[12 * (3 * b + c) + 3 * a + r] = value;
                    out[12 * (3 * a + r) + 3 * b + c] = value;
                }
            }
        }
    }
    true
}

/// The rest measure (area in 2D, volume in 3D, m^D) of the simplex of D + 1 nodes `el` at rest
/// positions `x0` (m), with the gradients Gₐ of its linear shape functions (1/m, G₀ = −Σ Gₐ,
/// from Dm⁻¹ = cof(Dm)ᵀ / det Dm) appended to `out`; `Err` with the measure, nothing appended,
/// where it is not positive and finite (degenerate or in negative order). Shared by the terms
/// over simplices (this one, `energy::orthogonality`).
pub fn simplex_shape_gradients<const D: usize>(
    el: &[usize],
    x0: &[Vector<D>],
    out: &mut Vec<Vector<D>>,
) -> Result<f64, f64> {
    let dm = Matrix::<D>::from_fn(|r, c| x0[el[c + 1]][r] - x0[el[0]][r]);
    let det = determinant(&dm);
    let measure = det / factorial(D);
    if !(measure > 0.0 && measure.is_finite()) {
        return Err(measure);
    }
    let inverse = cofactor(&dm).transpose() / det;
    let g: Vec<Vector<D>> = (0..D).map(|a| inverse.row(a).transpose()).collect();
    out.push(-g.iter().sum::<Vector<D>>());
    out.extend(g);
    Ok(measure)
}

/// F = Σₐ xₐ Gₐᵀ of the simplex of nodes `el` with shape gradients `g` (1/m) at `x` (m).
#[inline]
pub fn simplex_deformation_gradient<const D: usize>(
    el: &[usize],
    g: &[Vector<D>],
    x: &[Vector<D>],
) -> Matrix<D> {
    let mut f = Matrix::<D>::zeros();
    for (&node, ga) in el.iter().zip(g) {
        f += x[node] * ga.transpose();
    }
    f
}

/// The stable neo-Hookean as a term of E: Σ Vₑ Ψ(Fₑ) over the elements (simplices of D + 1
/// nodes).
#[derive(Clone, Debug)]
pub struct NeoHookean<const D: usize> {
    /// The nodes, D + 1 per element, in positive order.
    nodes: Vec<usize>,
    /// Gₐ of every element, D + 1 per element, 1/m.
    shape_gradients: Vec<Vector<D>>,
    /// Rest area (2D, m²) or volume (3D, m³) of every element.
    rest_measure: Vec<f64>,
    /// μ, Pa.
    mu: f64,
    /// λ′ = λ + μ, Pa (module comment).
    lambda: f64,
    /// How the element Hessian is made PSD.
    projection: Projection,
}

impl<const D: usize> NeoHookean<D> {
    /// The term over the simplices `nodes` (D + 1 node indices per element, each in positive
    /// order at rest: counter-clockwise triangles, tetrahedra with (X₁ − X₀)·((X₂ − X₀) ×
    /// (X₃ − X₀)) > 0) with rest positions `x0` (m), material `elasticity` and Hessian
    /// `projection`.
    pub fn new(
        nodes: Vec<usize>,
        x0: &[Vector<D>],
        elasticity: Elasticity,
        projection: Projection,
    ) -> Result<Self, NeoHookeanError> {
        const { assert!(D == 2 || D == 3, "the neo-Hookean term is for D = 2 or 3") };
        let k = D + 1;
        if !nodes.len().is_multiple_of(k) {
            return Err(NeoHookeanError::Length {
                len: nodes.len(),
                k,
            });
        }
        if !elasticity.is_valid() {
            return Err(NeoHookeanError::Constants {
                youngs_modulus: elasticity.youngs_modulus,
                poisson_ratio: elasticity.poisson_ratio,
            });
        }
        let mut shape_gradients = Vec::with_capacity(nodes.len());
        let mut rest_measure = Vec::with_capacity(nodes.len() / k);
        for (e, el) in nodes.chunks_exact(k).enumerate() {
            let measure =
                simplex_shape_gradients(el, x0, &mut shape_gradients).map_err(|measure| {
                    NeoHookeanError::Degenerate {
                        element: e,
                        measure,
                    }
                })?;
            rest_measure.push(measure);
        }
        let mu = elasticity.shear_modulus();
        Ok(NeoHookean {
            nodes,
            shape_gradients,
            rest_measure,
            mu,
            lambda: elasticity.lame_lambda() + mu,
            projection,
        })
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.rest_measure.len()
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.rest_measure.is_empty()
    }

    /// The rest area (2D, m²) or volume (3D, m³) of every element.
    pub fn rest_measures(&self) -> &[f64] {
        &self.rest_measure
    }

    /// F of element `e` at `x`.
    #[inline]
    pub fn deformation_gradient(&self, x: &[Vector<D>], e: usize) -> Matrix<D> {
        let k = D + 1;
        simplex_deformation_gradient(
            &self.nodes[k * e..k * e + k],
            &self.shape_gradients[k * e..k * e + k],
            x,
        )
    }

    /// J = det F of every element at `x` (the ratio of its area or volume to its rest one;
    /// ≤ 0 where it is inverted).
    pub fn volume_ratios(&self, x: &[Vector<D>]) -> Vec<f64> {
        (0..self.len())
            .map(|e| determinant(&self.deformation_gradient(x, e)))
            .collect()
    }

    /// w V Ψ(F) of element e, J.
    #[inline]
    fn element_value(&self, x: &[Vector<D>], e: usize) -> f64 {
        let f = self.deformation_gradient(x, e);
        self.rest_measure[e] * energy_density(&f, self.mu, self.lambda)
    }

    /// w V P Gₐ of element e's nodes into `out` (D + 1 vectors), N.
    #[inline]
    fn element_gradient(&self, x: &[Vector<D>], e: usize, weight: f64, out: &mut [Vector<D>]) {
        let k = D + 1;
        let f = self.deformation_gradient(x, e);
        let p = first_piola(&f, self.mu, self.lambda) * (weight * self.rest_measure[e]);
        for (a, o) in out.iter_mut().enumerate() {
            *o = p * self.shape_gradients[k * e + a];
        }
    }

    /// w V Gᵀ K G of element e into `out` ((D(D + 1))², column-major, local dof D a + i), with
    /// K = ∂²Ψ/∂F², projected to PSD when `project`, N/m.
    #[inline]
    fn element_hessian(
        &self,
        x: &[Vector<D>],
        e: usize,
        weight: f64,
        project: bool,
        out: &mut [f64],
    ) {
        let k = D + 1;
        let (n, dofs) = (D * D, D * k);
        let f = self.deformation_gradient(x, e);
        let scale = weight * self.rest_measure[e];
        if D == 3 {
            let f3 = nalgebra::Matrix3::from_fn(|r, c| f[(r, c)]);
            let g: [nalgebra::Vector3<f64>; 4] = std::array::from_fn(|a| {
                nalgebra::Vector3::from_fn(|r, _| self.shape_gradients[k * e + a][r])
            });
            if tetrahedron_block(&f3, &g, self.mu, self.lambda, project, scale, out) {
                return;
            }
        }
        let mut kf = [0.0; 81];
        stress_derivative(&f, self.mu, self.lambda, &mut kf);
        if project {
            project_stress_derivative::<D>(&mut kf, &f, self.mu, self.lambda);
        }
        let g = &self.shape_gradients[k * e..k * e + k];
        // Nodes 1..=D first: KG[(i + D j), (D (b − 1) + m)] = Σ_l K[(i + D j), (m + D l)] G_b,l.
        let inner = D * D;
        let mut kg = [0.0; 81];
        for (b, gb) in g.iter().enumerate().skip(1) {
            for m in 0..D {
                let col = D * (b - 1) + m;
                for r in 0..n {
                    let mut s = 0.0;
                    for l in 0..D {
                        s += kf[r + n * (m + D * l)] * gb[l];
                    }
                    kg[r + n * col] = s;
                }
            }
        }
        // Their block's lower triangle, Σ_j G_a,j KG[(i + D j), col], mirrored (the block is
        // symmetric: K is).
        for col in 0..inner {
            for row in col..inner {
                let (a, i) = (row / D + 1, row % D);
                let mut s = 0.0;
                for j in 0..D {
                    s += g[a][j] * kg[(i + D * j) + n * col];
                }
                out[dofs * (col + D) + row + D] = scale * s;
                out[dofs * (row + D) + col + D] = scale * s;
            }
        }
        // Node 0: G₀ = −Σ_{a ≥ 1} Gₐ (as `new` builds it), so its rows are the negated sums of
        // the other nodes' rows, its columns the same by symmetry, and its diagonal block the
        // negated sum of its row's other blocks.
        for col in D..dofs {
            for i in 0..D {
                let s: f64 = -(1..k).map(|a| out[dofs * col + D * a + i]).sum::<f64>();
                out[dofs * col + i] = s;
                out[dofs * i + col] = s;
            }
        }
        for m in 0..D {
            for i in m..D {
                let s: f64 = -(1..k).map(|b| out[dofs * (D * b + m) + i]).sum::<f64>();
                out[dofs * m + i] = s;
                out[dofs * i + m] = s;
            }
        }
    }

    /// Every element's block into `out`, projected when `project`; large meshes in parallel.
    fn blocks(&self, x: &[Vector<D>], weight: f64, project: bool, out: &mut [f64]) {
        let dofs = D * (D + 1);
        let f = |e, out: &mut [f64]| self.element_hessian(x, e, weight, project, out);
        if self.len() < PARALLEL_ELEMENTS {
            out.chunks_exact_mut(dofs * dofs)
                .enumerate()
                .for_each(|(e, out)| f(e, out));
        } else {
            parallel::for_each_chunk(out, dofs * dofs, CHUNK, f);
        }
    }
}

impl<const D: usize> Energy<D> for NeoHookean<D> {
    fn name(&self) -> &'static str {
        "neo-Hookean"
    }

    fn elements(&self) -> Elements<'_> {
        Elements::Tuples {
            k: D + 1,
            nodes: &self.nodes,
        }
    }

    /// w Σ V Ψ(F), J; large meshes summed in fixed chunks of [`CHUNK`] elements
    /// (deterministic).
    fn value(&self, x: &[Vector<D>], _step: &StepState<D>, weight: f64) -> f64 {
        let n = self.len();
        if n < PARALLEL_ELEMENTS {
            return weight * (0..n).map(|e| self.element_value(x, e)).sum::<f64>();
        }
        weight
            * parallel::chunked_sum(n, CHUNK, |r| {
                r.map(|e| self.element_value(x, e)).sum::<f64>()
            })
    }

    /// w V P Gₐ per element node, N.
    fn gradient(&self, x: &[Vector<D>], _step: &StepState<D>, weight: f64, out: &mut [Vector<D>]) {
        let k = D + 1;
        let f = |e, out: &mut [Vector<D>]| self.element_gradient(x, e, weight, out);
        if self.len() < PARALLEL_ELEMENTS {
            out.chunks_exact_mut(k)
                .enumerate()
                .for_each(|(e, out)| f(e, out));
        } else {
            parallel::for_each_chunk(out, k, CHUNK, f);
        }
    }

    /// w V Gᵀ K G per element, K = ∂²Ψ/∂F² projected as configured, N/m.
    fn hessian(&self, x: &[Vector<D>], _step: &StepState<D>, weight: f64, out: &mut [f64]) {
        self.blocks(x, weight, self.projection == Projection::Clamp, out);
    }

    fn hessian_is_psd(&self) -> bool {
        self.projection == Projection::Clamp
    }

    fn psd_hessian(&self, x: &[Vector<D>], _step: &StepState<D>, weight: f64, out: &mut [f64]) {
        self.blocks(x, weight, true, out);
    }

    /// Meshes of [`PARALLEL_ELEMENTS`] or more whose blocks are projected (`Clamp`: no
    /// fallback projection replaces them later).
    fn assembles_by_element(&self) -> bool {
        self.len() >= PARALLEL_ELEMENTS && self.projection == Projection::Clamp
    }

    fn element_block(
        &self,
        x: &[Vector<D>],
        _step: &StepState<D>,
        weight: f64,
        e: usize,
        out: &mut [f64],
    ) {
        self.element_hessian(x, e, weight, self.projection == Projection::Clamp, out);
    }

    fn depends_on_step(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{DMatrix, Rotation2, Rotation3, SymmetricEigen};

    fn lcg(seed: &mut u64) -> f64 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((*seed >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }

    const STEEL_LIKE: Elasticity = Elasticity {
        youngs_modulus: 1e6,
        poisson_ratio: 0.3,
    };

    fn state<const D: usize>() -> StepState<'static, D> {
        StepState {
            x_tilde: &[],
            x_n: &[],
            h: 0.01,
            time: 0.0,
        }
    }

    /// A rest rotation of D dimensions (in 3D about an oblique axis).
    fn rotation<const D: usize>(angle: f64) -> Matrix<D> {
        let mut r = Matrix::<D>::identity();
        if D == 2 {
            r.copy_from(&Matrix::<D>::from_column_slice(
                Rotation2::new(angle).matrix().as_slice(),
            ));
        } else {
            let axis = nalgebra::Unit::new_normalize(nalgebra::Vector3::new(0.3, -0.5, 0.8));
            r.copy_from(&Matrix::<D>::from_column_slice(
                Rotation3::from_axis_angle(&axis, angle).matrix().as_slice(),
            ));
        }
        r
    }

    /// Two elements sharing a facet: a unit right simplex and one on its far side, nodes in
    /// positive order (checked by `new`).
    fn two_elements<const D: usize>() -> (Vec<Vector<D>>, Vec<usize>) {
        let mut x0: Vec<Vector<D>> = vec![Vector::<D>::zeros()];
        for a in 0..D {
            let mut e = Vector::<D>::zeros();
            e[a] = 1.0;
            x0.push(e);
        }
        x0.push(Vector::<D>::repeat(0.8));
        let mut nodes: Vec<usize> = (0..=D).collect();
        // The second element: the facet 1..=D and the far node, ordered positively.
        let mut second: Vec<usize> = (1..=D).collect();
        second.push(D + 1);
        let dm = Matrix::<D>::from_fn(|r, c| x0[second[c + 1]][r] - x0[second[0]][r]);
        if determinant(&dm) < 0.0 {
            second.swap(0, 1);
        }
        nodes.extend(second);
        (x0, nodes)
    }

    fn gradient_of<const D: usize>(t: &NeoHookean<D>, x: &[Vector<D>]) -> Vec<Vector<D>> {
        let mut buf = vec![Vector::<D>::zeros(); t.elements().gradient_len()];
        t.gradient(x, &state(), 1.0, &mut buf);
        let mut g = vec![Vector::<D>::zeros(); x.len()];
        crate::energy::term::scatter_gradient(t.elements(), &buf, &mut g);
        g
    }

    fn hessian_of<const D: usize>(t: &NeoHookean<D>, x: &[Vector<D>]) -> DMatrix<f64> {
        let el = t.elements();
        let dofs = D * (D + 1);
        let mut buf = vec![0.0; el.hessian_len(D)];
        t.hessian(x, &state(), 1.0, &mut buf);
        let mut h = DMatrix::zeros(D * x.len(), D * x.len());
        for e in 0..el.len() {
            for c in 0..dofs {
                for r in 0..dofs {
                    h[(D * el.node(e, r / D) + r % D, D * el.node(e, c / D) + c % D)] +=
                        buf[dofs * dofs * e + dofs * c + r];
                }
            }
        }
        h
    }

    /// P against central differences of Ψ and ∂²Ψ/∂F² against central differences of P, at
    /// random F: stretched, compressed and inverted (J < 0). δ = 1e-6 on entries of order 1:
    /// truncation ~δ²|Ψ‴| ~ 1e-12 E, rounding ~ε E/δ ~ 1e-10 E, against derivatives of order E.
    fn kernels_match_finite_differences<const D: usize>() {
        let (mu, lambda) = (
            STEEL_LIKE.shear_modulus(),
            STEEL_LIKE.lame_lambda() + STEEL_LIKE.shear_modulus(),
        );
        let mut s = 17;
        let delta = 1e-6;
        let mut inverted = 0;
        for sample in 0..20 {
            let mut f = Matrix::<D>::identity() + Matrix::<D>::from_fn(|_, _| 0.5 * lcg(&mut s));
            if sample % 2 == 0 {
                // Every other one mirrored: J < 0.
                f.column_mut(0).neg_mut();
            }
            inverted += (determinant(&f) < 0.0) as usize;
            let p = first_piola(&f, mu, lambda);
            let k = stress_derivative_matrix(&f, mu, lambda, false);
            let n = D * D;
            for b in 0..n {
                let mut fp = f;
                fp[(b % D, b / D)] += delta;
                let mut fm = f;
                fm[(b % D, b / D)] -= delta;
                let fd = (energy_density(&fp, mu, lambda) - energy_density(&fm, mu, lambda))
                    / (2.0 * delta);
                assert!(
                    (p[(b % D, b / D)] - fd).abs() <= 1e-6 * mu,
                    "D = {D}: P entry {b}"
                );
                let dp =
                    (first_piola(&fp, mu, lambda) - first_piola(&fm, mu, lambda)) / (2.0 * delta);
                for a in 0..n {
                    assert!(
                        (k[a + n * b] - dp[(a % D, a / D)]).abs() <= 1e-6 * mu,
                        "D = {D}: dP/dF ({a}, {b})"
                    );
                }
            }
        }
        assert!(inverted > 0, "some F inverted");
    }

    #[test]
    fn stress_and_its_derivative_match_finite_differences() {
        kernels_match_finite_differences::<2>();
        kernels_match_finite_differences::<3>();
    }

    /// At rest, and rigidly moved (turned and shifted), Ψ and the force vanish: exactly up to
    /// rounding of terms of order μ (1e-9 of μ V for the energy, of μ |G| V for the force).
    fn zero_at_rest_in_any_placement<const D: usize>() {
        let (x0, nodes) = two_elements::<D>();
        let t = NeoHookean::<D>::new(nodes, &x0, STEEL_LIKE, Projection::Clamp).unwrap();
        let mu = STEEL_LIKE.shear_modulus();
        for angle in [0.0, 0.4, 2.5] {
            let r = rotation::<D>(angle);
            let shift = Vector::<D>::from_fn(|i, _| 3.0 - i as f64);
            let x: Vec<Vector<D>> = x0.iter().map(|p| r * p + shift).collect();
            let e = t.value(&x, &state(), 1.0);
            assert!(e.abs() <= 1e-9 * mu, "D = {D}, angle {angle}: energy {e}");
            for g in gradient_of(&t, &x) {
                assert!(g.amax() <= 1e-9 * mu, "D = {D}, angle {angle}: force {g}");
            }
        }
    }

    #[test]
    fn zero_energy_and_force_at_rest_turned_and_shifted() {
        zero_at_rest_in_any_placement::<2>();
        zero_at_rest_in_any_placement::<3>();
    }

    /// A deformed state turned by R and shifted: the energy is the same, the force on every
    /// node is R times the old one, the Hessian R H Rᵀ block by block (both projections); and
    /// per element the forces sum to zero (no net force) and their moment about the origin to
    /// zero (no net torque, in 2D the scalar x × f): translation and rotation invariance seen
    /// from the forces. Tolerances: 1e-12 relative, rounding of sums of a few terms.
    fn invariant_under_rigid_motions<const D: usize>() {
        let (x0, nodes) = two_elements::<D>();
        let mut s = 5;
        let x: Vec<Vector<D>> = x0
            .iter()
            .map(|p| p * 1.1 + Vector::<D>::from_fn(|_, _| 0.15 * lcg(&mut s)))
            .collect();
        for projection in [Projection::None, Projection::Clamp] {
            let t = NeoHookean::<D>::new(nodes.clone(), &x0, STEEL_LIKE, projection).unwrap();
            let (e, g, h) = (
                t.value(&x, &state(), 1.0),
                gradient_of(&t, &x),
                hessian_of(&t, &x),
            );
            let r = rotation::<D>(1.1);
            let shift = Vector::<D>::from_fn(|i, _| -2.0 + i as f64);
            let y: Vec<Vector<D>> = x.iter().map(|p| r * p + shift).collect();
            let (ey, gy, hy) = (
                t.value(&y, &state(), 1.0),
                gradient_of(&t, &y),
                hessian_of(&t, &y),
            );
            assert!(
                (e - ey).abs() <= 1e-12 * e.abs(),
                "D = {D}: energy {e} vs {ey}"
            );
            let gmax = g.iter().map(|v| v.amax()).fold(0.0, f64::max);
            for (a, b) in g.iter().zip(&gy) {
                assert!((r * a - b).amax() <= 1e-12 * gmax, "D = {D}: force rotates");
            }
            let n = x.len();
            let mut big = DMatrix::<f64>::zeros(D * n, D * n);
            for i in 0..n {
                big.view_mut((D * i, D * i), (D, D)).copy_from(&r);
            }
            let rotated = &big * &h * big.transpose();
            assert!(
                (rotated - &hy).amax() <= 1e-12 * h.amax(),
                "D = {D}, {projection:?}: Hessian rotates"
            );
            let net: Vector<D> = g.iter().sum();
            assert!(net.amax() <= 1e-12 * gmax, "D = {D}: net force {net}");
            let torque: f64 = if D == 2 {
                x.iter()
                    .zip(&g)
                    .map(|(p, f)| p[0] * f[1] - p[1] * f[0])
                    .sum()
            } else {
                let t = x
                    .iter()
                    .zip(&g)
                    .fold(nalgebra::Vector3::zeros(), |acc, (p, f)| {
                        acc + nalgebra::Vector3::new(p[0], p[1], p[2])
                            .cross(&nalgebra::Vector3::new(f[0], f[1], f[2]))
                    });
                t.amax()
            };
            assert!(
                torque.abs() <= 1e-12 * gmax * 3.0,
                "D = {D}: net torque {torque}"
            );
        }
    }

    #[test]
    fn rigid_motions_leave_energy_unchanged_and_rotate_forces_and_hessians() {
        invariant_under_rigid_motions::<2>();
        invariant_under_rigid_motions::<3>();
    }

    /// Uniaxial stress against linear elasticity. Stretch one element along x by F₁₁ = 1 + e
    /// and let it contract freely across (F = diag(1 + e, s[, s]) with s solving P₂₂ = 0 by
    /// Newton, P₂₂ being also P₃₃ by symmetry). Linear elasticity with the same μ and λ gives,
    /// from σ₂₂ (= σ₃₃) = 0:
    /// * 3D: ε₂₂ = −ν e, σ₁₁ = E e, energy density E e²/2;
    /// * 2D (plane strain, the Lamé of the module comment): 2μ ε₂₂ + λ(e + ε₂₂) = 0 gives
    ///   ε₂₂ = −λ/(λ + 2μ) e = −ν/(1 − ν) e and σ₁₁ = 4μ(λ + μ)/(λ + 2μ) e = E/(1 − ν²) e,
    ///   energy density E e²/(2(1 − ν²)).
    ///
    /// The finite-strain model differs by O(e) relatively (its third derivatives over its
    /// second, a few units for these ν), so at e = 1e-4 each ratio is within 1e-3 of linear
    /// elasticity's, and for ν > 0 the error falls about tenfold at e = 1e-5 (first order). At
    /// ν = 0 (λ′ = μ) the model is exact to O(e²) at s = 1: Ψ = μ e² = E e²/2 and P₁₁ = 2μ e
    /// = E e in both dimensions, so only rounding (ε μ/(μ e²) ≈ 1e-6 at e = 1e-5) is left to shrink.
    fn small_strain_uniaxial_stress<const D: usize>() {
        for nu in [0.0, 0.3, 0.45] {
            let m = Elasticity {
                youngs_modulus: 2e5,
                poisson_ratio: nu,
            };
            let (mu, lambda) = (m.shear_modulus(), m.lame_lambda());
            let (modulus, lateral) = if D == 3 {
                (m.youngs_modulus, -nu)
            } else {
                (m.youngs_modulus / (1.0 - nu * nu), -nu / (1.0 - nu))
            };
            let mut errors = Vec::new();
            for e in [1e-4, 1e-5] {
                let f_of = |s: f64| {
                    Matrix::<D>::from_fn(|i, j| {
                        if i != j {
                            0.0
                        } else if i == 0 {
                            1.0 + e
                        } else {
                            s
                        }
                    })
                };
                let lambda_stable = lambda + mu;
                let mut s = 1.0;
                for _ in 0..20 {
                    let f = f_of(s);
                    let p = first_piola(&f, mu, lambda_stable)[(1, 1)];
                    // dP₂₂/ds: the sum of the F₂₂ and (3D) F₃₃ columns of ∂²Ψ/∂F² at row P₂₂.
                    let k = stress_derivative_matrix(&f, mu, lambda_stable, false);
                    let n = D * D;
                    let row = 1 + D;
                    let mut dp = k[row + n * row];
                    if D == 3 {
                        dp += k[row + n * (2 + 3 * 2)];
                    }
                    s -= p / dp;
                }
                let f = f_of(s);
                let p = first_piola(&f, mu, lambda_stable);
                assert!(p[(1, 1)].abs() <= 1e-12 * mu, "free across");
                let rel = [
                    (p[(0, 0)] / e) / modulus - 1.0,
                    ((s - 1.0) / e) / lateral.min(-1e-300) - 1.0,
                    energy_density(&f, mu, lambda_stable) / (modulus * e * e / 2.0) - 1.0,
                ];
                let rel = if nu == 0.0 {
                    // ν = 0: no contraction at all (s = 1 up to O(e²)).
                    assert!((s - 1.0).abs() <= 10.0 * e * e, "D = {D}: s = {s}");
                    [rel[0], 0.0, rel[2]]
                } else {
                    rel
                };
                for r in rel {
                    assert!(r.abs() <= 10.0 * e, "D = {D}, ν = {nu}, e = {e}: {rel:?}");
                }
                errors.push(rel.iter().fold(0.0f64, |m, r| m.max(r.abs())));
            }
            if nu > 0.0 {
                assert!(
                    errors[1] <= 0.2 * errors[0],
                    "D = {D}, ν = {nu}: first-order convergence {errors:?}"
                );
            }
        }
    }

    #[test]
    fn small_strain_uniaxial_stress_matches_linear_elasticity() {
        small_strain_uniaxial_stress::<2>();
        small_strain_uniaxial_stress::<3>();
    }

    /// The solver's blocks are PSD where the exact ones are not (a squashed, sheared element),
    /// and at a pure stretch (exact blocks PSD) the projection changes only rounding.
    fn projection_is_psd<const D: usize>() {
        let (x0, nodes) = two_elements::<D>();
        let exact = NeoHookean::<D>::new(nodes.clone(), &x0, STEEL_LIKE, Projection::None).unwrap();
        let clamped = NeoHookean::<D>::new(nodes, &x0, STEEL_LIKE, Projection::Clamp).unwrap();
        let min_rel = |h: &DMatrix<f64>| {
            let eig = SymmetricEigen::new((h + h.transpose()) * 0.5).eigenvalues;
            eig.min() / eig.amax()
        };
        let squash: Vec<Vector<D>> = x0
            .iter()
            .map(|p| {
                let mut q = *p * 0.4;
                q[0] += 0.5 * p[D - 1];
                q
            })
            .collect();
        assert!(min_rel(&hessian_of(&exact, &squash)) < -1e-3);
        assert!(min_rel(&hessian_of(&clamped, &squash)) >= -1e-12);
        let stretch: Vec<Vector<D>> = x0.iter().map(|p| p * 1.2).collect();
        let (a, b) = (hessian_of(&exact, &stretch), hessian_of(&clamped, &stretch));
        assert!(min_rel(&a) >= -1e-12, "a uniform stretch is a stable state");
        assert!((a - &b).amax() <= 1e-10 * b.amax());
    }

    #[test]
    fn projected_blocks_are_psd() {
        projection_is_psd::<2>();
        projection_is_psd::<3>();
    }

    /// A tetrahedron's block from K's parts (`tetrahedron_block`) against Bᵀ K B with the 9 × 9
    /// K of `stress_derivative_matrix` (projected by `eigensystem::project` where
    /// asked) and B the map from node displacements to δF (B₍ᵢ₊₃ⱼ₎,₍₃ₐ₊ₘ₎ = δᵢₘ Gₐ,ⱼ), at random
    /// tetrahedra and F's near rest, stretched, compressed and inverted: equal within rounding
    /// (1e-12 of the block's largest entry). Where the scaling block is not positive definite
    /// the direct path declines and leaves `out` alone; both kinds occur.
    #[test]
    fn tetrahedron_blocks_from_the_parts_of_k_equal_gt_k_g() {
        use nalgebra::{DMatrix, Matrix3, Vector3};
        let (mu, lambda) = (
            STEEL_LIKE.shear_modulus(),
            STEEL_LIKE.lame_lambda() + STEEL_LIKE.shear_modulus(),
        );
        let mut s = 23;
        let (mut direct, mut declined) = (0, 0);
        for sample in 0..200 {
            let spread = [0.002, 0.1, 0.5, 0.9][sample % 4];
            let mut f = Matrix3::identity() + Matrix3::from_fn(|_, _| spread * lcg(&mut s));
            if sample % 7 == 0 {
                f.column_mut(0).neg_mut();
            }
            let g1 = Vector3::from_fn(|_, _| lcg(&mut s) + 1.5);
            let g2 = Vector3::from_fn(|_, _| 2.0 * lcg(&mut s));
            let g3 = Vector3::from_fn(|_, _| 2.0 * lcg(&mut s));
            let g = [-(g1 + g2 + g3), g1, g2, g3];
            let b = DMatrix::from_fn(9, 12, |r, c| {
                let (i, j, a, m) = (r % 3, r / 3, c / 3, c % 3);
                if i == m { g[a][j] } else { 0.0 }
            });
            for project in [false, true] {
                let k = DMatrix::from_column_slice(
                    9,
                    9,
                    &stress_derivative_matrix::<3>(&f, mu, lambda, project),
                );
                let expected = b.transpose() * k * &b * 0.7;
                let mut out = [f64::NAN; 144];
                if !tetrahedron_block(&f, &g, mu, lambda, project, 0.7, &mut out) {
                    assert!(project, "the unprojected block is always direct");
                    assert!(out.iter().all(|v| v.is_nan()), "out touched");
                    declined += 1;
                    continue;
                }
                direct += 1;
                let got = DMatrix::from_column_slice(12, 12, &out);
                let err = (&got - &expected).amax();
                assert!(
                    err <= 1e-12 * expected.amax(),
                    "sample {sample}, project {project}: {err} of {}",
                    expected.amax()
                );
            }
        }
        assert!(
            direct > 100 && declined > 0,
            "{direct} direct, {declined} declined"
        );
    }

    #[test]
    fn degenerate_and_clockwise_elements_are_refused() {
        let x0 = [
            Vector::<2>::new(0.0, 0.0),
            Vector::<2>::new(1.0, 0.0),
            Vector::<2>::new(0.0, 1.0),
            Vector::<2>::new(2.0, 0.0),
        ];
        let clockwise = NeoHookean::<2>::new(vec![0, 2, 1], &x0, STEEL_LIKE, Projection::Clamp);
        assert!(matches!(
            clockwise,
            Err(NeoHookeanError::Degenerate { element: 0, .. })
        ));
        let flat = NeoHookean::<2>::new(vec![0, 1, 2, 0, 1, 3], &x0, STEEL_LIKE, Projection::Clamp);
        assert!(matches!(
            flat,
            Err(NeoHookeanError::Degenerate { element: 1, .. })
        ));
        let bad = Elasticity {
            youngs_modulus: 1e5,
            poisson_ratio: 0.5,
        };
        assert!(NeoHookean::<2>::new(vec![0, 1, 2], &x0, bad, Projection::Clamp).is_err());
    }
}
