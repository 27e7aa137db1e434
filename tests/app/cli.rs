//! The command line: bad input is refused with exit code 2, one line naming the key, and no
//! output left behind; `run` writes its files; a failed run overwrites nothing.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_stickslip"))
}

fn reference_case() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("cases/slope_mu0.11.toml"))
        .unwrap()
}

/// `text` with the first line starting with `key =` replaced by `key = value`.
fn with_value(key: &str, value: &str) -> String {
    let text = reference_case();
    let mut done = false;
    let out: Vec<String> = text
        .lines()
        .map(|l| {
            if !done && l.trim_start().starts_with(&format!("{key} =")) {
                done = true;
                format!("{key} = {value}")
            } else {
                l.to_string()
            }
        })
        .collect();
    assert!(done, "key {key} is in the reference case");
    out.join("\n")
}

fn run_with(text: &str, dir: &Path) -> (Output, PathBuf) {
    run_with_args(text, dir, &["--duration", "0.5"])
}

/// Runs `text` as `dir/case.toml` into `dir/out` with `--gpu off` and `args`.
fn run_with_args(text: &str, dir: &Path, args: &[&str]) -> (Output, PathBuf) {
    let case = dir.join("case.toml");
    std::fs::write(&case, text).unwrap();
    let out_dir = dir.join("out");
    let out = bin()
        .args(["run", case.to_str().unwrap(), "--gpu", "off"])
        .args(args)
        .arg("--out")
        .arg(&out_dir)
        .output()
        .unwrap();
    (out, out_dir)
}

fn assert_refused(text: &str, key: &str, what: &str) {
    assert_refused_with(text, &["--duration", "0.5"], key, what);
}

/// `text` run with `args` exits 2 with one line naming `key` and the file, writing nothing.
fn assert_refused_with(text: &str, args: &[&str], key: &str, what: &str) {
    let dir = tempfile::tempdir().unwrap();
    let (out, out_dir) = run_with_args(text, dir.path(), args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{what}: exit code; stderr: {stderr}"
    );
    assert_eq!(
        stderr.trim_end().lines().count(),
        1,
        "{what}: one line: {stderr}"
    );
    assert!(stderr.contains(key), "{what}: names `{key}`: {stderr}");
    assert!(
        stderr.contains("case.toml") || key.starts_with("--"),
        "{what}: names the file (or the option): {stderr}"
    );
    assert!(!out_dir.exists(), "{what}: no output directory");
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        left,
        vec![std::ffi::OsString::from("case.toml")],
        "{what}: nothing else written"
    );
}

#[test]
fn bad_input_is_refused_with_exit_code_2_and_the_key() {
    assert_refused("[square\nside = 1", "(document)", "malformed TOML");
    assert_refused(
        &format!("{}\nfudge = 3\n", reference_case()),
        "fudge",
        "unknown key",
    );
    assert_refused(&with_value("mu", "-0.1"), "friction.mu", "negative mu");
    assert_refused(&with_value("h", "0.0"), "time.h", "zero h");
    assert_refused(&with_value("h", "nan"), "time.h", "NaN h");
    assert_refused(
        &with_value("normal", "[0.0, 0.0]"),
        "slope.normal",
        "zero normal",
    );
    assert_refused(&with_value("dhat", "0.0"), "barrier.dhat", "zero dhat");
    assert_refused(
        &with_value("dhat", "-0.01"),
        "barrier.dhat",
        "negative dhat",
    );
    assert_refused(&with_value("kappa", "0.0"), "barrier.kappa", "zero kappa");
    assert_refused(
        &with_value("kappa", "-1.0"),
        "barrier.kappa",
        "negative kappa",
    );
    assert_refused(&with_value("n_seg", "0"), "square.n_seg", "n_seg = 0");
    assert_refused(
        &with_value("centre", "[0.0, -1.2]"),
        "square.centre",
        "square through the slope",
    );
    assert_refused(
        &with_value("n_seg", "\"four\""),
        "square.n_seg",
        "wrong type",
    );
}

