//! The barrier's normal damping (`barrier.damping`, `contact::potentials::normal_damping`,
//! docs/model.md "Contact damping") against the damped oscillator it makes, derived here.
//!
//! A stiff 2D box (1 kg, springs of 10⁸ N/m) rests on a floor on its two bottom nodes, which
//! share its weight equally, so that its one slow mode is the vertical oscillation on the
//! barrier's stiffness k (the box's own modes are 10² times faster and implicit Euler damps
//! them out within a few steps). Near the resting gap d* the barrier is a linear spring, and
//! the damping a dashpot c = β_c k; with implicit Euler at step h the displacement u from rest
//! obeys
//!
//!   m (uₙ₊₁ − 2uₙ + uₙ₋₁)/h² = −k uₙ₊₁ − c (uₙ₊₁ − uₙ)/h,
//!
//! whose modes uₙ ∝ zⁿ solve (1 + hβ_cΩ² + h²Ω²) z² − (2 + hβ_cΩ²) z + 1 = 0, Ω² = k/m: the
//! oscillation turns by arg z per step and its amplitude falls by |z| per step, so its period
//! is 2πh/arg z and its logarithmic decrement (the log of one peak over the next) is
//! −(2π/arg z) ln |z|. Without damping (β_c = 0) z = (1 ± iΩh)/(1 + Ω²h²): arg z = atan(Ωh),
//! which gives Ω from the measured period, and the decrement ½ (2π/arg z) ln(1 + Ω²h²) is
//! implicit Euler's own. With β_c the same Ω predicts both the period and the decrement.

use std::path::Path;
use std::process::Command;

const CASE: &str = r#"
kind = "scene"
name = "a stiff box resting on its barrier"

[gravity]
acceleration = [0.0, -9.81]

[bodies.box]
shape = "box"
width = 0.1
height = 0.1
nx = 1
ny = 1
centre = [0.0, 0.0505]
density = 100.0
stiffness = 1.0e8

[obstacles.floor]
type = "half_space"
normal = [0.0, 1.0]
point = [0.0, 0.0]

[friction]
mu_static = 0.5
mu_kinetic = 0.5
eps_v = 1.0e-3

[barrier]
dhat = 1.0e-3
kappa = 55.0

[time]
h = 1.0e-4
duration = 0.3

[newton]
tol = 1.0e-7
max_iterations = 200
max_halvings = 60
"#;

const H: f64 = 1e-4;
const DHAT: f64 = 1e-3;
/// β_c of the damped run, s: ζ = β_c Ω/2 ≈ 0.05 at the Ω ≈ 190 rad/s of this box.
const BETA: f64 = 5e-4;

