//! 3D scenes (issue 21, first installment) against their closed forms, derived here from the
//! case files' own values and measured from `trajectory.csv` (not from the runner's summary,
//! which is checked to agree), and the 3D scene's bad input. The binary is run as a user runs it.
//!
//! * A box on an incline of angle θ (cases/box3d_incline.toml): sliding from rest with
//!   μ < tan θ, N = m g cos θ, kinetic friction μ N up the fall line and the weight's m g sin θ
//!   down it: a = g (sin θ − μ cos θ). Held (μ > tan θ), smoothed friction creeps at the speed
//!   y where its force μ N f₁(y) balances m g sin θ, f₁(y) = 2y/ε_v − y²/ε_v² below ε_v:
//!   y² − 2 ε_v y + ε_v² tan θ/μ = 0, v* = ε_v (1 − √(1 − tan θ/μ)) (SPEC.md §6).
//! * A puck of radius R on a level plane (cases/puck_spin.toml), uniform pressure N/(π R²):
//!   sliding alone, friction μ m g decelerates it uniformly, t = v₀/(μ g); spinning alone, the
//!   torque ∫ μ (N/(π R²)) r dA = ⅔ μ N R against I = ½ m R² decelerates ω at 4 μ g/(3 R),
//!   t = 3 R ω₀/(4 μ g); both, they stop together with v/(R ω) → 0.653 (SPEC.md §8).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

const G: f64 = 9.81;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn run(case: &Path, out: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_stickslip"))
        .arg("run")
        .arg(case)
        .args(["--gpu", "off", "--out"])
        .arg(out)
        .args(args)
        .output()
        .unwrap()
}

