//! `stickslip plot`: a two-panel PNG with one distinguishable curve a case, drawn from the same
//! runner as `stickslip run` (the plotted data equal `run`'s `trajectory.csv` exactly).

use std::path::Path;
use std::process::Command;

use stickslip::app::output::read_trajectory;
use stickslip::app::plot;
use stickslip::graphics::{Rgb, case_colour};

use crate::picture;
use picture::Picture;

const BIN: &str = env!("CARGO_BIN_EXE_stickslip");
/// Channel tolerance for "this pixel is the curve's colour": plotters draws the 2 px lines with
/// flat colour, anti-aliased only at their edges.
const CHANNEL_TOL: i32 = 10;
/// A curve covers at least this share of its panel's width: 8 s of data across the time axis
/// (a legend swatch covers about 2 %).
const MIN_SPAN: f64 = 0.6;

#[test]
fn plot_draws_three_curves_from_the_runs_trajectories() {
    let dir = tempfile::tempdir().unwrap();
    let fig = dir.path().join("fig.png");
    let data = dir.path().join("data");
    let o = Command::new(BIN)
        .arg("plot")
        .arg("--out")
        .arg(&fig)
        .arg("--data")
        .arg(&data)
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    let pic = Picture::read(&fig);
    let (w, h) = (pic.w, pic.h);
    assert_eq!((w, h), (1200, 900));

    let split = plot::panel_split(h as u32) as usize;
    for (panel, rows) in [("distance", 0..split), ("speed", split..h)] {
        for k in 0..3 {
            let c: Rgb = case_colour(k);
            let mut n = 0usize;
            let (mut lo, mut hi) = (w, 0);
            for y in rows.clone() {
                for x in 0..w {
                    if pic.is(x as i32, y as i32, c, CHANNEL_TOL) {
                        n += 1;
                        lo = lo.min(x);
                        hi = hi.max(x);
                    }
                }
            }
            assert!(n > 300, "{panel} panel: curve {k} has {n} pixels");
            let span = (hi.saturating_sub(lo)) as f64 / w as f64;
            assert!(
                span >= MIN_SPAN,
                "{panel} panel: curve {k} spans {span:.2} of the width"
            );
        }
    }

    // Same runner as `run`: the data plotted equal run's trajectory.csv, row for row.
    for stem in ["slope_mu0.10", "slope_mu0.11", "slope_mu0.20"] {
        let out = dir.path().join(format!("run_{stem}"));
        let case = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("cases/{stem}.toml"));
        let o = Command::new(BIN)
            .arg("run")
            .arg(&case)
            .arg("--out")
            .arg(&out)
            .args(["--gpu", "off"])
            .output()
            .unwrap();
        assert!(o.status.success(), "{o:?}");
        let ran = read_trajectory(&out.join("trajectory.csv")).unwrap();
        let plotted = read_trajectory(&data.join(format!("{stem}.csv"))).unwrap();
        assert_eq!(ran.len(), 801, "8 s at h = 0.01 s and t = 0");
        assert_eq!(plotted, ran, "{stem}");
    }
    // The three curves separate (Figure 10.2.1): μ = 0.1 goes furthest, μ = 0.2 least.
    let last = |stem: &str| {
        read_trajectory(&data.join(format!("{stem}.csv")))
            .unwrap()
            .last()
            .unwrap()
            .downhill_distance
    };
    assert!(last("slope_mu0.10") > last("slope_mu0.11"));
    assert!(last("slope_mu0.11") > last("slope_mu0.20"));
}

#[test]
fn plot_fails_cleanly_on_a_bad_case_and_leaves_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let fig = dir.path().join("fig.png");
    let o = Command::new(BIN)
        .args(["plot", "no/such/case.toml", "--out"])
        .arg(&fig)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    assert!(!fig.exists());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

