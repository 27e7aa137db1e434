//! `stickslip run` for a 3D scene (`kind = "scene"`, `dimension = 3`, SPEC.md §7–8): runs a
//! [`SolidRunner`], writes `trajectory.csv` and `summary.json` through a [`StagedDir`] as a 2D
//! scene's run does, and prints every body's verdict and, for a body on an incline or a puck
//! sliding and spinning, the measured answer beside the closed form.

use std::path::{Path, PathBuf};

use crate::analysis::solid_summary::SolidSummary;
use crate::app::output::{OutputError, StagedDir, WrittenBy};
use crate::app::scene_command::{SceneCommandError, SceneRequest};
use crate::console::{BadOption, Progress, emit, one_line};
use crate::number_format::Short;
use crate::run::multibody::solid::{SolidRunner, solid_trajectory_header, solid_trajectory_values};
use crate::run::multibody::stepped::run_to_end;
use crate::scene::multibody::solid::SolidScene;
use crate::scene::multibody::solid_clearance::solid_boundary;

/// `stickslip run CASE --out DIR` for a 3D scene.
pub fn run_solid_scene(request: &SceneRequest) -> Result<(), SceneCommandError> {
    crate::app::scene_command::check_scene_options(request)?;
    let scene = SolidScene::load(request.case, request.set)?;
    check_duration(&scene, request.duration)?;
    let out = request.out.map(Path::to_path_buf).unwrap_or_else(|| {
        PathBuf::from("out").join(
            request
                .case
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "run".into()),
        )
    });
    // The impulse law's backend before anything is written: a bad STICKSLIP_GPU_BACKENDS or
    // `--gpu on` without an adapter leaves the output path as it was.
    let (shared, _) = crate::api::impulse_backend(request.gpu)?;
    let staged = StagedDir::new(
        &out,
        WrittenBy::new("run", crate::scene::multibody::SCENE_KIND),
    )?;
    let mut runner = SolidRunner::new(scene, request.duration)?;
    if request.contacts {
        runner.record_contacts();
    }
    let mut progress = Progress::new(runner.total_steps(), &runner.scene.name.clone());
    // OBJ frames: every body's boundary and every triangle mesh, one object each.
    let surface = request.obj.then(|| {
        let sc = &runner.scene;
        solid_boundary(&sc.bodies, &sc.meshes, sc.first_mesh()).1
    });
    let write_frame = |runner: &SolidRunner| -> Result<(), OutputError> {
        let Some(surface) = &surface else {
            return Ok(());
        };
        let name = format!("frame_{:05}.obj", runner.sim.step);
        staged.write(&name, |path| write_obj(path, runner, surface))
    };
    write_frame(&runner)?;
    let check = crate::api::scene_cross_check(&shared, runner.scene.settings.eps_v);
    run_to_end(&mut runner, check, |r| {
        write_frame(r)?;
        progress.update(r.sim.step);
        Ok::<(), SceneCommandError>(())
    })?;
    progress.finish();
    let summary = runner.summary();
    staged.write("trajectory.csv", |path| write_trajectory(path, &runner))?;
    staged.write("summary.json", |path| write_summary(path, &summary))?;
    if request.contacts {
        staged.write("contacts.csv", |path| {
            crate::app::scene_command::write_contact_rows(
                path,
                &runner.contact_rows,
                runner.scene.settings.eps_v,
                |m| runner.scene.member_name(m),
            )
        })?;
    }
    let dir = staged.commit()?;
    emit(&solid_table(&summary))?;
    emit(&format!(
        "\nwrote {}/trajectory.csv and summary.json{}{}\n",
        dir.display(),
        if request.contacts {
            " and contacts.csv"
        } else {
            ""
        },
        if request.obj {
            format!(" and {} OBJ frames", summary.solver.steps + 1)
        } else {
            String::new()
        }
    ))?;
    crate::app::scene_command::physical_or_error(&summary.case, &summary.physicality, &dir)
}

/// One OBJ frame of a 3D scene: every body's mesh node and every triangle mesh's vertex as a
/// vertex (m; `SolidRunner::mesh_positions`), then per body
/// and triangle mesh an object (`o NAME`) of its boundary triangles, outward for the bodies
/// (the half-spaces are not drawn).
pub fn write_obj(
    path: &Path,
    runner: &SolidRunner,
    surface: &crate::contact::ContactSurface,
) -> Result<(), OutputError> {
    use std::io::Write;
    let f = crate::app::output::io(path, std::fs::File::create(path))?;
    let mut w = std::io::BufWriter::new(f);
    let io = |r| crate::app::output::io(path, r);
    for p in runner.mesh_positions().iter() {
        io(writeln!(w, "v {} {} {}", p.x, p.y, p.z))?;
    }
    let sc = &runner.scene;
    for m in 0..sc.members() {
        let mut faces = surface
            .triangles
            .iter()
            .zip(&surface.triangle_body)
            .filter(|(_, b)| **b == m)
            .peekable();
        if faces.peek().is_none() {
            continue;
        }
        io(writeln!(w, "o {}", sc.member_name(m)))?;
        for (t, _) in faces {
            io(writeln!(w, "f {} {} {}", t[0] + 1, t[1] + 1, t[2] + 1))?;
        }
    }
    io(w.flush())
}

/// `--duration` of a 3D scene: a whole number of its steps, between 1 and the slope's bound.
pub fn check_duration(scene: &SolidScene, duration: Option<f64>) -> Result<(), BadOption> {
    crate::api::check_duration_steps(scene.settings.h, duration)
}

