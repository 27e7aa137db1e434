//! The sweep directory `DIR`:
//!
//! ```text
//! DIR/.stickslip-output   the marker: written by stickslip, and which files are its
//! DIR/sweep.json          the manifest: the sweep file and base case (texts), axes and cells
//! DIR/cells/<id>.json     one file per finished cell: its inputs and results, or its error
//! DIR/map.csv, map.png    written by `stickslip sweep collect DIR`
//! ```
//!
//! Several shard processes may start on the same `DIR` at once (a job array). `DIR` is made
//! race-free: each process builds the marker, the manifest and `cells/` in a staging directory
//! beside `DIR` and renames it to `DIR`; the rename succeeds for one process, and fails for the
//! others because `DIR` then exists and is not empty. A process that finds `DIR` existing
//! accepts it only when its marker and manifest are byte for byte the ones it would write (the
//! same sweep file, base case and program version) and it holds nothing else but cell files
//! and the collected map; anything else is refused (exit 2) and nothing is written. Nothing of
//! the user's is ever moved, overwritten or deleted.
//!
//! A cell file is written to a temporary name in `cells/` (`.<id>.json.partial-<stamp>-<n>`, the
//! stamp naming the writing process: [`crate::process_stamp`]) and renamed into place, so a cell
//! file is either absent or complete; a reader also checks that it parses and belongs to this
//! sweep (its id, the sweep's hash and the cell's inputs), and treats any other file as corrupt,
//! to be run again. A temporary file is removed by a later run only when its stamp shows that its
//! writer has ended on this host.
//!
//! `collect` ([`SweepDir::open`]) needs the marker `sweep` writes and nothing in `DIR` that is not
//! the sweep's: a `map.csv` is the sweep's only when its header is the one `collect` writes for
//! this manifest, a `map.png` only when its PNG text chunk says `collect` wrote it.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use serde::{Deserialize, Serialize};

use super::file::{Cell, Sweep, SweepKind};
use super::{SweepError, io, some_ids};

/// The manifest's file name.
pub const MANIFEST: &str = "sweep.json";
/// The directory of the cell files.
pub const CELLS: &str = "cells";
/// The merged table.
pub const MAP_CSV: &str = "map.csv";
/// The map figure.
pub const MAP_PNG: &str = "map.png";

/// The files and directories of a sweep directory, for the marker.
pub const SWEEP_FILES: [&str; 4] = [CELLS, MAP_CSV, MAP_PNG, MANIFEST];

/// An axis in the manifest.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ManifestAxis {
    /// The key.
    pub key: String,
    /// Its values.
    pub values: Vec<serde_json::Value>,
}

/// A cell in the manifest.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ManifestCell {
    /// The cell's id.
    pub id: String,
    /// The value of every axis.
    pub inputs: Vec<serde_json::Value>,
}

/// `sweep.json`: everything that defines the sweep, so that shards of the same sweep agree and
/// `collect` needs nothing but `DIR`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// Always `"stickslip"`.
    pub written_by: String,
    /// The program's version.
    pub version: String,
    /// The sweep's name.
    pub name: String,
    /// [`Sweep::hash`].
    pub hash: String,
    /// The sweep file's text.
    pub sweep_text: String,
    /// The base case as the sweep file names it.
    pub case: String,
    /// The base case's text.
    pub case_text: String,
    /// The axes.
    pub axes: Vec<ManifestAxis>,
    /// The result columns of map.csv.
    pub record: Vec<String>,
    /// Every cell, in index order.
    pub cells: Vec<ManifestCell>,
    /// The base case's kind when it is not the slope's: `"scene"` (absent for a slope sweep,
    /// whose manifest is as it was before scenes could be swept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
}

/// A TOML value as JSON.
pub fn json_value(v: &toml::Value) -> serde_json::Value {
    serde_json::to_value(v).unwrap_or(serde_json::Value::Null)
}