/// A scene case gets its own figure from the same runner as `stickslip run`: the plotted data
/// equal `run`'s files byte for byte (the summary apart from its wall time and the cross-check,
/// which a figure does not run), and the belt's figure draws the spring force reaching the
/// dashed μ_s N line (SPEC.md §8) at its peaks.
#[test]
fn a_scene_case_is_plotted_from_its_run_with_the_closed_form_dashed() {
    use stickslip::app::scene_plot::ANALYTIC;
    let dir = tempfile::tempdir().unwrap();
    let (fig, data, run) = (
        dir.path().join("belt.png"),
        dir.path().join("data"),
        dir.path().join("run"),
    );
    let case = "cases/belt_stick_slip.toml";
    let o = Command::new(BIN)
        .args(["plot", case, "--duration", "8", "--out"])
        .arg(&fig)
        .arg("--data")
        .arg(&data)
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    let o = Command::new(BIN)
        .args(["run", case, "--duration", "8", "--out"])
        .arg(&run)
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    let read = |p: &Path| std::fs::read_to_string(p).unwrap();
    assert_eq!(
        read(&data.join("trajectory.csv")),
        read(&run.join("trajectory.csv"))
    );
    // The same summary but for the wall time and the cross-check, which a figure does not run.
    let summary = |p: &Path| {
        let mut v: serde_json::Value = serde_json::from_str(&read(p)).unwrap();
        for key in ["wall_seconds", "cross_check", "post_pass_seconds"] {
            v.as_object_mut().unwrap().remove(key);
        }
        v
    };
    let s = summary(&data.join("summary.json"));
    assert_eq!(s, summary(&run.join("summary.json")));

    let pic = Picture::read(&fig);
    let (w, h) = (pic.w, pic.h);
    // The upper panel (the force): the rows the dashed grey lines run along (over a third of
    // the width: a legend swatch is 24 px), and the measured curve's highest pixel left of
    // 0.6 w (the first two peaks, at t ≈ 3.0 and 5.8 s of 8; the legend is on the right).
    let top = 0..h / 2;
    let dashed: Vec<usize> = top
        .clone()
        .filter(|&y| {
            (0..w)
                .filter(|&x| pic.is(x as i32, y as i32, ANALYTIC, CHANNEL_TOL))
                .count()
                > w / 3
        })
        .collect();
    assert!(!dashed.is_empty(), "no dashed line in the force panel");
    let measured = case_colour(0);
    let peak = top
        .clone()
        .find(|&y| (0..w * 6 / 10).any(|x| pic.is(x as i32, y as i32, measured, CHANNEL_TOL)))
        .expect("no measured force curve");
    // F_max is the highest dashed line; the pixels of one line span its 2 px width.
    let f_max_row = dashed[0];
    assert!(
        peak.abs_diff(f_max_row) <= 4,
        "the force peaks at pixel row {peak}, the μ_s N line is at {f_max_row}"
    );
    // Both closed-form lines are there: F_max and F_min, well apart.
    assert!(
        dashed.last().unwrap() - f_max_row > h / 8,
        "one dashed line only: rows {dashed:?}"
    );
}

/// A scene case among others is refused before anything runs or is written.
#[test]
fn a_scene_case_among_others_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let fig = dir.path().join("fig.png");
    let o = Command::new(BIN)
        .args([
            "plot",
            "cases/slope_mu0.11.toml",
            "cases/belt_stick_slip.toml",
            "--out",
        ])
        .arg(&fig)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("belt_stick_slip.toml") && err.contains("alone"),
        "{err}"
    );
    assert!(!fig.exists());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

