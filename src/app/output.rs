//! Output directories of a run (`--out DIR`) and the files in them.
//!
//! stickslip writes only what it owns, and nothing of the user's is ever moved, overwritten or
//! deleted:
//!
//! * Files are written into a staging directory `.NAME.partial-PID` beside `DIR` and renamed to
//!   `DIR` only when everything is written, with a marker file [`MARKER_FILE`] listing them.
//! * `DIR` that does not exist is created (with the parents it needs; those created by a run that
//!   fails are removed again).
//! * `DIR` that is an empty directory is replaced by the new output (it held nothing).
//! * `DIR` that holds a previous stickslip output (its marker lists every file in it) is
//!   replaced: renamed away to `.NAME.old-PID`, the new output renamed in, the old one removed.
//! * Anything else is refused before the run starts ([`OutputRefused`], exit code 2): a file, a
//!   link, a directory holding anything stickslip did not write, and the working directory or
//!   one that contains it.
//! * A staging directory is removed when the run fails, and by the signal handler of the binary
//!   on SIGINT, SIGTERM and SIGHUP ([`with_staging_removed`]). Staging directories left by a dead
//!   process (killed with SIGKILL, a power cut) are removed by the next run into the same place.

use std::fs;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use serde::{Deserialize, Serialize};

use crate::energy::Vec2;
use crate::run::runner::{Summary, TrajectoryRow};

/// The marker file stickslip writes into every output directory: a small JSON object naming
/// the program and listing the files it wrote ([`Marker`]).
pub const MARKER_FILE: &str = ".stickslip-output";

/// An output error, naming the path.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {source}")]
pub struct OutputError {
    /// The file or directory.
    pub path: PathBuf,
    /// Cause.
    pub source: std::io::Error,
}

/// An output path stickslip will not write to, with what is there and what to do instead.
#[derive(Debug, thiserror::Error)]
#[error("output directory {}: {what}; nothing was written: {advice}", path.display())]
pub struct OutputRefused {
    /// The path given.
    pub path: PathBuf,
    /// What is there.
    pub what: String,
    /// What the user can do.
    pub advice: String,
}

/// Errors of [`StagedDir`].
#[derive(Debug, thiserror::Error)]
pub enum StageError {
    /// Reading or writing failed.
    #[error(transparent)]
    Io(#[from] OutputError),
    /// The target is not ours to replace.
    #[error(transparent)]
    Refused(#[from] OutputRefused),
}

fn io<T>(path: &Path, r: std::io::Result<T>) -> Result<T, OutputError> {
    r.map_err(|source| OutputError {
        path: path.to_path_buf(),
        source,
    })
}

/// The content of [`MARKER_FILE`].
#[derive(Debug, Serialize, Deserialize)]
pub struct Marker {
    /// Always `"stickslip"`.
    pub written_by: String,
    /// The program's version.
    pub version: String,
    /// The files of the directory, by name (the marker itself excluded).
    pub files: Vec<String>,
}

/// What is at an output path.
#[derive(Debug, PartialEq)]
enum Existing {
    /// Nothing: the path is free.
    Nothing,
    /// An empty directory.
    EmptyDir,
    /// A previous stickslip output: a directory holding exactly the files its marker lists.
    PreviousOutput,
}

/// Names of up to three entries, for messages.
fn some_names(names: &[String]) -> String {
    let mut s = names.iter().take(3).cloned().collect::<Vec<_>>().join(", ");
    if names.len() > 3 {
        s.push_str(&format!(", … {} entries in all", names.len()));
    }
    s
}

/// Reads the marker of `dir`, if it has a valid one.
fn read_marker(dir: &Path) -> Option<Marker> {
    let path = dir.join(MARKER_FILE);
    let meta = fs::symlink_metadata(&path).ok()?;
    if !meta.is_file() || meta.len() > 16 << 20 {
        return None;
    }
    let marker: Marker = serde_json::from_str(&fs::read_to_string(&path).ok()?).ok()?;
    (marker.written_by == "stickslip").then_some(marker)
}

/// Entry names of `dir`, and whether each is a plain file (not a link, not a directory).
fn entries(dir: &Path) -> Result<Vec<(String, bool)>, OutputError> {
    let mut out = Vec::new();
    for e in io(dir, fs::read_dir(dir))? {
        let e = io(dir, e)?;
        let is_file = io(dir, e.file_type())?.is_file();
        out.push((e.file_name().to_string_lossy().into_owned(), is_file));
    }
    out.sort();
    Ok(out)
}

/// Classifies `target`: free, empty, a previous output, or refused with the reason.
fn classify(target: &Path) -> Result<Existing, StageError> {
    let refuse = |what: String, advice: &str| -> StageError {
        OutputRefused {
            path: target.to_path_buf(),
            what,
            advice: advice.to_string(),
        }
        .into()
    };
    let meta = match fs::symlink_metadata(target) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Existing::Nothing),
        Err(e) => {
            return Err(OutputError {
                path: target.to_path_buf(),
                source: e,
            }
            .into());
        }
    };
    let new_path =
        "give a path that does not exist yet (stickslip creates it), or an empty directory";
    if meta.file_type().is_symlink() {
        return Err(refuse("is a symbolic link".into(), new_path));
    }
    if meta.is_file() {
        return Err(refuse(
            format!(
                "is an existing file ({} bytes), which stickslip never replaces",
                meta.len()
            ),
            new_path,
        ));
    }
    if !meta.is_dir() {
        return Err(refuse("is not a directory".into(), new_path));
    }
    if crate::console::contains_working_dir(target) {
        return Err(refuse(
            "is the working directory or contains it".into(),
            "give a new subdirectory, e.g. --out out/run1",
        ));
    }
    let found = entries(target)?;
    if found.is_empty() {
        return Ok(Existing::EmptyDir);
    }
    let Some(marker) = read_marker(target) else {
        let names: Vec<String> = found.into_iter().map(|(n, _)| n).collect();
        return Err(refuse(
            format!(
                "is a directory holding files stickslip did not write ({})",
                some_names(&names)
            ),
            "give a new or empty directory, or move those files away",
        ));
    };
    let foreign: Vec<String> = found
        .into_iter()
        .filter(|(n, is_file)| !(*is_file && (n == MARKER_FILE || marker.files.contains(n))))
        .map(|(n, _)| n)
        .collect();
    if !foreign.is_empty() {
        return Err(refuse(
            format!(
                "holds a previous stickslip output and also files stickslip did not write ({})",
                some_names(&foreign)
            ),
            "move those files away, or give another directory",
        ));
    }
    Ok(Existing::PreviousOutput)
}

