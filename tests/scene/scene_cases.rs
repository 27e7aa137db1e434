//! The scene cases of issue 20 against their closed forms (SPEC.md §8), derived here from the
//! case files' own values, and the scene kind's bad input. The binary is run as a user runs it.
//!
//! Belt oscillator (cases/belt_stick_slip.toml): a block of mass m on a belt moving at v, held
//! by a zero-length spring of stiffness k to a fixed wall, μ_s > μ_k, N = m g.
//! * Stick: the block rides the belt, the spring force grows at k v until it reaches μ_s N.
//! * Slip: kinetic friction μ_k N pushes it along the belt; about x_eq (spring force μ_k N) it
//!   moves harmonically at ω = √(k/m), starting at u = A₀ = (μ_s − μ_k) N / k with velocity v.
//!   u = R cos(ωt − φ), tan φ = v / (ω A₀); its velocity is v again at ωt = π + 2φ, where
//!   u = −A₀: it sticks at F_min = (2 μ_k − μ_s) N after t_slip = (π + 2φ)/ω.
//! * Stick again: from F_min back to μ_s N at k v: t_stick = 2 (μ_s − μ_k) N / (k v).
//!
//! Tolerance 2 %: the goal at the shipped settings. The errors come from h (the slip
//! onset and re-stick are seen at step ends; docs/scenes.md tabulates F_min's error at 1.8 %,
//! 0.8 %, 0.3 % for h = 2, 1, 0.5 ms, first order), and ε_v and the block's and barrier's
//! stiffness (a fraction of that).
//!
//! The measured cycle is found twice: by the runner (summary.json, from its slip events) and
//! here from trajectory.csv's spring force alone (its extremes after the first slip and the
//! spacing of its maxima), so that a wrong cycle detector cannot pass.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn run(case: &Path, out: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_stickslip"))
        .arg("run")
        .arg(case)
        .args(["--gpu", "off", "--out"])
        .arg(out)
        .output()
        .unwrap()
}

fn run_ok(case: &str, out: &Path) -> (String, Value) {
    let o = run(&root().join(case), out);
    let stdout = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(
        o.status.success(),
        "{case}: {}\n{stdout}",
        String::from_utf8_lossy(&o.stderr)
    );
    let summary = std::fs::read_to_string(out.join("summary.json")).unwrap();
    (stdout, serde_json::from_str(&summary).unwrap())
}

