//! A step that cannot be completed is an error with diagnostics, never a silent continue
//! (SPEC.md §2; issue: bounded Newton iterations and line-search halvings).

use std::path::Path;

use stickslip_sim::run::runner::{RunError, RunOptions, run};
use stickslip_sim::scene::{CaseFile, Scene};
use stickslip_sim::solver::SolveError;

fn case(n_seg: usize) -> CaseFile {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../cases/slope_mu0.11.toml"),
    )
    .unwrap();
    let mut c: CaseFile = toml::from_str(&text).unwrap();
    c.square.n_seg = n_seg;
    c
}

/// The landing of the n_seg = 16 square needs line-search halvings (SPEC.md §2: "many
/// line-search halvings" on finer meshes); with none allowed the step must fail and say where.
#[test]
fn a_line_search_past_its_halving_bound_is_an_error_with_diagnostics() {
    let mut c = case(16);
    c.newton.max_iterations = 10_000;
    let mut scene = Scene::from_case(&c, None).unwrap();
    // A case file must allow at least one halving (`newton.max_halvings >= 1`); the bound of
    // zero is set past that validation to reach the solver's own failure path.
    scene.max_halvings = 0;
    let err = run(scene, &RunOptions::default(), None, |_, _| {})
        .err()
        .expect("the landing needs a halving");
    match &err {
        RunError::Solve {
            source:
                SolveError::LineSearch {
                    step,
                    halvings,
                    alpha,
                    residual,
                    ..
                },
            ..
        } => {
            assert_eq!(*halvings, 0);
            assert!(
                *step > 25,
                "not before the square reaches the slope: step {step}"
            );
            assert!(*alpha > 0.0 && residual.is_finite());
        }
        other => panic!("expected a line-search error, got {other}"),
    }
    let text = err.to_string();
    assert!(
        text.contains("line search failed") && text.contains("step") && text.contains("iteration"),
        "{text}"
    );
}

/// A Newton loop over its iteration bound is an error naming step, iterations and residual.
#[test]
fn newton_past_its_iteration_bound_is_an_error_with_diagnostics() {
    let mut c = case(4);
    c.newton.max_iterations = 2;
    let scene = Scene::from_case(&c, None).unwrap();
    let err = run(scene, &RunOptions::default(), None, |_, _| {})
        .err()
        .expect("the landing needs > 2 iterations");
    match &err {
        RunError::Solve {
            source:
                SolveError::NotConverged {
                    iterations,
                    residual,
                    tol,
                    ..
                },
            ..
        } => {
            assert_eq!(*iterations, 2);
            assert!(residual >= tol);
        }
        other => panic!("expected non-convergence, got {other}"),
    }
}

/// A linear-solve failure says when (step and time), at which iteration, and how far from
/// converged (‖∇E‖∞ and the last residual, "none yet" at the first iteration) (issue 7,
/// finding 9: it used to name only the step and the iteration).
#[test]
fn a_linear_solve_failure_names_the_time_and_the_residual() {
    use stickslip_sim::solver::assembly::LinearSolveError;
    let err = SolveError::Linear {
        step: 41,
        time: 0.41,
        iteration: 3,
        gradient: 2.5e3,
        residual: Some(0.125),
        source: LinearSolveError::NotPositiveDefinite { index: 7 },
    };
    let text = err.to_string();
    for needle in [
        "step 41",
        "t = 0.4100 s",
        "iteration 3",
        "not positive definite",
        "‖∇E‖∞ = 2.500e3",
        "‖p‖∞/h = 1.250e-1 m/s",
    ] {
        assert!(text.contains(needle), "`{needle}` in: {text}");
    }
    let first = SolveError::Linear {
        step: 0,
        time: 0.0,
        iteration: 0,
        gradient: 1.0,
        residual: None,
        source: LinearSolveError::NotPositiveDefinite { index: 0 },
    };
    assert!(first.to_string().contains("none yet"), "{first}");
}
