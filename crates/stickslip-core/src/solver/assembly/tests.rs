use super::*;
use nalgebra::DMatrix;

const BOTH: [Factorisation; 2] = [Factorisation::Sparse, Factorisation::Skyline];

/// The full element block [[B, −B], [−B, B]] of a pair in 2D, column-major (16 entries).
fn pair_block(b: &nalgebra::Matrix2<f64>) -> Vec<f64> {
    let mut e = nalgebra::Matrix4::zeros();
    e.fixed_view_mut::<2, 2>(0, 0).copy_from(b);
    e.fixed_view_mut::<2, 2>(2, 2).copy_from(b);
    e.fixed_view_mut::<2, 2>(0, 2).copy_from(&(-b));
    e.fixed_view_mut::<2, 2>(2, 0).copy_from(&(-b));
    e.as_slice().to_vec()
}

fn full<'a>(elements: Elements<'a>, blocks: &'a [f64]) -> Group<'a> {
    Group {
        elements,
        form: BlockForm::Full,
        blocks,
        fixed: true,
        by_element: false,
        reserve: Elements::NONE,
    }
}

fn system(dim: usize, nodes: usize, groups: &[Group], kind: Factorisation) -> HessianSystem {
    HessianSystem::new(
        dim,
        DofMap::all_free(dim * nodes),
        groups,
        FactorChoice::Always(kind),
    )
    .unwrap()
}

/// The dense matrix that the element blocks of `groups` sum to (every entry of every block
/// added at its global row and column) in dimension `dim`: the reference the map must match.
fn dense_reference(dim: usize, nodes: usize, groups: &[Group]) -> DMatrix<f64> {
    let mut dense = DMatrix::<f64>::zeros(dim * nodes, dim * nodes);
    for g in groups {
        let k = g.elements.nodes_per_element();
        let n = dim * k;
        for e in 0..g.elements.len() {
            let local = &g.blocks[n * n * e..n * n * (e + 1)];
            let global = |i: usize| dim * g.elements.node(e, i / dim) + i % dim;
            for c in 0..n {
                for r in 0..n {
                    dense[(global(r), global(c))] += local[n * c + r];
                }
            }
        }
    }
    dense
}

/// Symmetric element blocks with distinct, recognisable entries.
fn symmetric_blocks(dim: usize, elements: &Elements, seed: f64) -> Vec<f64> {
    let n = dim * elements.nodes_per_element();
    let mut out = vec![0.0; elements.hessian_len(dim)];
    for e in 0..elements.len() {
        for c in 0..n {
            for r in 0..n {
                let (i, j) = (r.max(c), r.min(c));
                out[n * n * e + n * c + r] =
                    seed + (e * 100 + i * 10 + j) as f64 + if i == j { 1e3 } else { 0.0 };
            }
        }
    }
    out
}

fn dense_of(m: &CscMatrix<f64>, n: usize) -> DMatrix<f64> {
    let mut got = DMatrix::<f64>::zeros(n, n);
    for (row, col, v) in m.triplet_iter() {
        assert!(row >= col, "lower triangle only");
        got[(row, col)] = *v;
        got[(col, row)] = *v;
    }
    got
}

