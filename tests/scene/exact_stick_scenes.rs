//! Exact stick in the scenes (issue 38, SPEC.md §9): the keys `friction.stick` and
//! `friction.eps_d` in 2D and 3D scenes (smoothed the default; a bad ε_d refused naming the key),
//! and the 3D box held on its incline (`cases/box3d_incline.toml` with μ_s = μ_k = 0.5 >
//! tan 20° = 0.364), elastic and affine, which smoothed friction lets creep at
//! v* = ε_v(1 − √(1 − tan θ/μ)) = 47.8 µm/s (SPEC.md §6): with exact stick it moves less than
//! 1 µm in 10 s after it settles.

use std::path::Path;

use stickslip::contact::potentials::friction::StickModel;
use stickslip::energy::Vec3;
use stickslip::run::multibody::solid::SolidRunner;
use stickslip::scene::Override;
use stickslip::scene::multibody::MultibodyScene;
use stickslip::scene::multibody::solid::SolidScene;

fn case(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("cases")
        .join(name)
}

fn overrides(settings: &[&str]) -> Vec<Override> {
    settings
        .iter()
        .map(|s| Override::parse(s).unwrap())
        .collect()
}

#[test]
fn scenes_read_the_stick_keys_in_2d_and_3d() {
    let s = MultibodyScene::load(&case("pulled_block.toml"), &[]).unwrap();
    assert_eq!(s.settings.stick, StickModel::Smoothed);
    // The case turns the smoothed model's stick-zone filter on, which exact stick refuses.
    let s = MultibodyScene::load(
        &case("pulled_block.toml"),
        &overrides(&[
            "newton.stick_filter=false",
            "friction.stick=\"exact\"",
            "friction.eps_d=2e-6",
        ]),
    )
    .unwrap();
    assert_eq!(s.settings.stick, StickModel::Exact { eps_d: 2e-6 });
    let s = SolidScene::load(&case("box3d_incline.toml"), &[]).unwrap();
    assert_eq!(s.settings.stick, StickModel::Smoothed);
    // Absent, ε_d = ε_v h = 10⁻⁴ m/s · 10⁻³ s.
    let s = SolidScene::load(
        &case("box3d_incline.toml"),
        &overrides(&["friction.stick=\"exact\""]),
    )
    .unwrap();
    assert_eq!(s.settings.stick, StickModel::Exact { eps_d: 1e-4 * 1e-3 });
    for (settings, key, rule) in [
        (
            &["friction.stick=\"exact\"", "friction.eps_d=0.5"][..],
            "friction.eps_d",
            "at most barrier.dhat",
        ),
        (
            &["friction.stick=\"exact\"", "friction.eps_d=-1e-6"][..],
            "friction.eps_d",
            "> 0",
        ),
        (&["friction.eps_d=1e-6"][..], "friction.eps_d", "only with"),
    ] {
        let in_2d: Vec<&str> = ["newton.stick_filter=false"]
            .iter()
            .chain(settings)
            .copied()
            .collect();
        let e2 = MultibodyScene::load(&case("pulled_block.toml"), &overrides(&in_2d))
            .expect_err("2D")
            .to_string();
        let e3 = SolidScene::load(&case("box3d_incline.toml"), &overrides(settings))
            .expect_err("3D")
            .to_string();
        for e in [e2, e3] {
            assert!(
                e.contains(&format!("key `{key}`")) && e.contains(rule) && !e.contains('\n'),
                "{settings:?}: {e}"
            );
        }
    }
}

/// Exact stick with the smoothed model's stick-zone filter (which `pulled_block.toml` turns
/// on) is refused naming the filter's key.
#[test]
fn exact_stick_refuses_the_stick_zone_filter() {
    let e = MultibodyScene::load(
        &case("pulled_block.toml"),
        &overrides(&["friction.stick=\"exact\""]),
    )
    .expect_err("refused")
    .to_string();
    assert!(
        e.contains("pulled_block.toml")
            && e.contains("key `newton.stick_filter`")
            && e.contains("cannot be combined"),
        "{e}"
    );
}

/// The largest node move between two states, m.
fn max_move(a: &[Vec3], b: &[Vec3]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(p, q)| (p - q).norm())
        .fold(0.0, f64::max)
}

/// Runs `file` held at μ = 0.5 with `stick` to `end` (s): the largest node move over
/// [settled, end] and the Newton iterations over [0, settled].
fn held(file: &str, stick: &str, settled: f64, end: f64) -> (f64, usize) {
    let duration = format!("time.duration={end}");
    let stick = format!("friction.stick=\"{stick}\"");
    let scene = SolidScene::load(
        &case(file),
        &overrides(&[
            "friction.mu_static=0.5",
            "friction.mu_kinetic=0.5",
            &duration,
            &stick,
        ]),
    )
    .unwrap();
    let mut r = SolidRunner::new(scene, None).unwrap();
    while r.sim.time() < settled - 1e-9 {
        r.step().unwrap();
    }
    let iterations = r.totals.newton_iterations;
    let at_rest = r.sim.x.clone();
    while !r.done() {
        r.step().unwrap();
    }
    (max_move(&r.sim.x, &at_rest), iterations)
}