/// Runs `case` with `args`: its printed table, summary.json, and trajectory.csv as (header,
/// rows).
fn run_ok(case: &str, out: &Path, args: &[&str]) -> (String, Value, Vec<String>, Vec<Vec<f64>>) {
    let o = run(&root().join(case), out, args);
    let stdout = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(
        o.status.success(),
        "{case}: {}\n{stdout}",
        String::from_utf8_lossy(&o.stderr)
    );
    let summary = std::fs::read_to_string(out.join("summary.json")).unwrap();
    let text = std::fs::read_to_string(out.join("trajectory.csv")).unwrap();
    let mut lines = text.lines();
    let header = lines
        .next()
        .unwrap()
        .split(',')
        .map(str::to_string)
        .collect();
    let rows = lines
        .map(|l| l.split(',').map(|x| x.parse::<f64>().unwrap()).collect())
        .collect();
    (
        stdout,
        serde_json::from_str(&summary).unwrap(),
        header,
        rows,
    )
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

/// The least-squares slope of `ys` against `ts`.
fn slope(ts: &[f64], ys: &[f64]) -> f64 {
    let n = ts.len() as f64;
    let (mt, my) = (ts.iter().sum::<f64>() / n, ys.iter().sum::<f64>() / n);
    let sxy: f64 = ts.iter().zip(ys).map(|(t, y)| (t - mt) * (y - my)).sum();
    let sxx: f64 = ts.iter().map(|t| (t - mt) * (t - mt)).sum();
    sxy / sxx
}

/// The incline of the case: θ = 20°, normal (sin θ, 0, cos θ), so the fall line is
/// (cos θ, 0, −sin θ).
const THETA_DEG: f64 = 20.0;

/// The box slides from rest at μ = 0.2: its downhill speed's least-squares slope over the run's
/// second half (t ∈ [0.5, 1] s, after the landing's half-millimetre settle) is
/// g (sin θ − μ cos θ) within 0.5 % (the goal; a stiff box on a flat plane has no other
/// error than the smoothing, which acts below 2 ε_v, and the barrier's normal force balancing
/// the weight's normal part). The downhill columns are checked against the centroid's own
/// columns projected on the fall line.
#[test]
fn a_box_slides_down_the_incline_at_g_sin_minus_mu_cos() {
    let dir = tempfile::tempdir().unwrap();
    let (stdout, summary, header, rows) = run_ok("cases/box3d_incline.toml", dir.path(), &[]);
    let theta = THETA_DEG.to_radians();
    let mu = 0.2;
    let analytic = G * (theta.sin() - mu * theta.cos());
    let (x, z, vx, vz) = (
        column(&header, "box.x_m"),
        column(&header, "box.z_m"),
        column(&header, "box.vx_m_per_s"),
        column(&header, "box.vz_m_per_s"),
    );
    let (s, u) = (
        column(&header, "box.downhill_m"),
        column(&header, "box.downhill_speed_m_per_s"),
    );
    let fall = (theta.cos(), -theta.sin());
    for r in &rows {
        let along = (r[x] - rows[0][x]) * fall.0 + (r[z] - rows[0][z]) * fall.1;
        assert!((r[s] - along).abs() < 1e-12, "downhill {} vs {along}", r[s]);
        let speed = r[vx] * fall.0 + r[vz] * fall.1;
        assert!((r[u] - speed).abs() < 1e-12, "speed {} vs {speed}", r[u]);
    }
    let half = &rows[rows.len() / 2..];
    let ts: Vec<f64> = half.iter().map(|r| r[0]).collect();
    let us: Vec<f64> = half.iter().map(|r| r[u]).collect();
    let measured = slope(&ts, &us);
    close("the box's acceleration", measured, analytic, 5e-3);
    let reported = summary["incline"]["acceleration_m_per_s2"]
        .as_f64()
        .unwrap();
    assert!((reported - measured).abs() < 1e-9 * analytic, "{reported}");
    assert!(stdout.contains("acceleration"), "{stdout}");
    assert_eq!(summary["bodies"][0]["verdict"]["state"], "sliding");
    assert!((summary["bodies"][0]["mass_kg"].as_f64().unwrap() - 4.0).abs() < 1e-9);
}

/// The same box as an affine body (cases/box3d_affine_incline.toml, `material = "affine"`:
/// twelve degrees of freedom, its boundary nodes embedded as contact vertices) slides at the
/// same g (sin θ − μ cos θ) within the same 0.5 % (measured: to 10⁻⁶): friction and the barrier
/// act on the embedded vertices through their weights, and the control nodes carry the box's
/// mass (4 kg, reported).
#[test]
fn an_affine_box_slides_down_the_incline_at_g_sin_minus_mu_cos() {
    let dir = tempfile::tempdir().unwrap();
    let (_, summary, _, _) = run_ok("cases/box3d_affine_incline.toml", dir.path(), &[]);
    let theta = THETA_DEG.to_radians();
    let analytic = G * (theta.sin() - 0.2 * theta.cos());
    let measured = summary["incline"]["acceleration_m_per_s2"]
        .as_f64()
        .unwrap();
    close("the affine box's acceleration", measured, analytic, 5e-3);
    // The cross-check of its nine bottom vertices (embedded, recorded as nodes against the
    // half-space) meets SPEC.md §4's floor where the box slides; measured 99.85 %.
    let check = &summary["cross_check"];
    assert_eq!(check["records"], 9_000, "nine vertices a step");
    let agreement = check["overall"]["fraction"].as_f64().unwrap();
    assert!(agreement >= 0.98, "{agreement}");
    assert_eq!(check["pairs"]["total"], 0, "{check}");
    assert_eq!(summary["bodies"][0]["verdict"]["state"], "sliding");
    assert_eq!(summary["bodies"][0]["material"], "affine");
    assert!((summary["bodies"][0]["mass_kg"].as_f64().unwrap() - 4.0).abs() < 1e-9);
}

/// `--obj` frames of the affine box carry its placed mesh: its 18 nodes as vertices (not the
/// four control nodes of the state vector) and its 32 boundary triangles; at t = 0 the vertices
/// are the case's own box, 0.2 × 0.2 × 0.1 m turned 20° (every pair of nodes at the distance the
/// mesh at rest has), and after 2 ms of sliding still the same rigid shape.
#[test]
fn obj_frames_of_an_affine_body_are_its_placed_mesh() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let o = run(
        &root().join("cases/box3d_affine_incline.toml"),
        &out,
        &["--obj", "--duration", "0.002"],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let scene = stickslip::scene::multibody::solid::SolidScene::load(
        &root().join("cases/box3d_affine_incline.toml"),
        &[],
    )
    .unwrap();
    let rest = &scene.bodies[0].mesh.x0;
    for frame in ["frame_00000.obj", "frame_00002.obj"] {
        let text = std::fs::read_to_string(out.join(frame)).unwrap();
        let v: Vec<[f64; 3]> = text
            .lines()
            .filter_map(|l| l.strip_prefix("v "))
            .map(|l| {
                let c: Vec<f64> = l.split(' ').map(|x| x.parse().unwrap()).collect();
                [c[0], c[1], c[2]]
            })
            .collect();
        assert_eq!(v.len(), 18, "{frame}");
        assert_eq!(text.lines().filter(|l| l.starts_with("f ")).count(), 32);
        let dist = |a: [f64; 3], b: [f64; 3]| {
            ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
        };
        for i in 0..18 {
            for j in 0..18 {
                let at_rest = (rest[i] - rest[j]).norm();
                assert!(
                    (dist(v[i], v[j]) - at_rest).abs() < 1e-6,
                    "{frame}: {i} {j}"
                );
            }
        }
    }
}

/// The affine box stays rigid while it lands and slides: its control tetrahedron's map A keeps
/// ‖AᵀA − I‖ (largest entry) under 10⁻⁶ at every step. The orthogonality potential's stiffness
/// against a change of A is 8 κ V = 8 · 10¹¹ Pa · 4·10⁻³ m³ ≈ 3·10⁹ N m, the loads' moment on A
/// about 40 N (the weight, the barrier, friction) times 0.1 m: A moves off a rotation by ~10⁻⁹
/// (measured 2·10⁻⁹), a thousandth of the bound; with κ a thousand times smaller it would not
/// hold.
#[test]
fn an_affine_box_stays_rigid() {
    use stickslip::run::multibody::solid::SolidRunner;
    use stickslip::scene::multibody::solid::SolidScene;
    let scene = SolidScene::load(&root().join("cases/box3d_affine_incline.toml"), &[]).unwrap();
    let rest = scene.bodies[0].model.affine().unwrap().control;
    let mut runner = SolidRunner::new(scene, None).unwrap();
    let r = runner.layout.bodies[0].clone();
    assert_eq!(r.len(), 4, "the control nodes");
    let edges = |x: &[nalgebra::Vector3<f64>]| {
        nalgebra::Matrix3::from_columns(&[x[1] - x[0], x[2] - x[0], x[3] - x[0]])
    };
    let dm_inv = edges(&rest).try_inverse().unwrap();
    let mut worst = 0.0f64;
    while !runner.done() {
        runner.step().unwrap();
        let a = edges(&runner.sim.x[r.clone()]) * dm_inv;
        worst = worst.max((a.transpose() * a - nalgebra::Matrix3::identity()).amax());
    }
    assert!(worst < 1e-6, "‖AᵀA − I‖ reached {worst:e}");
}

/// The affine box held at μ = 0.5 > tan θ creeps at v* = ε_v (1 − √(1 − tan θ/μ)) = 47.8 µm/s,
/// written out here, within the elastic box's 10 % (measured: 0.03 %): smoothed friction's creep
/// is the rigid body's too.
#[test]
fn an_affine_box_is_held_on_the_incline_creeping_at_v_star() {
    let dir = tempfile::tempdir().unwrap();
    let (_, summary, _, _) = run_ok(
        "cases/box3d_affine_incline.toml",
        dir.path(),
        &[
            "--set",
            "friction.mu_static=0.5",
            "--set",
            "friction.mu_kinetic=0.5",
            "--set",
            "time.duration=2",
        ],
    );
    let t = THETA_DEG.to_radians().tan();
    let v_star = 1e-4 * (1.0 - (1.0 - t / 0.5).sqrt());
    let measured = summary["incline"]["creep_speed_m_per_s"].as_f64().unwrap();
    close("the affine box's creep", measured, v_star, 0.10);
}

/// Held at μ = 0.5 > tan θ = 0.364, the box creeps at v* = ε_v (1 − √(1 − tan θ/μ)) = 47.8 µm/s:
/// its mean downhill speed over t ∈ [1, 2] s within 10 % (as the 2D creep checks: the box's
/// settle after its start half a d̂ from the plane, which rings down within the first second).
/// At the case's own Newton tolerance, 1e-6 m/s: before the line search's flat test
/// (`solver/line_search.rs`) Newton stalled here at 1.05e-6 m/s after 200 iterations at
/// t = 0.808 s, its steps' change of E below E's rounding; the run must now finish.
#[test]
fn a_box_is_held_on_the_incline_creeping_at_v_star() {
    let dir = tempfile::tempdir().unwrap();
    let (_, summary, header, rows) = run_ok(
        "cases/box3d_incline.toml",
        dir.path(),
        &[
            "--set",
            "friction.mu_static=0.5",
            "--set",
            "friction.mu_kinetic=0.5",
            "--duration",
            "2",
        ],
    );
    let theta = THETA_DEG.to_radians();
    let (mu, eps_v) = (0.5, 1e-4);
    let v_star = eps_v * (1.0 - (1.0 - theta.tan() / mu).sqrt());
    let s = column(&header, "box.downhill_m");
    let (mid, last) = (&rows[rows.len() / 2], rows.last().unwrap());
    let creep = (last[s] - mid[s]) / (last[0] - mid[0]);
    close("the held box's creep", creep, v_star, 0.1);
    assert_eq!(summary["bodies"][0]["verdict"]["state"], "stopped");
}

/// The puck's stop times from trajectory.csv: the first time after which its speed over the
/// plane (its spin about the normal) stays below 10⁻³ of its start (the runner's threshold; the
/// decelerations are finite, so the threshold moves the time by 10⁻³ of it at most).
fn stop_times(header: &[String], rows: &[Vec<f64>]) -> (Option<f64>, Option<f64>) {
    let (vx, vy, wz) = (
        column(header, "puck.vx_m_per_s"),
        column(header, "puck.vy_m_per_s"),
        column(header, "puck.wz_rad_per_s"),
    );
    let speed = |r: &Vec<f64>| r[vx].hypot(r[vy]);
    let spin = |r: &Vec<f64>| r[wz].abs();
    let stop = |f: &dyn Fn(&Vec<f64>) -> f64| {
        let start = f(&rows[0]);
        if start == 0.0 {
            return None;
        }
        let last = rows.iter().rposition(|r| f(r) >= 1e-3 * start)?;
        rows.get(last + 1).map(|r| r[0])
    };
    (stop(&speed), stop(&spin))
}

/// R = 0.1 m, μ = 0.3, v₀ = 1 m/s, ω₀ = 10 rad/s (the case's); within 3 % (the goal:
/// the discrete disk is a 24-gon, 0.9 % short of the circle's radius at its edges' midpoints,
/// and its lumped masses and contact weights quadrature I and the torque).
const R: f64 = 0.1;
const MU: f64 = 0.3;

#[test]
fn a_sliding_puck_stops_at_v0_over_mu_g() {
    let dir = tempfile::tempdir().unwrap();
    let (_, summary, header, rows) = run_ok(
        "cases/puck_spin.toml",
        dir.path(),
        &[
            "--set",
            "bodies.puck.angular_velocity=[0,0,0]",
            "--duration",
            "0.5",
        ],
    );
    let (slide, spin) = stop_times(&header, &rows);
    close("the slide's stop", slide.unwrap(), 1.0 / (MU * G), 0.03);
    assert_eq!(spin, None);
    let reported = summary["slide_spin"]["slide_stop_s"].as_f64().unwrap();
    assert_eq!(reported, slide.unwrap());
}

#[test]
fn a_spinning_puck_stops_at_3_r_omega0_over_4_mu_g() {
    let dir = tempfile::tempdir().unwrap();
    let (_, summary, header, rows) = run_ok(
        "cases/puck_spin.toml",
        dir.path(),
        &["--set", "bodies.puck.velocity=[0,0,0]", "--duration", "0.4"],
    );
    // At t = 0 the nodes' rigid spin is read back as ω (I ω = Σ mᵢ rᵢ × vᵢ), the centroid at rest.
    let wz = column(&header, "puck.wz_rad_per_s");
    assert!((rows[0][wz] - 10.0).abs() < 1e-9, "{}", rows[0][wz]);
    let (slide, spin) = stop_times(&header, &rows);
    close(
        "the spin's stop",
        spin.unwrap(),
        3.0 * R * 10.0 / (4.0 * MU * G),
        0.03,
    );
    assert_eq!(slide, None);
    let reported = summary["slide_spin"]["spin_stop_s"].as_f64().unwrap();
    assert_eq!(reported, spin.unwrap());
}

/// Launched sliding and spinning (v₀/(R ω₀) = 1), both motions stop within two steps of each
/// other, and v/(R ω), read when v + R ω has fallen to 0.5 % of its start (the runner's
/// `RATIO_AT_FRACTION`), is 0.653 within 5 %
/// (the ratio still drifts towards its limit there, and the 24-gon's pressure is uniform only to
/// its quadrature).
#[test]
fn a_sliding_spinning_puck_stops_both_motions_together() {
    let dir = tempfile::tempdir().unwrap();
    let (_, summary, header, rows) =
        run_ok("cases/puck_spin.toml", dir.path(), &["--duration", "0.6"]);
    let (slide, spin) = stop_times(&header, &rows);
    let (slide, spin) = (slide.unwrap(), spin.unwrap());
    assert!((slide - spin).abs() <= 2e-3 + 1e-12, "{slide} s, {spin} s");
    let (vx, vy, wz) = (
        column(&header, "puck.vx_m_per_s"),
        column(&header, "puck.vy_m_per_s"),
        column(&header, "puck.wz_rad_per_s"),
    );
    let start = 1.0 + R * 10.0;
    let r = rows
        .iter()
        .rev()
        .find(|r| r[vx].hypot(r[vy]) + R * r[wz].abs() >= 0.005 * start)
        .unwrap();
    let ratio = r[vx].hypot(r[vy]) / (R * r[wz].abs());
    close("v/(R omega) near the end", ratio, 0.653, 0.05);
    let reported = summary["slide_spin"]["ratio"].as_f64().unwrap();
    assert!((reported - ratio).abs() < 1e-12, "{reported} vs {ratio}");
}

/// `case` is refused as bad input: exit 2, one line naming the file and every needle, nothing
/// written.
fn refused(dir: &Path, case: &Path, needles: &[&str]) {
    let out = dir.join(format!(
        "out_{}",
        case.file_stem().unwrap().to_string_lossy()
    ));
    let o = run(case, &out, &[]);
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

fn edited(dir: &Path, name: &str, edit: impl Fn(&str) -> String) -> PathBuf {
    let text = std::fs::read_to_string(root().join("cases/puck_spin.toml")).unwrap();
    let edited = edit(&text);
    assert_ne!(edited, text, "{name}: the edit must change the case");
    let path = dir.join(name);
    std::fs::write(&path, edited).unwrap();
    path
}

#[test]
fn bad_3d_scenes_exit_2_naming_file_key_and_rule_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    let second_puck = |s: &str| {
        let i = s.find("[obstacles.floor]").unwrap();
        let j = s.find("[bodies.puck]").unwrap();
        let lid = s[j..i]
            .replace("[bodies.puck]", "[bodies.lid]")
            .replace("centre = [0.0, 0.0, 0.0105]", "centre = [0.0, 0.0, 0.0125]");
        format!("{}{lid}{}", &s[..i], &s[i..])
    };
    // The puck (the file's first body) as an affine body.
    let affine_puck = |s: &str| {
        s.replacen(
            "material = \"neo_hookean\"",
            "material = \"affine\"\nstiffness = 1e11",
            1,
        )
        .replacen("youngs_modulus = 1.0e7            # Pa\n", "", 1)
        .replacen("poisson_ratio = 0.3\n", "", 1)
    };
    let cases: Vec<(PathBuf, &[&str])> = vec![
        (
            edited(p, "mixed.toml", |s| {
                s.replace(
                    "acceleration = [0.0, 0.0, -9.81]",
                    "acceleration = [0.0, -9.81]",
                )
            }),
            &["gravity.acceleration", "exactly 3"],
        ),
        (
            edited(p, "two.toml", second_puck),
            &[
                "bodies.puck.centre",
                "`puck` and `lid` must start more than barrier.dhat",
            ],
        ),
        (
            edited(p, "four.toml", |s| {
                s.replace("dimension = 3", "dimension = 4")
            }),
            &["dimension", "2 (the default) or 3"],
        ),
        (
            edited(p, "inside.toml", |s| {
                s.replace("centre = [0.0, 0.0, 0.0105]", "centre = [0.0, 0.0, 0.009]")
            }),
            &["bodies.puck.centre", "floor"],
        ),
        (
            edited(p, "driver_2d.toml", |s| {
                format!(
                    "{s}\n[drivers.push]\ntype = \"force\"\nbody = \"puck\"\nforce = [1.0, 0.0]\n"
                )
            }),
            &["drivers.push.force", "exactly 3"],
        ),
        (
            edited(p, "driver_set.toml", |s| {
                format!(
                    "{s}\n[drivers.push]\ntype = \"force\"\nbody = \"puck\"\nnodes = \"middle\"\nforce = [1.0, 0.0, 0.0]\n"
                )
            }),
            &["drivers.push.nodes", "must be one of", "front"],
        ),
        (
            edited(p, "driver_body.toml", |s| {
                format!(
                    "{s}\n[drivers.push]\ntype = \"force\"\nbody = \"lid\"\nforce = [1.0, 0.0, 0.0]\n"
                )
            }),
            &["drivers.push.body", "must name a body (puck)"],
        ),
        (
            edited(p, "driver_spring.toml", |s| {
                format!(
                    "{s}\n[drivers.pull]\ntype = \"spring\"\nbody = \"puck\"\nanchor = [1.0, 0.0, 0.01]\nforce = [1.0, 0.0, 0.0]\n"
                )
            }),
            &["drivers.pull.force", "does not apply to type = \"spring\""],
        ),
        (
            edited(p, "segments.toml", |s| {
                s.replace("segments = 24", "segments = 2")
            }),
            &["bodies.puck.segments", "at least 3"],
        ),
        (
            edited(p, "box_key.toml", |s| {
                s.replace("rings = 4", "rings = 4\nnx = 2")
            }),
            &["bodies.puck.nx", "cylinder"],
        ),
        (
            edited(p, "flat_ball.toml", |s| {
                s.replace("shape = \"cylinder\"", "shape = \"ellipsoid\"")
                    .replace(
                        "radius = 0.1                      # m",
                        "semi_axes = [0.1, 0.1, 0.0]",
                    )
                    .replace("segments = 24                     # nodes on the rim\n", "")
                    .replace("rings = 4\n", "cells = 4\n")
                    .replace("layers = 1\n", "")
                    .replace("height = 0.02                     # m\n", "")
            }),
            &["bodies.puck.semi_axes", "must be > 0"],
        ),
        (
            edited(p, "one_cell.toml", |s| {
                s.replace("shape = \"cylinder\"", "shape = \"ellipsoid\"")
                    .replace(
                        "radius = 0.1                      # m",
                        "semi_axes = [0.1, 0.1, 0.01]",
                    )
                    .replace("segments = 24                     # nodes on the rim\n", "")
                    .replace("rings = 4\n", "cells = 1\n")
                    .replace("layers = 1\n", "")
                    .replace("height = 0.02                     # m\n", "")
            }),
            &["bodies.puck.cells", "at least 2"],
        ),
        (
            edited(p, "affine_modulus.toml", |s| {
                s.replace("material = \"neo_hookean\"", "material = \"affine\"")
            }),
            &[
                "bodies.puck.youngs_modulus",
                "does not apply to material = \"affine\"",
            ],
        ),
        (
            edited(p, "affine_stiffness.toml", |s| {
                s.replace("material = \"neo_hookean\"", "material = \"affine\"")
                    .replace("youngs_modulus = 1.0e7            # Pa\n", "")
                    .replace("poisson_ratio = 0.3\n", "")
            }),
            &["bodies.puck.stiffness", "missing"],
        ),
        (
            edited(p, "affine_two.toml", |s| {
                // The first body in the file (the puck) affine, the lid elastic.
                affine_puck(
                    &second_puck(s)
                        .replace("centre = [0.0, 0.0, 0.0125]", "centre = [0.0, 0.0, 0.05]"),
                )
            }),
            &["bodies.puck.material", "the scene's only body"],
        ),
        (
            edited(p, "affine_driver.toml", |s| {
                format!(
                    "{}\n[drivers.push]\ntype = \"force\"\nbody = \"puck\"\nforce = [1.0, 0.0, 0.0]\n",
                    affine_puck(s)
                )
            }),
            &["bodies.puck.material", "takes no drivers"],
        ),
        (
            edited(p, "affine_mesh.toml", |s| {
                format!(
                    "{}\n[obstacles.ramp]\ntype = \"triangle_mesh\"\nvertices = [[-1.0, -1.0, -0.5], [1.0, -1.0, -0.5], [1.0, 1.0, -0.5]]\ntriangles = [[0, 1, 2]]\n",
                    affine_puck(s)
                )
            }),
            &["bodies.puck.material", "half-spaces only"],
        ),
        (
            edited(p, "rubber.toml", |s| {
                s.replace("material = \"neo_hookean\"", "material = \"rubber\"")
            }),
            &[
                "bodies.puck.material",
                "\"neo_hookean\", \"mass_spring\" or \"affine\"",
            ],
        ),
        (
            edited(p, "weights.toml", |s| {
                s.replace("rings = 4", "rings = 4\ncontact_weights = \"half\"")
            }),
            &["bodies.puck.contact_weights", "\"facing\" or \"full\""],
        ),
    ];
    for (case, needles) in cases {
        refused(p, &case, needles);
    }
}

/// Two stacked boxes, the lower (m₁ = 16 kg) on frictionless level ground pulled by a constant
/// force F along x on all its nodes (a 3D `force` driver), the upper (m₂ = 4 kg) on it with
/// μ = 0.3 (SPEC.md §8 "Two stacked blocks"). Newton's second law for each box, the friction
/// between them at most μ m₂ g: together a = F/(m₁ + m₂) while F ≤ μ g (m₁ + m₂) = 58.86 N;
/// above it the upper slides at μ g and the lower accelerates at (F − μ m₂ g)/m₁. Measured as the
/// least-squares slope of each box's vx over the run's second half (t ∈ [0.25, 0.5] s), within
/// 0.5 % (the goal for the incline: a stiff box, the smoothing acting only below 2 ε_v;
/// the upper box crosses the lower's top-face mesh edges, whose barrier kicks, docs/scenes.md
/// "Shared edges", rock it at up to 0.17 rad/s). At F = 30 N the boxes also move together:
/// their x velocities agree within 1 mm/s at the end. The driver's force column reads F.
#[test]
fn a_pulled_lower_box_carries_or_loses_the_upper_as_newtons_law_says() {
    let (m1, m2, mu) = (16.0, 4.0, 0.3);
    for force in [30.0, 100.0] {
        let dir = tempfile::tempdir().unwrap();
        let set = format!("drivers.pull.force=[{force},0.0,0.0]");
        let (stdout, summary, header, rows) =
            run_ok("cases/stack_pull3d.toml", dir.path(), &["--set", &set]);
        let (lower, upper) = (
            column(&header, "lower.vx_m_per_s"),
            column(&header, "upper.vx_m_per_s"),
        );
        let (expected_lower, expected_upper) = if force <= mu * G * (m1 + m2) {
            (force / (m1 + m2), force / (m1 + m2))
        } else {
            ((force - mu * m2 * G) / m1, mu * G)
        };
        let half = &rows[rows.len() / 2..];
        let ts: Vec<f64> = half.iter().map(|r| r[0]).collect();
        let vs = |c: usize| half.iter().map(|r| r[c]).collect::<Vec<f64>>();
        let what = |b: &str| format!("F = {force} N: the {b} box's acceleration");
        close(&what("lower"), slope(&ts, &vs(lower)), expected_lower, 5e-3);
        close(&what("upper"), slope(&ts, &vs(upper)), expected_upper, 5e-3);
        // The summary's stack (`analysis::stacked_blocks`) is these fits and closed forms.
        let (m, a) = (&summary["stack"], &summary["stack_analytic"]);
        assert_eq!(
            summary["stack_bodies"],
            serde_json::json!(["lower", "upper"])
        );
        for (key, fitted, expected) in [
            ("lower_m_per_s2", slope(&ts, &vs(lower)), expected_lower),
            ("upper_m_per_s2", slope(&ts, &vs(upper)), expected_upper),
        ] {
            assert!((m[key].as_f64().unwrap() - fitted).abs() < 1e-9, "{m}");
            close(key, a[key].as_f64().unwrap(), expected, 1e-9);
        }
        let slips = force > mu * G * (m1 + m2);
        assert_eq!(m["upper_slips"], slips, "{m}");
        assert_eq!(a["upper_slips"], slips, "{a}");
        assert!(stdout.contains("stacked blocks (SPEC.md §8)"), "{stdout}");
        let last = rows.last().unwrap();
        if force <= mu * G * (m1 + m2) {
            let slip = (last[upper] - last[lower]).abs();
            assert!(slip < 1e-3, "F = {force} N: the boxes part at {slip} m/s");
        }
        let fx = column(&header, "pull.fx_N");
        assert!(rows.iter().all(|r| r[fx] == force), "the driver's column");
        assert_eq!(summary["drivers"][0]["final_force_n"][0], force);
        assert!(stdout.contains("pull"), "{stdout}");
    }
}

/// The stack of `cases/stack_pull3d.toml` with a 0.4 m lower box (8 kg) pulled at 20 N, under
/// μ g (m₁ + m₂) = 35.3 N: both boxes at F/(m₁ + m₂) = 1.6667 m/s², each within 0.5 % over the
/// run's second half. This run once panicked: its line search took the flat test (the step's
/// predicted decrease below E's rounding, docs/model.md) at a trial point, whose gradient used
/// the contact stage's active set from before the line search's broad phase, indexing past its
/// new candidates; the flat test now updates the contacts at the trial point first.
#[test]
fn a_flat_line_search_updates_the_contacts_before_its_gradient() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "--set",
        "bodies.lower.width=0.4",
        "--set",
        "bodies.lower.nx=4",
        "--set",
        "bodies.upper.centre=[0.09,0.0,0.152]",
        "--set",
        "drivers.pull.force=[20.0,0.0,0.0]",
        "--duration",
        "0.3",
    ];
    let (_, _, header, rows) = run_ok("cases/stack_pull3d.toml", dir.path(), &args);
    let half = &rows[rows.len() / 2..];
    let ts: Vec<f64> = half.iter().map(|r| r[0]).collect();
    for body in ["lower", "upper"] {
        let c = column(&header, &format!("{body}.vx_m_per_s"));
        let vs: Vec<f64> = half.iter().map(|r| r[c]).collect();
        close(
            &format!("the {body} box"),
            slope(&ts, &vs),
            20.0 / 12.0,
            5e-3,
        );
    }
}