/// The map puts every element's block where a dense assembly does, in 2D and 3D, for node
/// terms, pairs in either order, a triangle of three nodes and a degenerate pair naming one
/// node twice, on both factorisations' values.
#[test]
fn map_places_blocks_where_a_dense_assembly_does() {
    let pairs = [0, 1, 3, 1, 2, 2];
    let triangle = [4, 0, 2];
    for dim in [2, 3] {
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
            .map(|(t, e)| symmetric_blocks(dim, e, 0.25 * t as f64))
            .collect();
        let groups: Vec<Group> = terms
            .iter()
            .zip(&blocks)
            .map(|(e, b)| full(*e, b))
            .collect();
        let expect = dense_reference(dim, 5, &groups);
        for kind in BOTH {
            let mut sys = system(dim, 5, &groups, kind);
            sys.assemble(groups.len(), |t| groups[t]).unwrap();
            let got = dense_of(sys.matrix(), dim * 5);
            // Each value is a sum of at most four exactly representable numbers below 2¹²:
            // exact.
            assert_eq!(got, expect, "{kind:?}, D = {dim}");
            // The pattern holds the union of the blocks (and the diagonal) and nothing else:
            // nodes 4 and 1, 3 and 0 are coupled by no element.
            let pattern = |r: usize, c: usize| find_slot(&sys.matrix, r, c).is_some();
            assert!(pattern(dim * 3, dim) && pattern(dim * 4 + 1, 0));
            assert!(!pattern(dim * 4, dim) && !pattern(dim * 3, 0));
        }
    }
}

#[test]
fn assembles_and_solves_a_spring_chain() {
    for kind in BOTH {
        // Three nodes, two edges; mass 1 on each diagonal, spring block B = [[2, .5], [.5, 3]].
        let edges = [0, 1, 2, 1];
        let b = nalgebra::Matrix2::new(2.0, 0.5, 0.5, 3.0);
        let node_blocks: Vec<f64> = (0..3).flat_map(|_| [1.0, 0.0, 0.0, 1.0]).collect();
        let pair_blocks: Vec<f64> = (0..2).flat_map(|_| pair_block(&b)).collect();
        let groups = [
            full(Elements::EachNode(3), &node_blocks),
            full(
                Elements::Tuples {
                    k: 2,
                    nodes: &edges,
                },
                &pair_blocks,
            ),
        ];
        let mut sys = system(2, 3, &groups, kind);
        assert_eq!(sys.factorisation(), kind);
        sys.assemble(2, |t| groups[t]).unwrap();
        let dense = dense_reference(2, 3, &groups);
        let rhs = nalgebra::DVector::from_fn(6, |i, _| i as f64 - 2.5);
        let expect = dense.clone().cholesky().unwrap().solve(&rhs);
        sys.factorize().unwrap();
        let mut x: Vec<f64> = rhs.iter().copied().collect();
        sys.solve_in_place(&mut x);
        for i in 0..6 {
            assert!((x[i] - expect[i]).abs() < 1e-12, "{kind:?} {i}");
        }
        assert_eq!(sys.symbolic_factorisations, 1);
        for _ in 0..2 {
            sys.assemble(2, |t| groups[t]).unwrap();
            sys.factorize().unwrap();
        }
        assert_eq!(sys.numeric_factorisations, 3);
        assert_eq!(sys.symbolic_factorisations, 1);
    }
}

/// Prescribed degrees of freedom are eliminated: the free system is the dense matrix with the
/// prescribed rows and columns removed (here node 1 entirely and node 2's y), in 2D and 3D.
#[test]
fn prescribed_degrees_of_freedom_are_eliminated() {
    let pairs = [0, 1, 1, 2, 2, 0];
    for dim in [2, 3] {
        let terms = [
            Elements::EachNode(3),
            Elements::Tuples {
                k: 2,
                nodes: &pairs,
            },
        ];
        let blocks: Vec<Vec<f64>> = terms
            .iter()
            .enumerate()
            .map(|(t, e)| symmetric_blocks(dim, e, t as f64))
            .collect();
        let groups: Vec<Group> = terms
            .iter()
            .zip(&blocks)
            .map(|(e, b)| full(*e, b))
            .collect();
        let mut prescribed = vec![false; 3 * dim];
        for c in 0..dim {
            prescribed[dim + c] = true;
        }
        prescribed[2 * dim + 1] = true;
        let free: Vec<usize> = (0..3 * dim).filter(|&i| !prescribed[i]).collect();
        let expect = dense_reference(dim, 3, &groups)
            .select_rows(&free)
            .select_columns(&free);
        for kind in BOTH {
            let mut sys = HessianSystem::new(
                dim,
                DofMap::from_prescribed(&prescribed),
                &groups,
                FactorChoice::Always(kind),
            )
            .unwrap();
            assert_eq!(sys.size(), free.len());
            sys.assemble(2, |t| groups[t]).unwrap();
            assert_eq!(
                dense_of(sys.matrix(), free.len()),
                expect,
                "{kind:?}, D = {dim}"
            );
        }
    }
}

