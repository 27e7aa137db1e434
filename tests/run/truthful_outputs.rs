//! Outputs that tell the truth (issue 41 item 3, `crates/stickslip-sim/src/run/physical.rs`): a scene whose body
//! turned inside out or penetrated is exit 3 with a `not physical:` line per body and
//! `"physical": false` in `summary.json`; the summary's smallest distance is the trajectory's;
//! a body that stays but spins has not stopped; a spin of more than 0.2 rad a step is a
//! warning. The cases are in tests/data/unphysical/ (each runs in well under a second).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use stickslip::run::physical::{NOT_PHYSICAL_EXIT_CODE, SPIN_PER_STEP_BOUND_RAD};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/unphysical")
        .join(name)
}

/// `stickslip run CASE --gpu off --out DIR/out`: the output, `summary.json` and the smallest
/// value of every `*.min_distance_m` column of `trajectory.csv` (read here, independently of
/// the program's own reading).
fn run(case: &Path, dir: &Path) -> (Output, serde_json::Value, f64) {
    let out = dir.join("out");
    let o = Command::new(env!("CARGO_BIN_EXE_stickslip"))
        .args(["run", case.to_str().unwrap(), "--gpu", "off", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let csv = std::fs::read_to_string(out.join("trajectory.csv")).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let columns: Vec<usize> = (0..header.len())
        .filter(|&i| header[i].ends_with(".min_distance_m"))
        .collect();
    assert!(!columns.is_empty(), "{header:?}");
    let mut min = f64::INFINITY;
    for line in lines {
        let f: Vec<&str> = line.split(',').collect();
        for &i in &columns {
            min = min.min(f[i].parse::<f64>().unwrap());
        }
    }
    (o, summary, min)
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// A neo-Hookean box at E = 30 Pa turns inside out and its interior nodes fall through the
/// incline while every step converges: exit 3, both lines on stdout, one error line on
/// stderr, `"physical": false` with the body, its count and times, and the summary's smallest
/// distance is the trajectory's (−0.13 m; it was +5e−8 m, the boundary pairs' alone, with exit
/// 0 and nothing printed).
#[test]
fn a_body_that_inverts_and_penetrates_is_exit_3_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let (o, s, trajectory_min) = run(&data("soft_box3d.toml"), dir.path());
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(NOT_PHYSICAL_EXIT_CODE), "{out}{err}");
    assert!(
        out.contains("not physical: box turned inside out: up to 97 of its 162 tetrahedra inverted at the end of a step, the first at t = 0.086 s\n"),
        "{out}"
    );
    assert!(
        out.contains("not physical: box penetrated: its distance went below 0 at t = 0.087 s"),
        "{out}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains(
            "the run completed but its result is not physical (box inverted, box penetrated)"
        ),
        "{err}"
    );
    assert!(out.contains("wrote "), "the outputs are written: {out}");
    assert_eq!(s["physical"], false);
    assert_eq!(s["inverted"][0]["body"], "box");
    assert_eq!(s["inverted"][0]["elements"], 97);
    assert_eq!(s["inverted"][0]["of"], 162);
    assert_eq!(s["penetrated"][0]["body"], "box");
    let min = s["solver"]["min_distance"].as_f64().unwrap();
    assert!(trajectory_min < -0.1, "{trajectory_min}");
    assert_eq!(min, trajectory_min);
    assert_eq!(s["penetrated"][0]["min_distance_m"].as_f64(), Some(min));
    // Every key the summary had is still there.
    for key in [
        "case",
        "h",
        "duration",
        "bodies",
        "verdict_rule",
        "solver",
        "wall_seconds",
    ] {
        assert!(s.get(key).is_some(), "{key}");
    }
}

