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
//!
//! The refined case files add the inversion barrier and the line search's stick-zone filter;
//! with them the targets hold up to n_seg = 64, and the last tests check that at n_seg = 32
//! (as shipped) and at 64, and that the filter leaves the book's cases and the answer alone.

use std::path::Path;

use stickslip_sim::run::runner::{RunOptions, run};
use stickslip_sim::scene::{Override, Scene};

/// The bound on Newton iterations in any one step.
const MAX_ITERATIONS_PER_STEP: usize = 50;

fn refined(n_seg: usize, mu_file: &str) -> Scene {
    refined_with(n_seg, mu_file, &[])
}

/// The slope case `mu_file` at `n_seg` with the exact spring Hessian and the `extra` overrides.
fn refined_with(n_seg: usize, mu_file: &str, extra: &[&str]) -> Scene {
    let settings: Vec<String> = [
        format!("square.n_seg={n_seg}"),
        "newton.projection=none".into(),
    ]
    .into_iter()
    .chain(extra.iter().map(|s| s.to_string()))
    .collect();
    case_with(mu_file, &settings)
}

/// The case file `file` of `cases/` with the `--set`-style `settings` applied.
fn case_with(file: &str, settings: &[String]) -> Scene {
    let overrides: Vec<Override> = settings
        .iter()
        .map(|s| Override::parse(s).unwrap())
        .collect();
    Scene::load_with_overrides(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../cases")
            .join(file),
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

/// The refined case files (`cases/refined_mu*.toml`: n_seg = 32, the exact Hessian, the
/// stick-zone filter and the inversion barrier, nothing else changed from the book's scene) run
/// 8 s as shipped, within their own bound of 100 iterations, and meet the target of 50
/// in any step (12 and 19 measured at μ = 0.11 and 0.2); no cell turns over, recounted from the
/// positions at the end.
#[test]
fn refined_case_files_meet_the_iteration_target_at_n_seg_32() {
    for file in ["refined_mu0.11.toml", "refined_mu0.20.toml"] {
        let scene = case_with(file, &[]);
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

/// The line search's stick-zone filter (`newton.stick_filter`, `energy::friction::
/// stick_zone_max_step`) only shortens first trials, so it must leave the answer where the
/// stopping rule puts it. On the book's three cases it never binds: with it on, every row of
/// the trajectory is bit-for-bit the same (measured), so the refined case files can turn it on
/// without moving the anchor.
#[test]
fn the_stick_filter_leaves_the_book_cases_unchanged() {
    for file in [
        "slope_mu0.10.toml",
        "slope_mu0.11.toml",
        "slope_mu0.20.toml",
    ] {
        let off = run(
            case_with(file, &[]),
            &RunOptions::default(),
            None,
            |_, _| {},
        )
        .unwrap();
        let on = run(
            case_with(file, &["newton.stick_filter=true".into()]),
            &RunOptions::default(),
            None,
            |_, _| {},
        )
        .unwrap();
        assert_eq!(off.rows.len(), on.rows.len());
        for (a, b) in off.rows.iter().zip(&on.rows) {
            assert_eq!(
                (a.centroid_x, a.centroid_y, a.newton_iterations),
                (b.centroid_x, b.centroid_y, b.newton_iterations),
                "{file}: t = {}",
                a.t
            );
        }
    }
}

/// Where it binds (n_seg = 16 with the refined settings, whose landing backtracked 70 and 22
/// times at μ = 0.11 and 0.2), the first trial lands in the stick zone instead of beyond it: the
/// line search backtracks less than half as often (2 and 2 measured) and no step takes more
/// iterations than without it (8 against 12, and 8 against 8). The answer moves only within the
/// stopping rule: both runs end each step where ‖p‖∞/h < tol, not at the same point, and the
/// distances by 8 s agree to 0.03 % (measured); 1 % is the bound, a quarter of the gap between
/// n_seg = 32 and 64 that docs/refinement.md reports as the physics' own.
#[test]
fn the_stick_filter_shortens_the_landing_without_moving_the_answer() {
    for file in ["slope_mu0.11.toml", "slope_mu0.20.toml"] {
        let settings = ["inversion.kappa=1e5"];
        let off = run(
            refined_with(16, file, &settings),
            &RunOptions::default(),
            None,
            |_, _| {},
        )
        .unwrap();
        let on = run(
            refined_with(16, file, &[settings[0], "newton.stick_filter=true"]),
            &RunOptions::default(),
            None,
            |_, _| {},
        )
        .unwrap();
        // summary.json says which line search ran.
        assert!(on.summary(None).stick_filter && !off.summary(None).stick_filter);
        let (t_off, t_on) = (&off.totals, &on.totals);
        assert!(
            2 * t_on.line_search_halvings <= t_off.line_search_halvings,
            "{file}: {} halvings with the filter, {} without",
            t_on.line_search_halvings,
            t_off.line_search_halvings
        );
        assert!(
            t_on.max_iterations_in_step <= t_off.max_iterations_in_step,
            "{file}: worst step {} with the filter, {} without",
            t_on.max_iterations_in_step,
            t_off.max_iterations_in_step
        );
        let d = |r: &stickslip_sim::run::runner::Runner| r.rows.last().unwrap().downhill_distance;
        let (a, b) = (d(&off), d(&on));
        assert!(
            (a - b).abs() <= 0.01 * a.abs(),
            "{file}: {b} m with the filter, {a} m without"
        );
        assert_eq!(
            std::mem::discriminant(&off.verdict()),
            std::mem::discriminant(&on.verdict()),
            "{file}: {:?} against {:?}",
            on.verdict(),
            off.verdict()
        );
    }
}

/// Issue 8's targets at the finest mesh: the refined case files (the exact Hessian with the mass
/// shift, the stick-zone filter and the inversion barrier) refined to n_seg = 64 (4 225 nodes)
/// run 8 s with no step over 50 Newton iterations (44 and 39 measured, at t ≈ 0.34 s), and need
/// at most 3× the total of the same case at n_seg = 4 (2.3× and 2.6× measured). About 100 s a
/// run in release; one test per μ so that the two run side by side.
fn meets_the_targets_at_n_seg_64(file: &str) {
    let load = |n_seg: usize| case_with(file, &[format!("square.n_seg={n_seg}")]);
    let fine = run(load(64), &RunOptions::default(), None, |_, _| {})
        .unwrap_or_else(|e| panic!("{file} at n_seg = 64: {e}"));
    let coarse = run(load(4), &RunOptions::default(), None, |_, _| {})
        .unwrap_or_else(|e| panic!("{file} at n_seg = 4: {e}"));
    assert_eq!((fine.totals.steps, coarse.totals.steps), (800, 800));
    assert!(
        fine.totals.max_iterations_in_step <= MAX_ITERATIONS_PER_STEP,
        "{file} at n_seg = 64: {} iterations in one step",
        fine.totals.max_iterations_in_step
    );
    assert!(
        fine.totals.newton_iterations <= 3 * coarse.totals.newton_iterations,
        "{file}: {} iterations at n_seg = 64 against {} at n_seg = 4",
        fine.totals.newton_iterations,
        coarse.totals.newton_iterations
    );
    assert_eq!(
        inverted_cell_triangles(&fine.sim.x, 64),
        0,
        "{file} at n_seg = 64: folded at the end"
    );
}

#[test]
fn refined_case_at_mu_0_11_meets_the_targets_at_n_seg_64() {
    meets_the_targets_at_n_seg_64("refined_mu0.11.toml");
}

#[test]
fn refined_case_at_mu_0_20_meets_the_targets_at_n_seg_64() {
    meets_the_targets_at_n_seg_64("refined_mu0.20.toml");
}
