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
//! the sparse path factors), keeps the envelope padded to a band of fixed width row by row in
//! one preallocated buffer and factors in place: no allocation after construction, no ordering
//! (the mesh's own). The band costs a little more arithmetic than the envelope (the square's
//! rows are nearly all of the widest reach) and saves every test of where a row starts: 25 %
//! faster at n_seg = 4 and 16 than the ragged envelope, with the same factor bit for bit
//! (docs/benchmarks.md).

/// LLᵀ of a symmetric positive definite matrix kept in its lower band, row by row.
///
/// Storage: every row i keeps the w + 1 columns i − w ..= i, w being the envelope's widest
/// reach (max over rows of i − f(i)), so entry (i, c) lives at `i·w + c + w` and a column's
/// entries below the diagonal are w apart. Entries of the band outside the envelope hold
/// zeros and stay zero (Cholesky fills nothing left of a row's first nonzero); w + 2 rows of
/// zeros after the last keep every elimination's window inside the buffer. So each pair of
/// columns is eliminated over the same fixed window with no test of where a row starts, and
/// for the widths of the book's square and its refinements the window's size is a compile-time
/// constant (`Fixed`), which lets the compiler unroll it. The factor is the envelope
/// Cholesky's entry for entry, with the same roundings: outside the envelope the band's extra
/// updates are 0 − 0·x.
pub struct SkylineLlt {
    /// First column of each row's envelope (the row's first nonzero in the lower triangle).
    first: Vec<usize>,
    /// The band's half-width w.
    width: usize,
    /// Entries of the envelope (for [`SkylineLlt::len`]).
    envelope_len: usize,
    /// The band, row by row (n + w + 2 rows of w + 1): the matrix, assembled straight into it
    /// ([`SkylineLlt::band_mut`]), overwritten by L at each factorisation.
    values: Vec<f64>,
    /// Whether `values` holds a factor (or what a failed factorisation left) rather than a
    /// matrix: set by [`SkylineLlt::factorize_in_place`], cleared by [`SkylineLlt::band_mut`].
    factored: bool,
    /// For each stored CSC value (column-major order), its index in the band.
    slots: Vec<usize>,
    /// 1 / L_ii of the last factorisation (a column of L is scaled by it, and the solve
    /// multiplies by it: a multiplication has a quarter of a division's latency).
    inv_diag: Vec<f64>,
    /// Column j of L during the elimination of columns j and j + 1: `column[r]` = L_{j+r, j}
    /// for r in 1 ..= w; `column[w + 1]` stays 0 (row j + w + 1 does not reach column j).
    column: Vec<f64>,
    /// Column j + 1 of L: `column1[r]` = L_{j+1+r, j+1} for r in 1 ..= w.
    column1: Vec<f64>,
    /// Whether the processor has AVX2 (the elimination then runs in four-wide vectors).
    avx2: bool,
}

/// The band's half-width, fixed at compile time ([`Fixed`]) or at run time (`usize`).
trait Width: Copy {
    fn get(self) -> usize;
}

/// A half-width known at compile time: the elimination's loops have constant trip counts.
#[derive(Clone, Copy)]
struct Fixed<const W: usize>;

impl<const W: usize> Width for Fixed<W> {
    #[inline(always)]
    fn get(self) -> usize {
        W
    }
}

impl Width for usize {
    #[inline(always)]
    fn get(self) -> usize {
        self
    }
}

/// L_jj = √a_jj and 1 / L_jj; a pivot that is not positive (or not finite) is refused as
/// `Err(j)`.
#[inline(always)]
fn pivot(j: usize, d: f64) -> Result<(f64, f64), usize> {
    if !(d > 0.0 && d.is_finite()) {
        return Err(j);
    }
    let ljj = d.sqrt();
    Ok((ljj, 1.0 / ljj))
}