/// A 3D scene case gets its figure from the same runner as `stickslip run` (the plotted data
/// equal `run`'s `trajectory.csv`; the summary too, but for the wall time and the cross-check,
/// which a figure does not run), and what is drawn for the box launched across the incline is
/// its centroid against the sliding point mass (the plot's own RK4): they agree within 1 % of
/// the path at every drawn time (tests/scene/solid_scenes.rs checks the same path against its own
/// RK4 at 10 µs), and the ε = v/(R ω) panel of the puck ends near SPEC.md §8's 0.653 line.
#[test]
fn a_3d_scene_is_plotted_from_its_run_with_its_reference_dashed() {
    use stickslip::app::solid_plot::{solid_panels, value_at};
    use stickslip::run::multibody::solid::SolidRunner;
    use stickslip::scene::multibody::solid::SolidScene;
    use stickslip::scene::overrides::Override;
    let dir = tempfile::tempdir().unwrap();
    let (fig, data, run) = (
        dir.path().join("across.png"),
        dir.path().join("data"),
        dir.path().join("run"),
    );
    let case = "cases/box3d_incline.toml";
    let across = "bodies.box.velocity=[0,1,0]";
    let o = Command::new(BIN)
        .args(["plot", case, "--set", across, "--out"])
        .arg(&fig)
        .arg("--data")
        .arg(&data)
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    let o = Command::new(BIN)
        .args(["run", case, "--gpu", "off", "--set", across, "--out"])
        .arg(&run)
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    let read = |p: &Path| std::fs::read_to_string(p).unwrap();
    assert_eq!(
        read(&data.join("trajectory.csv")),
        read(&run.join("trajectory.csv"))
    );
    let summary = |p: &Path| {
        let mut v: serde_json::Value = serde_json::from_str(&read(p)).unwrap();
        for key in ["wall_seconds", "cross_check", "post_pass_seconds"] {
            v.as_object_mut().unwrap().remove(key);
        }
        v
    };
    assert_eq!(
        summary(&data.join("summary.json")),
        summary(&run.join("summary.json"))
    );
    let pic = Picture::read(&fig);
    assert_eq!((pic.w, pic.h), (1200, 900));

    let finished = |settings: &[&str]| {
        let overrides: Vec<Override> = settings
            .iter()
            .map(|s| Override::parse(s).unwrap())
            .collect();
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(if settings.is_empty() {
            "cases/puck_spin.toml"
        } else {
            case
        });
        let mut r = SolidRunner::new(SolidScene::load(&path, &overrides).unwrap(), None).unwrap();
        while !r.done() {
            r.step().unwrap();
        }
        r
    };
    let panels = solid_panels(&finished(&[across]));
    assert_eq!(panels.len(), 2);
    // The path's length at 1 s (1.225 m, docs/scenes.md); 1 % of it.
    let allowed = 0.01 * 1.225;
    for p in &panels {
        let (body, point_mass) = (&p.curves[0], &p.curves[1]);
        assert!(!body.analytic && point_mass.analytic);
        for &(t, y) in body.points.iter().step_by(50) {
            let reference = value_at(point_mass, t).unwrap();
            assert!(
                (y - reference).abs() < allowed,
                "{}: t = {t}: {y} vs {reference}",
                p.title
            );
        }
    }
    let panels = solid_panels(&finished(&[]));
    let ratio = &panels[1];
    let measured = ratio.curves[0].points.last().unwrap().1;
    assert!((ratio.curves[1].points[0].1 - 0.653).abs() < 1e-12);
    assert!(
        (measured / 0.653 - 1.0).abs() < 0.05,
        "ε at the end {measured}"
    );
}

/// A 3D case without a closed form (the football of seed 004, in its first flight) is drawn as
/// each body's centroid speed and rotation speed ρ|ω| with ε_v. In flight only gravity acts on
/// the centroid, and the elastic forces and every projected element block have translations in
/// their null space (Σₐ Gₐ = 0), so summing Newton's system over the nodes gives
/// Σ mᵢ xᵢ = Σ mᵢ (x̃ᵢ + h² g) after any full step, converged or not: the drawn speed is
/// |v₀ + g t| to rounding (≈ 1e-15 of 7.5 m/s a step; 1e-6 m/s allowed over 1 000 steps). The
/// rotation panel starts at ρ|ω₀|, the release's rigid spin measured from the nodes.
#[test]
fn a_3d_case_without_a_closed_form_is_drawn_as_its_speeds() {
    use stickslip::app::solid_plot::{reach, solid_panels};
    use stickslip::run::multibody::solid::SolidRunner;
    use stickslip::scene::multibody::solid::SolidScene;
    use stickslip::scene::overrides::Override;
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("cases/football3d.toml");
    let overrides = [Override::parse("time.duration=0.1").unwrap()];
    let scene = SolidScene::load(&path, &overrides).unwrap();
    // cases/football3d.toml's release and gravity.
    let v0 = nalgebra::Vector3::new(4.944514087, 0.5, 5.549935175);
    let w0 = nalgebra::Vector3::new(1.913609378, 9.0, 2.754650459);
    let g = nalgebra::Vector3::new(0.0, 0.0, -9.81);
    let rho = reach(&scene.bodies[0].mesh.x0);
    let mut r = SolidRunner::new(scene, None).unwrap();
    while !r.done() {
        r.step().unwrap();
    }
    let panels = solid_panels(&r);
    assert_eq!(panels.len(), 2);
    let (speed, spin) = (&panels[0], &panels[1]);
    assert!(speed.log_y && spin.log_y);
    let eps_v = r.scene.settings.eps_v;
    for p in &panels {
        let line = p.curves.last().unwrap();
        assert!(line.analytic && line.points.iter().all(|&(_, y)| y == eps_v));
    }
    assert!(speed.curves[0].points.len() > 900);
    for &(t, y) in &speed.curves[0].points {
        let expected = (v0 + g * t).norm();
        assert!((y - expected).abs() < 1e-6, "t = {t}: {y} vs {expected}");
    }
    let (t, start) = spin.curves[0].points[0];
    let expected: f64 = rho * w0.norm();
    assert!(
        t == 0.0 && (start / expected - 1.0).abs() < 1e-9,
        "{start} vs {expected}"
    );
}

