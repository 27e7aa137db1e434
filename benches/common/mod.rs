//! The square's Hessian pattern with values of a step's scale, shared by `benches/solver.rs`
//! (the `factorisation` group) and `examples/factorisation_timing.rs`.

use nalgebra::Vector2;
use stickslip::energy::{BlockForm, Elements};
use stickslip::scene::bodies::square::square;
use stickslip::solver::assembly::{DofMap, FactorChoice, Factorisation, Group, HessianSystem};

/// The square's element blocks: node blocks and spring pairs.
pub struct SquareBlocks {
    nodes: usize,
    pairs: Vec<usize>,
    blocks: [Vec<f64>; 2],
}

impl SquareBlocks {
    /// The t-th group (0: node blocks, 1: springs), as [`HessianSystem::assemble`] takes it.
    pub fn group(&self, t: usize) -> Group<'_> {
        let elements = if t == 0 {
            Elements::EachNode(self.nodes)
        } else {
            Elements::Tuples {
                k: 2,
                nodes: &self.pairs,
            }
        };
        Group {
            elements,
            form: BlockForm::Full,
            blocks: &self.blocks[t],
            fixed: true,
            by_element: false,
            reserve: Elements::NONE,
        }
    }

    /// Assembles them into `sys`.
    pub fn assemble_into(&self, sys: &mut HessianSystem) {
        sys.assemble(2, |t| self.group(t)).unwrap();
    }
}

/// The square's pattern at `n_seg` with the factorisation `kind`, and SPD element blocks of the
/// step's scale: node blocks of mass 1000/n_seg² kg, springs of 2 N/m (2·10⁴ N/m times h²)
/// along each edge's direction plus `skew` (zero for the benches; a small skew gives the blocks
/// full 2×2 couplings).
pub fn square_system(
    n_seg: usize,
    kind: Factorisation,
    skew: Vector2<f64>,
) -> (HessianSystem, SquareBlocks) {
    let mesh = square(1.0, n_seg, Vector2::zeros(), 1000.0, 1.0 / n_seg as f64);
    let n = mesh.x0.len();
    let m = 1000.0 / (n_seg * n_seg) as f64;
    let k = 2.0e4 * 1e-4;
    let pair: Vec<f64> = mesh
        .edges
        .iter()
        .flat_map(|&[a, b]| {
            let d = (mesh.x0[b] - mesh.x0[a]).normalize() + skew;
            let blk = d * d.transpose() * k;
            let mut e = nalgebra::Matrix4::zeros();
            e.fixed_view_mut::<2, 2>(0, 0).copy_from(&blk);
            e.fixed_view_mut::<2, 2>(2, 2).copy_from(&blk);
            e.fixed_view_mut::<2, 2>(0, 2).copy_from(&(-blk));
            e.fixed_view_mut::<2, 2>(2, 0).copy_from(&(-blk));
            e.as_slice().to_vec()
        })
        .collect();
    let blocks = SquareBlocks {
        nodes: n,
        pairs: mesh.edges.iter().flatten().copied().collect(),
        blocks: [(0..n).flat_map(|_| [m, 0.0, 0.0, m]).collect(), pair],
    };
    let groups = [blocks.group(0), blocks.group(1)];
    let sys = HessianSystem::new(
        2,
        DofMap::all_free(2 * n),
        &groups,
        FactorChoice::Always(kind),
    )
    .unwrap();
    (sys, blocks)
}
