//! Exact stick on the slope (issue 38, SPEC.md §9): the case keys `friction.stick` and
//! `friction.eps_d` and their refusals, and the numbers against closed forms, each beside the
//! smoothed model on the same case:
//!
//! * **Drift.** The book's square at μ = 0.2 (the shipped `cases/slope_mu0.20.toml`, Newton
//!   tol 10⁻⁶ so that Newton runs every step) comes to rest and then moves less than 1 µm in
//!   10 s. Smoothed friction creeps at v* = ε_v(1 − √(1 − tan θ/μ)) = 0.29 mm/s there
//!   (SPEC.md §6), i.e. ≈ 2.9 mm in the same 10 s.
//! * **Threshold.** A stiff block resting on a plane of tan θ = 0.5 with μ_s = μ_k = μ holds
//!   when μ N ≥ W, i.e. μ ≥ tan θ: at μ = 0.501 it stops and stays, at μ = 0.499 it slides,
//!   each at a = g(sin θ − μ cos θ) = ∓8.77 mm/s² while it moves.
//! * **Sliding.** On the same plane at μ = 0.3 it slides at a = g(sin θ − μ cos θ) within
//!   0.1 %.
//! * **Cost.** Newton iterations of the held case within 1.3× the smoothed model's.
//!
//! The tilted planes are stated in their own frame (floor normal (0, 1), gravity
//! 9.81 (sin θ, −cos θ) m/s², the square resting flat just above the barrier's equilibrium gap),
//! as `crates/stickslip-sim/tests/run/analytic_slope.rs` does: the axis-aligned square dropped
//! on a tilted slope lands on a corner.

use std::path::Path;
use std::process::Command;

use stickslip::contact::potentials::friction::StickModel;
use stickslip::energy::Vec2;
use stickslip::run::runner::{RunOptions, Runner, TrajectoryRow};
use stickslip::scene::case_file::Stick;
use stickslip::scene::{CaseFile, Scene};

const G: f64 = 9.81;

fn shipped(file: &str) -> CaseFile {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("cases")
        .join(file);
    toml::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

fn shipped_text() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("cases/slope_mu0.20.toml"))
        .unwrap()
}

/// The shipped μ = 0.2 case with its `mu = 0.2` line replaced by `friction_lines` and
/// `tol = 1.0e-2` by `newton_tol_line`.
fn with_lines(friction_lines: &str, newton_line: &str) -> Result<Scene, String> {
    let text = shipped_text()
        .replace("mu = 0.2\n", &format!("{friction_lines}\n"))
        .replace("tol = 1.0e-2 ", &format!("{newton_line}\ntol = 1.0e-2 "));
    Scene::from_toml(&text, Path::new("case.toml")).map_err(|e| e.to_string())
}

#[test]
fn stick_keys_are_read_with_smoothed_the_default() {
    let s = with_lines("mu = 0.2", "").unwrap();
    assert_eq!(s.stick, StickModel::Smoothed);
    let s = with_lines("mu = 0.2\nstick = \"smoothed\"", "").unwrap();
    assert_eq!(s.stick, StickModel::Smoothed);
    let s = with_lines("mu = 0.2\nstick = \"exact\"\neps_d = 2e-5", "").unwrap();
    assert_eq!(s.stick, StickModel::Exact { eps_d: 2e-5 });
    // Absent, ε_d = ε_v h (10⁻³ m/s · 0.01 s).
    let s = with_lines("mu = 0.2\nstick = \"exact\"", "").unwrap();
    assert_eq!(s.stick, StickModel::Exact { eps_d: 1e-3 * 0.01 });
}

#[test]
fn bad_stick_keys_are_refused_naming_the_key_and_the_rule() {
    for (friction, newton, key, rule) in [
        (
            "stick = \"exact\"\neps_d = 0.0",
            "",
            "friction.eps_d",
            "> 0",
        ),
        (
            "stick = \"exact\"\neps_d = -1e-5",
            "",
            "friction.eps_d",
            "> 0",
        ),
        (
            "stick = \"exact\"\neps_d = nan",
            "",
            "friction.eps_d",
            "finite",
        ),
        (
            "stick = \"exact\"\neps_d = inf",
            "",
            "friction.eps_d",
            "finite",
        ),
        (
            "stick = \"exact\"\neps_d = 0.02",
            "",
            "friction.eps_d",
            "at most barrier.dhat",
        ),
        (
            "eps_d = 1e-5",
            "",
            "friction.eps_d",
            "only with friction.stick",
        ),
        (
            "stick = \"sticky\"",
            "",
            "friction.stick",
            "unknown variant",
        ),
        (
            "stick = \"exact\"",
            "stick_filter = true",
            "newton.stick_filter",
            "cannot be combined",
        ),
    ] {
        let lines = format!("mu = 0.2\n{friction}");
        let err = with_lines(&lines, newton).expect_err(&lines);
        assert!(
            err.contains(&format!("case.toml: key `{key}`")) && err.contains(rule),
            "{lines:?}: {err}"
        );
        assert!(!err.contains('\n'), "one line: {err}");
    }
}