impl Manifest {
    /// The manifest of `sweep`.
    pub fn of(sweep: &Sweep) -> Manifest {
        Manifest {
            written_by: "stickslip".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            name: sweep.name.clone(),
            hash: sweep.hash.clone(),
            sweep_text: sweep.text.clone(),
            case: sweep.case_as_written.clone(),
            case_text: sweep.case_text.clone(),
            axes: sweep
                .axes
                .iter()
                .map(|a| ManifestAxis {
                    key: a.key.clone(),
                    values: a.values.iter().map(json_value).collect(),
                })
                .collect(),
            record: sweep.record.clone(),
            cells: sweep
                .cells
                .iter()
                .map(|c| ManifestCell {
                    id: c.id.clone(),
                    inputs: c.inputs.iter().map(json_value).collect(),
                })
                .collect(),
            kind: match sweep.kind {
                SweepKind::Slope => None,
                SweepKind::Scene => Some(crate::scene::multibody::SCENE_KIND.to_string()),
            },
        }
    }

    /// The header line of `map.csv` (without its newline): `cell`, the axes' keys, `status`, the
    /// recorded result columns.
    pub fn csv_header(&self) -> String {
        let mut header = vec!["cell".to_string()];
        header.extend(self.axes.iter().map(|a| csv_field(&a.key)));
        header.push("status".into());
        header.extend(self.record.iter().cloned());
        header.join(",")
    }

    /// The manifest's text (pretty JSON and a newline; deterministic).
    pub fn text(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
        s.push('\n');
        s
    }
}

/// A cell's results (units in the names; `None` where there is no value, e.g. no creep speed
/// for a sliding cell, no agreement without approaching contact records).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CellResult {
    /// The verdict's state (`stopped`, `sliding`, `moving`, `tumbling`, `airborne`,
    /// `too_short`), by the rule of `summary.json`.
    pub verdict: String,
    /// When stopped: the first time from which the stopped criterion holds, s.
    pub stop_time_s: Option<f64>,
    /// The centroid's downhill distance at the end, m.
    pub downhill_distance_m: f64,
    /// Mean downhill speed over the last window, m/s.
    pub final_speed_m_per_s: Option<f64>,
    /// When stopped: the creep speed (mean downhill speed over the last window), m/s.
    pub creep_speed_m_per_s: Option<f64>,
    /// Newton iterations over the run.
    pub newton_iterations: usize,
    /// Most Newton iterations in one step.
    pub max_iterations_in_step: usize,
    /// Time steps taken.
    pub steps: usize,
    /// Cross-check (impulse law on the CPU, SPEC.md §4): stick/slide agreement over every
    /// approaching record, fraction in [0, 1].
    pub agreement: Option<f64>,
    /// The same from `cross_check.late_from` on.
    pub late_agreement: Option<f64>,
    /// Median tangential gap, m/s.
    pub gap_median_m_per_s: Option<f64>,
    /// The verdict in words (`stopped at t = 3.41 s`).
    pub verdict_text: String,
}

/// A body's verdict in a scene cell.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BodyVerdict {
    /// The body's name.
    pub name: String,
    /// The verdict's state (`stopped`, `sliding`, `moving`, `tumbling`, `airborne`,
    /// `too_short`), by the rule of a scene's `summary.json`.
    pub verdict: String,
    /// The verdict in words.
    pub verdict_text: String,
}

/// A stick–slip cycle in a scene cell (SPEC.md §8), measured or closed-form.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CycleValues {
    /// The spring force at slip onset, N.
    pub f_max_n: f64,
    /// The spring force at re-stick, N.
    pub f_min_n: f64,
    /// Stick time, s.
    pub t_stick_s: f64,
    /// Slip time, s.
    pub t_slip_s: f64,
    /// Period, s.
    pub period_s: f64,
    /// Full cycles averaged (measured only).
    pub cycles: Option<usize>,
}