#[test]
fn run_writes_trajectory_summary_and_obj() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("o");
    let case = Path::new(env!("CARGO_MANIFEST_DIR")).join("cases/slope_mu0.20.toml");
    let out = bin()
        .args([
            "run",
            case.to_str().unwrap(),
            "--gpu",
            "off",
            "--duration",
            "0.5",
            "--obj",
            "--out",
        ])
        .arg(&out_dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows = stickslip::app::output::read_trajectory(&out_dir.join("trajectory.csv")).unwrap();
    assert_eq!(rows.len(), 51, "t = 0 and 50 steps");
    assert!((rows[50].t - 0.5).abs() < 1e-12);
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary["solver"]["steps"], 50);
    assert_eq!(summary["mu"], 0.2);
    assert!(
        summary["cross_check"]["backend"]
            .as_str()
            .unwrap()
            .starts_with("cpu")
    );
    let objs = std::fs::read_dir(&out_dir)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "obj")
        })
        .count();
    assert_eq!(objs, 51);
    let frame = std::fs::read_to_string(out_dir.join("frame_00050.obj")).unwrap();
    assert_eq!(frame.lines().filter(|l| l.starts_with("v ")).count(), 25);
    assert_eq!(frame.lines().filter(|l| l.starts_with("f ")).count(), 32);
}

