//! The stable neo-Hookean's ∂²Ψ/∂F² in 3D projected to PSD from its eigensystem in closed form
//! (Smith, de Goes & Kim 2018, §4; Smith, de Goes & Kim 2019 for isotropic energies in general),
//! instead of a numerical eigen-decomposition of the 9 × 9 matrix (SPEC.md §7; the energy and
//! its units are `neo_hookean/mod.rs`'s).
//!
//! **Derivation.** Write F = U Σ Vᵀ with U, V orthogonal and det U det V = +1, Σ = diag(σ₁, σ₂,
//! σ₃) (σ₃ negative for an inverted element), so that ‖F‖² = Σ σᵢ² and J = σ₁σ₂σ₃. Ψ is
//! isotropic, so ∂²Ψ/∂F² = (V ⊗ U) Ĥ (V ⊗ U)ᵀ with Ĥ its Hessian at F = Σ, and Ĥ's eigenpairs
//! come from Ψ(σ) = μ/2 (Σ σᵢ² − 3) − μ (J − 1) + λ′/2 (J − 1)²:
//! * Ψᵢ = ∂Ψ/∂σᵢ = μ σᵢ + (λ′ (J − 1) − μ) σⱼ σₖ ({i, j, k} = {1, 2, 3});
//! * **scaling** (3): the eigenpairs (a, e) of A = ∂²Ψ/∂σ², Aᵢᵢ = μ + λ′ (σⱼ σₖ)²,
//!   Aᵢⱼ = σₖ (λ′ (2J − 1) − μ), with the eigenvector U diag(a) Vᵀ;
//! * **flip** and **twist** (3 + 3), one of each for every pair i < j: on the span of
//!   U eᵢeⱼᵀ Vᵀ and U eⱼeᵢᵀ Vᵀ, Ĥ is [[a, b], [b, a]] with a ± b = (Ψᵢ ∓ Ψⱼ)/(σᵢ ∓ σⱼ): the
//!   symmetric U (eᵢeⱼᵀ + eⱼeᵢᵀ) Vᵀ/√2 has μ − σₖ (λ′ (J − 1) − μ), the antisymmetric
//!   U (eᵢeⱼᵀ − eⱼeᵢᵀ) Vᵀ/√2 has μ + σₖ (λ′ (J − 1) − μ) (zero at rest: a rotation). Neither
//!   divides by σᵢ ∓ σⱼ: repeated singular values need no special case.
//!
//! The projection keeps the matrix as it is (bit for bit) when no eigenvalue is negative and
//! otherwise recomposes Σ max(λₘ, 0) qₘ qₘᵀ. Costs a 3 × 3 SVD (`signed_svd`) and a 3 × 3 eigen-decomposition
//! against the 9 × 9 one's (docs/benchmarks.md has the measured step times); the tests check it
//! against that numerical projection.

use nalgebra::{Matrix3, SymmetricEigen, Vector3};

use crate::energy::signed_svd::signed_svd;

/// The six flip and twist eigenvalues (flips first, value k for the pair of indices other than
/// k), Pa, and the scaling block A = ∂²Ψ/∂σ² (module comment), from the signed singular values.
fn values_and_scaling(s: &Vector3<f64>, mu: f64, lambda: f64) -> ([f64; 6], Matrix3<f64>) {
    let j = s[0] * s[1] * s[2];
    let c = lambda * (j - 1.0) - mu;
    let mut a = Matrix3::zeros();
    let mut values = [0.0; 6];
    for i in 0..3 {
        let (p, q) = ((i + 1) % 3, (i + 2) % 3);
        a[(i, i)] = mu + lambda * (s[p] * s[q]).powi(2);
        // The pair (p, q), whose third index is i.
        let off = s[i] * (lambda * (2.0 * j - 1.0) - mu);
        a[(p, q)] = off;
        a[(q, p)] = off;
        values[i] = mu - s[i] * c;
        values[3 + i] = mu + s[i] * c;
    }
    (values, a)
}

/// The unit eigenvector of flip or twist `m` (0–2 flips, 3–5 twists; module comment):
/// U (eₚ e_qᵀ ± e_q eₚᵀ) Vᵀ/√2 = (uₚ v_qᵀ ± u_q vₚᵀ)/√2, with uₚ U's column p and vₚ Vᵀ's row
/// p.
fn flip_twist_vector(u: &Matrix3<f64>, v_t: &Matrix3<f64>, m: usize) -> Matrix3<f64> {
    let k = m % 3;
    let (p, q) = ((k + 1) % 3, (k + 2) % 3);
    let sign = if m < 3 { 1.0 } else { -1.0 };
    let r = std::f64::consts::FRAC_1_SQRT_2;
    (u.column(p) * v_t.row(q) + u.column(q) * v_t.row(p) * sign) * r
}