/// What the closed-form cycle of a belt oscillator takes (to draw its curves).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CycleInputs {
    /// The block's mass, kg.
    pub mass_kg: f64,
    /// Its weight's component into the belt, N.
    pub normal_force_n: f64,
    /// μ_s.
    pub mu_static: f64,
    /// μ_k.
    pub mu_kinetic: f64,
    /// The spring's stiffness, N/m.
    pub stiffness_n_per_m: f64,
    /// The belt's speed, m/s.
    pub belt_speed_m_per_s: f64,
}

/// A scene cell's results (units in the names; `None` where the scene has no such thing).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SceneCellResult {
    /// Every body's verdict, in the scene's order.
    pub bodies: Vec<BodyVerdict>,
    /// A lone box on an incline: `stay`, `slide` or `tip`, measured.
    pub slide_or_tip: Option<String>,
    /// …and by the closed form.
    pub slide_or_tip_analytic: Option<String>,
    /// Its tan θ.
    pub tan_theta: Option<f64>,
    /// Its width over its height.
    pub w_over_b: Option<f64>,
    /// μ_s between it and its support.
    pub mu_static: Option<f64>,
    /// μ_k.
    pub mu_kinetic: Option<f64>,
    /// Its largest rotation, degrees.
    pub max_rotation_deg: Option<f64>,
    /// Its displacement along the surface at the end, m.
    pub displacement_m: Option<f64>,
    /// A spring on a belt: the measured cycle (none when no full cycle was seen).
    pub cycle: Option<CycleValues>,
    /// …the closed form.
    pub cycle_analytic: Option<CycleValues>,
    /// …and what the closed form took.
    pub cycle_inputs: Option<CycleInputs>,
    /// A puck (a lone cylinder) launched sliding and/or spinning on a level half-space (3D,
    /// SPEC.md §8): when its slide stops, s (absent in cell files written before 3D sweeps)…
    #[serde(default)]
    pub slide_stop_s: Option<f64>,
    /// …v₀/(μ g) for a pure slide…
    #[serde(default)]
    pub slide_stop_s_analytic: Option<f64>,
    /// …when its spin stops, s…
    #[serde(default)]
    pub spin_stop_s: Option<f64>,
    /// …3 R ω₀/(4 μ g) for a pure spin…
    #[serde(default)]
    pub spin_stop_s_analytic: Option<f64>,
    /// …v/(R ω) near the end, both launched…
    #[serde(default)]
    pub spin_slide_ratio: Option<f64>,
    /// …and its limit, 0.653…
    #[serde(default)]
    pub spin_slide_ratio_analytic: Option<f64>,
    /// …and the launch's v₀/(R ω₀).
    #[serde(default)]
    pub launch_ratio: Option<f64>,
    /// The impulse-law cross-check (SPEC.md §4) over every contact record of the run, on the
    /// CPU: the fraction of approaching records on which the law and the optimiser agree on
    /// stick or slide (`None` without approaching records; absent in cell files written before
    /// scene cells ran it).
    #[serde(default)]
    pub agreement: Option<f64>,
    /// …over the records from t = 1 s.
    #[serde(default)]
    pub late_agreement: Option<f64>,
    /// …the median tangential gap, m/s.
    #[serde(default)]
    pub gap_median_m_per_s: Option<f64>,
    /// Newton iterations over the run.
    pub newton_iterations: usize,
    /// Most Newton iterations in one step.
    pub max_iterations_in_step: usize,
    /// Time steps taken.
    pub steps: usize,
}

/// How a cell ended.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The run finished.
    Done(CellResult),
    /// The run of a scene cell finished (boxed: it is the largest outcome by far).
    DoneScene(Box<SceneCellResult>),
    /// The run failed (the solver, a panic); the sweep went on.
    Failed {
        /// The error, one line.
        error: String,
    },
}

/// `cells/<id>.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CellRecord {
    /// The cell's id.
    pub id: String,
    /// The sweep's hash ([`Sweep::hash`]).
    pub sweep_hash: String,
    /// The value of every axis, in axis order.
    pub inputs: Vec<serde_json::Value>,
    /// The overrides the cell's case was run with (`friction.mu=0.3`).
    pub overrides: Vec<String>,
    /// The outcome.
    pub outcome: Outcome,
    /// Wall time of the cell, s (varies run to run; not in map.csv).
    pub wall_seconds: f64,
}