impl SkylineLlt {
    /// The band of the lower-triangle pattern `col_offsets`/`row_indices` of an n × n matrix
    /// (row indices ≥ column index in every column; the diagonal present).
    pub fn new(n: usize, col_offsets: &[usize], row_indices: &[usize]) -> SkylineLlt {
        let mut first: Vec<usize> = (0..n).collect();
        for col in 0..n {
            for &row in &row_indices[col_offsets[col]..col_offsets[col + 1]] {
                first[row] = first[row].min(col);
            }
        }
        let width = first
            .iter()
            .enumerate()
            .map(|(i, &f)| i - f)
            .max()
            .unwrap_or(0);
        let envelope_len = first.iter().enumerate().map(|(i, &f)| i - f + 1).sum();
        let mut slots = Vec::with_capacity(row_indices.len());
        for col in 0..n {
            for &row in &row_indices[col_offsets[col]..col_offsets[col + 1]] {
                slots.push(row * width + col + width);
            }
        }
        SkylineLlt {
            first,
            width,
            envelope_len,
            values: vec![0.0; (n + width + 2) * (width + 1)],
            factored: false,
            slots,
            inv_diag: vec![0.0; n],
            column: vec![0.0; width + 2],
            column1: vec![0.0; width + 2],
            #[cfg(target_arch = "x86_64")]
            avx2: std::arch::is_x86_feature_detected!("avx2"),
            #[cfg(not(target_arch = "x86_64"))]
            avx2: false,
        }
    }

    /// Multiply-adds of one factorisation inside the envelope:
    /// Σᵢ Σ_{f(i) ≤ j ≤ i} (j − max(f(i), f(j))).
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

    /// Entries of the envelope (the band stores a few more, all zero).
    pub fn len(&self) -> usize {
        self.envelope_len
    }

    /// True when the matrix has no rows.
    pub fn is_empty(&self) -> bool {
        self.first.is_empty()
    }

    /// The band's half-width w: the widest reach of a row left of its diagonal.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Index of entry (i, c) in `values` (c in i − w ..= i).
    #[inline(always)]
    fn at(&self, i: usize, c: usize) -> usize {
        i * self.width + c + self.width
    }

    /// The band index of the `k`-th stored value of the CSC pattern given to
    /// [`SkylineLlt::new`] (column-major order): where that entry of the matrix goes in
    /// [`SkylineLlt::band_mut`].
    pub fn band_index(&self, k: usize) -> usize {
        self.slots[k]
    }

    /// The band, to assemble the next matrix into: the caller zeroes it and writes the
    /// pattern's entries at [`SkylineLlt::band_index`], then calls
    /// [`SkylineLlt::factorize_in_place`]. Assembling straight into the band saves a copy of
    /// the matrix per factorisation; the price is that a failed factorisation leaves no matrix
    /// behind, and the caller assembles again to retry.
    pub fn band_mut(&mut self) -> &mut [f64] {
        self.factored = false;
        &mut self.values
    }

    /// The matrix in the band in the CSC order given to [`SkylineLlt::new`]; `None` once it
    /// has been factored.
    pub fn csc_values(&self, out: &mut [f64]) -> Option<()> {
        if self.factored {
            return None;
        }
        for (o, &s) in out.iter_mut().zip(&self.slots) {
            *o = self.values[s];
        }
        Some(())
    }

    /// Whether the band holds a factor (or a failed factorisation's remains) rather than an
    /// assembled matrix.
    pub fn is_factored(&self) -> bool {
        self.factored
    }

    /// Factors the matrix whose lower-triangle values, in the CSC pattern given to
    /// [`SkylineLlt::new`], are `csc_values`.
    pub fn factorize(&mut self, csc_values: &[f64]) -> Result<(), usize> {
        let band = self.band_mut();
        band.fill(0.0);
        for (&s, &v) in self.slots.iter().zip(csc_values) {
            self.values[s] += v;
        }
        self.factorize_in_place()
    }

    /// Factors the matrix assembled in [`SkylineLlt::band_mut`], overwriting it with L. A
    /// pivot that is not positive (or not finite) is returned as its row index.
    ///
    /// # Panics
    /// If the band holds no matrix (already factored since it was last assembled).
    ///
    /// Right-looking: once column j's pivot is final, its entries below the diagonal are
    /// scaled into L's column j (gathered into one short buffer), and every later row i that
    /// reaches column j takes the update a_ik −= L_ij L_kj for j < k ≤ i, one contiguous run of
    /// its row. Those updates are independent multiply-adds, which the processor overlaps. The
    /// left-looking form (each L_ij one dot product over row i, which needs L_i,j−1 first) is
    /// one chain of dependent operations along every row, and measured 21 % slower at
    /// n_seg = 4 (docs/benchmarks.md). Columns are eliminated two at a time
    /// (`SkylineLlt::eliminate_pair`): one pass over each row for both updates, with the
    /// same roundings as one column at a time.
    pub fn factorize_in_place(&mut self) -> Result<(), usize> {
        assert!(
            !self.factored,
            "the band holds a factor: assemble the matrix again before factorising it"
        );
        self.factored = true;
        #[cfg(target_arch = "x86_64")]
        if self.avx2 {
            // SAFETY: `avx2` is set only where the processor reported AVX2 (SkylineLlt::new).
            return unsafe { self.eliminate_all_avx2() };
        }
        self.eliminate_dispatch()
    }

