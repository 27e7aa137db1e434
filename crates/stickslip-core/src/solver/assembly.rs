//! Global assembly of the Hessian and its sparse Cholesky solve, over the free degrees of
//! freedom, in D = 2 or 3 (the element kernels are the terms', `energy` and `contact`).
//!
//! The lower triangle's pattern is the union of the element blocks of every *group* (one per
//! term of E: the node tuples its [`Elements`] declares), restricted to the free degrees of
//! freedom: driven and fixed ones are eliminated (their rows and columns are never assembled,
//! SPEC.md §7). With it an element-to-slot map is built per group: for every entry of every
//! element block that lands in the lower triangle of the free system, the index of its value.
//! Each iteration zeroes the values and scatters the groups' element blocks through those
//! maps, then factors numerically into preallocated storage: no allocation and no symbolic
//! analysis while the pattern holds.
//!
//! The contact groups' elements change with the active collisions ([`Group::fixed`] false).
//! At every assembly their nodes are compared with the ones their map was built for; when they
//! changed, the map is rebuilt, and only when an entry falls outside the pattern is the pattern
//! rebuilt (to its old couplings and those of the current elements: it only grows) with a new
//! symbolic factorisation. A pattern is kept while the couplings only shrink (explicit zeros are
//! harmless). Both events are counted ([`HessianSystem::active_set_changes`], [`HessianSystem::symbolic_factorisations`]).
//!
//! Two factorisations share the pattern and the values: faer's sparse Cholesky (AMD ordering)
//! and, for small banded systems (the book's square and meshes up to n_seg = 32: at most
//! [`SKYLINE_MAX_WORK`] multiply-adds inside the band), a Cholesky inside the band in the
//! system's own order ([`SkylineLlt`]), where faer spends most of its instructions on
//! bookkeeping (docs/benchmarks.md has the counts). On the skyline path the maps point straight
//! into the band, which is then factored in place, so a failed factorisation is retried from
//! the blocks ([`HessianSystem::restore`]).
//!
//! A large term whose blocks never change form ([`Group::by_element`]: a body of 1 024 or more
//! elements, `Energy::assembles_by_element`) is not written to a buffer of blocks first (6.9 MB
//! for 6 000 tetrahedra, more than the caches): each element's block is made and scattered at
//! once, and on faer's path the elements are split at a node into two halves that share no
//! node, whose entries fall in two disjoint ranges of the values, assembled by two threads,
//! then the few spanning the split, made in parallel into a buffer and added in order
//! (`Halves`; docs/benchmarks.md has the measurements).
//!
//! A group in difference form ([`BlockForm::Difference`], springs) gives only each element's
//! D × D block B of [[B, −B], [−B, B]]; its map holds D(D + 1) + D² slots per element, where
//! B's entries are added with their signs (the same sums as the full block's).

use faer::dyn_stack::{MemBuffer, MemStack, StackReq};
use faer::linalg::cholesky::llt::factor::{LltParams, LltRegularization};
use faer::sparse::linalg::cholesky::{
    CholeskySymbolicParams, SymbolicCholesky, SymmetricOrdering, factorize_symbolic_cholesky,
};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::{Conj, MatMut, Par, Side, Spec};
use nalgebra_sparse::CscMatrix;

use crate::energy::{BlockForm, Elements};
use crate::parallel;
use crate::solver::skyline::SkylineLlt;

/// The most multiply-adds a factorisation inside the band may take for the skyline path to be
/// chosen: n·w² with n unknowns and half-width w. Chosen from `cargo bench --bench solver --
/// factorisation` (the square's pattern, both kinds back to back, docs/benchmarks.md): the
/// skyline was faster at n_seg = 32 (2 178 unknowns, w = 69: 1.04·10⁷), faer's from
/// n_seg = 64 (8 450 unknowns, w = 133: 1.5·10⁸). A pattern whose band is wide for its size
/// (bodies coupled through contact across the node order) takes faer's path.
pub const SKYLINE_MAX_WORK: f64 = 1.1e7;

/// At most this much memory, bytes, for the sparse Cholesky factor (8 GiB): L's values, 8 bytes
/// for each of the non-zeros the symbolic analysis counts, and faer's workspace for the numeric
/// factorisation and the solve. The count is known once the AMD ordering and the elimination
/// tree are, before anything of that size is allocated ([`HessianSystem::new`] refuses a
/// pattern whose factor is larger, [`LinearSolveError::FactorTooLarge`]).
///
/// Beyond 8 GiB a factor does not fit beside the rest of a run on a 16–32 GiB machine; the
/// fill measured against mesh size, and why this bound, are in docs/benchmarks.md ("The sparse
/// factor's memory").
pub const MAX_FACTOR_BYTES: u64 = 8 << 30;

/// Bytes in a GiB, for messages.
const GIB: f64 = (1u64 << 30) as f64;

/// Which factorisation a [`HessianSystem`] uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Factorisation {
    /// faer's sparse Cholesky with an AMD ordering.
    Sparse,
    /// The Cholesky inside the band, in the system's order ([`SkylineLlt`]).
    Skyline,
}

