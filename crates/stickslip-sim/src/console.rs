//! What every command shares with the terminal and the command line: printing to stdout (a
//! closed stdout ends the program quietly), one-line messages, and the rules an option's value
//! must obey ([`BadOption`], exit 2), and the progress bar of a long run ([`Progress`]). Each command returns its own error; the CLI
//! (`stickslip::app::cli`, in the front-end crate) maps them to exit codes.

use crate::scene::Scene;
use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// An option's value breaks a rule (bad input, exit 2).
#[derive(Debug, thiserror::Error)]
#[error("option `{option}`: {rule} (got {value})")]
pub struct BadOption {
    /// The option (`--duration`).
    pub option: String,
    /// The rule.
    pub rule: String,
    /// What was given.
    pub value: String,
}

impl BadOption {
    /// `option` broke `rule` with `value`.
    pub fn new(option: &str, rule: &str, value: impl ToString) -> BadOption {
        BadOption {
            option: option.into(),
            rule: rule.into(),
            value: value.to_string(),
        }
    }
}

/// A value given for `option`, if any, is finite and > 0.
pub fn check_positive(option: &str, value: Option<f64>) -> Result<(), BadOption> {
    match value {
        Some(v) if !(v.is_finite() && v > 0.0) => Err(BadOption::new(
            option,
            "must be finite and > 0",
            crate::number_format::Short(v),
        )),
        _ => Ok(()),
    }
}

/// Checks a `--duration` and a `--tol` given on the command line against `scene` (the same
/// bounds as the case file's keys: [`Scene::check_duration`], [`Scene::check_tol`]).
pub fn check_overrides(
    scene: &Scene,
    duration: Option<f64>,
    tol: Option<f64>,
) -> Result<(), BadOption> {
    let bad = |option: &str, v: crate::scene::slope::Violation| BadOption {
        option: option.into(),
        rule: v.rule,
        value: v.value,
    };
    if let Some(d) = duration {
        scene.check_duration(d).map_err(|v| bad("--duration", v))?;
    }
    if let Some(t) = tol {
        scene.check_tol(t).map_err(|v| bad("--tol", v))?;
    }
    Ok(())
}

/// Printing to stdout failed.
#[derive(Debug, thiserror::Error)]
pub enum EmitError {
    /// The reader of stdout went away (`| head -1`): the program ends quietly (exit 0).
    #[error("stdout was closed")]
    Closed,
    /// Another write error (exit 1).
    #[error("(stdout): {0}")]
    Write(std::io::Error),
}

/// Writes `text` to stdout. A closed stdout (`EPIPE`, as after `| head -1`) gives
/// [`EmitError::Closed`], which `main` turns into a quiet exit after the normal unwinding of the
/// command (so a staging directory is removed by its drop). Rust ignores SIGPIPE, so the write
/// returns the error instead of killing the process.
pub fn emit(text: &str) -> Result<(), EmitError> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Err(EmitError::Closed),
        Err(e) => Err(EmitError::Write(e)),
    }
}

/// `text` on one line: every control character (newline, escape, …) written as a Rust escape
/// (`\n`, `\u{1b}`), so that a case name or a path cannot break an error line or drive the
/// terminal.
pub fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// Whether the working directory is `dir` or inside it: an output directory that a command
/// would replace or fill must not be that (replacing it would pull the directory out from under
/// the user's shell). When it cannot tell, it assumes it is, so the caller refuses.
pub fn contains_working_dir(dir: &std::path::Path) -> bool {
    match (
        std::fs::canonicalize(dir),
        std::env::current_dir().and_then(std::fs::canonicalize),
    ) {
        (Ok(d), Ok(cwd)) => cwd.starts_with(d),
        _ => true,
    }
}

/// The longest file name (one path component) stickslip writes, bytes: NAME_MAX of the common
/// file systems.
pub const NAME_MAX: usize = 255;

/// The longest output path stickslip takes, bytes: the system's PATH_MAX (4096) less 256 for the
/// names it writes under it (a staging name beside it, a cell file's temporary name inside).
pub const OUT_PATH_MAX: usize = 3840;

/// Why the output path `path` cannot be written as given, by the length rules; `None` when it
/// can. The command writes it first under a hidden name beside it, `staging` (as in
/// `.NAME.partial-PID`), at most `overhead` bytes longer than its name, so its name may be at
/// most [`NAME_MAX`] − `overhead` bytes; every other component at most [`NAME_MAX`], the whole
/// path at most [`OUT_PATH_MAX`].
pub fn out_path_too_long(path: &std::path::Path, staging: &str, overhead: usize) -> Option<String> {
    let total = path.as_os_str().as_encoded_bytes().len();
    if total > OUT_PATH_MAX {
        return Some(format!(
            "is {total} bytes long, and an output path may be at most {OUT_PATH_MAX} (the system's PATH_MAX, 4096, less room for the names stickslip writes under it)"
        ));
    }
    for c in path.components() {
        if let std::path::Component::Normal(n) = c {
            let len = n.as_encoded_bytes().len();
            if len > NAME_MAX {
                let start: String = n.to_string_lossy().chars().take(12).collect();
                return Some(format!(
                    "has a component of {len} bytes ({start}…), and a file name holds at most {NAME_MAX}"
                ));
            }
        }
    }
    let name_max = NAME_MAX.saturating_sub(overhead);
    let len = path.file_name().map_or(0, |n| n.as_encoded_bytes().len());
    (len > name_max).then(|| {
        format!(
            "its name is {len} bytes long, and stickslip writes it first as {staging} beside it, so the name may be at most {name_max} bytes (a file name holds at most {NAME_MAX})"
        )
    })
}

