//! Output directories and files of the commands (`run --out DIR`, `plot --out PNG --data DIR`,
//! `view --screenshot PNG`) and the files in them.
//!
//! stickslip writes only what it owns, and nothing of the user's is ever moved, overwritten or
//! deleted:
//!
//! * Every output path is checked before anything runs; a refused one is [`OutputRefused`]
//!   (exit code 2), and nothing is written, not even a parent directory. That includes a path
//!   that cannot be written (too long for its staging name, a component over `NAME_MAX`, a
//!   directory this process may not write into: [`crate::console::out_path_too_long`],
//!   [`crate::console::unwritable`]); where only creating it tells, the error names the path
//!   given, not the staging path, and is exit 2 when the path is at fault
//!   ([`crate::console::is_path_error`]).
//! * Files are written into a staging directory `.NAME.partial-PID` beside `DIR` and renamed to
//!   `DIR` only when everything is written, with a marker file [`MARKER_FILE`] saying which
//!   command and case kind wrote them and listing them ([`Marker`]).
//! * `DIR` that does not exist is created (with the parents it needs; those created by a run that
//!   fails are removed again).
//! * `DIR` that is an empty directory is replaced by the new output (it held nothing); one on
//!   which a file system is mounted cannot be, and is refused.
//! * `DIR` that holds a previous output *of the same command* (its marker says so, lists every
//!   file in it, and records each file's SHA-256, which each file still matches) is replaced:
//!   renamed away to `.NAME.old-PID`, the new output renamed in, the old one removed. `run`
//!   replaces only a run's output, `plot --data` only plotted data; a sweep directory is only
//!   ever the sweep's.
//! * A subfolder of an output (`run --vtk`'s `vtk/`) is the output's like its files: the
//!   marker lists each file in it as `FOLDER/NAME` with its hash, and a replacement checks them
//!   as it checks the others (anything in it the marker does not list is refused).
//! * Anything else is refused: a file, a link, a directory holding anything stickslip did not
//!   write, a previous output one of whose files was changed since it was written (or is now a
//!   link or a directory) or whose marker records no hashes (versions before they were
//!   recorded: stickslip cannot tell whether its files are still its own), the output of
//!   another command, and the working directory or one that contains it.
//! * A single file (a figure, a screenshot: [`OutputFile`]) replaces only a PNG that the same
//!   command wrote (its `stickslip-output` text chunk, [`crate::graphics::png_written_by`]).
//! * A staging directory is removed when the run fails, and by the signal handler of the binary
//!   on SIGINT, SIGTERM and SIGHUP ([`with_staging_removed`]). Each carries a staging marker
//!   ([`STAGING_MARKER`]) written when it is created, naming its process
//!   ([`crate::process_stamp::ProcessStamp`]: host, boot id, PID namespace, PID, start time);
//!   one left by a process that is gone (killed with SIGKILL, a power cut) is removed by the next
//!   run into the same place when its marker shows that process ended on this host and boot.
//!   Nothing without that marker is ever removed, whatever its name or the files in it, and
//!   nothing of another host, container or boot.

use std::collections::BTreeMap;
use std::fs;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use serde::{Deserialize, Serialize};

use crate::energy::Vec2;
use crate::process_stamp::{Liveness, ProcessStamp};
use crate::run::runner::{Summary, TrajectoryRow};

/// The marker file stickslip writes into every output directory: a small JSON object naming
/// the program, the command and case kind that wrote it, and the files it wrote ([`Marker`]).
pub const MARKER_FILE: &str = ".stickslip-output";

/// The marker of a staging directory (`.NAME.partial-PID`, `.NAME.old-PID`), written when it is
/// created: which process owns it ([`StagingMarker`]).
pub const STAGING_MARKER: &str = ".stickslip-staging";

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
#[error("output {} {}: {what}; nothing was written: {advice}", if *is_file { "file" } else { "directory" }, path.display())]
pub struct OutputRefused {
    /// The path given.
    pub path: PathBuf,
    /// Whether it was to be a file (a figure) rather than a directory.
    pub is_file: bool,
    /// What is there.
    pub what: String,
    /// What the user can do.
    pub advice: String,
}