/// What is in a cell's file.
#[derive(Clone, Debug, PartialEq)]
pub enum CellState {
    /// No file: not run yet.
    Missing,
    /// A file that does not parse or belongs to another cell or sweep: run it again.
    Corrupt(String),
    /// A finished cell (done or failed).
    Finished(Box<CellRecord>),
}

/// An open sweep directory.
#[derive(Clone, Debug)]
pub struct SweepDir {
    /// `DIR`.
    pub path: PathBuf,
}

/// Whether `map.csv` in `dir` is one `collect` wrote for `manifest`: a plain file whose first
/// line is the header `collect` writes for it.
fn map_csv_is_ours(path: &Path, manifest: &Manifest) -> bool {
    let Ok(file) = fs::File::open(path) else {
        return false;
    };
    let mut first = String::new();
    let read = std::io::BufRead::read_line(
        &mut std::io::BufReader::new(std::io::Read::take(file, 1 << 20)),
        &mut first,
    );
    read.is_ok() && first.trim_end_matches(['\n', '\r']) == manifest.csv_header()
}

/// The entries of an existing directory that are not this sweep's: anything but the marker,
/// the manifest, `cells/` with cell files and their temporary files, `map.csv` with the header
/// `collect` writes for `manifest`, and a `map.png` that `collect` wrote.
fn foreign_entries(
    dir: &Path,
    marker_name: &str,
    manifest: &Manifest,
) -> Result<Vec<String>, SweepError> {
    let mut foreign = Vec::new();
    for e in io(dir, fs::read_dir(dir))? {
        let e = io(dir, e)?;
        let name = e.file_name().to_string_lossy().into_owned();
        let kind = io(dir, e.file_type())?;
        let ours = match name.as_str() {
            CELLS => kind.is_dir(),
            MAP_CSV => kind.is_file() && map_csv_is_ours(&e.path(), manifest),
            MAP_PNG => {
                kind.is_file()
                    && crate::png_marker::png_written_by(&e.path()).as_deref() == Some(MAP_LABEL)
            }
            n => {
                kind.is_file()
                    && (n == MANIFEST
                        || n == marker_name
                        || n.starts_with(".map.csv.partial-")
                        || n.starts_with(".map.png.partial-"))
            }
        };
        if !ours {
            foreign.push(name);
        }
    }
    let cells = dir.join(CELLS);
    if cells.is_dir() {
        for e in io(&cells, fs::read_dir(&cells))? {
            let e = io(&cells, e)?;
            let name = e.file_name().to_string_lossy().into_owned();
            let ours = io(&cells, e.file_type())?.is_file()
                && (name.ends_with(".json") || name.contains(".json.partial-"));
            if !ours {
                foreign.push(format!("{CELLS}/{name}"));
            }
        }
    }
    foreign.sort();
    Ok(foreign)
}

/// The label `collect` marks `map.png` with ([`crate::png_marker::PNG_MARKER_KEYWORD`]).
pub const MAP_LABEL: &str = "sweep collect";

/// The bytes the staging name `.NAME.sweep-partial-PID-N` adds to `NAME`, at most: the dot,
/// `.sweep-partial-`, a PID of up to ten digits, a dash and a counter of up to twenty.
const STAGING_OVERHEAD: usize = 1 + ".sweep-partial-".len() + 10 + 1 + 20;

/// An error of `doing` (creating the sweep directory `dir`), naming `dir`, the path the user
/// gave, not the hidden staging path: refused (exit 2) when the path is at fault
/// ([`crate::console::is_path_error`]), an I/O error (exit 1) when the system is.
fn setup_error(dir: &Path, doing: &str, e: std::io::Error) -> SweepError {
    if crate::console::is_path_error(&e) {
        SweepError::Refused {
            path: dir.to_path_buf(),
            what: format!(
                "cannot be written: {doing} failed ({e}); give a path in a directory you can write to"
            ),
        }
    } else {
        SweepError::Io {
            path: dir.to_path_buf(),
            source: std::io::Error::new(e.kind(), format!("{doing} failed: {e}")),
        }
    }
}

