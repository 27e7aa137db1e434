//! `stickslip view`: the simulation in a window, in real time, with its checks as lamps.
//!
//! * [`slope`]: the slope cases' state (a [`Runner`](crate::run::runner::Runner) each, the
//!   per-step checks, node states and forces);
//! * [`bounce`]: seed 001's bounce scene (three balls through the impulse law), a case of
//!   `kind = "bounce"` (`cases/bounce.toml`);
//! * [`scene_case`]: a scene case's state, 2D or 3D (`kind = "scene"`, SPEC.md §7):
//!   [`Case<R>`](scene_case::Case), a runner stepped one step at a time through `SceneSteps`,
//!   its lamps and what only its dimension keeps; [`CaseRun`](scene_case::CaseRun) is what
//!   differs per dimension;
//! * [`multibody`]: the 2D runner as a `CaseRun` ([`SceneCase`](multibody::SceneCase): its
//!   analytic check and chart history); [`multibody_layout`] frames it and places a belt's marks
//!   (pure, for the tests); `multibody_paint` paints it through the flat camera;
//! * [`solid`]: the 3D runner as a `CaseRun` ([`SolidCase`](solid::SolidCase): its closed-form
//!   checks and boundary surface); [`solid_layout`] is its perspective camera, projection and
//!   half-space patches (pure, for the tests);
//! * `cases_view`: the one scene view of 2D and 3D cases, `CasesView<R>`: stepping, lamps, the
//!   HUD's frame, the chart's axes and legend, the contact dots, written once; the trait
//!   `ViewedRun` is what a dimension draws differently, implemented in `multibody_view` (2D)
//!   and `solid_view` (3D, through macroquad's `Camera3D`);
//! * [`lamps`]: the strip of lamps (green while a check holds, red for good once it fails);
//! * [`layout`]: the panels and the world→screen transforms (pure, for the tests);
//! * `scene_view`: the trait `SceneView` a scene implements to be shown: step, paint its scene,
//!   HUD and chart, give its lamps; `slope_view`, `bounce_view` and `cases_view` implement it;
//! * `window`: the window loop (keys, clock, lamps' panel, screenshots), which knows no scene;
//! * `paint`, `chart`, `panels`: the drawing primitives, the charts' toolkit, the lamp strip and
//!   the HUD's text, shared by the scenes;
//! * `rigid`: a case of `kind = "rigid_ellipsoid"` (SPEC.md §5), the football in 3D.
//!
//! Which scene a case file shows is its `kind` ([`crate::scene::CaseKind`]), dispatched once in
//! [`view_command`].
//!
//! Headless use for docs and tests: `--frames N --screenshot out.png` renders N steps and writes
//! the last frame. It needs an X11 display (e.g. `xvfb-run -a`); without `DISPLAY` the command
//! fails with one line rather than letting the window library abort. See `docs/viewer.md`.

pub mod bounce;
mod bounce_view;
mod cases_view;
mod chart;
pub mod lamps;
pub mod layout;
pub mod multibody;
pub mod multibody_layout;
mod multibody_paint;
mod multibody_view;
mod paint;
mod panels;
mod rigid;
pub mod scene_case;
mod scene_view;
pub mod slope;
mod slope_view;
pub mod solid;
pub mod solid_layout;
mod solid_view;
mod window;

use std::cell::{Cell, RefCell};
use std::path::PathBuf;
use std::rc::Rc;

use clap::{Args, ValueEnum};

use crate::console::{BadOption, check_overrides, check_positive};
use crate::cross_check::impulse_law::SharedBackend;
use crate::gpu::{self, GpuError, GpuMode};
use crate::run::multibody::solid::SolidRunner;
use crate::run::multibody::{SceneRunError, SceneRunner};
use crate::run::runner::RunError;
use crate::run::runner::RunOptions;
use crate::scene::bounce::BounceCase;
use crate::scene::builtin::load_slope_cases;
use crate::scene::multibody::MultibodyScene;
use crate::scene::multibody::solid::SolidScene;
use crate::scene::{CaseError, CaseKind, Override};
use bounce_view::BounceView;
use cases_view::{CasesView, ViewedRun};
use scene_case::Case;
use scene_view::SceneView;
use slope_view::SlopeView;

/// Which scene the viewer shows without a case file naming one (`--scene`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum SceneKind {
    /// The scene the case files name by their `kind` (the built-in slope cases without any).
    #[default]
    Slope,
    /// The built-in `cases/bounce.toml`: the same as `stickslip view cases/bounce.toml`.
    Bounce,
}