/// The six flip and twist eigenpairs (flips first, pair k being the indices other than k) and
/// the scaling block A = ∂²Ψ/∂σ² (module comment).
fn pairs_and_scaling(
    u: &Matrix3<f64>,
    s: &Vector3<f64>,
    v_t: &Matrix3<f64>,
    mu: f64,
    lambda: f64,
) -> ([(f64, Matrix3<f64>); 6], Matrix3<f64>) {
    let (values, a) = values_and_scaling(s, mu, lambda);
    let pairs = std::array::from_fn(|m| (values[m], flip_twist_vector(u, v_t, m)));
    (pairs, a)
}

/// The nine eigenpairs of ∂²Ψ/∂F² at `f` for shear modulus `mu` and λ′ = `lambda` (Pa):
/// eigenvalues (Pa) and unit eigenvectors as 3 × 3 matrices (vec'd column-major, index i + 3j
/// for F_ij): the three scaling pairs, then the flips, then the twists.
pub fn eigensystem(f: &Matrix3<f64>, mu: f64, lambda: f64) -> [(f64, Matrix3<f64>); 9] {
    let (u, s, v_t) = signed_svd(f);
    let (pairs, a) = pairs_and_scaling(&u, &s, &v_t, mu, lambda);
    let scaling = SymmetricEigen::new(a);
    let mut out = [(0.0, Matrix3::zeros()); 9];
    for (m, pair) in out.iter_mut().take(3).enumerate() {
        let diag = Matrix3::from_diagonal(&scaling.eigenvectors.column(m).into_owned());
        *pair = (scaling.eigenvalues[m], u * diag * v_t);
    }
    out[3..].copy_from_slice(&pairs);
    out
}

/// Whether the symmetric 3 × 3 `a` is positive definite, by its leading principal minors
/// (Sylvester's criterion).
fn positive_definite(a: &Matrix3<f64>) -> bool {
    let m2 = a[(0, 0)] * a[(1, 1)] - a[(0, 1)] * a[(1, 0)];
    a[(0, 0)] > 0.0 && m2 > 0.0 && a.determinant() > 0.0
}

/// Adds `l` q qᵀ to the 9 × 9 column-major `k`.
fn add_outer(k: &mut [f64; 81], l: f64, q: &Matrix3<f64>) {
    let q = q.as_slice();
    for b in 0..9 {
        let lb = l * q[b];
        for a in 0..9 {
            k[a + 9 * b] += lb * q[a];
        }
    }
}

/// ∂²Ψ/∂F² (`k`, 9 × 9 column-major, as `neo_hookean::stress_derivative` fills it) projected
/// to PSD in place at `f`; whether it changed. Where the scaling block A is positive definite
/// (its leading principal minors are positive: every element but the strongly compressed or inverted) only flips
/// and twists can be negative, and each negative one is taken out, k −= λ q qᵀ, without A's
/// eigen-decomposition; otherwise [`project_by_recomposition`].
pub fn project(k: &mut [f64; 81], f: &Matrix3<f64>, mu: f64, lambda: f64) -> bool {
    let Some(negative) = negative_modes(f, mu, lambda) else {
        return project_by_recomposition(k, f, mu, lambda);
    };
    for (l, q) in negative.pairs() {
        add_outer(k, -l, q);
    }
    negative.count > 0
}

/// The negative flip and twist eigenpairs of ∂²Ψ/∂F² at one F: what [`project`] takes out where
/// the scaling block is positive definite.
#[derive(Clone, Copy, Debug)]
pub struct NegativeModes {
    /// How many of `all` are in use.
    pub count: usize,
    /// (λ, q): eigenvalue (Pa, < 0) and unit eigenvector as a 3 × 3 matrix; the first `count`.
    all: [(f64, Matrix3<f64>); 6],
}

impl NegativeModes {
    /// No negative mode (the unprojected K).
    pub fn none() -> Self {
        NegativeModes {
            count: 0,
            all: [(0.0, Matrix3::zeros()); 6],
        }
    }

    /// The pairs in use.
    pub fn pairs(&self) -> &[(f64, Matrix3<f64>)] {
        &self.all[..self.count]
    }
}