/// Why the nearest existing directory at or above `dir` cannot be written into by this process
/// (no write or search permission, a read-only file system); `None` when it can, or when it
/// cannot tell (then creating the output says so: [`is_path_error`]).
pub fn unwritable(dir: &std::path::Path) -> Option<String> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let existing = dir.ancestors().find_map(|p| {
            let p = if p.as_os_str().is_empty() {
                std::path::Path::new(".")
            } else {
                p
            };
            std::fs::symlink_metadata(p).is_ok().then_some(p)
        })?;
        let c = std::ffi::CString::new(existing.as_os_str().as_bytes()).ok()?;
        // SAFETY: faccessat reads the NUL-terminated path and changes nothing.
        let r = unsafe {
            libc::faccessat(
                libc::AT_FDCWD,
                c.as_ptr(),
                libc::W_OK | libc::X_OK,
                libc::AT_EACCESS,
            )
        };
        (r != 0).then(|| {
            format!(
                "{} cannot be written into ({})",
                existing.display(),
                std::io::Error::last_os_error()
            )
        })
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        None
    }
}

/// Whether an error creating an output path comes from the path given (no permission, a
/// read-only file system, a name too long, a component that is not a directory, a loop of
/// links): bad input, refused with exit 2, rather than a failure of the system (a full disk, an
/// I/O error: exit 1).
pub fn is_path_error(e: &std::io::Error) -> bool {
    use std::io::ErrorKind as K;
    #[cfg(unix)]
    if let Some(code) = e.raw_os_error() {
        return [
            libc::EACCES,
            libc::EPERM,
            libc::EROFS,
            libc::ENAMETOOLONG,
            libc::ENOTDIR,
            libc::ELOOP,
        ]
        .contains(&code);
    }
    matches!(
        e.kind(),
        K::PermissionDenied | K::ReadOnlyFilesystem | K::InvalidFilename | K::NotADirectory
    )
}

/// Whether a file system is mounted on `dir` (its device differs from its parent's, or
/// `/proc/self/mountinfo` lists it, which also finds bind mounts): such a directory cannot be
/// renamed or replaced, so a command must write inside it instead.
pub fn is_mount_point(dir: &std::path::Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(d), Ok(p)) = (std::fs::metadata(dir), std::fs::metadata(dir.join("..")))
            && (d.dev() != p.dev() || d.ino() == p.ino())
        {
            return true;
        }
        let (Ok(canonical), Ok(info)) = (
            std::fs::canonicalize(dir),
            std::fs::read_to_string("/proc/self/mountinfo"),
        ) else {
            return false;
        };
        // Field 5 of each line is the mount point, with space, tab, newline and backslash
        // written as octal escapes (\040).
        info.lines()
            .filter_map(|l| l.split(' ').nth(4))
            .any(|m| std::path::Path::new(&unescape_octal(m)) == canonical)
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        false
    }
}

/// `\ooo` octal escapes of `/proc/self/mountinfo` decoded.
#[cfg(unix)]
fn unescape_octal(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escaped = bytes[i] == b'\\'
            && i + 3 < bytes.len()
            && bytes[i + 1..i + 4]
                .iter()
                .all(|b| (b'0'..=b'7').contains(b));
        let value = bytes[i + 1..(i + 4).min(bytes.len())]
            .iter()
            .fold(0u32, |v, b| v * 8 + u32::from(b.wrapping_sub(b'0')));
        if escaped && value <= 255 {
            out.push(value as u8);
            i += 4;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A progress bar on standard error for a long run: shown only when standard output is a
/// terminal and the run has taken more than a second.
pub struct Progress {
    bar: ProgressBar,
    start: Instant,
    shown: bool,
    enabled: bool,
}

impl Progress {
    /// A bar for `total` steps labelled `label`.
    pub fn new(total: usize, label: &str) -> Progress {
        let bar = ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::hidden());
        if let Ok(style) =
            ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len} steps, eta {eta}")
        {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_message(one_line(label));
        Progress {
            bar,
            start: Instant::now(),
            shown: false,
            enabled: std::io::stdout().is_terminal(),
        }
    }
    /// `done` steps taken.
    pub fn update(&mut self, done: usize) {
        if self.enabled && !self.shown && self.start.elapsed() > Duration::from_secs(1) {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
            self.shown = true;
        }
        if done.is_multiple_of(16) || self.shown {
            self.bar.set_position(done as u64);
        }
    }
    /// Clears the bar.
    pub fn finish(self) {
        self.bar.finish_and_clear();
    }
}
