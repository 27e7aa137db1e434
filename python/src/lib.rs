//! `stickslip._native`: the Rust half of the Python package (docs/python.md). Every run goes
//! through the library's entry points the command line uses ([`stickslip_sim::api`], the runners of
//! [`stickslip_sim::run`], [`stickslip_sim::rigid::run::simulate`]), so a result equals the CLI's output
//! files bit for bit. The GIL is released while a case steps; the thread that called in
//! re-attaches every `SIGNAL_CHECK` to let Python run its signal handlers, so Ctrl-C raises
//! `KeyboardInterrupt` within a fraction of a second and leaves the interpreter usable.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use numpy::{PyArray1, PyArrayMethods};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

use stickslip_sim::analysis::Summarised;
use stickslip_sim::api::{self, LoadError, LoadedCase};
use stickslip_sim::console::{BadOption, one_line};
use stickslip_sim::gpu::{GpuError, GpuMode};
use stickslip_sim::rigid::run::{EVENTS_HEADER, TRAJECTORY_HEADER as RIGID_HEADER};
use stickslip_sim::run::multibody::stepped::{SceneSteps, run_to_end};
use stickslip_sim::run::multibody::{
    ContactState, RunScene, Runner as SceneRun, SceneRunError, push_contact_rows,
};
use stickslip_sim::run::runner::{self, RunError, Runner};
use stickslip_sim::scene::multibody::MultibodyScene;
use stickslip_sim::scene::multibody::drivers::Steer;
use stickslip_sim::scene::multibody::solid::SolidScene;
use stickslip_sim::scene::{CaseError, Override};
use stickslip_sim::sweep::SweepError;
use stickslip_sim::sweep::file::Sweep;

/// How often a stepping thread re-attaches to the interpreter to run its signal handlers.
const SIGNAL_CHECK: Duration = Duration::from_millis(50);

/// A run shows its bar only once it has taken this long (the CLI's rule).
const PROGRESS_AFTER: Duration = Duration::from_secs(1);

/// The file, key and rule of a bad-input error, where it has them.
struct Blame {
    file: Option<String>,
    key: Option<String>,
    rule: Option<String>,
}

fn case_blame(e: &CaseError) -> Blame {
    let file = |f: &PathBuf| Some(f.display().to_string());
    match e {
        CaseError::Io { file: f, source } => Blame {
            file: file(f),
            key: None,
            rule: Some(source.to_string()),
        },
        CaseError::NotACaseFile { file: f, what } => Blame {
            file: file(f),
            key: None,
            rule: Some(format!("not a case file: it is {what}")),
        },
        CaseError::Parse {
            file: f,
            key,
            message,
        } => Blame {
            file: file(f),
            key: Some(key.clone()),
            rule: Some(message.clone()),
        },
        CaseError::Invalid {
            file: f, key, rule, ..
        } => Blame {
            file: file(f),
            key: Some(key.clone()),
            rule: Some(rule.clone()),
        },
        CaseError::FromOverride { source, .. } => case_blame(source),
    }
}

fn option_blame(e: &BadOption) -> Blame {
    Blame {
        file: None,
        key: Some(e.option.clone()),
        rule: Some(e.rule.clone()),
    }
}

/// `stickslip.InputError` (a `ValueError`) with the CLI's exit-2 message, word for word.
fn input_error(py: Python<'_>, message: &str, blame: Blame) -> PyErr {
    let made = py
        .import("stickslip.errors")
        .and_then(|m| m.getattr("InputError"))
        .and_then(|class| class.call1((one_line(message), blame.file, blame.key, blame.rule)));
    match made {
        Ok(e) => PyErr::from_value(e),
        Err(e) => e,
    }
}

/// `stickslip.RunError` (a `RuntimeError`) with the CLI's exit-1 message.
fn run_error(py: Python<'_>, message: &str) -> PyErr {
    let made = py
        .import("stickslip.errors")
        .and_then(|m| m.getattr("RunError"))
        .and_then(|class| class.call1((one_line(message),)));
    match made {
        Ok(e) => PyErr::from_value(e),
        Err(e) => e,
    }
}

/// Why a run stopped early.
enum Stop {
    /// Bad input found once the run was asked for (an option, `STICKSLIP_GPU_BACKENDS`).
    Input(String, Blame),
    /// The run failed (the CLI's exit 1).
    Failed(String),
    /// A signal handler raised (Ctrl-C: `KeyboardInterrupt`).
    Interrupted(PyErr),
}

impl Stop {
    fn into_py(self, py: Python<'_>) -> PyErr {
        match self {
            Stop::Input(message, blame) => input_error(py, &message, blame),
            Stop::Failed(message) => run_error(py, &message),
            Stop::Interrupted(e) => e,
        }
    }
}

impl From<BadOption> for Stop {
    fn from(e: BadOption) -> Stop {
        Stop::Input(e.to_string(), option_blame(&e))
    }
}

