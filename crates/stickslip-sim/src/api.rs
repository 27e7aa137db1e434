//! The entry points that every program driving stickslip shares: the command line
//! (`stickslip::app`, the front-end crate) and the Python package (`python/`, docs/python.md) call these, so a case run
//! from Python takes the CLI's code path step for step and gives the same numbers bit for bit.
//!
//! * [`load_case`]: a case file of any kind that runs, with `--set` overrides, validated as the
//!   CLI validates it (errors are the CLI's exit-2 messages);
//! * [`slope_run_options`], [`check_scene_duration`],
//!   [`check_rigid_duration`]: the rules a
//!   `--duration` and a `--tol` obey for each kind;
//! * [`impulse_backend`] and [`cross_check_for`]: the impulse law of the slope's cross-check
//!   (SPEC.md §4), made once and shared by the runs;
//! * [`run_sweep_cell`]: one cell of a sweep, as `stickslip sweep` runs it, and
//!   [`run_sweep_in_memory`]: every cell on worker threads without a sweep directory, merged
//!   into the rows of `map.csv` ([`crate::sweep::collect`]).

use std::panic::AssertUnwindSafe;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

use crate::analysis::slide_or_tip::{SlideOrTip, SlideOrTipAnalytic};
use crate::console::{BadOption, check_overrides, check_positive, one_line};
use crate::cross_check::backend::BackendError;
use crate::cross_check::impulse_law::{ContactInput, CpuLaw, ImpulseBackend, SharedBackend};
use crate::cross_check::{CrossCheck, CrossCheckConfig};
use crate::gpu::{self, GpuError, GpuMode};
use crate::rigid::case::RigidScene;
use crate::run::multibody::stepped::{SceneSteps, run_to_end};
use crate::run::multibody::{RunScene, SceneRunError};
use crate::run::runner::{self, RunOptions};
use crate::scene::limits::MAX_STEPS;
use crate::scene::multibody::MultibodyScene;
use crate::scene::multibody::solid::SolidScene;
use crate::scene::{CaseError, CaseKind, Override, Scene};
use crate::sweep::collect::{Collected, CollectedCell};
use crate::sweep::dir::{
    BodyVerdict, CellRecord, CellResult, CellState, CycleInputs, CycleValues, Manifest, Outcome,
    SceneCellResult, json_value,
};
use crate::sweep::file::{Cell, Sweep, SweepKind};

/// A validated case file of a kind that `stickslip run` runs.
#[derive(Clone, Debug)]
pub enum LoadedCase {
    /// `kind = "slope_square"`: the square on the slope (SPEC.md §1–§4).
    Slope(Scene),
    /// `kind = "scene"`: bodies, obstacles and drivers (SPEC.md §7).
    Scene(MultibodyScene),
    /// `kind = "scene"` with `dimension = 3`: tetrahedral bodies and obstacles (SPEC.md §7).
    Solid(SolidScene),
    /// `kind = "rigid_ellipsoid"`: the football on SE(3) (SPEC.md §5).
    Rigid(RigidScene),
}