/// A staging directory being written, and the parents its run created, as the signal handler
/// must see them.
struct Registration {
    staging: PathBuf,
    created_parents: Vec<PathBuf>,
}

/// The staging directories of this process. Holding this lock is what makes a write into a
/// staging directory, its commit and its removal by the signal handler exclude one another.
static STAGING: Mutex<Vec<Registration>> = Mutex::new(Vec::new());

fn staging_lock() -> MutexGuard<'static, Vec<Registration>> {
    STAGING
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn remove_registration(r: &Registration) {
    let _ = fs::remove_dir_all(&r.staging);
    // Deepest first; `remove_dir` removes only an empty directory.
    for p in r.created_parents.iter().rev() {
        let _ = fs::remove_dir(p);
    }
}

/// Removes every staging directory of this process (and the parents their runs created), then
/// calls `then` while still holding the lock, so no write or commit can start afterwards. For
/// the signal handler of the binary: `then` ends the process.
pub fn with_staging_removed(then: impl FnOnce() -> std::convert::Infallible) -> ! {
    let guard = staging_lock();
    for r in guard.iter() {
        remove_registration(r);
    }
    match then() {}
}

/// Whether process `pid` exists (on Unix: `kill(pid, 0)`; elsewhere assumed alive, so nothing
/// is ever cleaned there).
fn process_alive(pid: u32) -> bool {
    #[cfg(unix)]
    {
        let Ok(pid) = libc::pid_t::try_from(pid) else {
            return true;
        };
        if pid <= 0 {
            return true;
        }
        // SAFETY: kill with signal 0 sends nothing; it only checks that the process exists.
        let r = unsafe { libc::kill(pid, 0) };
        r == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
    }
    #[cfg(not(unix))]
    {
        let _ = pid;
        true
    }
}

/// Whether a file name is one stickslip writes into an output or staging directory.
fn is_our_file_name(name: &str) -> bool {
    name == MARKER_FILE
        || [".csv", ".json", ".obj"]
            .iter()
            .any(|ext| name.ends_with(ext))
}