impl From<RunError> for Stop {
    fn from(e: RunError) -> Stop {
        Stop::Failed(e.to_string())
    }
}

impl From<SceneRunError> for Stop {
    fn from(e: SceneRunError) -> Stop {
        match e {
            // A scene too large for the solver: bad input, as the CLI's exit 2.
            SceneRunError::Input(e) => Stop::Input(e.to_string(), case_blame(&e)),
            e => Stop::Failed(e.to_string()),
        }
    }
}

impl From<api::BackendSetupError> for Stop {
    fn from(e: api::BackendSetupError) -> Stop {
        match e {
            api::BackendSetupError::Gpu(e @ GpuError::BadBackends { .. }) => Stop::Input(
                e.to_string(),
                Blame {
                    file: None,
                    key: Some("STICKSLIP_GPU_BACKENDS".into()),
                    rule: None,
                },
            ),
            e => Stop::Failed(e.to_string()),
        }
    }
}

/// Runs the signal handlers of the interpreter (from the thread that called in, re-attaching
/// for the moment it takes) once every [`SIGNAL_CHECK`].
struct SignalPoll {
    last: Instant,
}

impl SignalPoll {
    fn new() -> SignalPoll {
        SignalPoll {
            last: Instant::now(),
        }
    }
    fn poll(&mut self) -> Result<(), Stop> {
        if self.last.elapsed() < SIGNAL_CHECK {
            return Ok(());
        }
        self.last = Instant::now();
        Python::attach(|py| py.check_signals()).map_err(Stop::Interrupted)
    }
}

/// The progress bar of a run or a sweep on standard error: drawn when `progress` is true, or
/// when it is `None` and standard error is a terminal (never in a notebook, whose standard error
/// is a pipe); a run's bar only appears once the run has taken [`PROGRESS_AFTER`].
struct Progress {
    bar: ProgressBar,
    enabled: bool,
    shown: bool,
    start: Instant,
    delay: Duration,
}

impl Progress {
    fn new(progress: Option<bool>, total: usize, label: &str, unit: &str, delay: Duration) -> Self {
        let bar = ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::hidden());
        let template = format!("{{msg}} [{{bar:40}}] {{pos}}/{{len}} {unit}, eta {{eta}}");
        if let Ok(style) = ProgressStyle::with_template(&template) {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_message(label.to_string());
        Progress {
            bar,
            enabled: progress.unwrap_or_else(|| std::io::stderr().is_terminal()),
            shown: false,
            start: Instant::now(),
            delay,
        }
    }
    fn update(&mut self, done: usize) {
        if self.enabled && !self.shown && self.start.elapsed() >= self.delay {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
            self.shown = true;
        }
        self.bar.set_position(done as u64);
    }
    fn finish(self) {
        self.bar.finish_and_clear();
    }
}

/// A column of a trajectory: floats, or integers (Newton iterations).
enum Column {
    Float(Vec<f64>),
    Int(Vec<i64>),
}

/// What a run hands back to Python, all plain data (made while detached).
struct RunOutput {
    kind: &'static str,
    columns: Vec<(String, Column)>,
    events: Option<Vec<(String, EventColumn)>>,
    summary_json: String,
    verdict: Verdict,
}

enum EventColumn {
    Float(Vec<f64>),
    Text(Vec<String>),
    Bool(Vec<bool>),
}

enum Verdict {
    One(String),
    PerBody(Vec<(String, String)>),
}

fn to_json<T: serde::Serialize>(value: &T) -> Result<String, Stop> {
    serde_json::to_string(value).map_err(|e| Stop::Failed(format!("summary: {e}")))
}

fn parse_gpu(gpu: &str) -> Result<GpuMode, BadOption> {
    match gpu {
        "auto" => Ok(GpuMode::Auto),
        "on" => Ok(GpuMode::On),
        "off" => Ok(GpuMode::Off),
        other => Err(BadOption::new(
            "--gpu",
            "must be one of auto, on, off",
            other,
        )),
    }
}

/// A slope case, as `stickslip run` runs it: the options' rules, the impulse law's backend, the
/// runner driven to the end with the cross-check fed every [`runner::RECORD_CHUNK_STEPS`].
fn run_slope(
    scene: stickslip_sim::scene::Scene,
    duration: Option<f64>,
    tol: Option<f64>,
    gpu: &str,
    progress: Option<bool>,
) -> Result<RunOutput, Stop> {
    let opts = api::slope_run_options(&scene, duration, tol)?;
    let (shared, _) = api::impulse_backend(parse_gpu(gpu)?)?;
    let mut check = api::cross_check_for(&shared, &scene);
    let mut runner = Runner::new(scene, &opts)?;
    let mut bar = Progress::new(
        progress,
        runner.total_steps(),
        &runner.scene.name,
        "steps",
        PROGRESS_AFTER,
    );
    let mut signals = SignalPoll::new();
    runner::drive(&mut runner, Some(&mut check), |r: &Runner| {
        bar.update(r.sim.step);
        signals.poll()
    })?;
    bar.finish();
    let summary = runner.summary(Some(check.finish()));
    let headers = stickslip_sim::run::runner::TRAJECTORY_HEADER.split(',');
    let rows = &runner.rows;
    let float = |f: fn(&runner::TrajectoryRow) -> f64| Column::Float(rows.iter().map(f).collect());
    let values = [
        float(|r| r.t),
        float(|r| r.centroid_x),
        float(|r| r.centroid_y),
        float(|r| r.centroid_vx),
        float(|r| r.centroid_vy),
        float(|r| r.downhill_distance),
        float(|r| r.downhill_speed),
        float(|r| r.min_distance),
        Column::Int(rows.iter().map(|r| r.newton_iterations as i64).collect()),
        float(|r| r.final_residual),
    ];
    Ok(RunOutput {
        kind: "slope_square",
        columns: headers.map(str::to_string).zip(values).collect(),
        events: None,
        summary_json: to_json(&summary)?,
        verdict: Verdict::One(summary.verdict.to_string()),
    })
}

