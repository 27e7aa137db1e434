//! Runs cells on worker threads (std scoped threads pulling the next cell from a shared
//! counter), each cell's file written by its worker as soon as it ends, with a progress bar on
//! stderr: cells done, failed, ETA. The bar is drawn only when stderr is a terminal; otherwise
//! the pool is quiet and the caller prints one final line.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::SweepError;
use super::dir::{CellRecord, Outcome, SweepDir};

/// What a pool run did.
#[derive(Debug, Default)]
pub struct PoolReport {
    /// Cells run and written.
    pub ran: usize,
    /// Of which failed (recorded with their error).
    pub failed: usize,
    /// Cell files that could not be written (the run's error).
    pub write_errors: Vec<SweepError>,
    /// Wall time, s.
    pub seconds: f64,
}

/// Runs `run(k)` for every k in `0..count` on `jobs` threads and writes each record into `dir`
/// as it ends. `run` must not panic for a bad cell: it records the error in the outcome
/// (the caller catches panics).
pub fn run_cells<F>(dir: &SweepDir, count: usize, jobs: usize, label: &str, run: F) -> PoolReport
where
    F: Fn(usize) -> CellRecord + Sync,
{
    let clock = Instant::now();
    let bar = ProgressBar::with_draw_target(Some(count as u64), ProgressDrawTarget::hidden());
    if std::io::stderr().is_terminal() {
        bar.set_draw_target(ProgressDrawTarget::stderr());
    }
    if let Ok(style) =
        ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} cells, {msg}, eta {eta}")
    {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_prefix(label.to_string());
    bar.set_message("0 failed");
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel::<(bool, Option<SweepError>)>();
    let mut report = PoolReport::default();
    std::thread::scope(|scope| {
        for _ in 0..jobs.clamp(1, count.max(1)) {
            let tx = tx.clone();
            let (next, run) = (&next, &run);
            scope.spawn(move || {
                loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    if k >= count {
                        break;
                    }
                    let record = run(k);
                    let failed = matches!(record.outcome, Outcome::Failed { .. });
                    let written = dir.write_cell(&record).err();
                    if tx.send((failed, written)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        for (failed, write_error) in rx {
            report.ran += 1;
            report.failed += usize::from(failed);
            report.write_errors.extend(write_error);
            bar.set_message(format!("{} failed", report.failed));
            bar.inc(1);
        }
    });
    bar.finish_and_clear();
    report.seconds = clock.elapsed().as_secs_f64();
    report
}