/// Removes `.NAME.partial-PID` and `.NAME.old-PID` directories in `parent` left by processes
/// that no longer exist, when they hold nothing but files stickslip writes.
fn remove_stale_staging(parent: &Path, name: &str) {
    let Ok(read) = fs::read_dir(parent) else {
        return;
    };
    let prefixes = [format!(".{name}.partial-"), format!(".{name}.old-")];
    for e in read.flatten() {
        let file_name = e.file_name().to_string_lossy().into_owned();
        let Some(pid) = prefixes
            .iter()
            .find_map(|p| file_name.strip_prefix(p.as_str()))
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            continue;
        };
        if pid == std::process::id() || process_alive(pid) {
            continue;
        }
        let path = e.path();
        let is_dir = fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir());
        let ours = is_dir
            && entries(&path).is_ok_and(|es| es.iter().all(|(n, f)| *f && is_our_file_name(n)));
        if ours {
            let _ = fs::remove_dir_all(&path);
        }
    }
}

/// A directory being written: `.NAME.partial-PID` until [`StagedDir::commit`] renames it to
/// `NAME`. Dropped without commit, it is removed, with the parents it created.
pub struct StagedDir {
    target: PathBuf,
    staging: PathBuf,
    old: PathBuf,
    committed: bool,
}

impl StagedDir {
    /// Checks `target` (see the [module docs](self)), creates its missing parents and the
    /// staging directory beside it, and removes stale staging directories of dead processes.
    ///
    /// # Errors
    /// [`StageError::Refused`] when `target` is not stickslip's to write; [`StageError::Io`]
    /// when a directory cannot be made.
    pub fn new(target: &Path) -> Result<StagedDir, StageError> {
        let name = match target.file_name() {
            Some(n) => n.to_string_lossy().into_owned(),
            None => {
                return Err(OutputRefused {
                    path: target.to_path_buf(),
                    what: "has no final directory name".into(),
                    advice: "give a directory path such as out/run1".into(),
                }
                .into());
            }
        };
        classify(target)?;
        let parent = target
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .to_path_buf();
        let mut guard = staging_lock();
        // The parents to create, deepest last.
        let mut missing: Vec<PathBuf> = parent
            .ancestors()
            .filter(|p| !p.as_os_str().is_empty())
            .take_while(|p| fs::symlink_metadata(p).is_err())
            .map(Path::to_path_buf)
            .collect();
        missing.reverse();
        let mut created_parents = Vec::new();
        for p in &missing {
            match fs::create_dir(p) {
                Ok(()) => created_parents.push(p.clone()),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => {
                    for c in created_parents.iter().rev() {
                        let _ = fs::remove_dir(c);
                    }
                    return Err(OutputError {
                        path: p.clone(),
                        source: e,
                    }
                    .into());
                }
            }
        }
        remove_stale_staging(&parent, &name);
        let pid = std::process::id();
        let staging = parent.join(format!(".{name}.partial-{pid}"));
        let old = parent.join(format!(".{name}.old-{pid}"));
        let registration = Registration {
            staging: staging.clone(),
            created_parents,
        };
        if let Err(e) = fs::create_dir(&staging) {
            for c in registration.created_parents.iter().rev() {
                let _ = fs::remove_dir(c);
            }
            return Err(OutputError {
                path: staging,
                source: e,
            }
            .into());
        }
        guard.push(registration);
        Ok(StagedDir {
            target: target.to_path_buf(),
            staging,
            old,
            committed: false,
        })
    }

    /// Path of a file inside the staging directory. Write it with [`StagedDir::write`], which
    /// keeps the signal handler from removing the directory in the middle of the write.
    pub fn file(&self, name: &str) -> PathBuf {
        self.staging.join(name)
    }

    /// Writes the file `name` of the staging directory with `write` (given its path), holding
    /// the lock that the signal handler takes before removing the directory.
    pub fn write<E>(
        &self,
        name: &str,
        write: impl FnOnce(&Path) -> Result<(), E>,
    ) -> Result<(), E> {
        let _guard = staging_lock();
        write(&self.file(name))
    }

