//! Sweeps over scene cases (`kind = "scene"`, docs/sweeps.md) and the slide-or-tip case
//! (SPEC.md §8, issue 20):
//! * a two-cell sweep of the belt oscillator over the belt's speed (a vector's component axis,
//!   `obstacles.belt.velocity.x`) runs, resumes, and collects into a map.csv whose scene columns
//!   hold each cell's measured cycle beside SPEC.md §8's;
//! * the tall box of `cases/slide_or_tip.toml` stays, slides or tips as the closed form says, in
//!   one cell well inside each region, and in every cell of the shipped `sweeps/slide_or_tip.toml`
//!   farther than 0.02 from the rule's lines; so does the 3D box of `sweeps/slide_or_tip3d.toml`;
//! * bad input (an axis naming an unknown scene key, gravity stated twice, a derived key on a
//!   base case that cannot take it, a slope sweep's directory given to a scene sweep) is exit 2
//!   with one line and nothing written.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_stickslip"))
}

fn case(name: &str) -> String {
    root().join("cases").join(name).display().to_string()
}

/// A sweep file in `dir` over the base case `base` with `body` (set and axes).
fn sweep_file(dir: &Path, name: &str, base: &str, body: &str) -> PathBuf {
    let file = dir.join(name);
    std::fs::write(&file, format!("case = {:?}\n{body}", case(base))).unwrap();
    file
}

fn sweep(file: &Path, out: &Path) -> Output {
    bin()
        .arg("sweep")
        .arg(file)
        .arg("--out")
        .arg(out)
        .arg("--jobs")
        .arg("2")
        .output()
        .unwrap()
}

fn collect(out: &Path) -> Output {
    bin().args(["sweep", "collect"]).arg(out).output().unwrap()
}

/// map.csv as a header and rows of fields (no field of these sweeps holds a comma).
fn map_csv(out: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let text = std::fs::read_to_string(out.join("map.csv")).unwrap();
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
}

fn field<'a>(header: &[String], row: &'a [String], name: &str) -> &'a str {
    let k = header
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no column {name} in {header:?}"));
    &row[k]
}

fn number(header: &[String], row: &[String], name: &str) -> f64 {
    field(header, row, name)
        .parse()
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn a_sweep_over_the_belt_runs_resumes_and_collects_the_cycle_beside_the_closed_form() {
    let tmp = tempfile::tempdir().unwrap();
    // 16 s at v = 0.1 and 0.2 m/s, k = 20 N/m: 3 and 7 full cycles after the first slip.
    let file = sweep_file(
        tmp.path(),
        "belt.toml",
        "belt_stick_slip.toml",
        "set = [\"time.duration=16\"]\n\n[[axis]]\nkey = \"obstacles.belt.velocity.x\"\nvalues = [0.1, 0.2]\n",
    );
    let out = tmp.path().join("out");
    let o = sweep(&file, &out);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let marker = std::fs::read_to_string(out.join(".stickslip-output")).unwrap();
    assert!(
        marker.contains("\"scene\""),
        "the marker names the kind: {marker}"
    );
    let cell: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("cells/c0001.json")).unwrap())
            .unwrap();
    // The component axis sets the whole vector, the other component kept from the base case.
    assert!(
        cell["overrides"]
            .as_array()
            .unwrap()
            .iter()
            .any(|o| o == "obstacles.belt.velocity=[0.2, 0.0]"),
        "{cell}"
    );
    // A rerun finds both cells finished and runs none.
    let again = sweep(&file, &out);
    let log = String::from_utf8_lossy(&again.stderr);
    assert!(again.status.success(), "{log}");
    assert!(log.contains("ran 0 (0 failed), skipped 2"), "{log}");

    let c = collect(&out);
    assert!(c.status.success(), "{}", String::from_utf8_lossy(&c.stderr));
    assert!(out.join("map.png").is_file());
    let (header, rows) = map_csv(&out);
    assert_eq!(
        header[..5],
        [
            "cell",
            "obstacles.belt.velocity.x",
            "status",
            "block.verdict",
            "slide_or_tip"
        ]
    );
    assert_eq!(rows.len(), 2);
    for (row, v) in rows.iter().zip([0.1, 0.2]) {
        assert_eq!(field(&header, row, "status"), "done");
        // Not a lone box on an incline: no slide-or-tip fields.
        assert_eq!(field(&header, row, "slide_or_tip"), "");
        // SPEC.md §8 with m = 1 kg, N = 9.81 N, mu_s = 0.6, mu_k = 0.4, k = 20 N/m:
        // F_max = 5.886 N, F_min = 1.962 N, t_stick = 3.924 N / (20 N/m v), and
        // t_slip = (pi + 2 atan(v / (omega A0)))/omega, omega = sqrt(20), A0 = 0.0981 m.
        let omega = 20f64.sqrt();
        let t_stick = 3.924 / (20.0 * v);
        let t_slip = (std::f64::consts::PI + 2.0 * (v / (omega * 0.0981)).atan()) / omega;
        let analytic = [
            ("f_max_N", 5.886),
            ("f_min_N", 1.962),
            ("t_stick_s", t_stick),
            ("t_slip_s", t_slip),
            ("period_s", t_stick + t_slip),
        ];
        for (name, a) in analytic {
            let closed = number(&header, row, &format!("{name}_analytic"));
            assert!((closed / a - 1.0).abs() < 1e-9, "{name}: {closed} vs {a}");
            // The measured cycle: within the 2 % of issue 20's goal (cases/belt_stick_slip.toml,
            // tests/scene/scene_cases.rs measure it at the shipped settings).
            let measured = number(&header, row, name);
            assert!(
                (measured / a - 1.0).abs() < 0.02,
                "v = {v}: {name} {measured} vs {a}"
            );
        }
        assert!(number(&header, row, "cycles") >= 2.0);
    }
}