/// `stickslip view`.
#[derive(Debug, Args)]
pub struct ViewArgs {
    /// Case files (default: the three built-in slope cases); keys 1–9 switch between them. One
    /// file of `kind = "rigid_ellipsoid"` or `kind = "bounce"` shows that scene; files of
    /// `kind = "scene"` show those scenes, 2D or 3D (`dimension = 3`, in perspective), one
    /// dimension in one call.
    pub cases: Vec<PathBuf>,
    /// `bounce`: the built-in bounce scene of seed 001 (takes no case files; the same as
    /// `stickslip view cases/bounce.toml`).
    #[arg(long, value_enum, default_value_t = SceneKind::Slope)]
    pub scene: SceneKind,
    /// Render this many steps (one a frame, whatever the speed) and exit.
    #[arg(long, value_name = "N")]
    pub frames: Option<usize>,
    /// With --frames: write the last frame to this PNG file.
    #[arg(long, value_name = "PNG", requires = "frames")]
    pub screenshot: Option<PathBuf>,
    /// Simulated seconds per wall-clock second (keys + and − change it).
    #[arg(long, default_value_t = 1.0)]
    pub speed: f64,
    /// Start with the force arrows shown (key F toggles them).
    #[arg(long)]
    pub forces: bool,
    /// The case shown first, 1-based.
    #[arg(long, default_value_t = 1)]
    pub select: usize,
    /// Simulated seconds per case (default: the case's `time.duration`).
    #[arg(long)]
    pub duration: Option<f64>,
    /// Where the impulse law runs (the cross-check lamps, the bounces).
    #[arg(long, value_enum, default_value_t = GpuMode::Auto)]
    pub gpu: GpuMode,
    /// Override a key of every case file (repeatable): `--set square.n_seg=16`.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<Override>,
}

