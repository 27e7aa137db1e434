//! The shipped sweep (sweeps/stick_slip.toml) as a Slurm job array of 4 tasks, submitted with the
//! committed batch script (scripts/slurm/stick_slip_array.sbatch), gives the same map, cell for
//! cell, as one process running the whole sweep (issue 11, "Slurm for real").
//!
//! Each array task runs `stickslip sweep` without `--shard`: the binary takes its shard from
//! `SLURM_ARRAY_TASK_ID`/`SLURM_ARRAY_TASK_COUNT`, so this also checks that the four tasks split
//! the sweep between them (each task's log names its shard, and together they cover it) and that
//! the script's dependent collect job (`--dependency=afterok`) runs once the whole array has
//! succeeded and writes `map.csv`.
//!
//! Needs a Slurm controller that answers (`scripts/slurm/single_node.sh up` starts one on this
//! host; `.ci/run` does so). Without one the test fails, unless `STICKSLIP_ALLOW_SKIP=1` asks to
//! skip it knowingly (then it prints a notice and returns), the rule the GPU and window tests
//! follow (tests/common).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// The number of array tasks the issue asks for.
const TASKS: usize = 4;

/// How long the array and its collect job may take, queueing included. The shipped sweep runs in
/// well under a minute on 2 cores; ten minutes leaves room for a loaded CI machine without letting
/// a hung job hang the test suite.
const JOB_TIMEOUT: Duration = Duration::from_secs(600);

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn stickslip() -> Command {
    Command::new(env!("CARGO_BIN_EXE_stickslip"))
}