/// trajectory.csv as (header, rows).
fn trajectory(out: &Path) -> (Vec<String>, Vec<Vec<f64>>) {
    let text = std::fs::read_to_string(out.join("trajectory.csv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<String> = lines
        .next()
        .unwrap()
        .split(',')
        .map(str::to_string)
        .collect();
    let rows = lines
        .map(|l| l.split(',').map(|x| x.parse::<f64>().unwrap()).collect())
        .collect();
    (header, rows)
}

fn column(header: &[String], name: &str) -> usize {
    header
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("trajectory.csv has no column {name}: {header:?}"))
}

fn close(what: &str, measured: f64, analytic: f64, rel: f64) {
    let err = (measured / analytic - 1.0).abs();
    assert!(
        err <= rel,
        "{what}: measured {measured} against analytic {analytic} ({:.3} %, allowed {:.1} %)",
        100.0 * err,
        100.0 * rel
    );
}

// The case files' values (cases/belt_stick_slip.toml and cases/pulled_block.toml).
const G: f64 = 9.81;
/// 50 kg/m² × 0.2 m × 0.1 m.
const MASS: f64 = 1.0;
const MU_S: f64 = 0.6;
const MU_K: f64 = 0.4;
const K_SPRING: f64 = 20.0;
const V_BELT: f64 = 0.1;
const V_ANCHOR: f64 = 0.05;
const GOAL: f64 = 0.02;

#[test]
fn belt_oscillator_sticks_and_slips_at_the_closed_form_cycle() {
    let n = MASS * G;
    let f_max = MU_S * n;
    let f_min = (2.0 * MU_K - MU_S) * n;
    let t_stick = 2.0 * (MU_S - MU_K) * n / (K_SPRING * V_BELT);
    let omega = (K_SPRING / MASS).sqrt();
    let a0 = (MU_S - MU_K) * n / K_SPRING;
    let phi = (V_BELT / (omega * a0)).atan();
    let t_slip = (std::f64::consts::PI + 2.0 * phi) / omega;
    let period = t_stick + t_slip;

    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("belt");
    let (stdout, s) = run_ok("cases/belt_stick_slip.toml", &out);
    assert!(
        stdout.contains("stick-slip cycle"),
        "the run prints the cycle:\n{stdout}"
    );
    close(
        "block mass_kg",
        s["bodies"][0]["mass_kg"].as_f64().unwrap(),
        MASS,
        1e-12,
    );

    // The closed form the run prints is the one derived above (to rounding).
    let a = &s["stick_slip_cycle_analytic"];
    for (key, want) in [
        ("f_max_n", f_max),
        ("f_min_n", f_min),
        ("t_stick_s", t_stick),
        ("t_slip_s", t_slip),
        ("period_s", period),
    ] {
        close(key, a[key].as_f64().unwrap(), want, 1e-12);
    }

    // The runner's measured cycle.
    let m = &s["stick_slip_cycle"];
    assert!(m["cycles"].as_u64().unwrap() >= 3, "{m}");
    for (key, want) in [
        ("f_max_n", f_max),
        ("f_min_n", f_min),
        ("t_stick_s", t_stick),
        ("t_slip_s", t_slip),
        ("period_s", period),
    ] {
        close(
            &format!("summary {key}"),
            m[key].as_f64().unwrap(),
            want,
            GOAL,
        );
    }

    // The same from the spring force alone, after the first slip (the first stick starts
    // from zero force and lasts f_max / (k v)).
    let (header, rows) = trajectory(&out);
    let (t, fx) = (column(&header, "t_s"), column(&header, "spring.fx_N"));
    let first_slip = f_max / (K_SPRING * V_BELT);
    let after: Vec<(f64, f64)> = rows
        .iter()
        .filter(|r| r[t] > first_slip + 0.1)
        .map(|r| (r[t], r[fx].abs()))
        .collect();
    let top = after.iter().map(|p| p.1).fold(f64::MIN, f64::max);
    let bottom = after.iter().map(|p| p.1).fold(f64::MAX, f64::min);
    close(
        "largest spring force after the first slip",
        top,
        f_max,
        GOAL,
    );
    close(
        "smallest spring force after the first slip",
        bottom,
        f_min,
        GOAL,
    );
    // The force's maxima: the last sample over the midpoint before each drop.
    let mid = 0.5 * (f_max + f_min);
    let mut peaks = Vec::new();
    let mut best: Option<(f64, f64)> = None;
    for &(ti, f) in &after {
        if f > mid {
            if best.is_none_or(|b| f > b.1) {
                best = Some((ti, f));
            }
        } else if let Some(b) = best.take() {
            peaks.push(b.0);
        }
    }
    assert!(peaks.len() >= 3, "maxima at {peaks:?}");
    let spacing = (peaks[peaks.len() - 1] - peaks[0]) / (peaks.len() - 1) as f64;
    close(
        "spacing of the spring force's maxima",
        spacing,
        period,
        GOAL,
    );

    // No node ever reaches the belt (the barrier's invariant, read from the output).
    let d = column(&header, "block.min_distance_m");
    let closest = rows.iter().map(|r| r[d]).fold(f64::MAX, f64::min);
    assert!(closest > 0.0, "closest approach {closest} m");
}

/// The impulse-law cross-check (SPEC.md §4) on a 2D scene: the belt oscillator's records are
/// the block's bottom nodes against the belt every step, their velocities taken relative to the
/// belt's surface (the law is written for a surface at rest). So the optimiser sticks on the
/// records of the steps the block rides with the belt: the share of approaching records it
/// sticks on equals the share of steps whose `block.slip_m_per_s` (friction's own tangential
/// speed over the belt, from the contacts, not from the records) is under ε_v, within 1 %
/// (a node may change state a step before the block's force-weighted mean does, at a few
/// transitions in 16 000 steps). Read in absolute terms instead, the riding block would move at
/// the belt's 0.1 m/s and never stick. And SPEC.md §4's floors: ≥ 98 % of the approaching
/// records agree on stick or slide, the median tangential gap is below the case's
/// ε_v = 10⁻⁴ m/s.
#[test]
fn the_belt_oscillators_cross_check_reads_velocities_over_the_belt() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("belt");
    let (stdout, s) = run_ok("cases/belt_stick_slip.toml", &out);
    assert!(
        stdout.contains("cross-check against the impulse law"),
        "{stdout}"
    );
    let c = &s["cross_check"];
    let approaching = c["approaching"].as_u64().unwrap() as f64;
    let sticks = c["optimiser_sticks"].as_u64().unwrap() as f64;
    let (header, rows) = trajectory(&out);
    let slip = column(&header, "block.slip_m_per_s");
    let steps: Vec<&Vec<f64>> = rows.iter().filter(|r| r[0] > 0.0).collect();
    let riding = steps.iter().filter(|r| r[slip] < 1e-4).count() as f64 / steps.len() as f64;
    assert!(
        riding > 0.5,
        "the block rides the belt most of the time: {riding}"
    );
    assert!(
        (sticks / approaching - riding).abs() < 0.01,
        "records stuck {} against steps riding {riding}: {c}",
        sticks / approaching
    );
    assert!(c["overall"]["fraction"].as_f64().unwrap() >= 0.98, "{c}");
    assert!(c["gap_median"].as_f64().unwrap() < 1e-4, "{c}");
}

