//! Parameter sweeps: many runs of one case over a grid of case keys, run in parallel, resumable
//! and shardable over the tasks of a job array (docs/sweeps.md).
//!
//! * [`file`](mod@file): the sweep file (a base case, fixed overrides, axes), parsed strictly
//!   and expanded into cells, every cell's scene validated before anything runs.
//! * [`shard`]: which slice of the cells a process runs (`--shard I/N`, Slurm, Kubernetes).
//! * [`dir`]: the sweep directory, its manifest `sweep.json` (created race-free by concurrent
//!   shards) and the cell files `cells/<id>.json`, each written atomically.
//! * [`pool`]: runs cells on worker threads with a progress bar.
//! * [`collect`]: merges the cell files into `map.csv` and reports missing, corrupt and failed
//!   cells.
//!
//! The map figure drawn from `map.csv`'s cells (`map.png`) is the front-end's
//! (`stickslip::sweep_map`, with plotters): this crate draws nothing.
//!
//! This module does not run the solver itself: the caller (the front-end's `sweep` command,
//! `stickslip::app::sweep_command`) hands [`pool::run_cells`] the function that runs one cell,
//! so that `sweep` depends on `scene` but not on the command line, and the module graph keeps no
//! cycle.

pub mod collect;
pub mod dir;
pub mod file;
pub mod pool;
pub mod shard;

use std::path::PathBuf;

/// Errors of a sweep. [`SweepError::exit_code`]: 2 for bad input (sweep file, options, a
/// directory that is not the sweep's), 1 for failures while running or writing.
#[derive(Debug, thiserror::Error)]
pub enum SweepError {
    /// The sweep file breaks a rule: names the file, the key and the rule.
    #[error("{file}: key `{key}`: {rule}")]
    Invalid {
        /// The sweep file.
        file: PathBuf,
        /// The offending key of the sweep file (`axis[1].count`, `case`, `set`, …).
        key: String,
        /// The rule broken.
        rule: String,
    },
    /// An axis of the sweep file is wrong, or one of its values is rejected by the case.
    #[error("{file}: axis {number} `{key}`: {rule}")]
    Axis {
        /// The sweep file.
        file: PathBuf,
        /// The axis' position in the file, from 1.
        number: usize,
        /// The axis' key (`friction.mu`).
        key: String,
        /// What is wrong.
        rule: String,
    },
    /// A bad `--shard`, `--jobs` or shard environment variable.
    #[error("{option}: {rule} (got {value})")]
    Option {
        /// The option or environment variable.
        option: String,
        /// The rule.
        rule: String,
        /// What was given.
        value: String,
    },
    /// The output directory is not this sweep's to write into.
    #[error("sweep directory {}: {what}; nothing was written", path.display())]
    Refused {
        /// The directory.
        path: PathBuf,
        /// What is there and why it is refused.
        what: String,
    },
    /// Reading or writing failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// Cause.
        source: std::io::Error,
    },
    /// `collect` found cells without a valid result.
    #[error("{}: {missing} of {total} cells have no valid result ({ids}); run the sweep again (it runs only those)", dir.display())]
    Incomplete {
        /// The sweep directory.
        dir: PathBuf,
        /// Cells missing or corrupt.
        missing: usize,
        /// All cells.
        total: usize,
        /// The first few of their ids.
        ids: String,
    },
}

impl SweepError {
    /// 2 for bad input, 1 for failures.
    pub fn exit_code(&self) -> i32 {
        match self {
            SweepError::Invalid { .. }
            | SweepError::Axis { .. }
            | SweepError::Option { .. }
            | SweepError::Refused { .. } => 2,
            SweepError::Io { .. } | SweepError::Incomplete { .. } => 1,
        }
    }
}

/// `r` with an I/O error named by `path`.
pub(crate) fn io<T>(path: &std::path::Path, r: std::io::Result<T>) -> Result<T, SweepError> {
    r.map_err(|source| SweepError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// Up to `n` of `ids`, joined, with the count of the rest.
pub fn some_ids(ids: &[String], n: usize) -> String {
    let mut s = ids.iter().take(n).cloned().collect::<Vec<_>>().join(", ");
    if ids.len() > n {
        s.push_str(&format!(", and {} more", ids.len() - n));
    }
    s
}
