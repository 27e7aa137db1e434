//! `stickslip run` for case files of `kind = "rigid_ellipsoid"` (SPEC.md §5): runs
//! [`crate::rigid::run::simulate`], writes `trajectory.csv`, `events.csv` and `summary.json`
//! through a [`StagedDir`] (a failed run leaves nothing) and prints a short table.

use std::path::{Path, PathBuf};

use crate::app::output::{StageError, StagedDir, WrittenBy};
use crate::console::{BadOption, EmitError, emit};
use crate::number_format::Short;
use crate::rigid::case::RigidScene;
use crate::rigid::run::{RigidRunError, RigidSummary, simulate, write_outputs};
use crate::scene::{CaseError, Override};

/// What `stickslip run` was asked for a rigid case.
pub struct RigidRequest<'a> {
    /// The case file.
    pub case: &'a Path,
    /// `--duration`, s, overriding the case's `time.duration`.
    pub duration: Option<f64>,
    /// Whether `--tol` was given (it is the slope solver's: refused).
    pub tol_given: bool,
    /// Whether `--obj` was given (refused).
    pub obj: bool,
    /// `--out DIR` (default `out/<case file stem>`).
    pub out: Option<&'a Path>,
    /// `--set` overrides, applied as the slope's are.
    pub set: &'a [Override],
}

/// Errors of `stickslip run` on a rigid case; the CLI maps them to its own.
#[derive(Debug, thiserror::Error)]
pub enum RigidCommandError {
    /// Bad case file (exit 2).
    #[error(transparent)]
    Case(#[from] CaseError),
    /// Bad option value (exit 2).
    #[error(transparent)]
    Option(#[from] BadOption),
    /// The run failed or could not write its output (exit 1).
    #[error(transparent)]
    Rigid(#[from] RigidRunError),
    /// The output directory could not be staged, or is not stickslip's to write.
    #[error(transparent)]
    Stage(#[from] StageError),
    /// The table could not be printed (standard output closed: a quiet exit; the output
    /// directory is already complete).
    #[error(transparent)]
    Emit(#[from] EmitError),
}

fn reject(option: &str, given: bool) -> Result<(), BadOption> {
    if given {
        Err(BadOption::new(
            option,
            "does not apply to a rigid_ellipsoid case",
            "given",
        ))
    } else {
        Ok(())
    }
}

/// `stickslip run CASE --out DIR` for a rigid-ellipsoid case. `--set` overrides keys of the case
/// file by the slope's rules; `--duration` overrides the case's `time.duration`; `--tol` and
/// `--obj` are the slope solver's and are refused (exit 2); `--gpu` picks nothing here (no
/// impulse-law post-pass), but `STICKSLIP_GPU_BACKENDS` is checked as for every run.
pub fn run_rigid(request: &RigidRequest) -> Result<(), RigidCommandError> {
    crate::console::check_positive("--duration", request.duration)?;
    reject("--tol", request.tol_given)?;
    reject("--obj", request.obj)?;
    let scene = RigidScene::load_with_overrides(request.case, request.set)?;
    let out = request.out.map(Path::to_path_buf).unwrap_or_else(|| {
        PathBuf::from("out").join(
            request
                .case
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "run".into()),
        )
    });
    crate::api::check_rigid_duration(&scene, request.duration)?;
    // The output path is checked (and a foreign one refused) before the run, not after it.
    let staged = StagedDir::new(&out, WrittenBy::new("run", crate::rigid::case::KIND))?;
    let run = simulate(&scene, request.duration)?;
    write_outputs(|name| staged.file(name), &run)?;
    let dir = staged.commit()?;
    emit(&format!(
        "{}\n{}\n\nwrote {}/trajectory.csv, events.csv and summary.json\n",
        rigid_table(&run.summary),
        run.summary.ended.explain(),
        dir.display()
    ))?;
    Ok(())
}

/// The short table of a rigid run: impacts, how it ended, energy lost.
pub fn rigid_table(s: &RigidSummary) -> String {
    let model = match (s.impact_model, &s.mu, s.restitution) {
        (Some(m), Some(mu), Some(e)) => format!(
            "{}, e = {}, mu = {mu}",
            serde_json::to_value(m)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default(),
            Short(e)
        ),
        _ => "no ground".into(),
    };
    // `+ 0.0`: an empty f64 sum is −0.0.
    let lost: f64 = s.energy_lost_per_impact.iter().sum::<f64>() + 0.0;
    let mut t = format!(
        "{} (rigid_ellipsoid; {model}; h = {} s)\n\n",
        crate::console::one_line(&s.name),
        Short(s.h)
    );
    t.push_str(&format!(
        "{:>8} {:>6} {:>6}  {:<28} {:>10} {:>10} {:>12} {:>13} {:>9}\n",
        "impacts", "stick", "slide", "ended", "E start", "E end", "lost at", "largest gain", "wall"
    ));
    t.push_str(&format!(
        "{:>8} {:>6} {:>6}  {:<28} {:>10} {:>10} {:>12} {:>13} {:>9}\n",
        "", "", "", "", "J", "J", "impacts J", "J", "ms"
    ));
    t.push_str(&format!(
        "{:>8} {:>6} {:>6}  {:<28} {:>10.5} {:>10.5} {:>12.5} {:>13.3e} {:>9.1}\n",
        s.impacts,
        s.stick_impacts,
        s.slide_impacts,
        s.ended.to_string(),
        s.energy_initial,
        s.energy_final,
        lost,
        s.largest_energy_gain,
        s.wall_seconds * 1e3
    ));
    t
}