/// Errors of [`load_case`]: bad input, each the CLI's exit-2 message.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The case file (or an override's value) breaks a rule.
    #[error(transparent)]
    Case(#[from] CaseError),
    /// An option given for the case breaks a rule.
    #[error(transparent)]
    Option(#[from] BadOption),
}

/// Reads and validates the case file at `path` with `overrides` applied first, dispatching on its
/// `kind` as `stickslip run` does. A `kind = "bounce"` file is refused by the slope loader with
/// the message the CLI prints (the bounce scene is the viewer's). A rigid case takes no
/// overrides yet: any given is refused (the CLI's `run` does not apply them to a rigid case).
pub fn load_case(path: &Path, overrides: &[Override]) -> Result<LoadedCase, LoadError> {
    match CaseKind::of_file(path)? {
        CaseKind::SlopeSquare | CaseKind::Bounce => Ok(LoadedCase::Slope(
            Scene::load_with_overrides(path, overrides)?,
        )),
        CaseKind::Scene => {
            let text = crate::scene::case_file::read_case_file(path)?;
            if crate::scene::multibody::dimension::declared_dimension(&text, path)? == 3 {
                Ok(LoadedCase::Solid(SolidScene::load(path, overrides)?))
            } else {
                Ok(LoadedCase::Scene(MultibodyScene::load(path, overrides)?))
            }
        }
        CaseKind::RigidEllipsoid => Ok(LoadedCase::Rigid(RigidScene::load_with_overrides(
            path, overrides,
        )?)),
    }
}

/// The options of a slope run with `--duration` and `--tol` as given (each finite and > 0, and
/// within the case's bounds: [`Scene::check_duration`], [`Scene::check_tol`]).
pub fn slope_run_options(
    scene: &Scene,
    duration: Option<f64>,
    tol: Option<f64>,
) -> Result<RunOptions, BadOption> {
    check_positive("--duration", duration)?;
    check_positive("--tol", tol)?;
    check_overrides(scene, duration, tol)?;
    Ok(RunOptions {
        duration,
        tol,
        ..Default::default()
    })
}

/// A `--duration` for a scene of bodies (2D or 3D): finite, > 0, and between 1 and
/// [`MAX_STEPS`] steps of the case's `time.h`.
pub fn check_scene_duration<S: RunScene<D>, const D: usize>(
    scene: &S,
    duration: Option<f64>,
) -> Result<(), BadOption> {
    check_positive("--duration", duration)?;
    check_duration_steps(scene.settings().h, duration)
}

/// A `--duration` (s) of a scene of time step `h` (s), 2D or 3D: a whole number of steps,
/// between 1 and [`MAX_STEPS`].
pub fn check_duration_steps(h: f64, duration: Option<f64>) -> Result<(), BadOption> {
    if let Some(d) = duration {
        let steps = (d / h).round();
        if !(1.0..=MAX_STEPS).contains(&steps) {
            return Err(BadOption::new(
                "--duration",
                &format!("duration / time.h must give between 1 and {MAX_STEPS:e} steps"),
                crate::number_format::Short(d),
            ));
        }
        crate::scene::case_file::whole_steps(d, h)
            .map_err(|rule| BadOption::new("--duration", &rule, crate::number_format::Short(d)))?;
    }
    Ok(())
}

/// A `--duration` for a rigid case: finite, > 0, and within
/// [`crate::rigid::case::check_steps`].
pub fn check_rigid_duration(scene: &RigidScene, duration: Option<f64>) -> Result<(), BadOption> {
    check_positive("--duration", duration)?;
    if let Some(d) = duration {
        crate::rigid::case::check_steps(scene.h, d)
            .map_err(|rule| BadOption::new("--duration", &rule, crate::number_format::Short(d)))?;
    }
    Ok(())
}

/// Errors of [`impulse_backend`].
#[derive(Debug, thiserror::Error)]
pub enum BackendSetupError {
    /// No GPU where one was required, or `STICKSLIP_GPU_BACKENDS` names an unknown backend
    /// (bad input: [`GpuError::BadBackends`]).
    #[error(transparent)]
    Gpu(#[from] GpuError),
    /// The warm-up batch failed.
    #[error("impulse law: {0}")]
    Backend(#[from] BackendError),
}

/// The impulse-law backend for `mode`, made once per process, and the seconds its setup took.
///
/// The setup includes one warm-up batch of a single contact, so that the one-time costs of the
/// first batch (buffer creation, the driver's first use of the pipeline) are paid here rather
/// than inside the first case's post-pass; the default run prints this time beside the table.
pub fn impulse_backend(mode: GpuMode) -> Result<(SharedBackend, f64), BackendSetupError> {
    let clock = Instant::now();
    let mask = gpu::backends_from_env(wgpu::Backends::PRIMARY)?;
    let mut backend = gpu::select_impulse_backend(mode, mask)?;
    let warm_up = [ContactInput::new(
        [1.0, -1.0, 0.0],
        [0.0, 1.0, 0.0],
        0.0,
        0.5,
    )];
    backend.apply(&warm_up, &mut Vec::with_capacity(1))?;
    Ok((SharedBackend::new(backend), clock.elapsed().as_secs_f64()))
}

/// The cross-check of a slope run (SPEC.md §4) on the shared backend, with the case's ε_v and
/// late window.
pub fn cross_check_for(shared: &SharedBackend, scene: &Scene) -> CrossCheck {
    CrossCheck::new(
        Box::new(shared.clone()),
        CrossCheckConfig {
            eps_v: scene.eps_v,
            late_from_s: scene.cross_check_late_from,
        },
    )
}

/// The cross-check of a scene run, 2D or 3D (SPEC.md §4 over every contact record,
/// docs/impulse.md §7), on the shared backend, with the scene's ε_v and the late window from
/// 1 s: what `stickslip run` of a scene and Python's `Case.run` hand the runner.
pub fn scene_cross_check(shared: &SharedBackend, eps_v: f64) -> CrossCheck {
    scene_check_on(Box::new(shared.clone()), eps_v)
}

/// A scene's cross-check on `law`, with ε_v = `eps_v` (m/s) and the default late window.
fn scene_check_on(law: Box<dyn ImpulseBackend>, eps_v: f64) -> CrossCheck {
    CrossCheck::new(
        law,
        CrossCheckConfig {
            eps_v,
            ..CrossCheckConfig::default()
        },
    )
}

/// Runs one cell of a sweep as `stickslip sweep` does; never fails (an error or a panic is the
/// cell's outcome).
pub fn run_sweep_cell(sweep: &Sweep, cell: &Cell) -> CellRecord {
    let clock = Instant::now();
    let outcome = match std::panic::catch_unwind(AssertUnwindSafe(|| evaluate(sweep, cell))) {
        Ok(Ok(outcome)) => outcome,
        Ok(Err(error)) => Outcome::Failed {
            error: one_line(&error),
        },
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "(no message)".into());
            Outcome::Failed {
                error: one_line(&format!("panicked: {what}")),
            }
        }
    };
    CellRecord {
        id: cell.id.clone(),
        sweep_hash: sweep.hash.clone(),
        inputs: cell.inputs.iter().map(json_value).collect(),
        overrides: cell.overrides.iter().map(|o| o.setting.clone()).collect(),
        outcome,
        wall_seconds: clock.elapsed().as_secs_f64(),
    }
}

/// A cell's run, by the sweep's kind.
fn evaluate(sweep: &Sweep, cell: &Cell) -> Result<Outcome, String> {
    match sweep.kind {
        SweepKind::Slope => evaluate_slope(sweep, cell).map(Outcome::Done),
        SweepKind::Scene => evaluate_scene(sweep, cell).map(|r| Outcome::DoneScene(Box::new(r))),
    }
}

/// A scene cell's run: the scene with its overrides, to its duration, as `stickslip run` runs it
/// ([`crate::run::multibody::SceneRunner`] in 2D, [`crate::run::multibody::solid::SolidRunner`]
/// in 3D), its bodies' verdicts, and the slide-or-tip outcome and (2D) stick–slip cycle where
/// the scene has them.
fn evaluate_scene(sweep: &Sweep, cell: &Cell) -> Result<SceneCellResult, String> {
    if sweep.dimension == 3 {
        return evaluate_solid_scene(sweep, cell);
    }
    use crate::analysis::stick_slip_cycle::StickSlipCycle;
    use crate::run::multibody::SceneRunner;
    let scene = sweep.multibody(cell).map_err(|e| e.to_string())?;
    let mut runner = SceneRunner::new(scene, None).map_err(|e| e.to_string())?;
    let eps_v = runner.scene.settings.eps_v;
    run_cell(&mut runner, eps_v)?;
    let s = runner.summary();
    let values = |c: &StickSlipCycle, cycles: Option<usize>| CycleValues {
        f_max_n: c.f_max_n,
        f_min_n: c.f_min_n,
        t_stick_s: c.t_stick_s,
        t_slip_s: c.t_slip_s,
        period_s: c.period_s,
        cycles,
    };
    let mut result = scene_cell_result(
        s.bodies.iter().map(|b| (b.name.as_str(), &b.verdict)),
        s.slide_or_tip.as_ref(),
        s.slide_or_tip_analytic.as_ref(),
        s.cross_check.as_ref(),
        &s.solver,
    );
    result.cycle = s
        .stick_slip_cycle
        .as_ref()
        .map(|m| values(&m.cycle, Some(m.cycles)));
    result.cycle_analytic = s
        .stick_slip_cycle_analytic
        .as_ref()
        .map(|a| values(a, None));
    result.cycle_inputs = runner
        .stick_slip_inputs()
        .map(|(m, n, mu, k, v)| CycleInputs {
            mass_kg: m,
            normal_force_n: n,
            mu_static: mu.mu_static,
            mu_kinetic: mu.mu_kinetic,
            stiffness_n_per_m: k,
            belt_speed_m_per_s: v,
        });
    Ok(result)
}

/// A 3D scene cell's run (see [`evaluate_scene`]); the stick–slip cycle's columns stay empty
/// (a 3D scene has no cycle measure).
fn evaluate_solid_scene(sweep: &Sweep, cell: &Cell) -> Result<SceneCellResult, String> {
    use crate::run::multibody::solid::SolidRunner;
    let scene = sweep.solid(cell).map_err(|e| e.to_string())?;
    let mut runner = SolidRunner::new(scene, None).map_err(|e| e.to_string())?;
    let eps_v = runner.scene.settings.eps_v;
    run_cell(&mut runner, eps_v)?;
    let s = runner.summary();
    let mut result = scene_cell_result(
        s.bodies.iter().map(|b| (b.name.as_str(), &b.verdict)),
        s.slide_or_tip.as_ref(),
        s.slide_or_tip_analytic.as_ref(),
        s.cross_check.as_ref(),
        &s.solver,
    );
    let (spin, spin_analytic) = (s.slide_spin.as_ref(), s.slide_spin_analytic.as_ref());
    result.slide_stop_s = spin.and_then(|m| m.slide_stop_s);
    result.slide_stop_s_analytic = spin_analytic.and_then(|a| a.slide_stop_s);
    result.spin_stop_s = spin.and_then(|m| m.spin_stop_s);
    result.spin_stop_s_analytic = spin_analytic.and_then(|a| a.spin_stop_s);
    result.spin_slide_ratio = spin.and_then(|m| m.ratio);
    result.spin_slide_ratio_analytic = spin_analytic.and_then(|a| a.ratio);
    result.launch_ratio = spin_analytic.and_then(|a| a.launch_ratio);
    Ok(result)
}

/// A scene cell's run to its end with its cross-check (SPEC.md §4): the law on the CPU, one
/// thread (the cells already fill the threads; no GPU per cell), with the scene's ε_v (m/s)
/// and the late window from 1 s, as `stickslip run` reports it.
fn run_cell(runner: &mut impl SceneSteps, eps_v: f64) -> Result<(), String> {
    let check = scene_check_on(Box::new(CpuLaw::single_threaded()), eps_v);
    run_to_end(runner, check, |_| Ok::<(), SceneRunError>(())).map_err(|e| e.to_string())
}

/// A scene cell's results from what the 2D and 3D summaries share: every body's verdict (name
/// and verdict, in the scene's order), the slide-or-tip outcome, the cross-check, the solver's
/// totals.
fn scene_cell_result<'a>(
    bodies: impl Iterator<Item = (&'a str, &'a crate::run::verdict::Verdict)>,
    tip: Option<&SlideOrTip>,
    tip_analytic: Option<&SlideOrTipAnalytic>,
    check: Option<&crate::cross_check::CrossCheckReport>,
    solver: &crate::run::runner::SolverTotals,
) -> SceneCellResult {
    let finite = |x: Option<f64>| x.filter(|v| v.is_finite());
    let bodies = bodies
        .map(|(name, verdict)| BodyVerdict {
            name: name.to_string(),
            verdict: serde_json::to_value(verdict)
                .ok()
                .and_then(|v| v.get("state").and_then(|s| s.as_str().map(str::to_owned)))
                .unwrap_or_else(|| "unknown".into()),
            verdict_text: verdict.to_string(),
        })
        .collect();
    SceneCellResult {
        bodies,
        slide_or_tip: tip.map(|t| t.outcome.name().to_string()),
        slide_or_tip_analytic: tip_analytic.map(|a| a.outcome.name().to_string()),
        tan_theta: tip_analytic.map(|a| a.tan_theta),
        w_over_b: tip_analytic.map(|a| a.w_over_b),
        mu_static: tip_analytic.map(|a| a.mu_static),
        mu_kinetic: tip_analytic.map(|a| a.mu_kinetic),
        max_rotation_deg: tip.map(|t| t.max_rotation_deg),
        displacement_m: tip.map(|t| t.displacement_m),
        cycle: None,
        cycle_analytic: None,
        cycle_inputs: None,
        slide_stop_s: None,
        slide_stop_s_analytic: None,
        spin_stop_s: None,
        spin_stop_s_analytic: None,
        spin_slide_ratio: None,
        spin_slide_ratio_analytic: None,
        launch_ratio: None,
        agreement: finite(check.and_then(|c| c.overall.fraction)),
        late_agreement: finite(check.and_then(|c| c.late.fraction)),
        gap_median_m_per_s: finite(check.and_then(|c| c.gap_median)),
        newton_iterations: solver.newton_iterations,
        max_iterations_in_step: solver.max_iterations_in_step,
        steps: solver.steps,
    }
}