/// Errors of [`StagedDir`] and [`OutputFile`].
#[derive(Debug, thiserror::Error)]
pub enum StageError {
    /// Reading or writing failed.
    #[error(transparent)]
    Io(#[from] OutputError),
    /// The target is not ours to replace.
    #[error(transparent)]
    Refused(#[from] OutputRefused),
}

pub(crate) fn io<T>(path: &Path, r: std::io::Result<T>) -> Result<T, OutputError> {
    r.map_err(|source| OutputError {
        path: path.to_path_buf(),
        source,
    })
}

/// The bytes a staging name (`.NAME.partial-PID`, `.NAME.old-PID`) adds to `NAME`, at most: the
/// dot, `.partial-` and a PID of up to ten digits.
const STAGING_OVERHEAD: usize = 1 + ".partial-".len() + 10;

/// Refuses (exit 2) an output path that is too long to be written with its staging name
/// ([`crate::console::out_path_too_long`]).
fn check_length(target: &Path, is_file: bool) -> Result<(), OutputRefused> {
    match crate::console::out_path_too_long(target, ".NAME.partial-PID", STAGING_OVERHEAD) {
        Some(what) => Err(OutputRefused {
            path: target.to_path_buf(),
            is_file,
            what,
            advice: "give a shorter path".into(),
        }),
        None => Ok(()),
    }
}

/// Refuses (exit 2) an output path whose nearest existing directory this process cannot write
/// into ([`crate::console::unwritable`]).
fn check_writable(target: &Path, is_file: bool) -> Result<(), OutputRefused> {
    match crate::console::unwritable(&parent_of(target)) {
        Some(why) => Err(OutputRefused {
            path: target.to_path_buf(),
            is_file,
            what: format!("cannot be written: {why}"),
            advice: "give a path in a directory you can write to".into(),
        }),
        None => Ok(()),
    }
}

/// An error of `doing` (creating a directory for the output at `target`), naming `target`, the
/// path the user gave, and not the hidden staging path: refused (exit 2) when the path is at
/// fault ([`crate::console::is_path_error`]: no permission, a read-only file system, …), an I/O
/// error (exit 1) when the system is (a full disk).
fn setup_error(target: &Path, is_file: bool, doing: &str, e: std::io::Error) -> StageError {
    if crate::console::is_path_error(&e) {
        OutputRefused {
            path: target.to_path_buf(),
            is_file,
            what: format!("cannot be written: {doing} failed ({e})"),
            advice: "give a path in a directory you can write to".into(),
        }
        .into()
    } else {
        OutputError {
            path: target.to_path_buf(),
            source: std::io::Error::new(e.kind(), format!("{doing} failed: {e}")),
        }
        .into()
    }
}

/// Which command, and for which kind of case, wrote an output: recorded in its [`Marker`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WrittenBy {
    /// The command: `run`, `plot`, `sweep`.
    pub command: &'static str,
    /// The case kind (`slope_square`, `rigid_ellipsoid`, `scene`).
    pub kind: String,
}

impl WrittenBy {
    /// `command` on a case of `kind`.
    pub fn new(command: &'static str, kind: &str) -> WrittenBy {
        WrittenBy {
            command,
            kind: kind.to_string(),
        }
    }
}

/// The content of [`MARKER_FILE`].
#[derive(Debug, Serialize, Deserialize)]
pub struct Marker {
    /// Always `"stickslip"`.
    pub written_by: String,
    /// The program's version.
    pub version: String,
    /// The command that wrote the directory (`run`, `plot`, `sweep`); absent in markers of
    /// versions before it was recorded, which no command replaces.
    #[serde(default)]
    pub command: Option<String>,
    /// The case kind it was written for.
    #[serde(default)]
    pub kind: Option<String>,
    /// The files of the directory, by name (the marker itself excluded); a file in a subfolder
    /// by its path, `FOLDER/NAME`.
    pub files: Vec<String>,
    /// The SHA-256 of each of `files` as written (lowercase hex), by name: a file whose content
    /// no longer matches was changed by someone else and is theirs, and the directory is not
    /// replaced. Absent in markers of versions before it was recorded (which no command
    /// replaces, since it cannot tell), and in a sweep directory's marker (whose files grow as
    /// its cells run, and which is never replaced).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<BTreeMap<String, String>>,
}

impl Marker {
    /// The marker of a directory `by` wrote, holding `files`.
    pub fn new(by: &WrittenBy, files: Vec<String>) -> Marker {
        Marker {
            written_by: "stickslip".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            command: Some(by.command.to_string()),
            kind: Some(by.kind.clone()),
            files,
            sha256: None,
        }
    }
}

/// The content of [`STAGING_MARKER`].
#[derive(Debug, Serialize, Deserialize)]
pub struct StagingMarker {
    /// Always `"stickslip"`.
    pub written_by: String,
    /// The name of the output directory it is for (`NAME`).
    pub target: String,
    /// The process that owns it; `None` where no stamp could be made (then it is never removed
    /// by another process).
    pub owner: Option<ProcessStamp>,
}

/// What is at an output path.
#[derive(Debug, PartialEq)]
enum Existing {
    /// Nothing: the path is free.
    Nothing,
    /// An empty directory.
    EmptyDir,
    /// A previous output of the same command: a directory holding only files its marker lists,
    /// each with the SHA-256 it records.
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
pub fn read_marker(dir: &Path) -> Option<Marker> {
    let path = dir.join(MARKER_FILE);
    let meta = fs::symlink_metadata(&path).ok()?;
    if !meta.is_file() || meta.len() > 16 << 20 {
        return None;
    }
    let marker: Marker = serde_json::from_str(&fs::read_to_string(&path).ok()?).ok()?;
    (marker.written_by == "stickslip").then_some(marker)
}

/// Entry names of `dir`, sorted, and what each is (not following links).
fn entries(dir: &Path) -> Result<Vec<(String, fs::FileType)>, OutputError> {
    let mut out = Vec::new();
    for e in io(dir, fs::read_dir(dir))? {
        let e = io(dir, e)?;
        let kind = io(dir, e.file_type())?;
        out.push((e.file_name().to_string_lossy().into_owned(), kind));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

/// The entries of `dir` as [`entries`] gives them, except that a directory whose name `listed`
/// names as the folder of a file (`NAME/…`) is replaced by its own entries, named
/// `NAME/ENTRY`, recursively: the files of an output's subfolders (`vtk/`) as its marker lists
/// them. A directory holding nothing the marker lists stays one entry, a directory.
fn nested_entries(
    dir: &Path,
    listed: &[String],
) -> Result<Vec<(String, fs::FileType)>, OutputError> {
    let mut out = Vec::new();
    nest(dir, "", listed, &mut out)?;
    Ok(out)
}

fn nest(
    dir: &Path,
    prefix: &str,
    listed: &[String],
    out: &mut Vec<(String, fs::FileType)>,
) -> Result<(), OutputError> {
    for (entry, kind) in entries(dir)? {
        let name = format!("{prefix}{entry}");
        let folder = format!("{name}/");
        if kind.is_dir() && listed.iter().any(|f| f.starts_with(&folder)) {
            nest(&dir.join(&entry), &folder, listed, out)?;
        } else {
            out.push((name, kind));
        }
    }
    Ok(())
}

/// Every plain file under `dir`, subfolders included, by its path relative to `dir` (`/`
/// between folders), sorted: what a staged output holds.
fn files_under(dir: &Path, prefix: &str, out: &mut Vec<String>) -> Result<(), OutputError> {
    for (name, kind) in entries(dir)? {
        if kind.is_dir() {
            files_under(&dir.join(&name), &format!("{prefix}{name}/"), out)?;
        } else {
            out.push(format!("{prefix}{name}"));
        }
    }
    Ok(())
}

/// What a directory entry that is not a plain file is, for messages.
fn kind_name(kind: fs::FileType) -> &'static str {
    if kind.is_symlink() {
        "a symbolic link"
    } else if kind.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }
}

/// The SHA-256 of the file at `path`, as lowercase hex (what a [`Marker`] records).
///
/// # Errors
/// When the file cannot be opened or read.
pub fn sha256_hex(path: &Path) -> Result<String, OutputError> {
    use sha2::{Digest, Sha256};
    let mut file = io(path, fs::File::open(path))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => hasher.update(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => {
                return Err(OutputError {
                    path: path.to_path_buf(),
                    source: e,
                });
            }
        }
    }
    Ok(hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

/// Classifies `target` for an output of `by`: free, empty, a previous output of the same
/// command, or refused with the reason.
fn classify(target: &Path, by: &WrittenBy) -> Result<Existing, StageError> {
    let refuse = |what: String, advice: &str| -> StageError {
        OutputRefused {
            path: target.to_path_buf(),
            is_file: false,
            what,
            advice: advice.to_string(),
        }
        .into()
    };
    let meta = match fs::symlink_metadata(target) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Existing::Nothing),
        Err(e) => return Err(setup_error(target, false, "looking it up", e)),
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
        if crate::console::is_mount_point(target) {
            return Err(refuse(
                "is an empty directory on which a file system is mounted, which cannot be replaced"
                    .into(),
                "give a new subdirectory inside it, e.g. DIR/run1",
            ));
        }
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
    match marker.command.as_deref() {
        Some(command) if command == by.command => {}
        Some(command) => {
            return Err(refuse(
                format!(
                    "holds the output of `stickslip {command}` (its {MARKER_FILE} says so), which `stickslip {}` does not replace",
                    by.command
                ),
                "give another directory, or move that output away",
            ));
        }
        None => {
            return Err(refuse(
                format!(
                    "holds a stickslip output whose {MARKER_FILE} does not say which command wrote it (version {})",
                    marker.version
                ),
                "give another directory, or move that output away",
            ));
        }
    }
    // A subfolder the marker lists files in (`vtk/`) is looked into: its entries are checked
    // as the top level's are.
    let found = nested_entries(target, &marker.files)?;
    let previous = format!("holds a previous `stickslip {}` output", by.command);
    // The files it lists, each as written: none turned into something else, none foreign.
    if let Some((name, kind)) = found
        .iter()
        .find(|(n, kind)| n != MARKER_FILE && marker.files.contains(n) && !kind.is_file())
    {
        return Err(refuse(
            format!(
                "{previous} whose {name} is now {} (stickslip wrote a file there), which makes it yours, and stickslip never replaces it",
                kind_name(*kind)
            ),
            "move it away, or give another directory",
        ));
    }
    let foreign: Vec<String> = found
        .iter()
        .filter(|(n, kind)| !(kind.is_file() && (n == MARKER_FILE || marker.files.contains(n))))
        .map(|(n, _)| n.clone())
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
    let Some(hashes) = &marker.sha256 else {
        return Err(refuse(
            format!(
                "{previous} whose {MARKER_FILE} records no content hashes (version {} wrote it, before they were recorded), so stickslip cannot tell whether you changed its files, and does not replace it",
                marker.version
            ),
            "give another directory, or remove that output yourself if nothing in it is yours",
        ));
    };
    // Every file still the one stickslip wrote: a file changed since is the user's.
    for (name, _) in found.iter().filter(|(n, _)| n != MARKER_FILE) {
        let path = target.join(name);
        let changed = match sha256_hex(&path) {
            Ok(h) => hashes.get(name) != Some(&h),
            Err(e) => {
                return Err(refuse(
                    format!(
                        "{previous} whose {name} cannot be read to check that it is unchanged ({}), and stickslip does not replace what it cannot check",
                        e.source
                    ),
                    "give another directory",
                ));
            }
        };
        if changed {
            return Err(refuse(
                format!(
                    "{previous} whose {name} was changed after stickslip wrote it (its SHA-256 is not the one {MARKER_FILE} records): a changed file is yours, and stickslip never replaces it"
                ),
                "move that file away, or give another directory",
            ));
        }
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
    remove_parents(&r.created_parents);
}

/// Removes `created` (parents a command made), deepest first; `remove_dir` removes only an
/// empty directory, so one that something else was written into stays.
fn remove_parents(created: &[PathBuf]) {
    for p in created.iter().rev() {
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

/// Writes the staging marker into `dir`, for the output directory `target_name`.
fn write_staging_marker(dir: &Path, target_name: &str) -> Result<(), OutputError> {
    let marker = StagingMarker {
        written_by: "stickslip".into(),
        target: target_name.to_string(),
        owner: ProcessStamp::current(),
    };
    let path = dir.join(STAGING_MARKER);
    let text = serde_json::to_string_pretty(&marker).map_err(|e| OutputError {
        path: path.clone(),
        source: std::io::Error::other(e),
    })?;
    io(&path, fs::write(&path, text + "\n"))
}

/// Whether `dir` is a staging directory for `target_name` whose owner has ended: it carries a
/// valid [`STAGING_MARKER`] (a plain file, in a plain directory) naming that target and a
/// process that this one can see has ended.
fn is_stale_staging(dir: &Path, target_name: &str) -> bool {
    let is_dir = fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir());
    let path = dir.join(STAGING_MARKER);
    let marker_ok = fs::symlink_metadata(&path).is_ok_and(|m| m.is_file() && m.len() < 1 << 16);
    if !(is_dir && marker_ok) {
        return false;
    }
    let Some(marker) = fs::read_to_string(&path)
        .ok()
        .and_then(|t| serde_json::from_str::<StagingMarker>(&t).ok())
    else {
        return false;
    };
    marker.written_by == "stickslip"
        && marker.target == target_name
        && marker
            .owner
            .is_some_and(|owner| owner.liveness() == Liveness::Ended)
}

/// Removes staging directories for `name` in `parent` (`.NAME.partial-…` with `partial`,
/// `.NAME.old-…` with `old`) whose staging marker shows that their process has ended on this
/// host (module docs). The name only narrows the search; the marker decides.
fn remove_stale_staging(parent: &Path, name: &str, partial: bool, old: bool) {
    let Ok(read) = fs::read_dir(parent) else {
        return;
    };
    let mut prefixes = Vec::new();
    if partial {
        prefixes.push(format!(".{name}.partial-"));
    }
    if old {
        prefixes.push(format!(".{name}.old-"));
    }
    for e in read.flatten() {
        let file_name = e.file_name().to_string_lossy().into_owned();
        if !prefixes.iter().any(|p| file_name.starts_with(p.as_str())) {
            continue;
        }
        let path = e.path();
        if is_stale_staging(&path, name) {
            let _ = fs::remove_dir_all(&path);
        }
    }
}

/// The parent directory of an output path (`.` for a bare name).
fn parent_of(target: &Path) -> PathBuf {
    target
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .to_path_buf()
}

/// The ancestors of `dir` that do not exist, outermost first.
fn missing_ancestors(dir: &Path) -> Vec<PathBuf> {
    let mut missing: Vec<PathBuf> = dir
        .ancestors()
        .filter(|p| !p.as_os_str().is_empty())
        .take_while(|p| fs::symlink_metadata(p).is_err())
        .map(Path::to_path_buf)
        .collect();
    missing.reverse();
    missing
}

/// The nearest existing ancestor of `dir` must be a directory: refuses a path through a file.
fn check_ancestors(target: &Path, is_file: bool) -> Result<(), OutputRefused> {
    let parent = parent_of(target);
    let existing = parent
        .ancestors()
        .find(|p| p.as_os_str().is_empty() || fs::symlink_metadata(p).is_ok());
    match existing {
        Some(p) if !p.as_os_str().is_empty() && !fs::metadata(p).is_ok_and(|m| m.is_dir()) => {
            Err(OutputRefused {
                path: target.to_path_buf(),
                is_file,
                what: format!("lies under {}, which is not a directory", p.display()),
                advice: "give a path in a directory".into(),
            })
        }
        _ => Ok(()),
    }
}

/// Creates the directories of `missing` (outermost first); the ones created, or the error (after
/// removing those created).
fn create_parents(missing: &[PathBuf]) -> Result<Vec<PathBuf>, OutputError> {
    let mut created = Vec::new();
    for p in missing {
        match fs::create_dir(p) {
            Ok(()) => created.push(p.clone()),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => {
                remove_parents(&created);
                return Err(OutputError {
                    path: p.clone(),
                    source: e,
                });
            }
        }
    }
    Ok(created)
}

/// A directory being written: `.NAME.partial-PID` until [`StagedDir::commit`] renames it to
/// `NAME`. Dropped without commit, it is removed, with the parents it created.
pub struct StagedDir {
    target: PathBuf,
    name: String,
    staging: PathBuf,
    old: PathBuf,
    by: WrittenBy,
    committed: bool,
}

impl StagedDir {
    /// Checks `target` for an output of `by` (see the [module docs](self)), creates its missing
    /// parents and the staging directory beside it, and removes stale staging directories of
    /// ended processes.
    ///
    /// # Errors
    /// [`StageError::Refused`] when `target` is not stickslip's to write; [`StageError::Io`]
    /// when a directory cannot be made.
    pub fn new(target: &Path, by: WrittenBy) -> Result<StagedDir, StageError> {
        let name = match target.file_name() {
            Some(n) => n.to_string_lossy().into_owned(),
            None => {
                return Err(OutputRefused {
                    path: target.to_path_buf(),
                    is_file: false,
                    what: "has no final directory name".into(),
                    advice: "give a directory path such as out/run1".into(),
                }
                .into());
            }
        };
        check_length(target, false)?;
        check_ancestors(target, false)?;
        classify(target, &by)?;
        check_writable(target, false)?;
        let parent = parent_of(target);
        let mut guard = staging_lock();
        let created_parents = create_parents(&missing_ancestors(&parent)).map_err(|e| {
            let doing = format!("creating the directory {}", e.path.display());
            setup_error(target, false, &doing, e.source)
        })?;
        remove_stale_staging(&parent, &name, true, false);
        let pid = std::process::id();
        let staging = parent.join(format!(".{name}.partial-{pid}"));
        let old = parent.join(format!(".{name}.old-{pid}"));
        let doing = format!("creating its staging directory in {}", parent.display());
        if let Err(e) = fs::create_dir(&staging) {
            remove_parents(&created_parents);
            return Err(setup_error(target, false, &doing, e));
        }
        if let Err(e) = write_staging_marker(&staging, &name) {
            let _ = fs::remove_dir_all(&staging);
            remove_parents(&created_parents);
            return Err(setup_error(target, false, &doing, e.source));
        }
        guard.push(Registration {
            staging: staging.clone(),
            created_parents,
        });
        Ok(StagedDir {
            target: target.to_path_buf(),
            name,
            staging,
            old,
            by,
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

    /// Creates the folder `name` (one level, e.g. `vtk`) inside the staging directory, for files
    /// written as `name/FILE`; the marker lists them by that path and checks them like the
    /// others when the output is replaced.
    pub fn create_dir(&self, name: &str) -> Result<(), OutputError> {
        let _guard = staging_lock();
        let path = self.file(name);
        io(&path, fs::create_dir(&path))
    }

    /// Writes the marker and moves the staged directory to the target: a rename when the target
    /// is free or an empty directory, and a replacement when it holds a previous output of the
    /// same command.
    ///
    /// # Errors
    /// [`StageError::Refused`] when something not ours appeared at the target during the run;
    /// [`StageError::Io`] when a rename fails (the target is then as it was).
    pub fn commit(mut self) -> Result<PathBuf, StageError> {
        let mut guard = staging_lock();
        let mut files = Vec::new();
        let mut hashes = BTreeMap::new();
        let mut staged = Vec::new();
        files_under(&self.staging, "", &mut staged)?;
        for name in staged {
            if name != MARKER_FILE && name != STAGING_MARKER {
                hashes.insert(name.clone(), sha256_hex(&self.staging.join(&name))?);
                files.push(name);
            }
        }
        let mut marker = Marker::new(&self.by, files);
        marker.sha256 = Some(hashes);
        let marker_path = self.staging.join(MARKER_FILE);
        let text = serde_json::to_string_pretty(&marker).map_err(|e| OutputError {
            path: marker_path.clone(),
            source: std::io::Error::other(e),
        })?;
        io(&marker_path, fs::write(&marker_path, text + "\n"))?;
        let existing = classify(&self.target, &self.by)?;
        // The staging marker goes last, just before the rename: the output holds only its files.
        let staging_marker = self.staging.join(STAGING_MARKER);
        io(&staging_marker, fs::remove_file(&staging_marker))?;
        let renamed = match existing {
            // rename(2) replaces an empty directory atomically.
            Existing::Nothing | Existing::EmptyDir => {
                io(&self.target, fs::rename(&self.staging, &self.target))
            }
            Existing::PreviousOutput => self.replace_previous(),
        };
        if let Err(e) = renamed {
            // Still ours: marked again, so that it can be cleaned if this process dies now.
            let _ = write_staging_marker(&self.staging, &self.name);
            return Err(e.into());
        }
        guard.retain(|r| r.staging != self.staging);
        self.committed = true;
        remove_stale_staging(&parent_of(&self.target), &self.name, false, true);
        Ok(self.target.clone())
    }

    /// Moves the previous output at the target away (marked as ours, so that a process killed
    /// halfway leaves something the next run can clean), the staging directory in, and removes
    /// the old one.
    fn replace_previous(&self) -> Result<(), OutputError> {
        io(&self.target, fs::rename(&self.target, &self.old))?;
        if let Err(e) = write_staging_marker(&self.old, &self.name) {
            let _ = fs::rename(&self.old, &self.target);
            return Err(e);
        }
        if let Err(e) = fs::rename(&self.staging, &self.target) {
            let _ = fs::remove_file(self.old.join(STAGING_MARKER));
            let _ = fs::rename(&self.old, &self.target);
            return Err(OutputError {
                path: self.target.clone(),
                source: e,
            });
        }
        // The old directory carried our marker and only the files it lists, and now ours.
        io(&self.old, fs::remove_dir_all(&self.old))
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

/// A single output file (a figure, a screenshot), checked before anything runs and written at
/// the end: it may be new, or replace a PNG that the same command wrote
/// ([`crate::graphics::png_written_by`]); anything else at the path is refused.
#[derive(Debug)]
pub struct OutputFile {
    path: PathBuf,
    /// The `stickslip-output` label of the PNG (the command: `plot`, `view`).
    label: &'static str,
    /// Whether missing parent directories are created (else refused).
    create_parents: bool,
}

impl OutputFile {
    /// Checks `path` for a PNG labelled `label`: refuses a path without a file name, a link, a
    /// directory, any existing file but a PNG with the same label, a path through a file, and
    /// (unless `create_parents`) a path whose directory does not exist.
    ///
    /// # Errors
    /// [`OutputRefused`] saying what is there and what to do.
    pub fn check(
        path: &Path,
        label: &'static str,
        create_parents: bool,
    ) -> Result<OutputFile, OutputRefused> {
        let refuse = |what: String, advice: &str| OutputRefused {
            path: path.to_path_buf(),
            is_file: true,
            what,
            advice: advice.to_string(),
        };
        let new_path = "give a path that does not exist yet";
        if path.file_name().is_none() {
            return Err(refuse(
                "has no file name".into(),
                "give a path such as fig.png",
            ));
        }
        check_length(path, true)?;
        check_ancestors(path, true)?;
        if !create_parents && !missing_ancestors(&parent_of(path)).is_empty() {
            return Err(refuse(
                format!("is in {}, which does not exist", parent_of(path).display()),
                "create that directory first, or give a path in an existing one",
            ));
        }
        match fs::symlink_metadata(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(refuse(format!("cannot be read ({e})"), new_path)),
            Ok(m) if m.file_type().is_symlink() => {
                return Err(refuse("is a symbolic link".into(), new_path));
            }
            Ok(m) if m.is_dir() => return Err(refuse("is a directory".into(), new_path)),
            Ok(m) => match crate::graphics::png_written_by(path) {
                Some(l) if l == label => {}
                Some(l) => {
                    return Err(refuse(
                        format!(
                            "is a figure written by `stickslip {l}`, which `stickslip {label}` does not replace"
                        ),
                        new_path,
                    ));
                }
                None => {
                    return Err(refuse(
                        format!(
                            "is an existing file ({} bytes) stickslip did not write, which it never replaces",
                            m.len()
                        ),
                        new_path,
                    ));
                }
            },
        }
        check_writable(path, true)?;
        Ok(OutputFile {
            path: path.to_path_buf(),
            label,
            create_parents,
        })
    }

    /// The path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes the PNG (creating the missing parents, removed again on failure), holding the
    /// staging lock so that a signal does not end the process halfway.
    ///
    /// # Errors
    /// [`StageError::Refused`] when something not ours appeared at the path meanwhile;
    /// [`StageError::Io`] when writing fails.
    pub fn write_png(&self, rgb: &[u8], width: u32, height: u32) -> Result<(), StageError> {
        let _guard = staging_lock();
        // Checked again: something may have appeared at the path during the run.
        OutputFile::check(&self.path, self.label, self.create_parents)?;
        let created = create_parents(&missing_ancestors(&parent_of(&self.path))).map_err(|e| {
            let doing = format!("creating the directory {}", e.path.display());
            setup_error(&self.path, true, &doing, e.source)
        })?;
        crate::graphics::write_png(&self.path, rgb, width, height, self.label).map_err(|source| {
            remove_parents(&created);
            setup_error(&self.path, true, "writing it", source)
        })
    }
}

pub use crate::run::runner::TRAJECTORY_HEADER;

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
    write_json(path, summary)
}

/// Writes `value` as pretty JSON with a final newline (every `summary.json`).
pub fn write_json<T: Serialize + ?Sized>(path: &Path, value: &T) -> Result<(), OutputError> {
    let text = serde_json::to_string_pretty(value).map_err(|e| OutputError {
        path: path.to_path_buf(),
        source: std::io::Error::other(e),
    })?;
    io(path, fs::write(path, text + "\n"))
}

/// Writes a CSV of numbers: the `header` row, then one row a value list, each written by
/// [`crate::number_format::csv_row`] (a non-finite value is an empty field).
pub fn write_number_rows(
    path: &Path,
    header: &[String],
    rows: impl IntoIterator<Item = Vec<f64>>,
) -> Result<(), OutputError> {
    let mut w = BufWriter::new(io(path, fs::File::create(path))?);
    io(path, writeln!(w, "{}", header.join(",")))?;
    for row in rows {
        io(path, writeln!(w, "{}", crate::number_format::csv_row(&row)))?;
    }
    io(path, w.flush())
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
