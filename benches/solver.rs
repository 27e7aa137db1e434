//! Solver speed (`cargo bench --bench solver`).
//!
//! * `reference/step`: one step of the book's scene (SPEC.md §1, μ = 0.11), averaged over a
//!   whole 8 s run (800 steps: free fall, landing, sliding, rest).
//! * `scaling/step/n_seg`: one step of the same square refined to n_seg = 16, 64, 256, resting
//!   on the slope (bottom edge parallel to it, at the barrier's equilibrium distance).
//! * `factorisation/{sparse,skyline}/n_seg`: one assembly, numeric factorisation and solve of
//!   the square's Hessian pattern at n_seg = 4, 8, 16, 32 with each of the two factorisations
//!   (solver/assembly.rs): the measurement behind `SKYLINE_MAX_WORK`. (The skyline factors in
//!   the band it is assembled into, so each factorisation needs its assembly.)
//! * Before criterion runs, a table of per-iteration figures for the scaling meshes: Newton
//!   iterations per step, time per iteration, and the share of an iteration spent in the numeric
//!   Cholesky factorisation + solve (measured in the same run, so the ratio is meaningful on a
//!   noisy machine).
//! * `pile/step`: one step of cases/pile_in_trough.toml (40 squares in a V trough, body–body
//!   contact, issue 20) from its state at t = 2.5 s; before it, a table of the whole 5 s run:
//!   wall, Newton iterations per step, symbolic and numeric factorisations, and the shares of
//!   the run in the contact broad phase, the step filter (the CCD) and factor + solve.

use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

mod common;

use criterion::{Criterion, criterion_group, criterion_main};
use nalgebra::{Rotation2, Vector2};
use stickslip::run::runner::{RunOptions, run};
use stickslip::scene::{CaseFile, Mesh, Scene};
use stickslip::solver::Simulation;
use stickslip::solver::assembly::Factorisation;

fn case_file(name: &str) -> CaseFile {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("cases")
            .join(name),
    )
    .unwrap();
    toml::from_str(&text).unwrap()
}

/// The reference square refined to `n_seg` (the contact area follows as side/n_seg, SPEC.md §6),
/// and a simulation of it.
fn refined(n_seg: usize) -> (Scene, Mesh, Simulation<2>) {
    let scene = refined_scene(n_seg);
    let (system, mesh) = scene.system();
    (scene, mesh, Simulation::new(system).unwrap())
}

/// The reference square refined to `n_seg`.
fn refined_scene(n_seg: usize) -> Scene {
    let mut case = case_file("slope_mu0.11.toml");
    case.square.n_seg = n_seg;
    case.newton.max_iterations = 10_000;
    Scene::from_case(&case, None).unwrap()
}

/// Node positions of the square rotated onto the slope, its bottom row at the distance where
/// the barrier carries the square's weight (linearised: A κ (1 − s) = W cos θ / (n_seg + 1)).
fn resting_positions(sc: &Scene, mesh: &Mesh) -> Vec<Vector2<f64>> {
    let n = sc.normal;
    let angle = (-n.x).atan2(n.y);
    let rot = Rotation2::new(angle);
    let rotated: Vec<Vector2<f64>> = mesh.x0.iter().map(|x| rot * (x - sc.centre)).collect();
    let weight =
        mesh.mass.iter().sum::<f64>() * sc.gravity.norm() * n.dot(&-sc.gravity.normalize());
    let s = 1.0 - weight / ((sc.n_seg + 1) as f64 * sc.contact_area * sc.kappa);
    let lowest = rotated
        .iter()
        .map(|x| n.dot(x))
        .fold(f64::INFINITY, f64::min);
    let shift = n * (s * sc.dhat - lowest) + sc.point;
    rotated.iter().map(|x| x + shift).collect()
}

fn reference(c: &mut Criterion) {
    let scene = Scene::from_case(&case_file("slope_mu0.11.toml"), None).unwrap();
    let steps = scene.steps_for(scene.duration) as u32;
    let mut g = c.benchmark_group("reference");
    g.sample_size(30);
    g.bench_function("step", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters.div_ceil(steps as u64) {
                let t = Instant::now();
                black_box(run(scene.clone(), &RunOptions::default(), None, |_, _| {}).unwrap());
                total += t.elapsed();
            }
            // Per step: the runs above took iters.div_ceil(steps) × steps steps.
            total.mul_f64(iters as f64 / (iters.div_ceil(steps as u64) * steps as u64) as f64)
        })
    });
    g.finish();
}