/// The command line refuses a bad ε_d with exit 2 and one line naming the file and the key.
#[test]
fn the_command_line_refuses_a_bad_eps_d_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let case = dir.path().join("held.toml");
    let text = shipped_text().replace("mu = 0.2\n", "mu = 0.2\nstick = \"exact\"\neps_d = 0.5\n");
    std::fs::write(&case, text).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_stickslip"))
        .args(["run", case.to_str().unwrap(), "--gpu", "off", "--out"])
        .arg(dir.path().join("out"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("held.toml") && stderr.contains("friction.eps_d"),
        "{stderr}"
    );
}

/// `summary.json` says which model ran: `exact_stick.eps_d_m` (m) with `friction.stick =
/// "exact"`, its default ε_v·h when `eps_d` is absent (the shipped case's ε_v = 10⁻³ m/s and
/// h = 0.01 s give 10⁻⁵ m), the ε_d given when it is set, and no such key with smoothed friction,
/// for the slope (here), 2D and 3D scenes (`tests/scene/exact_stick_scenes.rs`).
#[test]
fn the_summary_names_exact_stick_and_its_eps_d() {
    let dir = tempfile::tempdir().unwrap();
    let case = Path::new(env!("CARGO_MANIFEST_DIR")).join("cases/slope_mu0.20.toml");
    let summary = |name: &str, settings: &[&str]| -> serde_json::Value {
        let out = dir.path().join(name);
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_stickslip"));
        cmd.args([
            "run",
            case.to_str().unwrap(),
            "--gpu",
            "off",
            "--duration",
            "0.1",
        ]);
        for s in settings {
            cmd.args(["--set", s]);
        }
        let done = cmd.arg("--out").arg(&out).output().unwrap();
        assert!(
            done.status.success(),
            "{}",
            String::from_utf8_lossy(&done.stderr)
        );
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap()
    };
    let smoothed = summary("smoothed", &[]);
    assert!(smoothed.get("exact_stick").is_none(), "{smoothed}");
    let exact = summary("exact", &["friction.stick=exact"]);
    assert_eq!(exact["exact_stick"]["eps_d_m"].as_f64(), Some(1e-3 * 0.01));
    let given = summary("given", &["friction.stick=exact", "friction.eps_d=2e-6"]);
    assert_eq!(given["exact_stick"]["eps_d_m"].as_f64(), Some(2e-6));
}

fn runner(c: &CaseFile, duration: f64) -> Runner {
    let scene = Scene::from_case(c, None).unwrap();
    let opts = RunOptions {
        duration: Some(duration),
        ..Default::default()
    };
    Runner::new(scene, &opts).unwrap()
}

/// Steps `r` until t reaches `t` (s).
fn advance_to(r: &mut Runner, t: f64) {
    while r.sim.time() < t - 1e-9 && !r.done() {
        r.step().unwrap_or_else(|e| panic!("{e}"));
        r.records.clear();
    }
}

/// The largest node displacement between two states, m.
fn max_move(a: &[Vec2], b: &[Vec2]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(p, q)| (p - q).norm())
        .fold(0.0, f64::max)
}

/// The held case: `slope_mu0.20.toml` at tol 10⁻⁶ with friction `stick`.
fn held(stick: Stick) -> CaseFile {
    let mut c = shipped("slope_mu0.20.toml");
    c.newton.tol = 1e-6;
    c.friction.stick = stick;
    c
}

