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
    let case = dir.join("case.toml");
    std::fs::write(&case, text).unwrap();
    let out_dir = dir.join("out");
    let out = bin()
        .args([
            "run",
            case.to_str().unwrap(),
            "--gpu",
            "off",
            "--duration",
            "0.5",
            "--out",
        ])
        .arg(&out_dir)
        .output()
        .unwrap();
    (out, out_dir)
}

fn assert_refused(text: &str, key: &str, what: &str) {
    let dir = tempfile::tempdir().unwrap();
    let (out, out_dir) = run_with(text, dir.path());
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
        stderr.contains("case.toml"),
        "{what}: names the file: {stderr}"
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
    let out_dir = dir.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    std::fs::write(out_dir.join("trajectory.csv"), "precious").unwrap();
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
        std::fs::read_to_string(out_dir.join("trajectory.csv")).unwrap(),
        "precious"
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
