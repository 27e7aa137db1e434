//! Assembly, numeric factorisation and solve of the square's Hessian pattern at n_seg = 4, 8
//! and 16 with the skyline factorisation, each timed as the minimum over 400 batches (robust to
//! a shared machine's load, unlike a mean; the factorisation as the minimum of assembly +
//! factorisation less the assembly's), and a hash of the solution's bits (equal hashes: the
//! same factor to the last bit, e.g. before and after a change to the kernel).
//!
//! ```sh
//! cargo run --release --example factorisation_timing
//! ```
//!
//! The values are SPD and of the step's scale (`benches/common/mod.rs`, shared with
//! `benches/solver.rs`'s `factorisation` group), here along slightly skewed edges.
use std::hint::black_box;
use std::time::Instant;
use stickslip::solver::assembly::Factorisation;

#[path = "../benches/common/mod.rs"]
mod common;

fn main() {
    for n_seg in [4usize, 8, 16] {
        let (mut sys, blocks) = common::square_system(
            n_seg,
            Factorisation::Skyline,
            nalgebra::Vector2::new(0.1, 0.03),
        );
        let rhs: Vec<f64> = (0..sys.size()).map(|i| (i as f64).sin()).collect();
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
                black_box(&blocks).assemble_into(&mut sys);
            }
            best_a = best_a.min(t.elapsed().as_secs_f64() / batch as f64);
            // The skyline factors in the band it is assembled into: each factorisation is
            // timed with its assembly, and the assembly's minimum taken off.
            let t = Instant::now();
            for _ in 0..batch {
                black_box(&blocks).assemble_into(&mut sys);
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
        let best_f = best_f - best_a;
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