/// A scene case takes no `--tol` (its tolerance is the case's `newton.tol`).
fn refuse_scene_tol(tol: Option<f64>) -> Result<(), Stop> {
    match tol {
        Some(_) => Err(BadOption::new(
            "--tol",
            "does not apply to a scene case (set newton.tol in the case, or --set newton.tol=…)",
            "given",
        )
        .into()),
        None => Ok(()),
    }
}

/// Steps a scene's runner to its end, with the impulse law's cross-check over every contact on
/// the backend of `gpu` (as `stickslip run` runs it), the progress bar and Ctrl-C polled
/// between steps.
fn drive_scene(
    runner: &mut impl SceneSteps,
    eps_v: f64,
    gpu: &str,
    progress: Option<bool>,
) -> Result<(), Stop> {
    let (shared, _) = api::impulse_backend(parse_gpu(gpu)?)?;
    let mut bar = Progress::new(
        progress,
        runner.total_steps(),
        runner.name(),
        "steps",
        PROGRESS_AFTER,
    );
    let mut signals = SignalPoll::new();
    run_to_end(runner, api::scene_cross_check(&shared, eps_v), |r| {
        bar.update(r.steps_done());
        signals.poll()
    })?;
    bar.finish();
    Ok(())
}

/// A scene of bodies, 2D or 3D, as `stickslip run` runs it.
fn run_scene<S: Summarised<D>, const D: usize>(
    scene: S,
    duration: Option<f64>,
    tol: Option<f64>,
    gpu: &str,
    progress: Option<bool>,
) -> Result<RunOutput, Stop> {
    refuse_scene_tol(tol)?;
    api::check_scene_duration(&scene, duration)?;
    let eps_v = scene.settings().eps_v;
    let mut runner = SceneRun::<S, D>::new(scene, duration)?;
    drive_scene(&mut runner, eps_v, gpu, progress)?;
    let summary = S::summary(&runner);
    let rows: Vec<Vec<f64>> = runner.trajectory_values().collect();
    scene_output(
        runner.trajectory_header(),
        &rows,
        S::verdicts(&summary),
        to_json(&summary)?,
    )
}

/// A scene's trajectory (2D or 3D) as columns: every one a float but the Newton iterations
/// (the second to last).
fn trajectory_columns(header: Vec<String>, rows: &[Vec<f64>]) -> Vec<(String, Column)> {
    let iterations = header.len() - 2;
    header
        .into_iter()
        .enumerate()
        .map(|(k, name)| {
            let column = if k == iterations {
                Column::Int(rows.iter().map(|r| r[k] as i64).collect())
            } else {
                Column::Float(rows.iter().map(|r| r[k]).collect())
            };
            (name, column)
        })
        .collect()
}

/// A scene's result (2D or 3D): its trajectory's columns, every one a float but the Newton
/// iterations (the second to last), and each body's verdict.
fn scene_output(
    header: Vec<String>,
    rows: &[Vec<f64>],
    verdicts: Vec<(String, stickslip_sim::run::verdict::Verdict)>,
    summary_json: String,
) -> Result<RunOutput, Stop> {
    let columns = trajectory_columns(header, rows);
    let verdict = Verdict::PerBody(
        verdicts
            .into_iter()
            .map(|(name, v)| (name, v.to_string()))
            .collect(),
    );
    Ok(RunOutput {
        kind: "scene",
        columns,
        events: None,
        summary_json,
        verdict,
    })
}