#[test]
fn pulled_block_breaks_away_at_mu_s_n() {
    // A spring pulled at V_ANCHOR from zero force: while the block sticks its force grows at
    // k V_ANCHOR, the block breaks away when it reaches μ_s N.
    let f_break = MU_S * MASS * G;
    let t_break = f_break / (K_SPRING * V_ANCHOR);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("pull");
    let (stdout, s) = run_ok("cases/pulled_block.toml", &out);
    assert!(stdout.contains("breakaway"), "{stdout}");
    close(
        "analytic breakaway force",
        s["breakaway_analytic"]["force_n"].as_f64().unwrap(),
        f_break,
        1e-12,
    );
    close(
        "analytic breakaway time",
        s["breakaway_analytic"]["time_s"].as_f64().unwrap(),
        t_break,
        1e-12,
    );
    let b = &s["breakaway"];
    close(
        "breakaway force",
        b["force_n"].as_f64().unwrap(),
        f_break,
        GOAL,
    );
    close(
        "breakaway time",
        b["time_s"].as_f64().unwrap(),
        t_break,
        GOAL,
    );

    // From the trajectory alone: before 0.9 t_break the block holds (it moves with the spring's
    // stretch under friction's hold: below 1 mm), after breakaway it slides.
    let (header, rows) = trajectory(&out);
    let (t, x) = (column(&header, "t_s"), column(&header, "block.x_m"));
    let held = rows
        .iter()
        .filter(|r| r[t] < 0.9 * t_break)
        .map(|r| r[x].abs())
        .fold(0.0, f64::max);
    assert!(held < 1e-3, "the block moved {held} m before breakaway");
    let end = rows.last().unwrap()[x];
    assert!(end > 0.05, "the block moved only {end} m after breakaway");
}

/// Writes `case`'s text with `edit` applied next to the others in `dir`.
fn edited(dir: &Path, name: &str, edit: impl Fn(&str) -> String) -> PathBuf {
    let text = std::fs::read_to_string(root().join("cases/belt_stick_slip.toml")).unwrap();
    let edited = edit(&text);
    assert_ne!(edited, text, "{name}: the edit must change the case");
    let path = dir.join(name);
    std::fs::write(&path, edited).unwrap();
    path
}

/// `case` is refused as bad input: exit 2, one line naming the file and every needle, and
/// nothing written under `dir`.
fn refused(dir: &Path, case: &Path, needles: &[&str]) {
    let out = dir.join(format!(
        "out_{}",
        case.file_stem().unwrap().to_string_lossy()
    ));
    let o = run(case, &out);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{}: {err}", case.display());
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "one line: {err}");
    let name = case.file_name().unwrap().to_string_lossy().to_string();
    assert!(lines[0].contains(&name), "names the file: {err}");
    for n in needles {
        assert!(lines[0].contains(n), "names {n}: {err}");
    }
    assert!(!out.exists(), "{} wrote {}", case.display(), out.display());
}