/// After it settles, the square under exact stick moves less than 1 µm (the number) in
/// the next 10 s, [40, 50] s; the smoothed model creeps millimetres in the same window
/// (0.29 mm/s). Settling takes long here, and not because of friction: with every contact
/// stuck, the soft square (k = 2·10⁴ N/m, 40 kg a node) rocks on its contacts at ≈ 1.6 Hz, a
/// mode implicit Euler damps only by its numerical dissipation (hω ≈ 0.1: ~17 % a second), so
/// millimetre swings at 6 s are below 1 µm only after ≈ 35 s (measured: docs/model.md). Newton
/// iterations are compared over the first 16 s, landing and rocking included (after exact
/// stick has settled its steps take none, which would flatter it); the issue asks for at most
/// 1.3× the smoothed model's.
#[test]
fn the_book_square_at_mu_0_2_holds_still_with_exact_stick() {
    let (early, settled, end) = (16.0, 40.0, 50.0);
    let mut drift = [0.0; 2];
    let mut iterations = [0usize; 2];
    for (k, stick) in [Stick::Smoothed, Stick::Exact].into_iter().enumerate() {
        let mut r = runner(&held(stick), end);
        advance_to(&mut r, early);
        iterations[k] = r.totals.newton_iterations;
        advance_to(&mut r, settled);
        let at_rest = r.sim.x.clone();
        advance_to(&mut r, end);
        drift[k] = max_move(&r.sim.x, &at_rest);
    }
    eprintln!(
        "book square, mu = 0.2, tol 1e-6: largest node move over [{settled}, {end}] s smoothed {:.4e} m, exact {:.4e} m; Newton iterations over [0, {early}] s smoothed {}, exact {} ({:.3}x)",
        drift[0],
        drift[1],
        iterations[0],
        iterations[1],
        iterations[1] as f64 / iterations[0] as f64
    );
    assert!(drift[1] < 1e-6, "exact stick moved {} m", drift[1]);
    // The smoothed model's creep, 0.29 mm/s, is what exact stick removes: ≈ 2.9 mm here.
    assert!(drift[0] > 1e-3, "smoothed moved only {} m", drift[0]);
    assert!(
        iterations[1] as f64 <= 1.3 * iterations[0] as f64,
        "Newton iterations: exact {} vs smoothed {}",
        iterations[1],
        iterations[0]
    );
}

/// The square resting flat on a plane of tan θ = `tan_theta` stated in its own frame, with
/// μ_s = μ_k = `mu`, exact stick, Newton tol 10⁻⁶.
fn resting(tan_theta: f64, mu: f64) -> CaseFile {
    let mut c = shipped("slope_mu0.20.toml");
    let (sin, cos) = (
        tan_theta / (1.0 + tan_theta * tan_theta).sqrt(),
        1.0 / (1.0 + tan_theta * tan_theta).sqrt(),
    );
    c.slope.normal = Some([0.0, 1.0]);
    c.slope.point = [0.0, -1.0];
    c.gravity.acceleration = [G * sin, -G * cos];
    // The bottom row at the barrier's equilibrium gap under a uniform share of the weight's
    // normal part (so the block does not hop: a hop unloads friction and lets it slide).
    let per_node = 1000.0 * c.square.side * c.square.side * G * cos / 5.0;
    c.square.centre = [0.0, -1.0 + equilibrium_gap(per_node) + 0.5 * c.square.side];
    c.friction.mu = Some(mu);
    c.friction.stick = Stick::Exact;
    c.material.stiffness = BLOCK_STIFFNESS;
    c.newton.tol = 1e-6;
    c
}

/// The block's spring stiffness, N/m: 1000× the book's 2·10⁴, so that its lowest elastic
/// mode (ω ≈ √(k/m) ≈ 700 rad/s with m = 40 kg a node) is damped by implicit Euler within
/// a few steps (hω ≈ 7) and the square moves as a rigid block (SPEC.md §8: a body stiff enough
/// that its own elasticity is negligible). The book's soft square on this slope shears, lifts
/// its uphill corner and walks down it whatever the friction.
const BLOCK_STIFFNESS: f64 = 2e7;