/// Runs the case at `dir/case.toml` with `args`: the columns t, y and min_distance of
/// trajectory.csv.
fn run(dir: &Path, out: &str, args: &[&str]) -> Vec<[f64; 3]> {
    let out = dir.join(out);
    let o = Command::new(env!("CARGO_BIN_EXE_stickslip"))
        .arg("run")
        .arg(dir.join("case.toml"))
        .args(["--gpu", "off", "--out"])
        .arg(&out)
        .args(args)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(out.join("trajectory.csv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (t, y, d) = (col("t_s"), col("box.y_m"), col("box.min_distance_m"));
    lines
        .map(|l| {
            let v: Vec<f64> = l.split(',').map(|x| x.parse().unwrap()).collect();
            [v[t], v[y], v[d]]
        })
        .collect()
}

/// The mean period (between upward crossings of `y_rest`, interpolated) and the logarithmic
/// decrements between successive peaks above it.
fn period_and_decrements(rows: &[[f64; 3]], y_rest: f64) -> (f64, Vec<f64>) {
    let mut crossings = Vec::new();
    for w in rows.windows(2) {
        let (a, b) = (w[0][1] - y_rest, w[1][1] - y_rest);
        if a < 0.0 && b >= 0.0 {
            crossings.push(w[0][0] + (w[1][0] - w[0][0]) * (-a) / (b - a));
        }
    }
    assert!(crossings.len() >= 5, "{} upward crossings", crossings.len());
    let peaks: Vec<f64> = crossings
        .windows(2)
        .map(|c| {
            rows.iter()
                .filter(|r| r[0] >= c[0] && r[0] <= c[1])
                .map(|r| r[1] - y_rest)
                .fold(f64::MIN, f64::max)
        })
        .collect();
    let period = (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f64;
    let decrements = peaks.windows(2).map(|p| (p[0] / p[1]).ln()).collect();
    (period, decrements)
}

/// (period, decrement) of the discrete oscillator in the module comment, Ω in rad/s.
fn predicted(omega: f64, beta: f64) -> (f64, f64) {
    let w2 = omega * omega;
    let (a, b) = (1.0 + H * beta * w2 + H * H * w2, -(2.0 + H * beta * w2));
    // Complex roots (b² < 4a): z = (−b ± i√(4a − b²))/(2a).
    let (re, im) = (-b / (2.0 * a), (4.0 * a - b * b).sqrt() / (2.0 * a));
    let (turn, radius) = (im.atan2(re), (re * re + im * im).sqrt());
    (
        2.0 * std::f64::consts::PI * H / turn,
        -(2.0 * std::f64::consts::PI / turn) * radius.ln(),
    )
}

/// The box set off 2 % of its resting gap above rest oscillates as the discrete damped
/// oscillator predicts, without damping and with β_c = 0.5 ms: decrements within 2 % (the
/// amplitude is 2 % of d*, the size of the barrier's departure from a linear spring over it),
/// the damped period within 0.5 %.
#[test]
fn a_box_on_its_damped_barrier_oscillates_as_the_discrete_dashpot_predicts() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("case.toml"), CASE).unwrap();
    // Rest: a heavily damped run settles on the barrier.
    let rest = run(
        dir.path(),
        "rest",
        &["--set", "barrier.damping=5e-3", "--duration", "0.5"],
    );
    let [_, y_rest, gap] = *rest.last().unwrap();
    assert!(gap > 0.1 * DHAT && gap < 0.9 * DHAT, "resting gap {gap}");
    let start = format!("bodies.box.centre=[0.0, {}]", y_rest + 0.02 * gap);
    let free = run(dir.path(), "free", &["--set", &start]);
    let damped = run(
        dir.path(),
        "damped",
        &["--set", &start, "--set", &format!("barrier.damping={BETA}")],
    );
    let (period0, dec0) = period_and_decrements(&free, y_rest);
    let omega = (2.0 * std::f64::consts::PI * H / period0).tan() / H;
    let (_, want0) = predicted(omega, 0.0);
    let (want_period, want1) = predicted(omega, BETA);
    let (period1, dec1) = period_and_decrements(&damped, y_rest);
    println!(
        "Omega {omega:.2} rad/s; undamped decrement {:.5} (predicted {want0:.5}); damped period {period1:.6} s (predicted {want_period:.6}), decrement {:.5} (predicted {want1:.5})",
        dec0[0], dec1[0]
    );
    for (i, d) in dec0.iter().take(4).enumerate() {
        assert!(
            (d - want0).abs() <= 0.02 * want0,
            "undamped decrement {i}: {d} vs {want0}"
        );
    }
    for (i, d) in dec1.iter().take(4).enumerate() {
        assert!(
            (d - want1).abs() <= 0.02 * want1,
            "damped decrement {i}: {d} vs {want1}"
        );
    }
    assert!(
        (period1 - want_period).abs() <= 0.005 * want_period,
        "damped period {period1} vs {want_period}"
    );
}

/// A negative β_c is refused by key, exit 2.
#[test]
fn a_negative_contact_damping_is_refused_by_key() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("case.toml"), CASE).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_stickslip"))
        .arg("run")
        .arg(dir.path().join("case.toml"))
        .args(["--gpu", "off", "--out"])
        .arg(dir.path().join("out"))
        .args(["--set", "barrier.damping=-1e-3"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("barrier.damping"), "{err}");
    assert!(!dir.path().join("out").exists());
}