/// A 1 kg box on level ground (μ_s = 0.6, μ_k = 0.4) pulled by a spring (k = 200 N/m, a 3D
/// `spring` driver on its bottom nodes) whose anchor moves at v = 0.05 m/s from zero force
/// (SPEC.md §8 "Breakaway of a pulled block"): while the box sticks, the spring's force grows at
/// k v, and the box breaks away when it reaches μ_s m g = 5.886 N, at t = μ_s m g/(k v) =
/// 0.5886 s. Measured at the first step after t = 0.2 s whose slip speed exceeds 2 ε_v (the
/// runner's slip threshold, where smoothed friction's static-to-kinetic transition ends);
/// earlier rows are the landing from half a d̂, the bottom nodes spreading as the weight comes
/// on, while the spring's force is at most k v · 0.2 s = 2 N. Force and time within 2 %, the 2D breakaway's
/// goal (tests/scene/scene_cases.rs), here at h = 1 ms, 0.17 % of the breakaway time.
#[test]
fn a_pulled_box_breaks_away_at_mu_s_m_g() {
    let (mass, mu_s, k, v, eps_v) = (1.0, 0.6, 200.0, 0.05, 1e-4);
    let (f_break, t_break) = (mu_s * mass * G, mu_s * mass * G / (k * v));
    let dir = tempfile::tempdir().unwrap();
    let (stdout, summary, header, rows) = run_ok("cases/pulled_block3d.toml", dir.path(), &[]);
    let (slip, fx) = (
        column(&header, "block.slip_m_per_s"),
        column(&header, "spring.fx_N"),
    );
    let early = rows.iter().filter(|r| r[0] <= 0.2).map(|r| r[fx]);
    assert!(
        early.fold(0.0, f64::max) < 2.5,
        "the spring's force while landing"
    );
    let row = rows
        .iter()
        .find(|r| r[0] > 0.2 && r[slip] > 2.0 * eps_v)
        .expect("the box breaks away");
    close("breakaway force", row[fx], f_break, 0.02);
    close("breakaway time", row[0], t_break, 0.02);
    // The summary's breakaway (`analysis::breakaway`: the first slip that carries the
    // box more than d̂) is the row found here, and its closed form the one derived here.
    let b = &summary["breakaway"];
    assert_eq!(b["force_n"].as_f64(), Some(row[fx]), "{b}");
    assert!((b["time_s"].as_f64().unwrap() - row[0]).abs() < 1e-9, "{b}");
    let a = &summary["breakaway_analytic"];
    close("μ_s m g", a["force_n"].as_f64().unwrap(), f_break, 1e-9);
    close(
        "μ_s m g/(k v)",
        a["time_s"].as_f64().unwrap(),
        t_break,
        1e-9,
    );
    assert!(stdout.contains("breakaway (SPEC.md §8): "), "{stdout}");
}