/// Where the scaling block A is positive definite (every element but the strongly compressed or
/// inverted), the negative flips and twists at `f`, the only negative eigenpairs there; `None`
/// where A is not (then [`project_by_recomposition`]).
pub fn negative_modes(f: &Matrix3<f64>, mu: f64, lambda: f64) -> Option<NegativeModes> {
    let (u, s, v_t) = signed_svd(f);
    let (values, a) = values_and_scaling(&s, mu, lambda);
    if !positive_definite(&a) {
        return None;
    }
    let mut out = NegativeModes::none();
    for (m, &l) in values.iter().enumerate().filter(|(_, l)| **l < 0.0) {
        out.all[out.count] = (l, flip_twist_vector(&u, &v_t, m));
        out.count += 1;
    }
    Some(out)
}

/// As [`project`], always from all nine pairs: `k` left as it is (bit for bit) when no
/// eigenvalue is negative, else Σ max(λₘ, 0) qₘ qₘᵀ.
pub fn project_by_recomposition(k: &mut [f64; 81], f: &Matrix3<f64>, mu: f64, lambda: f64) -> bool {
    let pairs = eigensystem(f, mu, lambda);
    if pairs.iter().all(|(l, _)| *l >= 0.0) {
        return false;
    }
    k.fill(0.0);
    for (l, q) in pairs.iter().filter(|(l, _)| *l > 0.0) {
        add_outer(k, *l, q);
    }
    true
}

/// The eigenvalues alone, sorted ascending (tests and measurements).
pub fn eigenvalues(f: &Matrix3<f64>, mu: f64, lambda: f64) -> [f64; 9] {
    let mut l = eigensystem(f, mu, lambda).map(|(l, _)| l);
    l.sort_by(f64::total_cmp);
    l
}

#[cfg(test)]
mod tests {
    use super::super::stress_derivative_matrix;
    use super::*;
    use crate::energy::psd;
    use nalgebra::Vector3;
    use nalgebra::{DMatrix, DVector, Rotation3, Unit};

    const MU: f64 = 3.8e6;
    const LAMBDA: f64 = 9.6e6;