#[test]
fn a_failed_run_leaves_the_previous_output_alone() {
    let dir = tempfile::tempdir().unwrap();
    // A previous output (the only kind of existing directory a run may replace).
    let (first, out_dir) = run_with(&reference_case(), dir.path());
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let previous = std::fs::read(out_dir.join("trajectory.csv")).unwrap();
    // One Newton iteration a step cannot reach tol = 1e-9 once the square lands: a solver
    // error with diagnostics, exit code 1.
    let text = with_value("max_iterations", "1");
    let case = dir.path().join("case.toml");
    std::fs::write(&case, text).unwrap();
    let out = bin()
        .args([
            "run",
            case.to_str().unwrap(),
            "--gpu",
            "off",
            "--tol",
            "1e-9",
            "--out",
        ])
        .arg(&out_dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("did not converge") && stderr.contains("step"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read(out_dir.join("trajectory.csv")).unwrap(),
        previous
    );
    let left = std::fs::read_dir(dir.path()).unwrap().count();
    assert_eq!(
        left, 2,
        "case.toml and out/ only: no staging directory left"
    );
}

#[test]
fn gpu_on_without_an_adapter_fails_clearly() {
    let case = Path::new(env!("CARGO_MANIFEST_DIR")).join("cases/slope_mu0.11.toml");
    let out = bin()
        .env("STICKSLIP_GPU_BACKENDS", "none")
        .args([
            "check",
            case.to_str().unwrap(),
            "--gpu",
            "on",
            "--duration",
            "0.1",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("no GPU adapter") || stderr.contains("adapter"),
        "{stderr}"
    );
    assert!(stderr.contains("--gpu off"), "says the way out: {stderr}");
    // With `auto` the same mask falls back to the CPU law and the check still runs.
    let out = bin()
        .env("STICKSLIP_GPU_BACKENDS", "none")
        .args([
            "check",
            case.to_str().unwrap(),
            "--gpu",
            "auto",
            "--duration",
            "0.5",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("cpu"));
}

#[test]
fn default_run_prints_the_verdict_table() {
    let out = bin().args(["--gpu", "off"]).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let line = |mu: &str| {
        text.lines()
            .find(|l| l.starts_with(&format!("{mu} ")))
            .unwrap_or_else(|| panic!("row for mu {mu} in:\n{text}"))
            .to_string()
    };
    assert!(line("0.1").contains("sliding"), "{text}");
    assert!(line("0.11").contains("stopped at t ="), "{text}");
    assert!(line("0.2").contains("stopped at t ="), "{text}");
}

/// Every entry of `dir`, sorted, as names.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Bytes no stickslip output could contain, to compare a user's file byte for byte.
fn precious_bytes() -> Vec<u8> {
    (0..=255u8).cycle().take(4099).collect()
}

fn assert_exit_2_one_line(out: &Output, needles: &[&str], what: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{what}: exit code; {stderr}");
    assert_eq!(
        stderr.trim_end().lines().count(),
        1,
        "{what}: one line: {stderr}"
    );
    for n in needles {
        assert!(stderr.contains(n), "{what}: says `{n}`: {stderr}");
    }
}

/// Finding 1: `--out` on a directory holding the user's files used to delete them after a
/// successful run. Now it is refused before the run, and the file is kept byte for byte.
#[test]
fn out_dir_with_a_users_file_is_refused_and_the_file_kept() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    std::fs::write(out_dir.join("notes.txt"), precious_bytes()).unwrap();
    let (out, _) = run_with(&reference_case(), dir.path());
    assert_exit_2_one_line(
        &out,
        &["notes.txt", "did not write", "nothing was written"],
        "foreign dir",
    );
    assert_eq!(
        std::fs::read(out_dir.join("notes.txt")).unwrap(),
        precious_bytes()
    );
    assert_eq!(listing(&out_dir), vec!["notes.txt"]);
    assert_eq!(
        listing(dir.path()),
        vec!["case.toml", "out"],
        "no staging left"
    );
}

/// Finding 1: `--out "$PWD"` used to empty the working directory; `--out .` likewise. Both are
/// refused, whatever the working directory holds (even nothing).
#[test]
fn out_at_the_working_directory_is_refused() {
    for with_file in [true, false] {
        let dir = tempfile::tempdir().unwrap();
        let case = dir.path().join("case.toml");
        std::fs::write(&case, reference_case()).unwrap();
        if with_file {
            std::fs::write(dir.path().join("thesis.tex"), precious_bytes()).unwrap();
        }
        let before = listing(dir.path());
        for target in [dir.path().to_str().unwrap(), ".", ".."] {
            let out = bin()
                .current_dir(dir.path())
                .args([
                    "run",
                    "case.toml",
                    "--gpu",
                    "off",
                    "--duration",
                    "0.1",
                    "--out",
                    target,
                ])
                .output()
                .unwrap();
            assert_exit_2_one_line(&out, &["output directory"], target);
            assert_eq!(listing(dir.path()), before, "--out {target}: nothing moved");
        }
        if with_file {
            assert_eq!(
                std::fs::read(dir.path().join("thesis.tex")).unwrap(),
                precious_bytes()
            );
        }
    }
}

/// Finding 2: `--out FILE` used to move the file to `.FILE.old`, exit 1 and write the output
/// anyway. Now it is refused with exit 2 and nothing is touched.
#[test]
fn out_at_an_existing_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("out");
    std::fs::write(&file, precious_bytes()).unwrap();
    let (out, _) = run_with(&reference_case(), dir.path());
    assert_exit_2_one_line(&out, &["existing file", "nothing was written"], "file");
    assert_eq!(std::fs::read(&file).unwrap(), precious_bytes());
    assert_eq!(listing(dir.path()), vec!["case.toml", "out"]);
}

/// A previous stickslip output is replaced (its marker lists its files); an empty directory is
/// used; a previous output to which the user added a file is refused.
#[test]
fn a_previous_output_is_replaced_and_an_empty_directory_used() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    let (first, _) = run_with(&reference_case(), dir.path());
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    assert_eq!(
        listing(&out_dir),
        vec![".stickslip-output", "summary.json", "trajectory.csv"]
    );
    let marker: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join(".stickslip-output")).unwrap())
            .unwrap();
    assert_eq!(marker["written_by"], "stickslip");
    // Run again, 0.3 s instead of 0.5 s: replaced, not merged.
    let (second, _) = run_with_args(&reference_case(), dir.path(), &["--duration", "0.3"]);
    assert!(
        second.status.success(),
        "{}",
        String::from_utf8_lossy(&second.stderr)
    );
    let rows = stickslip::app::output::read_trajectory(&out_dir.join("trajectory.csv")).unwrap();
    assert_eq!(rows.len(), 31);
    assert_eq!(
        listing(dir.path()),
        vec!["case.toml", "out"],
        "no .old or staging left"
    );
    // The user adds a file: the directory is no longer only stickslip's.
    std::fs::write(out_dir.join("notes.txt"), precious_bytes()).unwrap();
    let (third, _) = run_with(&reference_case(), dir.path());
    assert_exit_2_one_line(
        &third,
        &["notes.txt", "previous stickslip output"],
        "added file",
    );
    assert_eq!(
        std::fs::read(out_dir.join("notes.txt")).unwrap(),
        precious_bytes()
    );
    assert_eq!(
        stickslip::app::output::read_trajectory(&out_dir.join("trajectory.csv"))
            .unwrap()
            .len(),
        31
    );
}

/// Finding 6: a failed run into `a/b/c/out` used to leave `a/b/c`. Only the parents that run
/// created are removed; one that existed stays.
#[test]
fn a_failed_run_removes_the_parents_it_created() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("a")).unwrap();
    let case = dir.path().join("case.toml");
    std::fs::write(&case, with_value("max_iterations", "1")).unwrap();
    let out = bin()
        .args([
            "run",
            case.to_str().unwrap(),
            "--gpu",
            "off",
            "--tol",
            "1e-9",
            "--out",
        ])
        .arg(dir.path().join("a/b/c/out"))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(listing(dir.path()), vec!["a", "case.toml"]);
    assert!(
        listing(&dir.path().join("a")).is_empty(),
        "b/c removed, a kept"
    );
}