/// `stickslip run cases/slide_or_tip.toml` with `settings`; its summary.json.
fn run_box(out: &Path, settings: &[&str]) -> Value {
    let mut cmd = bin();
    cmd.arg("run")
        .arg(case("slide_or_tip.toml"))
        .arg("--out")
        .arg(out);
    for s in settings {
        cmd.arg("--set").arg(s);
    }
    let o = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(stdout.contains("slide or tip (SPEC.md §8)"), "{stdout}");
    serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap()
}

#[test]
fn the_tall_box_stays_slides_or_tips_as_the_closed_form_says() {
    // The box: w = 0.1 m, b = 0.2 m, w/b = 0.5; mu_s = mu_k = mu. Derivation (rigid box, centre
    // of mass at its centre): at rest, friction m g sin(theta) and normal force m g cos(theta)
    // balance the weight; moments about the centre of mass put the normal force
    // tan(theta) b/2 downhill of the base's middle, inside the base iff tan(theta) <= w/b; it
    // sticks iff tan(theta) <= mu. Sliding, friction is mu N and the normal force sits mu b/2
    // downhill, inside the base iff mu <= w/b whatever theta. So: stay if
    // tan(theta) <= min(mu, w/b), else slide if mu < w/b, else tip.
    // One cell well inside each region (at least 0.2 in tan(theta) and mu from every line):
    let cells = [
        ("stay", 0.2, 0.8),  // tan 0.2 < min(0.8, 0.5)
        ("slide", 0.7, 0.2), // tan 0.7 > mu = 0.2, mu < 0.5
        ("tip", 0.8, 0.9),   // tan 0.8 > w/b = 0.5 and tan 0.8 < mu: it cannot slide, it tips
    ];
    let tmp = tempfile::tempdir().unwrap();
    for (k, (expected, tan_theta, mu)) in cells.iter().enumerate() {
        let theta = format!("gravity.incline_deg={}", f64::atan(*tan_theta).to_degrees());
        let friction = format!("friction.mu={mu}");
        let s = run_box(&tmp.path().join(format!("run{k}")), &[&theta, &friction]);
        let analytic = &s["slide_or_tip_analytic"];
        assert_eq!(analytic["outcome"], *expected, "{s}");
        assert!((analytic["tan_theta"].as_f64().unwrap() - tan_theta).abs() < 1e-12);
        assert!((analytic["w_over_b"].as_f64().unwrap() - 0.5).abs() < 1e-12);
        let measured = &s["slide_or_tip"];
        assert_eq!(
            measured["outcome"], *expected,
            "tan {tan_theta}, mu {mu}: {s}"
        );
        let rotation = measured["max_rotation_deg"].as_f64().unwrap();
        let moved = measured["displacement_m"].as_f64().unwrap();
        match *expected {
            // Rotation and displacement far from the thresholds (10 degrees, 0.1 w = 10 mm).
            "stay" => assert!(rotation < 1.0 && moved.abs() < 2e-3, "{s}"),
            "slide" => {
                // a = g (sin - mu cos) for 1 s from rest: x = a/2, less the short settling.
                let t = f64::atan(*tan_theta);
                let x = 0.5 * 9.81 * (t.sin() - mu * t.cos());
                assert!(rotation < 1.0, "{s}");
                assert!((moved / x - 1.0).abs() < 0.1, "{moved} vs {x}");
            }
            _ => assert!(rotation > 45.0, "{s}"),
        }
    }
}