fn run(what: &str, command: &mut Command) -> Output {
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("{what}: could not start: {e}"));
    assert!(
        output.status.success(),
        "{what}: {}\nstdout:\n{}\nstderr:\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// `None` when `sbatch` is installed and a controller answers `scontrol ping`, else why not.
fn slurm_missing() -> Option<String> {
    // Started only to see that it exists: without a slurm.conf it fails, which `scontrol ping`
    // reports below in its own words.
    if let Err(e) = Command::new("sbatch").arg("--version").output() {
        return Some(format!("no `sbatch` on PATH ({e})"));
    }
    match Command::new("scontrol").arg("ping").output() {
        Err(e) => Some(format!("no `scontrol` on PATH ({e})")),
        Ok(out) => {
            let text = String::from_utf8_lossy(&out.stdout);
            if out.status.success() && text.contains("is UP") {
                None
            } else {
                let stderr = String::from_utf8_lossy(&out.stderr);
                let said = [text.trim(), stderr.lines().last().unwrap_or("").trim()];
                Some(format!(
                    "no Slurm controller answers (`scontrol ping`: {})",
                    said.iter()
                        .filter(|s| !s.is_empty())
                        .copied()
                        .collect::<Vec<_>>()
                        .join("; ")
                ))
            }
        }
    }
}

/// The ids of this test's jobs (by name) still queued or running.
fn queued(names: &str) -> Vec<String> {
    let out = run(
        "squeue",
        Command::new("squeue").args(["--noheader", "--format=%i %T", "--name", names]),
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Every `*.out` file in `dir`, for the failure messages.
fn logs(dir: &Path) -> String {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    paths.retain(|p| p.extension().is_some_and(|e| e == "out"));
    paths.sort();
    paths
        .iter()
        .map(|p| {
            let text = std::fs::read_to_string(p).unwrap_or_default();
            format!("--- {}\n{text}", p.display())
        })
        .collect()
}

/// The data rows of `map.csv`, header first, for a cell-for-cell comparison.
fn map_rows(dir: &Path) -> Vec<String> {
    let path = dir.join("map.csv");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines().map(str::to_owned).collect()
}

#[test]
fn a_job_array_of_four_gives_the_single_process_map_cell_for_cell() {
    let test = "slurm_array";
    if let Some(reason) = slurm_missing() {
        if !common::skip_allowed() {
            panic!(
                "{test}: {reason}. Start a single-node cluster with `sudo \
                 scripts/slurm/single_node.sh up` (Debian: apt-get install slurm-wlm munge), or \
                 set {}=1 to skip this test knowingly",
                common::ALLOW_SKIP_ENV
            );
        }
        let notice = format!(
            "\n!!!!!!!! {test}: SKIPPED ({}=1): {reason}.\n",
            common::ALLOW_SKIP_ENV
        );
        let _ = std::io::Write::write_all(&mut std::io::stderr(), notice.as_bytes());
        return;
    }

    // Under target/tmp: the batch jobs run on this host (single node) or on nodes that share the
    // checkout (a real cluster), so the directory must be one they all see.
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("slurm_array");
    if root.exists() {
        std::fs::remove_dir_all(&root).unwrap_or_else(|e| panic!("{}: {e}", root.display()));
    }
    std::fs::create_dir_all(&root).unwrap_or_else(|e| panic!("{}: {e}", root.display()));
    let sweep = repo().join("sweeps/stick_slip.toml");
    let single = root.join("single");
    let array = root.join("array");

    // The reference: the whole sweep in one process, then its map.
    run(
        "single-process sweep",
        stickslip()
            .arg("sweep")
            .arg(&sweep)
            .arg("--out")
            .arg(&single),
    );
    run(
        "single-process collect",
        stickslip().args(["sweep", "collect"]).arg(&single),
    );

    // The array, through the committed batch script; a job name of this run's own so that the
    // queue polling below sees only these jobs (the collect job is named NAME-collect).
    let name = format!("stickslip-test-{}", std::process::id());
    let started = Instant::now();
    let submitted = run(
        "sbatch",
        Command::new("sbatch")
            .arg("--parsable")
            .arg(format!("--array=0-{}", TASKS - 1))
            .arg(format!("--job-name={name}"))
            .arg("--chdir")
            .arg(&root)
            .arg("--output")
            .arg(root.join("slurm-%x-%A_%a.out"))
            .arg(repo().join("scripts/slurm/stick_slip_array.sbatch"))
            .env("STICKSLIP_BIN", env!("CARGO_BIN_EXE_stickslip"))
            .env("STICKSLIP_SWEEP", &sweep)
            .env("STICKSLIP_OUT", &array)
            .env_remove("STICKSLIP_COLLECT"),
    );
    let job = String::from_utf8_lossy(&submitted.stdout).trim().to_owned();
    let names = format!("{name},{name}-collect");
    // Wait until neither the array nor its collect job is queued or running. The first task
    // submits the collect job when it starts, before the array can leave the queue, so an empty
    // queue means both are done.
    loop {
        let left = queued(&names);
        if left.is_empty() {
            break;
        }
        if started.elapsed() > JOB_TIMEOUT {
            let _ = Command::new("scancel").args(["--name", &name]).status();
            let _ = Command::new("scancel")
                .args(["--name", &format!("{name}-collect")])
                .status();
            panic!(
                "{test}: job {job} not done after {JOB_TIMEOUT:?} (still queued: {left:?}); \
                 cancelled.\n{}",
                logs(&root)
            );
        }
        std::thread::sleep(Duration::from_millis(500));
    }

    // Each task ran its own shard, taken from the array's environment.
    let logs = logs(&root);
    for task in 0..TASKS {
        let log = root.join(format!("slurm-{name}-{job}_{task}.out"));
        let text = std::fs::read_to_string(&log)
            .unwrap_or_else(|e| panic!("{test}: task {task} left no log {}: {e}", log.display()));
        // `sweep` names its shard and where it came from (src/app/sweep_command.rs).
        let shard = format!("shard {task}/{TASKS} (Slurm job array)");
        assert!(
            text.contains(&shard),
            "{test}: task {task}'s log does not name `{shard}`:\n{logs}"
        );
    }

    // The collect job ran after the array (afterok: only if every task succeeded) and wrote the
    // map; collecting again here must agree and find no cell missing.
    assert!(
        array.join("map.csv").is_file(),
        "{test}: the collect job wrote no {}:\n{logs}",
        array.join("map.csv").display()
    );
    let from_collect_job = map_rows(&array);
    run(
        "collect of the array's cells",
        stickslip().args(["sweep", "collect"]).arg(&array),
    );
    let collected_here = map_rows(&array);
    assert_eq!(
        from_collect_job, collected_here,
        "{test}: the collect job's map.csv differs from collecting the same cells again"
    );

    // Cell for cell: map.csv holds only the columns a run determines (no wall time), so the
    // array's map must equal the single process's exactly, row for row.
    let reference = map_rows(&single);
    assert!(
        reference.len() > 1,
        "{test}: the single-process map.csv has no cells"
    );
    assert_eq!(
        reference.len(),
        collected_here.len(),
        "{test}: the single process mapped {} rows, the array {}",
        reference.len(),
        collected_here.len()
    );
    for (row, (a, b)) in reference.iter().zip(&collected_here).enumerate() {
        assert_eq!(
            a,
            b,
            "{test}: map.csv line {} differs (single process, then job array)",
            row + 1
        );
    }
}