/// The same box driven by a prescribed motion instead (a 3D `move` driver on its left face's
/// nodes, at 0.05 m/s along x from t = 0). The driver holds those nodes in all three axes, at
/// the height they start (half a d̂ over the ground, lower than where the barrier would carry
/// the box), so it also presses the box down. At constant velocity the forces on the box sum
/// to zero: along z the driver's f_z, the weight and the ground's normal force N, so
/// N = m g − f_z; along x the driver's f_x against kinetic friction μ_k N, so
/// f_x = μ_k (m g − f_z). Checked on the means over t ∈ [0.5, 1] s within 0.5 % (the
/// incline's goal: friction at a slip speed of 500 ε_v is Coulomb's to the smoothing's
/// ε_v/v), with nothing across (f_y) and the box at the driver's speed.
#[test]
fn a_box_moved_at_a_constant_velocity_is_pushed_against_mu_k_n() {
    let (mass, mu_k) = (1.0, 0.4);
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(root().join("cases/pulled_block3d.toml")).unwrap();
    let i = text.find("[drivers.spring]").unwrap();
    let j = text.find("[friction]").unwrap();
    let moved = format!(
        "{}[drivers.push]\ntype = \"move\"\nbody = \"block\"\nnodes = \"left\"\nvelocity = [0.05, 0.0, 0.0]\n\n{}",
        &text[..i],
        &text[j..]
    );
    let case = dir.path().join("moved_block3d.toml");
    std::fs::write(&case, moved).unwrap();
    let out = dir.path().join("out");
    let o = run(&case, &out, &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(out.join("trajectory.csv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<String> = lines.next().unwrap().split(',').map(String::from).collect();
    let rows: Vec<Vec<f64>> = lines
        .map(|l| l.split(',').map(|v| v.parse().unwrap()).collect())
        .collect();
    let (fx, fy, fz, vx) = (
        column(&header, "push.fx_N"),
        column(&header, "push.fy_N"),
        column(&header, "push.fz_N"),
        column(&header, "block.vx_m_per_s"),
    );
    let late: Vec<&Vec<f64>> = rows.iter().filter(|r| r[0] >= 0.5).collect();
    let mean = |c: usize| late.iter().map(|r| r[c]).sum::<f64>() / late.len() as f64;
    let normal = mass * G - mean(fz);
    assert!(
        normal > mass * G,
        "the driver presses the box down: N = {normal}"
    );
    close("the driver's push", mean(fx), mu_k * normal, 5e-3);
    assert!(mean(fy).abs() < 1e-6 * normal, "across: {}", mean(fy));
    close("the box's speed", mean(vx), 0.05, 5e-3);
}

/// A sliding point mass on the incline, in the plane's coordinates (s down the fall line, w
/// across it): s̈, ẅ = g sin θ (1, 0) − μ g cos θ (ṡ, ẇ)/‖(ṡ, ẇ)‖ (friction opposes the
/// velocity, N = m g cos θ). Integrated by RK4 at `dt` from (0, 0) with velocity `v0` up to
/// each of `times`; returns the positions there and the path's length to the last.
fn point_mass_on_incline(
    v0: (f64, f64),
    mu: f64,
    theta: f64,
    times: &[f64],
    dt: f64,
) -> (Vec<(f64, f64)>, f64) {
    let f = |y: [f64; 4]| -> [f64; 4] {
        let speed = y[2].hypot(y[3]);
        let k = if speed > 0.0 {
            mu * G * theta.cos() / speed
        } else {
            0.0
        };
        [y[2], y[3], G * theta.sin() - k * y[2], -k * y[3]]
    };
    let add = |y: [f64; 4], k: [f64; 4], c: f64| std::array::from_fn(|i| y[i] + c * k[i]);
    let (mut y, mut t, mut length) = ([0.0, 0.0, v0.0, v0.1], 0.0, 0.0);
    let mut out = Vec::new();
    for &target in times {
        while t < target - 1e-12 {
            let step = dt.min(target - t);
            let k1 = f(y);
            let k2 = f(add(y, k1, step / 2.0));
            let k3 = f(add(y, k2, step / 2.0));
            let k4 = f(add(y, k3, step));
            let next: [f64; 4] = std::array::from_fn(|i| {
                y[i] + step / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i])
            });
            length += (next[0] - y[0]).hypot(next[1] - y[1]);
            y = next;
            t += step;
        }
        out.push((y[0], y[1]));
    }
    (out, length)
}

/// The box launched across the incline at 1 m/s (along +y, level): friction opposes its
/// velocity, which turns down the fall line, so the path curves downhill. Its centroid's
/// position in the plane (the downhill column, and y) at every 0.1 s is within 1 % of the path's
/// length of the point mass's (RK4 at 10 µs, converged far below that; the box's own
/// difference is its landing settle and the backward-Euler step's first-order lag, h = 1 ms).
#[test]
fn a_box_launched_across_the_incline_follows_the_sliding_point_mass() {
    let dir = tempfile::tempdir().unwrap();
    let (_, summary, header, rows) = run_ok(
        "cases/box3d_incline.toml",
        dir.path(),
        &["--set", "bodies.box.velocity=[0,1,0]"],
    );
    // Not along the fall line: the incline's closed form does not apply and is not reported.
    assert!(summary["incline"].is_null());
    let (s, y) = (
        column(&header, "box.downhill_m"),
        column(&header, "box.y_m"),
    );
    let samples: Vec<&Vec<f64>> = rows
        .iter()
        .filter(|r| ((r[0] * 10.0).round() - r[0] * 10.0).abs() < 1e-9 && r[0] > 0.0)
        .collect();
    assert_eq!(samples.len(), 10);
    let times: Vec<f64> = samples.iter().map(|r| r[0]).collect();
    let (expected, length) =
        point_mass_on_incline((0.0, 1.0), 0.2, THETA_DEG.to_radians(), &times, 1e-5);
    for (r, (es, ew)) in samples.iter().zip(&expected) {
        let off = (r[s] - es).hypot(r[y] - rows[0][y] - ew);
        assert!(
            off <= 0.01 * length,
            "t = {} s: ({}, {}) against ({es}, {ew}): {off} m off, path {length} m",
            r[0],
            r[s],
            r[y] - rows[0][y]
        );
    }
    // The path curved downhill: the velocity turned from across towards the fall line.
    let (u, vy) = (
        column(&header, "box.downhill_speed_m_per_s"),
        column(&header, "box.vy_m_per_s"),
    );
    let last = rows.last().unwrap();
    assert!(last[u] > last[vy].abs(), "{} vs {}", last[u], last[vy]);
}

/// A Gmsh tetrahedral mesh as the body (tests/data/block.msh: 0.2 × 0.1 × 0.1 m, 700 kg/m³ here
/// → 1.4 kg, its bottom 0.05 m below its centroid as the case's box's): on the case's incline it
/// slides at g (sin θ − μ cos θ) within 0.5 % as the generated box does (the closed form does
/// not depend on the mesh).
#[test]
fn a_gmsh_mesh_body_slides_down_the_incline_at_g_sin_minus_mu_cos() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(root().join("cases/box3d_incline.toml")).unwrap();
    let i = text.find("shape = \"cuboid\"").unwrap();
    let j = text.find("# The incline's normal").unwrap();
    let block = root().join("tests/data/block.msh");
    let case_text = format!(
        "{}shape = \"mesh\"\nfile = {:?}\n{}",
        &text[..i],
        block.to_string_lossy(),
        &text[j..]
    )
    .replace("density = 1000.0", "density = 700.0");
    let case = dir.path().join("block_incline.toml");
    std::fs::write(&case, case_text).unwrap();
    let out = dir.path().join("out");
    let (_, summary, header, rows) = run_ok(case.to_str().unwrap(), &out, &[]);
    assert!((summary["bodies"][0]["mass_kg"].as_f64().unwrap() - 1.4).abs() < 1e-9);
    let u = column(&header, "box.downhill_speed_m_per_s");
    let half = &rows[rows.len() / 2..];
    let ts: Vec<f64> = half.iter().map(|r| r[0]).collect();
    let us: Vec<f64> = half.iter().map(|r| r[u]).collect();
    let theta = THETA_DEG.to_radians();
    close(
        "the mesh body's acceleration",
        slope(&ts, &us),
        G * (theta.sin() - 0.2 * theta.cos()),
        5e-3,
    );
}