/// Asserts exit 2, one line holding every one of `needles`, and nothing in `dir` but `keep`.
fn refused(o: &Output, dir: &Path, keep: &[&Path], needles: &[&str]) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    for n in needles {
        assert!(err.contains(n), "{n:?} in {err}");
    }
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        assert!(keep.contains(&p.as_path()), "{} was written", p.display());
    }
}

#[test]
fn bad_scene_sweeps_and_gravity_given_twice_exit_2_and_write_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let check = |name: &str, base: &str, body: &str, needles: &[&str]| {
        let file = sweep_file(tmp.path(), name, base, body);
        refused(&sweep(&file, &out), tmp.path(), &[&file], needles);
        std::fs::remove_file(&file).unwrap();
    };
    check(
        "unknown.toml",
        "belt_stick_slip.toml",
        "[[axis]]\nkey = \"drivers.spring.stifness\"\nvalues = [10.0, 20.0]\n",
        &[
            "unknown.toml",
            "axis 1 `drivers.spring.stifness`",
            "stifness",
        ],
    );
    // gravity.tan_theta sets gravity.incline_deg: the belt states gravity.acceleration.
    check(
        "tilt.toml",
        "belt_stick_slip.toml",
        "[[axis]]\nkey = \"gravity.tan_theta\"\nvalues = [0.1, 0.2]\n",
        &[
            "axis 1 `gravity.tan_theta`",
            "gravity.incline_deg",
            "not both",
        ],
    );
    // Two axes on the two components of one vector: one quantity.
    check(
        "twice.toml",
        "belt_stick_slip.toml",
        "[[axis]]\nkey = \"obstacles.belt.velocity.x\"\nvalues = [0.1, 0.2]\n\n[[axis]]\nkey = \"obstacles.belt.velocity.y\"\nvalues = [0.0]\n",
        &["axis 2 `obstacles.belt.velocity.y`", "same case quantity"],
    );
    check(
        "mu.toml",
        "slide_or_tip.toml",
        "[[axis]]\nkey = \"friction.mu\"\nvalues = [0.3, -0.1]\n",
        &["axis 1 `friction.mu`", "value -0.1"],
    );
    // In 3D gravity.tan_theta turns the base gravity towards its fall line: the puck's gravity
    // is level (no fall line), and a negative tan theta is no incline.
    check(
        "level3d.toml",
        "puck_spin.toml",
        "[[axis]]\nkey = \"gravity.tan_theta\"\nvalues = [0.1, 0.2]\n",
        &[
            "axis 1 `gravity.tan_theta`",
            "value 0.1",
            "fall line",
            "g . n < 0",
        ],
    );
    check(
        "negative3d.toml",
        "slide_or_tip3d.toml",
        "[[axis]]\nkey = \"gravity.tan_theta\"\nvalues = [0.1, -0.2]\n",
        &["axis 1 `gravity.tan_theta`", "value -0.2", "at least 0"],
    );
    // An axis that turns the half-space the 3D tilt is measured against.
    check(
        "turned3d.toml",
        "slide_or_tip3d.toml",
        "[[axis]]\nkey = \"gravity.tan_theta\"\nvalues = [0.1, 0.2]\n\n[[axis]]\nkey = \"obstacles.floor.normal.x\"\nvalues = [0.0, 0.0001]\n",
        &[
            "axis 2 `obstacles.floor.normal.x`",
            "turns obstacles.floor",
            "axis 1 `gravity.tan_theta`",
        ],
    );
    // A component of the 3D gravity (`KEY.z` of a 3-vector) beside gravity.tan_theta, which
    // sets the whole vector: one case quantity.
    check(
        "z3d.toml",
        "slide_or_tip3d.toml",
        "[[axis]]\nkey = \"gravity.acceleration.z\"\nvalues = [-9.0]\n\n[[axis]]\nkey = \"gravity.tan_theta\"\nvalues = [0.1]\n",
        &[
            "axis 2 `gravity.tan_theta`",
            "same case quantity",
            "gravity.acceleration",
        ],
    );

    // The case itself: gravity stated twice, a magnitude without an incline, an incline of 90.
    let run = |setting: &str| {
        bin()
            .arg("run")
            .arg(case("slide_or_tip.toml"))
            .arg("--out")
            .arg(&out)
            .args(["--set", setting])
            .output()
            .unwrap()
    };
    refused(
        &run("gravity.acceleration=[0.0, -9.81]"),
        tmp.path(),
        &[],
        &["slide_or_tip.toml", "gravity.incline_deg", "not both"],
    );
    refused(
        &run("gravity.incline_deg=90"),
        tmp.path(),
        &[],
        &["gravity.incline_deg", "[0, 90)"],
    );
    refused(
        &run("friction.mu_static=0.5"),
        tmp.path(),
        &[],
        &["friction.mu", "either mu alone"],
    );

    // A slope sweep's directory is not a scene sweep's: refused, nothing of it changed.
    let slope = sweep_file(
        tmp.path(),
        "slope.toml",
        "slope_mu0.11.toml",
        "set = [\"time.duration=0.05\"]\n\n[[axis]]\nkey = \"friction.mu\"\nvalues = [0.1]\n",
    );
    let o = sweep(&slope, &out);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let before = std::fs::read_to_string(out.join("sweep.json")).unwrap();
    let scene = sweep_file(
        tmp.path(),
        "scene.toml",
        "slide_or_tip.toml",
        "set = [\"time.duration=0.05\"]\n\n[[axis]]\nkey = \"friction.mu\"\nvalues = [0.1]\n",
    );
    let o = sweep(&scene, &out);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("holds another sweep"), "{err}");
    assert_eq!(
        std::fs::read_to_string(out.join("sweep.json")).unwrap(),
        before
    );
    assert_eq!(std::fs::read_dir(out.join("cells")).unwrap().count(), 1);
}

