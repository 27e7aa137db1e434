//! Projection of symmetric matrices onto the positive semi-definite cone (SPEC.md §2):
//! eigen-decompose, clamp negative eigenvalues to zero, recompose.

#[cfg(test)]
use nalgebra::DMatrix;
use nalgebra::{Matrix2, SMatrix, SymmetricEigen};

/// The largest element block [`project_in_place`] takes: 12 × 12 (four nodes in 3D).
pub const MAX_BLOCK: usize = 12;

/// PSD projection of a symmetric matrix (nalgebra's symmetric eigensolver on a dynamic
/// matrix): the reference the tests check the fixed-size projections against.
#[cfg(test)]
pub(crate) fn project(h: &DMatrix<f64>) -> DMatrix<f64> {
    let eig = SymmetricEigen::new(h.clone());
    if eig.eigenvalues.iter().all(|&l| l >= 0.0) {
        return h.clone();
    }
    let n = h.nrows();
    let mut out = DMatrix::<f64>::zeros(n, n);
    for k in 0..n {
        let l = eig.eigenvalues[k];
        if l > 0.0 {
            let q = eig.eigenvectors.column(k);
            out += q * q.transpose() * l;
        }
    }
    out
}

/// PSD projection, in place, of the symmetric n × n matrix stored column-major in
/// `block[..n * n]` (n ≤ [`MAX_BLOCK`]): the general path for an element block of any pair type
/// or element, without allocation. Blocks of 4, 6, 9 and 12 degrees of freedom go through
/// [`ProjectFixed`] at their own size; any other is embedded in a 12 × 12 matrix padded with
/// zeros, whose eigenpairs are the block's and zeros. A block that is already PSD is left as it
/// is, bit for bit.
pub fn project_in_place(block: &mut [f64], n: usize) {
    assert!(
        n <= MAX_BLOCK,
        "block of {n} > {MAX_BLOCK} degrees of freedom"
    );
    // The sizes of the contact pairs' blocks (2D vertex–vertex and point–edge, 3D point–edge,
    // point–triangle and edge–edge) without the padding: a 12 × 12 eigen-decomposition costs
    // several times a 6 × 6 one.
    match n {
        4 => return project_fixed::<4>(block),
        6 => return project_fixed::<6>(block),
        9 => return project_fixed::<9>(block),
        12 => return project_fixed::<12>(block),
        _ => {}
    }
    let mut m = SMatrix::<f64, MAX_BLOCK, MAX_BLOCK>::zeros();
    for c in 0..n {
        for r in 0..n {
            m[(r, c)] = 0.5 * (block[n * c + r] + block[n * r + c]);
        }
    }
    let eig = SymmetricEigen::new(m);
    if eig.eigenvalues.iter().all(|&l| l >= 0.0) {
        return;
    }
    let mut out = SMatrix::<f64, MAX_BLOCK, MAX_BLOCK>::zeros();
    for (k, &l) in eig.eigenvalues.iter().enumerate() {
        if l > 0.0 {
            let q = eig.eigenvectors.column(k);
            out += q * q.transpose() * l;
        }
    }
    for c in 0..n {
        for r in 0..n {
            block[n * c + r] = out[(r, c)];
        }
    }
}

/// PSD projection, in place, of a fixed-size symmetric matrix (no allocation, no padding):
/// eigen-decompose, clamp negative eigenvalues to zero, recompose. A matrix that is already PSD
/// is left as it is, bit for bit. Implemented for the 4 × 4 and 9 × 9 of the neo-Hookean
/// stress derivative (2D and 3D) and the contact pairs' 4 × 4, 6 × 6, 9 × 9 and 12 × 12
/// blocks.
pub trait ProjectFixed {
    /// Projects in place; returns whether the matrix changed.
    fn project_psd(&mut self) -> bool;
}

macro_rules! project_fixed {
    ($($n:literal),*) => {$(
        impl ProjectFixed for SMatrix<f64, $n, $n> {
            fn project_psd(&mut self) -> bool {
                let eig = SymmetricEigen::new(*self);
                if eig.eigenvalues.iter().all(|&l| l >= 0.0) {
                    return false;
                }
                let mut out = SMatrix::<f64, $n, $n>::zeros();
                for (k, &l) in eig.eigenvalues.iter().enumerate() {
                    if l > 0.0 {
                        let q = eig.eigenvectors.column(k);
                        out += q * q.transpose() * l;
                    }
                }
                *self = out;
                true
            }
        }
    )*};
}

project_fixed!(4, 6, 9, 12);

/// [`project_in_place`] through the fixed-size `N` × `N` path (the symmetric part projected).
fn project_fixed<const N: usize>(block: &mut [f64])
where
    SMatrix<f64, N, N>: ProjectFixed,
{
    let mut m = SMatrix::<f64, N, N>::from_fn(|r, c| 0.5 * (block[N * c + r] + block[N * r + c]));
    if m.project_psd() {
        block[..N * N].copy_from_slice(m.as_slice());
    }
}