/// The tall box of cases/slide_or_tip3d.toml (w = 0.1 m along the fall line, b = 0.2 m,
/// w/b = 0.5; μ_s = μ_k = μ) under gravity tilted by θ over its level floor. Derivation (rigid
/// box, centre of mass at its centre): at rest, friction m g sin θ and normal force m g cos θ
/// balance the weight; moments about the centre of mass put the normal force tan θ · b/2
/// downhill of the base's middle, inside the base iff tan θ ≤ w/b; it sticks iff tan θ ≤ μ.
/// Sliding, friction is μ N and the normal force sits μ b/2 downhill, inside the base iff
/// μ ≤ w/b whatever θ. So: stay if tan θ ≤ min(μ, w/b), else slide if μ < w/b, else tip. One
/// cell well inside each region (at least 0.2 in tan θ and μ from every line), as the 2D test of
/// the same rule (tests/sweep/sweep_scenes.rs); what happened is read from trajectory.csv (the tilt of
/// the box's local z axis, its downhill distance) and the summary is checked to agree.
#[test]
fn the_tall_box_stays_slides_or_tips_in_3d_as_the_closed_form_says() {
    let cells = [
        ("stay", 0.2, 0.8),  // tan 0.2 < min(0.8, 0.5)
        ("slide", 0.7, 0.2), // tan 0.7 > mu = 0.2, mu < 0.5
        ("tip", 0.8, 0.9),   // tan 0.8 > w/b = 0.5 and tan 0.8 < mu: it cannot slide, it tips
    ];
    let tmp = tempfile::tempdir().unwrap();
    for (k, (expected, tan_theta, mu)) in cells.iter().enumerate() {
        let theta = f64::atan(*tan_theta);
        let gravity = format!(
            "gravity.acceleration=[{},0,{}]",
            G * theta.sin(),
            -G * theta.cos()
        );
        let friction = format!("friction.mu={mu}");
        let (stdout, s, header, rows) = run_ok(
            "cases/slide_or_tip3d.toml",
            &tmp.path().join(format!("run{k}")),
            &["--set", &gravity, "--set", &friction],
        );
        assert!(stdout.contains("slide or tip (SPEC.md §8)"), "{stdout}");
        let tilt = column(&header, "box.tilt_rad");
        let downhill = column(&header, "box.downhill_m");
        let rotation = rows
            .iter()
            .map(|r| r[tilt])
            .fold(0.0, f64::max)
            .to_degrees();
        let moved = rows.last().unwrap()[downhill];
        match *expected {
            // Rotation and displacement far from the rule's thresholds (10 degrees, 0.1 w =
            // 10 mm): staying, the creep under eps_v = 1e-4 m/s moves it under 0.1 mm in 1 s.
            "stay" => assert!(rotation < 1.0 && moved.abs() < 1e-3, "{rotation} {moved}"),
            "slide" => {
                // a = g (sin − mu cos) for 1 s from rest: x = a/2, less the short settling.
                let x = 0.5 * G * (theta.sin() - mu * theta.cos());
                assert!(rotation < 1.0, "{rotation}");
                assert!((moved / x - 1.0).abs() < 0.1, "{moved} vs {x}");
            }
            // Tipped: turned well past the corner's 26.6° (atan(w/b)) towards its side.
            _ => assert!(rotation > 45.0, "{rotation}"),
        }
        let analytic = &s["slide_or_tip_analytic"];
        assert_eq!(analytic["outcome"], *expected, "{s}");
        assert!((analytic["tan_theta"].as_f64().unwrap() - tan_theta).abs() < 1e-6);
        assert!((analytic["w_over_b"].as_f64().unwrap() - 0.5).abs() < 1e-9);
        let measured = &s["slide_or_tip"];
        assert_eq!(measured["outcome"], *expected, "{s}");
        assert!((measured["max_rotation_deg"].as_f64().unwrap() - rotation).abs() < 1e-9);
        assert!((measured["displacement_m"].as_f64().unwrap() - moved).abs() < 1e-9);
    }
}