#[test]
fn bad_scenes_exit_2_naming_file_key_and_rule_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    let second_block = |s: &str| {
        let i = s.find("[obstacles.belt]").unwrap();
        let j = s.find("[bodies.block]").unwrap();
        let lid = s[j..i]
            .replace("[bodies.block]", "[bodies.lid]")
            .replace("centre = [0.0, 0.0505]", "centre = [0.05, 0.1]");
        format!("{}{lid}{}", &s[..i], &s[i..])
    };
    let cases: Vec<(PathBuf, &[&str])> = vec![
        (
            edited(p, "mu.toml", |s| {
                s.replace("mu_static = 0.6", "mu_static = 0.3")
            }),
            &["friction.mu_static", "mu_kinetic"],
        ),
        (
            edited(p, "inside.toml", |s| {
                s.replace("centre = [0.0, 0.0505]", "centre = [0.0, 0.03]")
            }),
            &["bodies.block.centre", "belt"],
        ),
        (
            edited(p, "nodes.toml", |s| {
                s.replace("nodes = \"bottom\" ", "nodes = \"middle\" ")
            }),
            &["drivers.spring.nodes", "middle"],
        ),
        (
            edited(p, "body.toml", |s| {
                s.replace("body = \"block\"", "body = \"brick\"")
            }),
            &["drivers.spring.body", "brick"],
        ),
        (
            edited(p, "overlap.toml", second_block),
            &["bodies.lid", "`block`", "`lid`"],
        ),
        (
            edited(p, "pair.toml", |s| {
                format!(
                    "{s}\n[friction.pairs.x]\nbetween = [\"block\", \"wall\"]\n\
                     mu_static = 0.5\nmu_kinetic = 0.4\n"
                )
            }),
            &["friction.pairs.x.between", "wall"],
        ),
    ];
    for (case, needles) in cases {
        refused(p, &case, needles);
    }
}

/// Where Newton starts a step must not decide the answer once Newton is converged: the book's
/// μ = 0.11 case at tol = 1e-4 m/s from xⁿ (the book's start) and from the inertial prediction.
/// Each step's solution is within about tol·h = 1e-6 m of the exact minimiser whichever the
/// start, so over its 800 steps the two runs may drift apart by at most ~8e-4 m even if every
/// step's error added up: 1e-3 m. (At the book's tol = 1e-2 the start decides: docs/scenes.md.)
#[test]
fn a_converged_step_does_not_depend_on_where_newton_starts() {
    let dir = tempfile::tempdir().unwrap();
    let mut downhill = Vec::new();
    for guess in ["previous", "inertial"] {
        let out = dir.path().join(guess);
        let o = Command::new(env!("CARGO_BIN_EXE_stickslip"))
            .arg("run")
            .arg(root().join("cases/slope_mu0.11.toml"))
            .args(["--gpu", "off", "--tol", "1e-4", "--set"])
            .arg(format!("newton.initial_guess={guess}"))
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let s: Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap())
                .unwrap();
        assert_eq!(
            s["verdict"]["state"], "stopped",
            "{guess}: {}",
            s["verdict"]
        );
        downhill.push(s["downhill_distance"].as_f64().unwrap());
    }
    assert!(
        (downhill[0] - downhill[1]).abs() < 1e-3,
        "downhill distance from xⁿ {} m, from x̃ {} m",
        downhill[0],
        downhill[1]
    );
}

/// g, m/s² (the case files').
const G_SCENES: f64 = 9.81;

/// The least-squares slope of `ys` against `ts`.
fn slope(ts: &[f64], ys: &[f64]) -> f64 {
    let n = ts.len() as f64;
    let (mt, my) = (ts.iter().sum::<f64>() / n, ys.iter().sum::<f64>() / n);
    let sxy: f64 = ts.iter().zip(ys).map(|(t, y)| (t - mt) * (y - my)).sum();
    let sxx: f64 = ts.iter().map(|t| (t - mt) * (t - mt)).sum();
    sxy / sxx
}

