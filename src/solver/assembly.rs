//! Sparse assembly into a fixed pattern and the sparse Cholesky solve.
//!
//! The pattern of the (lower triangle of the) Hessian is built once per mesh with
//! nalgebra-sparse from the triplets of every node's full 2×2 diagonal block and every edge's
//! 2×2 off-diagonal block, so it never changes whatever the contact state. Each iteration only
//! zeroes the values and scatters the blocks into precomputed slots, then runs faer's numeric
//! Cholesky into a preallocated factor with a preallocated workspace: no allocation, no symbolic
//! analysis after construction.
//!
//! Small systems (at most [`SKYLINE_MAX_DIM`] unknowns: the book's square and meshes up to
//! n_seg = 16) are factored instead inside their envelope ([`SkylineLlt`]), in the mesh's own
//! node order: at those sizes faer's sparse factorisation spends most of its instructions on
//! bookkeeping, not arithmetic (docs/benchmarks.md has the counts). The pattern, the values and
//! the assembly are the same for both; only the factorisation differs.

use faer::dyn_stack::{MemBuffer, MemStack, StackReq};
use faer::linalg::cholesky::llt::factor::{LltParams, LltRegularization};
use faer::sparse::linalg::cholesky::{
    CholeskySymbolicParams, SymbolicCholesky, SymmetricOrdering, factorize_symbolic_cholesky,
};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::{Conj, MatMut, Par, Side, Spec};
use nalgebra_sparse::{CooMatrix, CscMatrix};

use crate::energy::Mat2;
use crate::solver::skyline::SkylineLlt;

/// The largest system, in unknowns (2 × nodes), factored by the skyline Cholesky rather than
/// faer's sparse one. Chosen from instruction counts (callgrind) of whole runs of
/// cases/slope_mu0.11.toml at n_seg = 4, 8 and 16 (50, 162 and 578 unknowns), where the skyline
/// path executes 2.3×, 1.3× and 1.2× fewer instructions in the factorisation
/// (docs/benchmarks.md); above n_seg = 16 the envelope's work grows as n·b² (bandwidth b ∝
/// n_seg) while the minimum-degree ordering's fill grows more slowly, so larger meshes keep the
/// sparse path.
pub const SKYLINE_MAX_DIM: usize = 600;

/// Which factorisation a [`HessianSystem`] uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Factorisation {
    /// faer's sparse Cholesky with an AMD ordering.
    Sparse,
    /// The envelope Cholesky in the mesh's node order ([`SkylineLlt`]).
    Skyline,
}

impl Factorisation {
    /// The default choice for a system of `dim` unknowns: skyline up to [`SKYLINE_MAX_DIM`].
    pub fn for_dim(dim: usize) -> Factorisation {
        if dim <= SKYLINE_MAX_DIM {
            Factorisation::Skyline
        } else {
            Factorisation::Sparse
        }
    }
}