/// How the factorisation is chosen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FactorChoice {
    /// By the pattern: skyline up to [`SKYLINE_MAX_WORK`], at every (re)build of the pattern.
    #[default]
    Auto,
    /// Always this one (benchmarks and tests).
    Always(Factorisation),
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
    /// An element of a group in difference form names one node twice (its block
    /// [[B, −B], [−B, B]] would land on one node block, which that form cannot express).
    #[error("element {element} of a difference-form term names node {node} twice")]
    DegenerateElement {
        /// Index of the element in its group.
        element: usize,
        /// The node it names twice.
        node: usize,
    },
    /// The sparse Cholesky factor would take more memory than allowed ([`MAX_FACTOR_BYTES`]
    /// unless given): found from the symbolic analysis, before L's values are allocated.
    #[error(
        "the sparse Cholesky factor would take {:.1} GiB ({entries:e} non-zeros of L for {unknowns} unknowns, and its workspace), more than the {:.1} GiB allowed",
        *.bytes as f64 / GIB,
        *.limit as f64 / GIB
    )]
    FactorTooLarge {
        /// Non-zeros of L.
        entries: usize,
        /// Unknowns: the system's size.
        unknowns: usize,
        /// Memory L's values and the workspace would take, bytes.
        bytes: u64,
        /// The most allowed, bytes.
        limit: u64,
    },
    /// A term's block buffer or the matrix has more entries than a 32-bit index reaches.
    #[error("{what} has {entries} entries, more than the assembly's 32-bit indices reach")]
    TooLarge {
        /// The block buffer or the matrix.
        what: &'static str,
        /// Its entries.
        entries: usize,
    },
}

/// Which degrees of freedom are free, and their index in the linear system.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DofMap {
    /// Per degree of freedom (D per node, node-major), its row in the free system, or
    /// [`DofMap::PRESCRIBED`].
    row: Vec<usize>,
    free: usize,
}

impl DofMap {
    /// The row of a prescribed (driven or fixed) degree of freedom: none.
    pub const PRESCRIBED: usize = usize::MAX;

    /// Every degree of freedom free.
    pub fn all_free(dofs: usize) -> DofMap {
        DofMap {
            row: (0..dofs).collect(),
            free: dofs,
        }
    }

    /// The free ones are those not in `prescribed` (true: prescribed), numbered in order.
    pub fn from_prescribed(prescribed: &[bool]) -> DofMap {
        let mut free = 0;
        let row = prescribed
            .iter()
            .map(|&p| {
                if p {
                    DofMap::PRESCRIBED
                } else {
                    free += 1;
                    free - 1
                }
            })
            .collect();
        DofMap { row, free }
    }

    /// The row of degree of freedom `dof` ([`DofMap::PRESCRIBED`] for a prescribed one).
    #[inline]
    pub fn row(&self, dof: usize) -> usize {
        self.row[dof]
    }

    /// Degrees of freedom in all.
    pub fn dofs(&self) -> usize {
        self.row.len()
    }

    /// Free degrees of freedom: the linear system's size.
    pub fn free(&self) -> usize {
        self.free
    }

    /// Whether every degree of freedom is free (row k is degree of freedom k).
    pub fn is_all_free(&self) -> bool {
        self.free == self.row.len()
    }
}

/// One term's element blocks, as the assembly takes them.
#[derive(Clone, Copy, Debug)]
pub struct Group<'a> {
    /// The nodes of its elements.
    pub elements: Elements<'a>,
    /// How its blocks are laid out.
    pub form: BlockForm,
    /// The blocks ([`crate::energy::Energy::hessian`]'s layout, or D² per element in
    /// difference form).
    pub blocks: &'a [f64],
    /// Whether `elements` never changes (false: compared at every assembly).
    pub fixed: bool,
    /// Whether the blocks are not in `blocks` but made one element at a time as they are
    /// scattered, by the `block` of [`HessianSystem::assemble_by_element`] (a large fixed term
    /// in full form: [`crate::energy::Energy::assembles_by_element`]).
    pub by_element: bool,
    /// Elements that may soon join `elements` (a contact potential's candidates): their
    /// couplings are added whenever the pattern is rebuilt, so that it need not be rebuilt
    /// again when they become active.
    pub reserve: Elements<'a>,
}

/// Where one entry of a group's element-block buffer goes: `block` indexes the buffer, `slot`
/// the values (entries in a prescribed row or column have none). 32 bits each: a map is read
/// whole at every assembly (78 entries a tetrahedron), and its size is memory traffic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Scatter {
    block: u32,
    slot: u32,
}

/// The slot of a difference-form entry that is not assembled (a prescribed row or column).
const SKIP: usize = usize::MAX;

/// A group's map and what it was built for.
#[derive(Default)]
struct GroupMap {
    /// Full form: every lower-triangle entry of every element block.
    full: Vec<Scatter>,
    /// Difference form: per element, `difference_pattern.len()` slots.
    difference: Vec<usize>,
    /// Whether a difference slot is [`SKIP`] (an element with a prescribed node).
    skips: bool,
    /// Whether the group's elements never change (not compared at each assembly).
    fixed: bool,
    form: Option<BlockForm>,
    /// Nodes per element.
    k: usize,
    /// The element nodes the map was built for (non-fixed groups only).
    nodes: Vec<usize>,
    /// Full form: element e's entries are `full[starts[e]..starts[e + 1]]`.
    starts: Vec<usize>,
    /// A group assembled by element on faer's path: its elements split in two halves that
    /// share no node, assembled in parallel, and the rest after them.
    halves: Option<Halves>,
}

