//! Convergence on refined meshes (issue 8; docs/refinement.md): with the exact spring Hessian
//! (`newton.projection = "none"`; where it is indefinite, H + τM with the smallest τ of
//! `MASS_SHIFTS` that factors, and the clamped projection only past the last) the slope cases
//! refined to n_seg = 8 and 16 run 8 s from the drop within the target of 50 iterations
//! in any step: 12 and 10 at n_seg = 8, 30 and 39 at n_seg = 16 (μ = 0.11 and 0.2, measured).
//! With the book's clamped projection the n_seg = 16 landing at μ = 0.11 needs 141 iterations in
//! one step (the book's own code needs 175), and with the clamp as the only fallback the n_seg =
//! 16, μ = 0.2 landing needed 97.
//!
//! Those landings fold the mesh: cells of the bottom rows turn inside out, which costs a
//! mass-spring grid no energy (a mirrored cell keeps its edge and diagonal lengths). The run
//! reports it (`SolverTotals::max_inverted_triangles`); the first test recounts the inverted
//! triangles at the end of the run from the positions, independently of that code.
//!
//! Fully implicit friction lagging (`friction.lagging = "implicit"`, SPEC.md §6) does not move
//! the line (docs/refinement.md, "Implicit lagging, measured"): with it the worst steps are 17
//! and 20 at n_seg = 8, 32 at n_seg = 16 with μ = 0.11, and 51 at n_seg = 16 with μ = 0.2. The
//! second test pins the targets it meets, and that its lagging converges on every step there.

use std::path::Path;

use stickslip::run::runner::{RunOptions, run};
use stickslip::scene::{Override, Scene};

/// The bound on Newton iterations in any one step.
const MAX_ITERATIONS_PER_STEP: usize = 50;

fn refined(n_seg: usize, mu_file: &str) -> Scene {
    refined_with(n_seg, mu_file, &[])
}

/// The slope case `mu_file` at `n_seg` with the exact spring Hessian and the `extra` overrides.
fn refined_with(n_seg: usize, mu_file: &str, extra: &[&str]) -> Scene {
    let overrides: Vec<Override> = [
        format!("square.n_seg={n_seg}"),
        "newton.projection=none".into(),
    ]
    .into_iter()
    .chain(extra.iter().map(|s| s.to_string()))
    .map(|s| Override::parse(&s).unwrap())
    .collect();
    Scene::load_with_overrides(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("cases")
            .join(mu_file),
        &overrides,
    )
    .unwrap()
}

/// Triangles of the grid's cells (two a cell, split along the diagonal from (i, j) to (i+1, j+1)) whose signed area has turned
/// non-positive, from positions alone. Node i(n+1)+j starts at (i, j) steps from the corner,
/// so every such triangle listed counter-clockwise has positive area at rest.
fn inverted_cell_triangles(x: &[nalgebra::Vector2<f64>], n_seg: usize) -> usize {
    let id = |i: usize, j: usize| i * (n_seg + 1) + j;
    let ccw_area = |a: usize, b: usize, c: usize| {
        let (u, v) = (x[b] - x[a], x[c] - x[a]);
        u.x * v.y - u.y * v.x
    };
    let mut inverted = 0;
    for i in 0..n_seg {
        for j in 0..n_seg {
            let (p, q, r, s) = (id(i, j), id(i + 1, j), id(i + 1, j + 1), id(i, j + 1));
            // Only the pair the mesh's triangle list uses (diagonal p–r) is counted, so the
            // count is comparable with the run's.
            inverted +=
                usize::from(ccw_area(p, q, r) <= 0.0) + usize::from(ccw_area(p, r, s) <= 0.0);
        }
    }
    inverted
}

#[test]
fn refined_squares_run_8_s_within_the_iteration_target() {
    for n_seg in [8, 16] {
        for file in ["slope_mu0.11.toml", "slope_mu0.20.toml"] {
            let scene = refined(n_seg, file);
            assert_eq!(scene.duration, 8.0);
            let r = run(scene, &RunOptions::default(), None, |_, _| {})
                .unwrap_or_else(|e| panic!("n_seg {n_seg}, {file}: {e}"));
            assert_eq!(r.totals.steps, 800);
            assert!(
                r.totals.max_iterations_in_step <= MAX_ITERATIONS_PER_STEP,
                "n_seg {n_seg}, {file}: {} iterations in one step",
                r.totals.max_iterations_in_step
            );
            let folded_at_end = inverted_cell_triangles(&r.sim.x, n_seg);
            assert!(
                folded_at_end > 0,
                "n_seg {n_seg}, {file}: no folded cell at the end (the landing folds it, measured)"
            );
            assert!(
                r.totals.max_inverted_triangles >= folded_at_end,
                "n_seg {n_seg}, {file}: {} inverted triangles reported at most, {folded_at_end} counted at the end",
                r.totals.max_inverted_triangles
            );
        }
    }
}

#[test]
fn implicit_lagging_meets_the_iteration_target_where_measured_to() {
    // n_seg = 16 at μ = 0.2 is left out: 51 iterations in its worst step (not met).
    for (n_seg, file) in [
        (8, "slope_mu0.11.toml"),
        (8, "slope_mu0.20.toml"),
        (16, "slope_mu0.11.toml"),
    ] {
        let scene = refined_with(n_seg, file, &["friction.lagging=implicit"]);
        let r = run(scene, &RunOptions::default(), None, |_, _| {})
            .unwrap_or_else(|e| panic!("n_seg {n_seg}, {file}: {e}"));
        assert_eq!(r.totals.steps, 800);
        assert!(
            r.totals.lagging_passes > 0,
            "n_seg {n_seg}, {file}: implicit lagging never re-solved a step"
        );
        assert_eq!(
            r.totals.lagging_unconverged_steps, 0,
            "n_seg {n_seg}, {file}: λ still changing at the lagging bound"
        );
        // The count includes the re-solves after each re-lagging (the step's whole cost).
        assert!(
            r.totals.max_iterations_in_step <= MAX_ITERATIONS_PER_STEP,
            "n_seg {n_seg}, {file}: {} iterations in one step",
            r.totals.max_iterations_in_step
        );
    }
}

/// The refined case files (`cases/refined_mu*.toml`: n_seg = 32, the exact Hessian and the
/// inversion barrier, nothing else changed from the book's scene) run 8 s as shipped, within
/// their own bound of 100 iterations, and meet the target of 50 in any step (14 and 28
/// measured at μ = 0.11 and 0.2); no cell turns over, recounted from the positions at the end.
#[test]
fn refined_case_files_meet_the_iteration_target_at_n_seg_32() {
    for file in ["refined_mu0.11.toml", "refined_mu0.20.toml"] {
        let scene = Scene::load(
            &Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("cases")
                .join(file),
        )
        .unwrap();
        assert_eq!((scene.n_seg, scene.duration), (32, 8.0));
        let r = run(scene, &RunOptions::default(), None, |_, _| {})
            .unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(r.totals.steps, 800);
        assert!(
            r.totals.max_iterations_in_step <= MAX_ITERATIONS_PER_STEP,
            "{file}: {} iterations in one step",
            r.totals.max_iterations_in_step
        );
        assert_eq!(
            inverted_cell_triangles(&r.sim.x, 32),
            0,
            "{file}: folded at the end"
        );
        assert_eq!(
            r.totals.max_inverted_triangles, 0,
            "{file}: folded during the run"
        );
    }
}
