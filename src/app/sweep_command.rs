//! `stickslip sweep SWEEP.toml --out DIR [--shard I/N] [--jobs J]` and
//! `stickslip sweep collect DIR` (docs/sweeps.md): the command line of [`crate::sweep`], and
//! the one thing that module leaves to the app, running a cell: [`api::run_sweep_cell`] (for a
//! slope case a [`crate::run::runner::run`] with the impulse-law cross-check on the CPU, no GPU
//! per cell, the verdict by the rule of `summary.json`; for a scene a
//! [`crate::run::multibody::SceneRunner`] as `stickslip run` steps it), shared with the Python
//! package. The directory's marker names the kind of the sweep's base case.

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};

use crate::api;
use crate::app::output::{MARKER_FILE, Marker, OutputError, WrittenBy};
use crate::app::plot::plotters_font;
use crate::console::{BadOption, EmitError, emit, one_line};
use crate::graphics::write_png;
use crate::sweep::SweepError;
use crate::sweep::collect::Collected;
use crate::sweep::dir::{CellState, MAP_LABEL, MAP_PNG, Manifest, SWEEP_FILES, SweepDir};
use crate::sweep::file::{Cell, Sweep, SweepKind};
use crate::sweep::pool;
use crate::sweep::shard::Shard;
use crate::sweep_map;

/// Size of map.png, px.
pub const MAP_SIZE: (u32, u32) = (1800, 600);

/// `stickslip sweep`.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct SweepArgs {
    /// `collect DIR`: merge the cells of DIR into map.csv and map.png.
    #[command(subcommand)]
    pub action: Option<SweepAction>,
    /// The sweep file (docs/sweeps.md).
    #[arg(required = true)]
    pub sweep: Option<PathBuf>,
    /// The sweep directory: created, or resumed when it holds this same sweep.
    #[arg(long, required = true)]
    pub out: Option<PathBuf>,
    /// Run shard I of N (0 <= I < N): the cells whose index is I modulo N. Default: from a
    /// Slurm job array or a Kubernetes Indexed Job, else 0/1 (every cell).
    #[arg(long, value_name = "I/N")]
    pub shard: Option<String>,
    /// N under a Kubernetes Indexed Job (I is JOB_COMPLETION_INDEX); or set
    /// STICKSLIP_SHARD_COUNT.
    #[arg(long, value_name = "N")]
    pub shard_count: Option<usize>,
    /// Cells run at once (threads; default: the CPUs this process may use).
    #[arg(long, short = 'j', value_name = "J")]
    pub jobs: Option<usize>,
}

/// Subcommands of `stickslip sweep`.
#[derive(Debug, Subcommand)]
pub enum SweepAction {
    /// Merge the cell files of DIR into DIR/map.csv and DIR/map.png; name the missing, corrupt
    /// and failed cells (exit 1 when any is missing or corrupt).
    Collect(CollectArgs),
}

/// `stickslip sweep collect`.
#[derive(Debug, Args)]
pub struct CollectArgs {
    /// The sweep directory.
    pub dir: PathBuf,
}

/// The marker of a sweep directory: written by `sweep`, for the kind of the sweep's base case
/// (slope cases or scenes), listing the sweep's files.
fn marker_text(kind: SweepKind) -> String {
    let kind = match kind {
        SweepKind::Slope => crate::scene::kind::SLOPE_KIND,
        SweepKind::Scene => crate::scene::multibody::SCENE_KIND,
    };
    let marker = Marker::new(
        &WrittenBy::new("sweep", kind),
        SWEEP_FILES.iter().map(|s| s.to_string()).collect(),
    );
    serde_json::to_string_pretty(&marker).unwrap_or_default() + "\n"
}

