//! Skyline (envelope) Cholesky for small systems: the book's square has 25 nodes, 50 unknowns.
//!
//! At a few dozen unknowns faer's sparse factorisation spends most of its time on bookkeeping
//! rather than arithmetic: at 50 unknowns its simplicial numeric Cholesky, with the symmetric
//! permutation it applies first, executes about 140 000 instructions per factorisation
//! (callgrind, docs/benchmarks.md). The square's nodes are numbered row by row, so its Hessian
//! is banded: row i of the lower triangle holds nonzeros only from a first column f(i) on, and
//! the Cholesky factor L fills nothing outside that envelope (fill stays right of each row's first
//! nonzero). Factoring inside the envelope costs Σᵢ (i − f(i))² / 2 multiply-adds: about 4 000
//! at 50 unknowns.
//!
//! [`SkylineLlt`] is built once from the lower-triangle CSC pattern (the same pattern and values
//! the sparse path factors), keeps the envelope row by row in one preallocated buffer and
//! factors in place: no allocation after construction, no ordering (the mesh's own).

/// LLᵀ of a symmetric positive definite matrix kept in its lower envelope, row by row.
pub struct SkylineLlt {
    /// First stored column of each row (the row's first nonzero in the lower triangle).
    first: Vec<usize>,
    /// Offset of each row's first stored entry in `values`; `start[n]` = total length.
    start: Vec<usize>,
    /// The envelope: the matrix, overwritten by L at each factorisation.
    values: Vec<f64>,
    /// For each stored CSC value (column-major order), its index in `values`.
    slots: Vec<usize>,
    /// 1 / L_ii of the last factorisation: the off-diagonal entries of a row form one chain of
    /// dependent operations, and a multiplication by the reciprocal is a quarter of a division's
    /// latency there.
    inv_diag: Vec<f64>,
}

impl SkylineLlt {
    /// The envelope of the lower-triangle pattern `col_offsets`/`row_indices` of an n × n matrix
    /// (row indices ≥ column index in every column; the diagonal present).
    pub fn new(n: usize, col_offsets: &[usize], row_indices: &[usize]) -> SkylineLlt {
        let mut first: Vec<usize> = (0..n).collect();
        for col in 0..n {
            for &row in &row_indices[col_offsets[col]..col_offsets[col + 1]] {
                first[row] = first[row].min(col);
            }
        }
        let mut start = Vec::with_capacity(n + 1);
        let mut len = 0;
        for (i, &f) in first.iter().enumerate() {
            start.push(len);
            len += i - f + 1;
        }
        start.push(len);
        let mut slots = Vec::with_capacity(row_indices.len());
        for col in 0..n {
            for &row in &row_indices[col_offsets[col]..col_offsets[col + 1]] {
                slots.push(start[row] + col - first[row]);
            }
        }
        SkylineLlt {
            first,
            start,
            values: vec![0.0; len],
            slots,
            inv_diag: vec![0.0; n],
        }
    }

    /// Multiply-adds of one factorisation: Σᵢ Σ_{f(i) ≤ j ≤ i} (j − max(f(i), f(j))).
    pub fn factor_work(&self) -> usize {
        let n = self.first.len();
        let mut work = 0;
        for i in 0..n {
            for j in self.first[i]..=i {
                work += j - self.first[i].max(self.first[j]);
            }
        }
        work
    }

    /// Entries kept (the envelope's size).
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// True when the matrix has no rows.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Factors the matrix whose lower-triangle values, in the CSC pattern given to
    /// [`SkylineLlt::new`], are `csc_values`. A pivot that is not positive (or not finite) is
    /// returned as its row index.
    pub fn factorize(&mut self, csc_values: &[f64]) -> Result<(), usize> {
        self.values.fill(0.0);
        for (&s, &v) in self.slots.iter().zip(csc_values) {
            self.values[s] += v;
        }
        let n = self.first.len();
        for i in 0..n {
            let fi = self.first[i];
            let row_i = self.start[i];
            // Off-diagonal entries of row i, left to right: L_ij = (A_ij − Σ_k L_ik L_jk) / L_jj.
            for j in fi..i {
                let fj = self.first[j];
                let k0 = fi.max(fj);
                let (before, rest) = self.values.split_at_mut(row_i);
                let row_j = &before[self.start[j]..self.start[j] + j - fj + 1];
                let lj = &row_j[k0 - fj..j - fj];
                let li = &rest[k0 - fi..j - fi];
                rest[j - fi] = (rest[j - fi] - dot(li, lj)) * self.inv_diag[j];
            }
            let row = &mut self.values[row_i..row_i + i - fi + 1];
            let (off, diag) = row.split_at_mut(i - fi);
            let d = diag[0] - dot(off, off);
            if !(d > 0.0 && d.is_finite()) {
                return Err(i);
            }
            diag[0] = d.sqrt();
            self.inv_diag[i] = 1.0 / diag[0];
        }
        Ok(())
    }

    /// Solves A x = rhs in place with the last factorisation (L y = b, then Lᵀ x = y).
    pub fn solve_in_place(&self, rhs: &mut [f64]) {
        let n = self.first.len();
        for i in 0..n {
            let fi = self.first[i];
            let row = &self.values[self.start[i]..self.start[i + 1]];
            rhs[i] = (rhs[i] - dot(&row[..i - fi], &rhs[fi..i])) * self.inv_diag[i];
        }
        for i in (0..n).rev() {
            let fi = self.first[i];
            let row = &self.values[self.start[i]..self.start[i + 1]];
            let xi = rhs[i] * self.inv_diag[i];
            rhs[i] = xi;
            for (r, l) in rhs[fi..i].iter_mut().zip(&row[..i - fi]) {
                *r -= l * xi;
            }
        }
    }
}