/// A rigid case, as `stickslip run` runs it (one call: it is not interrupted mid-run).
fn run_rigid(
    scene: stickslip_sim::rigid::case::RigidScene,
    duration: Option<f64>,
    tol: Option<f64>,
) -> Result<RunOutput, Stop> {
    if tol.is_some() {
        return Err(
            BadOption::new("--tol", "does not apply to a rigid_ellipsoid case", "given").into(),
        );
    }
    api::check_rigid_duration(&scene, duration)?;
    let run = stickslip_sim::rigid::run::simulate(&scene, duration)
        .map_err(|e| Stop::Failed(e.to_string()))?;
    let rows: Vec<[f64; 19]> = run
        .rows
        .iter()
        .map(stickslip_sim::rigid::run::trajectory_values)
        .collect();
    let columns = RIGID_HEADER
        .split(',')
        .enumerate()
        .map(|(k, name)| {
            (
                name.to_string(),
                Column::Float(rows.iter().map(|r| r[k]).collect()),
            )
        })
        .collect();
    let e = &run.events;
    let float = |f: &dyn Fn(&stickslip_sim::rigid::run::ImpactEvent) -> f64| {
        EventColumn::Float(e.iter().map(f).collect())
    };
    let values = vec![
        float(&|e| e.t),
        float(&|e| e.point[0]),
        float(&|e| e.point[1]),
        float(&|e| e.point[2]),
        float(&|e| e.normal_speed_before),
        float(&|e| e.normal_speed_after),
        float(&|e| e.tangential_speed_before),
        float(&|e| e.tangential_speed_after),
        EventColumn::Text(e.iter().map(|e| e.mode.to_string()).collect()),
        float(&|e| e.impulse[0]),
        float(&|e| e.impulse[1]),
        float(&|e| e.impulse[2]),
        float(&|e| e.kinetic_energy_change),
        EventColumn::Bool(e.iter().map(|e| e.fallback).collect()),
    ];
    let events = EVENTS_HEADER.split(',').map(str::to_string).zip(values);
    Ok(RunOutput {
        kind: "rigid_ellipsoid",
        columns,
        events: Some(events.collect()),
        summary_json: to_json(&run.summary)?,
        verdict: Verdict::One(run.summary.ended.to_string()),
    })
}

/// A Python value of `set={...}` as the text of a `--set KEY=VALUE`: a `str` as given (read as
/// the command line reads VALUE), anything else as TOML.
fn override_text(value: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(s) = value.cast::<PyString>() {
        return Ok(s.to_str()?.to_string());
    }
    Ok(toml_value(value)?.to_string())
}

fn toml_value(value: &Bound<'_, PyAny>) -> PyResult<toml::Value> {
    if value.is_instance_of::<PyBool>() {
        return Ok(toml::Value::Boolean(value.extract()?));
    }
    if value.is_instance_of::<PyInt>() {
        return Ok(toml::Value::Integer(value.extract()?));
    }
    if value.is_instance_of::<PyFloat>() {
        return Ok(toml::Value::Float(value.extract()?));
    }
    if let Ok(s) = value.cast::<PyString>() {
        return Ok(toml::Value::String(s.to_str()?.to_string()));
    }
    if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
        let items: PyResult<Vec<toml::Value>> =
            value.try_iter()?.map(|item| toml_value(&item?)).collect();
        return Ok(toml::Value::Array(items?));
    }
    Err(pyo3::exceptions::PyTypeError::new_err(format!(
        "a value of set= must be a bool, int, float, str or a list of them (got {})",
        value.get_type().name()?
    )))
}

/// A loaded, validated case file (`stickslip.load`).
#[pyclass(module = "stickslip._native", frozen)]
struct Case {
    case: LoadedCase,
    path: PathBuf,
    overrides: Vec<String>,
}

#[pymethods]
impl Case {
    /// The case file's path, as given.
    #[getter]
    fn path(&self) -> String {
        self.path.display().to_string()
    }