/// A by-element group's elements in three sets: `low`, whose nodes are all below a split node,
/// `high`, whose nodes are all at or above it, and `rest`. Free rows are numbered in node order,
/// so `low`'s entries all lie in the lower triangle's columns before the split node's first free
/// row and `high`'s in those from it on: the values before and from `split_value`, which two
/// threads fill at once; `rest` is scattered after both (SPEC.md's sums, in another order).
#[derive(Default)]
struct Halves {
    low: Vec<usize>,
    high: Vec<usize>,
    rest: Vec<usize>,
    split_value: usize,
}

/// The Hessian in its pattern with its Cholesky factor.
pub struct HessianSystem {
    /// Degrees of freedom per node, D.
    dim: usize,
    dofs: DofMap,
    choice: FactorChoice,
    /// The most memory the sparse factor may take, bytes ([`MAX_FACTOR_BYTES`] by default).
    max_factor_bytes: u64,
    /// Lower triangle, CSC, values refilled per iteration (on the skyline path only on
    /// request, [`HessianSystem::matrix`]).
    matrix: CscMatrix<f64>,
    maps: Vec<GroupMap>,
    /// The order groups are scattered in: by nodes per element (node terms first), then in
    /// the order given, so every value is summed in the order the solver has always used.
    order: Vec<usize>,
    /// For a difference-form element, per slot: (entry of B, sign +1/−1), the same for every
    /// element.
    difference_pattern: Vec<(usize, f64)>,
    factor: Factor,
    /// Index of every diagonal entry in the values (for [`HessianSystem::add_to_diagonal`]).
    diagonal_slots: Vec<usize>,
    /// Symbolic analyses done (faer's, `analyse`, or the band's, [`SkylineLlt::new`]): one
    /// at construction and one per pattern rebuild.
    pub symbolic_factorisations: usize,
    /// Numeric factorisations done ([`HessianSystem::factorize`]).
    pub numeric_factorisations: usize,
    /// Assemblies at which a group's elements had changed (the active contact set moved),
    /// whether or not the pattern had to be rebuilt.
    pub active_set_changes: usize,
    /// The scales given to [`HessianSystem::add_to_diagonal`] since the last assembly, in
    /// order (replayed by [`HessianSystem::restore`]).
    shifts: Vec<f64>,
    /// The blocks of a by-element group's elements that are not in its halves
    /// (`scatter_by_element`).
    spill: Vec<f64>,
}

/// Calls `f(index in the column-major Dk × Dk block, global row, global column)` for every
/// entry of an element of `k` nodes (the j-th being `node(j)`) whose free rows `row` and
/// `col` land in the lower triangle. Every entry of the full block is visited, so an element
/// naming one node twice still sums right.
fn for_lower_entries(
    dim: usize,
    k: usize,
    dofs: &DofMap,
    node: impl Fn(usize) -> usize,
    mut f: impl FnMut(usize, usize, usize),
) {
    let n = dim * k;
    for c in 0..n {
        let col = dofs.row(dim * node(c / dim) + c % dim);
        if col == DofMap::PRESCRIBED {
            continue;
        }
        for r in 0..n {
            let row = dofs.row(dim * node(r / dim) + r % dim);
            if row != DofMap::PRESCRIBED && row >= col {
                f(n * c + r, row, col);
            }
        }
    }
}

/// Calls `f(lo, hi)`, lo ≤ hi, for every pair of nodes that an element of `sets` names (a node
/// with itself included) and for the nodes of every off-diagonal entry of `old` (whose free row
/// r belongs to node `node_of_row[r]`); pairs repeat.
fn for_node_pairs(
    sets: &[Elements],
    old: Option<(&CscMatrix<f64>, &[usize])>,
    mut f: impl FnMut(usize, usize),
) {
    for elements in sets {
        let k = elements.nodes_per_element();
        for e in 0..elements.len() {
            for x in 0..k {
                let a = elements.node(e, x);
                for y in x..k {
                    let b = elements.node(e, y);
                    f(a.min(b), a.max(b));
                }
            }
        }
    }
    if let Some((m, node_of_row)) = old {
        for (row, col, _) in m.triplet_iter() {
            if row != col {
                // Free rows are numbered in node order: col < row, so its node is ≤ row's.
                f(node_of_row[col], node_of_row[row]);
            }
        }
    }
}