// Finding 6's clean-up of a dead process's staging directory is tested, with the owner check
// issue 23 asks for (stickslip's marker, this host, boot and PID namespace), in
// tests/app/issue_23_nothing_lost.rs (`stale_staging_is_removed_only_with_…`).

/// Finding 6: SIGINT, SIGTERM and SIGHUP remove the staging directory (and the parents the run
/// created) and end with 128 + the signal number.
#[cfg(unix)]
#[test]
fn an_interrupted_run_leaves_nothing_behind() {
    for (signal, code) in [
        (libc::SIGINT, 130),
        (libc::SIGTERM, 143),
        (libc::SIGHUP, 129),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let case = dir.path().join("case.toml");
        std::fs::write(&case, reference_case()).unwrap();
        let parent = dir.path().join("new/deeper");
        // 10⁶ steps with an OBJ a step: minutes of work, interrupted long before.
        let mut command = bin();
        command
            .args([
                "run",
                case.to_str().unwrap(),
                "--gpu",
                "off",
                "--obj",
                "--duration",
                "10000",
                "--out",
            ])
            .arg(parent.join("out"))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped());
        // The child starts with the three signals at their default action, whatever this test
        // inherited: a suite started under `nohup` (SIGHUP ignored) or as a background job of a
        // non-interactive shell (SIGINT ignored) would otherwise hand the child an ignored
        // signal, which stickslip rightly keeps ignored (`an_ignored_hangup_stays_ignored`).
        // SAFETY: signal() is async-signal-safe; the child only resets dispositions before exec.
        unsafe {
            use std::os::unix::process::CommandExt;
            command.pre_exec(|| {
                for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
                    libc::signal(sig, libc::SIG_DFL);
                }
                Ok(())
            });
        }
        let mut child = command.spawn().unwrap();
        let staging = parent.join(format!(".out.partial-{}", child.id()));
        let start = std::time::Instant::now();
        // Wait until frames are being written into the staging directory.
        while !staging.join("frame_00005.obj").exists() {
            assert!(
                start.elapsed().as_secs() < 60,
                "signal {signal}: staging never appeared"
            );
            assert!(
                child.try_wait().unwrap().is_none(),
                "signal {signal}: ended early"
            );
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let pid = libc::pid_t::try_from(child.id()).unwrap();
        // SAFETY: sending a signal to our own child process.
        assert_eq!(unsafe { libc::kill(pid, signal) }, 0);
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "signal {signal}: {stderr}");
        assert!(stderr.contains("interrupted"), "{stderr}");
        assert_eq!(
            listing(dir.path()),
            vec!["case.toml"],
            "signal {signal}: nothing left"
        );
    }
}

/// Runs `command` with its standard output closed by the reader before anything is printed
/// (as `… | head -0` would), waits for it, asserts that it exited 0 without a panic, and returns
/// its standard error.
fn ends_quietly_with_stdout_closed(command: &mut Command) -> String {
    let mut child = command
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out: Output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    stderr
}

/// Finding 7: `stickslip run … | head -1` used to panic with exit 101 on the closed pipe. It
/// now ends quietly, and the output directory is complete.
#[test]
fn a_closed_stdout_ends_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let case = dir.path().join("case.toml");
    std::fs::write(&case, reference_case()).unwrap();
    let out_dir = dir.path().join("out");
    let stderr = ends_quietly_with_stdout_closed(bin().args([
        "run",
        case.to_str().unwrap(),
        "--gpu",
        "off",
        "--duration",
        "0.5",
        "--out",
        out_dir.to_str().unwrap(),
    ]));
    assert_eq!(stderr.trim(), "", "quiet: {stderr}");
    assert!(out_dir.join("summary.json").exists());
}

/// Finding 5: a FIFO as the case file used to block forever. It is refused at once.
#[cfg(unix)]
#[test]
fn a_fifo_case_file_is_refused_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("case.toml");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let mut child = bin()
        .args(["run", fifo.to_str().unwrap(), "--gpu", "off", "--out"])
        .arg(dir.path().join("out"))
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed().as_secs() > 20 {
            let _ = child.kill();
            panic!("blocked on the FIFO");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    assert_exit_2_one_line(&out, &["case.toml", "FIFO"], "fifo");
    assert!(!dir.path().join("out").exists());
}