/// The impulse-law cross-check of SPEC.md §4 on 3D runs, the law in its 3-vector form on a GPU
/// adapter (which must exist, as for the slope: `STICKSLIP_ALLOW_SKIP=1` lets the CPU law run
/// instead, with a notice): the box sliding down the incline (slip along the fall line) and the
/// puck sliding and spinning (slip whose direction turns across the contact patch). Every node
/// against the half-space in friction's set at every step is a record: the box's bottom face
/// is 3 × 3 nodes, all within d̂ from the start (half a d̂ up), so 9 a step, 9 000 in 1 000
/// steps. SPEC.md §4's floors: ≥ 98 % of the approaching records agree on stick or slide, the
/// median tangential gap is below ε_v.
#[test]
fn the_impulse_law_agrees_with_the_optimiser_in_3d() {
    let allow_skip = std::env::var("STICKSLIP_ALLOW_SKIP").is_ok_and(|v| v.trim() == "1");
    let gpu = if allow_skip {
        let notice = "\n!!!!!!!! 3D cross-check: STICKSLIP_ALLOW_SKIP=1: the law runs on the CPU\n";
        let _ = std::io::Write::write_all(&mut std::io::stderr(), notice.as_bytes());
        "off"
    } else {
        "on"
    };
    let dir = tempfile::tempdir().unwrap();
    for (case, records) in [
        ("cases/box3d_incline.toml", Some(9_000)),
        ("cases/puck_spin.toml", None),
    ] {
        let out = dir.path().join(case.replace('/', "_"));
        let o = Command::new(env!("CARGO_BIN_EXE_stickslip"))
            .args(["run", case, "--gpu", gpu, "--out"])
            .arg(&out)
            .current_dir(root())
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&o.stdout);
        assert!(
            o.status.success(),
            "{case}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(
            stdout.contains("cross-check against the impulse law"),
            "{stdout}"
        );
        let s: Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap())
                .unwrap();
        let c = &s["cross_check"];
        if let Some(n) = records {
            assert_eq!(c["records"], n, "{case}: {c}");
        }
        let approaching = c["approaching"].as_u64().unwrap();
        assert!(approaching > 1000, "{case}: {c}");
        let overall = c["overall"]["fraction"].as_f64().unwrap();
        assert!(overall >= 0.98, "{case}: agreement {overall}: {c}");
        let eps_v = 1e-4;
        let median = c["gap_median"].as_f64().unwrap();
        assert!(median < eps_v, "{case}: median gap {median}: {c}");
        if !allow_skip {
            assert!(
                !c["backend"].as_str().unwrap().starts_with("cpu"),
                "{case}: {c}"
            );
        }
    }
}