/// Errors of the viewer; the CLI maps them to its own (and to the exit code).
#[derive(Debug, thiserror::Error)]
pub enum ViewError {
    /// Bad case file (exit 2).
    #[error(transparent)]
    Case(#[from] CaseError),
    /// Bad option value (exit 2).
    #[error(transparent)]
    Option(#[from] BadOption),
    /// The impulse law's backend could not be had (exit 1; a bad
    /// `STICKSLIP_GPU_BACKENDS` exit 2).
    #[error(transparent)]
    Gpu(#[from] GpuError),
    /// A slope case could not be set up (exit 1).
    #[error(transparent)]
    Run(#[from] RunError),
    /// A scene case could not be set up (exit 1).
    #[error(transparent)]
    SceneRun(#[from] SceneRunError),
    /// No display to open a window on.
    #[error(
        "no display: `stickslip view` needs an X11 display (DISPLAY is not set); run it under `xvfb-run -a stickslip view ...` for headless use"
    )]
    NoDisplay,
    /// The window library failed (e.g. no OpenGL).
    #[error("the window could not be opened or failed: {0}")]
    Window(String),
    /// The window was closed before the requested frames were rendered.
    #[error("the window was closed after {done} of {wanted} frames; no screenshot written")]
    Closed {
        /// Frames rendered.
        done: usize,
        /// Frames asked for.
        wanted: usize,
    },
    /// A screenshot could not be written.
    #[error("screenshot {path}: {reason}")]
    Screenshot {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// The bounce scene takes no case files.
    #[error("--scene bounce takes no case files (got {0})")]
    BounceWithCases(usize),
}

/// Whether a display is there to open a window on: `DISPLAY` set and not empty (X11; on Wayland
/// desktops XWayland sets it).
pub fn display_available() -> bool {
    std::env::var_os("DISPLAY").is_some_and(|d| !d.is_empty())
}

/// What the window loop is told.
pub(crate) struct ViewConfig {
    pub frames: Option<usize>,
    pub screenshot: Option<PathBuf>,
    pub speed: f64,
    pub forces: bool,
    pub select: usize,
    /// Frames rendered so far (read after the window closes).
    pub frames_done: Rc<Cell<usize>>,
}

fn bad_option(option: &str, rule: &str, value: impl ToString) -> ViewError {
    BadOption::new(option, rule, value).into()
}

/// Runs `stickslip view`: checks the options, then shows the scene the case files' `kind`
/// names (one dispatch, on [`CaseKind`]).
pub fn view_command(args: &ViewArgs) -> Result<(), ViewError> {
    if !(args.speed.is_finite() && args.speed > 0.0) {
        return Err(bad_option(
            "--speed",
            "must be finite and > 0",
            crate::number_format::Short(args.speed),
        ));
    }
    if args.frames == Some(0) {
        return Err(bad_option("--frames", "must be at least 1", 0));
    }
    check_positive("--duration", args.duration)?;
    if args.select == 0 {
        return Err(bad_option("--select", "must be at least 1", 0));
    }
    match (args.scene, args.cases.as_slice()) {
        (SceneKind::Bounce, []) => view_bounce(args, BounceCase::builtin()),
        (SceneKind::Bounce, cases) => Err(ViewError::BounceWithCases(cases.len())),
        (SceneKind::Slope, [one]) => match CaseKind::of_file(one)? {
            CaseKind::SlopeSquare => view_slopes(args),
            CaseKind::RigidEllipsoid => view_rigid(args),
            CaseKind::Bounce => view_bounce(args, BounceCase::load(one)?),
            CaseKind::Scene => view_scenes(args),
        },
        // Several scene cases (the first file's kind decides; each file's kind is checked on
        // load).
        (SceneKind::Slope, [first, ..]) if CaseKind::of_file(first)? == CaseKind::Scene => {
            view_scenes(args)
        }
        // None (the built-in three) or several: slope cases, each file's kind checked on load.
        (SceneKind::Slope, _) => view_slopes(args),
    }
}

/// The slope cases of `args` (the built-in three without any), a [`SlopeView`].
fn view_slopes(args: &ViewArgs) -> Result<(), ViewError> {
    let scenes = load_slope_cases(&args.cases, &args.set)?;
    for scene in &scenes {
        check_overrides(scene, args.duration, None)?;
    }
    check_select(args.select, scenes.len())?;
    if !display_available() {
        return Err(ViewError::NoDisplay);
    }
    let mask = gpu::backends_from_env(wgpu::Backends::PRIMARY)?;
    let backend = gpu::select_impulse_backend(args.gpu, mask)?;
    let backend_name = backend.name();
    let shared = SharedBackend::new(backend);
    let opts = RunOptions {
        duration: args.duration,
        ..Default::default()
    };
    let cases = scenes
        .into_iter()
        .map(|s| slope::SlopeCase::new(s, &opts, shared.clone()))
        .collect::<Result<Vec<_>, _>>()?;
    show(
        Box::new(SlopeView {
            cases,
            backend_name,
        }),
        args,
    )
}

/// The scene cases of `args` (`kind = "scene"`, each file's checked first): a
/// `CasesView` of 2D scenes or of 3D ones, by the files' `dimension` (one
/// dimension for all, else [`mixed_dimensions`]). `--gpu` does not apply (a scene's view runs no impulse law) and is
/// ignored.
fn view_scenes(args: &ViewArgs) -> Result<(), ViewError> {
    let dimensions = args
        .cases
        .iter()
        .map(|p| {
            let text = crate::scene::case_file::read_case_file(p)?;
            crate::scene::multibody::check_scene_kind(&text, p)?;
            crate::scene::multibody::dimension::declared_dimension(&text, p)
        })
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(e) = mixed_dimensions(&args.cases, &dimensions) {
        return Err(e.into());
    }
    if dimensions.first() == Some(&3) {
        return view_solids(args);
    }
    let scenes = args
        .cases
        .iter()
        .map(|p| MultibodyScene::load(p, &args.set))
        .collect::<Result<Vec<_>, _>>()?;
    for scene in &scenes {
        crate::api::check_scene_duration(scene, args.duration)?;
    }
    show_cases::<SceneRunner>(scenes, args)
}

/// The refusal of scene files of both dimensions in one `view` (`dimensions[i]` is
/// `files[i]`'s): it names the first file whose `dimension` differs from the first file's.
pub fn mixed_dimensions(files: &[PathBuf], dimensions: &[usize]) -> Option<CaseError> {
    let first = *dimensions.first()?;
    let (file, d) = files.iter().zip(dimensions).find(|(_, d)| **d != first)?;
    Some(CaseError::Invalid {
        file: file.clone(),
        key: "dimension".into(),
        rule: format!(
            "must be the same in every case file of one `stickslip view` ({first} in the first): 2D and 3D scenes are viewed apart"
        ),
        value: d.to_string(),
    })
}

/// The 3D scene cases of `args` (`kind = "scene"`, `dimension = 3`), a `CasesView`.
fn view_solids(args: &ViewArgs) -> Result<(), ViewError> {
    let scenes = args
        .cases
        .iter()
        .map(|p| SolidScene::load(p, &args.set))
        .collect::<Result<Vec<_>, _>>()?;
    for scene in &scenes {
        crate::api::check_duration_steps(scene.settings.h, args.duration)?;
    }
    show_cases::<SolidRunner>(scenes, args)
}

/// Scene cases of one dimension, loaded and checked, in the one scene view: `--select` within
/// them and the display checked, every case started at t = 0.
fn show_cases<R: ViewedRun + 'static>(
    scenes: Vec<R::Scene>,
    args: &ViewArgs,
) -> Result<(), ViewError> {
    check_select(args.select, scenes.len())?;
    if !display_available() {
        return Err(ViewError::NoDisplay);
    }
    let cases = scenes
        .into_iter()
        .map(|s| Case::<R>::new(s, args.duration))
        .collect::<Result<Vec<_>, _>>()?;
    show(Box::new(CasesView { cases }), args)
}

/// `--select` within the `n` cases loaded.
fn check_select(select: usize, n: usize) -> Result<(), ViewError> {
    if select > n {
        return Err(bad_option(
            "--select",
            &format!("must be between 1 and the number of cases ({n})"),
            select,
        ));
    }
    Ok(())
}

/// A bounce case, a [`BounceView`] (`--select` beyond 1 shows its one case).
fn view_bounce(args: &ViewArgs, case: BounceCase) -> Result<(), ViewError> {
    if !display_available() {
        return Err(ViewError::NoDisplay);
    }
    let mask = gpu::backends_from_env(wgpu::Backends::PRIMARY)?;
    let backend = gpu::select_impulse_backend(args.gpu, mask)?;
    let bounce = bounce::Bounce::new(&case);
    show(Box::new(BounceView { bounce, backend }), args)
}

/// Runs the window loop on `scene` with the options of `args`.
fn show(scene: Box<dyn SceneView>, args: &ViewArgs) -> Result<(), ViewError> {
    let config = ViewConfig {
        frames: args.frames,
        screenshot: args.screenshot.clone(),
        speed: args.speed,
        forces: args.forces,
        select: args.select - 1,
        frames_done: Rc::new(Cell::new(0)),
    };
    let frames_done = config.frames_done.clone();
    let wanted = args.frames;
    let outcome = in_window(async move { window::run(scene, config).await })?;
    window_result(outcome, wanted, frames_done.get())
}

/// `stickslip view CASE.toml` for one case of `kind = "rigid_ellipsoid"`: the run is computed,
/// then played back in 3D (see `rigid`). `--set`, `--duration`, `--speed`, `--frames` and
/// `--screenshot` apply.
fn view_rigid(args: &ViewArgs) -> Result<(), ViewError> {
    let mut scene = crate::rigid::case::RigidScene::load_with_overrides(&args.cases[0], &args.set)?;
    if let Some(d) = args.duration {
        crate::rigid::case::check_steps(scene.h, d)
            .map_err(|rule| bad_option("--duration", &rule, crate::number_format::Short(d)))?;
        scene.duration = d;
    }
    if !display_available() {
        return Err(ViewError::NoDisplay);
    }
    let frames_done = Rc::new(Cell::new(0));
    let counter = frames_done.clone();
    let (frames, speed, screenshot) = (args.frames, args.speed, args.screenshot.clone());
    let outcome = in_window(async move {
        rigid::run(
            scene,
            frames,
            speed,
            screenshot,
            counter,
            window::save_screenshot,
        )
        .await
    })?;
    window_result(outcome, args.frames, frames_done.get())
}

/// Runs `body` in a macroquad window. `None` when the window closed before `body` finished; a
/// panic of the window library (no display, no GL) is [`ViewError::Window`].
fn in_window(
    body: impl std::future::Future<Output = Result<(), ViewError>> + 'static,
) -> Result<Option<Result<(), ViewError>>, ViewError> {
    let outcome: Rc<RefCell<Option<Result<(), ViewError>>>> = Rc::new(RefCell::new(None));
    let slot = outcome.clone();
    let window = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
        macroquad::Window::from_config(window::window_conf(), async move {
            let result = body.await;
            *slot.borrow_mut() = Some(result);
        });
    }));
    if let Err(panic) = window {
        let reason = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "the window library panicked".into());
        return Err(ViewError::Window(reason));
    }
    let result = outcome.borrow_mut().take();
    Ok(result)
}

/// A window's outcome as the command's: closed before `wanted` frames is [`ViewError::Closed`].
fn window_result(
    outcome: Option<Result<(), ViewError>>,
    wanted: Option<usize>,
    done: usize,
) -> Result<(), ViewError> {
    match (outcome, wanted) {
        (Some(r), _) => r,
        (None, Some(wanted)) => Err(ViewError::Closed { done, wanted }),
        (None, None) => Ok(()),
    }
}