/// Finding 4: arrays longer than their dimension, or with a non-number, are refused naming
/// the key (`[0, 0, -9.81]` used to be zero gravity).
#[test]
fn vectors_must_have_exactly_two_numbers() {
    assert_refused(
        &with_value("acceleration", "[0.0, 0.0, -9.81]"),
        "gravity.acceleration",
        "three components",
    );
    assert_refused(
        &with_value("normal", "[0.1, 1.0, \"junk\"]"),
        "slope.normal",
        "junk third component",
    );
    assert_refused(
        &with_value("centre", "[0.0]"),
        "square.centre",
        "one component",
    );
    assert_refused(&with_value("velocity", "[]"), "square.velocity", "empty");
}

/// Finding 5: sizes that abort on allocation or never end are refused before anything runs.
#[test]
fn absurd_sizes_are_refused_before_allocating() {
    assert_refused(
        &with_value("n_seg", "10000"),
        "square.n_seg",
        "n_seg = 10000",
    );
    // 10⁶ nodes pass the node bound but not the memory estimate (~3.5 GiB > 2 GiB).
    assert_refused(&with_value("n_seg", "999"), "square.n_seg", "n_seg = 999");
    assert_refused(&with_value("h", "1e-12"), "time.h", "h = 1e-12");
    assert_refused(&with_value("h", "1e-300"), "time.h", "h = 1e-300");
    assert_refused(&with_value("h", "100.0"), "time.h", "no step at all");
    assert_refused_with(
        &reference_case(),
        &["--duration", "1e12"],
        "--duration",
        "1e12 s",
    );
    assert_refused_with(
        &reference_case(),
        &["--duration", "1e300"],
        "--duration",
        "1e300 s",
    );
    assert_refused(
        &with_value("max_halvings", "0"),
        "newton.max_halvings",
        "no halving",
    );
    assert_refused(
        &with_value("max_halvings", "5000"),
        "newton.max_halvings",
        "5000 halvings",
    );
    assert_refused(
        &with_value("max_iterations", "1000000000"),
        "newton.max_iterations",
        "10^9 iterations",
    );
}

