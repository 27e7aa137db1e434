//! Sharding and resuming a sweep (docs/sweeps.md), on a small sweep of 6 short cells:
//! * N shards cover every cell exactly once, for N = 1..7 (7 > 6 cells: one shard is empty),
//!   and every sharding gives the same map.csv byte for byte;
//! * shards started at the same time on one new directory (a job array) all succeed;
//! * a rerun after a killed shard (cell files missing, a stale temporary file) runs only the
//!   missing cells and leaves the finished ones untouched; a temporary file of a writer on
//!   another host stays;
//! * a corrupted cell file is reported by `collect` (exit 1) and run again by the sweep;
//! * a directory holding anything else, or another sweep, is refused with exit 2, untouched.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_stickslip"))
}

/// A sweep of 2 × 3 cells of the book's square at n_seg = 2 over 1.2 s (long enough for a
/// verdict's 1 s window), written into `dir`.
fn small_sweep(dir: &Path, duration: &str) -> PathBuf {
    let case = Path::new(env!("CARGO_MANIFEST_DIR")).join("cases/slope_mu0.11.toml");
    let path = dir.join("small.toml");
    std::fs::write(
        &path,
        format!(
            "case = {case:?}\nset = [\"square.n_seg=2\", \"time.duration={duration}\"]\n\n[[axis]]\nkey = \"slope.tan_theta\"\nvalues = [0.1, 0.3]\n\n[[axis]]\nkey = \"friction.mu\"\nfrom = 0.05\nto = 0.45\ncount = 3\n"
        ),
    )
    .unwrap();
    path
}

const CELLS: usize = 6;

/// The stamp (`BOOT.NS.PID.START`, `stickslip::process_stamp`) of a process of this host that
/// has ended: a `true` that was waited for.
fn stamp_of_an_ended_process() -> String {
    let me = stickslip::process_stamp::ProcessStamp::current().expect("Linux has /proc");
    let mut child = Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    stickslip::process_stamp::ProcessStamp { pid, ..me }.token()
}

fn sweep(file: &Path, out: &Path, extra: &[&str]) -> Output {
    bin()
        .arg("sweep")
        .arg(file)
        .arg("--out")
        .arg(out)
        .args(extra)
        .env_remove("SLURM_ARRAY_TASK_ID")
        .env_remove("JOB_COMPLETION_INDEX")
        .output()
        .unwrap()
}

fn collect(out: &Path) -> Output {
    bin().args(["sweep", "collect"]).arg(out).output().unwrap()
}

fn ok(o: &Output) -> String {
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(
        o.status.success(),
        "{err}{}",
        String::from_utf8_lossy(&o.stdout)
    );
    err
}

/// The number of cells the sweep's final line says it ran.
fn ran(stderr: &str) -> usize {
    let at = stderr.find("; ran ").expect(stderr) + "; ran ".len();
    stderr[at..].split(' ').next().unwrap().parse().unwrap()
}

