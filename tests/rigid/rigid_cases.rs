//! The shipped rigid cases (SPEC.md §5): the football bounces until its impacts accumulate, as
//! its summary says,
//! no impact of the energy-safe model gains energy, the seed's model runs to the end, the
//! torque-free ellipsoid flips and keeps its energy and momentum; and the CLI runs them.

use std::path::{Path, PathBuf};
use std::process::Command;

use nalgebra::Vector3;
use stickslip::rigid::case::RigidScene;
use stickslip::rigid::run::{Ending, simulate};

fn case(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("cases")
        .join(name)
}

#[test]
fn football_bounces_until_its_impacts_accumulate_and_never_gains_energy() {
    let scene = RigidScene::load(&case("football.toml")).expect("loads");
    let (_, settings) = scene.ground.expect("has ground");
    let run = simulate(&scene, None).expect("runs");
    let s = &run.summary;
    println!("{}", serde_json::to_string_pretty(s).unwrap());
    assert!(s.impacts >= 3, "it bounces: {} impacts", s.impacts);
    assert_eq!(s.fallback_impacts, 0);
    for e in &run.events {
        // Rounding of the kinetic energy (≈ 10 J here): 1e-12 relative.
        assert!(
            e.kinetic_energy_change <= 1e-12 * 10.0,
            "impact at {} gains",
            e.t
        );
        assert!(e.normal_speed_after >= 0.0);
    }
    assert_eq!(s.largest_energy_gain, 0.0);
    match s.ended {
        Ending::ImpactsAccumulate {
            t,
            accumulation_time,
            ratio,
            approach_speed,
            speed,
            spin,
        } => {
            // The impacts accumulated: the last impact approached slower than the rest speed,
            // every earlier one faster, and the run stops there.
            let last = run.events.last().expect("impacts");
            assert_eq!(last.t, t);
            assert!(approach_speed < settings.rest_speed);
            assert!(
                run.events[..run.events.len() - 1]
                    .iter()
                    .all(|e| -e.normal_speed_before >= settings.rest_speed)
            );
            let end = run.rows.last().unwrap();
            assert_eq!(end.t, t);
            // On the ground: the lowest point within 1 mm of it.
            assert!(end.distance < 1e-3);
            // But not at rest: the speed and spin reported are the final state's, and the ball
            // still rolls (issue 23: it used to be called "settled" here).
            assert_eq!(speed, end.state.world_velocity().norm());
            assert_eq!(spin, end.state.omega().norm());
            assert!(
                speed > settings.rest_speed && spin > 1.0,
                "{speed} m/s, {spin} rad/s"
            );
            // The approach speeds shrink geometrically, so the impacts have a limit in time,
            // after the last one.
            let r = ratio.expect("two impacts at least");
            assert!(r > 0.0 && r < 1.0, "{r}");
            assert!(accumulation_time.expect("a limit") > t);
        }
        other => panic!(
            "the shipped football's impacts are expected to accumulate within its 6 s while it still rolls: {other}"
        ),
    }
    // Between impacts only the integrator changes the energy: at h = 1e-3 and |ω| ≈ 10 rad/s a
    // fourth-order step errs by ~(|ω|h)⁵ ≈ 1e-10 of the energy (measured: 7e-10 at most).
    assert!(
        s.largest_flight_energy_drift < 1e-8 * s.energy_initial,
        "{}",
        s.largest_flight_energy_drift
    );
    assert!(s.energy_final < s.energy_initial);
    // Never below the ground by more than the bisection tolerance's worth at 20 m/s.
    assert!(s.min_distance.unwrap() >= -20.0 * settings.bisection_tolerance);
    // The bound of the integrator test (1e-12 over 1e5 steps); this run has 6e3.
    assert!(s.max_orthonormality_error < 1e-12);
}

#[test]
fn football_with_the_seed_model_runs_to_the_end() {
    let scene = RigidScene::load(&case("football_seed.toml")).expect("loads");
    let run = simulate(&scene, None).expect("runs");
    let s = &run.summary;
    println!(
        "seed model: {} impacts, ended {}, largest gain {:.3e} J",
        s.impacts, s.ended, s.largest_energy_gain
    );
    assert!(s.impacts >= 3);
    // μ = ∞: every impact sticks and leaves no tangential contact velocity.
    for e in &run.events {
        assert_eq!(e.mode, stickslip::rigid::impact::ContactMode::Stick);
        assert!(e.tangential_speed_after <= 1e-12 * (1.0 + e.tangential_speed_before));
    }
}