/// Two stacked blocks (cases/stacked_blocks.toml: m₁ = 2 kg on a frictionless floor, m₂ = 1 kg
/// on it, μ = 0.3 between them, the lower pulled by a horizontal F). Newton on the pair:
/// together, (m₁ + m₂) a = F, which needs a friction force m₂ a ≤ μ m₂ g on the upper block:
/// a = F/(m₁ + m₂) while F ≤ μ g (m₁ + m₂) = 8.829 N. Above, the upper block slips: μ m₂ g is
/// all friction gives, so a₂ = μ g and m₁ a₁ = F − μ m₂ g. Implicit Euler adds exactly h·a to
/// a velocity under constant forces, so the accelerations fitted here (from trajectory.csv over
/// t ∈ [0.2, 1] s, after the upper block has settled from its 1.5 mm drop) carry no time-step
/// error; what remains is the barrier's and the blocks' ringing (measured: under 0.25 %). The
/// issue's goal, 1 %, is the tolerance.
#[test]
fn stacked_blocks_move_together_below_mu_g_m_and_apart_above() {
    let (m1, m2, mu) = (2.0, 1.0, 0.3);
    let threshold = mu * G_SCENES * (m1 + m2);
    let dir = tempfile::tempdir().unwrap();
    for (force, slips) in [(6.0, false), (15.0, true)] {
        assert_eq!(force > threshold, slips);
        let (a1, a2) = if slips {
            ((force - mu * m2 * G_SCENES) / m1, mu * G_SCENES)
        } else {
            (force / (m1 + m2), force / (m1 + m2))
        };
        let out = dir.path().join(format!("f{force}"));
        let o = Command::new(env!("CARGO_BIN_EXE_stickslip"))
            .arg("run")
            .arg(root().join("cases/stacked_blocks.toml"))
            .args(["--gpu", "off", "--set"])
            .arg(format!("drivers.pull.force=[{force},0]"))
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&o.stdout);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert!(stdout.contains("stacked blocks (SPEC.md §8)"), "{stdout}");
        let (header, rows) = trajectory(&out);
        let late: Vec<&Vec<f64>> = rows.iter().filter(|r| r[0] >= 0.2).collect();
        let ts: Vec<f64> = late.iter().map(|r| r[0]).collect();
        for (body, expected) in [("lower", a1), ("upper", a2)] {
            let c = column(&header, &format!("{body}.vx_m_per_s"));
            let vs: Vec<f64> = late.iter().map(|r| r[c]).collect();
            close(
                &format!("F = {force} N: {body} block's acceleration"),
                slope(&ts, &vs),
                expected,
                0.01,
            );
        }
        let s: Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap())
                .unwrap();
        assert_eq!(s["stack_analytic"]["upper_slips"], slips);
        assert_eq!(s["stack"]["upper_slips"], slips);
        assert_eq!(s["bodies"][1]["support"], "lower");
        // The barrier's invariant, read from the output: no pair ever at zero distance.
        assert!(s["solver"]["min_distance"].as_f64().unwrap() > 0.0);
    }
}

/// Smoothed friction under a static load creeps at v* = ε_v (1 − √(1 − tan θ/μ)) (SPEC.md §6):
/// the speed at which μλ f₁(y) carries the downhill load with every pair of a contact sliding
/// alike. It does not depend on the load, so every contact of a stack on a slope creeps at v*.
/// Each body's `slip_m_per_s` is its contacts' slip over its support, weighted by normal force.
fn creep_speeds(case: &str, bodies: &[&str], window: (f64, f64)) -> Vec<f64> {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let (_, summary) = run_ok(case, &out);
    for (k, b) in bodies.iter().enumerate() {
        assert_eq!(summary["bodies"][k]["name"], *b);
        assert_eq!(
            summary["bodies"][k]["verdict"]["state"], "stopped",
            "{case}: {b}: {}",
            summary["bodies"][k]
        );
    }
    assert!(summary["solver"]["min_distance"].as_f64().unwrap() > 0.0);
    let (header, rows) = trajectory(&out);
    let late: Vec<&Vec<f64>> = rows
        .iter()
        .filter(|r| r[0] >= window.0 && r[0] <= window.1)
        .collect();
    bodies
        .iter()
        .map(|b| {
            let c = column(&header, &format!("{b}.slip_m_per_s"));
            late.iter().map(|r| r[c]).sum::<f64>() / late.len() as f64
        })
        .collect()
}

