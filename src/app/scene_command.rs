//! `stickslip run` for case files of `kind = "scene"` (SPEC.md §7–8), 2D and 3D alike
//! ([`run_scene_case`]): runs the scene's [`Runner`], writes `trajectory.csv` and
//! `summary.json` through a [`StagedDir`] (a failed run leaves nothing) and prints every body's
//! verdict; what a 2D scene writes and prints ([`SceneOutputs`] for [`MultibodyScene`]: the
//! stick–slip cycle or the breakaway beside SPEC.md §8's closed form where the scene has one)
//! is here, a 3D scene's in `solid_scene_command`.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::analysis::Summarised;
use crate::analysis::summary::SceneSummary;
use crate::app::output::{OutputError, StageError, StagedDir, WrittenBy, io};
use crate::app::vtk_output::{COLLECTION, ObstacleCells, VTK_DIR, VtkFrames, VtkScene};
use crate::console::{BadOption, EmitError, Progress, emit, one_line};
use crate::energy::Vec2;
use crate::number_format::Short;
use crate::run::multibody::stepped::run_to_end;
use crate::run::multibody::{
    ContactRow, ContactState, DriverSummary, RunScene, Runner, SceneRunError, SceneRunner,
};
use crate::scene::multibody::MultibodyScene;
use crate::scene::{CaseError, Override};

/// What `stickslip run` was asked for a scene.
pub struct SceneRequest<'a> {
    /// The case file.
    pub case: &'a Path,
    /// `--duration`, s.
    pub duration: Option<f64>,
    /// Whether `--tol` was given (refused: the case's `newton.tol` is the one setting).
    pub tol_given: bool,
    /// Whether `--obj` was given (refused).
    pub obj: bool,
    /// `--out DIR` (default `out/<case file stem>`).
    pub out: Option<&'a Path>,
    /// `--set` overrides.
    pub set: &'a [Override],
    /// `--contacts`: also write `contacts.csv`.
    pub contacts: bool,
    /// `--gpu`: the impulse law's backend for the scene's cross-check.
    pub gpu: crate::gpu::GpuMode,
    /// `--vtk`: also write the ParaView frames ([`crate::app::vtk_output`]).
    pub vtk: bool,
    /// `--vtk-stride`: write every this-many-th step's frame (steps; default 1).
    pub vtk_stride: Option<usize>,
}

