//! Issue 41, item 4 (names and outputs): a previous output is replaced only while every file in
//! it is the one stickslip wrote (its marker records each file's SHA-256), and a `--out` path
//! that cannot be written is refused with exit 2 on one line naming the path given, not the
//! hidden staging path. Each test fails on the code before the fix.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_stickslip"));
    for v in [
        "SLURM_ARRAY_TASK_ID",
        "SLURM_ARRAY_TASK_COUNT",
        "SLURM_ARRAY_TASK_MIN",
        "SLURM_ARRAY_TASK_MAX",
        "SLURM_ARRAY_TASK_STEP",
        "JOB_COMPLETION_INDEX",
        "STICKSLIP_SHARD_COUNT",
        "STICKSLIP_GPU_BACKENDS",
    ] {
        c.env_remove(v);
    }
    c
}

fn case(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("cases")
        .join(name)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A short slope run into `out`.
fn run_slope(out: &Path) -> Output {
    bin()
        .args(["run", case("slope_mu0.11.toml").to_str().unwrap()])
        .args(["--gpu", "off", "--duration", "0.1", "--out"])
        .arg(out)
        .output()
        .unwrap()
}

/// Exit code 2 and one line on stderr saying every one of `needles`.
fn assert_refused(o: &Output, needles: &[&str], what: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(2), "{what}: exit code; {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{what}: one line: {err}");
    for n in needles {
        assert!(err.contains(n), "{what}: says `{n}`: {err}");
    }
}

/// Everything under `dir` (not following links): each path with its bytes, a link's target, or
/// `<dir>`.
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let e = e.unwrap();
            let path = e.path();
            let rel = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let kind = e.file_type().unwrap();
            if kind.is_symlink() {
                let target = std::fs::read_link(&path).unwrap();
                out.insert(rel, format!("<link {}>", target.display()).into_bytes());
            } else if kind.is_dir() {
                out.insert(rel, b"<dir>".to_vec());
                walk(root, &path, out);
            } else {
                out.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// No staging (`.NAME.partial-…`) or backup (`.NAME.old-…`) directory left in `parent`.
fn assert_no_staging(parent: &Path, what: &str) {
    let left: Vec<String> = std::fs::read_dir(parent)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".partial-") || n.contains(".old-"))
        .collect();
    assert!(left.is_empty(), "{what}: staging left: {left:?}");
}

/// A file of a previous output that the user changed (same length, one byte different) is
/// theirs: `run` and `plot --data` refuse the directory (exit 2, one line naming it, the file
/// and the rule) and touch nothing; put back as it was, the output is replaced again. Before
/// the fix the marker listed names only, and the edited file was replaced (exit 0).
#[test]
fn a_file_changed_since_it_was_written_is_the_users_and_never_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let o = run_slope(&out);
    assert!(o.status.success(), "{}", stderr(&o));
    let marker: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join(".stickslip-output")).unwrap())
            .unwrap();
    let original = std::fs::read(out.join("trajectory.csv")).unwrap();
    assert_eq!(
        marker["sha256"]["trajectory.csv"].as_str().map(str::len),
        Some(64),
        "the marker records the file's SHA-256: {marker}"
    );
    // The same length, one digit changed: a content check, not a size check.
    let mut edited = original.clone();
    let at = edited.iter().rposition(u8::is_ascii_digit).unwrap();
    edited[at] = if edited[at] == b'7' { b'8' } else { b'7' };
    std::fs::write(out.join("trajectory.csv"), &edited).unwrap();
    let before = snapshot(&out);
    let o = run_slope(&out);
    assert_refused(
        &o,
        &[
            out.to_str().unwrap(),
            "trajectory.csv",
            "changed",
            "SHA-256",
        ],
        "run over an edited output",
    );
    assert_eq!(snapshot(&out), before, "the edited output untouched");
    assert_no_staging(dir.path(), "run over an edited output");

    // `plot --data` keeps the same rule for its data directory (and writes no figure).
    let data = dir.path().join("data");
    let fig = dir.path().join("fig.png");
    let plot = |fig: &Path| {
        bin()
            .args(["plot", "--duration", "0.1", "--out"])
            .arg(fig)
            .arg("--data")
            .arg(&data)
            .output()
            .unwrap()
    };
    let o = plot(&fig);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut table = std::fs::read(data.join("slope_mu0.11.csv")).unwrap();
    table.push(b'\n');
    std::fs::write(data.join("slope_mu0.11.csv"), &table).unwrap();
    let before = snapshot(&data);
    let fig2 = dir.path().join("fig2.png");
    let o = plot(&fig2);
    assert_refused(
        &o,
        &[data.to_str().unwrap(), "slope_mu0.11.csv", "changed"],
        "plot --data over edited data",
    );
    assert_eq!(snapshot(&data), before, "the edited data untouched");
    assert!(!fig2.exists(), "no figure written");
    assert_no_staging(dir.path(), "plot --data over edited data");

    // Put back byte for byte, the file is stickslip's again: replaced.
    std::fs::write(out.join("trajectory.csv"), &original).unwrap();
    let o = run_slope(&out);
    assert!(o.status.success(), "restored: replaced; {}", stderr(&o));
}

/// A file of a previous output that is now a directory or a link (to a file of the user's
/// elsewhere) is refused naming it, and nothing is touched.
#[cfg(unix)]
#[test]
fn a_listed_file_turned_into_a_link_or_a_directory_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let o = run_slope(&out);
    assert!(o.status.success(), "{}", stderr(&o));
    let precious = dir.path().join("precious.csv");
    std::fs::write(&precious, b"mine\n").unwrap();
    std::fs::remove_file(out.join("trajectory.csv")).unwrap();
    std::os::unix::fs::symlink(&precious, out.join("trajectory.csv")).unwrap();
    let before = snapshot(&out);
    let o = run_slope(&out);
    assert_refused(
        &o,
        &[
            out.to_str().unwrap(),
            "trajectory.csv is now a symbolic link",
        ],
        "a listed file now a link",
    );
    assert_eq!(snapshot(&out), before);
    assert_eq!(std::fs::read(&precious).unwrap(), b"mine\n");

    std::fs::remove_file(out.join("trajectory.csv")).unwrap();
    std::fs::create_dir(out.join("trajectory.csv")).unwrap();
    std::fs::write(out.join("trajectory.csv").join("notes.txt"), b"mine\n").unwrap();
    let before = snapshot(&out);
    let o = run_slope(&out);
    assert_refused(
        &o,
        &[out.to_str().unwrap(), "trajectory.csv is now a directory"],
        "a listed file now a directory",
    );
    assert_eq!(snapshot(&out), before);
    assert_no_staging(dir.path(), "a listed file turned into something else");
}

/// An output whose marker records no hashes (as versions before them wrote it) cannot be
/// checked, so it is not replaced: exit 2 naming it and the rule, nothing touched. Before the fix
/// it was replaced.
#[test]
fn an_output_whose_marker_records_no_hashes_is_not_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let o = run_slope(&out);
    assert!(o.status.success(), "{}", stderr(&o));
    let marker_path = out.join(".stickslip-output");
    let mut marker: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&marker_path).unwrap()).unwrap();
    marker.as_object_mut().unwrap().remove("sha256");
    std::fs::write(&marker_path, serde_json::to_string_pretty(&marker).unwrap()).unwrap();
    let before = snapshot(&out);
    let o = run_slope(&out);
    assert_refused(
        &o,
        &[out.to_str().unwrap(), "records no content hashes"],
        "an output of an older version",
    );
    assert_eq!(snapshot(&out), before);
    assert_no_staging(dir.path(), "an output of an older version");
}
