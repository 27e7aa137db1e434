//! Sparse assembly into a fixed pattern and the sparse Cholesky solve.
//!
//! The pattern of the (lower triangle of the) Hessian is built once per mesh with
//! nalgebra-sparse from the triplets of every node's full 2×2 diagonal block and every edge's
//! 2×2 off-diagonal block, so it never changes whatever the contact state. Each iteration only
//! zeroes the values and scatters the blocks into precomputed slots, then runs faer's numeric
//! Cholesky into a preallocated factor with a preallocated workspace: no allocation, no symbolic
//! analysis after construction.

use faer::dyn_stack::{MemBuffer, MemStack, StackReq};
use faer::linalg::cholesky::llt::factor::{LltParams, LltRegularization};
use faer::sparse::linalg::cholesky::{
    CholeskySymbolicParams, SymbolicCholesky, SymmetricOrdering, factorize_symbolic_cholesky,
};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::{Conj, MatMut, Par, Side, Spec};
use nalgebra_sparse::{CooMatrix, CscMatrix};

use crate::energy::Mat2;

/// Errors of the linear solve.
#[derive(Debug, thiserror::Error)]
pub enum LinearSolveError {
    /// The assembled Hessian was not numerically positive definite.
    #[error("Hessian not positive definite (Cholesky pivot {index} non-positive)")]
    NotPositiveDefinite {
        /// Index of the failing pivot.
        index: usize,
    },
    /// faer refused the symbolic analysis.
    #[error("symbolic Cholesky analysis failed: {0}")]
    Symbolic(String),
}

/// Slots of the 3 lower entries (0,0), (1,0), (1,1) of a node's diagonal block.
type DiagSlots = [usize; 3];
/// Slots of the 4 entries (r, c), r, c ∈ {0, 1}, of an edge's off-diagonal block
/// (rows of the higher node, columns of the lower node: all in the lower triangle).
type OffSlots = [usize; 4];

/// The Hessian in its fixed pattern with its Cholesky factor.
pub struct HessianSystem {
    /// Lower triangle, CSC, values refilled per iteration.
    matrix: CscMatrix<f64>,
    diag_slots: Vec<DiagSlots>,
    edge_slots: Vec<OffSlots>,
    /// Edge endpoints, (lo, hi) ordered as the off-diagonal block's columns and rows.
    edges: Vec<[usize; 2]>,
    symbolic: SymbolicCholesky<usize>,
    l_values: Vec<f64>,
    workspace: MemBuffer,
    /// Symbolic analyses done: counted where faer's analysis is called ([`analyse`]), so a
    /// second call anywhere would show (1 for the life of the system).
    pub symbolic_factorisations: usize,
    /// Numeric factorisations done: counted in [`HessianSystem::factorize`].
    pub numeric_factorisations: usize,
}

/// faer's symbolic Cholesky analysis (AMD ordering, elimination tree, the factor's pattern) of
/// the lower-triangle pattern of `matrix`; every call adds one to `count`.
fn analyse(
    matrix: &CscMatrix<f64>,
    count: &mut usize,
) -> Result<SymbolicCholesky<usize>, LinearSolveError> {
    *count += 1;
    let n = matrix.nrows();
    let sym = SymbolicSparseColMatRef::new_checked(
        n,
        n,
        matrix.col_offsets(),
        None,
        matrix.row_indices(),
    );
    factorize_symbolic_cholesky(
        sym,
        Side::Lower,
        SymmetricOrdering::Amd,
        CholeskySymbolicParams::default(),
    )
    .map_err(|e| LinearSolveError::Symbolic(format!("{e:?}")))
}

fn slot(m: &CscMatrix<f64>, row: usize, col: usize) -> usize {
    let offs = m.col_offsets();
    let rows = &m.row_indices()[offs[col]..offs[col + 1]];
    offs[col]
        + rows
            .binary_search(&row)
            .expect("pattern contains every block by construction")
}

impl HessianSystem {
    /// Builds the pattern for `n_nodes` nodes and `edges`, and the symbolic factorisation.
    pub fn new(n_nodes: usize, edges: &[[usize; 2]]) -> Result<Self, LinearSolveError> {
        let n = 2 * n_nodes;
        let mut coo = CooMatrix::<f64>::new(n, n);
        for i in 0..n_nodes {
            for (r, c) in [(0, 0), (1, 0), (1, 1)] {
                coo.push(2 * i + r, 2 * i + c, 0.0);
            }
        }
        let ordered: Vec<[usize; 2]> = edges.iter().map(|&[a, b]| [a.min(b), a.max(b)]).collect();
        for &[lo, hi] in &ordered {
            if lo == hi {
                continue;
            }
            for r in 0..2 {
                for c in 0..2 {
                    coo.push(2 * hi + r, 2 * lo + c, 0.0);
                }
            }
        }
        let matrix = CscMatrix::from(&coo);
        let diag_slots = (0..n_nodes)
            .map(|i| {
                [
                    slot(&matrix, 2 * i, 2 * i),
                    slot(&matrix, 2 * i + 1, 2 * i),
                    slot(&matrix, 2 * i + 1, 2 * i + 1),
                ]
            })
            .collect();
        let edge_slots = ordered
            .iter()
            .map(|&[lo, hi]| {
                [
                    slot(&matrix, 2 * hi, 2 * lo),
                    slot(&matrix, 2 * hi, 2 * lo + 1),
                    slot(&matrix, 2 * hi + 1, 2 * lo),
                    slot(&matrix, 2 * hi + 1, 2 * lo + 1),
                ]
            })
            .collect();
        let mut symbolic_factorisations = 0;
        let symbolic = analyse(&matrix, &mut symbolic_factorisations)?;
        let req = StackReq::any_of(&[
            symbolic
                .factorize_numeric_llt_scratch::<f64>(Par::Seq, Spec::<LltParams, f64>::default()),
            symbolic.solve_in_place_scratch::<f64>(1, Par::Seq),
        ]);
        Ok(HessianSystem {
            l_values: vec![0.0; symbolic.len_val()],
            workspace: MemBuffer::new(req),
            symbolic,
            matrix,
            diag_slots,
            edge_slots,
            edges: ordered,
            symbolic_factorisations,
            numeric_factorisations: 0,
        })
    }