    /// The case's kind: "slope_square", "scene" or "rigid_ellipsoid".
    #[getter]
    fn kind(&self) -> &'static str {
        match &self.case {
            LoadedCase::Slope(_) => "slope_square",
            LoadedCase::Scene(_) | LoadedCase::Solid(_) => "scene",
            LoadedCase::Rigid(_) => "rigid_ellipsoid",
        }
    }

    /// The case's name (its `name` key).
    #[getter]
    fn name(&self) -> String {
        match &self.case {
            LoadedCase::Slope(s) => s.name.clone(),
            LoadedCase::Scene(s) => s.name.clone(),
            LoadedCase::Solid(s) => s.name.clone(),
            LoadedCase::Rigid(s) => s.name.clone(),
        }
    }

    /// The time step h, s.
    #[getter]
    fn h(&self) -> f64 {
        match &self.case {
            LoadedCase::Slope(s) => s.h,
            LoadedCase::Scene(s) => s.settings.h,
            LoadedCase::Solid(s) => s.settings.h,
            LoadedCase::Rigid(s) => s.h,
        }
    }

    /// The case's duration (`time.duration`), s.
    #[getter]
    fn duration(&self) -> f64 {
        match &self.case {
            LoadedCase::Slope(s) => s.duration,
            LoadedCase::Scene(s) => s.settings.duration,
            LoadedCase::Solid(s) => s.settings.duration,
            LoadedCase::Rigid(s) => s.duration,
        }
    }

    /// The overrides applied, as `KEY=VALUE` strings (as summary.json lists them).
    #[getter]
    fn overrides(&self) -> Vec<String> {
        self.overrides.clone()
    }

    fn __repr__(&self) -> String {
        format!(
            "<stickslip.Case {:?} kind={} from {:?}>",
            self.name(),
            self.kind(),
            self.path()
        )
    }

    /// Runs the case (see stickslip.Case.run).
    #[pyo3(signature = (duration=None, *, tol=None, gpu="off", progress=None))]
    fn run(
        &self,
        py: Python<'_>,
        duration: Option<f64>,
        tol: Option<f64>,
        gpu: &str,
        progress: Option<bool>,
    ) -> PyResult<Py<PyAny>> {
        let case = self.case.clone();
        let gpu = gpu.to_string();
        let output = py
            .detach(move || match case {
                LoadedCase::Slope(s) => run_slope(s, duration, tol, &gpu, progress),
                LoadedCase::Scene(s) => run_scene(s, duration, tol, &gpu, progress),
                LoadedCase::Solid(s) => run_scene(s, duration, tol, &gpu, progress),
                LoadedCase::Rigid(s) => run_rigid(s, duration, tol),
            })
            .map_err(|stop| stop.into_py(py))?;
        // A Ctrl-C during the last stretch of steps, or during a rigid run, raises here.
        py.check_signals()?;
        result_object(py, output)
    }

    /// A scene stepped from Python (see stickslip.Case.simulate): at t = 0, stepped by
    /// `Simulation.step`.
    fn simulate(&self, py: Python<'_>) -> PyResult<Simulation> {
        let case = match &self.case {
            LoadedCase::Scene(_) | LoadedCase::Solid(_) => self.case.clone(),
            LoadedCase::Slope(_) | LoadedCase::Rigid(_) => {
                return Err(input_error(
                    py,
                    &format!(
                        "{}: Case.simulate() steps a scene (kind = \"scene\", 2D or 3D), not a {} case; run this one with Case.run()",
                        self.path.display(),
                        self.kind()
                    ),
                    Blame {
                        file: Some(self.path.display().to_string()),
                        key: Some("kind".into()),
                        rule: Some("Case.simulate() steps a scene".into()),
                    },
                ));
            }
        };
        let stepping = py
            .detach(move || match case {
                LoadedCase::Scene(s) => SceneRun::new(s, None).map(Stepping::Plane),
                LoadedCase::Solid(s) => SceneRun::new(s, None).map(Stepping::Solid),
                LoadedCase::Slope(_) | LoadedCase::Rigid(_) => unreachable!("refused above"),
            })
            .map_err(|e| Stop::from(e).into_py(py))?;
        Ok(Simulation {
            state: std::sync::Mutex::new(stepping),
        })
    }
}

/// A scene run being stepped from Python, 2D or 3D.
enum Stepping {
    Plane(SceneRun<MultibodyScene, 2>),
    Solid(SceneRun<SolidScene, 3>),
}

/// Calls `$body` with `$r` bound to the runner of either dimension.
macro_rules! with_runner {
    ($stepping:expr, $r:ident => $body:expr) => {
        match $stepping {
            Stepping::Plane($r) => $body,
            Stepping::Solid($r) => $body,
        }
    };
}

/// A vector of `D` numbers from Python (a sequence of floats), or the InputError naming
/// `key` with the CLI's wording.
fn vector_arg<const D: usize>(
    py: Python<'_>,
    key: &str,
    value: &Bound<'_, PyAny>,
) -> PyResult<stickslip_sim::energy::Vector<D>> {
    let numbers: Vec<f64> = value.extract().map_err(|_| {
        input_error(
            py,
            &format!(
                "{key}: must be an array of exactly {D} numbers (got {})",
                value
            ),
            Blame {
                file: None,
                key: Some(key.to_string()),
                rule: Some(format!("an array of exactly {D} numbers")),
            },
        )
    })?;
    if numbers.len() != D || numbers.iter().any(|x| !x.is_finite()) {
        return Err(input_error(
            py,
            &format!("{key}: must be an array of exactly {D} finite numbers (got {numbers:?})"),
            Blame {
                file: None,
                key: Some(key.to_string()),
                rule: Some(format!("an array of exactly {D} finite numbers")),
            },
        ));
    }
    Ok(stickslip_sim::energy::Vector::<D>::from_iterator(numbers))
}

/// The change `key` = `value` asks of a driver, in dimension D.
fn steer_arg<const D: usize>(
    py: Python<'_>,
    key: &str,
    value: &Bound<'_, PyAny>,
) -> PyResult<Steer<D>> {
    let v = vector_arg::<D>(py, key, value)?;
    match key {
        "anchor_velocity" => Ok(Steer::AnchorVelocity(v)),
        "velocity" => Ok(Steer::Velocity(v)),
        "force" => Ok(Steer::Force(v)),
        other => Err(input_error(
            py,
            &format!("{other}: a driver's change is one of anchor_velocity, velocity, force"),
            Blame {
                file: None,
                key: Some(other.to_string()),
                rule: Some("one of anchor_velocity, velocity, force".into()),
            },
        )),
    }
}