/// PSD projection of a symmetric 2×2 matrix in closed form (the hot path for friction).
pub fn project_2x2(h: &Matrix2<f64>) -> Matrix2<f64> {
    let (a, b, d) = (h[(0, 0)], 0.5 * (h[(0, 1)] + h[(1, 0)]), h[(1, 1)]);
    let mean = 0.5 * (a + d);
    let rad = (0.25 * (a - d) * (a - d) + b * b).sqrt();
    let (l1, l2) = (mean + rad, mean - rad);
    if l2 >= 0.0 {
        return *h;
    }
    if l1 <= 0.0 {
        return Matrix2::zeros();
    }
    // Eigenvector of l1: (b, l1 - a) or (l1 - d, b), whichever is better conditioned.
    let (u, v) = if (l1 - a).abs() + b.abs() >= (l1 - d).abs() + b.abs() {
        (b, l1 - a)
    } else {
        (l1 - d, b)
    };
    let norm2 = u * u + v * v;
    if norm2 == 0.0 {
        // a == d and b == 0: a multiple of I, handled by l2 >= 0 or l1 <= 0 above.
        return Matrix2::zeros();
    }
    Matrix2::new(u * u, u * v, u * v, v * v) * (l1 / norm2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{Matrix4, SymmetricEigen};

    fn dyn4(m: &Matrix4<f64>) -> DMatrix<f64> {
        DMatrix::from_column_slice(4, 4, m.as_slice())
    }
    fn dyn2(m: &Matrix2<f64>) -> DMatrix<f64> {
        DMatrix::from_column_slice(2, 2, m.as_slice())
    }

    /// Eigenvalues of a projection may be negative only by rounding: 1e-12 relative to ‖H‖
    /// leaves ~10⁴ ulps of room for the recomposition of 2–4 rank-one terms.
    const NEG_TOL: f64 = 1e-12;

    fn lcg(seed: &mut u64) -> f64 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((*seed >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }

    #[test]
    fn projected_matrices_have_no_negative_eigenvalues() {
        let mut s = 7;
        for _ in 0..500 {
            let mut m = Matrix4::from_fn(|_, _| lcg(&mut s) * 10.0);
            m = m + m.transpose();
            let p = project(&dyn4(&m));
            let norm = m.norm();
            let eig = SymmetricEigen::new(p).eigenvalues;
            assert!(eig.iter().all(|&l| l >= -NEG_TOL * norm), "{eig}");
            let m2 = Matrix2::new(lcg(&mut s), 0.0, 0.0, lcg(&mut s));
            let m2 = Matrix2::new(m2[(0, 0)], lcg(&mut s), 0.0, m2[(1, 1)]);
            let m2 = m2 + m2.transpose();
            let p2 = project_2x2(&m2);
            let eig2 = SymmetricEigen::new(p2).eigenvalues;
            assert!(eig2.iter().all(|&l| l >= -NEG_TOL * m2.norm()), "{eig2}");
            // The closed form agrees with the general path.
            assert!((dyn2(&p2) - project(&dyn2(&m2))).norm() <= 1e-12 * m2.norm().max(1e-300));
        }
    }

    /// The padded in-place projection agrees with the general one on blocks of 3 to 12
    /// degrees of freedom, and leaves a PSD block alone bit for bit.
    #[test]
    fn in_place_projection_matches_the_general_path() {
        let mut s = 3;
        for n in [3, 6, 9, 12] {
            let m = DMatrix::from_fn(n, n, |_, _| lcg(&mut s));
            let m = &m + m.transpose();
            let mut block: Vec<f64> = m.as_slice().to_vec();
            project_in_place(&mut block, n);
            let expect = project(&m);
            let got = DMatrix::from_column_slice(n, n, &block);
            assert!((got - &expect).norm() <= 1e-12 * m.norm(), "n = {n}");
            let psd = &m * m.transpose();
            let mut block: Vec<f64> = psd.as_slice().to_vec();
            project_in_place(&mut block, n);
            assert_eq!(block, psd.as_slice());
        }
    }

    /// The fixed-size projection agrees with the general one (4 × 4 and 9 × 9, the sizes of the
    /// neo-Hookean stress derivative in 2D and 3D).
    #[test]
    fn fixed_size_projection_matches_the_general_path() {
        macro_rules! check {
            ($n:literal, $s:expr) => {{
                let m = SMatrix::<f64, $n, $n>::from_fn(|_, _| lcg($s));
                let mut m = m + m.transpose();
                let expect = project(&DMatrix::from_column_slice($n, $n, m.as_slice()));
                let norm = m.norm();
                assert!(m.project_psd());
                let got = DMatrix::from_column_slice($n, $n, m.as_slice());
                assert!((got - expect).norm() <= 1e-12 * norm, "N = {}", $n);
            }};
        }
        let mut s = 5;
        for _ in 0..20 {
            check!(4, &mut s);
            check!(9, &mut s);
        }
    }

    #[test]
    fn psd_input_is_returned_unchanged() {
        let mut s = 11;
        for _ in 0..200 {
            let a = Matrix4::from_fn(|_, _| lcg(&mut s));
            let m = a * a.transpose(); // PSD by construction
            assert_eq!(project(&dyn4(&m)), dyn4(&m));
            let b = Matrix2::from_fn(|_, _| lcg(&mut s));
            let m2 = b * b.transpose();
            assert_eq!(project_2x2(&m2), m2);
        }
    }
}