/// A group whose elements change (contact pairs) keeps the pattern while its couplings stay
/// inside it, and rebuilds the pattern with a new symbolic factorisation only when a coupling
/// outside it appears; every assembly equals the dense one of the elements it was given.
#[test]
fn a_changing_group_rebuilds_the_pattern_only_for_a_new_coupling() {
    let chain = [0, 1, 1, 2, 2, 3];
    let node_blocks: Vec<f64> = (0..4)
        .flat_map(|i| [10.0 + i as f64, 0.0, 0.0, 10.0])
        .collect();
    let chain_blocks = symmetric_blocks(
        2,
        &Elements::Tuples {
            k: 2,
            nodes: &chain,
        },
        0.0,
    )
    .iter()
    .map(|v| v * 1e-3)
    .collect::<Vec<_>>();
    for kind in BOTH {
        let contacts: [&[usize]; 4] = [&[0, 1], &[], &[1, 2], &[0, 3]];
        let mut nodes: &[usize] = contacts[0];
        let mut contact_blocks = symmetric_blocks(2, &Elements::Tuples { k: 2, nodes }, 0.5);
        fn groups<'a>(
            node_blocks: &'a [f64],
            chain: &'a [usize],
            chain_blocks: &'a [f64],
            nodes: &'a [usize],
            blocks: &'a [f64],
        ) -> Vec<Group<'a>> {
            vec![
                full(Elements::EachNode(4), node_blocks),
                full(Elements::Tuples { k: 2, nodes: chain }, chain_blocks),
                Group {
                    elements: Elements::Tuples { k: 2, nodes },
                    form: BlockForm::Full,
                    blocks,
                    fixed: false,
                    by_element: false,
                    reserve: Elements::NONE,
                },
            ]
        }
        let g = groups(&node_blocks, &chain, &chain_blocks, nodes, &contact_blocks);
        let mut sys = system(2, 4, &g, kind);
        let mut seen = vec![];
        for (step, next) in contacts.iter().enumerate() {
            nodes = next;
            contact_blocks = symmetric_blocks(2, &Elements::Tuples { k: 2, nodes }, 0.5)
                .iter()
                .map(|v| v * 1e-4)
                .collect();
            let g = groups(&node_blocks, &chain, &chain_blocks, nodes, &contact_blocks);
            sys.assemble(3, |t| g[t]).unwrap();
            assert_eq!(
                dense_of(sys.matrix(), 8),
                dense_reference(2, 4, &g),
                "{kind:?} {step}"
            );
            seen.push((sys.symbolic_factorisations, sys.active_set_changes));
        }
        // [0, 1] and [1, 2] couple chain neighbours (in the pattern); the empty set is a
        // subset; [0, 3] is new: one more symbolic factorisation. The active set changed at
        // steps 1, 2 and 3 (step 0 is the elements the system was built with).
        assert_eq!(seen, [(1, 0), (1, 1), (1, 2), (2, 3)], "{kind:?}");
    }
}

/// The values of the lower triangle as `sys` holds them now, bit for bit.
fn value_bits(sys: &mut HessianSystem) -> Vec<u64> {
    sys.matrix().values().iter().map(|v| v.to_bits()).collect()
}