/// The box held on its incline: after it settles (its start half a d̂ above the plane rings
/// down within the first second, `tests/solid_scenes.rs`; 2 s here) it moves less than 1 µm
/// over the next 10 s with exact stick (the number), elastic (neo-Hookean) and affine;
/// the smoothed model creeps 47.8 µm/s, i.e. ≥ 40 µm over [2, 3] s (measured beside it).
/// Newton iterations over the first 2 s, landing included, within 1.3× the smoothed model's
/// (the number) for the elastic box. The affine box misses it (measured 1.53×,
/// docs/model.md) and is not held to it here: once at rest, the smoothed model's steady creep
/// is predicted exactly by the inertial initial guess, so most of its steps take no iteration,
/// while exact stick's rest sits at Newton's tolerance and takes one every other step.
#[test]
fn the_3d_box_held_on_its_incline_does_not_drift() {
    let (settled, end) = (2.0, 12.0);
    for file in ["box3d_incline.toml", "box3d_affine_incline.toml"] {
        let (exact_drift, exact_iterations) = held(file, "exact", settled, end);
        let (creep, smoothed_iterations) = held(file, "smoothed", settled, settled + 1.0);
        eprintln!(
            "{file}, mu = 0.5: exact moved {exact_drift:.3e} m over [{settled}, {end}] s; smoothed {creep:.3e} m over [{settled}, {}] s; Newton iterations over [0, {settled}] s exact {exact_iterations}, smoothed {smoothed_iterations} ({:.3}x)",
            settled + 1.0,
            exact_iterations as f64 / smoothed_iterations as f64
        );
        assert!(
            exact_drift < 1e-6,
            "{file}: exact stick moved {exact_drift} m"
        );
        assert!(
            creep > 40e-6,
            "{file}: smoothed moved only {creep} m in 1 s"
        );
        if file == "box3d_incline.toml" {
            assert!(
                exact_iterations as f64 <= 1.3 * smoothed_iterations as f64,
                "{file}: Newton iterations exact {exact_iterations} vs smoothed {smoothed_iterations}"
            );
        }
    }
}

