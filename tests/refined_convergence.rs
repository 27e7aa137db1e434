//! Convergence on refined meshes (issue 8; docs/refinement.md): with the exact spring Hessian
//! (`newton.projection = "none"`, clamped only in an iteration whose Cholesky fails) the slope
//! cases refined to n_seg = 8 and 16 run 8 s from the drop within the case's own bound of 100
//! iterations a step. With the book's clamped projection the n_seg = 16 landing at μ = 0.11
//! needs 141 iterations in one step (measured; the book's own code needs 175).
//!
//! The target of at most 50 iterations in any step holds at n_seg = 8 (both μ) and at
//! n_seg = 16 with μ = 0.11 (31 measured); at n_seg = 16 with μ = 0.2 the worst step takes 97
//! (the friction tail, docs/refinement.md), so there the test asserts completion only.
//!
//! Fully implicit friction lagging (`friction.lagging = "implicit"`, SPEC.md §6) does not move
//! that line (docs/refinement.md, "Implicit lagging, measured"): with it the worst steps are 17
//! and 20 at n_seg = 8, 46 at n_seg = 16 with μ = 0.11, and 120 at n_seg = 16 with μ = 0.2. The
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

#[test]
fn refined_squares_run_8_s_within_the_iteration_target() {
    for n_seg in [8, 16] {
        for file in ["slope_mu0.11.toml", "slope_mu0.20.toml"] {
            let scene = refined(n_seg, file);
            assert_eq!(scene.duration, 8.0);
            let r = run(scene, &RunOptions::default(), None, |_, _| {})
                .unwrap_or_else(|e| panic!("n_seg {n_seg}, {file}: {e}"));
            assert_eq!(r.totals.steps, 800);
            if n_seg == 16 && file == "slope_mu0.20.toml" {
                continue; // target not met there (97 measured): completion only, see above
            }
            assert!(
                r.totals.max_iterations_in_step <= MAX_ITERATIONS_PER_STEP,
                "n_seg {n_seg}, {file}: {} iterations in one step",
                r.totals.max_iterations_in_step
            );
        }
    }
}

#[test]
fn implicit_lagging_meets_the_iteration_target_where_measured_to() {
    // n_seg = 16 at μ = 0.2 is left out: 120 iterations in its worst step (not met).
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
