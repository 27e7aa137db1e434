//! `stickslip run` for a 3D scene (`kind = "scene"`, `dimension = 3`, SPEC.md §7–8): what it
//! writes and prints beside what every scene's run shares
//! ([`crate::app::scene_command::run_scene_case`]): `trajectory.csv` ([`SolidRunner`]'s
//! rows), `summary.json`, the OBJ frames (`--obj`), and a table of every body's verdict and, for
//! a body on an incline or a puck sliding and spinning, the measured answer beside the closed
//! form.

use std::path::Path;

use crate::analysis::solid_summary::SolidSummary;
use crate::app::output::OutputError;
use crate::app::scene_command::{SceneCommandError, SceneOutputs, SceneRequest, run_scene_case};
use crate::app::vtk_output::{ObstacleCells, VtkScene};
use crate::console::{BadOption, one_line};
use crate::contact::ContactSurface;
use crate::energy::Vec3;
use crate::number_format::Short;
use crate::run::multibody::solid::SolidRunner;
use crate::scene::multibody::solid::SolidScene;
use crate::scene::multibody::solid_clearance::solid_boundary;
use crate::scene::{CaseError, Override};

/// `stickslip run CASE --out DIR` for a 3D scene ([`run_scene_case`]).
pub fn run_solid_scene(request: &SceneRequest) -> Result<(), SceneCommandError> {
    run_scene_case::<SolidScene, 3>(request)
}

impl SceneOutputs<3> for SolidScene {
    type Frames = ContactSurface;

    fn check_options(_: &SceneRequest) -> Result<(), SceneCommandError> {
        Ok(())
    }

    fn load(case: &Path, set: &[Override]) -> Result<Self, CaseError> {
        SolidScene::load(case, set)
    }

    fn member(&self, m: usize) -> &str {
        self.member_name(m)
    }

    /// Every body's boundary and every triangle mesh, one object each.
    fn frames(runner: &SolidRunner, request: &SceneRequest) -> Option<ContactSurface> {
        request.obj.then(|| {
            let sc = &runner.scene;
            solid_boundary(&sc.bodies, &sc.obstacles.meshes, sc.first_mesh()).1
        })
    }

    fn write_frame(
        path: &Path,
        runner: &SolidRunner,
        surface: &ContactSurface,
    ) -> Result<(), OutputError> {
        write_obj(path, runner, surface)
    }

    fn table(summary: &SolidSummary) -> String {
        solid_table(summary)
    }

    fn wrote(dir: &Path, request: &SceneRequest, summary: &SolidSummary) -> String {
        format!(
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
        )
    }
}

impl VtkScene<3> for SolidScene {
    fn element_nodes(&self, k: usize) -> Vec<usize> {
        self.bodies[k].mesh.tets.concat()
    }

    fn node_masses(&self, k: usize) -> &[f64] {
        &self.bodies[k].mesh.mass
    }

    fn obstacle_cells(&self, lo: &Vec3, hi: &Vec3) -> ObstacleCells {
        let mut cells = ObstacleCells::default();
        for (i, (_, h)) in self.obstacles.half_spaces.iter().enumerate() {
            cells.push_half_space(&h.normal, &h.point, lo, hi, self.bodies.len() + i);
        }
        let first = self.first_mesh();
        for (i, (_, m)) in self.obstacles.meshes.iter().enumerate() {
            for t in &m.triangles {
                let p = t.map(|v| m.vertices[v]);
                cells.push(vtkio::model::CellType::Triangle, &p, first + i);
            }
        }
        cells
    }
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