/// `summary.json` of a 2D and of a 3D scene says which model ran: `exact_stick.eps_d_m` (m),
/// ε_v·h when `eps_d` is absent (box3d_incline: 10⁻⁴ m/s · 10⁻³ s), and no such key with
/// smoothed friction.
#[test]
fn scene_summaries_name_exact_stick_and_its_eps_d() {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let summary = |file: &str, name: &str, settings: &[&str]| -> serde_json::Value {
        let out = dir.path().join(name);
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_stickslip"));
        cmd.args(["run", root.join(file).to_str().unwrap(), "--gpu", "off"]);
        cmd.args(["--duration", "0.01"]);
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
    for file in [
        "cases/box3d_incline.toml",
        "cases/square_on_slab_on_slope.toml",
    ] {
        let smoothed = summary(file, "smoothed", &[]);
        assert!(smoothed.get("exact_stick").is_none(), "{file}: {smoothed}");
        let given = summary(
            file,
            "given",
            &["friction.stick=exact", "friction.eps_d=3e-8"],
        );
        assert_eq!(
            given["exact_stick"]["eps_d_m"].as_f64(),
            Some(3e-8),
            "{file}"
        );
        std::fs::remove_dir_all(dir.path().join("smoothed")).unwrap();
        std::fs::remove_dir_all(dir.path().join("given")).unwrap();
    }
    let exact = summary(
        "cases/box3d_incline.toml",
        "exact",
        &["friction.stick=exact"],
    );
    assert_eq!(
        exact["exact_stick"]["eps_d_m"].as_f64(),
        Some(1.0e-4 * 1.0e-3)
    );
}

/// A shipped 2D case run to its end with exact stick (the case's stick-zone filter, a smoothed
/// model's option, off).
fn exact_2d(file: &str) -> stickslip::run::multibody::SceneRunner {
    let scene = MultibodyScene::load(
        &case(file),
        &overrides(&["newton.stick_filter=false", "friction.stick=\"exact\""]),
    )
    .unwrap();
    let mut r = stickslip::run::multibody::SceneRunner::new(scene, None).unwrap();
    while !r.done() {
        r.step().unwrap();
    }
    r
}

/// Issue 38's bound on the closed forms of SPEC.md §8 with exact stick (breakaway, the belt's
/// cycle): 0.5 %. What is left besides the model: the force read at the step the slip is seen
/// (the spring grows 1 N/s, 10⁻³ N a step: 0.02 % of 5.9 N), the lagged λ and the elastic
/// block's rocking under the pull.
const CLOSED_FORM_REL_TOL: f64 = 0.005;

/// A block pulled by a spring whose force grows at 1 N/s (`cases/pulled_block.toml`,
/// μ_s = 0.6 > μ_k = 0.4) breaks away at μ_s N = 5.886 N. With exact stick each bottom contact
/// yields in turn as the load spreads through the elastic block; they keep μ_s until the
/// block slides (`return_mapping`), so the block breaks away at μ_s N and not when its first
/// contact yields (measured −16.9 % when a yielding contact dropped to μ_k at once).
#[test]
fn exact_stick_breaks_away_at_mu_s_n() {
    let r = exact_2d("pulled_block.toml");
    let (measured, analytic) = r.breakaway().expect("a breakaway case");
    let measured = measured.expect("the block broke away");
    let err = measured.force_n / analytic.force_n - 1.0;
    eprintln!(
        "breakaway {:.4} N vs mu_s N = {:.4} N ({err:+.2e})",
        measured.force_n, analytic.force_n
    );
    assert!(
        err.abs() < CLOSED_FORM_REL_TOL,
        "breakaway {} N vs μ_s N = {} N",
        measured.force_n,
        analytic.force_n
    );
}

/// The block on the belt (`cases/belt_stick_slip.toml`): the stick–slip cycle's F_max, F_min
/// and period against SPEC.md §8's closed form, each within 0.5 % with exact stick (measured
/// +0.35 %, +0.02 %, +0.34 %; smoothed friction: +0.06 %, +0.81 %, −0.21 %).
///
/// And issue 38's drift bound on a block held by a spring on a belt below breakaway: in each
/// stick phase the block rides the belt while the spring force grows from F_min to F_max <
/// μ_s N. Its contacts' displacement relative to the belt (their slip speed integrated over
/// the phases, the first and last 0.2 s of each left out as the block settles onto the belt
/// and breaks away) is under 1 µm summed over every phase of the 16 s run (about 9 s riding).
/// With exact stick all that may move is the contact springs' stretch, ε_d ΔF/(μ_s N) ≤ ε_d =
/// 0.1 µm a phase (measured 0.07–0.21 µm a phase, 0.47 µm in all); smoothed friction creeps on
/// the belt at up to 74 µm/s as the load grows (69–81 µm a phase).
#[test]
fn exact_stick_keeps_the_belt_cycle_of_the_closed_form() {
    let r = exact_2d("belt_stick_slip.toml");
    let h = r.scene.settings.h;
    let slip: Vec<f64> = r.rows.iter().map(|row| row.bodies[0].slip).collect();
    // Stick phases: runs of rows with a slip speed under 3 ε_v lasting over 0.5 s.
    let riding = |v: f64| v.abs() < 3.0 * r.scene.settings.eps_v;
    let (mut phases, mut start) = (Vec::new(), None);
    for (i, &v) in slip.iter().enumerate() {
        match (riding(v), start) {
            (true, None) => start = Some(i),
            (false, Some(a)) => {
                if (i - a) as f64 * h > 0.5 {
                    phases.push((a, i));
                }
                start = None;
            }
            _ => {}
        }
    }
    let trim = (0.2 / h).round() as usize;
    let moved: f64 = phases
        .iter()
        .map(|&(a, b)| slip[a + trim..b - trim].iter().sum::<f64>() * h)
        .map(f64::abs)
        .sum();
    eprintln!(
        "{} stick phases, contacts moved {moved:e} m relative to the belt",
        phases.len()
    );
    assert!(phases.len() >= 4, "{} stick phases", phases.len());
    assert!(
        moved < 1e-6,
        "the riding block's contacts moved {moved} m relative to the belt"
    );
    let (measured, analytic) = r.stick_slip().expect("a belt case");
    let measured = measured.expect("full cycles").cycle;
    for (what, m, a) in [
        ("F_max", measured.f_max_n, analytic.f_max_n),
        ("F_min", measured.f_min_n, analytic.f_min_n),
        ("period", measured.period_s, analytic.period_s),
    ] {
        eprintln!("{what}: {m:.4} vs {a:.4} ({:+.2e})", m / a - 1.0);
        assert!(
            (m / a - 1.0).abs() < CLOSED_FORM_REL_TOL,
            "{what}: measured {m}, closed form {a}"
        );
    }
}

/// The verdict with each model on the 3D box held on its incline (μ_s = μ_k = 0.5 > tan 20°),
/// run 12 s: smoothed friction is "stopped" by the 5 mm rule while it creeps at
/// v* = 47.8 µm/s (SPEC.md §6), so its drift from the stop to the end is v* times that time
/// (within 5 %: v* is the rigid block's steady creep; the settling after the stop adds a
/// little); with exact stick it is "stopped" only once every node stays within 1 µm a window,
/// and its drift after that is under issue 38's 1 µm.
#[test]
fn the_verdict_reports_the_drift_after_the_stop_with_both_models() {
    let verdict = |stick: &str| {
        let stick = format!("friction.stick=\"{stick}\"");
        let scene = SolidScene::load(
            &case("box3d_incline.toml"),
            &overrides(&[
                "friction.mu_static=0.5",
                "friction.mu_kinetic=0.5",
                "time.duration=12",
                &stick,
            ]),
        )
        .unwrap();
        let mut r = SolidRunner::new(scene, None).unwrap();
        while !r.done() {
            r.step().unwrap();
        }
        let s = r.summary();
        (s.bodies[0].verdict, s.verdict_rule)
    };
    let tan = 20f64.to_radians().tan();
    let creep = 1e-4 * (1.0 - (1.0 - tan / 0.5).sqrt());
    let (smoothed, rule) = verdict("smoothed");
    assert!(!rule.contains("exact stick"), "{rule}");
    match smoothed {
        stickslip::run::verdict::Verdict::Stopped { since, drift, .. } => {
            let expected = creep * (12.0 - since);
            eprintln!(
                "smoothed: stopped at {since} s, drift {drift:e} m, v* (12 - since) = {expected:e} m"
            );
            assert!(
                (drift / expected - 1.0).abs() < 0.05,
                "drift {drift} m vs {expected} m"
            );
        }
        v => panic!("smoothed: {v:?}"),
    }
    let (exact, rule) = verdict("exact");
    assert!(rule.contains("1e-6 m"), "{rule}");
    match exact {
        stickslip::run::verdict::Verdict::Stopped { since, drift, .. } => {
            eprintln!("exact: stopped at {since} s, drift {drift:e} m");
            assert!(since < 11.0, "stopped only at {since} s");
            assert!(drift < 1e-6, "drift {drift} m");
        }
        v => panic!("exact: {v:?}"),
    }
}

/// The five-box stack on its slope (`cases/box_stack_on_slope.toml`: tan θ = 0.2, μ = 0.4,
/// ε_v = 10⁻⁴ m/s) run 14 s, centroid moves over [4, 14] s, after the stack has settled (with
/// exact stick the boxes still move 1–5 µm over [2, 4] s while the placement rings down).
/// Smoothed friction creeps at v* = ε_v(1 − √(1 − tan θ/μ)) = 29.3 µm/s at each interface
/// (SPEC.md §6): the bottom box, on the slope, moves v* · 10 s = 293 µm (within 5 %: the
/// steady creep of a rigid block, the box's elasticity aside). With exact stick every box moves
/// less than issue 38's 1 µm in those 10 s (measured: 0.09 µm for the top box, 1.55 mm smoothed).
#[test]
fn the_five_box_stack_does_not_drift_with_exact_stick() {
    let moves = |stick: &str| -> Vec<f64> {
        let stick = format!("friction.stick=\"{stick}\"");
        let scene = MultibodyScene::load(
            &case("box_stack_on_slope.toml"),
            &overrides(&["newton.stick_filter=false", "time.duration=14", &stick]),
        )
        .unwrap();
        let mut r = stickslip::run::multibody::SceneRunner::new(scene, None).unwrap();
        while !r.done() {
            r.step().unwrap();
        }
        let at = |t: f64| {
            r.rows
                .iter()
                .min_by(|a, b| (a.t - t).abs().total_cmp(&(b.t - t).abs()))
                .unwrap()
        };
        let (a, b) = (at(4.0), at(14.0));
        a.bodies
            .iter()
            .zip(&b.bodies)
            .map(|(p, q)| (q.x - p.x).hypot(q.y - p.y))
            .collect()
    };
    let creep = 1e-4 * (1.0 - (1.0 - 0.2f64 / 0.4).sqrt());
    let smoothed = moves("smoothed");
    let exact = moves("exact");
    eprintln!(
        "over [4, 14] s: smoothed {smoothed:?}, exact {exact:?} m; v* 10 s = {:.3e} m",
        creep * 10.0
    );
    assert_eq!(smoothed.len(), 5);
    assert!(
        (smoothed[0] / (creep * 10.0) - 1.0).abs() < 0.05,
        "smoothed bottom box moved {} m, v* · 10 s = {} m",
        smoothed[0],
        creep * 10.0
    );
    for (k, m) in exact.iter().enumerate() {
        assert!(*m < 1e-6, "exact stick: box {} moved {m} m in 10 s", k + 1);
    }
}