/// Distinguishes the temporary files of one process.
static TEMP_COUNTER: AtomicUsize = AtomicUsize::new(0);

/// Writes `text` to `path` through a temporary file beside it, renamed into place.
pub fn write_atomic(path: &Path, text: &[u8]) -> Result<(), SweepError> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // The temporary name carries this process's stamp (boot, namespace, PID, start time), so
    // that a later run can tell whether its writer has ended (`remove_stale_temps`).
    let tmp = path.with_file_name(format!(
        ".{name}.partial-{}-{}",
        crate::process_stamp::current_token(),
        TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let write = || -> std::io::Result<()> {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(text)?;
        f.sync_all()?;
        fs::rename(&tmp, path)
    };
    write().map_err(|source| {
        let _ = fs::remove_file(&tmp);
        SweepError::Io {
            path: path.to_path_buf(),
            source,
        }
    })
}

impl SweepDir {
    /// Creates `dir` for `manifest` or accepts an existing one of the same sweep (module docs).
    /// `marker` is the marker file's name and text.
    pub fn prepare(
        dir: &Path,
        manifest: &Manifest,
        marker: (&str, &str),
    ) -> Result<SweepDir, SweepError> {
        let manifest_text = manifest.text();
        let refuse = |what: String| SweepError::Refused {
            path: dir.to_path_buf(),
            what,
        };
        if let Some(what) =
            crate::console::out_path_too_long(dir, ".NAME.sweep-partial-PID-N", STAGING_OVERHEAD)
        {
            return Err(refuse(format!("{what}; give a shorter path")));
        }
        // Two rounds: a failed rename means another process made DIR first; accept it then.
        for _ in 0..2 {
            match fs::symlink_metadata(dir) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(setup_error(dir, "looking it up", e)),
                Ok(meta) if meta.file_type().is_symlink() => {
                    return Err(refuse(
                        "is a symbolic link; give the directory itself or a new path".into(),
                    ));
                }
                Ok(meta) if !meta.is_dir() => {
                    return Err(refuse("exists and is not a directory".into()));
                }
                Ok(_) => {
                    let empty = io(dir, fs::read_dir(dir))?.next().is_none();
                    if !empty {
                        return Self::accept(dir, manifest, &manifest_text, marker);
                    }
                    if crate::console::contains_working_dir(dir) {
                        return Err(refuse(
                            "is the working directory or contains it; give a new subdirectory"
                                .into(),
                        ));
                    }
                    if crate::console::is_mount_point(dir) {
                        return Err(refuse(
                            "is an empty directory on which a file system is mounted, which cannot be replaced; give a new subdirectory inside it, e.g. DIR/sweep1"
                                .into(),
                        ));
                    }
                }
            }
            if Self::create(dir, &manifest_text, marker)? {
                return Ok(SweepDir {
                    path: dir.to_path_buf(),
                });
            }
        }
        Self::accept(dir, manifest, &manifest_text, marker)
    }

    /// Builds DIR in a staging directory and renames it into place; `false` when another
    /// process was first.
    fn create(dir: &Path, manifest_text: &str, marker: (&str, &str)) -> Result<bool, SweepError> {
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .ok_or_else(|| SweepError::Refused {
                path: dir.to_path_buf(),
                what: "has no directory name (give e.g. out/sweep1)".into(),
            })?;
        let parent = dir
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or_else(|| Path::new("."));
        if let Some(why) = crate::console::unwritable(parent) {
            return Err(SweepError::Refused {
                path: dir.to_path_buf(),
                what: format!(
                    "cannot be written: {why}; give a path in a directory you can write to"
                ),
            });
        }
        fs::create_dir_all(parent).map_err(|e| {
            setup_error(
                dir,
                &format!("creating the directory {}", parent.display()),
                e,
            )
        })?;
        let staging = parent.join(format!(
            ".{name}.sweep-partial-{}-{}",
            std::process::id(),
            TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        fs::create_dir(&staging).map_err(|e| {
            setup_error(
                dir,
                &format!("creating its staging directory in {}", parent.display()),
                e,
            )
        })?;
        let build = || -> Result<(), SweepError> {
            io(&staging, fs::create_dir(staging.join(CELLS)))?;
            write_atomic(&staging.join(marker.0), marker.1.as_bytes())?;
            write_atomic(&staging.join(MANIFEST), manifest_text.as_bytes())
        };
        if let Err(e) = build() {
            let _ = fs::remove_dir_all(&staging);
            return Err(e);
        }
        match fs::rename(&staging, dir) {
            Ok(()) => Ok(true),
            Err(_) if fs::symlink_metadata(dir).is_ok() => {
                // Another process renamed its DIR in first (or DIR was made meanwhile).
                let _ = fs::remove_dir_all(&staging);
                Ok(false)
            }
            Err(source) => {
                let _ = fs::remove_dir_all(&staging);
                Err(SweepError::Io {
                    path: dir.to_path_buf(),
                    source,
                })
            }
        }
    }

    /// Accepts an existing, non-empty DIR holding this sweep and nothing foreign.
    fn accept(
        dir: &Path,
        manifest: &Manifest,
        manifest_text: &str,
        marker: (&str, &str),
    ) -> Result<SweepDir, SweepError> {
        let refuse = |what: String| SweepError::Refused {
            path: dir.to_path_buf(),
            what,
        };
        let read = |name: &str| fs::read_to_string(dir.join(name)).ok();
        let foreign = foreign_entries(dir, marker.0, manifest)?;
        if !foreign.is_empty() {
            return Err(refuse(format!(
                "is a directory holding files that are not this sweep's ({}); give a new or empty directory",
                some_ids(&foreign, 3)
            )));
        }
        if read(marker.0).is_none() || read(MANIFEST).is_none() {
            return Err(refuse(format!(
                "is not a sweep directory (it has no {} or no {MANIFEST}); give a new or empty directory",
                marker.0
            )));
        }
        if read(marker.0).as_deref() != Some(marker.1)
            || read(MANIFEST).as_deref() != Some(manifest_text)
        {
            return Err(refuse(format!(
                "holds another sweep (its {MANIFEST} differs: the sweep file or the base case changed, or another version of stickslip wrote it); give another directory"
            )));
        }
        Ok(SweepDir {
            path: dir.to_path_buf(),
        })
    }

    /// Opens an existing sweep directory for `collect`: it must carry the sweep's `marker` (name
    /// and text, as `sweep` writes it), a manifest that parses, and nothing that is not the
    /// sweep's (a `map.csv` or `map.png` of the user's among them), so that `collect` overwrites
    /// nothing of the user's.
    pub fn open(dir: &Path, marker: (&str, &str)) -> Result<(SweepDir, Manifest), SweepError> {
        let refuse = |what: String| SweepError::Refused {
            path: dir.to_path_buf(),
            what,
        };
        match fs::symlink_metadata(dir) {
            Ok(m) if m.is_dir() => {}
            Ok(m) if m.file_type().is_symlink() => {
                return Err(refuse(
                    "is a symbolic link; give the sweep directory itself".into(),
                ));
            }
            Ok(_) => return Err(refuse("is not a directory".into())),
            Err(e) => return Err(refuse(format!("cannot be read: {e}"))),
        }
        let marker_text = fs::read_to_string(dir.join(marker.0)).ok();
        if marker_text.as_deref() != Some(marker.1) {
            return Err(refuse(format!(
                "is not a sweep directory of this version of stickslip: {}",
                if marker_text.is_none() {
                    format!("it has no {}", marker.0)
                } else {
                    format!("its {} is not the one `stickslip sweep` writes", marker.0)
                }
            )));
        }
        let path = dir.join(MANIFEST);
        let text = fs::read_to_string(&path).map_err(|e| {
            refuse(format!(
                "is not a sweep directory: cannot read {MANIFEST}: {e}"
            ))
        })?;
        let manifest: Manifest = serde_json::from_str(&text)
            .ok()
            .filter(|m: &Manifest| m.written_by == "stickslip")
            .ok_or_else(|| {
                refuse(format!(
                    "{MANIFEST} is not a stickslip sweep manifest of this version ({})",
                    env!("CARGO_PKG_VERSION")
                ))
            })?;
        let foreign = foreign_entries(dir, marker.0, &manifest)?;
        if !foreign.is_empty() {
            return Err(refuse(format!(
                "holds files that are not this sweep's ({}); `collect` writes map.csv and map.png there only when nothing of yours is in the way: move them away",
                some_ids(&foreign, 3)
            )));
        }
        Ok((
            SweepDir {
                path: dir.to_path_buf(),
            },
            manifest,
        ))
    }

    /// The path of a cell's file.
    pub fn cell_path(&self, id: &str) -> PathBuf {
        self.path.join(CELLS).join(format!("{id}.json"))
    }

    /// What the file of cell `id` (of the sweep with `hash`, axis values `inputs`) holds.
    pub fn cell_state(&self, id: &str, hash: &str, inputs: &[serde_json::Value]) -> CellState {
        let path = self.cell_path(id);
        let text = match fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return CellState::Missing,
            Err(e) => return CellState::Corrupt(format!("unreadable: {e}")),
        };
        match serde_json::from_str::<CellRecord>(&text) {
            Err(e) => CellState::Corrupt(format!("does not parse: {e}")),
            Ok(r) if r.id != id || r.sweep_hash != hash || r.inputs != inputs => {
                CellState::Corrupt("belongs to another cell or sweep".into())
            }
            Ok(r) => CellState::Finished(Box::new(r)),
        }
    }

    /// Writes a cell's record atomically.
    pub fn write_cell(&self, record: &CellRecord) -> Result<(), SweepError> {
        let mut text = serde_json::to_string_pretty(record).map_err(|e| SweepError::Io {
            path: self.cell_path(&record.id),
            source: std::io::Error::other(e),
        })?;
        text.push('\n');
        write_atomic(&self.cell_path(&record.id), text.as_bytes())
    }

    /// Removes the temporary files left in `cells/` by an ended process for the cells in
    /// `cells` (this process's own shard); how many. A temporary file's name carries its
    /// writer's stamp ([`crate::process_stamp`]): only one whose writer has ended on this host,
    /// boot and PID namespace is removed; one of a writer that still runs, or runs elsewhere, or
    /// without a stamp, stays.
    pub fn remove_stale_temps<'a>(&self, cells: impl Iterator<Item = &'a Cell>) -> usize {
        let dir = self.path.join(CELLS);
        let prefixes: std::collections::HashSet<String> =
            cells.map(|c| format!(".{}.json.partial-", c.id)).collect();
        let Ok(read) = fs::read_dir(&dir) else {
            return 0;
        };
        let mut removed = 0;
        for e in read.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let Some(at) = name.find(".json.partial-") else {
                continue;
            };
            let prefix = &name[..at + ".json.partial-".len()];
            // `TOKEN-N`: the writer's stamp and a counter.
            let Some((token, _)) = name[prefix.len()..].rsplit_once('-') else {
                continue;
            };
            let ended = crate::process_stamp::ProcessStamp::liveness_of_token(token)
                == crate::process_stamp::Liveness::Ended;
            let is_file = e.file_type().is_ok_and(|t| t.is_file());
            if prefixes.contains(prefix) && ended && is_file && fs::remove_file(e.path()).is_ok() {
                removed += 1;
            }
        }
        removed
    }
}

/// A CSV field, quoted when it holds a comma, a quote or a line break.
pub fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}
