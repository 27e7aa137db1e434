//! The square's Hessian pattern with values of a step's scale, shared by `benches/solver.rs`
//! (the `factorisation` group) and `examples/factorisation_timing.rs`.

use std::path::Path;

use nalgebra::Vector2;
use stickslip::energy::Elements;
use stickslip::scene::{CaseFile, Mesh, Scene};
use stickslip::solver::assembly::{Factorisation, HessianSystem};

/// The square's pattern (node blocks and spring pairs) at `n_seg` with the factorisation `kind`,
/// and SPD element blocks of the step's scale to assemble into it: node blocks of mass
/// 1000/n_seg² kg, springs of 2 N/m (2·10⁴ N/m times h²) along each edge's direction plus
/// `skew` (zero for the benches; a small skew gives the blocks full 2×2 couplings).
pub fn square_system(
    n_seg: usize,
    kind: Factorisation,
    skew: Vector2<f64>,
) -> (HessianSystem, [Vec<f64>; 2]) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("cases/slope_mu0.11.toml");
    let case: CaseFile = toml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut scene = Scene::from_case(&case, None).unwrap();
    scene.n_seg = n_seg;
    let mesh = Mesh::square(&scene);
    let n = mesh.x0.len();
    let pairs: Vec<usize> = mesh.edges.iter().flatten().copied().collect();
    let terms = [
        Elements::EachNode(n),
        Elements::Tuples {
            k: 2,
            nodes: &pairs,
        },
    ];
    let sys = HessianSystem::with_factorisation(n, &terms, kind).unwrap();
    let m = 1000.0 / (n_seg * n_seg) as f64;
    let node: Vec<f64> = (0..n).flat_map(|_| [m, 0.0, 0.0, m]).collect();
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
    (sys, [node, pair])
}
