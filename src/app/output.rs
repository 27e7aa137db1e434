//! Output files of a run, written into a temporary directory beside the target and renamed into
//! place only when everything is written: a failed run leaves nothing behind and overwrites
//! nothing the user had.

use std::fs;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::app::runner::{Summary, TrajectoryRow};
use crate::energy::Vec2;

/// An output error, naming the path.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {source}")]
pub struct OutputError {
    /// The file or directory.
    pub path: PathBuf,
    /// Cause.
    pub source: std::io::Error,
}

fn io<T>(path: &Path, r: std::io::Result<T>) -> Result<T, OutputError> {
    r.map_err(|source| OutputError {
        path: path.to_path_buf(),
        source,
    })
}

/// A directory being written: `DIR.partial-PID` until [`StagedDir::commit`] renames it to `DIR`.
/// Dropped without commit, it is removed.
pub struct StagedDir {
    target: PathBuf,
    staging: PathBuf,
    committed: bool,
}

impl StagedDir {
    /// Creates the staging directory beside `target`.
    pub fn new(target: &Path) -> Result<StagedDir, OutputError> {
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "out".into());
        let parent = target
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        io(parent, fs::create_dir_all(parent))?;
        let staging = parent.join(format!(".{name}.partial-{}", std::process::id()));
        if staging.exists() {
            io(&staging, fs::remove_dir_all(&staging))?;
        }
        io(&staging, fs::create_dir(&staging))?;
        Ok(StagedDir {
            target: target.to_path_buf(),
            staging,
            committed: false,
        })
    }

    /// Path of a file inside the staging directory.
    pub fn file(&self, name: &str) -> PathBuf {
        self.staging.join(name)
    }

    /// Moves the staged directory to the target, replacing a previous output directory there.
    pub fn commit(mut self) -> Result<PathBuf, OutputError> {
        if self.target.exists() {
            let old = self.staging.with_extension("old");
            io(&self.target, fs::rename(&self.target, &old))?;
            io(&self.target, fs::rename(&self.staging, &self.target))?;
            io(&old, fs::remove_dir_all(&old))?;
        } else {
            io(&self.target, fs::rename(&self.staging, &self.target))?;
        }
        self.committed = true;
        Ok(self.target.clone())
    }
}

impl Drop for StagedDir {
    fn drop(&mut self) {
        if !self.committed {
            let _ = fs::remove_dir_all(&self.staging);
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
