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
    /// 1 / L_ii of the last factorisation (a column of L is scaled by it, and the solve
    /// multiplies by it: a multiplication has a quarter of a division's latency).
    inv_diag: Vec<f64>,
    /// For each column j, the last row whose envelope reaches it (j when none below).
    last: Vec<usize>,
    /// Column j of L below the diagonal during the factorisation: `column[r]` = L_{j+r, j}
    /// (preallocated to the longest column).
    column: Vec<f64>,
    /// Column j + 1 of L below its diagonal while columns j and j + 1 are eliminated together:
    /// `column1[r]` = L_{j+1+r, j+1}.
    column1: Vec<f64>,
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
        let mut last: Vec<usize> = (0..n).collect();
        for (i, &f) in first.iter().enumerate() {
            for l in &mut last[f..i] {
                *l = (*l).max(i);
            }
        }
        let longest = last
            .iter()
            .enumerate()
            .map(|(j, &l)| l - j)
            .max()
            .unwrap_or(0);
        SkylineLlt {
            last,
            column: vec![0.0; longest + 2],
            column1: vec![0.0; longest + 2],
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
    ///
    /// Right-looking: once column j's pivot is final, its entries below the diagonal are
    /// scaled into L's column j (gathered into one short buffer), and every later row i that
    /// reaches column j takes the update a_ik −= L_ij L_kj for j < k ≤ i, one contiguous run of
    /// its envelope row. Those updates are independent multiply-adds, which the processor
    /// overlaps. The left-looking form (each L_ij one dot product over row i, which needs
    /// L_i,j−1 first) is one chain of dependent operations along every row, and measured 21 %
    /// slower at n_seg = 4 (4.7 against 3.7 µs, the minimum of 300 batches of 100
    /// factorisations each; docs/benchmarks.md). Columns are eliminated two at a time
    /// ([`SkylineLlt::eliminate_pair`]): one pass over each row for both updates, with the
    /// same roundings as one column at a time.
    pub fn factorize(&mut self, csc_values: &[f64]) -> Result<(), usize> {
        self.values.fill(0.0);
        for (&s, &v) in self.slots.iter().zip(csc_values) {
            self.values[s] += v;
        }
        let n = self.first.len();
        let mut j = 0;
        while j + 1 < n {
            self.eliminate_pair(j)?;
            j += 2;
        }
        if j < n {
            // The last column of an odd dimension: its pivot, with nothing below it.
            let diag = self.start[j] + j - self.first[j];
            self.values[diag] = self.pivot(j, self.values[diag])?;
        }
        Ok(())
    }

    /// L_jj = √a_jj with 1 / L_jj kept in `inv_diag`; a pivot that is not positive (or not
    /// finite) is refused as `Err(j)`.
    #[inline]
    fn pivot(&mut self, j: usize, d: f64) -> Result<f64, usize> {
        if !(d > 0.0 && d.is_finite()) {
            return Err(j);
        }
        let ljj = d.sqrt();
        self.inv_diag[j] = 1.0 / ljj;
        Ok(ljj)
    }

    /// Index of a_ij in `values` if row i's envelope reaches column j.
    #[inline]
    fn entry(&self, i: usize, j: usize) -> Option<usize> {
        (self.first[i] <= j).then(|| self.start[i] + j - self.first[i])
    }

    /// Eliminates columns j and j + 1 together (right-looking, see [`SkylineLlt::factorize`]):
    /// both columns of L are finished first, then every later row that reaches either column
    /// takes both updates in one pass over its envelope, a_ik −= L_ij L_kj, then
    /// a_ik −= L_i,j+1 L_k,j+1, for j + 1 < k ≤ i. Each entry receives its updates in the same
    /// order, with the same roundings, as eliminating one column at a time: the factor is
    /// bit-for-bit the same, with half the passes over the rows (docs/benchmarks.md).
    fn eliminate_pair(&mut self, j: usize) -> Result<(), usize> {
        let j1 = j + 1;
        // Column j: its pivot, then L_ij = a_ij / L_jj below it, gathered into `column`.
        let diag0 = self.start[j] + j - self.first[j];
        let l0 = self.pivot(j, self.values[diag0])?;
        self.values[diag0] = l0;
        let inv0 = self.inv_diag[j];
        let last0 = self.last[j];
        let last = last0.max(self.last[j1]);
        for i in j + 1..=last {
            self.column[i - j] = match self.entry(i, j) {
                Some(e) => {
                    self.values[e] *= inv0;
                    self.values[e]
                }
                None => 0.0,
            };
        }
        // Column j + 1: column j's update of a_{j+1,j+1} and a_{i,j+1}, its pivot, then L_i,j+1
        // below it, gathered into `column1`.
        let diag1 = self.start[j1] + j1 - self.first[j1];
        if self.first[j1] <= j {
            let l = self.column[1];
            self.values[diag1] -= l * l;
        }
        let l1 = self.pivot(j1, self.values[diag1])?;
        self.values[diag1] = l1;
        let inv1 = self.inv_diag[j1];
        let l10 = self.column[1];
        for i in j1 + 1..=last {
            self.column1[i - j1] = match self.entry(i, j1) {
                Some(e) => {
                    if self.first[i] <= j {
                        self.values[e] -= self.column[i - j] * l10;
                    }
                    self.values[e] *= inv1;
                    self.values[e]
                }
                None => 0.0,
            };
        }
        // Both updates of every later row, k from j + 2 to i.
        for i in j1 + 1..=last {
            if self.first[i] > j1 {
                continue;
            }
            let (li0, li1) = (self.column[i - j], self.column1[i - j1]);
            let from = self.start[i] + j1 + 1 - self.first[i];
            let len = i - j1;
            let row = &mut self.values[from..from + len];
            let c1 = &self.column1[1..=len];
            if self.first[i] <= j {
                let c0 = &self.column[2..2 + len];
                for t in 0..len {
                    row[t] -= li0 * c0[t];
                    row[t] -= li1 * c1[t];
                }
            } else {
                for t in 0..len {
                    row[t] -= li1 * c1[t];
                }
            }
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

    /// Pairing the columns changes no rounding: on ragged, non-monotone envelopes of odd and
    /// even size, every entry of L equals (==, exactly) that of a dense right-looking Cholesky
    /// written out one column at a time, with the same operations in the same order as the
    /// single-column skyline (multiply by 1 / L_jj, then a_ik −= L_ij L_kj for k in j+1..=i).
    /// Outside the envelope its updates are 0 − 0·x, so the dense form is a fair reference.
    #[test]
    fn pairs_of_columns_give_the_one_column_factor_exactly() {
        for starts in [
            &[0usize, 0, 0, 2, 3, 1, 4][..],
            &[0, 0, 1, 1, 0, 3, 5, 2, 7, 6][..],
            &[0, 1, 2, 3, 4, 5][..],
            &[0, 0, 0, 0, 0][..],
        ] {
            let n = starts.len();
            let mut a = nalgebra::DMatrix::<f64>::zeros(n, n);
            for i in 0..n {
                a[(i, i)] = 5.0 + (i as f64).sqrt();
                for j in starts[i]..i {
                    let v = 0.2 + 0.1 * ((3 * i + j) % 5) as f64 + 1e-3 * (i * j) as f64;
                    a[(i, j)] = v;
                    a[(j, i)] = v;
                }
            }
            let (offs, rows, vals) = lower_csc(&a);
            let mut llt = SkylineLlt::new(n, &offs, &rows);
            llt.factorize(&vals).unwrap();
            let mut d = a.clone();
            for j in 0..n {
                let ljj = d[(j, j)].sqrt();
                d[(j, j)] = ljj;
                let inv = 1.0 / ljj;
                for i in j + 1..n {
                    d[(i, j)] *= inv;
                }
                for i in j + 1..n {
                    for k in j + 1..=i {
                        let update = d[(i, j)] * d[(k, j)];
                        d[(i, k)] -= update;
                    }
                }
            }
            for i in 0..n {
                for j in llt.first[i]..=i {
                    let ours = llt.values[llt.start[i] + j - llt.first[i]];
                    assert!(
                        ours == d[(i, j)],
                        "n = {n}, L[{i}][{j}]: {ours} vs {}",
                        d[(i, j)]
                    );
                }
            }
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