/// A group in difference form (each element's B, added with its signs) assembles the same
/// matrix, bit for bit, as the same term given as full [[B, −B], [−B, B]] blocks, on both
/// paths, for pairs in either node order and summed on top of node blocks, in 2D and 3D, also
/// with a prescribed node. The entries are not exactly representable sums (thirds and
/// sevenths), so the order of the additions shows in the last bits if it differs.
#[test]
fn difference_form_assembles_the_full_form_exactly() {
    let pairs = [0, 1, 3, 1, 2, 0, 1, 2, 3, 2];
    for dim in [2, 3] {
        let terms = [
            Elements::EachNode(4),
            Elements::Tuples {
                k: 2,
                nodes: &pairs,
            },
        ];
        let node_blocks: Vec<f64> = (0..4)
            .flat_map(|i| {
                DMatrix::<f64>::from_fn(dim, dim, |r, c| {
                    if r == c {
                        1.0 / 3.0 + i as f64 + r as f64
                    } else {
                        0.1 / 7.0
                    }
                })
                .as_slice()
                .to_vec()
            })
            .collect();
        let bs: Vec<DMatrix<f64>> = (0..5)
            .map(|e| {
                let off = (e as f64 + 1.0) / 7.0;
                DMatrix::from_fn(dim, dim, |r, c| {
                    if r == c {
                        1.0 / 3.0 + e as f64 + 5.0 / 7.0 * r as f64
                    } else {
                        off
                    }
                })
            })
            .collect();
        let full_blocks: Vec<f64> = bs
            .iter()
            .flat_map(|b| {
                let mut m = DMatrix::<f64>::zeros(2 * dim, 2 * dim);
                m.view_mut((0, 0), (dim, dim)).copy_from(b);
                m.view_mut((dim, dim), (dim, dim)).copy_from(b);
                m.view_mut((0, dim), (dim, dim)).copy_from(&(-b));
                m.view_mut((dim, 0), (dim, dim)).copy_from(&(-b));
                m.as_slice().to_vec()
            })
            .collect();
        let compact: Vec<f64> = bs.iter().flat_map(|b| b.as_slice().to_vec()).collect();
        for prescribed_node in [None, Some(2)] {
            let mut prescribed = vec![false; 4 * dim];
            if let Some(n) = prescribed_node {
                for c in 0..dim {
                    prescribed[dim * n + c] = true;
                }
            }
            for kind in BOTH {
                let g_full = [full(terms[0], &node_blocks), full(terms[1], &full_blocks)];
                let g_diff = [
                    full(terms[0], &node_blocks),
                    Group {
                        elements: terms[1],
                        form: BlockForm::Difference,
                        blocks: &compact,
                        fixed: true,
                        by_element: false,
                        reserve: Elements::NONE,
                    },
                ];
                let make = |g: &[Group]| {
                    HessianSystem::new(
                        dim,
                        DofMap::from_prescribed(&prescribed),
                        g,
                        FactorChoice::Always(kind),
                    )
                    .unwrap()
                };
                let (mut a, mut b) = (make(&g_full), make(&g_diff));
                a.assemble(2, |t| g_full[t]).unwrap();
                b.assemble(2, |t| g_diff[t]).unwrap();
                assert_eq!(
                    value_bits(&mut a),
                    value_bits(&mut b),
                    "{kind:?}, D = {dim}"
                );
            }
        }
    }
    // An element naming one node twice cannot take this form.
    let twice = [0, 1, 2, 2];
    let g = [Group {
        elements: Elements::Tuples {
            k: 2,
            nodes: &twice,
        },
        form: BlockForm::Difference,
        blocks: &[0.0; 8],
        fixed: true,
        by_element: false,
        reserve: Elements::NONE,
    }];
    assert!(matches!(
        HessianSystem::new(
            2,
            DofMap::all_free(6),
            &g,
            FactorChoice::Always(Factorisation::Skyline)
        ),
        Err(LinearSolveError::DegenerateElement {
            element: 1,
            node: 2
        })
    ));
}

