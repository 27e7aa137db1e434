//! `stickslip view`: the simulation in a window, in real time, with its checks as lamps.
//!
//! * [`slope`]: the slope cases' state (a [`Runner`](crate::app::runner::Runner) each, the
//!   per-step checks, node states and forces);
//! * [`bounce`]: seed 001's bounce scene (three balls through the impulse law);
//! * [`lamps`]: the strip of lamps (green while a check holds, red for good once it fails);
//! * [`layout`]: the panels, the world→screen transforms and the colours (pure, for the tests);
//! * `draw`: the window (macroquad), which only reads the state above;
//! * `rigid`: a case of `kind = "rigid_ellipsoid"` (SPEC.md §5), the football in 3D.
//!
//! Headless use for docs and tests: `--frames N --screenshot out.png` renders N steps and writes
//! the last frame. It needs an X11 display (e.g. `xvfb-run -a`); without `DISPLAY` the command
//! fails with one line rather than letting the window library abort. See `docs/viewer.md`.

pub mod bounce;
mod draw;
pub mod lamps;
pub mod layout;
mod rigid;
pub mod slope;

use std::cell::{Cell, RefCell};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use clap::{Args, ValueEnum};

use crate::app::cli::{BUILTIN_CASES, CliError};
use crate::app::runner::RunOptions;
use crate::contact::impulse_law::SharedBackend;
use crate::gpu::{self, GpuMode};
use crate::scene::{Override, Scene};

/// Which scene the viewer shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum SceneKind {
    /// The square on the slope (SPEC.md §1), one run per case file.
    #[default]
    Slope,
    /// Seed 001's three balls bouncing through the impulse law.
    Bounce,
}

/// `stickslip view`.
#[derive(Debug, Args)]
pub struct ViewArgs {
    /// Case files (default: the three built-in slope cases); keys 1–9 switch between them.
    pub cases: Vec<PathBuf>,
    /// The scene: the slope cases, or the bounce scene of seed 001 (takes no case files).
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

/// Errors of the viewer.
#[derive(Debug, thiserror::Error)]
pub enum ViewError {
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

/// The scenes the viewer runs.
pub(crate) enum ViewScene {
    Slope {
        cases: Vec<slope::SlopeCase>,
        backend_name: String,
    },
    Bounce {
        bounce: Box<bounce::Bounce>,
        backend: Box<dyn crate::contact::impulse_law::ImpulseBackend>,
    },
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

/// Loads the slope cases of `args` (the built-in three when none are given), each with
/// `overrides` applied.
pub fn load_cases(paths: &[PathBuf], overrides: &[Override]) -> Result<Vec<Scene>, CliError> {
    if paths.is_empty() {
        BUILTIN_CASES
            .iter()
            .map(|(path, text)| {
                Scene::from_toml_with_overrides(text, Path::new(path), overrides)
                    .map_err(CliError::from)
            })
            .collect()
    } else {
        paths
            .iter()
            .map(|p| Scene::load_with_overrides(p, overrides).map_err(CliError::from))
            .collect()
    }
}

fn bad_option(option: &str, rule: &str, value: impl ToString) -> CliError {
    CliError::Option {
        option: option.into(),
        rule: rule.into(),
        value: value.to_string(),
    }
}

/// Runs `stickslip view`.
pub fn view_command(args: &ViewArgs) -> Result<(), CliError> {
    if !(args.speed.is_finite() && args.speed > 0.0) {
        return Err(bad_option("--speed", "must be finite and > 0", args.speed));
    }
    if args.frames == Some(0) {
        return Err(bad_option("--frames", "must be at least 1", 0));
    }
    if let Some(d) = args.duration
        && !(d.is_finite() && d > 0.0)
    {
        return Err(bad_option("--duration", "must be finite and > 0", d));
    }
    if args.cases.len() == 1 && crate::app::rigid_command::is_rigid_case(&args.cases[0]) {
        return view_rigid(args);
    }
    if args.scene == SceneKind::Bounce && !args.cases.is_empty() {
        return Err(ViewError::BounceWithCases(args.cases.len()).into());
    }
    let scenes = match args.scene {
        SceneKind::Slope => load_cases(&args.cases, &args.set)?,
        SceneKind::Bounce => Vec::new(),
    };
    for scene in &scenes {
        crate::app::cli::check_overrides(scene, args.duration, None)?;
    }
    if args.select == 0 || (args.scene == SceneKind::Slope && args.select > scenes.len()) {
        return Err(bad_option(
            "--select",
            &format!(
                "must be between 1 and the number of cases ({})",
                scenes.len().max(1)
            ),
            args.select,
        ));
    }
    if !display_available() {
        return Err(ViewError::NoDisplay.into());
    }
    let mask = gpu::backends_from_env(wgpu::Backends::PRIMARY)?;
    let backend = gpu::select_impulse_backend(args.gpu, mask)?;
    let scene = match args.scene {
        SceneKind::Slope => {
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
            ViewScene::Slope {
                cases,
                backend_name,
            }
        }
        SceneKind::Bounce => ViewScene::Bounce {
            bounce: Box::new(bounce::Bounce::new()),
            backend,
        },
    };
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
    let outcome = in_window(async move { draw::run(scene, config).await })?;
    window_result(outcome, wanted, frames_done.get())
}

/// `stickslip view CASE.toml` for one case of `kind = "rigid_ellipsoid"`: the run is computed,
/// then played back in 3D (see `rigid`). `--speed`, `--frames` and `--screenshot` apply.
fn view_rigid(args: &ViewArgs) -> Result<(), CliError> {
    let scene = crate::rigid::case::RigidScene::load(&args.cases[0])?;
    if !display_available() {
        return Err(ViewError::NoDisplay.into());
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
            draw::save_screenshot,
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
        macroquad::Window::from_config(draw::window_conf(), async move {
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
) -> Result<(), CliError> {
    match (outcome, wanted) {
        (Some(r), _) => r.map_err(CliError::from),
        (None, Some(wanted)) => Err(ViewError::Closed { done, wanted }.into()),
        (None, None) => Ok(()),
    }
}