/// The factor of the current matrix, in one of the two forms.
enum Factor {
    Sparse {
        symbolic: Box<SymbolicCholesky<usize>>,
        l_values: Vec<f64>,
        workspace: MemBuffer,
    },
    Skyline(SkylineLlt),
}

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
    factor: Factor,
    /// Symbolic analyses done: counted where faer's analysis ([`analyse`]) or the envelope's
    /// ([`SkylineLlt::new`]) is made, so a second call anywhere would show (1 for the life of
    /// the system).
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
    /// Builds the pattern for `n_nodes` nodes and `edges`, and the symbolic factorisation of
    /// the default kind for its size ([`Factorisation::for_dim`]).
    pub fn new(n_nodes: usize, edges: &[[usize; 2]]) -> Result<Self, LinearSolveError> {
        Self::with_factorisation(n_nodes, edges, Factorisation::for_dim(2 * n_nodes))
    }

    /// As [`HessianSystem::new`], with the factorisation chosen by the caller.
    pub fn with_factorisation(
        n_nodes: usize,
        edges: &[[usize; 2]],
        kind: Factorisation,
    ) -> Result<Self, LinearSolveError> {
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
        let factor = match kind {
            Factorisation::Sparse => {
                let symbolic = analyse(&matrix, &mut symbolic_factorisations)?;
                let req = StackReq::any_of(&[
                    symbolic.factorize_numeric_llt_scratch::<f64>(
                        Par::Seq,
                        Spec::<LltParams, f64>::default(),
                    ),
                    symbolic.solve_in_place_scratch::<f64>(1, Par::Seq),
                ]);
                Factor::Sparse {
                    l_values: vec![0.0; symbolic.len_val()],
                    workspace: MemBuffer::new(req),
                    symbolic: Box::new(symbolic),
                }
            }
            Factorisation::Skyline => {
                symbolic_factorisations += 1;
                Factor::Skyline(SkylineLlt::new(
                    n,
                    matrix.col_offsets(),
                    matrix.row_indices(),
                ))
            }
        };
        Ok(HessianSystem {
            factor,
            matrix,
            diag_slots,
            edge_slots,
            edges: ordered,
            symbolic_factorisations,
            numeric_factorisations: 0,
        })
    }

    /// Which factorisation this system uses.
    pub fn factorisation(&self) -> Factorisation {
        match self.factor {
            Factor::Sparse { .. } => Factorisation::Sparse,
            Factor::Skyline(_) => Factorisation::Skyline,
        }
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
        let (symbolic, l_values, workspace) = match &mut self.factor {
            Factor::Skyline(llt) => {
                return llt
                    .factorize(self.matrix.values())
                    .map_err(|index| LinearSolveError::NotPositiveDefinite { index });
            }
            Factor::Sparse {
                symbolic,
                l_values,
                workspace,
            } => (symbolic, l_values, workspace),
        };
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
        let stack = MemStack::new(workspace);
        symbolic
            .factorize_numeric_llt(
                l_values,
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
        let (symbolic, l_values, workspace) = match &mut self.factor {
            Factor::Skyline(llt) => return llt.solve_in_place(rhs),
            Factor::Sparse {
                symbolic,
                l_values,
                workspace,
            } => (symbolic, l_values, workspace),
        };
        let llt = faer::sparse::linalg::cholesky::LltRef::new(symbolic, l_values);
        let stack = MemStack::new(workspace);
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

    const BOTH: [Factorisation; 2] = [Factorisation::Sparse, Factorisation::Skyline];

    #[test]
    fn assembles_and_solves_a_spring_chain() {
        for kind in BOTH {
            spring_chain(kind);
        }
    }

    fn spring_chain(kind: Factorisation) {
        // Three nodes, two edges; mass 1 on each diagonal, spring block B = diag(2, 3).
        let mut sys = HessianSystem::with_factorisation(3, &[[0, 1], [2, 1]], kind).unwrap();
        assert_eq!(sys.factorisation(), kind);
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
                "{kind:?} {i}: {} vs {}",
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
        for kind in BOTH {
            let mut sys = HessianSystem::with_factorisation(1, &[], kind).unwrap();
            sys.assemble(&[Mat2::new(1.0, 0.0, 0.0, -1.0)], &[]);
            assert!(
                matches!(
                    sys.factorize(),
                    Err(LinearSolveError::NotPositiveDefinite { .. })
                ),
                "{kind:?}"
            );
        }
    }

    /// The two factorisations solve the same assembled system of a 6 × 6 node grid with both
    /// diagonals in every cell (the square's pattern at n_seg = 5) to the same answer. The
    /// blocks are SPD with masses of 1 and springs of order 1 (condition number below 100), so
    /// the two solutions, rounded in different orders, agree to 1e-12.
    #[test]
    fn skyline_and_sparse_agree_on_a_grid() {
        let m = 6;
        let id = |i: usize, j: usize| i * m + j;
        let mut edges = vec![];
        for i in 0..m {
            for j in 0..m {
                if i + 1 < m {
                    edges.push([id(i, j), id(i + 1, j)]);
                }
                if j + 1 < m {
                    edges.push([id(i, j), id(i, j + 1)]);
                }
                if i + 1 < m && j + 1 < m {
                    edges.push([id(i, j), id(i + 1, j + 1)]);
                    edges.push([id(i + 1, j), id(i, j + 1)]);
                }
            }
        }
        let diag: Vec<Mat2> = (0..m * m)
            .map(|k| Mat2::new(1.0 + 0.01 * k as f64, 0.1, 0.1, 1.5))
            .collect();
        let blocks: Vec<Mat2> = (0..edges.len())
            .map(|e| {
                let a = 0.5 + 0.3 * ((e * 7) % 5) as f64;
                let c = 0.2 * ((e * 3) % 4) as f64;
                Mat2::new(a, 0.1 * c, 0.1 * c, 0.4 + c)
            })
            .collect();
        let rhs: Vec<f64> = (0..2 * m * m).map(|i| (i as f64 * 0.37).cos()).collect();
        let mut solutions = vec![];
        for kind in BOTH {
            let mut sys = HessianSystem::with_factorisation(m * m, &edges, kind).unwrap();
            sys.assemble(&diag, &blocks);
            sys.factorize().unwrap();
            let mut x = rhs.clone();
            sys.solve_in_place(&mut x);
            solutions.push(x);
        }
        for (i, (a, b)) in solutions[0].iter().zip(&solutions[1]).enumerate() {
            assert!((a - b).abs() < 1e-12, "{i}: sparse {a} vs skyline {b}");
        }
    }
}