/// The book's square on a 2 m slab on the book's slope (tan θ = 0.1), μ = 0.2 everywhere, ε_v =
/// 1e-3 m/s: both stay, each contact creeping at v* = 0.293 mm/s. Measured over t ∈ [4, 8] s
/// (the soft square rocks for seconds after its 15 mm drop, moving its contacts' slip by ±10 %
/// in the first 3 s): within 3 %; tolerance 10 %.
#[test]
fn the_square_on_a_slab_on_the_slope_stays_creeping_at_v_star() {
    let (tan_theta, mu, eps_v) = (0.1f64, 0.2, 1e-3);
    let v_star = eps_v * (1.0 - (1.0 - tan_theta / mu).sqrt());
    let speeds = creep_speeds(
        "cases/square_on_slab_on_slope.toml",
        &["slab", "square"],
        (4.0, 8.0),
    );
    for (b, v) in ["slab", "square"].iter().zip(speeds) {
        close(&format!("{b}'s creep"), v, v_star, 0.10);
    }
}

/// Five 1 kg boxes stacked on a slope of tan θ = 0.2, μ = 0.4, ε_v = 1e-4 m/s: every box stays.
/// Its lowest contact (on the slope) and its highest (box 5 on box 4) creep at v* = 29.3 µm/s
/// (measured within 3 % over t ∈ [2, 3] s; tolerance 10 % as above). The contacts between
/// boxes 1–2 and 2–3 creep faster after the drop and relax towards v* over seconds (36 and
/// 34 µm/s at t ≈ 5 s, in proportion to ε_v: docs/scenes.md); all stay under 1.5 v*, the bound
/// asserted for them.
#[test]
fn five_boxes_stacked_on_a_slope_all_stay() {
    let (tan_theta, mu, eps_v) = (0.2f64, 0.4, 1e-4);
    let v_star = eps_v * (1.0 - (1.0 - tan_theta / mu).sqrt());
    let boxes = ["box1", "box2", "box3", "box4", "box5"];
    let speeds = creep_speeds("cases/box_stack_on_slope.toml", &boxes, (2.0, 3.0));
    close("box1's creep on the slope", speeds[0], v_star, 0.10);
    close("box5's creep on box4", speeds[4], v_star, 0.10);
    for (b, v) in boxes.iter().zip(&speeds) {
        assert!(
            *v < 1.5 * v_star,
            "{b} creeps at {v} m/s against v* = {v_star}"
        );
        assert!(*v > 0.0, "{b} must be in contact");
    }
}

/// The impulse-law cross-check (SPEC.md §4) on the five boxes stacked on the slope: their
/// contacts are the lowest box's nodes against the slope and point–edge pairs between boxes,
/// and a box's corner node is in pairs of two normals (the box above's bottom, a neighbour's
/// side). Each pair's record takes off its own contact force only (docs/impulse.md §7): were
/// all of its nodes' contact forces taken off, the other pairs' normal impulses would reach
/// the law as tangential velocity and it would read slides where every box rests (62 % from
/// t = 1 s, measured that way). SPEC.md §4's floor for the resting phase: ≥ 99 % of the
/// approaching records from t = 1 s on agree on stick or slide; the optimiser sticks on most
/// of them (every box stays, creeping under ε_v).
#[test]
fn the_stacked_boxes_cross_check_agrees_once_they_rest() {
    let dir = tempfile::tempdir().unwrap();
    let (_, s) = run_ok("cases/box_stack_on_slope.toml", &dir.path().join("stack"));
    let c = &s["cross_check"];
    assert!(c["pairs"]["total"].as_u64().unwrap() > 10_000, "{c}");
    assert!(c["late"]["fraction"].as_f64().unwrap() >= 0.99, "{c}");
    let sticks = c["optimiser_sticks"].as_f64().unwrap() / c["approaching"].as_f64().unwrap();
    assert!(sticks > 0.8, "{c}");
}

