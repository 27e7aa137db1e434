//! The signed singular value decomposition of a 3 × 3 deformation gradient (SPEC.md §7, the
//! rotation-variant SVD of Irving et al. 2004 that the stable neo-Hookean's eigensystem is written
//! in): F = U Σ Vᵀ with U and V rotations (det +1) and Σ = diag(σ₁, σ₂, σ₃), |σ₁| ≥ |σ₂| ≥ |σ₃|,
//! σ₁, σ₂ ≥ 0 and σ₃ negative for an inverted element (det F < 0). Dimensionless.
//!
//! **How.** V diagonalises FᵀF = V Σ² Vᵀ by cyclic Jacobi rotations (each zeroes one off-diagonal
//! entry exactly; the sum of the squared off-diagonals falls quadratically, so a few sweeps reach
//! rounding); then Gram–Schmidt on F V gives U: u₁ = F v₁/‖F v₁‖, u₂ = the part of F v₂
//! orthogonal to u₁, normalised, u₃ = u₁ × u₂ (so det U = +1), and σᵢ = uᵢ · F vᵢ, which makes σ₃
//! carry det F's sign. Only the two largest singular values are divided by, so it stays accurate
//! for a flattened element; where σ₂ is small too (a tetrahedron nearly squashed onto a line,
//! [`DEGENERATE`]) it falls back to nalgebra's general SVD.
//!
//! It replaces nalgebra's 3 × 3 SVD on the solver's path (an eigen-decomposition of FᵀF through
//! Householder tridiagonalisation and implicit QR, general-purpose and several times the work for
//! a 3 × 3 matrix; docs/benchmarks.md has the measured step times).

use nalgebra::{Matrix3, Vector3};

/// σ₂ below this fraction of σ₁ (or F zero): the fallback to nalgebra's SVD. V from FᵀF mixes
/// v₂ and v₃ by about ε σ₁²/(σ₂² − σ₃²), which leaves an error of about ε σ₁²/σ₂ in U Σ Vᵀ:
/// at σ₂ ≥ 10⁻³ σ₁ that is within 10³ ε σ₁, below the tests' 10⁻¹³ ‖F‖.
pub const DEGENERATE: f64 = 1e-3;

/// Jacobi sweeps at most; each sweep is three rotations, and six are far more than rounding
/// needs (the off-diagonals fall quadratically).
const MAX_SWEEPS: usize = 6;

/// F = U Σ Vᵀ (module comment): U, the signed singular values (descending in magnitude, the
/// sign on the last), Vᵀ.
pub fn signed_svd(f: &Matrix3<f64>) -> (Matrix3<f64>, Vector3<f64>, Matrix3<f64>) {
    let (mut v, mut l) = jacobi_eigen(&(f.transpose() * f));
    // Descending eigenvalues of FᵀF (σ²), columns of V alike.
    for i in 0..2 {
        for j in (i + 1..3).rev() {
            if l[j] > l[j - 1] {
                l.swap_rows(j, j - 1);
                v.swap_columns(j, j - 1);
            }
        }
    }
    if v.determinant() < 0.0 {
        v.column_mut(2).neg_mut();
    }
    let fv = f * v;
    let n1 = fv.column(0).norm();
    let u1 = fv.column(0) / n1;
    let c2 = fv.column(1) - u1 * u1.dot(&fv.column(1));
    let n2 = c2.norm();
    if !(n1 > 0.0 && n2 > DEGENERATE * n1) {
        return general_signed_svd(f);
    }
    let u2 = c2 / n2;
    let u3 = u1.cross(&u2);
    let u = Matrix3::from_columns(&[u1, u2, u3]);
    let s = Vector3::new(n1, u2.dot(&fv.column(1)), u3.dot(&fv.column(2)));
    (u, s, v.transpose())
}

