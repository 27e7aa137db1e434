//! 3D speed (`cargo bench --bench solid`; issue 21's benchmarks): tetrahedral boxes of
//! cases/box3d_incline.toml refined by `--set`-style overrides, on the incline.
//!
//! Before criterion runs, a table per scene and factorisation (faer's sparse Cholesky with an
//! AMD ordering, supernodal where faer's symbolic analysis finds it pays, and the Cholesky inside
//! the band, `solver/assembly.rs`), each measured in the same run so that the ratios are
//! meaningful on a noisy machine: wall per step, Newton iterations per step, the iteration's
//! time over its factor + solve (1 would be a solver spending everything in the Cholesky), and
//! the shares of the wall of the assembly (gradient, Hessians, matrix), the line search, and
//! the contact stage's broad phase and step filter (the CCD; the step filter and part of the
//! broad phase run inside the line search). Rows:
//! * `slide N×N×N`: the incline case's box (0.2 × 0.2 × 0.1 m, μ = 0.2 < tan 20°) of N³ cells
//!   sliding from rest (`steps` from t = 0: the landing and the start of the slide);
//! * `rest 20×20×20`: the same box with μ = 0.5 > tan 20°, held (creeping at v*), 48 000
//!   tetrahedra; faer's path only (the band's n·w² is 5·10¹⁰ multiply-adds a factorisation).
//!
//! The criterion benches time one step of the 10 × 10 × 10 box sliding, from its state at the
//! end of its table run, with each factorisation (`solid/slide10/*`), and the PSD projection of
//! the neo-Hookean's 9 × 9 ∂²Ψ/∂F² over 1 000 deformation gradients near rest (F = I + H,
//! |Hᵢⱼ| ≤ 0.02, as in a stiff body), numerically (eigen-decomposition of the 9 × 9) and in
//! closed form (`energy/neo_hookean/eigensystem.rs`): `projection/{numerical,closed_form}`.
//!
//! `held/{smoothed,exact}` (issue 38's cost): one step of the case's own box held on the
//! incline (μ_s = μ_k = 0.5 > tan 20°) from its state at t = 2 s, once it has settled, with
//! smoothed friction (creeping at v* = 47.8 µm/s) and with exact stick (at rest). Before it the
//! Newton iterations of each model over [0, 2] s are printed.

use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use nalgebra::Vector3;
use stickslip::scene::multibody::solid::SolidScene;
use stickslip::scene::overrides::Override;
use stickslip::solver::Simulation;
use stickslip::solver::assembly::{FactorChoice, Factorisation};

/// The incline case's box with `cells` cells a side and `settings` (`KEY=VALUE`).
fn scene(cells: usize, settings: &[&str]) -> SolidScene {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("cases/box3d_incline.toml");
    let n = cells.to_string();
    let mut all = vec![
        format!("bodies.box.nx={n}"),
        format!("bodies.box.ny={n}"),
        format!("bodies.box.nz={n}"),
    ];
    all.extend(settings.iter().map(|s| s.to_string()));
    let overrides: Vec<Override> = all.iter().map(|s| Override::parse(s).unwrap()).collect();
    SolidScene::load(&path, &overrides).unwrap()
}

fn simulation(scene: &SolidScene, kind: Factorisation) -> Simulation<3> {
    Simulation::with_factorisation(scene.system().0, FactorChoice::Always(kind)).unwrap()
}

fn name(kind: Factorisation) -> &'static str {
    match kind {
        Factorisation::Sparse => "faer sparse",
        Factorisation::Skyline => "skyline",
    }
}

type State = (Vec<Vector3<f64>>, Vec<Vector3<f64>>, usize);

/// Runs `steps` steps and prints the row; the state at the end.
fn row(label: &str, scene: &SolidScene, kind: Factorisation, steps: usize) -> State {
    let mut sim = simulation(scene, kind);
    sim.time_linear_solve = true;
    let (mut iterations, mut factor_solve) = (0usize, 0.0);
    let t = Instant::now();
    for _ in 0..steps {
        let s = sim.step().unwrap();
        iterations += s.iterations;
        factor_solve += s.factor_solve_seconds;
    }
    let wall = t.elapsed().as_secs_f64();
    let p = sim.phase_seconds;
    let tets: usize = scene.bodies.iter().map(|b| b.mesh.tets.len()).sum();
    println!(
        "{label:<14} {:>6} {:>6} {:>6} {:<12} {steps:>5} {:>10.2} {:>9.2} {:>12.3} {:>10.1} {:>8.1} {:>8.1} {:>8.1} {:>5}",
        sim.x.len(),
        tets,
        3 * sim.x.len(),
        name(kind),
        1e3 * wall / steps as f64,
        iterations as f64 / steps as f64,
        wall / factor_solve,
        100.0 * p.assembly / wall,
        100.0 * p.line_search / wall,
        100.0 * p.broad_phase / wall,
        100.0 * p.step_filter / wall,
        sim.symbolic_factorisations(),
    );
    (sim.x.clone(), sim.v.clone(), sim.step)
}

