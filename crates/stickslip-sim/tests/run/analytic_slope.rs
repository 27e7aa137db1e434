//! The slope against analytic physics (SPEC.md §6, issue 8): a body on a plane of angle θ
//! (tan θ = 0.1) sliding with kinetic μ < tan θ accelerates at g(sin θ − μ cos θ); under a static
//! load smoothed friction creeps at v* = ε_v(1 − √(1 − tan θ/μ)), proportional to ε_v; with
//! static and kinetic coefficients a body at rest stays (creeps at the μ_s speed) and a body
//! launched downhill accelerates with μ_k; and implicit lagging converges on every step of the
//! book's three cases.
//!
//! Every case is the shipped `cases/slope_mu0.11.toml` with the named keys changed. Two
//! placements: *dropped* is the shipped scene (falls ≈0.5 m onto the slope n = (0.1, 1));
//! *resting* states the same slope in its own frame, floor normal (0, 1) and gravity
//! 9.81 (sin θ, −cos θ) m/s², with the square's bottom row just above the equilibrium gap, so the
//! body starts at rest flat on the slope (the axis-aligned square of the shipped scene lands on
//! a corner and rocks, which a test of rest cannot afford: rocking faster than 2 ε_v switches
//! static friction to kinetic for good).

use std::path::Path;

use stickslip_sim::contact::{BarrierParams, Coefficients};
use stickslip_sim::run::runner::{RunOptions, Runner, TrajectoryRow};
use stickslip_sim::run::verdict::Verdict;
use stickslip_sim::scene::{CaseFile, Scene};
use stickslip_sim::solver::Lagging;

/// tan θ of the shipped slope.
const TAN_THETA: f64 = 0.1;
/// |g|, m/s².
const G: f64 = 9.81;

fn sin_theta() -> f64 {
    TAN_THETA / (1.0 + TAN_THETA * TAN_THETA).sqrt()
}

fn cos_theta() -> f64 {
    1.0 / (1.0 + TAN_THETA * TAN_THETA).sqrt()
}