/// Bad geometry of bodies and polylines: exit 2, one line naming the file, the key and both
/// parties, nothing written.
#[test]
fn bodies_and_polylines_that_overlap_or_touch_at_the_start_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    let stacked = std::fs::read_to_string(root().join("cases/stacked_blocks.toml")).unwrap();
    let write = |name: &str, text: String| {
        assert_ne!(text, stacked, "{name}: the edit must change the case");
        let path = p.join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    let polyline = |points: &str| {
        format!("{stacked}\n[obstacles.ramp]\ntype = \"polyline\"\npoints = {points}\n")
    };
    let cases: Vec<(PathBuf, Vec<&str>)> = vec![
        // The upper block 0.5 mm above the lower: within d̂ = 1 mm.
        (
            write(
                "close.toml",
                stacked.replace("centre = [0.8, 0.1520]", "centre = [0.8, 0.1515]"),
            ),
            vec!["bodies.upper.centre", "`upper`", "`lower`", "barrier.dhat"],
        ),
        // Sunk into the lower block: their boundaries cross.
        (
            write(
                "sunk.toml",
                stacked.replace("centre = [0.8, 0.1520]", "centre = [0.85, 0.125]"),
            ),
            vec!["bodies.upper.centre", "`upper`", "`lower`", "cross"],
        ),
        // A polyline through the lower block, its ends far outside.
        (
            write("through.toml", polyline("[[-0.55, -1.0], [-0.55, 1.0]]")),
            vec!["bodies.lower.centre", "`ramp`", "cross"],
        ),
        // A polyline inside the lower block.
        (
            write("inside.toml", polyline("[[0.1, 0.04], [0.2, 0.06]]")),
            vec!["bodies.lower.centre", "`ramp`", "inside"],
        ),
        (
            write("short.toml", polyline("[[3.0, 0.0]]")),
            vec!["obstacles.ramp.points", "at least two"],
        ),
        (
            write(
                "repeat.toml",
                polyline("[[3.0, 0.0], [3.0, 0.0], [4.0, 0.0]]"),
            ),
            vec!["obstacles.ramp.points[1]", "differ"],
        ),
        (
            write(
                "mixed.toml",
                format!(
                    "{stacked}\n[obstacles.ramp]\ntype = \"polyline\"\npoints = [[3.0, 0.0], [4.0, 0.0]]\nnormal = [0.0, 1.0]\n"
                ),
            ),
            vec!["obstacles.ramp.normal", "polyline"],
        ),
    ];
    for (case, needles) in cases {
        refused(p, &case, &needles);
    }
}