fn table() -> State {
    println!(
        "\n3D boxes on the incline (cases/box3d_incline.toml refined; h = 1 ms; from t = 0)\n{:<14} {:>6} {:>6} {:>6} {:<12} {:>5} {:>10} {:>9} {:>12} {:>10} {:>8} {:>8} {:>8} {:>5}",
        "scene",
        "nodes",
        "tets",
        "DOF",
        "solver",
        "steps",
        "ms/step",
        "its/step",
        "iter/(f+s)",
        "assembly %",
        "search %",
        "broad %",
        "CCD %",
        "symb"
    );
    let mut slide10 = None;
    for cells in [4, 6, 10] {
        let sc = scene(cells, &[]);
        for kind in [Factorisation::Sparse, Factorisation::Skyline] {
            let state = row(&format!("slide {cells}^3"), &sc, kind, 50);
            if cells == 10 && kind == Factorisation::Sparse {
                slide10 = Some(state);
            }
        }
    }
    let held = scene(20, &["friction.mu_static=0.5", "friction.mu_kinetic=0.5"]);
    row("rest 20^3", &held, Factorisation::Sparse, 10);
    println!();
    slide10.unwrap()
}

/// The time of `iters` steps of `sim`, each from the state `(x, v, step)`.
fn timed_steps(
    sim: &mut Simulation<3>,
    (x, v, step): (&[Vector3<f64>], &[Vector3<f64>], usize),
    iters: u64,
) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..iters {
        sim.x.clone_from_slice(x);
        sim.v.clone_from_slice(v);
        sim.step = step;
        let t = Instant::now();
        black_box(sim.step().unwrap());
        total += t.elapsed();
    }
    total
}

fn slide_step(c: &mut Criterion) {
    let (x, v, step) = table();
    let sc = scene(10, &[]);
    let mut g = c.benchmark_group("solid");
    g.sample_size(10);
    for kind in [Factorisation::Sparse, Factorisation::Skyline] {
        let mut sim = simulation(&sc, kind);
        g.bench_function(format!("slide10/{}", name(kind).replace(' ', "_")), |b| {
            b.iter_custom(|iters| timed_steps(&mut sim, (&x, &v, step), iters))
        });
    }
    g.finish();
}

fn projection(c: &mut Criterion) {
    use stickslip::energy::neo_hookean::eigensystem as neo_hookean_eigensystem;
    use stickslip::energy::neo_hookean::stress_derivative_matrix;
    use stickslip::energy::psd::ProjectFixed;
    let (mu, lambda) = (3.8e6, 9.6e6);
    let mut seed = 1u64;
    let mut next = || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((seed >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    };
    let cases: Vec<(nalgebra::Matrix3<f64>, [f64; 81])> = (0..1000)
        .map(|_| {
            let f =
                nalgebra::Matrix3::identity() + nalgebra::Matrix3::from_fn(|_, _| 0.02 * next());
            let mut k = [0.0; 81];
            k.copy_from_slice(&stress_derivative_matrix::<3>(&f, mu, lambda, false));
            (f, k)
        })
        .collect();
    let mut g = c.benchmark_group("projection");
    g.bench_function("numerical", |b| {
        b.iter(|| {
            for (_, k) in &cases {
                let mut m = nalgebra::SMatrix::<f64, 9, 9>::from_column_slice(k);
                black_box(m.project_psd());
                black_box(&m);
            }
        })
    });
    g.bench_function("closed_form", |b| {
        b.iter(|| {
            for (f, k) in &cases {
                let mut k = *k;
                black_box(neo_hookean_eigensystem::project(&mut k, f, mu, lambda));
                black_box(&k);
            }
        })
    });
    g.finish();
}

fn held_step(c: &mut Criterion) {
    let mut g = c.benchmark_group("held");
    g.sample_size(20);
    for stick in ["smoothed", "exact"] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("cases/box3d_incline.toml");
        let settings = [
            "friction.mu_static=0.5".to_string(),
            "friction.mu_kinetic=0.5".to_string(),
            format!("friction.stick=\"{stick}\""),
        ];
        let overrides: Vec<Override> = settings
            .iter()
            .map(|s| Override::parse(s).unwrap())
            .collect();
        let sc = SolidScene::load(&path, &overrides).unwrap();
        let mut sim = Simulation::new(sc.system().0).unwrap();
        let mut iterations = 0;
        while sim.time() < 2.0 - 1e-9 {
            iterations += sim.step().unwrap().iterations;
        }
        println!("held box, {stick}: {iterations} Newton iterations over [0, 2] s");
        let (x, v, step) = (sim.x.clone(), sim.v.clone(), sim.step);
        g.bench_function(stick, |b| {
            b.iter_custom(|iters| timed_steps(&mut sim, (&x, &v, step), iters))
        });
    }
    g.finish();
}

criterion_group!(benches, slide_step, projection, held_step);
criterion_main!(benches);