/// After a failed factorisation (which on the skyline path overwrote the matrix in its band),
/// `restore` gives back the matrix with its diagonal shifts, bit for bit: shifted twice around a
/// failure, the values equal those of a system shifted the same way that never failed, and the
/// shifted matrix then factors and solves.
#[test]
fn restore_after_a_failed_factorisation_gives_the_same_matrix() {
    let pairs = [0, 1];
    let third = 1.0 / 3.0;
    let node_blocks = vec![third, 0.0, 0.0, third, third, 0.0, 0.0, third];
    // Nodes of mass 1/3 and a pair block B = −I: indefinite (eigenvalues 1/3 and −5/3).
    let pair_blocks = pair_block(&-nalgebra::Matrix2::<f64>::identity());
    let groups = [
        full(Elements::EachNode(2), &node_blocks),
        full(
            Elements::Tuples {
                k: 2,
                nodes: &pairs,
            },
            &pair_blocks,
        ),
    ];
    let mass = [third; 4];
    for kind in BOTH {
        let mut sys = system(2, 2, &groups, kind);
        sys.assemble(2, |t| groups[t]).unwrap();
        sys.add_to_diagonal(&mass, 0.1);
        assert!(sys.factorize().is_err(), "{kind:?}: still indefinite");
        sys.restore(|t| groups[t], &mass);
        sys.add_to_diagonal(&mass, 10.0 - 0.1);
        let mut never_failed = system(2, 2, &groups, kind);
        never_failed.assemble(2, |t| groups[t]).unwrap();
        never_failed.add_to_diagonal(&mass, 0.1);
        never_failed.add_to_diagonal(&mass, 10.0 - 0.1);
        assert_eq!(
            value_bits(&mut sys),
            value_bits(&mut never_failed),
            "{kind:?}"
        );
        let dense = dense_of(never_failed.matrix(), 4);
        sys.factorize().unwrap();
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
        let blocks = vec![1.0, 0.0, 0.0, -1.0];
        let groups = [full(Elements::EachNode(1), &blocks)];
        let mut sys = system(2, 1, &groups, kind);
        sys.assemble(1, |t| groups[t]).unwrap();
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
/// diagonals in every cell (the square's pattern at n_seg = 5) to the same answer. Node blocks
/// dominate the pair blocks (condition number below 100), so the two solutions, rounded in
/// different orders, agree to 1e-12 on entries of order 1. The automatic choice takes the band.
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
    let groups = [
        full(Elements::EachNode(m * m), &node_blocks),
        full(
            Elements::Tuples {
                k: 2,
                nodes: &pairs,
            },
            &pair_blocks,
        ),
    ];
    let rhs: Vec<f64> = (0..2 * m * m).map(|i| (i as f64 * 0.37).cos()).collect();
    let mut solutions = vec![];
    for kind in BOTH {
        let mut sys = system(2, m * m, &groups, kind);
        sys.assemble(2, |t| groups[t]).unwrap();
        sys.factorize().unwrap();
        let mut x = rhs.clone();
        sys.solve_in_place(&mut x);
        solutions.push(x);
    }
    for (i, (a, b)) in solutions[0].iter().zip(&solutions[1]).enumerate() {
        assert!((a - b).abs() < 1e-12, "{i}: sparse {a} vs skyline {b}");
    }
    let auto =
        HessianSystem::new(2, DofMap::all_free(2 * m * m), &groups, FactorChoice::Auto).unwrap();
    assert_eq!(auto.factorisation(), Factorisation::Skyline);
}

/// A group assembled by element (each block made as it is scattered, two halves of the
/// elements in parallel on faer's path, in order on the band's) assembles the same matrix as
/// the same blocks given as a buffer: a strip of 200 tetrahedra (element e on nodes e..e + 3,
/// some in reverse order) after a node term, in 3D, with all nodes free and with nodes 1 and
/// 150 partly prescribed. The entries are integers below 2¹⁶ summed a few at a time: exact in
/// any order, so the two assemblies must agree bit for bit. On faer's path both halves hold
/// elements, and only the few spanning the split are left to the buffered pass. With the nodes
/// numbered without locality (shuffled) most elements span the split and go through the
/// buffered pass: the same matrix again.
#[test]
fn assembling_by_element_gives_the_stored_blocks_matrix() {
    for shuffled in [false, true] {
        assemble_a_strip_by_element(shuffled);
    }
}

fn assemble_a_strip_by_element(shuffled: bool) {
    let (dim, count) = (3, 200);
    let nodes = count + 3;
    // A fixed permutation of the nodes (multiplication by 101, coprime to 203, mod 203).
    let number = |n: usize| if shuffled { (101 * n) % nodes } else { n };
    let tets: Vec<usize> = (0..count)
        .flat_map(|e| {
            let t = [e, e + 1, e + 2, e + 3].map(number);
            if e % 3 == 0 {
                [t[3], t[1], t[2], t[0]]
            } else {
                t
            }
        })
        .collect();
    let terms = [
        Elements::EachNode(nodes),
        Elements::Tuples { k: 4, nodes: &tets },
    ];
    let blocks: Vec<Vec<f64>> = terms
        .iter()
        .enumerate()
        .map(|(t, e)| symmetric_blocks(dim, e, t as f64))
        .collect();
    let stored: Vec<Group> = terms
        .iter()
        .zip(&blocks)
        .map(|(e, b)| full(*e, b))
        .collect();
    let mut by_element = stored.clone();
    by_element[1].blocks = &[];
    by_element[1].by_element = true;
    let block_len = 144;
    let make = |t: usize, e: usize, out: &mut [f64]| {
        assert_eq!(t, 1, "only the tetrahedra are made by element");
        out.copy_from_slice(&blocks[1][block_len * e..block_len * (e + 1)]);
    };
    let mut prescribed = vec![false; dim * nodes];
    prescribed[dim + 2] = true;
    for c in 0..dim {
        prescribed[dim * 150 + c] = true;
    }
    for dofs in [
        DofMap::all_free(dim * nodes),
        DofMap::from_prescribed(&prescribed),
    ] {
        for kind in BOTH {
            let new = |groups: &[Group]| {
                HessianSystem::new(dim, dofs.clone(), groups, FactorChoice::Always(kind)).unwrap()
            };
            let mut a = new(&stored);
            a.assemble(2, |t| stored[t]).unwrap();
            let mut b = new(&by_element);
            b.assemble_by_element(2, |t| by_element[t], &make).unwrap();
            assert_eq!(value_bits(&mut a), value_bits(&mut b), "{kind:?}");
            match (&b.maps[1].halves, kind) {
                (Some(h), Factorisation::Sparse) if shuffled => {
                    assert!(
                        h.rest.len() > count / 2,
                        "{} spanning the split",
                        h.rest.len()
                    );
                }
                (Some(h), Factorisation::Sparse) => {
                    assert!(
                        h.low.len() > 90 && h.high.len() > 90,
                        "halves {} and {}",
                        h.low.len(),
                        h.high.len()
                    );
                    assert!(h.rest.len() <= 3, "{} spanning the split", h.rest.len());
                }
                (None, Factorisation::Skyline) => {}
                _ => panic!("halves on faer's path only"),
            }
        }
    }
}

/// The tetrahedra of a grid of n³ unit cells (six a cell, around its main diagonal), its
/// (n + 1)³ nodes numbered from `first`, x fastest.
fn tetrahedral_grid(n: usize, first: usize) -> Vec<usize> {
    let node = |i: usize, j: usize, k: usize| first + i + (n + 1) * (j + (n + 1) * k);
    let mut tets = Vec::new();
    for k in 0..n {
        for j in 0..n {
            for i in 0..n {
                for axes in [
                    [0, 1, 2],
                    [0, 2, 1],
                    [1, 0, 2],
                    [1, 2, 0],
                    [2, 0, 1],
                    [2, 1, 0],
                ] {
                    // From the cell's corner to the opposite one, one axis at a time.
                    let mut at = [i, j, k];
                    tets.push(node(at[0], at[1], at[2]));
                    for axis in axes {
                        at[axis] += 1;
                        tets.push(node(at[0], at[1], at[2]));
                    }
                }
            }
        }
    }
    tets
}

/// A sparse factor larger than the memory allowed is refused with its size, counted by the
/// symbolic analysis before L's values are allocated: at construction, and when contacts that
/// couple two bodies grow the pattern (and so the factor) past the limit at an assembly. Two
/// grids of 4³ tetrahedral cells, in 3D; the limit given stands for [`MAX_FACTOR_BYTES`]
/// (a pair of 60³ grids needs 46 GiB, which aborted the run before it was checked).
#[test]
fn a_factor_over_its_memory_limit_is_refused_before_it_is_allocated() {
    let (dim, n): (usize, usize) = (3, 4);
    let per_body = (n + 1).pow(3);
    let nodes = 2 * per_body;
    let tets: Vec<usize> = [0, per_body]
        .into_iter()
        .flat_map(|first| tetrahedral_grid(n, first))
        .collect();
    // Point–triangle stencils from the first grid's top face to the second's bottom face.
    let contacts: Vec<usize> = (0..n)
        .flat_map(|i| {
            let top = per_body - (n + 1).pow(2) + i;
            [top, per_body + i, per_body + i + 1, per_body + i + n + 1]
        })
        .collect();
    let terms = [
        Elements::EachNode(nodes),
        Elements::Tuples { k: 4, nodes: &tets },
    ];
    let blocks: Vec<Vec<f64>> = terms
        .iter()
        .enumerate()
        .map(|(t, e)| symmetric_blocks(dim, e, t as f64))
        .collect();
    let apart: Vec<Group> = terms
        .iter()
        .zip(&blocks)
        .map(|(e, b)| full(*e, b))
        .chain([Group {
            fixed: false,
            ..full(Elements::NONE, &[])
        }])
        .collect();
    let new = |groups: &[Group], limit: u64| {
        HessianSystem::with_factor_limit(
            dim,
            DofMap::all_free(dim * nodes),
            groups,
            FactorChoice::Always(Factorisation::Sparse),
            limit,
        )
    };
    let entries = new(&apart, MAX_FACTOR_BYTES)
        .unwrap()
        .factor_nonzeros()
        .unwrap();
    // L's values alone, 8 bytes a non-zero, already pass this limit with the workspace.
    let limit = 8 * entries as u64;
    let bytes = match new(&apart, limit) {
        Err(LinearSolveError::FactorTooLarge {
            entries: e,
            unknowns,
            bytes,
            limit: l,
        }) => {
            assert_eq!((e, unknowns, l), (entries, dim * nodes, limit));
            assert!(bytes > limit, "{bytes} bytes");
            bytes
        }
        Err(e) => panic!("{e}"),
        Ok(_) => panic!("a factor of {entries} non-zeros accepted under {limit} bytes"),
    };
    let message = new(&apart, limit).err().unwrap().to_string();
    assert!(
        message.contains(&format!(
            "{entries:e} non-zeros of L for {} unknowns",
            dim * nodes
        )),
        "{message}"
    );
    // Exactly its size is allowed.
    let mut sys = new(&apart, bytes).unwrap();
    assert_eq!(sys.factor_nonzeros(), Some(entries));
    sys.assemble(3, |t| apart[t]).unwrap();
    // The contacts couple the two grids: new entries in the pattern, and so in L, refused.
    let mut touching = apart.clone();
    touching[2].elements = Elements::Tuples {
        k: 4,
        nodes: &contacts,
    };
    let contact_blocks = symmetric_blocks(dim, &touching[2].elements, 2.0);
    touching[2].blocks = &contact_blocks;
    match sys.assemble(3, |t| touching[t]) {
        Err(LinearSolveError::FactorTooLarge {
            entries: e,
            bytes: b,
            ..
        }) => assert!(e > entries && b > bytes, "{e} non-zeros, {b} bytes"),
        r => panic!("the grown factor was not refused: {r:?}"),
    }
    // Under the default limit both are accepted.
    new(&touching, MAX_FACTOR_BYTES).unwrap();
}

/// The pattern as it was built before `lower_pattern`: every entry listed, then converted
/// (the reference it must equal).
fn listed_pattern(
    dim: usize,
    dofs: &DofMap,
    old: Option<&CscMatrix<f64>>,
    sets: &[Elements],
) -> CscMatrix<f64> {
    let n = dofs.free();
    let mut coo = nalgebra_sparse::CooMatrix::<f64>::new(n, n);
    for i in 0..n {
        coo.push(i, i, 0.0);
    }
    for (row, col, _) in old.into_iter().flat_map(|m| m.triplet_iter()) {
        coo.push(row, col, 0.0);
    }
    for elements in sets {
        let k = elements.nodes_per_element();
        for e in 0..elements.len() {
            for_lower_entries(
                dim,
                k,
                dofs,
                |j| elements.node(e, j),
                |_, row, col| coo.push(row, col, 0.0),
            );
        }
    }
    CscMatrix::from(&coo)
}

/// The pattern built from node pairs is the one every entry listed gives: in 2D and 3D, with
/// all degrees of freedom free and with some prescribed (whole nodes and single components),
/// for node terms, pairs, triangles and tetrahedra in any node order, elements naming a node
/// twice, nodes in no element, and a previous pattern carried over.
#[test]
fn the_pattern_from_node_pairs_is_the_listed_entries_pattern() {
    let nodes = 40;
    // A fixed pseudo-random sequence of nodes (linear congruential).
    let mut state = 12345u64;
    let mut next = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) as usize % nodes
    };
    let pairs: Vec<usize> = (0..30).map(|_| next()).collect();
    let triangles: Vec<usize> = (0..24).map(|_| next()).collect();
    let tets: Vec<usize> = (0..32).map(|_| next()).collect();
    let twice = [3, 3, 7, 9, 11, 11, 11, 2];
    let later: Vec<usize> = (0..16).map(|_| next()).collect();
    let sets = [
        Elements::EachNode(nodes - 5),
        Elements::Tuples {
            k: 2,
            nodes: &pairs,
        },
        Elements::Tuples {
            k: 3,
            nodes: &triangles,
        },
        Elements::Tuples { k: 4, nodes: &tets },
        Elements::Tuples {
            k: 4,
            nodes: &twice,
        },
        Elements::NONE,
    ];
    for dim in [2, 3] {
        let mut prescribed = vec![false; dim * nodes];
        for d in [
            0,
            1,
            dim * 5 + 1,
            dim * 17,
            dim * 17 + 1,
            dim * 39 + dim - 1,
        ] {
            prescribed[d] = true;
        }
        for c in 0..dim {
            prescribed[dim * 22 + c] = true;
        }
        for dofs in [
            DofMap::all_free(dim * nodes),
            DofMap::from_prescribed(&prescribed),
        ] {
            let first = lower_pattern(dim, &dofs, None, &sets);
            let listed = listed_pattern(dim, &dofs, None, &sets);
            assert_eq!(first.col_offsets(), listed.col_offsets(), "{dim}D");
            assert_eq!(first.row_indices(), listed.row_indices(), "{dim}D");
            let grown_sets = [Elements::Tuples {
                k: 4,
                nodes: &later,
            }];
            let grown = lower_pattern(dim, &dofs, Some(&first), &grown_sets);
            let listed = listed_pattern(dim, &dofs, Some(&listed), &grown_sets);
            assert_eq!(grown.col_offsets(), listed.col_offsets(), "{dim}D, grown");
            assert_eq!(grown.row_indices(), listed.row_indices(), "{dim}D, grown");
            assert!(grown.nnz() > first.nnz());
        }
    }
}