/// Errors of `stickslip sweep`, mapped onto the CLI's exit codes in [`crate::app::cli`].
#[derive(Debug, thiserror::Error)]
pub enum SweepCommandError {
    /// Bad option value (exit 2).
    #[error(transparent)]
    Option(#[from] BadOption),
    /// A sweep's input was bad (exit 2) or it could not run or write (exit 1).
    #[error(transparent)]
    Sweep(#[from] SweepError),
    /// The map figure could not be written (exit 1).
    #[error(transparent)]
    Output(#[from] OutputError),
    /// Printing the report failed (a closed stdout ends quietly).
    #[error(transparent)]
    Emit(#[from] EmitError),
}

/// Runs `stickslip sweep` (or `collect`).
pub fn sweep_command(args: &SweepArgs) -> Result<(), SweepCommandError> {
    if let Some(SweepAction::Collect(c)) = &args.action {
        return collect(&c.dir);
    }
    let (Some(file), Some(out)) = (&args.sweep, &args.out) else {
        return Err(BadOption::new("sweep", "needs SWEEP.toml and --out DIR", "nothing").into());
    };
    if args.jobs == Some(0) {
        return Err(SweepError::Option {
            option: "--jobs".into(),
            rule: "must be at least 1".into(),
            value: "0".into(),
        }
        .into());
    }
    // Everything is checked before DIR is touched: the sweep file, every cell, the shard.
    let sweep = Sweep::load(file)?;
    let (shard, shard_from) = Shard::resolve(args.shard.as_deref(), args.shard_count, |name| {
        std::env::var(name).ok()
    })?;
    let jobs = args.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    let manifest = Manifest::of(&sweep);
    let marker = marker_text(sweep.kind);
    let dir = SweepDir::prepare(out, &manifest, (MARKER_FILE, &marker))?;
    let mine: Vec<&Cell> = sweep.cells.iter().filter(|c| shard.owns(c.index)).collect();
    let stale = dir.remove_stale_temps(mine.iter().copied());
    let mut finished = 0;
    let mut todo = Vec::new();
    for cell in &mine {
        let inputs = &manifest.cells[cell.index].inputs;
        match dir.cell_state(&cell.id, &sweep.hash, inputs) {
            CellState::Finished(_) => finished += 1,
            CellState::Missing | CellState::Corrupt(_) => todo.push(*cell),
        }
    }
    let label = format!("sweep {} shard {shard}", one_line(&sweep.name));
    let report = pool::run_cells(&dir, todo.len(), jobs, &label, |k| {
        api::run_sweep_cell(&sweep, todo[k])
    });
    eprintln!(
        "{label} ({shard_from}): {} of {} cells; ran {} ({} failed), skipped {finished} already finished{}; {:.1} s, {:.2} cells/s on {} threads",
        mine.len(),
        sweep.cells.len(),
        report.ran,
        report.failed,
        if stale > 0 {
            format!(", removed {stale} stale temporary files")
        } else {
            String::new()
        },
        report.seconds,
        report.ran as f64 / report.seconds.max(1e-9),
        jobs.clamp(1, todo.len().max(1)),
    );
    if let Some(e) = report.write_errors.into_iter().next() {
        return Err(e.into());
    }
    Ok(())
}

/// `stickslip sweep collect DIR`.
fn collect(dir: &Path) -> Result<(), SweepCommandError> {
    // The marker names the kind of the sweep's base case; the manifest must say the same.
    let kind = match std::fs::read_to_string(dir.join(MARKER_FILE)) {
        Ok(text) if text == marker_text(SweepKind::Scene) => SweepKind::Scene,
        _ => SweepKind::Slope,
    };
    let (dir, manifest) = SweepDir::open(dir, (MARKER_FILE, &marker_text(kind)))?;
    let manifest_kind = match manifest.kind.as_deref() {
        None => Some(SweepKind::Slope),
        Some(k) if k == crate::scene::multibody::SCENE_KIND => Some(SweepKind::Scene),
        Some(_) => None,
    };
    if manifest_kind != Some(kind) {
        return Err(SweepError::Refused {
            path: dir.path.clone(),
            what: format!(
                "its {MARKER_FILE} and its sweep.json disagree on the base case's kind; it is not a sweep directory `stickslip sweep` wrote"
            ),
        }
        .into());
    }
    let collected = Collected::read(&dir, manifest);
    collected.write_csv(&dir)?;
    let png = dir.path.join(MAP_PNG);
    let (w, h) = MAP_SIZE;
    let figure = match sweep_map::render(&collected, w, h, plotters_font()) {
        Some(Ok(rgb)) => {
            write_png(&png, &rgb, w, h, MAP_LABEL).map_err(|source| OutputError {
                path: png.clone(),
                source,
            })?;
            format!(" and {}", png.display())
        }
        Some(Err(e)) => {
            return Err(OutputError {
                path: png,
                source: std::io::Error::other(format!("drawing the map: {e}")),
            }
            .into());
        }
        None => " (no map.png: it needs two numeric axes)".into(),
    };
    emit(&collected.report())?;
    emit(&format!(
        "wrote {}{figure}\n",
        dir.path.join(crate::sweep::dir::MAP_CSV).display()
    ))?;
    let absent = collected.ids(|s| !matches!(s, CellState::Finished(_)));
    if absent.is_empty() {
        Ok(())
    } else {
        Err(SweepError::Incomplete {
            dir: dir.path.clone(),
            missing: absent.len(),
            total: collected.cells.len(),
            ids: crate::sweep::some_ids(&absent, 10),
        }
        .into())
    }
}