/// The gap d (m) at which the book's barrier (d̂ = 0.01 m, κ = 10⁵, A = 0.25 m) pushes with
/// `force` (N): A d̂ (κ/2)(−ln s/d̂ − (s − 1)/d) = force, s = d/d̂, by bisection (the force
/// falls with d).
fn equilibrium_gap(force: f64) -> f64 {
    let (dhat, kappa, area) = (0.01, 1e5, 0.25);
    let push =
        |d: f64| -area * dhat * 0.5 * kappa * ((d / dhat).ln() / dhat + (d / dhat - 1.0) / d);
    let (mut lo, mut hi) = (1e-9, dhat);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if push(mid) > force {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// g(sin θ − μ cos θ), m/s².
fn sliding_acceleration(tan_theta: f64, mu: f64) -> f64 {
    G * (tan_theta - mu) / (1.0 + tan_theta * tan_theta).sqrt()
}

/// Least-squares slope of the centroid's downhill speed against t over rows in [t0, t1].
fn fitted_acceleration(rows: &[TrajectoryRow], (t0, t1): (f64, f64)) -> f64 {
    let pts: Vec<(f64, f64)> = rows
        .iter()
        .filter(|r| r.t >= t0 - 1e-9 && r.t <= t1 + 1e-9)
        .map(|r| (r.t, r.downhill_speed))
        .collect();
    let n = pts.len() as f64;
    let (mt, mv) = (
        pts.iter().map(|p| p.0).sum::<f64>() / n,
        pts.iter().map(|p| p.1).sum::<f64>() / n,
    );
    let sxy: f64 = pts.iter().map(|p| (p.0 - mt) * (p.1 - mv)).sum();
    let sxx: f64 = pts.iter().map(|p| (p.0 - mt) * (p.0 - mt)).sum();
    sxy / sxx
}

/// The window of the fits, s: the block is placed at rest, undeformed, and the load comes on
/// at once; the first steps shear it elastically (W/k ≈ 2·10⁻⁴ m) and that kick slides its
/// base at ≈ 2.4 cm/s whatever μ, so from 0.5 s on it slides on kinetic friction.
const WINDOW: (f64, f64) = (0.5, 2.5);

/// The threshold: started by the same kick, the block decelerates at μ = 0.501 and accelerates
/// at μ = 0.499, each at a = g(sin θ − μ cos θ) = ∓8.77 mm/s², and at μ = 0.501 it then stops
/// (by ≈ 3 s) and moves less than 1 µm over [4, 6] s, while at μ = 0.499 it is still
/// accelerating at 6 s. While it slides every contact slips, so friction is μΣλ = μN and
/// implicit Euler is exact under a constant force; what is left is the decaying kick, the
/// uphill edge node (unloaded by the load's moment, it leaves and re-enters d̂ and is made
/// again as a new contact) and Newton's error (≤ 10⁻⁶ m/s² on a 2 s fit, 10⁻⁴ of a). Measured
/// within 0.1 % (docs/model.md); 1 % keeps tenfold margin and is a hundred times smaller than
/// the ±100 % that tells the two μ apart.
#[test]
fn the_threshold_on_tan_theta_0_5_is_sharp() {
    let tan_theta = 0.5;
    let (rest, end) = (4.0, 6.0);
    let mut r = runner(&resting(tan_theta, 0.501), end);
    advance_to(&mut r, rest);
    let start = r.sim.x.clone();
    advance_to(&mut r, end);
    let held = max_move(&r.sim.x, &start);
    let slowing = fitted_acceleration(&r.rows, WINDOW);
    let mut r = runner(&resting(tan_theta, 0.499), end);
    advance_to(&mut r, end);
    let speeding = fitted_acceleration(&r.rows, WINDOW);
    let late = fitted_acceleration(&r.rows, (rest, end));
    let (a_hold, a_slide) = (
        sliding_acceleration(tan_theta, 0.501),
        sliding_acceleration(tan_theta, 0.499),
    );
    eprintln!(
        "tan theta = 0.5: mu = 0.501 a = {slowing:.6e} m/s^2 (closed form {a_hold:.6e}), then moved {held:.3e} m over [{rest}, {end}] s; mu = 0.499 a = {speeding:.6e} (closed form {a_slide:.6e}), {late:.6e} over [{rest}, {end}] s"
    );
    assert!(held < 1e-6, "mu = 0.501 moved {held} m");
    assert!(
        (slowing / a_hold - 1.0).abs() < 0.01,
        "{slowing} vs {a_hold}"
    );
    assert!(
        (speeding / a_slide - 1.0).abs() < 0.01,
        "{speeding} vs {a_slide}"
    );
    assert!((late / a_slide - 1.0).abs() < 0.01, "{late} vs {a_slide}");
}

/// At μ = 0.3 on tan θ = 0.5 the block slides at g(sin θ − μ cos θ) = 1.7549 m/s² within
/// 0.1 % (the number): every contact slips, so friction is exactly μλ with Σλ = N at
/// normal equilibrium, and implicit Euler is exact under a constant force; Newton's velocity
/// error (≤ tol = 10⁻⁶ m/s a step) moves a slope fitted over 2 s by ≤ 10⁻⁶ m/s², and the
/// residual of the test above (< 10⁻⁵ m/s²) is < 10⁻⁵ of this a.
#[test]
fn sliding_on_exact_stick_keeps_the_kinetic_acceleration() {
    let (tan_theta, mu) = (0.5, 0.3);
    let mut r = runner(&resting(tan_theta, mu), WINDOW.1);
    advance_to(&mut r, WINDOW.1);
    let a = fitted_acceleration(&r.rows, WINDOW);
    let expected = sliding_acceleration(tan_theta, mu);
    eprintln!("tan theta = 0.5, mu = 0.3: a = {a:.6} m/s^2, closed form {expected:.6}");
    assert!((a / expected - 1.0).abs() < 1e-3, "a = {a} vs {expected}");
}