fn cell_files(out: &Path) -> BTreeSet<String> {
    std::fs::read_dir(out.join("cells"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json") && !n.starts_with('.'))
        .collect()
}

#[test]
fn shards_cover_every_cell_once_and_agree_with_one_process() {
    let tmp = tempfile::tempdir().unwrap();
    let file = small_sweep(tmp.path(), "1.2");
    let mut reference: Option<String> = None;
    for n in 1..=7usize {
        let out = tmp.path().join(format!("n{n}"));
        let mut seen = BTreeSet::new();
        let mut total_ran = 0;
        for i in 0..n {
            let before = if out.exists() {
                cell_files(&out)
            } else {
                BTreeSet::new()
            };
            let err = ok(&sweep(
                &file,
                &out,
                &["--shard", &format!("{i}/{n}"), "--jobs", "2"],
            ));
            let new: BTreeSet<String> = cell_files(&out).difference(&before).cloned().collect();
            assert_eq!(new.len(), ran(&err), "shard {i}/{n}: {err}");
            assert!(
                seen.is_disjoint(&new),
                "shard {i}/{n} ran a cell twice: {new:?}"
            );
            seen.extend(new);
            total_ran += ran(&err);
        }
        assert_eq!(seen.len(), CELLS, "N = {n}");
        assert_eq!(total_ran, CELLS, "N = {n}");
        ok(&collect(&out));
        let csv = std::fs::read_to_string(out.join("map.csv")).unwrap();
        assert_eq!(csv.lines().count(), CELLS + 1);
        match &reference {
            None => reference = Some(csv),
            Some(r) => assert_eq!(&csv, r, "map.csv of {n} shards differs from 1 shard's"),
        }
    }
}

#[test]
fn concurrent_shards_share_one_new_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let file = small_sweep(tmp.path(), "1.2");
    let out = tmp.path().join("array/out");
    let children: Vec<_> = (0..4)
        .map(|i| {
            bin()
                .arg("sweep")
                .arg(&file)
                .arg("--out")
                .arg(&out)
                .args(["--jobs", "1"])
                .env("SLURM_ARRAY_TASK_ID", (i + 1).to_string())
                .env("SLURM_ARRAY_TASK_MIN", "1")
                .env("SLURM_ARRAY_TASK_COUNT", "4")
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut total = 0;
    for c in children {
        let o = c.wait_with_output().unwrap();
        let err = ok(&o);
        assert!(err.contains("Slurm job array"), "{err}");
        total += ran(&err);
    }
    assert_eq!(total, CELLS);
    ok(&collect(&out));
    // Nothing but the sweep's files: no staging directory left beside DIR.
    let beside: Vec<_> = std::fs::read_dir(tmp.path().join("array"))
        .unwrap()
        .collect();
    assert_eq!(beside.len(), 1);
}

#[test]
fn a_rerun_finishes_only_missing_cells_and_a_corrupt_cell_is_rerun() {
    let tmp = tempfile::tempdir().unwrap();
    let file = small_sweep(tmp.path(), "1.2");
    let out = tmp.path().join("out");
    assert_eq!(ran(&ok(&sweep(&file, &out, &[]))), CELLS);
    ok(&collect(&out));
    let reference = std::fs::read_to_string(out.join("map.csv")).unwrap();
    let cells = out.join("cells");
    let files: Vec<String> = cell_files(&out).into_iter().collect();
    let contents = |name: &str| std::fs::read(cells.join(name)).unwrap();
    let mtime = |name: &str| {
        std::fs::metadata(cells.join(name))
            .unwrap()
            .modified()
            .unwrap()
    };
    let kept: Vec<_> = files[2..]
        .iter()
        .map(|n| (n.clone(), contents(n), mtime(n)))
        .collect();

    // A killed shard: two cells never written, one left as a temporary file, whose name
    // carries its writer's stamp: this boot and PID namespace, and a process that has ended.
    std::fs::remove_file(cells.join(&files[0])).unwrap();
    std::fs::remove_file(cells.join(&files[1])).unwrap();
    let stale = cells.join(format!(
        ".{}.partial-{}-0",
        files[0],
        stamp_of_an_ended_process()
    ));
    std::fs::write(&stale, "{\"id\": ").unwrap();
    // The same of a writer on another host (another boot id): it may still be writing, and
    // stays (issue 23).
    let elsewhere = cells.join(format!(
        ".{}.partial-00000000-0000-0000-0000-000000000000.4026531836.4242.1-0",
        files[0]
    ));
    std::fs::write(&elsewhere, "{\"id\": ").unwrap();
    let o = collect(&out);
    assert_eq!(o.status.code(), Some(1));
    let report = String::from_utf8_lossy(&o.stdout);
    let first = files[0].trim_end_matches(".json");
    assert!(
        report.contains("2 missing") && report.contains(first),
        "{report}"
    );

    let err = ok(&sweep(&file, &out, &[]));
    assert_eq!(ran(&err), 2, "{err}");
    assert!(err.contains("skipped 4 already finished"), "{err}");
    assert!(!stale.exists(), "the stale temporary file is removed");
    assert!(elsewhere.exists(), "another host's temporary file stays");
    std::fs::remove_file(&elsewhere).unwrap();
    for (name, bytes, time) in &kept {
        assert_eq!(&contents(name), bytes, "{name} rewritten");
        assert_eq!(&mtime(name), time, "{name} touched");
    }
    ok(&collect(&out));
    assert_eq!(
        std::fs::read_to_string(out.join("map.csv")).unwrap(),
        reference
    );

    // A corrupted cell file: truncated JSON.
    let victim = cells.join(&files[3]);
    let whole = std::fs::read(&victim).unwrap();
    std::fs::write(&victim, &whole[..whole.len() / 2]).unwrap();
    let o = collect(&out);
    assert_eq!(o.status.code(), Some(1));
    let report = String::from_utf8_lossy(&o.stdout);
    let name = files[3].trim_end_matches(".json");
    assert!(report.contains(&format!("corrupt: {name}")), "{report}");
    let csv = std::fs::read_to_string(out.join("map.csv")).unwrap();
    assert!(
        csv.contains(&format!("{name},")) && csv.contains(",corrupt,"),
        "{csv}"
    );
    let err = ok(&sweep(&file, &out, &[]));
    assert_eq!(ran(&err), 1, "{err}");
    ok(&collect(&out));
    assert_eq!(
        std::fs::read_to_string(out.join("map.csv")).unwrap(),
        reference
    );
}

#[test]
fn a_directory_that_is_not_this_sweeps_is_refused_untouched() {
    let tmp = tempfile::tempdir().unwrap();
    let file = small_sweep(tmp.path(), "1.2");
    // The user's files.
    let theirs = tmp.path().join("theirs");
    std::fs::create_dir(&theirs).unwrap();
    std::fs::write(theirs.join("notes.txt"), "mine").unwrap();
    let o = sweep(&file, &theirs, &[]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("notes.txt"), "{err}");
    let left: Vec<_> = std::fs::read_dir(&theirs).unwrap().collect();
    assert_eq!(left.len(), 1);
    assert_eq!(
        std::fs::read_to_string(theirs.join("notes.txt")).unwrap(),
        "mine"
    );

    // Another sweep: the same grid over a different duration.
    let out = tmp.path().join("out");
    ok(&sweep(&file, &out, &["--shard", "0/3"]));
    let before = cell_files(&out);
    let other = small_sweep(tmp.path(), "1.3");
    let o = sweep(&other, &out, &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("holds another sweep"));
    assert_eq!(cell_files(&out), before);
}

#[test]
fn a_failed_cell_is_recorded_and_the_sweep_goes_on() {
    let tmp = tempfile::tempdir().unwrap();
    let case = Path::new(env!("CARGO_MANIFEST_DIR")).join("cases/slope_mu0.11.toml");
    let file = tmp.path().join("fails.toml");
    // One Newton iteration a step cannot resolve the landing (SPEC.md §1: up to 6 in a step):
    // that cell's run fails; the cell with the book's 100 must still run.
    std::fs::write(
        &file,
        format!(
            "case = {case:?}\nset = [\"square.n_seg=2\", \"time.duration=1.2\"]\n\n[[axis]]\nkey = \"newton.max_iterations\"\nvalues = [1, 100]\n"
        ),
    )
    .unwrap();
    let out = tmp.path().join("out");
    let err = ok(&sweep(&file, &out, &["--jobs", "2"]));
    assert!(err.contains("ran 2 (1 failed)"), "{err}");
    let o = collect(&out);
    let report = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "a failed cell is a result: {report}");
    assert!(
        report.contains("1 done, 1 failed") && report.contains("failed: c0000: "),
        "{report}"
    );
    let csv = std::fs::read_to_string(out.join("map.csv")).unwrap();
    let rows: Vec<&str> = csv.lines().collect();
    assert!(rows[1].starts_with("c0000,1,failed,"), "{csv}");
    assert!(rows[2].starts_with("c0001,100,done,"), "{csv}");
    // A rerun does not run a failed cell again: its failure is its result.
    assert_eq!(ran(&ok(&sweep(&file, &out, &[]))), 0);
}