    /// [`SkylineLlt::eliminate_dispatch`] compiled with AVX2 (four-wide vectors) but not FMA:
    /// each product and difference is still rounded on its own, so the factor is the same bit
    /// for bit.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn eliminate_all_avx2(&mut self) -> Result<(), usize> {
        self.eliminate_dispatch()
    }

    /// The elimination for this band's width. The widths of the square's Hessian at
    /// n_seg = 4, 8 and 16 (2·n_seg + 5: a node couples to the node n_seg + 2 after it) get
    /// their own unrolled elimination; other widths run the same code with w a variable.
    #[inline(always)]
    fn eliminate_dispatch(&mut self) -> Result<(), usize> {
        match self.width {
            13 => self.eliminate_all(Fixed::<13>),
            21 => self.eliminate_all(Fixed::<21>),
            37 => self.eliminate_all(Fixed::<37>),
            w => self.eliminate_all(w),
        }
    }

    #[inline(always)]
    fn eliminate_all<W: Width>(&mut self, width: W) -> Result<(), usize> {
        let n = self.first.len();
        let mut j = 0;
        while j + 1 < n {
            self.eliminate_pair(width, j)?;
            j += 2;
        }
        if j < n {
            // The last column of an odd dimension: its pivot, with nothing below it.
            let diag = self.at(j, j);
            let (ljj, inv) = pivot(j, self.values[diag])?;
            self.values[diag] = ljj;
            self.inv_diag[j] = inv;
        }
        Ok(())
    }

    /// Eliminates columns j and j + 1 together (right-looking, see [`SkylineLlt::factorize`]):
    /// both columns of L are finished first, then every later row takes both updates in one
    /// pass over its band, a_ik −= L_ij L_kj, then a_ik −= L_i,j+1 L_k,j+1, for
    /// j + 1 < k ≤ i. Each entry receives its updates in the same order, with the same
    /// roundings, as eliminating one column at a time: the factor is bit-for-bit the same, with
    /// half the passes over the rows (docs/benchmarks.md).
    #[inline(always)]
    fn eliminate_pair<W: Width>(&mut self, width: W, j: usize) -> Result<(), usize> {
        let w = width.get();
        let d0 = self.at(j, j);
        // The window: rows j ..= j + w + 1 from column j on. Offsets below are from (j, j):
        // (j + s, j + c) is at s·w + c.
        let win = &mut self.values[d0..d0 + (w + 2) * w + 2];
        let col0 = &mut self.column[..w + 2];
        let col1 = &mut self.column1[..w + 2];
        // Column j: its pivot, then L_{j+r, j} = a / L_jj below it.
        let (l0, inv0) = pivot(j, win[0])?;
        win[0] = l0;
        for r in 1..=w {
            win[r * w] *= inv0;
            col0[r] = win[r * w];
        }
        // Column j + 1: column j's update of its entries, its pivot, then L below it.
        let l10 = col0[1];
        let d1 = w + 1;
        win[d1] -= l10 * l10;
        let (l1, inv1) = pivot(j + 1, win[d1])?;
        win[d1] = l1;
        for r in 1..=w {
            let e = d1 + r * w;
            win[e] -= col0[r + 1] * l10;
            win[e] *= inv1;
            col1[r] = win[e];
        }
        // Both updates of rows j + 1 + r, columns j + 2 ..= j + 1 + r, two rows per pass: each
        // entry of the two columns is loaded once for both rows. The entries go in pairs,
        // written out so that the compiler packs each pair into one vector register (19 %
        // faster at n_seg = 4 than the plain loop, docs/benchmarks.md); each entry still takes
        // its two updates in order, (a − L_ij L_kj) − L_i,j+1 L_k,j+1.
        let mut r = 1;
        while r < w {
            let from_a = (r + 1) * w + 2;
            let from_b = from_a + w;
            let (head, tail) = win.split_at_mut(from_b);
            let row_a = &mut head[from_a..from_a + r];
            let row_b = &mut tail[..r + 1];
            let (la0, la1) = (col0[r + 1], col1[r]);
            let (lb0, lb1) = (col0[r + 2], col1[r + 1]);
            let c0 = &col0[2..3 + r];
            let c1 = &col1[1..2 + r];
            let even = r & !1;
            for (((a, b), p), q) in row_a[..even]
                .chunks_exact_mut(2)
                .zip(row_b[..even].chunks_exact_mut(2))
                .zip(c0[..even].chunks_exact(2))
                .zip(c1[..even].chunks_exact(2))
            {
                let (a0, a1) = (
                    (a[0] - la0 * p[0]) - la1 * q[0],
                    (a[1] - la0 * p[1]) - la1 * q[1],
                );
                let (b0, b1) = (
                    (b[0] - lb0 * p[0]) - lb1 * q[0],
                    (b[1] - lb0 * p[1]) - lb1 * q[1],
                );
                a[0] = a0;
                a[1] = a1;
                b[0] = b0;
                b[1] = b1;
            }
            for t in even..r {
                row_a[t] -= la0 * c0[t];
                row_a[t] -= la1 * c1[t];
                row_b[t] -= lb0 * c0[t];
                row_b[t] -= lb1 * c1[t];
            }
            row_b[r] -= lb0 * c0[r];
            row_b[r] -= lb1 * c1[r];
            r += 2;
        }
        if r == w {
            // The last row of an odd count.
            let from = (r + 1) * w + 2;
            let row = &mut win[from..from + r];
            let (li0, li1) = (col0[r + 1], col1[r]);
            let c0 = &col0[2..2 + r];
            let c1 = &col1[1..1 + r];
            let even = r & !1;
            for ((a, p), q) in row[..even]
                .chunks_exact_mut(2)
                .zip(c0[..even].chunks_exact(2))
                .zip(c1[..even].chunks_exact(2))
            {
                let (a0, a1) = (
                    (a[0] - li0 * p[0]) - li1 * q[0],
                    (a[1] - li0 * p[1]) - li1 * q[1],
                );
                a[0] = a0;
                a[1] = a1;
            }
            for t in even..r {
                row[t] -= li0 * c0[t];
                row[t] -= li1 * c1[t];
            }
        }
        self.inv_diag[j] = inv0;
        self.inv_diag[j + 1] = inv1;
        Ok(())
    }

    /// Solves A x = rhs in place with the last factorisation (L y = b, then Lᵀ x = y), over
    /// each row's envelope.
    pub fn solve_in_place(&self, rhs: &mut [f64]) {
        #[cfg(target_arch = "x86_64")]
        if self.avx2 {
            // SAFETY: `avx2` is set only where the processor reported AVX2 (SkylineLlt::new).
            return unsafe { self.solve_avx2(rhs) };
        }
        self.substitute(rhs)
    }

    /// [`SkylineLlt::substitute`] compiled with AVX2 and without FMA (the same roundings).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn solve_avx2(&self, rhs: &mut [f64]) {
        self.substitute(rhs)
    }

    /// L y = b, then Lᵀ x = y, in place.
    #[inline(always)]
    fn substitute(&self, rhs: &mut [f64]) {
        let n = self.first.len();
        // y_{i−1} is carried in a register into row i's dot product ([`dot_last`]).
        let mut last = 0.0;
        for i in 0..n {
            let fi = self.first[i];
            let row = &self.values[self.at(i, fi)..self.at(i, i)];
            let sum = if fi < i {
                dot_last(row, &rhs[fi..i - 1], last)
            } else {
                0.0
            };
            last = (rhs[i] - sum) * self.inv_diag[i];
            rhs[i] = last;
        }
        // Back substitution: row i's update of entry i − 1 (the last it makes to it) is done on
        // its own and carried in a register into row i − 1, so that the chain from x_i to
        // x_{i−1} does not go through memory (docs/benchmarks.md).
        let mut next = if n > 0 { rhs[n - 1] } else { 0.0 };
        for i in (0..n).rev() {
            let fi = self.first[i];
            let row = &self.values[self.at(i, fi)..self.at(i, i)];
            let xi = next * self.inv_diag[i];
            rhs[i] = xi;
            if let Some((l_last, row)) = row.split_last() {
                next = rhs[i - 1] - l_last * xi;
                for (r, l) in rhs[fi..i - 1].iter_mut().zip(row) {
                    *r -= l * xi;
                }
            } else if i > 0 {
                next = rhs[i - 1];
            }
        }
    }

    /// L_ij of the last factorisation (0 outside the envelope).
    pub fn l(&self, i: usize, j: usize) -> f64 {
        if j > i || j < self.first[i] {
            0.0
        } else {
            self.values[self.at(i, j)]
        }
    }
}