/// An affine box at κ = 1e−3 Pa (3D) and a mass-spring box at 1 N/m (2D) turn inside out:
/// exit 3 and the line, though no node penetrates (they were exit 0, nothing printed).
#[test]
fn an_inverted_affine_or_2d_body_is_exit_3() {
    for (case, line) in [
        (
            "soft_affine_box.toml",
            "not physical: box turned inside out: up to 24 of its 24 tetrahedra inverted at the end of a step, the first at t = 0.12 s\n",
        ),
        (
            "soft_box2d.toml",
            "not physical: box turned inside out: up to 16 of its 32 triangles inverted at the end of a step, the first at t = 0.108 s\n",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let (o, s, trajectory_min) = run(&data(case), dir.path());
        let (out, err) = text(&o);
        assert_eq!(
            o.status.code(),
            Some(NOT_PHYSICAL_EXIT_CODE),
            "{case}: {out}{err}"
        );
        assert!(out.contains(line), "{case}: {out}");
        assert!(!out.contains("penetrated"), "{case}: {out}");
        assert!(err.contains("(box inverted)"), "{case}: {err}");
        assert_eq!(s["physical"], false, "{case}");
        assert!(s.get("penetrated").is_none(), "{case}");
        assert_eq!(s["solver"]["min_distance"].as_f64(), Some(trajectory_min));
    }
}

/// A physical run (the shipped 2D slide-or-tip box and 3D pulled block, shortened) is exit 0,
/// prints no such line, its summary has none of the new keys, and its smallest distance is
/// the trajectory's.
#[test]
fn a_physical_run_is_exit_0_and_its_summary_unchanged() {
    for case in ["cases/slide_or_tip.toml", "cases/pulled_block3d.toml"] {
        let dir = tempfile::tempdir().unwrap();
        let src =
            std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(case)).unwrap();
        let short = dir.path().join("short.toml");
        let at = src.find("\nduration = ").unwrap() + 1;
        let end = at + src[at..].find('\n').unwrap();
        std::fs::write(
            &short,
            format!("{}duration = 0.2{}", &src[..at], &src[end..]),
        )
        .unwrap();
        let (o, s, trajectory_min) = run(&short, dir.path());
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(0), "{case}: {out}{err}");
        assert!(
            !out.contains("not physical") && !out.contains("warning"),
            "{out}"
        );
        for key in ["physical", "inverted", "penetrated", "fast_spin"] {
            assert!(s.get(key).is_none(), "{case}: {key}");
        }
        assert_eq!(s["solver"]["min_distance"].as_f64(), Some(trajectory_min));
    }
}

/// A puck launched spinning at 10 rad/s on a floor of μ = 0.01 stays where it is but still
/// spins at about 9 rad/s after 1 s: "spinning in place", not "stopped at t = 1.00 s" (the
/// verdict read the centroid only).
#[test]
fn a_body_that_stays_but_spins_has_not_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let (o, s, _) = run(&data("puck_spinning_in_place.toml"), dir.path());
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    let v = &s["bodies"][0]["verdict"];
    assert_eq!(v["state"], "spinning", "{v}");
    let w = v["angular_speed"].as_f64().unwrap();
    assert!((8.0..10.0).contains(&w), "{w}");
    assert!(out.contains("spinning in place ("), "{out}");
    assert!(!out.contains("stopped"), "{out}");
    assert!(
        s["verdict_rule"]
            .as_str()
            .unwrap()
            .contains("mean angular speed about its centroid under 0.05 rad/s"),
        "{}",
        s["verdict_rule"]
    );
}

/// A puck launched at 1000 rad/s with h = 1 ms turns 1 rad a step: a one-line warning naming
/// the body, the rate and the bound, the same in `summary.json` (`fast_spin`), and exit 0 (a
/// damped spin is not an unphysical state). Before, nothing was said.
#[test]
fn a_spin_past_the_bound_is_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let (o, s, _) = run(&data("fast_spin3d.toml"), dir.path());
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    let warnings: Vec<&str> = out.lines().filter(|l| l.starts_with("warning:")).collect();
    assert_eq!(warnings.len(), 1, "{out}");
    assert!(
        warnings[0].starts_with(
            "warning: puck spins at 1000.000 rad/s at t = 0 s: |omega| h = 1.000 rad per step exceeds 0.2 rad"
        ),
        "{}",
        warnings[0]
    );
    let f = &s["fast_spin"][0];
    assert_eq!(f["body"], "puck");
    assert!(
        (f["omega_h_rad"].as_f64().unwrap() - 1.0).abs() < 1e-9,
        "{f}"
    );
    assert_eq!(f["bound_rad"].as_f64(), Some(SPIN_PER_STEP_BOUND_RAD));
    assert_eq!(f["time_s"].as_f64(), Some(0.0));
    assert!(s.get("physical").is_none(), "a warning, not unphysical");
}