/// Changes driver `name` of `runner` by `key` = `value`, or raises InputError.
fn steer<S: RunScene<D>, const D: usize>(
    py: Python<'_>,
    runner: &mut SceneRun<S, D>,
    name: &str,
    key: &str,
    value: &Bound<'_, PyAny>,
) -> PyResult<()> {
    let change = steer_arg::<D>(py, key, value)?;
    runner.steer_driver(name, change).map_err(|e| {
        input_error(
            py,
            &e.to_string(),
            Blame {
                file: None,
                key: Some(key.to_string()),
                rule: Some(e.to_string()),
            },
        )
    })
}

/// An (n, D) float array of `rows`.
fn matrix<'py, const D: usize>(
    py: Python<'py>,
    rows: &[stickslip_sim::energy::Vector<D>],
) -> PyResult<Bound<'py, numpy::PyArray2<f64>>> {
    let flat: Vec<f64> = rows.iter().flat_map(|x| x.iter().copied()).collect();
    PyArray1::from_vec(py, flat).reshape([rows.len(), D])
}

/// Every body's mesh positions and velocities now, by name.
fn bodies_dict<'py, S: RunScene<D>, const D: usize>(
    py: Python<'py>,
    runner: &SceneRun<S, D>,
) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    for k in 0..runner.scene.body_count() {
        let body = runner.body(k);
        let d = PyDict::new(py);
        d.set_item("positions", matrix(py, &body.positions(&runner.sim))?)?;
        d.set_item("velocities", matrix(py, &body.velocities(&runner.sim))?)?;
        out.set_item(runner.scene.body(k).name(), d)?;
    }
    Ok(out)
}

/// Every driver's type and force on its body now, by name.
fn drivers_dict<'py, S: RunScene<D>, const D: usize>(
    py: Python<'py>,
    runner: &SceneRun<S, D>,
) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    for (spec, force) in runner.scene.drivers().iter().zip(runner.driver_forces()) {
        let d = PyDict::new(py);
        d.set_item("type", spec.kind.name())?;
        d.set_item("body", runner.scene.body(spec.body).name())?;
        d.set_item(
            "force",
            PyArray1::from_vec(py, force.iter().copied().collect()),
        )?;
        out.set_item(&spec.name, d)?;
    }
    Ok(out)
}

/// The trajectory's rows so far as `run()` gives them.
fn trajectory_dict<S: RunScene<D>, const D: usize>(
    py: Python<'_>,
    runner: &SceneRun<S, D>,
) -> PyResult<Py<PyAny>> {
    let header = runner.trajectory_header();
    let rows: Vec<Vec<f64>> = runner.trajectory_values().collect();
    let out = PyDict::new(py);
    for (name, column) in trajectory_columns(header, &rows) {
        match column {
            Column::Float(v) => out.set_item(name, PyArray1::from_vec(py, v))?,
            Column::Int(v) => out.set_item(name, PyArray1::from_vec(py, v))?,
        }
    }
    Ok(out.into_any().unbind())
}

/// The contact pairs within d̂ now, as `contacts.csv` has them (pair type, members, distance,
/// the barrier's normal force, normal, slip, regime by the slip against ε_v), with each pair's
/// friction force from the friction set of the step that ended here (zero for a pair not in
/// it): column name -> numpy array or list of str.
fn contacts_dict<'py, S: RunScene<D>, const D: usize>(
    py: Python<'py>,
    runner: &SceneRun<S, D>,
    member: impl Fn(usize) -> String,
) -> PyResult<Bound<'py, PyDict>> {
    let sim = &runner.sim;
    let mut pairs = Vec::new();
    if let Some(c) = sim.contact() {
        c.distances(&sim.x, &mut pairs);
    }
    let mut friction = Vec::new();
    sim.contacts(&mut friction);
    let mut rows = Vec::new();
    let dhat = runner.scene.settings().barrier.dhat;
    push_contact_rows(sim.time(), dhat, &pairs, &sim.v, &friction, &mut rows);
    let eps_v = runner.scene.settings().eps_v;
    let friction_force: Vec<_> = rows.iter().map(|r| r.friction_force).collect();
    let out = PyDict::new(py);
    out.set_item("type", rows.iter().map(|r| r.kind).collect::<Vec<_>>())?;
    out.set_item(
        "first",
        rows.iter().map(|r| member(r.members.0)).collect::<Vec<_>>(),
    )?;
    out.set_item(
        "second",
        rows.iter().map(|r| member(r.members.1)).collect::<Vec<_>>(),
    )?;
    out.set_item(
        "distance",
        PyArray1::from_vec(py, rows.iter().map(|r| r.distance).collect()),
    )?;
    out.set_item(
        "normal_force",
        PyArray1::from_vec(py, rows.iter().map(|r| r.normal_force).collect()),
    )?;
    out.set_item(
        "normal",
        matrix(py, &rows.iter().map(|r| r.normal).collect::<Vec<_>>())?,
    )?;
    out.set_item("friction_force", matrix(py, &friction_force)?)?;
    out.set_item(
        "slip",
        matrix(py, &rows.iter().map(|r| r.slip).collect::<Vec<_>>())?,
    )?;
    out.set_item(
        "state",
        rows.iter()
            .map(|r| ContactState::of_slip(r.slip.norm(), eps_v).name())
            .collect::<Vec<_>>(),
    )?;
    Ok(out)
}

