//! Sparse assembly into a fixed pattern and the sparse Cholesky solve.
//!
//! The pattern of the (lower triangle of the) Hessian is built once per mesh with
//! nalgebra-sparse as the union of the element blocks of every term (the node tuples each
//! [`Elements`] declares: single nodes, springs' node pairs, ...), so it never changes whatever
//! the contact state. With it an element-to-slot map is built: for every entry of every element
//! block that lands in the lower triangle, the index of its value in the CSC arrays. Each
//! iteration only zeroes the values and scatters the terms' element blocks through that map,
//! then runs faer's numeric Cholesky into a preallocated factor with a preallocated workspace:
//! no allocation, no symbolic analysis after construction.
//!
//! Small systems (at most [`SKYLINE_MAX_DIM`] unknowns: the book's square and meshes up to
//! n_seg = 32) are factored instead inside their band ([`SkylineLlt`]), in the mesh's own
//! node order: at those sizes faer's sparse factorisation spends most of its instructions on
//! bookkeeping, not arithmetic (docs/benchmarks.md has the counts). The pattern and the values
//! are the same for both; on the skyline path the map points straight into the band, which is
//! then factored in place, so a failed factorisation is retried from the blocks
//! ([`HessianSystem::restore`]).
//!
//! A term in difference form ([`BlockForm::Difference`], springs) gives only each element's
//! 2 × 2 B of its block [[B, −B], [−B, B]]; its map holds ten slots per element, where B's
//! entries are added with their signs (the same sums as the full block's).

use faer::dyn_stack::{MemBuffer, MemStack, StackReq};
use faer::linalg::cholesky::llt::factor::{LltParams, LltRegularization};
use faer::sparse::linalg::cholesky::{
    CholeskySymbolicParams, SymbolicCholesky, SymmetricOrdering, factorize_symbolic_cholesky,
};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::{Conj, MatMut, Par, Side, Spec};
use nalgebra_sparse::{CooMatrix, CscMatrix};

use crate::energy::{BlockForm, Elements};
use crate::solver::skyline::SkylineLlt;

/// The largest system, in unknowns (2 × nodes), factored by the skyline Cholesky rather than
/// faer's sparse one: n_seg ≤ 32 (2 178 unknowns). Chosen from `cargo bench --bench solver --
/// factorisation` (the square's pattern, both kinds back to back, docs/benchmarks.md): with the
/// fixed-width band in AVX2, factorisation + solve took 2.1 against 6.0 µs at n_seg = 4, 62
/// against 279 µs at 16 and 1.05 against 1.87 ms at 32; since the skyline factors in place the
/// bench includes the assembly, and took 2.68 against 8.55 µs, 86 against 302 µs and 1.28
/// against 2.79 ms. Its work grows
/// as n·w² (half-width w = 2·n_seg + 5) while the minimum-degree ordering's fill grows more
/// slowly, so at n_seg = 64 (8 450 unknowns, w = 133: about 75 million multiply-adds against
/// faer's few milliseconds) meshes keep the sparse path.
pub const SKYLINE_MAX_DIM: usize = 2200;

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
    /// An element of a term in difference form names one node twice (its block
    /// [[B, −B], [−B, B]] would land on one node block, which that form cannot express).
    #[error("element {element} of a difference-form term names node {node} twice")]
    DegenerateElement {
        /// Index of the element in its term.
        element: usize,
        /// The node it names twice.
        node: usize,
    },
}

/// Where one entry of a term's element-block buffer goes: `block` indexes the buffer
/// ([`crate::energy::Energy::hessian`]'s layout), `slot` the CSC values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Scatter {
    block: usize,
    slot: usize,
}

/// Where a term's element blocks go.
enum TermScatter {
    /// Every lower-triangle entry of every full element block ([`BlockForm::Full`]).
    Full(Vec<Scatter>),
    /// Per element of a [`BlockForm::Difference`] term, the slots its B (column-major
    /// b₀ b₁ b₂ b₃) is added to: B's lower triangle b₀, b₁, b₃ at node a's diagonal block
    /// (slots 0–2) and node b's (3–5), and −b₀, −b₁, −b₂, −b₃ at the cross block's entries
    /// (r, c) = (0, 0), (1, 0), (0, 1), (1, 1), rows of the higher node, columns of the lower
    /// (slots 6–9).
    Difference(Vec<[usize; 10]>),
}

