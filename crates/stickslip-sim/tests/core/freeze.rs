//! A time step that cannot freeze motion (SPEC.md §6, issue 7 finding 3).
//!
//! Newton stops when ‖p‖∞/h < tol. A body at rest in free fall has a first residual of exactly
//! ‖g‖∞·h, so a tol at or above that ends every step before gravity acts and the body hangs in
//! the air. The rule that prevents it is a validation: `newton.tol` (and `--tol`) must be below
//! ‖g‖∞·h, or the case is refused before anything runs.
//!
//! Physics checked: the frictionless square (μ = 0) dropped on the slope (tan θ = 0.1) slides
//! after landing with the centroid's downhill acceleration g sin θ = 0.9761 m/s² exactly: the
//! barrier pushes along the normal only, the springs are internal, and implicit Euler
//! integrates a constant force exactly. For each h ∈ {0.001, 0.005, 0.01, 0.05} at the shipped
//! tol = 0.01 m/s the case either runs and shows that acceleration over t ∈ [2, 4] s, or is
//! refused with a message that says why.

use std::path::Path;

use stickslip_sim::run::runner::{RunOptions, run};
use stickslip_sim::scene::{CaseError, Scene};

/// The steps of the sweep, s.
const STEPS_H: [f64; 4] = [0.001, 0.005, 0.01, 0.05];

/// The requirement of issue 7: within 0.5 % of g sin θ.
const ACCELERATION_REL_TOL: f64 = 5e-3;

/// The book's μ = 0.1 case with μ = 0, the step `h` and the duration 4 s.
fn frictionless(h: f64) -> String {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../cases/slope_mu0.10.toml"),
    )
    .unwrap();
    let mut out = String::new();
    for line in text.lines() {
        let t = line.trim_start();
        let line = if t.starts_with("mu =") {
            "mu = 0.0".to_string()
        } else if t.starts_with("h =") {
            format!("h = {h}")
        } else if t.starts_with("duration =") {
            "duration = 4.0".to_string()
        } else {
            line.to_string()
        };
        out.push_str(&line);
        out.push('\n');
    }
    assert!(out.contains("mu = 0.0") && out.contains(&format!("h = {h}")));
    out
}

/// The downhill acceleration of the centroid over t ∈ [2, 4] s: the least-squares fit of
/// s(t) = s₀ + v₀ t + a t²/2 to the trajectory's downhill distance (the fit averages out the
/// square's elastic rocking).
fn acceleration_2_to_4(t: &[f64], s: &[f64]) -> f64 {
    let mut ata = nalgebra::Matrix3::<f64>::zeros();
    let mut atb = nalgebra::Vector3::<f64>::zeros();
    for (&t, &s) in t.iter().zip(s) {
        if !(2.0 - 1e-9..=4.0 + 1e-9).contains(&t) {
            continue;
        }
        let tau = t - 3.0; // centred, for conditioning
        let row = nalgebra::Vector3::new(1.0, tau, 0.5 * tau * tau);
        ata += row * row.transpose();
        atb += row * s;
    }
    let coef = ata.cholesky().expect("enough samples").solve(&atb);
    coef[2]
}

#[test]
fn the_frictionless_square_accelerates_at_g_sin_theta_or_is_refused() {
    let mut ran = 0;
    for h in STEPS_H {
        let text = frictionless(h);
        let tol = 1e-2; // the shipped newton.tol
        match Scene::from_toml(&text, Path::new("frictionless.toml")) {
            Err(e @ CaseError::Invalid { .. }) => {
                // Refused: only where the first residual of the fall, |g|h, is not above tol.
                assert!(9.81 * h <= tol, "h = {h}: refused although |g|h > tol: {e}");
                assert_eq!(e.key(), "newton.tol", "h = {h}: {e}");
                let msg = e.to_string();
                assert!(
                    msg.contains("hangs in the air") && msg.contains("SPEC.md §6"),
                    "h = {h}: the message explains: {msg}"
                );
            }
            Err(e) => panic!("h = {h}: {e}"),
            Ok(scene) => {
                assert!(9.81 * h > tol, "h = {h}: accepted although |g|h <= tol");
                let g = scene.gravity.norm();
                let sin_theta = scene.normal.x.abs(); // n = (sin θ, cos θ) for this slope
                let expect = g * sin_theta;
                let r = run(scene, &RunOptions::default(), None, |_, _| {}).unwrap();
                let t: Vec<f64> = r.rows.iter().map(|row| row.t).collect();
                let s: Vec<f64> = r.rows.iter().map(|row| row.downhill_distance).collect();
                let a = acceleration_2_to_4(&t, &s);
                eprintln!("h = {h}: a = {a:.5} m/s², g sin θ = {expect:.5} m/s²");
                assert!(
                    ((a - expect) / expect).abs() <= ACCELERATION_REL_TOL,
                    "h = {h}: downhill acceleration {a} m/s², expected {expect} m/s² within 0.5 %"
                );
                ran += 1;
            }
        }
    }
    assert_eq!(ran, 3, "h = 0.005, 0.01 and 0.05 run at tol = 0.01 m/s");
}

/// The refusal's advice works: at h = 0.001 with tol lowered to 10⁻³ m/s (below |g|h =
/// 9.81·10⁻³ m/s) the case runs and the square slides at g sin θ.
#[test]
fn a_lower_tolerance_makes_the_small_step_run() {
    let text = frictionless(0.001).replace("tol = 1.0e-2", "tol = 1.0e-3");
    assert!(text.contains("tol = 1.0e-3"));
    let scene = Scene::from_toml(&text, Path::new("frictionless.toml")).unwrap();
    let expect = scene.gravity.norm() * scene.normal.x.abs();
    let r = run(scene, &RunOptions::default(), None, |_, _| {}).unwrap();
    let t: Vec<f64> = r.rows.iter().map(|row| row.t).collect();
    let s: Vec<f64> = r.rows.iter().map(|row| row.downhill_distance).collect();
    let a = acceleration_2_to_4(&t, &s);
    assert!(
        ((a - expect) / expect).abs() <= ACCELERATION_REL_TOL,
        "downhill acceleration {a} m/s², expected {expect} m/s²"
    );
}