/// Σ aₖ bₖ over `a` and `b` followed by `last` (`a` one longer than `b`), in four interleaved
/// partial sums over chunks of four (independent chains the compiler can keep in vector
/// registers), then the tail one by one: the grouping the forward substitution has always used,
/// so the same bits. `last` is the value the substitution has just computed and stored; taking
/// it from a register, rather than loading it back in a vector load that spans that fresh
/// store (which the processor cannot forward from a narrower store, so the load waits for the
/// store to complete), made the solve 13 % faster at n_seg = 4 and 8 (docs/benchmarks.md).
#[inline(always)]
fn dot_last(a: &[f64], b: &[f64], last: f64) -> f64 {
    let n = a.len();
    debug_assert_eq!(b.len() + 1, n);
    let full = n - n % 4;
    let mut acc = [0.0; 4];
    if n.is_multiple_of(4) {
        // The last product is the fourth of the last chunk.
        for (x, y) in a[..full - 4]
            .chunks_exact(4)
            .zip(b[..full - 4].chunks_exact(4))
        {
            for k in 0..4 {
                acc[k] += x[k] * y[k];
            }
        }
        for k in 0..3 {
            acc[k] += a[full - 4 + k] * b[full - 4 + k];
        }
        acc[3] += a[n - 1] * last;
        return (acc[0] + acc[1]) + (acc[2] + acc[3]);
    }
    for (x, y) in a[..full].chunks_exact(4).zip(b[..full].chunks_exact(4)) {
        for k in 0..4 {
            acc[k] += x[k] * y[k];
        }
    }
    let mut sum = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    for (x, y) in a[full..n - 1].iter().zip(&b[full..]) {
        sum += x * y;
    }
    sum + a[n - 1] * last
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
                let ours = llt.l(i, j);
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

    /// Factors the SPD matrix whose row i starts at column `starts[i]` with SkylineLlt and with
    /// a dense right-looking Cholesky written out one column at a time, the same operations in
    /// the same order as the single-column skyline (multiply by 1 / L_jj, then
    /// a_ik −= L_ij L_kj for k in j+1..=i), and asserts every entry of L is equal (==, exactly).
    /// Outside the envelope the dense form's updates are 0 − 0·x, so it is a fair reference.
    /// Returns the band's width.
    fn assert_exact_factor(starts: &[usize]) -> usize {
        let n = starts.len();
        let mut a = nalgebra::DMatrix::<f64>::zeros(n, n);
        for i in 0..n {
            a[(i, i)] = 5.0 + (i as f64).sqrt();
            for j in starts[i]..i {
                let v = 0.2 + 0.1 * ((3 * i + j) % 5) as f64 + 1e-3 * (i * j % 97) as f64;
                a[(i, j)] = v / (1.0 + 0.1 * (i - j) as f64);
                a[(j, i)] = a[(i, j)];
            }
        }
        let (offs, rows, vals) = lower_csc(&a);
        // Both code paths: the one this processor gets, and the plain one (the AVX2 build of
        // the same code, where the processor has it, must not change a bit).
        let mut llt = SkylineLlt::new(n, &offs, &rows);
        llt.factorize(&vals).unwrap();
        let mut plain = SkylineLlt::new(n, &offs, &rows);
        plain.avx2 = false;
        plain.factorize(&vals).unwrap();
        let b: Vec<f64> = (0..n).map(|i| (0.7 * i as f64).cos()).collect();
        let (mut x, mut x_plain) = (b.clone(), b);
        llt.solve_in_place(&mut x);
        plain.solve_in_place(&mut x_plain);
        assert_eq!(x, x_plain, "n = {n}: the two solve paths differ");
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
                for (path, f) in [("default", &llt), ("plain", &plain)] {
                    let ours = f.l(i, j);
                    assert!(
                        ours == d[(i, j)],
                        "n = {n}, {path} path, L[{i}][{j}]: {ours} vs {}",
                        d[(i, j)]
                    );
                }
            }
        }
        llt.width()
    }

    /// Pairing the columns changes no rounding: on ragged, non-monotone envelopes of odd and
    /// even size (bands of a run-time width), L equals the one-column dense factor exactly.
    #[test]
    fn pairs_of_columns_give_the_one_column_factor_exactly() {
        for starts in [
            &[0usize, 0, 0, 2, 3, 1, 4][..],
            &[0, 0, 1, 1, 0, 3, 5, 2, 7, 6][..],
            &[0, 1, 2, 3, 4, 5][..],
            &[0, 0, 0, 0, 0][..],
        ] {
            assert_exact_factor(starts);
        }
    }

    /// The eliminations unrolled for the square's widths (13, 21 and 37: n_seg = 4, 8, 16)
    /// give the same factor as the one-column dense form, exactly, on ragged envelopes whose
    /// widest row reaches exactly that far (so the fixed-width path is the one taken), of odd
    /// and even size.
    #[test]
    fn fixed_width_eliminations_give_the_one_column_factor_exactly() {
        for w in [13usize, 21, 37] {
            for n in [2 * w + 7, 2 * w + 8] {
                let starts: Vec<usize> = (0..n).map(|i| i.saturating_sub(w - i % 3)).collect();
                assert_eq!(assert_exact_factor(&starts), w, "n = {n}");
            }
        }
    }

    /// The plain form of the forward substitution's dot product before [`dot_last`]: four
    /// partial sums over chunks of four, then the tail one by one.
    fn plain_dot(a: &[f64], b: &[f64]) -> f64 {
        let full = a.len() - a.len() % 4;
        let mut acc = [0.0; 4];
        for (x, y) in a[..full].chunks_exact(4).zip(b[..full].chunks_exact(4)) {
            for k in 0..4 {
                acc[k] += x[k] * y[k];
            }
        }
        let mut sum = (acc[0] + acc[1]) + (acc[2] + acc[3]);
        for (x, y) in a[full..].iter().zip(&b[full..]) {
            sum += x * y;
        }
        sum
    }

    /// Taking the last factor from a register changes no rounding: for every length from 1
    /// to 21 (every position of the last product: in the tail, or the fourth of the last
    /// chunk), `dot_last` equals the plain dot product bit for bit, on values whose products
    /// and sums all round.
    #[test]
    fn dot_with_the_last_factor_apart_is_the_plain_dot_exactly() {
        for n in 1..=21 {
            let a: Vec<f64> = (0..n).map(|k| (1.3 * k as f64 + 0.7).sin() / 3.0).collect();
            let b: Vec<f64> = (0..n).map(|k| (0.9 * k as f64).cos() / 7.0 + 0.1).collect();
            let plain = plain_dot(&a, &b);
            let apart = dot_last(&a, &b[..n - 1], b[n - 1]);
            assert_eq!(plain.to_bits(), apart.to_bits(), "length {n}");
        }
    }

    /// The solve is the plain forward and back substitution, bit for bit: on ragged envelopes
    /// (rows that reach back by 0 to 5 columns, so every position of the last product in the
    /// dot products, and rows that reach nothing), the solution equals, with ==, a
    /// substitution written out plainly over L's entries: y_i = (b_i − Σ L_ik y_k) / L_ii with
    /// the sum grouped as the solver has always grouped it ([`plain_dot`]), then
    /// x_k −= L_ik x_i row by row from the last.
    #[test]
    fn solve_is_the_plain_substitution_exactly() {
        for starts in [
            &[0usize, 0, 0, 2, 3, 1, 4, 7, 3, 9, 4, 6][..],
            &[0, 1, 2, 3, 4, 5][..],
            &[0, 0, 0, 0, 0, 0, 0, 0, 0][..],
        ] {
            let n = starts.len();
            let mut a = nalgebra::DMatrix::<f64>::zeros(n, n);
            for i in 0..n {
                a[(i, i)] = 5.0 + (i as f64).sqrt();
                for j in starts[i]..i {
                    let v = (0.2 + 0.1 * ((3 * i + j) % 5) as f64) / 3.0;
                    a[(i, j)] = v;
                    a[(j, i)] = v;
                }
            }
            let (offs, rows, vals) = lower_csc(&a);
            let mut llt = SkylineLlt::new(n, &offs, &rows);
            llt.factorize(&vals).unwrap();
            let b: Vec<f64> = (0..n).map(|i| (0.7 * i as f64).cos() / 7.0).collect();
            let mut x = b.clone();
            llt.solve_in_place(&mut x);
            let mut y = b;
            for i in 0..n {
                let f = llt.first[i];
                let row: Vec<f64> = (f..i).map(|k| llt.l(i, k)).collect();
                y[i] = (y[i] - plain_dot(&row, &y[f..i])) * llt.inv_diag[i];
            }
            for i in (0..n).rev() {
                let xi = y[i] * llt.inv_diag[i];
                y[i] = xi;
                let f = llt.first[i];
                for (k, yk) in y[f..i].iter_mut().enumerate() {
                    *yk -= llt.l(i, f + k) * xi;
                }
            }
            assert_eq!(x, y, "envelope {starts:?}");
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