    /// Writes the marker and moves the staged directory to the target: a rename when the target
    /// is free or an empty directory, and a replacement when it holds a previous output.
    ///
    /// # Errors
    /// [`StageError::Refused`] when something not ours appeared at the target during the run;
    /// [`StageError::Io`] when a rename fails (the target is then as it was).
    pub fn commit(mut self) -> Result<PathBuf, StageError> {
        let mut guard = staging_lock();
        let files: Vec<String> = entries(&self.staging)?
            .into_iter()
            .map(|(n, _)| n)
            .filter(|n| n != MARKER_FILE)
            .collect();
        let marker = Marker {
            written_by: "stickslip".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            files,
        };
        let marker_path = self.staging.join(MARKER_FILE);
        let text = serde_json::to_string_pretty(&marker).map_err(|e| OutputError {
            path: marker_path.clone(),
            source: std::io::Error::other(e),
        })?;
        io(&marker_path, fs::write(&marker_path, text + "\n"))?;
        match classify(&self.target)? {
            // rename(2) replaces an empty directory atomically.
            Existing::Nothing | Existing::EmptyDir => {
                io(&self.target, fs::rename(&self.staging, &self.target))?;
            }
            Existing::PreviousOutput => {
                io(&self.target, fs::rename(&self.target, &self.old))?;
                if let Err(e) = fs::rename(&self.staging, &self.target) {
                    let _ = fs::rename(&self.old, &self.target);
                    return Err(OutputError {
                        path: self.target.clone(),
                        source: e,
                    }
                    .into());
                }
                // The old directory carried our marker and only the files it lists.
                io(&self.old, fs::remove_dir_all(&self.old))?;
            }
        }
        guard.retain(|r| r.staging != self.staging);
        self.committed = true;
        Ok(self.target.clone())
    }
}

impl Drop for StagedDir {
    fn drop(&mut self) {
        if !self.committed {
            let mut guard = staging_lock();
            if let Some(i) = guard.iter().position(|r| r.staging == self.staging) {
                let r = guard.remove(i);
                remove_registration(&r);
            }
        }
    }
}

/// Column names of `trajectory.csv`, with units.
pub const TRAJECTORY_HEADER: &str = "t_s,centroid_x_m,centroid_y_m,centroid_vx_m_per_s,centroid_vy_m_per_s,downhill_distance_m,downhill_speed_m_per_s,min_distance_to_slope_m,newton_iterations,final_residual_m_per_s";

/// Writes `trajectory.csv`.
pub fn write_trajectory(path: &Path, rows: &[TrajectoryRow]) -> Result<(), OutputError> {
    let f = io(path, fs::File::create(path))?;
    let mut w = BufWriter::new(f);
    io(path, writeln!(w, "{TRAJECTORY_HEADER}"))?;
    for r in rows {
        io(
            path,
            writeln!(
                w,
                "{},{},{},{},{},{},{},{},{},{}",
                r.t,
                r.centroid_x,
                r.centroid_y,
                r.centroid_vx,
                r.centroid_vy,
                r.downhill_distance,
                r.downhill_speed,
                r.min_distance,
                r.newton_iterations,
                r.final_residual
            ),
        )?;
    }
    io(path, w.flush())
}

/// Reads a `trajectory.csv` back (for tests and plots of earlier runs).
pub fn read_trajectory(path: &Path) -> Result<Vec<TrajectoryRow>, OutputError> {
    let text = io(path, fs::read_to_string(path))?;
    let bad = |line: usize| OutputError {
        path: path.to_path_buf(),
        source: std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("line {line}: not a trajectory row"),
        ),
    };
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate().skip(1) {
        let f: Vec<f64> = line
            .split(',')
            .map(|s| s.parse::<f64>())
            .collect::<Result<_, _>>()
            .map_err(|_| bad(i + 1))?;
        if f.len() != 10 {
            return Err(bad(i + 1));
        }
        rows.push(TrajectoryRow {
            t: f[0],
            centroid_x: f[1],
            centroid_y: f[2],
            centroid_vx: f[3],
            centroid_vy: f[4],
            downhill_distance: f[5],
            downhill_speed: f[6],
            min_distance: f[7],
            newton_iterations: f[8] as usize,
            final_residual: f[9],
        });
    }
    Ok(rows)
}

/// Writes `summary.json`.
pub fn write_summary(path: &Path, summary: &Summary) -> Result<(), OutputError> {
    let text = serde_json::to_string_pretty(summary).map_err(|e| OutputError {
        path: path.to_path_buf(),
        source: std::io::Error::other(e),
    })?;
    io(path, fs::write(path, text + "\n"))
}

/// Writes one OBJ frame as the book's code does: `v x y 0` per node, two triangles per cell
/// (`f` with 1-based indices).
pub fn write_obj(path: &Path, x: &[Vec2], triangles: &[[usize; 3]]) -> Result<(), OutputError> {
    let f = io(path, fs::File::create(path))?;
    let mut w = BufWriter::new(f);
    for p in x {
        io(path, writeln!(w, "v {} {} 0", p.x, p.y))?;
    }
    for t in triangles {
        io(
            path,
            writeln!(w, "f {} {} {}", t[0] + 1, t[1] + 1, t[2] + 1),
        )?;
    }
    io(path, w.flush())
}
