//! The command line: `stickslip` (the three slope cases), `run`, `check`.

use std::path::{Path, PathBuf};

use clap::{Args, Parser, Subcommand};

use crate::api;
use crate::app::output::{
    self, OutputError, OutputFile, OutputRefused, StageError, StagedDir, WrittenBy,
};
use crate::app::plot::{self, PlotArgs, PlotError};
use crate::app::rigid_command::{self, RigidCommandError};
use crate::app::scene_command::{self, SceneCommandError};
use crate::app::scene_plot;
use crate::app::sweep_command::{self, SweepCommandError};
use crate::app::vtk_output::{
    COLLECTION, FrameBody, MeshBody, ObstacleCells, VTK_DIR, VtkFrames, check_stride,
};
use crate::console::{BadOption, EmitError, Progress, check_overrides, check_positive, emit};
use crate::cross_check::impulse_law::{ImpulseBackend, SharedBackend};
use crate::cross_check::{CrossCheck, CrossCheckReport};
use crate::gpu::{self, GpuError, GpuMode};
use crate::number_format::Short;
use crate::run::runner::{self, RunError, RunOptions, Runner, Summary};
use crate::scene::body::BodyHandle;
use crate::scene::builtin::BUILTIN_CASES;
use crate::scene::{CaseError, CaseKind, Override, Scene};
use crate::view::{self, ViewArgs, ViewError};

/// stickslip: an elastic square on a slope, by projected Newton with barrier contact and smoothed
/// friction, cross-checked by the impulse contact law on the GPU.
#[derive(Debug, Parser)]
// The default run's options belong to the default run: given before a subcommand
// (`stickslip --gpu off run …`) they used to be accepted and ignored, the subcommand's own
// `--gpu` default winning. Now that is a usage error (exit 2) naming the option.
#[command(
    name = "stickslip",
    version,
    about,
    long_about = None,
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    /// What to do; with none, run the three slope cases and print the verdict table.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Options of the default run.
    #[command(flatten)]
    pub default_run: DefaultRun,
}

/// Options of the default run (no subcommand).
#[derive(Debug, Args)]
pub struct DefaultRun {
    /// Simulated seconds per case.
    #[arg(long, default_value_t = 8.0)]
    pub duration: f64,
    /// Where the impulse law of the cross-check runs.
    #[arg(long, value_enum, default_value_t = GpuMode::Auto)]
    pub gpu: GpuMode,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run one case and write DIR/trajectory.csv and DIR/summary.json.
    Run(RunArgs),
    /// Run one case and print only the impulse-law cross-check report (SPEC.md §4).
    Check(CheckArgs),
    /// Run the slope cases (or the bounce scene) live in a window, with lamps and a chart.
    View(ViewArgs),
    /// Draw downhill distance and speed against time for the cases into a PNG (Figure 10.2.1).
    Plot(PlotArgs),
    /// Run a sweep file's grid of cases (sharded, resumable) into a directory; `sweep collect
    /// DIR` merges it into map.csv and map.png (docs/sweeps.md).
    Sweep(crate::app::sweep_command::SweepArgs),
}

/// What `run` and `check` share: the case and how to run it.
#[derive(Debug, Args)]
pub struct CaseArgs {
    /// The case file.
    pub case: PathBuf,
    /// Simulated seconds (default: the case's `time.duration`).
    #[arg(long)]
    pub duration: Option<f64>,
    /// Newton tolerance on ‖p‖∞/h, m/s (default: the case's `newton.tol`).
    #[arg(long)]
    pub tol: Option<f64>,
    /// Where the impulse law of the cross-check runs.
    #[arg(long, value_enum, default_value_t = GpuMode::Auto)]
    pub gpu: GpuMode,
    /// Override a key of the case file (repeatable): `--set square.n_seg=16`,
    /// `--set friction.mu=0.05`. Validated like the file; recorded in summary.json.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<Override>,
}

impl CaseArgs {
    /// Checks the options, loads the case, and gives the run's options.
    fn load(&self) -> Result<(Scene, RunOptions), CliError> {
        check_positive("--duration", self.duration)?;
        check_positive("--tol", self.tol)?;
        let scene = Scene::load_with_overrides(&self.case, &self.set)?;
        let opts = api::slope_run_options(&scene, self.duration, self.tol)?;
        Ok((scene, opts))
    }
}