/// A scene being stepped (see stickslip.Simulation).
#[pyclass(module = "stickslip._native")]
struct Simulation {
    state: std::sync::Mutex<Stepping>,
}

impl Simulation {
    fn lock(&self, py: Python<'_>) -> PyResult<std::sync::MutexGuard<'_, Stepping>> {
        self.state
            .lock()
            .map_err(|_| run_error(py, "the simulation failed in another thread"))
    }
}

#[pymethods]
impl Simulation {
    /// Takes `n` steps (n >= 1) with the GIL released; Ctrl-C stops between steps.
    #[pyo3(signature = (n=1))]
    fn step(&self, py: Python<'_>, n: i64) -> PyResult<()> {
        if n < 1 {
            return Err(input_error(
                py,
                &format!("n: must be at least 1 (got {n})"),
                Blame {
                    file: None,
                    key: Some("n".into()),
                    rule: Some("at least 1".into()),
                },
            ));
        }
        let mut guard = self.lock(py)?;
        let stepping = &mut *guard;
        let outcome = py.detach(|| -> Result<(), Stop> {
            let mut signals = SignalPoll::new();
            for _ in 0..n {
                with_runner!(&mut *stepping, r => r.step())?;
                signals.poll()?;
            }
            Ok(())
        });
        outcome.map_err(|stop| stop.into_py(py))?;
        py.check_signals()
    }

    /// The simulated time, s.
    #[getter]
    fn t(&self, py: Python<'_>) -> PyResult<f64> {
        Ok(with_runner!(&*self.lock(py)?, r => r.sim.time()))
    }

    /// Steps taken.
    #[getter]
    fn steps(&self, py: Python<'_>) -> PyResult<usize> {
        Ok(with_runner!(&*self.lock(py)?, r => r.sim.step))
    }

    /// The scene's dimension, 2 or 3.
    #[getter]
    fn dimension(&self, py: Python<'_>) -> PyResult<usize> {
        Ok(match &*self.lock(py)? {
            Stepping::Plane(_) => 2,
            Stepping::Solid(_) => 3,
        })
    }

    /// Every body's mesh positions (m) and velocities (m/s) now: name -> dict of (n, D) arrays.
    fn bodies<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        with_runner!(&*self.lock(py)?, r => bodies_dict(py, r))
    }

    /// Every driver's type, body and force on its body at the last step (N): name -> dict.
    fn drivers<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        with_runner!(&*self.lock(py)?, r => drivers_dict(py, r))
    }

    /// Changes driver `name` from the next step on: `key` is `anchor_velocity` (a spring),
    /// `velocity` (a prescribed motion) or `force` (a constant force), `value` D numbers.
    fn set_driver(
        &self,
        py: Python<'_>,
        name: &str,
        key: &str,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        match &mut *self.lock(py)? {
            Stepping::Plane(r) => steer(py, r, name, key, value),
            Stepping::Solid(r) => steer(py, r, name, key, value),
        }
    }

    /// The contact pairs within d̂ now (see contacts_dict): column name -> array or list.
    fn contacts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        with_runner!(&*self.lock(py)?, r => contacts_dict(py, r, |m| r.scene.member_name(m).to_string()))
    }

    /// The trajectory's rows so far, as `Case.run()`'s: column name -> numpy array.
    fn trajectory(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        with_runner!(&*self.lock(py)?, r => trajectory_dict(py, r))
    }
}

/// The raw result as a dict the Python half wraps in `stickslip.RunResult`.
fn result_object(py: Python<'_>, out: RunOutput) -> PyResult<Py<PyAny>> {
    let trajectory = PyDict::new(py);
    for (name, column) in out.columns {
        match column {
            Column::Float(v) => trajectory.set_item(name, PyArray1::from_vec(py, v))?,
            Column::Int(v) => trajectory.set_item(name, PyArray1::from_vec(py, v))?,
        }
    }
    let events = match out.events {
        None => None,
        Some(columns) => {
            let d = PyDict::new(py);
            for (name, column) in columns {
                match column {
                    EventColumn::Float(v) => d.set_item(name, PyArray1::from_vec(py, v))?,
                    EventColumn::Bool(v) => d.set_item(name, PyArray1::from_vec(py, v))?,
                    EventColumn::Text(v) => d.set_item(name, v)?,
                }
            }
            Some(d)
        }
    };
    let summary = py
        .import("json")?
        .getattr("loads")?
        .call1((out.summary_json,))?;
    let verdict: Py<PyAny> = match out.verdict {
        Verdict::One(v) => v.into_pyobject(py)?.into_any().unbind(),
        Verdict::PerBody(pairs) => {
            let d = PyDict::new(py);
            for (name, v) in pairs {
                d.set_item(name, v)?;
            }
            d.into_any().unbind()
        }
    };
    let result = PyDict::new(py);
    result.set_item("kind", out.kind)?;
    result.set_item("trajectory", trajectory)?;
    result.set_item("events", events)?;
    result.set_item("summary", summary)?;
    result.set_item("verdict", verdict)?;
    Ok(result.into_any().unbind())
}

