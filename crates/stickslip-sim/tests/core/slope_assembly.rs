//! The gradient and Hessian the book's square on the slope assembles (a `Simulation` of the
//! slope case, over its free degrees of freedom) against finite differences of its E, by the
//! core's harness (`crates/stickslip-core/tests/derivatives/harness.rs`).

use rand::RngExt;
use stickslip_sim::energy::Vec2;
use stickslip_sim::solver::Simulation;

use crate::harness::{assembled_system_matches, rng};

/// The book's μ = 0.11 case set up by hand at one step: the square aligned with the slope,
/// stretched 2 % (so every spring's Hessian is PSD and the projection changes nothing: the
/// assembled Hessian must then be the exact one), its bottom row inside d̂ (barrier and lagged
/// friction active) with slip speeds below and above ε_v.
#[test]
fn assembled_gradient_and_hessian_of_the_slope() {
    use stickslip_sim::scene::Scene;
    let scene = Scene::load(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../cases/slope_mu0.11.toml"),
    )
    .unwrap();
    let (dhat, eps_v, h) = (scene.dhat, scene.eps_v, scene.h);
    let n = scene.normal;
    let t = Vec2::new(n.y, -n.x);
    let o = scene.point;
    let (system, mesh) = scene.system();
    let mut sim = Simulation::new(system).unwrap();
    let mut r = rng();
    // Rest positions relative to the square's centre, rotated so the rest x axis runs along
    // the slope's tangent and y along its normal, stretched 2 %.
    let c0 = mesh.x0.iter().sum::<Vec2>() / mesh.len() as f64;
    let local: Vec<Vec2> = mesh
        .x0
        .iter()
        .map(|x| {
            let q = (x - c0) * 1.02;
            t * q.x + n * q.y
        })
        .collect();
    let lowest = local
        .iter()
        .map(|q| q.dot(&n))
        .fold(f64::INFINITY, f64::min);
    // Bottom row at 0.4 d̂ from the slope; every node jittered by ±0.1 d̂ = 1 mm, under the
    // 2 % stretch of the shortest edge (5 mm), so every spring stays stretched.
    let x_n: Vec<Vec2> = local
        .iter()
        .map(|q| {
            o + n * (0.4 * dhat - lowest)
                + q
                + n * r.random_range(-0.1..0.1) * dhat
                + t * r.random_range(-0.1..0.1) * dhat
        })
        .collect();
    let bottom: Vec<usize> = (0..x_n.len())
        .filter(|&i| (x_n[i] - o).dot(&n) < dhat)
        .collect();
    assert_eq!(bottom.len(), 5, "the bottom row, and only it, inside d̂");
    sim.x = x_n.clone();
    sim.v = (0..x_n.len())
        .map(|_| Vec2::new(r.random_range(-0.5..0.5), r.random_range(-0.5..0.5)))
        .collect();
    sim.begin_step();
    // The evaluation point x = xⁿ + h w: the bottom row slips along the slope at 0.2, 0.5,
    // 2, 5 and 20 ε_v (away from the kink at ε_v) and moves ≤ 0.5 mm/s along the normal.
    let slips = [0.2, 0.5, 2.0, 5.0, 20.0];
    let mut x = x_n.clone();
    for (i, xi) in x.iter_mut().enumerate() {
        let w = match bottom.iter().position(|&b| b == i) {
            Some(k) => {
                t * slips[k] * eps_v * if k % 2 == 0 { 1.0 } else { -1.0 }
                    + n * r.random_range(-5e-4..5e-4)
            }
            None => Vec2::new(r.random_range(-0.1..0.1), r.random_range(-0.1..0.1)),
        };
        *xi += w * h;
    }
    // δ = 1e-8 m: the slip changes by δ/h = 1e-6 m/s ≤ 0.005 ε_v, far from the kink; the
    // rounding error of E (|E| ~ 1 kg·m², ε ~ 1e-16) over 2δ is ~1e-8, under 1e-6 of the
    // gradient's scale; the truncation error (δ² times the third derivative, over 6) is
    // smaller still.
    assert_eq!(assembled_system_matches(&mut sim, &x, 1e-8), 50);
}