fn shipped() -> CaseFile {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../cases/slope_mu0.11.toml");
    toml::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

/// Sliding tests: relative tolerance on the fitted acceleration (issue 8). Implicit Euler adds
/// exactly h·a to the velocity each step under a constant force, so the fit has no time-step
/// error; what is left is the elastic ringing after landing (decayed by t = 2 s: the fit's
/// residual is ~1e-3 m/s), the lagged λ (exact on average in steady sliding) and Newton's
/// remaining velocity error, under `SLIDING_TOL` = 1e-5 m/s a step against h·a ≈ 5e-3 m/s.
/// Measured: within 0.16 % at both meshes (docs/model.md).
const ACCEL_REL_TOL: f64 = 0.005;
/// Newton tolerance of the sliding tests, m/s: far below h·g sin θ ≈ 1e-2 m/s, so no step can
/// end before gravity and friction act (SPEC.md §6, "a time step that cannot freeze motion").
const SLIDING_TOL: f64 = 1e-5;
/// Newton tolerance of the creep tests, m/s: 1/700 of the μ = 0.11 creep speed (0.7 mm/s) and
/// 1/140 of the halved-ε_v μ = 0.2 one (0.15 mm/s), so Newton's stopping cannot freeze creep.
const CREEP_TOL: f64 = 1e-6;
/// Creep speed against ε_v(1 − √(1 − tan θ/μ)) (issue 8): the formula is the speed at which
/// the smoothed friction μλ f₁(y) balances the downhill load with every node sliding alike;
/// the elastic square's slow residual rocking and its uneven λ move the measured late-window
/// speed by a few percent (measured: 0.1 % at μ = 0.11, 3 % at μ = 0.2).
const CREEP_REL_TOL: f64 = 0.30;
/// Halving ε_v halves the creep speed within this (issue 8); measured within 1 %.
const HALVING_REL_TOL: f64 = 0.20;
/// Kinetic sliding with static and kinetic coefficients, relative tolerance on the fitted
/// acceleration (issue 8); the same error budget as [`ACCEL_REL_TOL`].
const KINETIC_REL_TOL: f64 = 0.01;
/// The late window over which creep is measured, s: the settling after the square is placed
/// (sliding tens of mm/s in the first second, rocking for a few seconds after) is over by 8 s.
const CREEP_WINDOW: (f64, f64) = (8.0, 16.0);
/// Sliding acceleration is fitted over this window, s (issue 8).
const SLIDING_WINDOW: (f64, f64) = (2.0, 4.0);
/// The square's bottom row starts this far above the slope, m: just under d̂, near the gap at
/// which the barrier carries the weight (≈ 9.2 mm for the bottom nodes of the book's square).
const RESTING_GAP: f64 = 0.009;

/// The analytic sliding acceleration on a plane of tan θ = 0.1 with kinetic μ, m/s².
fn sliding_acceleration(mu: f64) -> f64 {
    G * (sin_theta() - mu * cos_theta())
}

/// The analytic creep speed of smoothed friction under a static load, m/s (SPEC.md §2, §6).
fn creep_speed(mu: f64, eps_v: f64) -> f64 {
    eps_v * (1.0 - (1.0 - TAN_THETA / mu).sqrt())
}

#[derive(Clone, Copy, Debug)]
enum Placement {
    Dropped,
    /// Resting flat on the slope, bottom row `gap` m above it, with `speed` m/s downhill.
    Resting {
        gap: f64,
        speed: f64,
    },
}

/// The shipped case at `n_seg` (contact area side/n_seg, SPEC.md §6) with Newton tolerance
/// `tol` and `placement`.
fn case(n_seg: usize, tol: f64, placement: Placement) -> CaseFile {
    let mut c = shipped();
    c.square.n_seg = n_seg;
    c.barrier.contact_area = Some(c.square.side / n_seg as f64);
    c.newton.tol = tol;
    if let Placement::Resting { gap, speed } = placement {
        c.slope.normal = Some([0.0, 1.0]);
        c.slope.point = [0.0, -1.0];
        c.gravity.acceleration = [G * sin_theta(), -G * cos_theta()];
        c.square.centre = [0.0, -1.0 + gap + 0.5 * c.square.side];
        c.square.velocity = [speed, 0.0];
    }
    c
}

fn run(c: &CaseFile, duration: f64, label: &str) -> Runner {
    let scene = Scene::from_case(c, None).unwrap_or_else(|e| panic!("{label}: {e}"));
    let opts = RunOptions {
        duration: Some(duration),
        ..Default::default()
    };
    let mut r = Runner::new(scene, &opts).unwrap();
    advance(&mut r, label);
    r
}

fn advance(r: &mut Runner, label: &str) {
    while !r.done() {
        r.step().unwrap_or_else(|e| panic!("{label}: {e}"));
        r.records.clear();
    }
}

/// Least-squares slope of `f(row)` against t over rows with t ∈ [t0, t1].
fn fitted_slope(
    rows: &[TrajectoryRow],
    (t0, t1): (f64, f64),
    f: impl Fn(&TrajectoryRow) -> f64,
) -> f64 {
    let pts: Vec<(f64, f64)> = rows
        .iter()
        .filter(|r| r.t >= t0 - 1e-9 && r.t <= t1 + 1e-9)
        .map(|r| (r.t, f(r)))
        .collect();
    assert!(
        pts.len() > 10,
        "window [{t0}, {t1}] s has {} samples",
        pts.len()
    );
    let n = pts.len() as f64;
    let mt = pts.iter().map(|p| p.0).sum::<f64>() / n;
    let my = pts.iter().map(|p| p.1).sum::<f64>() / n;
    let sxy: f64 = pts.iter().map(|p| (p.0 - mt) * (p.1 - my)).sum();
    let sxx: f64 = pts.iter().map(|p| (p.0 - mt) * (p.0 - mt)).sum();
    sxy / sxx
}

/// Test 1: dropped on the slope, the square lands, rings down and slides; over t ∈ [2, 4] s its
/// downhill speed grows at g(sin θ − μ cos θ), at n_seg = 4 and 16.
#[test]
fn sliding_acceleration_is_g_sin_minus_mu_cos_on_two_meshes() {
    for n_seg in [4, 16] {
        for mu in [0.0, 0.05] {
            let label = format!("n_seg = {n_seg}, mu = {mu}");
            let mut c = case(n_seg, SLIDING_TOL, Placement::Dropped);
            c.friction.mu = Some(mu);
            // The landing at n_seg = 16 needs up to 135 Newton iterations a step at this tol
            // with the book's barrier (SPEC.md §6); the iteration targets are issue 8 part A's
            // to meet. This test checks the physics, so it allows them.
            c.newton.max_iterations = 500;
            let r = run(&c, SLIDING_WINDOW.1, &label);
            let a = fitted_slope(&r.rows, SLIDING_WINDOW, |row| row.downhill_speed);
            let expected = sliding_acceleration(mu);
            let err = a / expected - 1.0;
            eprintln!("{label}: a = {a:.6} m/s², analytic {expected:.6}, error {err:+.2e}");
            assert!(
                err.abs() < ACCEL_REL_TOL,
                "{label}: fitted acceleration {a} m/s² vs g(sin θ − μ cos θ) = {expected}"
            );
        }
    }
}

/// Resting at the start, run to the end of the creep window; returns the runner.
fn creeping(mu: f64, eps_v: f64) -> Runner {
    let mut c = case(
        4,
        CREEP_TOL,
        Placement::Resting {
            gap: RESTING_GAP,
            speed: 0.0,
        },
    );
    c.friction.mu = Some(mu);
    c.friction.eps_v = eps_v;
    run(
        &c,
        CREEP_WINDOW.1,
        &format!("creep mu = {mu}, eps_v = {eps_v}"),
    )
}

/// Test 2: under a static load (μ > tan θ) the square creeps at ε_v(1 − √(1 − tan θ/μ)),
/// proportional to ε_v; the verdict calls it stopped and reports that creep.
#[test]
fn creep_under_a_static_load_is_the_smoothed_frictions_and_halves_with_eps_v() {
    for mu in [0.11, 0.2] {
        let eps_v = 1e-3;
        let full = creeping(mu, eps_v);
        let half = creeping(mu, 0.5 * eps_v);
        let v_full = fitted_slope(&full.rows, CREEP_WINDOW, |r| r.downhill_distance);
        let v_half = fitted_slope(&half.rows, CREEP_WINDOW, |r| r.downhill_distance);
        let expected = creep_speed(mu, eps_v);
        let ratio = v_half / v_full;
        eprintln!(
            "mu = {mu}: creep {:.4} mm/s (analytic {:.4}), at eps_v/2 {:.4} mm/s, ratio {ratio:.4}",
            v_full * 1e3,
            expected * 1e3,
            v_half * 1e3
        );
        assert!(
            (v_full / expected - 1.0).abs() < CREEP_REL_TOL,
            "mu = {mu}: creep {v_full} m/s vs analytic {expected} m/s"
        );
        assert!(
            (ratio / 0.5 - 1.0).abs() < HALVING_REL_TOL,
            "mu = {mu}: halving eps_v changed the creep by a factor {ratio}"
        );
        match full.verdict() {
            Verdict::Stopped { creep_speed, .. } => assert!(
                (creep_speed / expected - 1.0).abs() < CREEP_REL_TOL,
                "mu = {mu}: the verdict's creep {creep_speed} m/s vs analytic {expected} m/s"
            ),
            v => panic!("mu = {mu}: a creeping square is stopped, not {v:?}"),
        }
    }
}

/// μ_s = 0.2, μ_k = 0.05 on tan θ = 0.1.
fn static_kinetic(placement: Placement) -> CaseFile {
    let mut c = case(4, CREEP_TOL, placement);
    c.friction.mu = None;
    c.friction.mu_static = Some(0.2);
    c.friction.mu_kinetic = Some(0.05);
    c
}

/// Test 3a: at rest on the slope with μ_s = 0.2 > tan θ > μ_k = 0.05 the square stays, creeping
/// at the μ_s speed. "At rest" means settled: the square is first let settle on the slope with
/// μ = μ_s alone (its springs take the load; it creeps at under ε_v by 8 s), then friction
/// switches to static/kinetic. (Placed undeformed, the settling shear slides its bottom nodes
/// past 2 ε_v, kinetic friction takes over and it slides away, which is the model's right
/// answer for a body knocked loose, not a body at rest.)
#[test]
fn static_friction_holds_a_settled_square() {
    let c = static_kinetic(Placement::Resting {
        gap: RESTING_GAP,
        speed: 0.0,
    });
    let target = Scene::from_case(&c, None).unwrap();
    let mut settle_case = c.clone();
    settle_case.friction.mu = Some(0.2);
    settle_case.friction.mu_static = None;
    settle_case.friction.mu_kinetic = None;
    let settle = CREEP_WINDOW.0;
    let opts = RunOptions {
        duration: Some(settle + CREEP_WINDOW.0),
        ..Default::default()
    };
    let mut r = Runner::new(Scene::from_case(&settle_case, None).unwrap(), &opts).unwrap();
    while r.sim.time() < settle - 1e-9 {
        r.step().unwrap();
        r.records.clear();
    }
    // The switch: the coefficients the solver lags friction with from the next step on (the
    // runner's scene too, for the records' μ).
    r.sim
        .contact_mut()
        .expect("the slope has contact")
        .friction_table_mut()
        .default = Coefficients {
        mu_static: target.mu_static,
        mu_kinetic: target.mu,
    };
    r.scene = target;
    advance(&mut r, "static/kinetic at rest");
    let v = fitted_slope(&r.rows, (settle + 2.0, settle + CREEP_WINDOW.0), |row| {
        row.downhill_distance
    });
    let expected = creep_speed(0.2, c.friction.eps_v);
    eprintln!(
        "mu_s = 0.2, mu_k = 0.05 at rest: creep {:.4} mm/s (analytic with mu_s {:.4})",
        v * 1e3,
        expected * 1e3
    );
    assert!(
        (v / expected - 1.0).abs() < CREEP_REL_TOL,
        "creep {v} m/s vs the μ_s creep {expected} m/s"
    );
    assert!(
        matches!(r.verdict(), Verdict::Stopped { .. }),
        "{:?}",
        r.verdict()
    );
}

/// Test 3b: launched downhill at 1 m/s, the same square slides on kinetic friction and
/// accelerates at g(sin θ − μ_k cos θ).
#[test]
fn kinetic_friction_governs_a_launched_square() {
    let c = static_kinetic(Placement::Resting {
        gap: RESTING_GAP,
        speed: 1.0,
    });
    let r = run(&c, SLIDING_WINDOW.1, "static/kinetic launched");
    let a = fitted_slope(&r.rows, SLIDING_WINDOW, |row| row.downhill_speed);
    let expected = sliding_acceleration(0.05);
    eprintln!("mu_s = 0.2, mu_k = 0.05 launched at 1 m/s: a = {a:.6} m/s², analytic {expected:.6}");
    assert!(
        (a / expected - 1.0).abs() < KINETIC_REL_TOL,
        "fitted acceleration {a} m/s² vs g(sin θ − μ_k cos θ) = {expected}"
    );
}

/// Test 5: with `lagging = "implicit"` every step of the book's three cases ends with λ
/// converged: the normal force recomputed here at x^{n+1}, independently of the solver's
/// bookkeeping, differs from the λ the step used by at most `lagging_tol` of the largest.
#[test]
fn implicit_lagging_converges_on_every_step_of_the_book_cases() {
    for file in [
        "slope_mu0.10.toml",
        "slope_mu0.11.toml",
        "slope_mu0.20.toml",
    ] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../cases")
            .join(file);
        let mut c: CaseFile = toml::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        c.friction.lagging = Lagging::Implicit;
        let scene = Scene::from_case(&c, Some(&path)).unwrap();
        let (mu, tol) = (scene.mu_static, scene.lagging_tol);
        let mut r = Runner::new(scene, &RunOptions::default()).unwrap();
        let mut passes = 0;
        while !r.done() {
            let stats = r.step().unwrap_or_else(|e| panic!("{file}: {e}"));
            r.records.clear();
            assert!(!stats.lagging_unconverged, "{file} step {}", stats.step);
            passes += stats.lagging_passes;
            // λ at x^(n+1) by the test's own rule (the book's barrier at every node within d̂),
            // against the λ friction used, node by node (0 for a node outside its set).
            let sim = &r.sim;
            let bar = BarrierParams {
                dhat: r.scene.dhat,
                kappa: r.scene.kappa,
                kind: r.scene.barrier_kind,
            };
            let mut used = vec![0.0; sim.x.len()];
            let mut contacts = Vec::new();
            sim.contacts(&mut contacts);
            for c in &contacts {
                used[c.nodes[0]] = mu * c.normal_force;
            }
            let mut diff: f64 = 0.0;
            let mut scale: f64 = 0.0;
            for (i, x) in sim.x.iter().enumerate() {
                let d = r.scene.normal.dot(&(x - r.scene.point));
                let now = mu * -bar.first(d, r.mesh.contact_area[i]);
                diff = diff.max((now - used[i]).abs());
                scale = scale.max(now).max(used[i]);
            }
            assert!(
                diff <= tol * scale,
                "{file} step {}: λ at x^(n+1) differs from the λ used by {diff} N of {scale} N",
                stats.step
            );
        }
        eprintln!(
            "{file}: {passes} lagging passes in {} steps, at most {} in a step",
            r.totals.steps, r.totals.max_lagging_passes_in_step
        );
        assert!(passes > 0, "{file}: the contact phase re-lags λ");
    }
}