/// Runs the shipped slide-or-tip sweep `file` (16 × 17 cells over tan θ = 0.125 … 0.875 and
/// μ = 0.1 … 0.9, a tall box of w/b = 0.5 with μ_s = μ_k = μ) and checks every cell farther
/// than 0.02 from the rule's lines against the rule, derived in
/// the_tall_box_stays_slides_or_tips_as_the_closed_form_says and computed here from the axes
/// alone: stay if tan θ ≤ min(μ, w/b), else slide if μ < w/b, else tip.
fn every_graded_cell_is_on_the_right_side(file: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let o = sweep(&root().join(file), &out);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let c = collect(&out);
    let report = String::from_utf8_lossy(&c.stdout);
    assert!(c.status.success(), "{report}");
    let (header, rows) = map_csv(&out);
    assert_eq!(rows.len(), 16 * 17);
    let w_over_b = 0.5;
    let mut graded = 0;
    for row in &rows {
        let t = number(&header, row, "gravity.tan_theta");
        let mu = number(&header, row, "friction.mu");
        let expected = if t <= mu.min(w_over_b) {
            "stay"
        } else if mu < w_over_b {
            "slide"
        } else {
            "tip"
        };
        assert_eq!(
            field(&header, row, "slide_or_tip_analytic"),
            expected,
            "{row:?}"
        );
        // Distance from the lines that bound the cell's region.
        let mut margin = (t - mu).abs().min((t - w_over_b).abs());
        if t > mu {
            margin = margin.min((mu - w_over_b).abs());
        }
        if margin > 0.02 {
            graded += 1;
            assert_eq!(
                field(&header, row, "slide_or_tip"),
                expected,
                "{file}: tan theta {t}, mu {mu}: {row:?}"
            );
        }
        // Every cell ran the impulse-law cross-check over its contacts; where the box slides
        // every contact slips, the regime SPEC.md §4's floor (98 % of the approaching records
        // agree on stick or slide) is stated for.
        let agreement = number(&header, row, "agreement");
        assert!((0.0..=1.0).contains(&agreement), "{row:?}");
        if field(&header, row, "slide_or_tip") == "slide" {
            assert!(agreement >= 0.98, "{file}: tan theta {t}, mu {mu}: {row:?}");
        }
    }
    assert_eq!(graded, 264);
    assert!(
        report
            .contains("of the 264 cells farther than 0.02 from every line, 264 right and 0 wrong"),
        "{report}"
    );
    assert!(out.join("map.png").is_file());
}