/// Errors of `stickslip run` on a scene; the CLI maps them to its own.
#[derive(Debug, thiserror::Error)]
pub enum SceneCommandError {
    /// Bad case file (exit 2).
    #[error(transparent)]
    Case(#[from] CaseError),
    /// The impulse law's backend could not be set up (the scene's cross-check).
    #[error(transparent)]
    Backend(#[from] crate::api::BackendSetupError),
    /// Bad option value (exit 2).
    #[error(transparent)]
    Option(#[from] BadOption),
    /// The run failed (exit 1).
    #[error(transparent)]
    Run(#[from] SceneRunError),
    /// An output file could not be written (exit 1).
    #[error(transparent)]
    Output(#[from] OutputError),
    /// The output directory could not be staged, or is not stickslip's to write.
    #[error(transparent)]
    Stage(#[from] StageError),
    /// Standard output closed.
    #[error(transparent)]
    Emit(#[from] EmitError),
    /// The run completed and its outputs were written, but a body inverted or penetrated
    /// (exit 3, [`crate::run::physical::NOT_PHYSICAL_EXIT_CODE`]).
    #[error(
        "{case}: the run completed but its result is not physical ({reasons}); its outputs in {dir} are for inspection"
    )]
    NotPhysical {
        /// Case name.
        case: String,
        /// What happened, in a few words ([`crate::run::physical::Physicality::reasons`]).
        reasons: String,
        /// The output directory written.
        dir: PathBuf,
    },
}

/// `Err` with [`SceneCommandError::NotPhysical`] when `physicality` says a body of case `case`
/// inverted or penetrated; its outputs are in `dir`.
pub fn physical_or_error(
    case: &str,
    physicality: &crate::run::physical::Physicality,
    dir: &Path,
) -> Result<(), SceneCommandError> {
    match physicality.reasons() {
        Some(reasons) => Err(SceneCommandError::NotPhysical {
            case: case.to_string(),
            reasons,
            dir: dir.to_path_buf(),
        }),
        None => Ok(()),
    }
}

fn reject(option: &str, given: bool, rule: &str) -> Result<(), BadOption> {
    if given {
        Err(BadOption::new(option, rule, "given"))
    } else {
        Ok(())
    }
}

/// The options every scene's run checks first (2D and 3D alike): `--duration` finite and > 0,
/// no `--tol`.
pub fn check_scene_options(request: &SceneRequest) -> Result<(), SceneCommandError> {
    crate::console::check_positive("--duration", request.duration)?;
    reject(
        "--tol",
        request.tol_given,
        "does not apply to a scene case (set newton.tol in the case, or --set newton.tol=…)",
    )?;
    reject(
        "--vtk-stride",
        request.vtk_stride.is_some() && !request.vtk,
        "applies with --vtk (the steps between ParaView frames)",
    )?;
    if request.vtk_stride == Some(0) {
        return Err(BadOption::new("--vtk-stride", "must be at least 1 (steps)", 0).into());
    }
    Ok(())
}

/// What `stickslip run` writes and prints for a scene of dimension `D`, beside what every
/// scene's run shares ([`run_scene_case`]): its options, its trajectory, summary and table, and
/// (3D) its OBJ frames, and (`--vtk`) its ParaView frames' cells ([`VtkScene`]).
pub trait SceneOutputs<const D: usize>: Summarised<D> + VtkScene<D> {
    /// What an OBJ frame needs (its boundary surface), when `--obj` is given.
    type Frames;

    /// Refuses the options this dimension does not take (after [`check_scene_options`]).
    fn check_options(request: &SceneRequest) -> Result<(), SceneCommandError>;
    /// The scene of case file `case` with overrides `set` applied.
    fn load(case: &Path, set: &[Override]) -> Result<Self, CaseError>;
    /// The name of member `m` of the friction table (a body, then an obstacle).
    fn member(&self, m: usize) -> &str;
    /// What the OBJ frames need, when `--obj` was asked for.
    fn frames(runner: &Runner<Self, D>, request: &SceneRequest) -> Option<Self::Frames>;
    /// Writes the frame of `runner`'s current state to `path`.
    fn write_frame(
        path: &Path,
        runner: &Runner<Self, D>,
        frames: &Self::Frames,
    ) -> Result<(), OutputError>;
    /// The table the run prints.
    fn table(summary: &Self::Summary) -> String;
    /// The line naming what was written to `dir`.
    fn wrote(dir: &Path, request: &SceneRequest, summary: &Self::Summary) -> String;
}

/// `stickslip run CASE --out DIR` for a scene of dimension `D`: the options checked, the case
/// loaded and validated, the impulse law's backend set up and the output directory staged
/// before the run (bad input leaves the output path as it was); the run stepped to its end
/// with the cross-check and a progress bar; `trajectory.csv`, `summary.json`, `contacts.csv`
/// (`--contacts`) and the OBJ frames (`--obj`, 3D) written and moved into place together; the
/// table printed; exit 3 when a body inverted or penetrated.
pub fn run_scene_case<S: SceneOutputs<D>, const D: usize>(
    request: &SceneRequest,
) -> Result<(), SceneCommandError> {
    check_scene_options(request)?;
    S::check_options(request)?;
    let scene = S::load(request.case, request.set)?;
    crate::api::check_duration_steps(scene.settings().h, request.duration)?;
    let settings = scene.settings();
    let steps = settings.steps_for(request.duration.unwrap_or(settings.duration));
    if request.vtk {
        crate::app::vtk_output::check_stride(request.vtk_stride.unwrap_or(1), steps)?;
    }
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
    // The output path is checked (and a foreign one refused) before the run.
    let staged = StagedDir::new(
        &out,
        WrittenBy::new("run", crate::scene::multibody::SCENE_KIND),
    )?;
    let mut runner = Runner::<S, D>::new(scene, request.duration)?;
    if request.contacts {
        runner.record_contacts();
    }
    let mut progress = Progress::new(runner.total_steps(), runner.scene.name());
    let frames = S::frames(&runner, request);
    let write_frame = |runner: &Runner<S, D>| -> Result<(), OutputError> {
        let Some(frames) = &frames else {
            return Ok(());
        };
        let name = format!("frame_{:05}.obj", runner.sim.step);
        staged.write(&name, |path| S::write_frame(path, runner, frames))
    };
    write_frame(&runner)?;
    let mut vtk = match request.vtk {
        true => Some(VtkFrames::of_scene(
            &runner,
            request.vtk_stride.unwrap_or(1),
            &staged,
        )?),
        false => None,
    };
    if let Some(v) = vtk.as_mut() {
        v.scene_step(&runner, &staged)?;
    }
    let eps_v = runner.scene.settings().eps_v;
    let check = crate::api::scene_cross_check(&shared, eps_v);
    run_to_end(&mut runner, check, |r| {
        write_frame(r)?;
        if let Some(v) = vtk.as_mut() {
            v.scene_step(r, &staged)?;
        }
        progress.update(r.sim.step);
        Ok::<(), SceneCommandError>(())
    })?;
    progress.finish();
    if let Some(v) = &vtk {
        v.finish(|lo, hi| runner.scene.obstacle_cells(lo, hi), &staged)?;
    }
    let summary = S::summary(&runner);
    staged.write("trajectory.csv", |path| write_trajectory(path, &runner))?;
    staged.write("summary.json", |path| {
        crate::app::output::write_json(path, &summary)
    })?;
    if request.contacts {
        staged.write("contacts.csv", |path| {
            write_contact_rows(path, &runner.contact_rows, eps_v, |m| {
                runner.scene.member(m)
            })
        })?;
    }
    let dir = staged.commit()?;
    emit(&S::table(&summary))?;
    emit(&S::wrote(&dir, request, &summary))?;
    if let Some(v) = &vtk {
        emit(&format!(
            "wrote {} ParaView frames: open {}\n",
            v.written(),
            dir.join(VTK_DIR).join(COLLECTION).display()
        ))?;
    }
    let (case, physicality) = S::outcome(&summary);
    physical_or_error(case, physicality, &dir)
}

/// `stickslip run CASE --out DIR` for a 2D scene ([`run_scene_case`]).
pub fn run_scene(request: &SceneRequest) -> Result<(), SceneCommandError> {
    run_scene_case::<MultibodyScene, 2>(request)
}

impl SceneOutputs<2> for MultibodyScene {
    type Frames = std::convert::Infallible;

    fn check_options(request: &SceneRequest) -> Result<(), SceneCommandError> {
        reject(
            "--obj",
            request.obj,
            "is written for the slope and 3D scenes, not yet for a 2D scene",
        )?;
        Ok(())
    }

    fn load(case: &Path, set: &[Override]) -> Result<Self, CaseError> {
        MultibodyScene::load(case, set)
    }

    fn member(&self, m: usize) -> &str {
        self.member_name(m)
    }

    fn frames(_: &SceneRunner, _: &SceneRequest) -> Option<Self::Frames> {
        None
    }

    fn write_frame(_: &Path, _: &SceneRunner, never: &Self::Frames) -> Result<(), OutputError> {
        match *never {}
    }

    fn table(summary: &SceneSummary) -> String {
        scene_table(summary)
    }

    fn wrote(dir: &Path, request: &SceneRequest, _: &SceneSummary) -> String {
        let contacts = if request.contacts {
            ", summary.json and contacts.csv"
        } else {
            " and summary.json"
        };
        format!("\nwrote {}/trajectory.csv{contacts}\n", dir.display())
    }
}

impl VtkScene<2> for MultibodyScene {
    fn element_nodes(&self, k: usize) -> Vec<usize> {
        self.bodies[k].mesh.triangles.concat()
    }

    fn node_masses(&self, k: usize) -> &[f64] {
        &self.bodies[k].mesh.mass
    }

    fn obstacle_cells(&self, lo: &Vec2, hi: &Vec2) -> ObstacleCells {
        use crate::scene::multibody::ObstacleShape;
        let mut cells = ObstacleCells::default();
        for (i, o) in self.obstacles.iter().enumerate() {
            let member = self.bodies.len() + i;
            match &o.shape {
                ObstacleShape::HalfSpace(h) => {
                    cells.push_half_space(&h.normal, &h.point, lo, hi, member)
                }
                // One line cell a segment: every reader takes lines (meshio has no poly-line).
                ObstacleShape::Polyline { points, .. } => {
                    for s in points.windows(2) {
                        let p = [s[0], s[1]].map(|q| crate::energy::Vec3::new(q.x, q.y, 0.0));
                        cells.push(vtkio::model::CellType::Line, &p, member);
                    }
                }
            }
        }
        cells
    }
}

/// The columns of a 2D scene's `contacts.csv`: one row per contact pair within d̂ per step
/// (docs/scenes.md).
pub const CONTACTS_HEADER: &str = "t_s,type,first,second,nodes,distance_m,normal_force_N,nx,ny,slip_m_per_s,state,friction_fx_N,friction_fy_N";

/// The columns of a 3D scene's `contacts.csv`: the 2D ones with the normal's z.
pub const CONTACTS_HEADER_3D: &str = "t_s,type,first,second,nodes,distance_m,normal_force_N,nx,ny,nz,slip_m_per_s,state,friction_fx_N,friction_fy_N,friction_fz_N";

/// Writes `contacts.csv` of `rows` ([`CONTACTS_HEADER`] in 2D, [`CONTACTS_HEADER_3D`] in 3D):
/// `first` and `second` name the bodies or obstacles (`name` of the friction table's number),
/// `nodes` the stencil's nodes (space-separated, in the state vector's numbering),
/// `slip_m_per_s` the tangential speed of the first primitive's closest point over the
/// second's, `state` `stick` up to ε_v (`eps_v`, m/s), `slide` from 2 ε_v and `transition`
/// between ([`ContactState`]: the smoothed friction's coefficient,
/// `contact::potentials::friction`), and `friction_fx_N`, `friction_fy_N` (and
/// `friction_fz_N`) the friction force on the pair's relative motion (N; zero for a pair not in
/// friction's set: [`ContactRow::friction_force`]).
pub fn write_contact_rows<'a, const D: usize>(
    path: &Path,
    rows: &[ContactRow<D>],
    eps_v: f64,
    name: impl Fn(usize) -> &'a str,
) -> Result<(), OutputError> {
    let mut w = BufWriter::new(io(path, std::fs::File::create(path))?);
    let header = if D == 3 {
        CONTACTS_HEADER_3D
    } else {
        CONTACTS_HEADER
    };
    io(path, writeln!(w, "{header}"))?;
    for r in rows {
        let nodes: Vec<String> = r.nodes[..r.len].iter().map(usize::to_string).collect();
        let normal: Vec<String> = r.normal.iter().map(f64::to_string).collect();
        // + 0.0: a zero force is written `0`, not `-0`.
        let friction: Vec<String> = r
            .friction_force
            .iter()
            .map(|f| (f + 0.0).to_string())
            .collect();
        let slip = r.slip.norm();
        let state = ContactState::of_slip(slip, eps_v).name();
        io(
            path,
            writeln!(
                w,
                "{},{},{},{},{},{},{},{},{},{},{}",
                r.t,
                r.kind,
                name(r.members.0),
                name(r.members.1),
                nodes.join(" "),
                r.distance,
                r.normal_force,
                normal.join(","),
                slip,
                state,
                friction.join(",")
            ),
        )?;
    }
    io(path, w.flush())
}

/// Writes a scene's `trajectory.csv`, 2D or 3D (columns: [`RunScene::trajectory_header`]; a
/// distance with nothing within the broad phase's reach is +∞: an empty field).
pub fn write_trajectory<S: RunScene<D>, const D: usize>(
    path: &Path,
    runner: &Runner<S, D>,
) -> Result<(), OutputError> {
    crate::app::output::write_number_rows(
        path,
        &runner.trajectory_header(),
        runner.trajectory_values(),
    )
}

/// Writes a scene's `summary.json`.
pub fn write_summary(path: &Path, summary: &SceneSummary) -> Result<(), OutputError> {
    crate::app::output::write_json(path, summary)
}

/// The table a scene's run prints: the bodies' verdicts, the drivers' final forces, and the
/// measured stick–slip cycle or breakaway beside SPEC.md §8's closed form.
pub fn scene_table(s: &SceneSummary) -> String {
    let mut t = format!(
        "{} (scene; h = {} s, {} s)\n\n",
        one_line(&s.case),
        Short(s.h),
        Short(s.duration)
    );
    t.push_str(&format!(
        "{:<16} {:>8} {:>9}  {:<14} {}\n",
        "body", "nodes", "mass kg", "on", "verdict"
    ));
    for b in &s.bodies {
        t.push_str(&format!(
            "{:<16} {:>8} {:>9.4}  {:<14} {}\n",
            one_line(&b.name),
            b.nodes,
            b.mass_kg,
            one_line(b.support.as_deref().unwrap_or("-")),
            b.verdict
        ));
    }
    t.push_str(&s.physicality.lines("triangles"));
    t.push_str(&drivers_table(&s.drivers));
    if let Some(a) = &s.stick_slip_cycle_analytic {
        t.push_str("\nstick-slip cycle (SPEC.md §8)   measured      analytic\n");
        let m = s.stick_slip_cycle.map(|m| m.cycle);
        let row = |label: &str, measured: Option<f64>, analytic: f64, unit: &str| {
            let meas = measured.map_or("-".to_string(), |v| format!("{v:.4}"));
            let rel = measured.map_or(String::new(), |v| {
                format!("  ({:+.2} %)", 100.0 * (v / analytic - 1.0))
            });
            format!("  {label:<28} {meas:>10} {analytic:>13.4} {unit}{rel}\n")
        };
        t.push_str(&row(
            "force at slip onset F_max",
            m.map(|c| c.f_max_n),
            a.f_max_n,
            "N",
        ));
        t.push_str(&row(
            "force at re-stick F_min",
            m.map(|c| c.f_min_n),
            a.f_min_n,
            "N",
        ));
        t.push_str(&row("stick time", m.map(|c| c.t_stick_s), a.t_stick_s, "s"));
        t.push_str(&row("slip time", m.map(|c| c.t_slip_s), a.t_slip_s, "s"));
        t.push_str(&row("period", m.map(|c| c.period_s), a.period_s, "s"));
        if let Some(m) = &s.stick_slip_cycle {
            t.push_str(&format!(
                "  (mean of the {} full cycles after the first slip)\n",
                m.cycles
            ));
        }
    }
    if let Some(a) = &s.breakaway_analytic {
        t.push_str(&breakaway_lines(s.breakaway.as_ref(), a));
    }
    if let (Some(m), Some(a)) = (&s.stack, &s.stack_analytic) {
        t.push_str(&stack_lines(
            m,
            a,
            ["lower block", "upper block", "upper block on the lower"],
        ));
    }
    if let (Some(m), Some(a)) = (&s.slide_or_tip, &s.slide_or_tip_analytic) {
        t.push_str(&slide_or_tip_lines(m, a));
    }
    if let Some(c) = &s.cross_check {
        t.push_str(&cross_check_lines(
            c,
            "a node against a half-space (less a belt's surface velocity), or a point–edge pair between bodies or with a polyline at its closest points' relative velocity",
            s.post_pass_seconds,
            s.wall_seconds,
        ));
    }
    t
}

/// The cross-check's lines of a run's table (2D and 3D): the report, then what its records are
/// (`records`) and the post-pass's share of the wall.
pub(crate) fn cross_check_lines(
    c: &crate::cross_check::CrossCheckReport,
    records: &str,
    post_pass_seconds: f64,
    wall_seconds: f64,
) -> String {
    format!(
        "\n{c}\n  (every contact in friction's set, every step: {records}; post-pass {:.1} % of the wall)\n",
        100.0 * post_pass_seconds / wall_seconds.max(1e-12)
    )
}

/// The breakaway line of a run's table (2D and 3D): the measured force and time beside
/// SPEC.md §8's μ_s N.
pub(crate) fn breakaway_lines(
    measured: Option<&crate::analysis::breakaway::Breakaway>,
    a: &crate::analysis::breakaway::Breakaway,
) -> String {
    let meas = measured.map_or("never".to_string(), |b| {
        format!(
            "{:.4} N at t = {:.3} s ({:+.2} %)",
            b.force_n,
            b.time_s.unwrap_or(f64::NAN),
            100.0 * (b.force_n / a.force_n - 1.0)
        )
    });
    let when = a
        .time_s
        .map_or(String::new(), |t| format!(" at t = {t:.3} s"));
    format!(
        "\nbreakaway (SPEC.md §8): {meas}; analytic mu_s N = {:.4} N{when}\n",
        a.force_n
    )
}

/// The stacked blocks' lines of a run's table (2D and 3D): both accelerations and whether the
/// upper slips, measured beside the closed form; `labels` name the lower body's row, the upper
/// body's and the row of whether the upper slips on the lower.
pub(crate) fn stack_lines(
    m: &crate::analysis::stacked_blocks::StackAccelerations,
    a: &crate::analysis::stacked_blocks::StackAccelerations,
    labels: [&str; 3],
) -> String {
    let [lower, upper, relation] = labels;
    let rel = |m: f64, a: f64| {
        if a == 0.0 {
            String::new()
        } else {
            format!("  ({:+.2} %)", 100.0 * (m / a - 1.0))
        }
    };
    let state = |slips: bool| if slips { "slips" } else { "sticks" };
    format!(
        "\nstacked blocks (SPEC.md §8)     measured      analytic\n  {:<28} {:>10.4} {:>13.4} m/s^2{}\n  {:<28} {:>10.4} {:>13.4} m/s^2{}\n  {:<28} {:>10} {:>13}\n  (accelerations along the ground over the run's second half)\n",
        lower,
        m.lower_m_per_s2,
        a.lower_m_per_s2,
        rel(m.lower_m_per_s2, a.lower_m_per_s2),
        upper,
        m.upper_m_per_s2,
        a.upper_m_per_s2,
        rel(m.upper_m_per_s2, a.upper_m_per_s2),
        relation,
        state(m.upper_slips),
        state(a.upper_slips),
    )
}

/// The slide-or-tip lines of a run's table (2D and 3D): the outcome beside the closed form's,
/// and what the measured rule read.
pub fn slide_or_tip_lines(
    m: &crate::analysis::slide_or_tip::SlideOrTip,
    a: &crate::analysis::slide_or_tip::SlideOrTipAnalytic,
) -> String {
    format!(
        "\nslide or tip (SPEC.md §8): {}; analytic {} (tan theta = {:.4}, mu_s = {}, mu_k = {}, w/b = {:.4}: stay if tan theta <= min(mu_s, w/b), else slide if mu_k < w/b, else tip)\n  measured: largest rotation {:.3} deg (tip above {} deg), displacement along the surface {:.4} m (slide above {} w = {:.4} m)\n",
        m.outcome.name(),
        a.outcome.name(),
        a.tan_theta,
        Short(a.mu_static),
        Short(a.mu_kinetic),
        a.w_over_b,
        m.max_rotation_deg,
        crate::analysis::slide_or_tip::TIP_ROTATION_DEG,
        m.displacement_m,
        crate::analysis::slide_or_tip::SLIDE_DISPLACEMENT_OVER_WIDTH,
        crate::analysis::slide_or_tip::SLIDE_DISPLACEMENT_OVER_WIDTH * a.width_m,
    )
}

/// The drivers' lines of a scene's table (2D or 3D): name, type, body and the final force;
/// nothing without drivers.
pub fn drivers_table(drivers: &[DriverSummary]) -> String {
    let mut t = String::new();
    if drivers.is_empty() {
        return t;
    }
    t.push_str(&format!(
        "\n{:<16} {:<8} {:<14} {}\n",
        "driver", "type", "on", "final force N"
    ));
    for d in drivers {
        t.push_str(&format!(
            "{:<16} {:<8} {:<14} ({})\n",
            one_line(&d.name),
            d.kind,
            one_line(&d.body),
            d.final_force_n
                .iter()
                .map(|f| format!("{f:.4}"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    t
}