/// `--obj` on a 3D scene: one OBJ a step and one at t = 0 (6 for 5 steps); each has every node
/// of the state vector and the box's boundary as object `box`. Checked against what the box is:
/// 2 × 2 × 1 cells have 32 boundary triangles (8 on each face normal to z, 4 on each of the
/// other four: two cells of two triangles), every one facing outward (from the centroid of the
/// vertices towards its own centroid along its normal), and the lowest vertex's height over the
/// incline equals trajectory.csv's `box.min_distance_m` at that step.
#[test]
fn obj_frames_hold_every_body_boundary_outward() {
    let dir = tempfile::tempdir().unwrap();
    let (stdout, _, header, rows) = run_ok(
        "cases/box3d_incline.toml",
        dir.path(),
        &["--obj", "--duration", "0.005"],
    );
    assert!(stdout.contains("and 6 OBJ frames"), "{stdout}");
    for k in 0..=5 {
        assert!(dir.path().join(format!("frame_{k:05}.obj")).exists());
    }
    let text = std::fs::read_to_string(dir.path().join("frame_00005.obj")).unwrap();
    let mut v: Vec<[f64; 3]> = Vec::new();
    let mut faces: Vec<[usize; 3]> = Vec::new();
    let mut objects = Vec::new();
    for line in text.lines() {
        let mut it = line.split_whitespace();
        match it.next() {
            Some("v") => {
                let c: Vec<f64> = it.map(|x| x.parse().unwrap()).collect();
                v.push([c[0], c[1], c[2]]);
            }
            Some("f") => {
                let c: Vec<usize> = it.map(|x| x.parse::<usize>().unwrap() - 1).collect();
                faces.push([c[0], c[1], c[2]]);
            }
            Some("o") => objects.push(it.next().unwrap().to_string()),
            _ => panic!("unexpected line {line}"),
        }
    }
    assert_eq!(objects, ["box"]);
    assert_eq!(v.len(), 18);
    assert_eq!(faces.len(), 32);
    let sub = |a: [f64; 3], b: [f64; 3]| [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
    let dot = |a: [f64; 3], b: [f64; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let centre = v.iter().fold([0.0; 3], |s, p| {
        [s[0] + p[0] / 18.0, s[1] + p[1] / 18.0, s[2] + p[2] / 18.0]
    });
    for f in &faces {
        let (a, b, c) = (v[f[0]], v[f[1]], v[f[2]]);
        let (u, w) = (sub(b, a), sub(c, a));
        let n = [
            u[1] * w[2] - u[2] * w[1],
            u[2] * w[0] - u[0] * w[2],
            u[0] * w[1] - u[1] * w[0],
        ];
        let mid = [
            (a[0] + b[0] + c[0]) / 3.0,
            (a[1] + b[1] + c[1]) / 3.0,
            (a[2] + b[2] + c[2]) / 3.0,
        ];
        assert!(dot(n, sub(mid, centre)) > 0.0, "face {f:?} faces inward");
    }
    let theta = THETA_DEG.to_radians();
    let normal = [theta.sin(), 0.0, theta.cos()];
    let lowest = v
        .iter()
        .map(|p| dot(*p, normal))
        .fold(f64::INFINITY, f64::min);
    let d = column(&header, "box.min_distance_m");
    let last = rows.last().unwrap();
    assert!((last[0] - 0.005).abs() < 1e-12);
    assert!((lowest - last[d]).abs() < 1e-9, "{lowest} vs {}", last[d]);
}

/// A football case on the core against the rigid SE(3) CG4 run of cases/football.toml, the
/// same ellipsoid released the same way, over its first flight (to 1 ms before either touches:
/// the rigid body's first impact, the core's ball first within d̂ of the ground). Both start with
/// the same centre velocity and spin: the core's first row (from its nodes) equals R v and R ω
/// of the rigid body's first state within 1e-9 (the case file's nine digits). Under uniform
/// gravity alone the centre's motion does not depend on the body (internal forces cancel), so
/// CG4, exact for a parabola up to rounding, gives the parabola, and implicit Euler gives it
/// lagged: vₙ₊₁ = vₙ + h g, xₙ₊₁ = xₙ + h vₙ₊₁ sums to xₙ = x₀ + v₀ t + ½ g t² + ½ g h t, so the
/// core's centre sits ½ |g| h t below the rigid one. Checked: the gap is that lag within tol · t
/// (Newton stops within tol = 10⁻⁵ m/s of the converged velocity, so the position can wander by
/// at most that rate), and within the 1 mm. Then the ball bounces: it leaves the ground
/// rising when its first contact ends (its smallest distance back above d̂). Returns the core's
/// speed and spin |ω| then, and the rigid ball's at that time (after its impact through the
/// energy-safe law, e = 0.6), and the largest |ω − ω_rigid| over the compared flight, rad/s.
fn football_against_the_rigid_ball(case: &str, dhat: f64) -> ([(f64, f64); 2], f64) {
    let rigid_scene =
        stickslip::rigid::case::RigidScene::load(&root().join("cases/football.toml")).unwrap();
    let rigid = stickslip::rigid::run::simulate(&rigid_scene, Some(1.5)).unwrap();
    let t_impact = rigid.events.first().expect("the rigid ball lands").t;
    assert!((t_impact - 1.38).abs() < 0.01, "{t_impact}");
    let dir = tempfile::tempdir().unwrap();
    let (_, summary, header, rows) = run_ok(case, &dir.path().join("out"), &[]);
    let h = summary["h"].as_f64().unwrap();
    let tol = 1e-5;
    let col = |name: &str| column(&header, &format!("football.{name}"));
    let (x, v, w, d) = (
        col("x_m"),
        col("vx_m_per_s"),
        col("wx_rad_per_s"),
        col("min_distance_m"),
    );
    let s0 = &rigid.rows[0].state;
    let (v0, w0) = (s0.world_velocity(), s0.pose.r * s0.omega());
    for k in 0..3 {
        assert!(
            (rows[0][v + k] - v0[k]).abs() < 1e-9,
            "{case}: v{k}: {} {}",
            rows[0][v + k],
            v0[k]
        );
        assert!(
            (rows[0][w + k] - w0[k]).abs() < 1e-9,
            "{case}: ω{k}: {} {}",
            rows[0][w + k],
            w0[k]
        );
    }
    let first_contact = rows.iter().position(|r| r[d] < dhat).expect("it lands");
    let t_touch = rows[first_contact][0];
    assert!(
        (t_touch - t_impact).abs() < 0.01,
        "{case}: {t_touch} {t_impact}"
    );
    let mut compared = 0;
    let (mut worst, mut worst_spin) = (0.0f64, 0.0f64);
    for r in rigid
        .rows
        .iter()
        .filter(|r| r.t < t_touch.min(t_impact) - 1e-3)
    {
        let row = rows
            .iter()
            .find(|row| (row[0] - r.t).abs() < 0.5 * h)
            .unwrap_or_else(|| panic!("{case}: no core row at t = {}", r.t));
        let gap: Vec<f64> = (0..3).map(|k| row[x + k] - r.state.pose.p[k]).collect();
        let lag = 0.5 * G * h * r.t;
        let off = ((gap[0]).powi(2) + gap[1].powi(2) + (gap[2] + lag).powi(2)).sqrt();
        assert!(
            off <= tol * r.t + 1e-12,
            "{case}: t = {}: gap {gap:?}, lag {lag}",
            r.t
        );
        let norm = gap.iter().map(|g| g * g).sum::<f64>().sqrt();
        worst = worst.max(norm);
        let w_rigid = r.state.pose.r * r.state.omega();
        let spin_gap = (0..3)
            .map(|k| (row[w + k] - w_rigid[k]).powi(2))
            .sum::<f64>()
            .sqrt();
        worst_spin = worst_spin.max(spin_gap);
        compared += 1;
    }
    assert!(compared > 1300, "{case}: {compared}");
    assert!(worst < 1e-3, "{case}: the centres part by {worst} m");
    let leaves = rows[first_contact..]
        .iter()
        .find(|r| r[d] > dhat)
        .expect("it bounces");
    assert!(
        leaves[v + 2] > 0.5,
        "{case}: it leaves rising: {}",
        leaves[v + 2]
    );
    let after = rigid
        .rows
        .iter()
        .min_by(|a, b| (a.t - leaves[0]).abs().total_cmp(&(b.t - leaves[0]).abs()))
        .unwrap();
    assert!(after.t > t_impact, "{case}: {} {t_impact}", after.t);
    let norm = |c: usize| (0..3).map(|k| leaves[c + k].powi(2)).sum::<f64>().sqrt();
    (
        [
            (norm(v), after.state.world_velocity().norm()),
            (norm(w), (after.state.pose.r * after.state.omega()).norm()),
        ],
        worst_spin,
    )
}

/// The football of seed 004 as a tetrahedral body (cases/football3d.toml): its flight (in
/// [`football_against_the_rigid_ball`]; 0.68 mm of implicit Euler's lag at h = 10⁻⁴ s) and its
/// first rebound's speed within the 10 % of the rigid ball's. The case's damping was set
/// on another experiment, a straight drop (the case file); this rebound is thrown and tumbling,
/// so the comparison is a prediction, not the calibration. Its spin is not compared: the
/// compliant ball, 8 ms in contact, leaves spinning a third slower (docs/scenes.md).
#[test]
fn the_football_on_the_core_flies_as_the_rigid_body_does_and_bounces() {
    let ([(speed, rigid_speed), _], _) =
        football_against_the_rigid_ball("cases/football3d.toml", 1e-3);
    close(
        "the rebound speed against the energy-safe impact's",
        speed,
        rigid_speed,
        0.10,
    );
}

/// The football of seed 004 as an affine body (cases/football_affine.toml, ABD): its flight (in
/// [`football_against_the_rigid_ball`], at h = 10⁻⁵ s a lag of 0.07 mm), its spin over the
/// flight within 1 % of the rigid ball's |ω₀| = 9.6 rad/s (it carries the ellipsoid's own second
/// moment, so it tumbles as the rigid ball does; measured 0.016 rad/s, implicit Euler's drift by
/// the landing; with the second moment left unturned it parts by 1.6 rad/s, measured), and its
/// first rebound, speed and spin each within the 10 % of
/// the rigid ball's after the energy-safe impact. A prediction: the case's barrier damping was
/// set on a straight drop (e = 0.60, the case file), and this impact is thrown and tumbling, on
/// the ball's nose.
#[test]
fn the_affine_football_flies_and_rebounds_as_the_rigid_body_does() {
    let ([(speed, rigid_speed), (spin, rigid_spin)], worst_spin) =
        football_against_the_rigid_ball("cases/football_affine.toml", 5e-3);
    assert!(
        worst_spin < 0.096,
        "the spin parts from CG4's by {worst_spin} rad/s"
    );
    close(
        "the rebound speed against the energy-safe impact's",
        speed,
        rigid_speed,
        0.10,
    );
    close(
        "the rebound spin against the energy-safe impact's",
        spin,
        rigid_spin,
        0.10,
    );
}

/// The cross-check's records of the contacts between two bodies (point–triangle and edge–edge
/// pairs) carry the relative velocity of the two surfaces at the contact, found here without
/// the pairs' weights: each box moves as a rigid body up to its elastic deformation rate,
/// v(p) = v_c + ω × (p − c) with its centroid velocity v_c, angular velocity ω and centroid c
/// from the runner's rows (computed from the nodes). So the tangential part of a record whose
/// first node p is the upper box's must be that of v_upper(p) − v_lower(p), and of one whose
/// first node is the lower's, v_lower(p) − v_upper(p). Allowed: 0.02 m/s, for the boxes'
/// ringing after the upper lands (from 1.5 mm, at t ≈ 0.02 s; records from t = 0.05 s are
/// compared) and after the kicks where it crosses the lower's mesh edges (docs/scenes.md,
/// "Shared edges and vertices"; measured up to 0.010 m/s at t = 0.537 s); the stencil's
/// closest point lies within d̂ of p, which adds |ω| d̂ < 10⁻³ m/s. A sign error on either side
/// would be off by the relative speed or twice it: at μ_b = 0.1 the upper slides on the lower
/// (cases/box_on_box3d.toml: at (2.4334 − 1.3963) t, 0.83 m/s at 0.8 s), checked to exceed
/// 0.5 m/s; at μ_b = 0.5 it rides along. Then the law itself: where the upper slides, its
/// pair records meet SPEC.md §4's floors (≥ 98 % of the approaching ones agree on stick or
/// slide, the median tangential gap below the case's ε_v = 10⁻⁴ m/s): the relative speed is
/// far outside the cone, so both must slide. Where it rides along, the optimiser sticks on at
/// least 90 % of them (the landing, to t = 0.05 s, is 6 % of the run) and the agreement is
/// measured, not bounded: each pair's law is given its own current normal force against its
/// friction's lagged λ, and the λ of the edge–edge pairs in the patch moves from step to
/// step as the upper box rocks over the lower's mesh edges (docs/impulse.md §7: 92.9 %).
#[test]
fn pair_records_carry_the_relative_velocity_of_the_two_bodies() {
    use nalgebra::Vector3;
    use stickslip::cross_check::impulse_law::CpuLaw;
    use stickslip::cross_check::records::Recorder;
    use stickslip::cross_check::report::{CrossCheck, CrossCheckConfig};
    use stickslip::run::multibody::solid::SolidRunner;
    use stickslip::scene::multibody::solid::SolidScene;
    use stickslip::scene::overrides::Override;
    for mu in [0.1, 0.5] {
        let overrides: Vec<Override> = [
            format!("friction.mu_static={mu}"),
            format!("friction.mu_kinetic={mu}"),
        ]
        .iter()
        .map(|s| Override::parse(s).unwrap())
        .collect();
        let scene = SolidScene::load(&root().join("cases/box_on_box3d.toml"), &overrides).unwrap();
        let mut runner = SolidRunner::new(scene, None).unwrap();
        let mut recorder = Recorder::default();
        let mut check = CrossCheck::new(
            Box::new(CpuLaw::single_threaded()),
            CrossCheckConfig {
                eps_v: 1e-4,
                late_from_s: 1.0,
            },
        );
        let (mut records, mut pairs) = (Vec::new(), Vec::new());
        let (mut worst, mut fastest) = (0.0f64, 0.0f64);
        while !runner.done() {
            runner.step().unwrap();
            records.clear();
            recorder.push_step_records(&runner.sim, 0.0, &mut records);
            pairs.clear();
            pairs.extend(records.iter().filter(|r| r.pair).copied());
            check.push_batch(&pairs).unwrap();
            let row = runner.rows.last().unwrap();
            if row.t < 0.05 {
                continue;
            }
            let rigid = |body: usize, p: Vector3<f64>| {
                let b = &row.bodies[body];
                b.velocity + b.angular_velocity.cross(&(p - b.centre))
            };
            for r in &pairs {
                let node = r.node as usize;
                let p = runner.sim.x[node];
                let (first, second) = if runner.layout.bodies[1].contains(&node) {
                    (1, 0)
                } else {
                    assert!(runner.layout.bodies[0].contains(&node), "node {node}");
                    (0, 1)
                };
                let n = Vector3::from(r.normal);
                let tangential = |v: Vector3<f64>| v - n * n.dot(&v);
                let expected = tangential(rigid(first, p) - rigid(second, p));
                let got = tangential(Vector3::from(r.v_opt));
                assert!(
                    (got - expected).norm() < 0.02,
                    "μ_b = {mu}, t = {}, node {node}: {got:?} against {expected:?}",
                    row.t
                );
                worst = worst.max((got - expected).norm());
                fastest = fastest.max(expected.norm());
            }
        }
        if mu < 0.3 {
            assert!(fastest > 0.5, "the upper box slides: {fastest} m/s");
        }
        let report = check.finish();
        assert!(report.approaching > 10_000, "{report}");
        assert_eq!(report.pairs.total, report.approaching, "{report}");
        if mu < 0.3 {
            let agreement = report.pairs.fraction.unwrap();
            assert!(agreement >= 0.98, "μ_b = {mu}: {report}");
            assert!(report.gap_median.unwrap() < 1e-4, "μ_b = {mu}: {report}");
        } else {
            let sticking = report.optimiser_sticks as f64 / report.approaching as f64;
            assert!(sticking >= 0.9, "μ_b = {mu}: {report}");
        }
        eprintln!("μ_b = {mu}: worst {worst:.2e} m/s of {fastest:.3} m/s; {report}");
    }
}

/// A ball launched sliding without spin on a level floor (the bowling-ball problem), as an
/// affine `shape = "sphere"` of radius r = 0.1 m: while it slips, kinetic friction μ m g slows
/// it (v = v₀ − μ g t) and spins it up about its contact (I ω̇ = μ m g r, I = ⅖ m r²); it rolls
/// from t* = 2 v₀/(7 μ g), at v* = 5/7 v₀ — the angular momentum about the contact line,
/// m r v + I ω = m r v₀, is kept through the slip. The mesh is a polyhedron inscribed in the
/// ball: its contact vertex lies up to half the largest node spacing (1/n rad for n cells a
/// side of the cube mapped onto it) off the point below the centre, so the normal force has a
/// moment about the contact line of at most N r/n, which can take at most (r/n) ∫N dt ≈
/// (r/n) m g t* of the angular momentum: v* is low by at most 2/(7 μ n) of itself
/// (relative), and the shortfall shrinks as n grows. Measured at n = 8, 16, 32: −2.3, −0.8,
/// −0.35 %.
#[test]
fn a_ball_launched_sliding_rolls_at_five_sevenths_of_its_speed() {
    let (r, v0, mu) = (0.1, 1.0, 0.2);
    let dir = tempfile::tempdir().unwrap();
    let mut shortfall = Vec::new();
    for n in [8usize, 16, 32] {
        let case = dir.path().join(format!("ball{n}.toml"));
        std::fs::write(
            &case,
            format!(
                "kind = \"scene\"\ndimension = 3\nname = \"a ball launched sliding\"\n\
                 [gravity]\nacceleration = [0.0, 0.0, -{G}]\n\
                 [bodies.ball]\nshape = \"sphere\"\nradius = {r}\ncells = {n}\n\
                 centre = [0.0, 0.0, 0.10005]\nvelocity = [{v0}, 0.0, 0.0]\ndensity = 1000.0\n\
                 material = \"affine\"\nstiffness = 1.0e11\n\
                 [obstacles.floor]\ntype = \"half_space\"\nnormal = [0.0, 0.0, 1.0]\npoint = [0.0, 0.0, 0.0]\n\
                 [friction]\nmu_static = {mu}\nmu_kinetic = {mu}\neps_v = 1.0e-4\n\
                 [barrier]\ndhat = 1.0e-4\nkappa = 1.0e5\n\
                 [time]\nh = 1.0e-3\nduration = 0.3\n\
                 [newton]\ntol = 1.0e-6\nmax_iterations = 200\nmax_halvings = 60\n"
            ),
        )
        .unwrap();
        let out = dir.path().join(format!("out{n}"));
        let (_, _, header, rows) = run_ok(case.to_str().unwrap(), &out, &[]);
        let (t, vx, wy) = (
            column(&header, "t_s"),
            column(&header, "ball.vx_m_per_s"),
            column(&header, "ball.wy_rad_per_s"),
        );
        // Rolling: the ball's point below the centre at rest, v − r ω below a thousandth of v₀.
        let rolling = rows
            .iter()
            .find(|row| row[vx] - r * row[wy] < 1e-3 * v0)
            .unwrap_or_else(|| panic!("n = {n}: the ball never rolls"));
        let e = rolling[vx] / (5.0 / 7.0 * v0) - 1.0;
        let bound = 2.0 / (7.0 * mu * n as f64);
        // Slowed at μ g until it rolls, it rolls from t = (v₀ − v)/(μ g): with v short of 5/7 v₀
        // by |e| of itself, t* (1 + 5/2 |e|), within a step (1 ms) of the row it is seen at.
        let t_star = 2.0 * v0 / (7.0 * mu * G);
        assert!(
            (rolling[t] - t_star).abs() <= 2.5 * bound * t_star + 1e-3,
            "n = {n}: rolls from t = {} s, t* = {t_star} s",
            rolling[t]
        );
        assert!(
            e < 0.0 && -e <= bound,
            "n = {n}: rolls at {} m/s, {:+.3} % of 5/7 v0 (at most −{:.1} % allowed)",
            rolling[vx],
            100.0 * e,
            100.0 * bound
        );
        shortfall.push(-e);
    }
    assert!(
        shortfall.windows(2).all(|w| w[1] < w[0]),
        "the faceting's shortfall shrinks as the mesh is refined: {shortfall:?}"
    );
}