fn scaling_table() {
    println!("\nscaling (resting square, mu = 0.11, tol = 1e-2; 5 steps each):");
    println!(
        "n_seg   nodes    DOF  iters/step  ms/iteration  factor+solve ms  iteration / (factor+solve)"
    );
    for n_seg in [16, 64, 256] {
        let (scene, mesh, mut sim) = refined(n_seg);
        sim.x = resting_positions(&scene, &mesh);
        sim.time_linear_solve = true;
        let (mut iters, mut wall, mut fs) = (0usize, 0.0, 0.0);
        let steps = 5;
        for _ in 0..steps {
            let t = Instant::now();
            let s = sim.step().unwrap();
            wall += t.elapsed().as_secs_f64();
            iters += s.iterations + 1; // + the final direction solved to test convergence
            fs += s.factor_solve_seconds;
        }
        println!(
            "{n_seg:>5} {:>7} {:>6} {:>11.1} {:>13.2} {:>16.2} {:>27.2}   symbolic factorisations: {}",
            mesh.len(),
            2 * mesh.len(),
            (iters - steps) as f64 / steps as f64,
            1e3 * wall / iters as f64,
            1e3 * fs / iters as f64,
            wall / fs,
            sim.symbolic_factorisations()
        );
    }
    println!();
}

fn scaling(c: &mut Criterion) {
    scaling_table();
    let mut g = c.benchmark_group("scaling");
    g.sample_size(10);
    for n_seg in [16, 64, 256] {
        let (scene, mesh, mut sim) = refined(n_seg);
        let rest = resting_positions(&scene, &mesh);
        let zero = vec![Vector2::zeros(); rest.len()];
        g.bench_function(format!("step/{n_seg}"), |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    sim.x.clone_from(&rest);
                    sim.v.clone_from(&zero);
                    let t = Instant::now();
                    black_box(sim.step().unwrap());
                    total += t.elapsed();
                }
                total
            })
        });
    }
    g.finish();
}

fn factorisation(c: &mut Criterion) {
    let mut g = c.benchmark_group("factorisation");
    g.sample_size(20);
    for n_seg in [4, 8, 16, 32] {
        for (name, kind) in [
            ("sparse", Factorisation::Sparse),
            ("skyline", Factorisation::Skyline),
        ] {
            let (mut sys, blocks) = common::square_system(n_seg, kind, Vector2::zeros());
            let rhs: Vec<f64> = (0..sys.size()).map(|i| (i as f64).sin()).collect();
            let mut x = rhs.clone();
            g.bench_function(format!("{name}/{n_seg}"), |b| {
                b.iter(|| {
                    // Assembled every time: the skyline factors in place, over the matrix.
                    black_box(&blocks).assemble_into(&mut sys);
                    sys.factorize().unwrap();
                    x.copy_from_slice(&rhs);
                    sys.solve_in_place(&mut x);
                    black_box(&x);
                })
            });
        }
    }
    g.finish();
}

/// The pile of issue 20 and a simulation of it.
fn pile() -> (stickslip::scene::multibody::MultibodyScene, Simulation<2>) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("cases/pile_in_trough.toml");
    let scene = stickslip::scene::multibody::MultibodyScene::load(&path, &[]).unwrap();
    let sim = Simulation::new(scene.system().0).unwrap();
    (scene, sim)
}

fn pile_table() -> (Vec<Vector2<f64>>, Vec<Vector2<f64>>, usize) {
    let (scene, mut sim) = pile();
    sim.time_linear_solve = true;
    let steps = scene.steps_for(scene.settings.duration);
    let (mut iterations, mut most, mut factor_solve) = (0usize, 0usize, 0.0);
    let mut middle = None;
    let t = Instant::now();
    for k in 0..steps {
        if k == steps / 2 {
            middle = Some((sim.x.clone(), sim.v.clone(), sim.step));
        }
        let s = sim.step().unwrap();
        iterations += s.iterations;
        most = most.max(s.iterations);
        factor_solve += s.factor_solve_seconds;
    }
    let wall = t.elapsed().as_secs_f64();
    let p = sim.phase_seconds;
    println!(
        "\npile (cases/pile_in_trough.toml, {} nodes, {steps} steps): wall {wall:.2} s; Newton iterations {iterations} ({:.2} a step, at most {most}); symbolic factorisations {}, numeric {}; shares of the run: broad phase {:.1} %, step filter {:.1} %, factor + solve {:.1} %\n",
        sim.x.len(),
        iterations as f64 / steps as f64,
        sim.symbolic_factorisations(),
        sim.numeric_factorisations(),
        100.0 * p.broad_phase / wall,
        100.0 * p.step_filter / wall,
        100.0 * factor_solve / wall,
    );
    middle.unwrap()
}

fn pile_step(c: &mut Criterion) {
    let (x, v, step) = pile_table();
    let (_, mut sim) = pile();
    let mut g = c.benchmark_group("pile");
    g.sample_size(10);
    g.bench_function("step", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                sim.x.clone_from(&x);
                sim.v.clone_from(&v);
                sim.step = step;
                let t = Instant::now();
                black_box(sim.step().unwrap());
                total += t.elapsed();
            }
            total
        })
    });
    g.finish();
}

criterion_group!(benches, reference, scaling, factorisation, pile_step);
criterion_main!(benches);