/// Loads and validates a case file of any kind that runs (see stickslip.load).
#[pyfunction]
#[pyo3(signature = (path, set=None))]
fn load(py: Python<'_>, path: PathBuf, set: Option<&Bound<'_, PyDict>>) -> PyResult<Case> {
    let mut overrides = Vec::new();
    if let Some(set) = set {
        for (key, value) in set.iter() {
            let key: String = key.extract()?;
            let setting = format!("{}={}", key, override_text(&value)?);
            // The command line's own parse of `--set KEY=VALUE`.
            let o = Override::parse(&setting).map_err(|e| {
                input_error(
                    py,
                    &e.to_string(),
                    Blame {
                        file: None,
                        key: Some(key.clone()),
                        rule: Some(e.rule.clone()),
                    },
                )
            })?;
            overrides.push(o);
        }
    }
    let loaded = py.detach(|| api::load_case(&path, &overrides));
    let case = loaded.map_err(|e| match &e {
        LoadError::Case(c) => input_error(py, &e.to_string(), case_blame(c)),
        LoadError::Option(o) => input_error(py, &e.to_string(), option_blame(o)),
    })?;
    Ok(Case {
        case,
        path,
        overrides: overrides.iter().map(|o| o.setting.clone()).collect(),
    })
}

fn sweep_blame(e: &SweepError) -> Blame {
    match e {
        SweepError::Invalid { file, key, rule }
        | SweepError::Axis {
            file, key, rule, ..
        } => Blame {
            file: Some(file.display().to_string()),
            key: Some(key.clone()),
            rule: Some(rule.clone()),
        },
        SweepError::Option { option, rule, .. } => Blame {
            file: None,
            key: Some(option.clone()),
            rule: Some(rule.clone()),
        },
        _ => Blame {
            file: None,
            key: None,
            rule: None,
        },
    }
}

/// Runs every cell of a sweep file in memory (see stickslip.sweep); returns (map.csv's text,
/// the collect report).
#[pyfunction]
#[pyo3(signature = (path, jobs=None, progress=None))]
fn sweep(
    py: Python<'_>,
    path: PathBuf,
    jobs: Option<usize>,
    progress: Option<bool>,
) -> PyResult<(String, String)> {
    let sweep_error = |e: SweepError| {
        if e.exit_code() == 2 {
            input_error(py, &e.to_string(), sweep_blame(&e))
        } else {
            run_error(py, &e.to_string())
        }
    };
    if jobs == Some(0) {
        return Err(sweep_error(SweepError::Option {
            option: "--jobs".into(),
            rule: "must be at least 1".into(),
            value: "0".into(),
        }));
    }
    let loaded = py.detach(|| Sweep::load(&path));
    let sweep = loaded.map_err(sweep_error)?;
    let jobs = jobs.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    let outcome = py.detach(|| {
        let stop = AtomicBool::new(false);
        let label = format!("sweep {}", one_line(&sweep.name));
        let bar = Progress::new(progress, sweep.cells.len(), &label, "cells", Duration::ZERO);
        let bar = std::sync::Mutex::new(bar);
        let mut interrupted = None;
        let collected = std::thread::scope(|scope| {
            let worker = scope.spawn(|| {
                api::run_sweep_in_memory(&sweep, jobs, &stop, |done| {
                    if let Ok(mut b) = bar.lock() {
                        b.update(done);
                    }
                })
            });
            while !worker.is_finished() {
                std::thread::sleep(SIGNAL_CHECK);
                if interrupted.is_none()
                    && let Err(e) = Python::attach(|py| py.check_signals())
                {
                    // No further cell starts; the ones running finish (seconds at most).
                    stop.store(true, Ordering::Relaxed);
                    interrupted = Some(e);
                }
            }
            worker.join()
        });
        if let Ok(b) = bar.into_inner() {
            b.finish();
        }
        (collected, interrupted)
    });
    match outcome {
        (_, Some(e)) => Err(e),
        (Ok(collected), None) => Ok((collected.csv(), collected.report())),
        (Err(_), None) => Err(run_error(py, "the sweep's worker thread panicked")),
    }
}

/// The Rust half of the stickslip package; use `import stickslip`.
#[pymodule]
mod _native {
    #[pymodule_export]
    use super::{Case, Simulation, load, sweep};
}