/// Writes a 3D scene's `trajectory.csv` (columns: [`solid_trajectory_header`]).
pub fn write_trajectory(path: &Path, runner: &SolidRunner) -> Result<(), OutputError> {
    crate::app::output::write_number_rows(
        path,
        &solid_trajectory_header(runner),
        runner.rows.iter().map(solid_trajectory_values),
    )
}

/// Writes a 3D scene's `summary.json`.
pub fn write_summary(path: &Path, summary: &SolidSummary) -> Result<(), OutputError> {
    crate::app::output::write_json(path, summary)
}

/// One "measured analytic (error)" line; `-` where either is missing.
fn compare(label: &str, measured: Option<f64>, analytic: Option<f64>, unit: &str) -> String {
    let show = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.6}"));
    let rel = match (measured, analytic) {
        (Some(m), Some(a)) if a != 0.0 => format!("  ({:+.2} %)", 100.0 * (m / a - 1.0)),
        _ => String::new(),
    };
    format!(
        "  {label:<30} {:>12} {:>12} {unit}{rel}\n",
        show(measured),
        show(analytic)
    )
}

/// The table a 3D scene's run prints.
pub fn solid_table(s: &SolidSummary) -> String {
    let mut t = format!(
        "{} (3D scene; h = {} s, {} s)\n\n",
        one_line(&s.case),
        Short(s.h),
        Short(s.duration)
    );
    t.push_str(&format!(
        "{:<16} {:>8} {:>8} {:>9}  {:<14} {}\n",
        "body", "nodes", "tets", "mass kg", "on", "verdict"
    ));
    for b in &s.bodies {
        t.push_str(&format!(
            "{:<16} {:>8} {:>8} {:>9.4}  {:<14} {}\n",
            one_line(&b.name),
            b.nodes,
            b.tetrahedra,
            b.mass_kg,
            one_line(b.support.as_deref().unwrap_or("-")),
            b.verdict
        ));
    }
    t.push_str(&s.physicality.lines("tetrahedra"));
    t.push_str(&crate::app::scene_command::drivers_table(&s.drivers));
    if let (Some(m), Some(a)) = (&s.incline, &s.incline_analytic) {
        t.push_str(&format!(
            "\non the incline ({:.3} degrees)      measured     analytic\n",
            a.angle_deg
        ));
        if a.acceleration_m_per_s2.is_some() {
            t.push_str(&compare(
                "acceleration g(sin - mu_k cos)",
                m.acceleration_m_per_s2,
                a.acceleration_m_per_s2,
                "m/s^2",
            ));
        }
        if a.creep_speed_m_per_s.is_some() {
            t.push_str(&compare(
                "creep speed v* (SPEC.md §6)",
                m.creep_speed_m_per_s,
                a.creep_speed_m_per_s,
                "m/s",
            ));
        }
        t.push_str("  (over the run's second half)\n");
    }
    if let (Some(m), Some(a)) = (&s.slide_or_tip, &s.slide_or_tip_analytic) {
        t.push_str(&crate::app::scene_command::slide_or_tip_lines(m, a));
    }
    if let (Some(m), Some(a)) = (&s.incline_stack, &s.incline_stack_analytic) {
        t.push_str(&format!(
            "\nstacked on the incline ({:.3} degrees) measured    analytic\n",
            a.angle_deg
        ));
        let name = |k: usize| one_line(&s.bodies[k].name);
        t.push_str(&compare(
            &format!("lower ({}) acceleration", name(a.lower)),
            Some(m.lower_acceleration_m_per_s2),
            Some(a.lower_acceleration_m_per_s2),
            "m/s^2",
        ));
        t.push_str(&compare(
            &format!("upper ({}) acceleration", name(a.upper)),
            Some(m.upper_acceleration_m_per_s2),
            Some(a.upper_acceleration_m_per_s2),
            "m/s^2",
        ));
        t.push_str("  (over the run's second half)\n");
    }
    if let (Some(m), Some(a)) = (&s.slide_spin, &s.slide_spin_analytic) {
        t.push_str("\nsliding and spinning (SPEC.md §8)  measured     analytic\n");
        t.push_str(&compare(
            "translation stops at",
            m.slide_stop_s,
            a.slide_stop_s,
            "s",
        ));
        t.push_str(&compare(
            "rotation stops at",
            m.spin_stop_s,
            a.spin_stop_s,
            "s",
        ));
        if a.ratio.is_some() {
            t.push_str(&compare("v/(R omega) near the end", m.ratio, a.ratio, ""));
        }
    }
    if let Some(a) = &s.breakaway_analytic {
        t.push_str(&crate::app::scene_command::breakaway_lines(
            s.breakaway.as_ref(),
            a,
        ));
    }
    if let (Some([lower, upper]), Some(m), Some(a)) = (&s.stack_bodies, &s.stack, &s.stack_analytic)
    {
        t.push_str(&crate::app::scene_command::stack_lines(
            m,
            a,
            [lower, upper, &format!("{upper} on {lower}")],
        ));
    }
    if let Some(c) = &s.cross_check {
        t.push_str(&crate::app::scene_command::cross_check_lines(
            c,
            "a node against a half-space (less a belt's surface velocity), or a pair between bodies or with a triangle mesh at its closest points' relative velocity",
            s.post_pass_seconds,
            s.wall_seconds,
        ));
    }
    t
}
