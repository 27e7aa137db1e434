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

/// Every command that takes an output path, with `out` as that path (a directory, or for
/// `plot --out` and `view --screenshot` a PNG named `out` + `.png`); other files in `scratch`.
fn every_output_command(out: &Path, scratch: &Path) -> Vec<(&'static str, String, Command)> {
    let png = format!("{}.png", out.display());
    let dir = out.display().to_string();
    let sweep_file = scratch.join("sweep.toml");
    std::fs::write(
        &sweep_file,
        format!(
            "case = {:?}\nset = [\"time.duration=0.3\"]\n[[axis]]\nkey = \"friction.mu\"\nvalues = [0.1, 0.2]\n",
            case("slope_mu0.11.toml")
        ),
    )
    .unwrap();
    let mut run = bin();
    run.args(["run", case("slope_mu0.11.toml").to_str().unwrap()])
        .args(["--gpu", "off", "--duration", "0.1", "--out"])
        .arg(out);
    let mut rigid = bin();
    rigid
        .args(["run", case("football.toml").to_str().unwrap(), "--out"])
        .arg(out);
    let mut plot = bin();
    plot.args(["plot", "--duration", "0.1", "--out"]).arg(&png);
    let mut plot_data = bin();
    plot_data
        .args(["plot", "--duration", "0.1", "--out"])
        .arg(scratch.join("fig.png"))
        .arg("--data")
        .arg(out);
    let mut sweep = bin();
    sweep.arg("sweep").arg(&sweep_file).arg("--out").arg(out);
    let mut view = bin();
    view.args(["view", "--frames", "1", "--screenshot"])
        .arg(&png);
    vec![
        ("run", dir.clone(), run),
        ("run (rigid)", dir.clone(), rigid),
        ("plot --out", png.clone(), plot),
        ("plot --data", dir.clone(), plot_data),
        ("sweep --out", dir, sweep),
        ("view --screenshot", png, view),
    ]
}

/// An output path that cannot be written: exit 2 before anything runs, one line naming the path
/// given (not the hidden `.NAME.partial-PID` beside it) and the rule, and nothing left in the
/// parent directory. Before the fix a name that fits a file name but not the staging name, a
/// component over 255 bytes, and a directory that cannot be created in were exit 1 with an OS
/// message about the hidden staging path (or, for `plot --out`, after the whole run).
#[test]
fn an_out_path_that_cannot_be_written_is_exit_2_naming_the_path_given() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let scratch = tempfile::tempdir().unwrap();
    let mut bad: Vec<(PathBuf, &str)> = vec![
        // A valid file name (250 bytes), with no room left for its staging name.
        (d.join("n".repeat(250)), "bytes"),
        // A component longer than a file name can be.
        (d.join("m".repeat(300)).join("out"), "at most 255"),
        // A path longer than PATH_MAX.
        (
            (0..20).fold(d.to_path_buf(), |p, _| p.join("p".repeat(200))),
            "bytes long",
        ),
    ];
    // A directory nothing may be created in, even as root (CI runs as root, so a 0500
    // directory would not do there).
    let sys = PathBuf::from(format!("/sys/stickslip-issue41-{}", std::process::id()));
    if Path::new("/sys").is_dir() {
        bad.push((sys.clone(), "cannot be written"));
        bad.push((sys.join("sub"), "cannot be written"));
    }
    // And, where the tests do not run as root, a directory without write permission.
    #[cfg(unix)]
    let read_only = d.join("read_only");
    #[cfg(unix)]
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        use std::os::unix::fs::PermissionsExt;
        std::fs::create_dir(&read_only).unwrap();
        std::fs::set_permissions(&read_only, std::fs::Permissions::from_mode(0o500)).unwrap();
        bad.push((read_only.join("out"), "cannot be written"));
    }
    for (out, rule) in &bad {
        for (what, given, mut command) in every_output_command(out, scratch.path()) {
            // Where only trying tells (/sys takes no new file even from root, though access(2)
            // says it may be written), the viewer finds out when it saves the frame, after the
            // window: not tested here.
            if what == "view --screenshot" && *rule == "cannot be written" {
                continue;
            }
            let o = command.output().unwrap();
            let shown = format!("{what} into {}…", &given[..given.len().min(80)]);
            assert_refused(&o, &[given.as_str(), rule], &shown);
            let staging_named = stderr(&o).match_indices(".partial-").any(|(at, m)| {
                stderr(&o)[at + m.len()..].starts_with(|c: char| c.is_ascii_digit())
            });
            assert!(
                !staging_named,
                "{shown}: names the path given, not the staging path: {}",
                stderr(&o)
            );
            assert!(
                std::fs::symlink_metadata(Path::new(&given)).is_err(),
                "{shown}: nothing written"
            );
        }
        let left: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n != "read_only")
            .collect();
        assert!(left.is_empty(), "nothing left beside the output: {left:?}");
    }
    assert!(std::fs::symlink_metadata(&sys).is_err());
}