/// The Hessian in its fixed pattern with its Cholesky factor.
pub struct HessianSystem {
    /// Lower triangle, CSC, values refilled per iteration.
    matrix: CscMatrix<f64>,
    /// Per term, where every entry of its element blocks goes, element by element.
    scatter: Vec<TermScatter>,
    /// The order terms are scattered in: by nodes per element (node terms first), then in
    /// the order given. Each value is then summed in the order the solver has always used
    /// (the node blocks, then the springs), so the book cases keep their last bits.
    order: Vec<usize>,
    factor: Factor,
    /// Index of every diagonal entry in the CSC values (for [`HessianSystem::add_to_diagonal`]).
    diagonal_slots: Vec<usize>,
    /// Symbolic analyses done: counted where faer's analysis ([`analyse`]) or the envelope's
    /// ([`SkylineLlt::new`]) is made, so a second call anywhere would show (1 for the life of
    /// the system).
    pub symbolic_factorisations: usize,
    /// Numeric factorisations done: counted in [`HessianSystem::factorize`].
    pub numeric_factorisations: usize,
    /// The scales given to [`HessianSystem::add_to_diagonal`] since the last assembly, in
    /// order (replayed by [`HessianSystem::restore`]).
    shifts: Vec<f64>,
}

/// Calls `f(index in the column-major 2k×2k block, global row, global column)` for every entry
/// of an element of `k` nodes (the j-th being `node(j)`) that lands in the lower triangle. Every
/// entry of the full block is visited, so an element naming one node twice still sums right.
fn for_lower_entries(
    k: usize,
    node: impl Fn(usize) -> usize,
    mut f: impl FnMut(usize, usize, usize),
) {
    let dofs = 2 * k;
    for c in 0..dofs {
        let col = 2 * node(c / 2) + c % 2;
        for r in 0..dofs {
            let row = 2 * node(r / 2) + r % 2;
            if row >= col {
                f(dofs * c + r, row, col);
            }
        }
    }
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

/// The values the assembly writes: the CSC values for the sparse path, the band for the
/// skyline path (the slots in `scatter` and `diagonal_slots` index the one in use).
fn values_mut<'a>(factor: &'a mut Factor, matrix: &'a mut CscMatrix<f64>) -> &'a mut [f64] {
    match factor {
        Factor::Skyline(llt) => llt.band_mut(),
        Factor::Sparse { .. } => matrix.values_mut(),
    }
}

/// Every lower-triangle entry of every full element block of `elements`, element by element.
fn full_scatter(matrix: &CscMatrix<f64>, elements: &Elements) -> Vec<Scatter> {
    let k = elements.nodes_per_element();
    let block_len = 4 * k * k;
    let mut entries = Vec::new();
    for e in 0..elements.len() {
        for_lower_entries(
            k,
            |j| elements.node(e, j),
            |local, row, col| {
                entries.push(Scatter {
                    block: block_len * e + local,
                    slot: slot(matrix, row, col),
                })
            },
        );
    }
    entries
}

/// The slots of every two-node element of a difference-form term ([`TermScatter::Difference`]).
fn difference_scatter(
    matrix: &CscMatrix<f64>,
    elements: &Elements,
) -> Result<Vec<[usize; 10]>, LinearSolveError> {
    assert_eq!(
        elements.nodes_per_element(),
        2,
        "difference form: two nodes"
    );
    (0..elements.len())
        .map(|e| {
            let (a, b) = (elements.node(e, 0), elements.node(e, 1));
            if a == b {
                return Err(LinearSolveError::DegenerateElement {
                    element: e,
                    node: a,
                });
            }
            let (hi, lo) = (2 * a.max(b), 2 * a.min(b));
            let (a, b) = (2 * a, 2 * b);
            Ok([
                slot(matrix, a, a),
                slot(matrix, a + 1, a),
                slot(matrix, a + 1, a + 1),
                slot(matrix, b, b),
                slot(matrix, b + 1, b),
                slot(matrix, b + 1, b + 1),
                slot(matrix, hi, lo),
                slot(matrix, hi + 1, lo),
                slot(matrix, hi, lo + 1),
                slot(matrix, hi + 1, lo + 1),
            ])
        })
        .collect()
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
    /// Builds the pattern for `n_nodes` nodes as the union of the element blocks of `terms`
    /// (one [`Elements`] per term, in the order their block buffers will be passed to
    /// [`HessianSystem::assemble`]), the element-to-slot map and the symbolic factorisation of
    /// the default kind for its size ([`Factorisation::for_dim`]).
    pub fn new(n_nodes: usize, terms: &[Elements]) -> Result<Self, LinearSolveError> {
        Self::with_factorisation(n_nodes, terms, Factorisation::for_dim(2 * n_nodes))
    }

    /// As [`HessianSystem::new`], with the factorisation chosen by the caller.
    pub fn with_factorisation(
        n_nodes: usize,
        terms: &[Elements],
        kind: Factorisation,
    ) -> Result<Self, LinearSolveError> {
        Self::with_forms(n_nodes, terms, &vec![BlockForm::Full; terms.len()], kind)
    }

    /// As [`HessianSystem::with_factorisation`], with each term's [`BlockForm`]: the t-th
    /// buffer passed to [`HessianSystem::assemble`] then holds full element blocks
    /// ([`crate::energy::Energy::hessian`]'s layout) or, for a difference-form term, each
    /// element's B (four entries, [`crate::energy::DifferenceEnergy::difference_hessian`]).
    /// The pattern is the same either way.
    pub fn with_forms(
        n_nodes: usize,
        terms: &[Elements],
        forms: &[BlockForm],
        kind: Factorisation,
    ) -> Result<Self, LinearSolveError> {
        assert_eq!(terms.len(), forms.len(), "one form per term");
        let n = 2 * n_nodes;
        let mut coo = CooMatrix::<f64>::new(n, n);
        for elements in terms {
            let k = elements.nodes_per_element();
            for e in 0..elements.len() {
                for_lower_entries(
                    k,
                    |j| elements.node(e, j),
                    |_, row, col| coo.push(row, col, 0.0),
                );
            }
        }
        let matrix = CscMatrix::from(&coo);
        let mut scatter = Vec::with_capacity(terms.len());
        for (elements, form) in terms.iter().zip(forms) {
            scatter.push(match form {
                BlockForm::Full => TermScatter::Full(full_scatter(&matrix, elements)),
                BlockForm::Difference => {
                    TermScatter::Difference(difference_scatter(&matrix, elements)?)
                }
            });
        }
        let mut order: Vec<usize> = (0..terms.len()).collect();
        order.sort_by_key(|&t| terms[t].nodes_per_element());
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
        let mut diagonal_slots: Vec<usize> = (0..n).map(|i| slot(&matrix, i, i)).collect();
        if let Factor::Skyline(llt) = &factor {
            // The skyline path assembles straight into its band: every slot becomes the band
            // index of that CSC value (the CSC values are then filled only on request,
            // [`HessianSystem::matrix`]).
            for term in &mut scatter {
                match term {
                    TermScatter::Full(entries) => {
                        for s in entries {
                            s.slot = llt.band_index(s.slot);
                        }
                    }
                    TermScatter::Difference(elements) => {
                        for s in elements.iter_mut().flatten() {
                            *s = llt.band_index(*s);
                        }
                    }
                }
            }
            for d in &mut diagonal_slots {
                *d = llt.band_index(*d);
            }
        }
        Ok(HessianSystem {
            factor,
            diagonal_slots,
            matrix,
            scatter,
            order,
            symbolic_factorisations,
            numeric_factorisations: 0,
            shifts: Vec::with_capacity(8),
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

    /// Refill the values from every term's element blocks (`blocks[t]` laid out as
    /// [`crate::energy::Energy::hessian`] writes them, for the t-th [`Elements`] given to
    /// [`HessianSystem::new`]).
    pub fn assemble(&mut self, blocks: &[Vec<f64>]) {
        self.shifts.clear();
        self.scatter_blocks(blocks);
    }

    /// After a failed [`HessianSystem::factorize`]: the matrix as it was before it, `blocks`
    /// (as last given to [`HessianSystem::assemble`]) assembled again and every
    /// [`HessianSystem::add_to_diagonal`] since replayed in order with `diagonal`, so that the
    /// values are the same to the last bit. The skyline path factors in its band, overwriting
    /// the matrix; the sparse path factors into a separate factor, and this does nothing there.
    pub fn restore(&mut self, blocks: &[Vec<f64>], diagonal: &[f64]) {
        let Factor::Skyline(llt) = &self.factor else {
            return;
        };
        if !llt.is_factored() {
            return;
        }
        self.scatter_blocks(blocks);
        for i in 0..self.shifts.len() {
            let scale = self.shifts[i];
            self.shift_diagonal(diagonal, scale);
        }
    }

    /// Zeroes the values and adds every term's blocks in.
    fn scatter_blocks(&mut self, blocks: &[Vec<f64>]) {
        let vals = values_mut(&mut self.factor, &mut self.matrix);
        vals.fill(0.0);
        for &t in &self.order {
            let term = &blocks[t];
            match &self.scatter[t] {
                TermScatter::Full(entries) => {
                    for s in entries {
                        vals[s.slot] += term[s.block];
                    }
                }
                TermScatter::Difference(elements) => {
                    // Adding −b is subtracting b: the same values as the full blocks' scatter.
                    for (s, b) in elements.iter().zip(term.chunks_exact(4)) {
                        vals[s[0]] += b[0];
                        vals[s[1]] += b[1];
                        vals[s[2]] += b[3];
                        vals[s[3]] += b[0];
                        vals[s[4]] += b[1];
                        vals[s[5]] += b[3];
                        vals[s[6]] -= b[0];
                        vals[s[7]] -= b[1];
                        vals[s[8]] -= b[2];
                        vals[s[9]] -= b[3];
                    }
                }
            }
        }
    }

    /// Adds `scale · diagonal[i]` to the i-th diagonal entry of the assembled matrix (Newton's
    /// H + τM when H is indefinite, SPEC.md §6); `diagonal` has [`HessianSystem::dim`] entries.
    /// On the skyline path, the matrix must not have been factored since it was assembled
    /// (after a failed factorisation, [`HessianSystem::restore`] it first).
    pub fn add_to_diagonal(&mut self, diagonal: &[f64], scale: f64) {
        if let Factor::Skyline(llt) = &self.factor {
            assert!(!llt.is_factored(), "restore the matrix before shifting it");
        }
        self.shifts.push(scale);
        self.shift_diagonal(diagonal, scale);
    }

    fn shift_diagonal(&mut self, diagonal: &[f64], scale: f64) {
        let vals = values_mut(&mut self.factor, &mut self.matrix);
        for (&k, d) in self.diagonal_slots.iter().zip(diagonal) {
            vals[k] += scale * d;
        }
    }

    /// Numeric Cholesky of the assembled matrix (into the preallocated factor).
    pub fn factorize(&mut self) -> Result<(), LinearSolveError> {
        self.numeric_factorisations += 1;
        let n = self.dim();
        let (symbolic, l_values, workspace) = match &mut self.factor {
            Factor::Skyline(llt) => {
                return llt
                    .factorize_in_place()
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

    /// The assembled lower triangle (for the skyline path, its values are copied out of the
    /// band, so call it before [`HessianSystem::factorize`]).
    ///
    /// # Panics
    /// On the skyline path, once the matrix has been factored.
    pub(crate) fn matrix(&mut self) -> &CscMatrix<f64> {
        if let Factor::Skyline(llt) = &self.factor {
            llt.csc_values(self.matrix.values_mut())
                .expect("the skyline band holds a factor: read the matrix before factorising");
        }
        &self.matrix
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::DMatrix;

    /// The full element block [[B, −B], [−B, B]] of a pair, column-major (16 entries).
    fn pair_block(b: &nalgebra::Matrix2<f64>) -> Vec<f64> {
        let mut e = nalgebra::Matrix4::zeros();
        e.fixed_view_mut::<2, 2>(0, 0).copy_from(b);
        e.fixed_view_mut::<2, 2>(2, 2).copy_from(b);
        e.fixed_view_mut::<2, 2>(0, 2).copy_from(&(-b));
        e.fixed_view_mut::<2, 2>(2, 0).copy_from(&(-b));
        e.as_slice().to_vec()
    }

    /// The dense matrix that the element blocks `blocks` of `elements` sum to (every entry of
    /// every block added at its global row and column): the reference the map must match.
    fn dense_reference(n_nodes: usize, terms: &[Elements], blocks: &[Vec<f64>]) -> DMatrix<f64> {
        let mut dense = DMatrix::<f64>::zeros(2 * n_nodes, 2 * n_nodes);
        for (elements, block) in terms.iter().zip(blocks) {
            let k = elements.nodes_per_element();
            let dofs = 2 * k;
            for e in 0..elements.len() {
                let local = &block[dofs * dofs * e..dofs * dofs * (e + 1)];
                let global = |i: usize| 2 * elements.node(e, i / 2) + i % 2;
                for c in 0..dofs {
                    for r in 0..dofs {
                        dense[(global(r), global(c))] += local[dofs * c + r];
                    }
                }
            }
        }
        dense
    }

    /// Symmetric element blocks with distinct, recognisable entries.
    fn symmetric_blocks(elements: &Elements, seed: f64) -> Vec<f64> {
        let dofs = 2 * elements.nodes_per_element();
        let mut out = vec![0.0; elements.hessian_len()];
        for e in 0..elements.len() {
            for c in 0..dofs {
                for r in 0..dofs {
                    let (i, j) = (r.max(c), r.min(c));
                    out[dofs * dofs * e + dofs * c + r] =
                        seed + (e * 100 + i * 10 + j) as f64 + if i == j { 1e3 } else { 0.0 };
                }
            }
        }
        out
    }

    /// The map puts every element's block where a dense assembly does, for node terms, pairs
    /// in either order, a triangle of three nodes and a degenerate pair naming one node twice.
    #[test]
    fn map_places_blocks_where_a_dense_assembly_does() {
        let pairs = [0, 1, 3, 1, 2, 2];
        let triangle = [4, 0, 2];
        let terms = [
            Elements::EachNode(5),
            Elements::Tuples {
                k: 2,
                nodes: &pairs,
            },
            Elements::Tuples {
                k: 3,
                nodes: &triangle,
            },
            Elements::NONE,
        ];
        let blocks: Vec<Vec<f64>> = terms
            .iter()
            .enumerate()
            .map(|(t, e)| symmetric_blocks(e, 0.25 * t as f64))
            .collect();
        let expect = dense_reference(5, &terms, &blocks);
        // Both paths: the sparse one scatters into the CSC values, the skyline one into its
        // band (the CSC values copied out of it by `matrix`).
        for kind in BOTH {
            let mut sys = HessianSystem::with_factorisation(5, &terms, kind).unwrap();
            sys.assemble(&blocks);
            let matrix = sys.matrix().clone();
            let mut got = DMatrix::<f64>::zeros(10, 10);
            for (row, col, v) in matrix.triplet_iter() {
                assert!(row >= col, "lower triangle only");
                got[(row, col)] = *v;
                got[(col, row)] = *v;
            }
            // Each value is a sum of at most four exactly representable numbers below 2¹²:
            // exact.
            assert_eq!(got, expect, "{kind:?}");
            // The pattern holds the union of the blocks and nothing else: (4, 1) and (3, 0)
            // are coupled by no element.
            let pattern = |r: usize, c: usize| {
                matrix
                    .triplet_iter()
                    .any(|(row, col, _)| (row, col) == (r, c))
            };
            let x_of = |node: usize| 2 * node;
            assert!(pattern(x_of(3), x_of(1)) && pattern(x_of(4) + 1, x_of(0)));
            assert!(!pattern(x_of(4), x_of(1)) && !pattern(x_of(3), x_of(0)));
        }
    }

    const BOTH: [Factorisation; 2] = [Factorisation::Sparse, Factorisation::Skyline];

    #[test]
    fn assembles_and_solves_a_spring_chain() {
        for kind in BOTH {
            spring_chain(kind);
        }
    }

    fn spring_chain(kind: Factorisation) {
        // Three nodes, two edges; mass 1 on each diagonal, spring block B = diag(2, 3).
        let edges = [0, 1, 2, 1];
        let terms = [
            Elements::EachNode(3),
            Elements::Tuples {
                k: 2,
                nodes: &edges,
            },
        ];
        let mut sys = HessianSystem::with_factorisation(3, &terms, kind).unwrap();
        assert_eq!(sys.factorisation(), kind);
        let b = nalgebra::Matrix2::new(2.0, 0.5, 0.5, 3.0);
        let node_blocks: Vec<f64> = (0..3).flat_map(|_| [1.0, 0.0, 0.0, 1.0]).collect();
        let pair_blocks: Vec<f64> = (0..2).flat_map(|_| pair_block(&b)).collect();
        let blocks = [node_blocks, pair_blocks];
        sys.assemble(&blocks);
        // Dense reference.
        let mut dense = DMatrix::<f64>::identity(6, 6);
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
        // Two more assemblies and numeric factorisations reuse the analysis.
        for _ in 0..2 {
            sys.assemble(&blocks);
            sys.factorize().unwrap();
        }
        assert_eq!(sys.numeric_factorisations, 3);
        assert_eq!(sys.symbolic_factorisations, 1);
    }

    /// The CSC values of the lower triangle as `sys` holds them now, bit for bit.
    fn value_bits(sys: &mut HessianSystem) -> Vec<u64> {
        sys.matrix().values().iter().map(|v| v.to_bits()).collect()
    }

    /// A term in difference form (each element's B, added with its signs) assembles the same
    /// matrix, bit for bit, as the same term given as full [[B, −B], [−B, B]] blocks, on both
    /// paths, for pairs in either node order and summed on top of node blocks. The entries are
    /// not exactly representable sums (thirds and sevenths), so the order of the additions
    /// shows in the last bits if it differs.
    #[test]
    fn difference_form_assembles_the_full_form_exactly() {
        let pairs = [0, 1, 3, 1, 2, 0, 1, 2, 3, 2];
        let terms = [
            Elements::EachNode(4),
            Elements::Tuples {
                k: 2,
                nodes: &pairs,
            },
        ];
        let node_blocks: Vec<f64> = (0..4)
            .flat_map(|i| [1.0 / 3.0 + i as f64, 0.1 / 7.0, 0.1 / 7.0, 2.0 / 3.0])
            .collect();
        let bs: Vec<nalgebra::Matrix2<f64>> = (0..5)
            .map(|e| {
                let off = (e as f64 + 1.0) / 7.0;
                nalgebra::Matrix2::new(1.0 / 3.0 + e as f64, off, off, 5.0 / 7.0)
            })
            .collect();
        let full: Vec<f64> = bs.iter().flat_map(pair_block).collect();
        let compact: Vec<f64> = bs.iter().flat_map(|b| b.as_slice().to_vec()).collect();
        let forms = [BlockForm::Full, BlockForm::Difference];
        for kind in BOTH {
            let mut sys_full = HessianSystem::with_factorisation(4, &terms, kind).unwrap();
            sys_full.assemble(&[node_blocks.clone(), full.clone()]);
            let mut sys_diff = HessianSystem::with_forms(4, &terms, &forms, kind).unwrap();
            sys_diff.assemble(&[node_blocks.clone(), compact.clone()]);
            assert_eq!(
                value_bits(&mut sys_full),
                value_bits(&mut sys_diff),
                "{kind:?}"
            );
        }
        // An element naming one node twice cannot take this form.
        let twice = [0, 1, 2, 2];
        let terms = [Elements::Tuples {
            k: 2,
            nodes: &twice,
        }];
        assert!(matches!(
            HessianSystem::with_forms(3, &terms, &[BlockForm::Difference], Factorisation::Skyline),
            Err(LinearSolveError::DegenerateElement {
                element: 1,
                node: 2
            })
        ));
    }

    /// After a failed factorisation (which on the skyline path overwrote the matrix in its
    /// band), `restore` gives back the matrix with its diagonal shifts, bit for bit: shifted
    /// twice around a failure, the values equal those of a system shifted the same way that
    /// never failed, and the shifted matrix then factors and solves.
    #[test]
    fn restore_after_a_failed_factorisation_gives_the_same_matrix() {
        let pairs = [0, 1];
        let terms = [
            Elements::EachNode(2),
            Elements::Tuples {
                k: 2,
                nodes: &pairs,
            },
        ];
        // Nodes of mass 1/3 and a pair block B = −I: indefinite (eigenvalues 1/3 and −5/3).
        let blocks = [
            vec![
                1.0 / 3.0,
                0.0,
                0.0,
                1.0 / 3.0,
                1.0 / 3.0,
                0.0,
                0.0,
                1.0 / 3.0,
            ],
            pair_block(&-nalgebra::Matrix2::<f64>::identity()),
        ];
        let mass = [1.0 / 3.0; 4];
        for kind in BOTH {
            let mut sys = HessianSystem::with_factorisation(2, &terms, kind).unwrap();
            sys.assemble(&blocks);
            sys.add_to_diagonal(&mass, 0.1);
            assert!(sys.factorize().is_err(), "{kind:?}: still indefinite");
            sys.restore(&blocks, &mass);
            sys.add_to_diagonal(&mass, 10.0 - 0.1);
            let mut never_failed = HessianSystem::with_factorisation(2, &terms, kind).unwrap();
            never_failed.assemble(&blocks);
            never_failed.add_to_diagonal(&mass, 0.1);
            never_failed.add_to_diagonal(&mass, 10.0 - 0.1);
            assert_eq!(
                value_bits(&mut sys),
                value_bits(&mut never_failed),
                "{kind:?}"
            );
            sys.factorize().unwrap();
            // (M + 10 M − (−B couplings)) x = b solved: check against the dense matrix.
            let mut dense = DMatrix::<f64>::zeros(4, 4);
            for (row, col, v) in never_failed.matrix().triplet_iter() {
                dense[(row, col)] = *v;
                dense[(col, row)] = *v;
            }
            let rhs = nalgebra::DVector::from_vec(vec![1.0, -2.0, 0.5, 3.0]);
            let mut x: Vec<f64> = rhs.iter().copied().collect();
            sys.solve_in_place(&mut x);
            let residual = &dense * nalgebra::DVector::from_vec(x) - rhs;
            assert!(residual.amax() < 1e-12, "{kind:?}: {residual}");
        }
    }

    #[test]
    fn indefinite_matrix_is_an_error() {
        for kind in BOTH {
            let mut sys =
                HessianSystem::with_factorisation(1, &[Elements::EachNode(1)], kind).unwrap();
            sys.assemble(&[vec![1.0, 0.0, 0.0, -1.0]]);
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
    /// diagonals in every cell (the square's pattern at n_seg = 5) to the same answer. Node
    /// blocks dominate the pair blocks (condition number below 100), so the two solutions,
    /// rounded in different orders, agree to 1e-12 on entries of order 1.
    #[test]
    fn skyline_and_sparse_agree_on_a_grid() {
        let m = 6;
        let id = |i: usize, j: usize| i * m + j;
        let mut pairs = vec![];
        for i in 0..m {
            for j in 0..m {
                if i + 1 < m {
                    pairs.extend([id(i, j), id(i + 1, j)]);
                }
                if j + 1 < m {
                    pairs.extend([id(i, j), id(i, j + 1)]);
                }
                if i + 1 < m && j + 1 < m {
                    pairs.extend([id(i, j), id(i + 1, j + 1), id(i + 1, j), id(i, j + 1)]);
                }
            }
        }
        let terms = [
            Elements::EachNode(m * m),
            Elements::Tuples {
                k: 2,
                nodes: &pairs,
            },
        ];
        let node_blocks: Vec<f64> = (0..m * m)
            .flat_map(|k| [20.0 + 0.1 * k as f64, 0.1, 0.1, 25.0])
            .collect();
        let pair_blocks: Vec<f64> = (0..pairs.len() / 2)
            .flat_map(|e| {
                let a = 0.5 + 0.3 * ((e * 7) % 5) as f64;
                let c = 0.2 * ((e * 3) % 4) as f64;
                pair_block(&nalgebra::Matrix2::new(a, 0.1 * c, 0.1 * c, 0.4 + c))
            })
            .collect();
        let blocks = [node_blocks, pair_blocks];
        let rhs: Vec<f64> = (0..2 * m * m).map(|i| (i as f64 * 0.37).cos()).collect();
        let mut solutions = vec![];
        for kind in BOTH {
            let mut sys = HessianSystem::with_factorisation(m * m, &terms, kind).unwrap();
            sys.assemble(&blocks);
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