    fn lcg(seed: &mut u64) -> f64 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((*seed >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }

    /// Deformation gradients of every kind: near rest, stretched, compressed (where twist
    /// eigenvalues turn negative), inverted, with repeated singular values, rotated.
    fn gradients() -> Vec<Matrix3<f64>> {
        let mut s = 7;
        let mut out = vec![
            Matrix3::identity(),
            Matrix3::from_diagonal(&Vector3::new(0.9, 0.9, 0.9)),
            Matrix3::from_diagonal(&Vector3::new(1.2, 1.2, 0.7)),
            Matrix3::from_diagonal(&Vector3::new(1.0, 1.0, -0.5)),
        ];
        for _ in 0..60 {
            let h = Matrix3::from_fn(|_, _| lcg(&mut s));
            let scale = 0.02 + 0.6 * lcg(&mut s).abs();
            let axis = Unit::new_normalize(Vector3::new(lcg(&mut s), lcg(&mut s), lcg(&mut s)));
            let rot = Rotation3::from_axis_angle(&axis, 3.0 * lcg(&mut s));
            out.push(rot.matrix() * (Matrix3::identity() + h * scale));
        }
        out
    }

    fn matrix(f: &Matrix3<f64>) -> DMatrix<f64> {
        DMatrix::from_column_slice(9, 9, &stress_derivative_matrix::<3>(f, MU, LAMBDA, false))
    }

    /// The minors' test against the smallest eigenvalue of a numerical decomposition, on
    /// random symmetric matrices whose smallest eigenvalue is clear of zero (|λ_min| ≥ 10⁻⁶ of
    /// the largest, far above rounding) and on every scaling block of `gradients()`.
    #[test]
    fn positive_definite_agrees_with_the_smallest_eigenvalue() {
        let mut s = 11;
        let mut blocks: Vec<Matrix3<f64>> = (0..2000)
            .map(|_| {
                let m = Matrix3::from_fn(|_, _| lcg(&mut s));
                m + m.transpose() + Matrix3::identity() * (2.0 * lcg(&mut s))
            })
            .collect();
        blocks.extend(gradients().iter().map(|f| {
            let (_, sv, _) = signed_svd(f);
            values_and_scaling(&sv, MU, LAMBDA).1
        }));
        let (mut yes, mut no) = (0, 0);
        for a in &blocks {
            let e = SymmetricEigen::new(*a).eigenvalues;
            let (lo, hi) = (e.min(), e.amax());
            if lo.abs() < 1e-6 * hi {
                continue;
            }
            assert_eq!(positive_definite(a), lo > 0.0, "{a}: eigenvalues {e}");
            if lo > 0.0 { yes += 1 } else { no += 1 }
        }
        assert!(yes > 100 && no > 100, "{yes} definite, {no} not");
    }

    /// Each pair is an eigenpair of the assembled ∂²Ψ/∂F² (not of the formulas above: the
    /// matrix is `neo_hookean/mod.rs`'s, from the cofactor and the determinant's Hessian), the
    /// vectors orthonormal.
    #[test]
    fn the_closed_form_pairs_are_eigenpairs_of_the_stress_derivative() {
        for f in gradients() {
            let h = matrix(&f);
            let scale = h.norm();
            let pairs = eigensystem(&f, MU, LAMBDA);
            for (m, (l, q)) in pairs.iter().enumerate() {
                let q = DVector::from_column_slice(q.as_slice());
                let residual = (&h * &q - &q * *l).norm();
                assert!(residual <= 1e-10 * scale, "pair {m} at {f}: {residual}");
                for (_, q2) in &pairs[..m] {
                    let dot: f64 = q
                        .as_slice()
                        .iter()
                        .zip(q2.as_slice())
                        .map(|(a, b)| a * b)
                        .sum();
                    assert!(dot.abs() < 1e-10, "pair {m} not orthogonal at {f}");
                }
                assert!((q.norm() - 1.0).abs() < 1e-12);
            }
        }
    }

    /// Both closed-form projections (taking out the negative flips and twists, and recomposing
    /// from all nine pairs) equal the numerical one (`psd::project`: eigen-decompose the 9 × 9
    /// matrix, clamp, recompose) within rounding; the cases exercise both of `project`'s paths.
    #[test]
    fn the_closed_form_projection_matches_the_numerical_one() {
        let (mut projected, mut recomposed) = (0, 0);
        for f in gradients() {
            let h = matrix(&f);
            let expect = psd::project(&h);
            let scale = h.norm();
            let (u, s, v_t) = signed_svd(&f);
            if pairs_and_scaling(&u, &s, &v_t, MU, LAMBDA)
                .1
                .cholesky()
                .is_none()
            {
                recomposed += 1;
            }
            let mut k = [0.0; 81];
            k.copy_from_slice(h.as_slice());
            if project(&mut k, &f, MU, LAMBDA) {
                projected += 1;
            }
            let got = DMatrix::from_column_slice(9, 9, &k);
            let error = (&got - &expect).norm() / scale;
            assert!(error <= 1e-9, "project at {f}: {error}");
            k.copy_from_slice(h.as_slice());
            project_by_recomposition(&mut k, &f, MU, LAMBDA);
            let got = DMatrix::from_column_slice(9, 9, &k);
            let error = (&got - &expect).norm() / scale;
            assert!(error <= 1e-9, "recomposition at {f}: {error}");
        }
        assert!(
            projected > 20,
            "only {projected} gradients had a negative eigenvalue"
        );
        assert!(
            recomposed > 3,
            "only {recomposed} gradients had an indefinite scaling block"
        );
    }

    /// At rest (σ = 1, J = 1) the twists are μ + (−μ) = 0 (three rotations), the flips
    /// μ + μ = 2μ (three shears), and A = 2μ I + (λ′ − μ) 1 1ᵀ (Aᵢᵢ = μ + λ′, Aᵢⱼ = λ′ − μ) has
    /// 2μ twice (⟂ 1) and 2μ + 3 (λ′ − μ) along 1 (a change of volume).
    #[test]
    fn at_rest_the_eigenvalues_are_rotations_shears_and_volume() {
        let l = eigenvalues(&Matrix3::identity(), MU, LAMBDA);
        let mut expect = [
            0.0,
            0.0,
            0.0,
            2.0 * MU,
            2.0 * MU,
            2.0 * MU,
            2.0 * MU,
            2.0 * MU,
            2.0 * MU + 3.0 * (LAMBDA - MU),
        ];
        expect.sort_by(f64::total_cmp);
        for (a, b) in l.iter().zip(expect) {
            assert!((a - b).abs() <= 1e-9 * LAMBDA, "{l:?} vs {expect:?}");
        }
    }
}