/// `stickslip run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The case and how to run it.
    #[command(flatten)]
    pub case: CaseArgs,
    /// Output directory (default: `out/<case file stem>`).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Also write one OBJ per step (frame_00000.obj, …).
    #[arg(long)]
    pub obj: bool,
    /// Also write contacts.csv: every contact pair within d̂ at every step (scene cases).
    #[arg(long)]
    pub contacts: bool,
    /// Also write ParaView frames: vtk/run.pvd indexing one vtk/frame_NNNNN.vtu per written
    /// step, with displacement, velocity, contact and friction forces and stick/slide state per
    /// node and J per element (scene cases and the slope; docs/looking_at_a_run.md).
    #[arg(long)]
    pub vtk: bool,
    /// With --vtk: write every K-th step's frame (the first and last always), 1 ≤ K ≤ the run's
    /// steps.
    #[arg(long, value_name = "K")]
    pub vtk_stride: Option<usize>,
}

/// `stickslip check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The case and how to run it.
    #[command(flatten)]
    pub case: CaseArgs,
}

/// Everything that can stop the CLI; [`CliError::exit_code`] maps it to the process status.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// Bad case file (exit 2).
    #[error(transparent)]
    Case(#[from] CaseError),
    /// Bad option value (exit 2).
    #[error(transparent)]
    Option(#[from] BadOption),
    /// A run failed (exit 1).
    #[error(transparent)]
    Run(#[from] RunError),
    /// The GPU was required and could not be had, or failed (exit 1).
    #[error(transparent)]
    Gpu(#[from] GpuError),
    /// The impulse-law backend failed on a batch (exit 1).
    #[error("impulse law: {0}")]
    Backend(#[from] crate::cross_check::backend::BackendError),
    /// Output could not be written (exit 1).
    #[error(transparent)]
    Output(#[from] OutputError),
    /// The viewer failed: no display, window, screenshot (exit 1).
    #[error(transparent)]
    View(ViewError),
    /// The output path is not stickslip's to write (exit 2).
    #[error(transparent)]
    Refused(#[from] OutputRefused),
    /// The reader of stdout went away (`| head -1`): the program ends quietly (exit 0).
    #[error("stdout was closed")]
    StdoutClosed,
    /// A rigid-ellipsoid run failed or could not write its output (exit 1).
    #[error(transparent)]
    Rigid(#[from] crate::rigid::run::RigidRunError),
    /// A scene's run failed (exit 1). A scene the solver refuses as too large is bad input,
    /// [`CliError::Case`] (`From<SceneRunError>`).
    #[error(transparent)]
    Scene(crate::run::multibody::SceneRunError),
    /// A sweep's input was bad (exit 2) or it could not run or write (exit 1).
    #[error(transparent)]
    Sweep(#[from] crate::sweep::SweepError),
    /// A scene's run completed and wrote its outputs, but a body inverted or penetrated (exit
    /// 3, [`crate::run::physical::NOT_PHYSICAL_EXIT_CODE`]).
    #[error(transparent)]
    NotPhysical(SceneCommandError),
}

impl From<crate::run::multibody::SceneRunError> for CliError {
    fn from(e: crate::run::multibody::SceneRunError) -> CliError {
        match e {
            crate::run::multibody::SceneRunError::Input(e) => CliError::Case(e),
            e => CliError::Scene(e),
        }
    }
}

impl From<EmitError> for CliError {
    fn from(e: EmitError) -> CliError {
        match e {
            EmitError::Closed => CliError::StdoutClosed,
            EmitError::Write(source) => CliError::Output(OutputError {
                path: PathBuf::from("(stdout)"),
                source,
            }),
        }
    }
}

// Each command's error, mapped onto the CLI's (and so onto its exit code): bad input stays bad
// input whichever command found it.

impl From<SweepCommandError> for CliError {
    fn from(e: SweepCommandError) -> CliError {
        match e {
            SweepCommandError::Option(e) => CliError::Option(e),
            SweepCommandError::Sweep(e) => CliError::Sweep(e),
            SweepCommandError::Output(e) => CliError::Output(e),
            SweepCommandError::Emit(e) => e.into(),
        }
    }
}

impl From<PlotError> for CliError {
    fn from(e: PlotError) -> CliError {
        match e {
            PlotError::Case(e) => CliError::Case(e),
            PlotError::Option(e) => CliError::Option(e),
            PlotError::Run(e) => CliError::Run(e),
            PlotError::Scene(e) => e.into(),
            PlotError::Output(e) => CliError::Output(e),
            PlotError::Stage(e) => e.into(),
            PlotError::Emit(e) => e.into(),
            PlotError::NotPhysical(e) => CliError::NotPhysical(e),
        }
    }
}

impl From<ViewError> for CliError {
    fn from(e: ViewError) -> CliError {
        match e {
            ViewError::Case(e) => CliError::Case(e),
            ViewError::Option(e) => CliError::Option(e),
            ViewError::Gpu(e) => CliError::Gpu(e),
            ViewError::Run(e) => CliError::Run(e),
            ViewError::SceneRun(e) => e.into(),
            // A usage error, like clap's: exit 2.
            ViewError::BounceWithCases(n) => CliError::Option(BadOption::new(
                "--scene bounce",
                "takes no case files (it shows the built-in cases/bounce.toml)",
                format!("{n} case file(s)"),
            )),
            e => CliError::View(e),
        }
    }
}

impl From<SceneCommandError> for CliError {
    fn from(e: SceneCommandError) -> CliError {
        match e {
            SceneCommandError::Case(e) => CliError::Case(e),
            SceneCommandError::Option(e) => CliError::Option(e),
            SceneCommandError::Stage(e) => CliError::from(e),
            SceneCommandError::Emit(e) => CliError::from(e),
            SceneCommandError::Run(e) => e.into(),
            SceneCommandError::Output(e) => CliError::Output(e),
            e @ SceneCommandError::NotPhysical { .. } => CliError::NotPhysical(e),
            SceneCommandError::Backend(api::BackendSetupError::Gpu(e)) => CliError::Gpu(e),
            SceneCommandError::Backend(api::BackendSetupError::Backend(e)) => CliError::Backend(e),
        }
    }
}

impl From<RigidCommandError> for CliError {
    fn from(e: RigidCommandError) -> CliError {
        match e {
            RigidCommandError::Case(e) => CliError::Case(e),
            RigidCommandError::Option(e) => CliError::Option(e),
            RigidCommandError::Rigid(e) => CliError::Rigid(e),
            RigidCommandError::Stage(e) => e.into(),
            RigidCommandError::Emit(e) => e.into(),
        }
    }
}

impl From<StageError> for CliError {
    fn from(e: StageError) -> CliError {
        match e {
            StageError::Io(e) => CliError::Output(e),
            StageError::Refused(e) => CliError::Refused(e),
        }
    }
}

impl CliError {
    /// 2 for bad input, 1 for failures of the run, 3 for a scene's run that completed with a
    /// body inverted or penetrated (its outputs written for inspection).
    pub fn exit_code(&self) -> i32 {
        match self {
            CliError::NotPhysical(_) => crate::run::physical::NOT_PHYSICAL_EXIT_CODE,
            CliError::Case(_)
            | CliError::Option(_)
            | CliError::Refused(_)
            | CliError::Gpu(GpuError::BadBackends { .. }) => 2,
            CliError::StdoutClosed => 0,
            CliError::Sweep(e) => e.exit_code(),
            _ => 1,
        }
    }
}

/// The impulse-law backend for `mode` ([`api::impulse_backend`]).
fn backend(mode: GpuMode) -> Result<(SharedBackend, f64), CliError> {
    api::impulse_backend(mode).map_err(|e| match e {
        api::BackendSetupError::Gpu(e) => CliError::Gpu(e),
        api::BackendSetupError::Backend(e) => CliError::Backend(e),
    })
}

fn run_one(
    scene: Scene,
    opts: &RunOptions,
    check: Option<&mut CrossCheck>,
    label: &str,
) -> Result<Runner, CliError> {
    let steps = scene.steps_for(opts.duration.unwrap_or(scene.duration));
    let mut progress = Progress::new(steps, label);
    let r = runner::run(scene, opts, check, |done, _| progress.update(done));
    progress.finish();
    Ok(r?)
}

/// The verdict table of the default run.
pub fn table(summaries: &[Summary]) -> String {
    let mut s = String::new();
    let header = |cols: [&str; 12]| {
        format!(
            "{:<6} {:<24} {:>10} {:>12} {:>8} {:>14} {:>9} {:>9} {:>10} {:>10} {:>10} {:>11}\n",
            cols[0],
            cols[1],
            cols[2],
            cols[3],
            cols[4],
            cols[5],
            cols[6],
            cols[7],
            cols[8],
            cols[9],
            cols[10],
            cols[11]
        )
    };
    s.push_str(&header([
        "mu",
        "verdict",
        "downhill",
        "final speed",
        "Newton",
        "per step",
        "halvings",
        "wall",
        "post-pass",
        "agree",
        "agree≥1s",
        "median gap",
    ]));
    s.push_str(&header([
        "",
        "",
        "m",
        "m/s",
        "iters",
        "mean/p95/max",
        "",
        "ms",
        "% of wall",
        "%",
        "%",
        "m/s",
    ]));
    for r in summaries {
        let verdict = match r.verdict {
            crate::run::verdict::Verdict::Sliding { .. } => "sliding".to_string(),
            v => v.to_string(),
        };
        let pct = |a: Option<f64>| a.map_or("n/a".to_string(), |f| format!("{:.2}", 100.0 * f));
        let (agree, late, gap) = match &r.cross_check {
            Some(c) => (
                pct(c.overall.fraction),
                pct(c.late.fraction),
                c.gap_median.map_or("n/a".into(), |g| format!("{g:.2e}")),
            ),
            None => ("-".into(), "-".into(), "-".into()),
        };
        let per_step = format!(
            "{:.2}/{}/{}",
            r.mean_iterations_per_step, r.p95_iterations_per_step, r.solver.max_iterations_in_step
        );
        s.push_str(&format!(
            "{:<6} {:<24} {:>10.4} {:>12.4} {:>8} {:>14} {:>9} {:>9.1} {:>10.1} {:>10} {:>10} {:>11}\n",
            Short(r.mu),
            verdict,
            r.downhill_distance,
            r.final_speed.unwrap_or(f64::NAN),
            r.solver.newton_iterations,
            per_step,
            r.solver.line_search_halvings,
            r.wall_seconds * 1e3,
            100.0 * r.post_pass_seconds / r.wall_seconds.max(1e-12),
            agree,
            late,
            gap
        ));
    }
    for r in summaries {
        if let Some(t) = r.solver.first_inversion_time {
            s.push_str(&format!(
                "μ = {}: the square folded: up to {} mesh triangles inverted, the first at t = {t:.2} s (a mass-spring grid does not resist inversion; docs/refinement.md)\n",
                Short(r.mu),
                r.solver.max_inverted_triangles
            ));
        }
    }
    s
}

fn default_run(args: &DefaultRun) -> Result<(), CliError> {
    check_positive("--duration", Some(args.duration))?;
    let (shared, setup_seconds) = backend(args.gpu)?;
    let opts = RunOptions {
        duration: Some(args.duration),
        ..Default::default()
    };
    let mut summaries = Vec::new();
    for (path, text) in BUILTIN_CASES {
        let scene = Scene::from_toml(text, Path::new(path))?;
        check_overrides(&scene, Some(args.duration), None)?;
        let mut check = api::cross_check_for(&shared, &scene);
        let label = scene.name.clone();
        let runner = run_one(scene, &opts, Some(&mut check), &label)?;
        summaries.push(runner.summary(Some(check.finish())));
    }
    let adapter = shared.name();
    emit(&format!(
        "stickslip: the square on the slope (SPEC.md §1), {} s per case, h = {} s, tol = {} m/s\n",
        Short(args.duration),
        Short(summaries[0].h),
        Short(summaries[0].tol)
    ))?;
    emit(&format!(
        "cross-check (impulse law, SPEC.md §4) on: {adapter} (set up once in {:.1} ms)\n\n",
        setup_seconds * 1e3
    ))?;
    emit(&table(&summaries))?;
    Ok(emit(&format!(
        "\nverdict: {}\nrun one case with output files: stickslip run cases/slope_mu0.11.toml --out out/mu0.11\n",
        summaries[0].verdict_rule
    ))?)
}

fn run_command(args: &RunArgs) -> Result<(), CliError> {
    // A bad STICKSLIP_GPU_BACKENDS is bad input (exit 2) for every kind of case, as for the
    // slope, whether or not the run then uses a GPU.
    gpu::backends_from_env(wgpu::Backends::PRIMARY)?;
    let kind = CaseKind::of_file(&args.case.case)?;
    if args.contacts && kind != CaseKind::Scene {
        return Err(BadOption::new(
            "--contacts",
            "applies to scene cases (kind = \"scene\"); a slope run's contacts are in the cross-check (stickslip check)",
            "given",
        )
        .into());
    }
    if (args.vtk || args.vtk_stride.is_some())
        && !matches!(kind, CaseKind::Scene | CaseKind::SlopeSquare)
    {
        return Err(BadOption::new(
            if args.vtk { "--vtk" } else { "--vtk-stride" },
            "applies to scene cases (kind = \"scene\", 2D and 3D) and the slope; not yet to the bounce or a rigid ellipsoid",
            "given",
        )
        .into());
    }
    match kind {
        CaseKind::SlopeSquare => {}
        CaseKind::RigidEllipsoid => {
            let request = rigid_command::RigidRequest {
                case: &args.case.case,
                duration: args.case.duration,
                tol_given: args.case.tol.is_some(),
                obj: args.obj,
                out: args.out.as_deref(),
                set: &args.case.set,
            };
            return Ok(rigid_command::run_rigid(&request)?);
        }
        CaseKind::Scene => {
            let request = scene_command::SceneRequest {
                case: &args.case.case,
                duration: args.case.duration,
                tol_given: args.case.tol.is_some(),
                obj: args.obj,
                out: args.out.as_deref(),
                set: &args.case.set,
                contacts: args.contacts,
                gpu: args.case.gpu,
                vtk: args.vtk,
                vtk_stride: args.vtk_stride,
            };
            let text = crate::scene::case_file::read_case_file(&args.case.case)
                .map_err(SceneCommandError::from)?;
            let dimension =
                crate::scene::multibody::dimension::declared_dimension(&text, &args.case.case)
                    .map_err(SceneCommandError::from)?;
            if dimension == 3 {
                return Ok(crate::app::solid_scene_command::run_solid_scene(&request)?);
            }
            return Ok(scene_command::run_scene(&request)?);
        }
        // The slope loader names the key and the commands that take it.
        CaseKind::Bounce => {}
    }
    let (scene, opts) = args.case.load()?;
    check_vtk_options(
        args,
        scene.steps_for(opts.duration.unwrap_or(scene.duration)),
    )?;
    let out = args.out.clone().unwrap_or_else(|| {
        PathBuf::from("out").join(
            args.case
                .case
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "run".into()),
        )
    });
    // The output path is checked (and refused) before anything runs.
    let staged = StagedDir::new(&out, WrittenBy::new("run", CaseKind::SlopeSquare.name()))?;
    let (shared, _) = backend(args.case.gpu)?;
    let mut check = api::cross_check_for(&shared, &scene);
    let write_frame = |r: &Runner| -> Result<(), CliError> {
        if args.obj {
            let name = format!("frame_{:05}.obj", r.sim.step);
            staged.write(&name, |path| {
                output::write_obj(path, &r.sim.x, &r.mesh.triangles)
            })?;
        }
        Ok(())
    };
    let mut runner = Runner::new(scene, &opts)?;
    let mut progress = Progress::new(runner.total_steps(), &runner.scene.name.clone());
    write_frame(&runner)?;
    let mut vtk = match args.vtk {
        true => Some(slope_frames(
            &runner,
            args.vtk_stride.unwrap_or(1),
            &staged,
        )?),
        false => None,
    };
    let mut write_vtk = |r: &Runner| -> Result<(), CliError> {
        if let Some(v) = vtk.as_mut().filter(|v| v.wants(r.sim.step)) {
            let body = MeshBody(&r.mesh);
            let nodes = 0..r.mesh.x0.len();
            v.write(&r.sim, &[BodyHandle::new(&body, &nodes)], &staged)?;
        }
        Ok(())
    };
    write_vtk(&runner)?;
    runner::drive(&mut runner, Some(&mut check), |r: &Runner| {
        write_frame(r)?;
        write_vtk(r)?;
        progress.update(r.sim.step);
        Ok::<(), CliError>(())
    })?;
    progress.finish();
    let written = match &vtk {
        Some(v) => {
            let slope = &runner.scene;
            v.finish(
                |lo, hi| {
                    let mut cells = ObstacleCells::default();
                    cells.push_half_space(&slope.normal, &slope.point, lo, hi, 1);
                    cells
                },
                &staged,
            )?;
            Some(v.written())
        }
        None => None,
    };
    let summary = runner.summary(Some(check.finish()));
    staged.write("trajectory.csv", |path| {
        output::write_trajectory(path, &runner.rows)
    })?;
    staged.write("summary.json", |path| output::write_summary(path, &summary))?;
    let dir = staged.commit()?;
    emit(&table(std::slice::from_ref(&summary)))?;
    if let Some(c) = &summary.cross_check {
        emit(&format!("\n{c}\n"))?;
    }
    emit(&format!(
        "\nwrote {}/trajectory.csv and summary.json{}\n",
        dir.display(),
        if args.obj {
            format!(" and {} OBJ frames", summary.solver.steps + 1)
        } else {
            String::new()
        }
    ))?;
    if let Some(n) = written {
        emit(&format!(
            "wrote {n} ParaView frames: open {}\n",
            dir.join(VTK_DIR).join(COLLECTION).display()
        ))?;
    }
    Ok(())
}

/// `--vtk` and `--vtk-stride` of a slope run of `steps` steps: the stride only with `--vtk`,
/// between 1 and `steps` (the scenes' rule, `scene_command::check_scene_options`).
fn check_vtk_options(args: &RunArgs, steps: usize) -> Result<(), BadOption> {
    if args.vtk_stride.is_some() && !args.vtk {
        return Err(BadOption::new(
            "--vtk-stride",
            "applies with --vtk (the steps between ParaView frames)",
            "given",
        ));
    }
    if args.vtk {
        check_stride(args.vtk_stride.unwrap_or(1), steps)?;
    }
    Ok(())
}

/// The ParaView frames of the slope's run `runner` (at t = 0): its square, one body whose nodes
/// are the state vector's, with its lumped masses; the slope its half-space.
fn slope_frames(
    runner: &Runner,
    stride: usize,
    staged: &StagedDir,
) -> Result<VtkFrames<2>, OutputError> {
    let body = MeshBody(&runner.mesh);
    let nodes = 0..runner.mesh.x0.len();
    let square = FrameBody {
        handle: BodyHandle::new(&body, &nodes),
        elements: runner.mesh.triangles.concat(),
        masses: &runner.mesh.mass,
    };
    let reach = (runner.scene.dhat, runner.scene.eps_v);
    VtkFrames::new(
        &runner.sim,
        &[square],
        stride,
        runner.total_steps(),
        reach,
        staged,
    )
}

fn check_command(args: &CheckArgs) -> Result<(), CliError> {
    let (scene, opts) = args.case.load()?;
    let (shared, _) = backend(args.case.gpu)?;
    let mut check = api::cross_check_for(&shared, &scene);
    let label = scene.name.clone();
    run_one(scene, &opts, Some(&mut check), &label)?;
    let report: CrossCheckReport = check.finish();
    Ok(emit(&format!("{report}\n"))?)
}

/// `--set` on the bounce scene (`--scene bounce`, or a case of `kind = "bounce"`) is refused
/// (exit 2): its few keys are not overridable, and an override must never be ignored.
fn refuse_set_for_bounce(args: &ViewArgs) -> Result<(), CliError> {
    let Some(first) = args.set.first() else {
        return Ok(());
    };
    let bounce = args.scene == view::SceneKind::Bounce
        || matches!(args.cases.as_slice(), [one] if CaseKind::of_file(one)? == CaseKind::Bounce);
    if bounce {
        return Err(BadOption::new(
            "--set",
            "does not apply to the bounce scene (edit a copy of cases/bounce.toml instead)",
            first,
        )
        .into());
    }
    Ok(())
}

/// Runs the parsed command line.
pub fn main_with(cli: Cli) -> Result<(), CliError> {
    match &cli.command {
        None => default_run(&cli.default_run),
        Some(Command::Run(a)) => run_command(a),
        Some(Command::Check(a)) => check_command(a),
        Some(Command::View(a)) => {
            gpu::backends_from_env(wgpu::Backends::PRIMARY)?;
            refuse_set_for_bounce(a)?;
            // The screenshot's path is checked (and a foreign file refused) before the window
            // opens; the viewer writes it as `view`'s PNG.
            if let Some(path) = &a.screenshot {
                OutputFile::check(path, "view", false)?;
            }
            Ok(view::view_command(a)?)
        }
        Some(Command::Plot(a)) => match scene_plot::one_scene_case(&a.cases)? {
            Some(case) => {
                let text = crate::scene::case_file::read_case_file(case)?;
                if crate::scene::multibody::dimension::declared_dimension(&text, case)? == 3 {
                    Ok(crate::app::solid_plot::plot_solid_scene(a, case)?)
                } else {
                    Ok(scene_plot::plot_scene(a, case)?)
                }
            }
            None => Ok(plot::plot_command(a)?),
        },
        Some(Command::Sweep(a)) => Ok(sweep_command::sweep_command(a)?),
    }
}