#[test]
fn torque_free_case_flips_and_conserves() {
    let scene = RigidScene::load(&case("football_torque_free.toml")).expect("loads");
    let run = simulate(&scene, None).expect("runs");
    assert_eq!(run.summary.impacts, 0);
    let first = run.rows[0];
    let (ke0, l0) = (first.kinetic, first.angular_momentum);
    let y0 = first.state.pose.r * Vector3::y();
    let mut flipped = false;
    for r in &run.rows {
        // h = 1e-3 over 10 s: drift ~1e-12 relative (the convergence tests measure ~h⁴).
        assert!((r.kinetic - ke0).abs() <= 1e-9 * ke0);
        assert!((r.angular_momentum - l0).abs() <= 1e-9 * l0);
        flipped |= (r.state.pose.r * Vector3::y()).dot(&y0) < -0.9;
    }
    assert!(
        flipped,
        "spun near the intermediate axis, the body flips over"
    );
}

#[test]
fn cli_runs_a_rigid_case_and_refuses_bad_ones() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("football");
    let bin = env!("CARGO_BIN_EXE_stickslip");
    let status = Command::new(bin)
        .args(["run", case("football.toml").to_str().unwrap(), "--out"])
        .arg(&out)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&status.stdout);
    println!("{stdout}");
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    assert!(stdout.contains("impacts accumulate"), "{stdout}");
    for f in ["trajectory.csv", "events.csv", "summary.json"] {
        assert!(out.join(f).is_file(), "{f}");
    }
    let trajectory = std::fs::read_to_string(out.join("trajectory.csv")).unwrap();
    assert_eq!(
        trajectory.lines().next().unwrap(),
        stickslip::rigid::run::TRAJECTORY_HEADER
    );
    let events = std::fs::read_to_string(out.join("events.csv")).unwrap();
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(
        events.lines().count() - 1,
        summary["impacts"].as_u64().unwrap() as usize
    );

    let text = std::fs::read_to_string(case("football.toml")).unwrap();
    for (bad, key) in [
        (text.replace("mu = 0.4 ", "mu = \"infinite\" "), "impact.mu"),
        (
            text.replace("restitution = 0.6", "restitution = 1.5"),
            "impact.restitution",
        ),
        (
            text.replace("mass = 0.41", "mass = 0.41\ncolour = 1"),
            "body",
        ),
        (
            text.replace("position = [0.0, 0.0, 1.8]", "position = [0.0, 0.0, 0.05]"),
            "initial.position",
        ),
        (text.replace("mu = 0.4 ", "mu = \"inf\" "), "impact.mu"),
        (
            text.replace("kind = \"rigid_ellipsoid\"", "kind = \"rigid_elipsoid\""),
            "`kind`",
        ),
        (
            text.replace(
                "angle = -0.5",
                "angle = -0.5\nquaternion = [1.0, 0.0, 0.0, 0.0]",
            ),
            "initial.quaternion",
        ),
        (text.replace("[ground]", "[groundx]"), "groundx"),
        // Issue 7's bounds hold for rigid cases too: h = 1e-300 used to run for ever.
        (text.replace("h = 1e-3 ", "h = 1e-300 "), "time.h"),
    ] {
        let file = dir.path().join("bad.toml");
        std::fs::write(&file, &bad).unwrap();
        let bad_out = dir.path().join("bad_out");
        let o = Command::new(bin)
            .args(["run", file.to_str().unwrap(), "--out"])
            .arg(&bad_out)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.contains(key), "{key}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(!bad_out.exists());
    }
    // --tol belongs to the slope solver.
    let o = Command::new(bin)
        .args([
            "run",
            case("football.toml").to_str().unwrap(),
            "--tol",
            "0.1",
            "--out",
        ])
        .arg(dir.path().join("x"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    // So is a --duration of absurdly many steps, before anything runs.
    let o = Command::new(bin)
        .args([
            "run",
            case("football.toml").to_str().unwrap(),
            "--duration",
            "1e300",
            "--out",
        ])
        .arg(dir.path().join("long"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("--duration") && err.contains("steps"), "{err}");
    assert!(!dir.path().join("long").exists());
    // A slope case may say its kind (the default) and runs as before.
    let slope = std::fs::read_to_string(case("slope_mu0.11.toml")).unwrap();
    let file = dir.path().join("slope.toml");
    std::fs::write(&file, format!("kind = \"slope_square\"\n{slope}")).unwrap();
    let o = Command::new(bin)
        .args([
            "run",
            file.to_str().unwrap(),
            "--gpu",
            "off",
            "--duration",
            "0.1",
            "--out",
        ])
        .arg(dir.path().join("slope_out"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // A slope case with an unknown kind is refused, naming `kind`.
    let slope = std::fs::read_to_string(case("slope_mu0.11.toml")).unwrap();
    let file = dir.path().join("kind.toml");
    std::fs::write(&file, format!("kind = \"cube\"\n{slope}")).unwrap();
    let o = Command::new(bin)
        .args(["run", file.to_str().unwrap(), "--gpu", "off", "--out"])
        .arg(dir.path().join("y"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("`kind`"), "{err}");
}