/// The eigenvectors (columns, orthonormal) and eigenvalues of the symmetric `a`, by cyclic
/// Jacobi rotations (Numerical Recipes §11.1's update), until the off-diagonals are within
/// rounding of the largest diagonal entry (smaller ones are below the rounding FᵀF was formed
/// with). The matrix is held as plain arrays and each rotation's plane is a constant, so that
/// the whole iteration stays in registers.
fn jacobi_eigen(a: &Matrix3<f64>) -> (Matrix3<f64>, Vector3<f64>) {
    let mut m = [[0.0; 3]; 3];
    for (r, row) in m.iter_mut().enumerate() {
        for (c, x) in row.iter_mut().enumerate() {
            *x = a[(r, c)];
        }
    }
    let mut v = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    for _ in 0..MAX_SWEEPS {
        let scale = m[0][0].abs().max(m[1][1].abs()).max(m[2][2].abs());
        let off = m[0][1].abs() + m[0][2].abs() + m[1][2].abs();
        if off <= f64::EPSILON * scale {
            break;
        }
        rotate::<0, 1, 2>(&mut m, &mut v);
        rotate::<0, 2, 1>(&mut m, &mut v);
        rotate::<1, 2, 0>(&mut m, &mut v);
    }
    (
        Matrix3::from_fn(|r, c| v[r][c]),
        Vector3::new(m[0][0], m[1][1], m[2][2]),
    )
}

/// The range of d² + b² (FᵀF's entries squared) where [`rotate`] forms squares: outside it
/// (an F of entries below about 10⁻⁷² or above about 10⁷²) they would lose bits to underflow or
/// overflow, and the rotation is taken in ratios instead.
const SQUARES_FROM: f64 = 1e-290;
const SQUARES_UP_TO: f64 = 1e290;

/// One Jacobi rotation in the (P, Q) plane (R the third index) that zeroes m[P][Q], applied to
/// the symmetric `m` (both triangles kept) and accumulated into the columns of `v`.
#[inline(always)]
fn rotate<const P: usize, const Q: usize, const R: usize>(
    m: &mut [[f64; 3]; 3],
    v: &mut [[f64; 3]; 3],
) {
    let apq = m[P][Q];
    if apq == 0.0 {
        return;
    }
    // tan φ = t = sign(d) b/(|d| + r), cos φ = (|d| + r)/√((|d| + r)² + b²) with d = a_qq − a_pp,
    // b = 2 a_pq, r = √(d² + b²): Numerical Recipes' t = sign(θ)/(|θ| + √(θ² + 1)) at θ = d/b
    // multiplied through by |b|, so that the chain of dependent square roots and divisions is
    // three long, not five.
    let d = m[Q][Q] - m[P][P];
    let b = 2.0 * apq;
    let r2 = d * d + b * b;
    let (t, c, s) = if r2 > SQUARES_FROM && r2 < SQUARES_UP_TO {
        let w = d.abs() + r2.sqrt();
        let sb = if d < 0.0 { -b } else { b };
        let n = (w * w + b * b).sqrt();
        (sb / w, w / n, sb / n)
    } else {
        // Squares that would underflow or overflow: the textbook form, in ratios.
        let theta = d / b;
        let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
        let c = 1.0 / (t * t + 1.0).sqrt();
        (t, c, t * c)
    };
    m[P][P] -= t * apq;
    m[Q][Q] += t * apq;
    m[P][Q] = 0.0;
    m[Q][P] = 0.0;
    let (arp, arq) = (m[R][P], m[R][Q]);
    m[R][P] = c * arp - s * arq;
    m[P][R] = m[R][P];
    m[R][Q] = s * arp + c * arq;
    m[Q][R] = m[R][Q];
    for row in v.iter_mut() {
        let (vkp, vkq) = (row[P], row[Q]);
        row[P] = c * vkp - s * vkq;
        row[Q] = s * vkp + c * vkq;
    }
}