/// The 3D driver cases are drawn as the 2D ones are (the same panels): the box pulled by a
/// spring along +x on level ground (cases/pulled_block3d.toml) as the spring's force along x
/// (trajectory.csv's `spring.fx_N`, exactly) with μ_s m g = 0.6 · 1 kg · 9.81 = 5.886 N and
/// the breakaway time μ_s m g/(k v) = 5.886/(200 · 0.05) = 0.5886 s dashed, and its velocity
/// along x (`block.vx_m_per_s`); the stack pulled along +x on frictionless ground
/// (cases/stack_pull3d.toml, F = 100 N, m₁ = 16, m₂ = 4 kg, μ = 0.3 between) as both
/// velocities along x with a₁ t and a₂ t at a₂ = μ g = 2.943 and a₁ = (F − μ m₂ g)/m₁ =
/// 5.51425 m/s², and the upper's speed over the lower with 2 ε_v.
#[test]
fn the_3d_driver_cases_are_drawn_with_their_closed_forms() {
    use stickslip::app::solid_plot::solid_panels;
    use stickslip::run::multibody::solid::SolidRunner;
    use stickslip::scene::multibody::solid::SolidScene;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let finished = |case: &str| {
        let mut r =
            SolidRunner::new(SolidScene::load(&root.join(case), &[]).unwrap(), None).unwrap();
        while !r.done() {
            r.step().unwrap();
        }
        r
    };
    let close = |a: f64, b: f64| (a / b - 1.0).abs() < 1e-9;

    let r = finished("cases/pulled_block3d.toml");
    let panels = solid_panels(&r);
    assert_eq!(panels.len(), 2);
    let force = &panels[0].curves;
    assert_eq!(force[0].points.len(), r.rows.len());
    for (p, row) in force[0].points.iter().zip(&r.rows) {
        assert_eq!(*p, (row.t, row.drivers[0].x.abs()));
    }
    assert!(force[1].analytic && force[1].points.iter().all(|p| close(p.1, 5.886)));
    assert!(force[2].analytic && force[2].points.iter().all(|p| close(p.0, 0.5886)));
    for (p, row) in panels[1].curves[0].points.iter().zip(&r.rows) {
        assert_eq!(*p, (row.t, row.bodies[0].velocity.x));
    }

    let r = finished("cases/stack_pull3d.toml");
    let panels = solid_panels(&r);
    assert_eq!(panels.len(), 2);
    let v = &panels[0].curves;
    for (k, curve) in v[..2].iter().enumerate() {
        for (p, row) in curve.points.iter().zip(&r.rows) {
            assert_eq!(*p, (row.t, row.bodies[k].velocity.x));
        }
    }
    let t_end = r.rows.last().unwrap().t;
    for (curve, a) in v[2..]
        .iter()
        .zip([(100.0 - 0.3 * 4.0 * 9.81) / 16.0, 0.3 * 9.81])
    {
        assert!(curve.analytic);
        assert!(
            close(curve.points.last().unwrap().1, a * t_end),
            "{curve:?}"
        );
    }
    let slip = &panels[1].curves;
    assert!(slip[1].analytic && slip[1].points.iter().all(|p| close(p.1, 2.0 * 1e-4)));
}