/// Finding 3 (refused before it runs): at h = 0.001 the shipped tol = 0.01 m/s is above
/// |g|h = 0.00981 m/s, and `--tol 0.1` at h = 0.01 above 0.0981 m/s: the square would hang in
/// the air. Both are refused, naming the key or option and saying why.
#[test]
fn a_tolerance_that_would_freeze_the_fall_is_refused() {
    assert_refused(
        &with_value("h", "0.001"),
        "newton.tol",
        "h = 0.001, tol = 0.01",
    );
    assert_refused_with(&reference_case(), &["--tol", "0.1"], "--tol", "--tol 0.1");
    let dir = tempfile::tempdir().unwrap();
    let (out, _) = run_with_args(&reference_case(), dir.path(), &["--tol", "0.1"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("hangs in the air"));
}

/// Finding 8: a start touching the slope (lowest node at d = 4e-17 m) is refused, saying the
/// margin.
#[test]
fn a_start_touching_the_slope_is_refused() {
    // The lowest corner c + (-0.5, -0.5) is on the slope (n ∝ (0.1, 1), o = (0, -1)) when
    // 0.1 cx + cy + 0.45 = 0: at c = (0, -0.45) its signed distance is 4e-17 m in floating
    // point; at cy = -0.449995 it is 5e-6 m, under the margin 1e-3 d̂ = 1e-5 m.
    assert_refused(
        &with_value("centre", "[0.0, -0.45]"),
        "square.centre",
        "touching start",
    );
    assert_refused(
        &with_value("centre", "[0.0, -0.449995]"),
        "square.centre",
        "inside the margin",
    );
    let dir = tempfile::tempdir().unwrap();
    let (out, _) = run_with(&with_value("centre", "[0.0, -0.45]"), dir.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("barrier.dhat") && stderr.contains("above the slope"),
        "{stderr}"
    );
}

/// Finding 9: a duplicate key is reported with its real key, not `(document)`.
#[test]
fn a_duplicate_key_is_reported_with_its_key() {
    let text = reference_case().replace("\nmu = 0.11", "\nmu = 0.11\nmu = 0.2");
    assert_refused(&text, "friction.mu", "duplicate mu");
    let dir = tempfile::tempdir().unwrap();
    let (out, _) = run_with(&text, dir.path());
    assert!(!String::from_utf8_lossy(&out.stderr).contains("(document)"));
}

/// Finding 9: a case name with a newline and escape codes cannot break the one-line error or
/// reach the terminal raw.
#[test]
fn control_characters_are_escaped_in_errors() {
    // A solver error carries the case name: one iteration a step cannot reach tol = 1e-9.
    let text = with_value("max_iterations", "1").replace(
        "name = \"slope, mu = 0.11\"",
        "name = \"evil\\nsecond line \\u001b[31mred\"",
    );
    assert!(text.contains("evil"));
    let dir = tempfile::tempdir().unwrap();
    let (out, _) = run_with_args(&text, dir.path(), &["--tol", "1e-9"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
    assert!(stderr.contains("evil\\nsecond line"), "{stderr}");
    assert!(!stderr.contains('\u{1b}'), "no raw escape: {stderr}");
    assert!(stderr.contains("\\u{1b}"), "{stderr}");
}

/// Finding 9: an unknown backend in STICKSLIP_GPU_BACKENDS is bad input (exit 2), also with
/// `--gpu off` (a typo is reported, not silently ignored), and says which variable.
#[test]
fn a_bogus_backend_list_is_bad_input() {
    let case = Path::new(env!("CARGO_MANIFEST_DIR")).join("cases/slope_mu0.11.toml");
    for mode in ["off", "auto"] {
        let out = bin()
            .env("STICKSLIP_GPU_BACKENDS", "bogus")
            .args([
                "check",
                case.to_str().unwrap(),
                "--gpu",
                mode,
                "--duration",
                "0.1",
            ])
            .output()
            .unwrap();
        assert_exit_2_one_line(&out, &["STICKSLIP_GPU_BACKENDS"], mode);
    }
}

/// A run started with SIGHUP ignored (`nohup`) keeps running through a hangup: taking the
/// signal to clean up must not override the user's choice. SIGTERM still ends it cleanly.
#[cfg(unix)]
#[test]
fn an_ignored_hangup_stays_ignored() {
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    let case = dir.path().join("case.toml");
    std::fs::write(&case, reference_case()).unwrap();
    let mut command = bin();
    command
        .args([
            "run",
            case.to_str().unwrap(),
            "--gpu",
            "off",
            "--obj",
            "--duration",
            "10000",
            "--out",
        ])
        .arg(dir.path().join("out"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    // SAFETY: signal() is async-signal-safe; the child only sets SIGHUP's action before exec,
    // as `nohup` does.
    unsafe {
        command.pre_exec(|| {
            libc::signal(libc::SIGHUP, libc::SIG_IGN);
            Ok(())
        });
    }
    let mut child = command.spawn().unwrap();
    let staging = dir.path().join(format!(".out.partial-{}", child.id()));
    let start = std::time::Instant::now();
    while !staging.join("frame_00005.obj").exists() {
        assert!(start.elapsed().as_secs() < 60, "staging never appeared");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    // SAFETY: signals to our own child process.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGHUP) }, 0);
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(
        child.try_wait().unwrap().is_none(),
        "still running after SIGHUP"
    );
    assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(143),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(listing(dir.path()), vec!["case.toml"], "nothing left");
}

/// The default run's options before a subcommand (`stickslip --gpu off run …`) used to be
/// accepted and ignored: the run's own `--gpu` default won and summary.json recorded the GPU.
/// They are now a usage error (exit 2) that names the option, and nothing is written.
#[test]
fn default_run_options_before_a_subcommand_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let case = dir.path().join("case.toml");
    std::fs::write(&case, reference_case()).unwrap();
    let out = bin()
        .args(["--gpu", "off", "run", case.to_str().unwrap(), "--out"])
        .arg(dir.path().join("out"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--gpu"), "{stderr}");
    assert_eq!(listing(dir.path()), vec!["case.toml"]);
}

/// The same for a rigid-ellipsoid case, whose table used to be printed with `print!` and
/// panicked (exit 101) on a closed standard output: it now ends quietly, output complete.
#[test]
fn a_closed_stdout_ends_a_rigid_run_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("out");
    let case = Path::new(env!("CARGO_MANIFEST_DIR")).join("cases/football.toml");
    ends_quietly_with_stdout_closed(bin().args([
        "run",
        case.to_str().unwrap(),
        "--duration",
        "0.2",
        "--out",
        out_dir.to_str().unwrap(),
    ]));
    for file in ["trajectory.csv", "events.csv", "summary.json"] {
        assert!(out_dir.join(file).exists(), "{file}");
    }
}