/// `contacts.csv` (`run --contacts`): the pairs between the stacked blocks carry the upper
/// block's weight. Newton's third law in the file's own terms: a row's force on its first
/// primitive is normal_force · n (n from the second towards the first), on the second its
/// negative; so the vertical force on the upper block is Σ over rows with first = upper of
/// λ n_y minus Σ over rows with first = lower of λ n_y. Averaged over t ∈ [0.5, 1] s, while
/// the blocks ride together (F = 6 N), it equals m₂ g: the block's vertical acceleration
/// averages zero (it rings on the barrier by under 1 %, so 2 % is the tolerance). Every row's
/// state is then `stick` (the blocks move together; the landing in the first milliseconds
/// slides).
#[test]
fn contacts_csv_carries_the_upper_blocks_weight() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let o = Command::new(env!("CARGO_BIN_EXE_stickslip"))
        .arg("run")
        .arg(root().join("cases/stacked_blocks.toml"))
        .args(["--gpu", "off", "--contacts", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(out.join("contacts.csv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (t, first, second, force, ny, state) = (
        col("t_s"),
        col("first"),
        col("second"),
        col("normal_force_N"),
        col("ny"),
        col("state"),
    );
    let mut per_step = std::collections::BTreeMap::<u64, f64>::new();
    for line in lines {
        let f: Vec<&str> = line.split(',').collect();
        let time: f64 = f[t].parse().unwrap();
        let pair = (f[first], f[second]);
        let push = f[force].parse::<f64>().unwrap() * f[ny].parse::<f64>().unwrap();
        let on_upper = match pair {
            ("upper", "lower") => push,
            ("lower", "upper") => -push,
            _ => continue,
        };
        if time >= 0.5 {
            assert_eq!(f[state], "stick", "{line}");
            *per_step.entry((time * 1e6).round() as u64).or_default() += on_upper;
        }
    }
    assert!(per_step.len() > 400, "{} steps in contact", per_step.len());
    let mean = per_step.values().sum::<f64>() / per_step.len() as f64;
    close(
        "mean vertical force on the upper block",
        mean,
        1.0 * G_SCENES,
        0.02,
    );
}

/// `contacts.csv`'s forces (`run --contacts`) are the forces the step balanced: the upper of
/// the stacked blocks (1 kg) touches only the lower one, so by Newton's second law, at every
/// step, the rows between them — each pair's barrier force `normal_force_N` along its normal
/// plus its friction force `friction_f*_N`, on the first primitive, negated on the second —
/// sum to m₂ (v − v_prev)/h − m₂ g, its momentum change over the step read off
/// `trajectory.csv`. A step solves momentum only to Newton's tolerance: it stops once
/// ‖p‖∞/h < tol, leaving a force residual of about (M + h² K) tol / h, K the stiffness along
/// p; while the upper block goes from slipping to sticking (0.07–0.21 s) friction's K is
/// ~30 M/h², and at the case's tol = 1e-6 m/s the columns miss the balance by up to 19 mN. At
/// tol = 1e-9 m/s that residual is about 30 µN, so 1 mN bounds it with room. Checked from
/// t = 0.1 s, after the upper block's landing (its first ~30 ms: a row is a pair within d̂ at
/// the step's end, while friction acts on every pair whose normal force was lagged at the
/// step's start, so in a step where a pair leaves d̂ its friction is in no row). The friction
/// alone carries the block along at about the stack's 2 m/s² (SPEC.md §8): not a zero column.
#[test]
fn contacts_csv_forces_on_the_upper_block_are_its_momentum_change() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let o = Command::new(env!("CARGO_BIN_EXE_stickslip"))
        .arg("run")
        .arg(root().join("cases/stacked_blocks.toml"))
        .args(["--gpu", "off", "--contacts", "--duration", "0.6"])
        .args(["--set", "newton.tol=1e-9", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let columns = |text: &str| -> (Vec<String>, Vec<Vec<String>>) {
        let mut lines = text.lines();
        let header = lines
            .next()
            .unwrap()
            .split(',')
            .map(str::to_string)
            .collect();
        let rows = lines
            .map(|l| l.split(',').map(str::to_string).collect())
            .collect();
        (header, rows)
    };
    let (th, trajectory) = columns(&std::fs::read_to_string(out.join("trajectory.csv")).unwrap());
    let tcol = |name: &str| th.iter().position(|h| h == name).unwrap();
    let (vx, vy) = (tcol("upper.vx_m_per_s"), tcol("upper.vy_m_per_s"));
    let (ch, contacts) = columns(&std::fs::read_to_string(out.join("contacts.csv")).unwrap());
    let ccol = |name: &str| ch.iter().position(|h| h == name).unwrap();
    let (t, first, second, force) = (
        ccol("t_s"),
        ccol("first"),
        ccol("second"),
        ccol("normal_force_N"),
    );
    let (n, f) = (
        [ccol("nx"), ccol("ny")],
        [ccol("friction_fx_N"), ccol("friction_fy_N")],
    );
    let num = |s: &str| s.parse::<f64>().unwrap();
    let mut per_step = std::collections::BTreeMap::<u64, [f64; 2]>::new();
    let mut friction_x = Vec::new();
    for r in &contacts {
        let sign = match (r[first].as_str(), r[second].as_str()) {
            ("upper", "lower") => 1.0,
            ("lower", "upper") => -1.0,
            _ => continue,
        };
        let total = per_step
            .entry((num(&r[t]) * 1e6).round() as u64)
            .or_default();
        for a in 0..2 {
            total[a] += sign * (num(&r[force]) * num(&r[n[a]]) + num(&r[f[a]]));
        }
        friction_x.push(sign * num(&r[f[0]]));
    }
    let h = 1e-3;
    let mut checked = 0;
    for (k, row) in trajectory.iter().enumerate().skip(1) {
        if num(&row[0]) < 0.1 {
            continue;
        }
        let Some(total) = per_step.get(&((num(&row[0]) * 1e6).round() as u64)) else {
            continue;
        };
        let prev = &trajectory[k - 1];
        let change = [
            1.0 * (num(&row[vx]) - num(&prev[vx])) / h,
            1.0 * (num(&row[vy]) - num(&prev[vy])) / h + 1.0 * G_SCENES,
        ];
        for a in 0..2 {
            assert!(
                (total[a] - change[a]).abs() < 1e-3,
                "t = {}: force {total:?} against momentum change {change:?}",
                row[0]
            );
        }
        checked += 1;
    }
    assert!(checked > 450, "{checked} steps checked");
    let pulled: f64 = friction_x.iter().sum();
    assert!(
        pulled > 0.0,
        "the friction on the upper block pulls it along"
    );
}