/// A slope cell's run: the case with its overrides, to its duration, cross-checked on the CPU
/// (no GPU per cell), the verdict by the rule of `summary.json`.
fn evaluate_slope(sweep: &Sweep, cell: &Cell) -> Result<CellResult, String> {
    let scene = sweep.scene(cell).map_err(|e| e.to_string())?;
    let mut check = CrossCheck::new(
        Box::new(CpuLaw::single_threaded()),
        CrossCheckConfig {
            eps_v: scene.eps_v,
            late_from_s: scene.cross_check_late_from,
        },
    );
    let runner = runner::run(scene, &RunOptions::default(), Some(&mut check), |_, _| {})
        .map_err(|e| e.to_string())?;
    let s = runner.summary(Some(check.finish()));
    let finite = |x: Option<f64>| x.filter(|v| v.is_finite());
    let (stop_time_s, creep_speed_m_per_s) = match s.verdict {
        crate::run::verdict::Verdict::Stopped {
            since, creep_speed, ..
        } => (Some(since), Some(creep_speed)),
        _ => (None, None),
    };
    // The state's name as summary.json writes it (`{"state": "stopped", …}`).
    let verdict = serde_json::to_value(s.verdict)
        .ok()
        .and_then(|v| v.get("state").and_then(|s| s.as_str().map(str::to_owned)))
        .unwrap_or_else(|| "unknown".into());
    let cc = s.cross_check.as_ref();
    Ok(CellResult {
        verdict,
        stop_time_s,
        downhill_distance_m: s.downhill_distance,
        final_speed_m_per_s: finite(s.final_speed),
        creep_speed_m_per_s: finite(creep_speed_m_per_s),
        newton_iterations: s.solver.newton_iterations,
        max_iterations_in_step: s.solver.max_iterations_in_step,
        steps: s.solver.steps,
        agreement: finite(cc.and_then(|c| c.overall.fraction)),
        late_agreement: finite(cc.and_then(|c| c.late.fraction)),
        gap_median_m_per_s: finite(cc.and_then(|c| c.gap_median)),
        verdict_text: s.verdict.to_string(),
    })
}

