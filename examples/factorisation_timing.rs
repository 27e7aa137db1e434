//! Assembly, numeric factorisation and solve of the square's Hessian pattern at n_seg = 4, 8
//! and 16 with the skyline factorisation, each timed as the minimum over 400 batches (robust to
//! a shared machine's load, unlike a mean), and a hash of the solution's bits (equal hashes:
//! the same factor to the last bit, e.g. before and after a change to the kernel).
//!
//! ```sh
//! cargo run --release --example factorisation_timing
//! ```
//!
//! The values are SPD and of the step's scale (node blocks of mass 1000/n_seg² kg, springs of
//! 2 N/m along slightly skewed edges), as in `benches/solver.rs`'s `factorisation` group.
use std::hint::black_box;
use std::path::Path;
use std::time::Instant;
use stickslip::energy::Elements;
use stickslip::scene::Mesh;
use stickslip::scene::{CaseFile, Scene};
use stickslip::solver::assembly::{Factorisation, HessianSystem};

fn main() {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("cases/slope_mu0.11.toml"),
    )
    .unwrap();
    let case: CaseFile = toml::from_str(&text).unwrap();
    for n_seg in [4usize, 8, 16] {
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
        let mut sys = HessianSystem::with_factorisation(n, &terms, Factorisation::Skyline).unwrap();
        let m = 1000.0 / (n_seg * n_seg) as f64;
        let node: Vec<f64> = (0..n).flat_map(|_| [m, 0.0, 0.0, m]).collect();
        let k = 2.0e4 * 1e-4;
        let pair: Vec<f64> = mesh
            .edges
            .iter()
            .flat_map(|&[a, b]| {
                let d = (mesh.x0[b] - mesh.x0[a]).normalize() + nalgebra::Vector2::new(0.1, 0.03);
                let blk = d * d.transpose() * k;
                let mut e = nalgebra::Matrix4::zeros();
                e.fixed_view_mut::<2, 2>(0, 0).copy_from(&blk);
                e.fixed_view_mut::<2, 2>(2, 2).copy_from(&blk);
                e.fixed_view_mut::<2, 2>(0, 2).copy_from(&(-blk));
                e.fixed_view_mut::<2, 2>(2, 0).copy_from(&(-blk));
                e.as_slice().to_vec()
            })
            .collect();
        let blocks = [node, pair];
        let rhs: Vec<f64> = (0..sys.dim()).map(|i| (i as f64).sin()).collect();
        let mut x = rhs.clone();
        let batch = if n_seg == 4 {
            200
        } else if n_seg == 8 {
            40
        } else {
            5
        };
        let mut best_f = f64::INFINITY;
        let mut best_a = f64::INFINITY;
        let mut best_s = f64::INFINITY;
        for _ in 0..400 {
            let t = Instant::now();
            for _ in 0..batch {
                sys.assemble(black_box(&blocks));
            }
            best_a = best_a.min(t.elapsed().as_secs_f64() / batch as f64);
            let t = Instant::now();
            for _ in 0..batch {
                sys.factorize().unwrap();
            }
            best_f = best_f.min(t.elapsed().as_secs_f64() / batch as f64);
            let t = Instant::now();
            for _ in 0..batch {
                x.copy_from_slice(&rhs);
                sys.solve_in_place(&mut x);
                black_box(&x);
            }
            best_s = best_s.min(t.elapsed().as_secs_f64() / batch as f64);
        }
        let h: u64 = x
            .iter()
            .fold(0u64, |h, v| h.wrapping_mul(31).wrapping_add(v.to_bits()));
        println!(
            "n_seg {n_seg}: assemble {:.2} us, factorize {:.2} us, solve {:.2} us, x hash {h:x}",
            best_a * 1e6,
            best_f * 1e6,
            best_s * 1e6
        );
    }
}