#[test]
fn the_shipped_slide_or_tip_map_puts_every_cell_outside_the_lines_margin_on_the_right_side() {
    // sweeps/slide_or_tip.toml: 272 cells of 1 s (about 3 s on 2 threads).
    every_graded_cell_is_on_the_right_side("sweeps/slide_or_tip.toml");
}

#[test]
fn the_shipped_3d_slide_or_tip_map_puts_every_cell_outside_the_lines_margin_on_the_right_side() {
    // sweeps/slide_or_tip3d.toml: the same grid for the tetrahedral box of
    // cases/slide_or_tip3d.toml, its gravity turned by gravity.tan_theta (272 cells of 1 s,
    // about 45 s on 2 threads). With the case's former d-hat = 1e-4 m the nine cells
    // tan theta = 0.475, mu >= 0.5 tipped here (docs/sweeps.md).
    every_graded_cell_is_on_the_right_side("sweeps/slide_or_tip3d.toml");
}

#[test]
fn the_shipped_puck_sweep_stops_slide_and_spin_together_and_draws_the_ratio_towards_its_limit() {
    // sweeps/puck_spin.toml: the puck of cases/puck_spin.toml (R = 0.1 m, omega_0 = 10 rad/s,
    // so R omega_0 = 1 m/s) launched at v_0 = 0.25 ... 3 m/s, 7 cells of 2.2 s (about 8 s on
    // 2 threads). SPEC.md §8: sliding and spinning on a uniform patch are coupled so that both
    // stop at once and v/(R omega) tends to 0.653 as they do, whatever the launch.
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let o = sweep(&root().join("sweeps/puck_spin.toml"), &out);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let c = collect(&out);
    assert!(c.status.success(), "{}", String::from_utf8_lossy(&c.stderr));
    let (header, rows) = map_csv(&out);
    assert_eq!(rows.len(), 7);
    let limit = 0.653;
    for row in &rows {
        let v0 = number(&header, row, "bodies.puck.velocity.x");
        let launch = v0 / (0.1 * 10.0);
        assert!((number(&header, row, "launch_ratio") - launch).abs() < 1e-12);
        assert_eq!(number(&header, row, "spin_slide_ratio_analytic"), limit);
        // Stop times are read as the first sample after which each speed stays under 1e-3 of
        // its start: on the h = 1 ms grid, so "together" is within a sample either way.
        let (slide, spin) = (
            number(&header, row, "slide_stop_s"),
            number(&header, row, "spin_stop_s"),
        );
        assert!(
            (slide - spin).abs() <= 2e-3 + 1e-12,
            "v0 {v0}: {slide} {spin}"
        );
        // Drawn towards the limit from the launch's side, never past it: what coupling does
        // and two independent decelerations (the ratio then runs to 0 or infinity) do not.
        if (launch - limit).abs() > 1e-9 {
            let r = number(&header, row, "spin_slide_ratio");
            assert!((r - limit).abs() < (launch - limit).abs(), "v0 {v0}: {r}");
            assert_eq!(r > limit, launch > limit, "v0 {v0}: {r}");
        }
        assert_eq!(field(&header, row, "puck.verdict"), "stopped", "{row:?}");
    }
    assert!(out.join("map.png").is_file());
}