/// Runs every cell of `sweep` with [`run_sweep_cell`] on `jobs` threads (std scoped threads
/// pulling the next cell from a shared counter, as [`crate::sweep::pool`] does) and merges them
/// as `stickslip sweep collect` merges a sweep directory: [`Collected::csv`] is then `map.csv`
/// byte for byte. `cell_done(done)` is called by the worker that ran a cell as it ends, with the
/// number of cells ended so far. When `stop` becomes true no further cell is started; the cells
/// not run are [`CellState::Missing`].
pub fn run_sweep_in_memory(
    sweep: &Sweep,
    jobs: usize,
    stop: &AtomicBool,
    cell_done: impl Fn(usize) + Sync,
) -> Collected {
    let count = sweep.cells.len();
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let records: Vec<std::sync::Mutex<Option<CellRecord>>> =
        (0..count).map(|_| std::sync::Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..jobs.clamp(1, count.max(1)) {
            scope.spawn(|| {
                loop {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    if k >= count {
                        break;
                    }
                    let record = run_sweep_cell(sweep, &sweep.cells[k]);
                    if let Ok(mut slot) = records[k].lock() {
                        *slot = Some(record);
                    }
                    cell_done(done.fetch_add(1, Ordering::Relaxed) + 1);
                }
            });
        }
    });
    let manifest = Manifest::of(sweep);
    let cells = manifest
        .cells
        .iter()
        .zip(records)
        .map(|(c, record)| CollectedCell {
            id: c.id.clone(),
            inputs: c.inputs.clone(),
            state: match record.into_inner().ok().flatten() {
                Some(r) => CellState::Finished(Box::new(r)),
                None => CellState::Missing,
            },
        })
        .collect();
    Collected { manifest, cells }
}