    /// Dimension (2 × nodes).
    pub fn dim(&self) -> usize {
        self.matrix.nrows()
    }

    /// Refill the values from per-node diagonal blocks and per-edge spring blocks B (the edge's
    /// element Hessian being [[B, −B], [−B, B]]).
    pub fn assemble(&mut self, diag: &[Mat2], edge_blocks: &[Mat2]) {
        let vals = self.matrix.values_mut();
        vals.fill(0.0);
        for (s, d) in self.diag_slots.iter().zip(diag) {
            vals[s[0]] += d[(0, 0)];
            vals[s[1]] += d[(1, 0)];
            vals[s[2]] += d[(1, 1)];
        }
        for ((e, s), b) in self.edges.iter().zip(&self.edge_slots).zip(edge_blocks) {
            for node in e {
                let d = &self.diag_slots[*node];
                vals[d[0]] += b[(0, 0)];
                vals[d[1]] += b[(1, 0)];
                vals[d[2]] += b[(1, 1)];
            }
            vals[s[0]] -= b[(0, 0)];
            vals[s[1]] -= b[(0, 1)];
            vals[s[2]] -= b[(1, 0)];
            vals[s[3]] -= b[(1, 1)];
        }
    }

    /// Numeric Cholesky of the assembled matrix (into the preallocated factor).
    pub fn factorize(&mut self) -> Result<(), LinearSolveError> {
        self.numeric_factorisations += 1;
        let n = self.dim();
        let a = SparseColMatRef::new(
            SymbolicSparseColMatRef::new_checked(
                n,
                n,
                self.matrix.col_offsets(),
                None,
                self.matrix.row_indices(),
            ),
            self.matrix.values(),
        );
        let stack = MemStack::new(&mut self.workspace);
        self.symbolic
            .factorize_numeric_llt(
                &mut self.l_values,
                a,
                Side::Lower,
                LltRegularization::default(),
                Par::Seq,
                stack,
                Spec::<LltParams, f64>::default(),
            )
            .map(|_| ())
            .map_err(|e| match e {
                faer::linalg::solvers::LltError::NonPositivePivot { index } => {
                    LinearSolveError::NotPositiveDefinite { index }
                }
            })
    }

    /// Solves H x = rhs in place with the last factorisation.
    pub fn solve_in_place(&mut self, rhs: &mut [f64]) {
        let llt = faer::sparse::linalg::cholesky::LltRef::new(&self.symbolic, &self.l_values);
        let stack = MemStack::new(&mut self.workspace);
        let n = rhs.len();
        let rhs = MatMut::from_column_major_slice_mut(rhs, n, 1);
        llt.solve_in_place_with_conj(Conj::No, rhs, Par::Seq, stack);
    }

    /// The assembled lower triangle (for tests and diagnostics).
    pub fn matrix(&self) -> &CscMatrix<f64> {
        &self.matrix
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assembles_and_solves_a_spring_chain() {
        // Three nodes, two edges; mass 1 on each diagonal, spring block B = diag(2, 3).
        let mut sys = HessianSystem::new(3, &[[0, 1], [2, 1]]).unwrap();
        let diag = vec![Mat2::identity(); 3];
        let b = Mat2::new(2.0, 0.5, 0.5, 3.0);
        sys.assemble(&diag, &[b, b]);
        // Dense reference.
        let mut dense = nalgebra::DMatrix::<f64>::identity(6, 6);
        for [p, q] in [[0usize, 1usize], [2, 1]] {
            for r in 0..2 {
                for c in 0..2 {
                    dense[(2 * p + r, 2 * p + c)] += b[(r, c)];
                    dense[(2 * q + r, 2 * q + c)] += b[(r, c)];
                    dense[(2 * p + r, 2 * q + c)] -= b[(r, c)];
                    dense[(2 * q + r, 2 * p + c)] -= b[(r, c)];
                }
            }
        }
        let rhs = nalgebra::DVector::from_fn(6, |i, _| i as f64 - 2.5);
        let expect = dense.clone().cholesky().unwrap().solve(&rhs);
        sys.factorize().unwrap();
        let mut x: Vec<f64> = rhs.iter().copied().collect();
        sys.solve_in_place(&mut x);
        for i in 0..6 {
            assert!(
                (x[i] - expect[i]).abs() < 1e-12,
                "{i}: {} vs {}",
                x[i],
                expect[i]
            );
        }
        assert_eq!(sys.symbolic_factorisations, 1);
        // Two more numeric factorisations reuse the analysis.
        sys.factorize().unwrap();
        sys.factorize().unwrap();
        assert_eq!(sys.numeric_factorisations, 3);
        assert_eq!(sys.symbolic_factorisations, 1);
    }

    #[test]
    fn indefinite_matrix_is_an_error() {
        let mut sys = HessianSystem::new(1, &[]).unwrap();
        sys.assemble(&[Mat2::new(1.0, 0.0, 0.0, -1.0)], &[]);
        assert!(matches!(
            sys.factorize(),
            Err(LinearSolveError::NotPositiveDefinite { .. })
        ));
    }
}