/// nalgebra's general SVD (Householder bidiagonalisation and implicit-shift QR, through a
/// dynamic matrix: for a static 3 × 3 matrix nalgebra takes FᵀF's eigenvectors too), sorted and
/// signed as [`signed_svd`]'s: the fallback, and the tests' reference.
pub fn general_signed_svd(f: &Matrix3<f64>) -> (Matrix3<f64>, Vector3<f64>, Matrix3<f64>) {
    let svd = nalgebra::DMatrix::from_column_slice(3, 3, f.as_slice()).svd(true, true);
    let (mut u, mut v_t) = match (svd.u, svd.v_t) {
        (Some(u), Some(v_t)) => (
            Matrix3::from_column_slice(u.as_slice()),
            Matrix3::from_column_slice(v_t.as_slice()),
        ),
        _ => (Matrix3::identity(), Matrix3::identity()),
    };
    let mut s = Vector3::from_column_slice(svd.singular_values.as_slice());
    if u.determinant() < 0.0 {
        // Either factor may be a reflection; put both right, the sign on the smallest value.
        u.column_mut(2).neg_mut();
        s[2] = -s[2];
    }
    if v_t.determinant() < 0.0 {
        v_t.row_mut(2).neg_mut();
        s[2] = -s[2];
    }
    (u, s, v_t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::Rotation3;

    fn lcg(s: &mut u64) -> f64 {
        *s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (*s >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Checks the factors' defining properties, independently of how they were found: F
    /// rebuilt to rounding (1e-13 of ‖F‖, a few hundred units of rounding for the products
    /// involved), U and V orthogonal with det +1, |σ| descending (to the same rounding), σ₁ and σ₂ ≥ 0, sign(σ₃) =
    /// sign(det F), and |σ| equal to nalgebra's general SVD's.
    fn check(f: &Matrix3<f64>) {
        let (u, s, v_t) = signed_svd(f);
        let scale = f.norm();
        let rebuilt = u * Matrix3::from_diagonal(&s) * v_t;
        assert!(
            (rebuilt - f).norm() <= 1e-13 * scale,
            "F {f} rebuilt {rebuilt}"
        );
        for m in [u, v_t] {
            assert!((m.transpose() * m - Matrix3::identity()).norm() < 1e-13);
            assert!((m.determinant() - 1.0).abs() < 1e-13);
        }
        // Descending up to rounding (equal values may come in either order).
        let r = 1e-13 * scale;
        assert!(
            s[0] + r >= s[1].abs() && s[1].abs() + r >= s[2].abs() && s[1] >= 0.0,
            "{s}"
        );
        let det = f.determinant();
        if det.abs() > 1e-12 * scale.powi(3) {
            assert_eq!(s[2] < 0.0, det < 0.0, "{s} det {det}");
        }
        let reference = general_signed_svd(f).1.map(f64::abs);
        for (a, b) in s.iter().zip(&reference) {
            assert!(
                (a.abs() - b).abs() <= 1e-13 * scale,
                "{s} against {reference}"
            );
        }
    }

    /// Random gradients near rest, far from it, inverted, and the cases where the singular
    /// values repeat (a rotation, a uniform scaling, two equal stretches) or one nearly vanishes
    /// (a flattened element), and a squashed one that takes the fallback.
    #[test]
    fn the_factors_rebuild_f_with_rotations_and_signed_values() {
        let mut seed = 5u64;
        for k in 0..400 {
            let spread = [0.05, 0.5, 2.0][k % 3];
            let f = Matrix3::from_fn(|i, j| {
                f64::from(u8::from(i == j)) + spread * (2.0 * lcg(&mut seed) - 1.0)
            });
            check(&f);
            // The same inverted by a reflection.
            check(&(f * Matrix3::from_diagonal(&Vector3::new(1.0, 1.0, -1.0))));
        }
        let r = Rotation3::from_euler_angles(0.3, -1.1, 2.0).into_inner();
        let r2 = Rotation3::from_euler_angles(-0.7, 0.2, 0.9).into_inner();
        for d in [
            Vector3::new(1.0, 1.0, 1.0),
            Vector3::new(0.9, 0.9, 0.9),
            Vector3::new(1.2, 1.2, 0.8),
            Vector3::new(1.0, 0.7, 0.7),
            Vector3::new(1.0, 0.8, -0.8),
            Vector3::new(1.0, 0.9, 1e-7),
            Vector3::new(1.0, 1e-5, 1e-9),
            Vector3::new(1.0, 1e-12, 1e-13),
        ] {
            check(&(r * Matrix3::from_diagonal(&d) * r2));
        }
        check(&Matrix3::identity());
        // F of tiny and huge entries, whose FᵀF's squares leave the double range.
        let f = r * Matrix3::from_diagonal(&Vector3::new(1.2, 0.9, 0.7)) * r2;
        for scale in [1e-80, 1e-150, 1e75, 1e100] {
            check(&(f * scale));
        }
    }
}