/// Σ aₖ bₖ over two slices of equal length, in four interleaved partial sums (independent
/// chains the compiler can keep in vector registers).
#[inline]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    debug_assert_eq!(a.len(), b.len());
    let (a4, a_tail) = a.split_at(a.len() - a.len() % 4);
    let (b4, b_tail) = b.split_at(a4.len());
    let mut acc = [0.0; 4];
    for (x, y) in a4.chunks_exact(4).zip(b4.chunks_exact(4)) {
        for k in 0..4 {
            acc[k] += x[k] * y[k];
        }
    }
    let mut sum = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    for (x, y) in a_tail.iter().zip(b_tail) {
        sum += x * y;
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lower-triangle CSC of a dense symmetric matrix given row-major (entries that are exactly
    /// zero left out of the pattern).
    fn lower_csc(a: &nalgebra::DMatrix<f64>) -> (Vec<usize>, Vec<usize>, Vec<f64>) {
        let n = a.nrows();
        let (mut offs, mut rows, mut vals) = (vec![0], vec![], vec![]);
        for j in 0..n {
            for i in j..n {
                if a[(i, j)] != 0.0 || i == j {
                    rows.push(i);
                    vals.push(a[(i, j)]);
                }
            }
            offs.push(rows.len());
        }
        (offs, rows, vals)
    }

    /// A banded SPD matrix with a ragged envelope (rows start at different columns): the solve
    /// reproduces A x = b to rounding. Entries are O(1) and the matrix is diagonally dominant
    /// (condition number below 10), so 1e-12 is a few hundred ulps.
    #[test]
    fn solves_a_banded_system_with_a_ragged_envelope() {
        let n = 9;
        let mut a = nalgebra::DMatrix::<f64>::zeros(n, n);
        for i in 0..n {
            a[(i, i)] = 6.0 + i as f64 * 0.1;
            for j in i.saturating_sub(1 + i % 3)..i {
                let v = 0.3 + 0.05 * (i + 2 * j) as f64 % 0.4;
                a[(i, j)] = v;
                a[(j, i)] = v;
            }
        }
        let (offs, rows, vals) = lower_csc(&a);
        let mut llt = SkylineLlt::new(n, &offs, &rows);
        llt.factorize(&vals).unwrap();
        let b: Vec<f64> = (0..n).map(|i| (i as f64).sin() + 1.0).collect();
        let mut x = b.clone();
        llt.solve_in_place(&mut x);
        let ax = &a * nalgebra::DVector::from_column_slice(&x);
        for (i, (ax, b)) in ax.iter().zip(&b).enumerate() {
            assert!((ax - b).abs() < 1e-12, "row {i}: {ax} vs {b}");
        }
    }

    /// An envelope whose rows do not start in order (row 5 reaches back past row 4's start,
    /// row 3 starts right of row 2's): L matches the dense Cholesky of nalgebra entry by entry.
    /// Entries are O(1) on a diagonal of 5, so both factors agree to rounding (1e-13).
    #[test]
    fn matches_the_dense_factor_on_a_non_monotone_envelope() {
        let n = 7;
        let starts = [0, 0, 0, 2, 3, 1, 4];
        let mut a = nalgebra::DMatrix::<f64>::zeros(n, n);
        for i in 0..n {
            a[(i, i)] = 5.0;
            for j in starts[i]..i {
                let v = 0.2 + 0.1 * ((3 * i + j) % 5) as f64;
                a[(i, j)] = v;
                a[(j, i)] = v;
            }
        }
        let (offs, rows, vals) = lower_csc(&a);
        let mut llt = SkylineLlt::new(n, &offs, &rows);
        llt.factorize(&vals).unwrap();
        let dense = a.clone().cholesky().expect("SPD").l();
        for i in 0..n {
            for j in starts[i]..=i {
                let ours = llt.values[llt.start[i] + j - llt.first[i]];
                assert!(
                    (ours - dense[(i, j)]).abs() < 1e-13,
                    "L[{i}][{j}]: {ours} vs {}",
                    dense[(i, j)]
                );
            }
        }
        let b: Vec<f64> = (0..n).map(|i| 1.0 + i as f64).collect();
        let mut x = b.clone();
        llt.solve_in_place(&mut x);
        let ax = &a * nalgebra::DVector::from_column_slice(&x);
        for (ax, b) in ax.iter().zip(&b) {
            assert!((ax - b).abs() < 1e-12);
        }
    }

    /// An indefinite matrix is refused at the pivot that fails.
    #[test]
    fn refuses_an_indefinite_matrix() {
        // [[1, 2], [2, 1]]: the second pivot is 1 − 4 < 0.
        let mut llt = SkylineLlt::new(2, &[0, 2, 3], &[0, 1, 1]);
        assert_eq!(llt.factorize(&[1.0, 2.0, 1.0]), Err(1));
    }

    /// The envelope of a tridiagonal 4×4 keeps 7 entries and the factor work is 3 products.
    #[test]
    fn envelope_of_a_tridiagonal_matrix() {
        let llt = SkylineLlt::new(4, &[0, 2, 4, 6, 7], &[0, 1, 1, 2, 2, 3, 3]);
        assert_eq!(llt.len(), 7);
        assert_eq!(llt.factor_work(), 3);
    }
}