/// The lower triangle's pattern over the free degrees of freedom of `dofs`, values zero: every
/// diagonal entry, every entry of `old`, and every entry (row ≥ col, both free) of every element
/// block of `sets`.
///
/// An element couples every degree of freedom of its nodes with every other, so the pattern is
/// that of the node pairs its elements name, each pair a D × D block (a node with itself, its
/// block's lower triangle): the pairs (10 a tetrahedron, against 78 entries of its block) are
/// gathered per lower node, sorted and deduplicated, then written out column by column in
/// order, without listing every entry first (docs/benchmarks.md, "The sparse factor's
/// memory").
fn lower_pattern(
    dim: usize,
    dofs: &DofMap,
    old: Option<&CscMatrix<f64>>,
    sets: &[Elements],
) -> CscMatrix<f64> {
    let nodes = dofs.dofs() / dim;
    let n = dofs.free();
    let mut node_of_row = Vec::new();
    if old.is_some() {
        node_of_row = vec![0; n];
        for d in 0..dofs.dofs() {
            if dofs.row(d) != DofMap::PRESCRIBED {
                node_of_row[dofs.row(d)] = d / dim;
            }
        }
    }
    let old = old.map(|m| (m, node_of_row.as_slice()));
    // Per node lo, the nodes hi ≥ lo it is paired with: counted, then filled.
    let mut start = vec![0usize; nodes + 1];
    for_node_pairs(sets, old, |lo, _| start[lo + 1] += 1);
    for b in 0..nodes {
        start[b + 1] += start[b];
    }
    let mut next = start.clone();
    let mut partners = vec![0usize; start[nodes]];
    for_node_pairs(sets, old, |lo, hi| {
        partners[next[lo]] = hi;
        next[lo] += 1;
    });
    drop(next);
    // Sorted and deduplicated in place, each node's list moved down to `end[b]`.
    let mut end = vec![0usize; nodes];
    let mut write = 0;
    for b in 0..nodes {
        let list = &mut partners[start[b]..start[b + 1]];
        list.sort_unstable();
        let (from, len) = (start[b], list.len());
        let begin = write;
        for i in 0..len {
            let hi = partners[from + i];
            if write == begin || partners[write - 1] != hi {
                partners[write] = hi;
                write += 1;
            }
        }
        start[b] = begin;
        end[b] = write;
    }
    partners.truncate(write);
    let free =
        |node: usize, i: usize| Some(dofs.row(dim * node + i)).filter(|&r| r != DofMap::PRESCRIBED);
    // Column (b, j) in the order of the free rows, its rows increasing: its diagonal, node b's
    // later components where b is paired with itself, then every component of each node paired
    // with b above it.
    let mut offsets = Vec::with_capacity(n + 1);
    offsets.push(0);
    let mut rows = Vec::new();
    for b in 0..nodes {
        let list = &partners[start[b]..end[b]];
        let paired_with_itself = list.first() == Some(&b);
        let above = if paired_with_itself { &list[1..] } else { list };
        for j in 0..dim {
            let Some(col) = free(b, j) else { continue };
            debug_assert_eq!(col + 1, offsets.len(), "free rows in node order");
            rows.push(col);
            if paired_with_itself {
                rows.extend((j + 1..dim).filter_map(|i| free(b, i)));
            }
            for &a in above {
                rows.extend((0..dim).filter_map(|i| free(a, i)));
            }
            offsets.push(rows.len());
        }
    }
    let values = vec![0.0; rows.len()];
    CscMatrix::try_from_csc_data(n, n, offsets, rows, values)
        .expect("columns in order, rows increasing in each")
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
/// skyline path (the slots index the one in use).
fn values_mut<'a>(factor: &'a mut Factor, matrix: &'a mut CscMatrix<f64>) -> &'a mut [f64] {
    match factor {
        Factor::Skyline(llt) => llt.band_mut(),
        Factor::Sparse { .. } => matrix.values_mut(),
    }
}

/// The `block` of a system none of whose groups is assembled by element.
fn no_element_blocks(_: usize, _: usize, _: &mut [f64]) {
    unreachable!("no group is assembled by element")
}

/// The largest element block assembled by element: a tetrahedron's, 12 × 12.
const MAX_ELEMENT_BLOCK: usize = 144;

/// Elements per work item when a by-element group's blocks are made in parallel into a buffer.
const SPILL_CHUNK: usize = 64;

/// A by-element group's blocks, each made by `block(e, out)`: where the map has halves, each
/// half's blocks added to `vals` through `map` as they are made, the two halves in parallel (no
/// buffer of their blocks: docs/benchmarks.md); then the elements spanning the split, or every
/// element where there are no halves, made in parallel into `spill` and added in order. A mesh
/// whose node numbering has no locality leaves most elements spanning the split: those are then
/// assembled as a buffered term's are.
fn scatter_by_element(
    vals: &mut [f64],
    spill: &mut Vec<f64>,
    map: &GroupMap,
    dim: usize,
    count: usize,
    block: &(impl Fn(usize, &mut [f64]) + Sync),
) {
    let block_len = (dim * map.k).pow(2);
    assert!(
        block_len <= MAX_ELEMENT_BLOCK,
        "element blocks up to 12 × 12"
    );
    let add = |vals: &mut [f64], offset: usize, e: usize, out: &[f64]| {
        for s in &map.full[map.starts[e]..map.starts[e + 1]] {
            vals[s.slot as usize - offset] += out[s.block as usize - block_len * e];
        }
    };
    let add_as_made = |vals: &mut [f64], offset: usize, elements: &[usize]| {
        let mut out = [0.0; MAX_ELEMENT_BLOCK];
        let out = &mut out[..block_len];
        for &e in elements {
            block(e, out);
            add(vals, offset, e, out);
        }
    };
    // The elements spanning the split, or all of them: made in parallel into `spill`, then
    // added in order.
    let mut add_buffered =
        |vals: &mut [f64], n: usize, element: &(dyn Fn(usize) -> usize + Sync)| {
            spill.resize(n * block_len, 0.0);
            parallel::for_each_chunk(spill, block_len, SPILL_CHUNK, |i, out| {
                block(element(i), out)
            });
            for (i, out) in spill.chunks_exact(block_len).enumerate() {
                add(vals, 0, element(i), out);
            }
        };
    match &map.halves {
        Some(h) => {
            // The high half to the pool, the low half on this thread (the `parallel` module's
            // reason: a `join` from outside the pool would leave this thread waiting).
            let (low, high) = vals.split_at_mut(h.split_value);
            rayon::in_place_scope(|scope| {
                scope.spawn(|_| add_as_made(high, h.split_value, &h.high));
                add_as_made(low, 0, &h.low);
            });
            add_buffered(vals, h.rest.len(), &|i| h.rest[i]);
        }
        None => add_buffered(vals, count, &|i| i),
    }
}

/// The index of entry (row, col) in the CSC values, if the pattern has it.
fn find_slot(m: &CscMatrix<f64>, row: usize, col: usize) -> Option<usize> {
    let offs = m.col_offsets();
    let rows = &m.row_indices()[offs[col]..offs[col + 1]];
    rows.binary_search(&row).ok().map(|i| offs[col] + i)
}

/// The band's half-width of a lower-triangle CSC pattern: the largest row − column.
fn half_width(m: &CscMatrix<f64>) -> usize {
    let offs = m.col_offsets();
    let rows = m.row_indices();
    (0..m.ncols())
        .filter(|&c| offs[c + 1] > offs[c])
        .map(|c| rows[offs[c + 1] - 1] - c)
        .max()
        .unwrap_or(0)
}

/// Slots of a difference-form element in dimension `dim`: B's lower triangle at both nodes'
/// diagonal blocks, D(D + 1), and −B at the cross block, D² ([`difference_pattern`]'s length).
const fn difference_stride(dim: usize) -> usize {
    dim * (dim + 1) + dim * dim
}

/// Adds every difference-form element's B (`blocks`, D² each) at its `S` = D(D + 1) + D²
/// slots (`slots`, none of them [`SKIP`]): B's lower triangle at node a's diagonal block and at
/// node b's, −B at the cross block, in [`difference_pattern`]'s order, with D known at compile
/// time so the loops unroll.
#[inline]
fn scatter_difference<const D: usize, const S: usize>(
    vals: &mut [f64],
    slots: &[usize],
    blocks: &[f64],
) {
    for (s, b) in slots.chunks_exact(S).zip(blocks.chunks_exact(D * D)) {
        let mut k = 0;
        for _node in 0..2 {
            for c in 0..D {
                for r in c..D {
                    vals[s[k]] += b[D * c + r];
                    k += 1;
                }
            }
        }
        for c in 0..D {
            for r in 0..D {
                vals[s[k]] -= b[D * c + r];
                k += 1;
            }
        }
    }
}

/// [`scatter_difference`] for any dimension and with [`SKIP`] slots (an element with a
/// prescribed node), following `pattern`.
fn scatter_difference_checked(
    vals: &mut [f64],
    slots: &[usize],
    blocks: &[f64],
    pattern: &[(usize, f64)],
    dim: usize,
) {
    for (s, b) in slots
        .chunks_exact(pattern.len())
        .zip(blocks.chunks_exact(dim * dim))
    {
        for (&slot, &(entry, sign)) in s.iter().zip(pattern) {
            if slot != SKIP {
                if sign > 0.0 {
                    vals[slot] += b[entry];
                } else {
                    vals[slot] -= b[entry];
                }
            }
        }
    }
}

/// The per-slot (entry of B, sign) of a difference-form element in dimension `dim`: B's lower
/// triangle at node a's diagonal block, then at node b's, then −B at the cross block (rows of
/// the higher node, columns of the lower), column by column.
fn difference_pattern(dim: usize) -> Vec<(usize, f64)> {
    let mut p = Vec::with_capacity(difference_stride(dim));
    for _node in 0..2 {
        for c in 0..dim {
            for r in c..dim {
                p.push((dim * c + r, 1.0));
            }
        }
    }
    for c in 0..dim {
        for r in 0..dim {
            p.push((dim * c + r, -1.0));
        }
    }
    debug_assert_eq!(p.len(), difference_stride(dim));
    p
}

impl HessianSystem {
    /// The system for nodes of `dim` degrees of freedom with the free ones of `dofs`, its
    /// pattern built from `groups` as they are now (the t-th group's blocks are the t-th
    /// buffer at every later [`HessianSystem::assemble`]), and the factorisation chosen by
    /// `choice`.
    pub fn new(
        dim: usize,
        dofs: DofMap,
        groups: &[Group],
        choice: FactorChoice,
    ) -> Result<Self, LinearSolveError> {
        Self::with_factor_limit(dim, dofs, groups, choice, MAX_FACTOR_BYTES)
    }

    /// [`HessianSystem::new`] with the sparse factor's memory bounded by `max_factor_bytes`
    /// instead of [`MAX_FACTOR_BYTES`] (at construction and at every rebuild of the pattern).
    pub fn with_factor_limit(
        dim: usize,
        dofs: DofMap,
        groups: &[Group],
        choice: FactorChoice,
        max_factor_bytes: u64,
    ) -> Result<Self, LinearSolveError> {
        let mut order: Vec<usize> = (0..groups.len()).collect();
        order.sort_by_key(|&t| groups[t].elements.nodes_per_element());
        let mut system = HessianSystem {
            dim,
            dofs,
            choice,
            max_factor_bytes,
            matrix: CscMatrix::zeros(0, 0),
            maps: (0..groups.len()).map(|_| GroupMap::default()).collect(),
            order,
            difference_pattern: difference_pattern(dim),
            factor: Factor::Skyline(SkylineLlt::new(0, &[0], &[])),
            diagonal_slots: Vec::new(),
            symbolic_factorisations: 0,
            numeric_factorisations: 0,
            active_set_changes: 0,
            shifts: Vec::with_capacity(8),
            spill: Vec::new(),
        };
        system.rebuild(groups.len(), |t| groups[t])?;
        Ok(system)
    }

    /// The pattern of the groups' current elements, its symbolic factorisation, the maps of
    /// every group and the diagonal's slots.
    fn rebuild<'g>(
        &mut self,
        count: usize,
        group: impl Fn(usize) -> Group<'g>,
    ) -> Result<(), LinearSolveError> {
        let n = self.dofs.free();
        let sets: Vec<Elements> = (0..count)
            .flat_map(|t| {
                let g = group(t);
                [g.elements, g.reserve]
            })
            .collect();
        // The pattern only grows: couplings of collisions no longer active stay (as explicit
        // zeros), so contacts that come and go do not rebuild it each time they come back.
        let old = (self.matrix.nrows() == n).then_some(&self.matrix);
        self.matrix = lower_pattern(self.dim, &self.dofs, old, &sets);
        let kind = match self.choice {
            FactorChoice::Always(kind) => kind,
            FactorChoice::Auto => {
                let w = half_width(&self.matrix) as f64;
                if n as f64 * w * w <= SKYLINE_MAX_WORK {
                    Factorisation::Skyline
                } else {
                    Factorisation::Sparse
                }
            }
        };
        self.factor = match kind {
            Factorisation::Sparse => {
                let symbolic = analyse(&self.matrix, &mut self.symbolic_factorisations)?;
                let req = StackReq::any_of(&[
                    symbolic.factorize_numeric_llt_scratch::<f64>(
                        Par::Seq,
                        Spec::<LltParams, f64>::default(),
                    ),
                    symbolic.solve_in_place_scratch::<f64>(1, Par::Seq),
                ]);
                // Refused before L's values or the workspace are allocated.
                let bytes = (symbolic.len_val() as u64)
                    .saturating_mul(std::mem::size_of::<f64>() as u64)
                    .saturating_add(req.size_bytes() as u64);
                if bytes > self.max_factor_bytes {
                    return Err(LinearSolveError::FactorTooLarge {
                        entries: symbolic.len_val(),
                        unknowns: n,
                        bytes,
                        limit: self.max_factor_bytes,
                    });
                }
                Factor::Sparse {
                    l_values: vec![0.0; symbolic.len_val()],
                    workspace: MemBuffer::new(req),
                    symbolic: Box::new(symbolic),
                }
            }
            Factorisation::Skyline => {
                self.symbolic_factorisations += 1;
                Factor::Skyline(SkylineLlt::new(
                    n,
                    self.matrix.col_offsets(),
                    self.matrix.row_indices(),
                ))
            }
        };
        self.diagonal_slots = (0..n)
            .map(|i| self.to_value(find_slot(&self.matrix, i, i).expect("diagonal in the pattern")))
            .collect();
        for t in 0..count {
            let g = group(t);
            if !self.map_group(t, &g)? {
                unreachable!("the pattern holds every element of the groups it was built from");
            }
        }
        Ok(())
    }

    /// The index in the values in use of the `k`-th CSC value.
    fn to_value(&self, k: usize) -> usize {
        match &self.factor {
            Factor::Skyline(llt) => llt.band_index(k),
            Factor::Sparse { .. } => k,
        }
    }

    /// The slot of free entry (row, col), if the pattern has it.
    fn slot(&self, row: usize, col: usize) -> Option<usize> {
        find_slot(&self.matrix, row, col).map(|k| self.to_value(k))
    }

    /// Builds group `t`'s map for its current elements; false (map unchanged) when an entry is
    /// outside the pattern.
    fn map_group(&mut self, t: usize, g: &Group) -> Result<bool, LinearSolveError> {
        let elements = g.elements;
        let k = elements.nodes_per_element();
        let dim = self.dim;
        let mut full = Vec::new();
        let mut difference = Vec::new();
        let block_len = (dim * k) * (dim * k);
        let too_large = |what, entries| LinearSolveError::TooLarge { what, entries };
        if g.form == BlockForm::Full && u32::try_from(block_len * elements.len()).is_err() {
            return Err(too_large(
                "a term's block buffer",
                block_len * elements.len(),
            ));
        }
        let mut starts = std::mem::take(&mut self.maps[t].starts);
        match g.form {
            BlockForm::Full => {
                let mut missing = false;
                let mut beyond = None;
                starts.clear();
                for e in 0..elements.len() {
                    starts.push(full.len());
                    for_lower_entries(
                        dim,
                        k,
                        &self.dofs,
                        |j| elements.node(e, j),
                        |local, row, col| match self.slot(row, col) {
                            Some(slot) => match u32::try_from(slot) {
                                Ok(slot) => full.push(Scatter {
                                    // Below 2³² (checked above).
                                    block: (block_len * e + local) as u32,
                                    slot,
                                }),
                                Err(_) => beyond = Some(slot),
                            },
                            None => missing = true,
                        },
                    );
                }
                starts.push(full.len());
                if let Some(slot) = beyond {
                    self.maps[t].starts = starts;
                    return Err(too_large("the Hessian's values", slot + 1));
                }
                if missing {
                    self.maps[t].starts = starts;
                    return Ok(false);
                }
            }
            BlockForm::Difference => {
                assert_eq!(k, 2, "difference form: two nodes");
                for e in 0..elements.len() {
                    let (a, b) = (elements.node(e, 0), elements.node(e, 1));
                    if a == b {
                        return Err(LinearSolveError::DegenerateElement {
                            element: e,
                            node: a,
                        });
                    }
                    let (hi, lo) = (a.max(b), a.min(b));
                    let entry = |row_dof: usize, col_dof: usize| -> Option<usize> {
                        let (row, col) = (self.dofs.row(row_dof), self.dofs.row(col_dof));
                        if row == DofMap::PRESCRIBED || col == DofMap::PRESCRIBED {
                            Some(SKIP)
                        } else {
                            self.slot(row, col)
                        }
                    };
                    for node in [a, b] {
                        for c in 0..dim {
                            for r in c..dim {
                                match entry(dim * node + r, dim * node + c) {
                                    Some(s) => difference.push(s),
                                    None => return Ok(false),
                                }
                            }
                        }
                    }
                    for c in 0..dim {
                        for r in 0..dim {
                            // Rows of the higher node, columns of the lower; B's (r, c) is the
                            // cross block's entry (r, c) of the block at (hi, lo).
                            match entry(dim * hi + r, dim * lo + c) {
                                Some(s) => difference.push(s),
                                None => return Ok(false),
                            }
                        }
                    }
                }
            }
        }
        let halves = match (&self.factor, g.by_element) {
            (Factor::Sparse { .. }, true) => Some(self.halves(&elements)),
            _ => None,
        };
        let map = &mut self.maps[t];
        map.starts = starts;
        map.halves = halves;
        map.full = full;
        map.skips = difference.contains(&SKIP);
        map.fixed = g.fixed;
        map.difference = difference;
        map.form = Some(g.form);
        map.k = k;
        map.nodes.clear();
        if let (false, Elements::Tuples { nodes, .. }) = (g.fixed, elements) {
            map.nodes.extend_from_slice(nodes);
        }
        Ok(true)
    }

    /// `elements` split at the node that best balances the two halves (module comment of
    /// [`Halves`]); on faer's path, where the values are the CSC matrix's.
    fn halves(&self, elements: &Elements) -> Halves {
        let nodes = self.dofs.dofs() / self.dim;
        let k = elements.nodes_per_element();
        let span = |e: usize| {
            (0..k)
                .map(|j| elements.node(e, j))
                .fold((usize::MAX, 0), |(lo, hi), n| (lo.min(n), hi.max(n)))
        };
        // below[s]: elements whose highest node is < s; at_or_above[s]: lowest node ≥ s.
        let (mut below, mut at_or_above) = (vec![0usize; nodes + 1], vec![0usize; nodes + 1]);
        for e in 0..elements.len() {
            let (lo, hi) = span(e);
            below[hi + 1] += 1;
            at_or_above[lo] += 1;
        }
        for s in 1..=nodes {
            below[s] += below[s - 1];
        }
        for s in (0..nodes).rev() {
            at_or_above[s] += at_or_above[s + 1];
        }
        let split = (0..=nodes)
            .min_by_key(|&s| below[s].max(at_or_above[s]))
            .unwrap_or(0);
        let mut h = Halves::default();
        for e in 0..elements.len() {
            match span(e) {
                (_, hi) if hi < split => h.low.push(e),
                (lo, _) if lo >= split => h.high.push(e),
                _ => h.rest.push(e),
            }
        }
        // The split node's first free row: the free degrees of freedom of the nodes before it.
        let first_row = (0..self.dim * split)
            .filter(|&d| self.dofs.row(d) != DofMap::PRESCRIBED)
            .count();
        h.split_value = self.matrix.col_offsets()[first_row];
        h
    }

    /// Which factorisation this system uses.
    pub fn factorisation(&self) -> Factorisation {
        match self.factor {
            Factor::Sparse { .. } => Factorisation::Sparse,
            Factor::Skyline(_) => Factorisation::Skyline,
        }
    }

    /// Non-zeros of the sparse factor L (faer's path; `None` on the skyline path).
    pub fn factor_nonzeros(&self) -> Option<usize> {
        match &self.factor {
            Factor::Sparse { symbolic, .. } => Some(symbolic.len_val()),
            Factor::Skyline(_) => None,
        }
    }

    /// The linear system's size (free degrees of freedom).
    pub fn size(&self) -> usize {
        self.dofs.free()
    }

    /// The free degrees of freedom.
    pub fn dofs(&self) -> &DofMap {
        &self.dofs
    }

    /// Refills the values from the groups' element blocks (group t as given to
    /// [`HessianSystem::new`]); where a non-fixed group's elements changed, its map is rebuilt,
    /// and the pattern with its symbolic factorisation where an entry falls outside it.
    pub fn assemble<'g>(
        &mut self,
        count: usize,
        group: impl Fn(usize) -> Group<'g>,
    ) -> Result<(), LinearSolveError> {
        self.assemble_by_element(count, group, &no_element_blocks)
    }

    /// [`HessianSystem::assemble`] where some groups are [`Group::by_element`]: `block(t, e,
    /// out)` writes group t's block of element e into `out` (one block of its buffer's layout).
    pub fn assemble_by_element<'g>(
        &mut self,
        count: usize,
        group: impl Fn(usize) -> Group<'g>,
        block: &(impl Fn(usize, usize, &mut [f64]) + Sync),
    ) -> Result<(), LinearSolveError> {
        debug_assert_eq!(count, self.maps.len());
        let mut changed = false;
        let mut outside = false;
        for t in 0..count {
            if self.maps[t].fixed {
                continue;
            }
            let g = group(t);
            let nodes: &[usize] = match g.elements {
                Elements::Tuples { nodes, .. } => nodes,
                Elements::EachNode(_) => &[],
            };
            if nodes != self.maps[t].nodes.as_slice() || self.maps[t].form != Some(g.form) {
                changed = true;
                if !self.map_group(t, &g)? {
                    outside = true;
                    break;
                }
            }
        }
        if changed {
            self.active_set_changes += 1;
        }
        if outside {
            self.rebuild(count, &group)?;
        }
        self.shifts.clear();
        self.scatter_blocks(&group, block);
        Ok(())
    }

    /// After a failed [`HessianSystem::factorize`]: the matrix as it was before it, the blocks
    /// (as last given to [`HessianSystem::assemble`]) assembled again and every
    /// [`HessianSystem::add_to_diagonal`] since replayed in order with `diagonal`, so that the
    /// values are the same to the last bit. The skyline path factors in its band, overwriting
    /// the matrix; the sparse path factors into a separate factor, and this does nothing there.
    pub fn restore<'g>(&mut self, group: impl Fn(usize) -> Group<'g>, diagonal: &[f64]) {
        self.restore_by_element(group, &no_element_blocks, diagonal);
    }

    /// [`HessianSystem::restore`] where some groups are [`Group::by_element`] (`block` as in
    /// [`HessianSystem::assemble_by_element`]).
    pub fn restore_by_element<'g>(
        &mut self,
        group: impl Fn(usize) -> Group<'g>,
        block: &(impl Fn(usize, usize, &mut [f64]) + Sync),
        diagonal: &[f64],
    ) {
        let Factor::Skyline(llt) = &self.factor else {
            return;
        };
        if !llt.is_factored() {
            return;
        }
        self.scatter_blocks(&group, block);
        for i in 0..self.shifts.len() {
            let scale = self.shifts[i];
            self.shift_diagonal(diagonal, scale);
        }
    }

    /// Zeroes the values and adds every group's blocks in.
    fn scatter_blocks<'g>(
        &mut self,
        group: &impl Fn(usize) -> Group<'g>,
        block: &(impl Fn(usize, usize, &mut [f64]) + Sync),
    ) {
        let vals = values_mut(&mut self.factor, &mut self.matrix);
        vals.fill(0.0);
        for &t in &self.order {
            let g = group(t);
            let map = &self.maps[t];
            if g.by_element {
                scatter_by_element(
                    vals,
                    &mut self.spill,
                    map,
                    self.dim,
                    g.elements.len(),
                    &|e, out| block(t, e, out),
                );
                continue;
            }
            let blocks = g.blocks;
            match map.form {
                Some(BlockForm::Full) | None => {
                    for s in &map.full {
                        vals[s.slot as usize] += blocks[s.block as usize];
                    }
                }
                // Adding −b is subtracting b: the same values as the full blocks' scatter.
                Some(BlockForm::Difference) if !map.skips => match self.dim {
                    2 => scatter_difference::<2, { difference_stride(2) }>(
                        vals,
                        &map.difference,
                        blocks,
                    ),
                    3 => scatter_difference::<3, { difference_stride(3) }>(
                        vals,
                        &map.difference,
                        blocks,
                    ),
                    _ => scatter_difference_checked(
                        vals,
                        &map.difference,
                        blocks,
                        &self.difference_pattern,
                        self.dim,
                    ),
                },
                Some(BlockForm::Difference) => scatter_difference_checked(
                    vals,
                    &map.difference,
                    blocks,
                    &self.difference_pattern,
                    self.dim,
                ),
            }
        }
    }

    /// Adds `scale · diagonal[i]` to the i-th diagonal entry of the assembled matrix (Newton's
    /// H + τM when H is indefinite, SPEC.md §6); `diagonal` has [`HessianSystem::size`]
    /// entries. On the skyline path, the matrix must not have been factored since it was
    /// assembled (after a failed factorisation, [`HessianSystem::restore`] it first).
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
        let n = self.size();
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

    /// Solves H x = rhs in place with the last factorisation (`rhs` over the free degrees of
    /// freedom).
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

    /// The assembled lower triangle over the free degrees of freedom (for the skyline path,
    /// its values are copied out of the band, so call it before [`HessianSystem::factorize`]).
    ///
    /// # Panics
    /// On the skyline path, once the matrix has been factored.
    pub fn matrix(&mut self) -> &CscMatrix<f64> {
        if let Factor::Skyline(llt) = &self.factor {
            llt.csc_values(self.matrix.values_mut())
                .expect("the skyline band holds a factor: read the matrix before factorising");
        }
        &self.matrix
    }
}

#[cfg(test)]
mod tests;
