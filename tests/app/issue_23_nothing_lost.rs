//! Issue 23: nothing of the user's is lost on any output path, bad input never runs with wrong
//! results, and the football's endings are honest. One test per class of the issue, each
//! through the binary (or the public API where the class is the library's), each written to
//! fail on the code before the fix:
//!
//! 1. stale staging directories are removed only when they carry stickslip's own marker naming
//!    a process of this host, boot and PID namespace that has ended;
//! 2. every output file (`plot --out`, `plot --data`, `view --screenshot`) is checked before
//!    anything runs, and a user's file is never overwritten;
//! 3. `sweep collect` writes only into a sweep directory, and never over a user's map;
//! 4. an output marker names its command: `run` replaces only a run's output;
//! 5. `--set` applies to every case kind, or is refused;
//! 6. sweep axes that set one case quantity twice are refused;
//! 7. derived quantities out of range are refused naming the key; outputs hold no NaN;
//! 8. settings are never silently changed;
//! 9. a body below the ground is a failed run;
//! 10. "settled" only at rest; accumulating impacts are reported as such;
//! 11. usage errors are exit 2 on one line; numbers print short; `collect` promises no rerun
//!     it cannot make;
//! 12. the rigid path checks `STICKSLIP_GPU_BACKENDS` and escapes case names.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_stickslip"));
    // Shard variables of a surrounding job must not leak into the sweeps run here.
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

fn case_text(name: &str) -> String {
    std::fs::read_to_string(case(name)).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Asserts exit code 2 with one line on stderr saying every one of `needles` (and, for an
/// error of the command line's parser, its `--help` hint on a second line).
fn assert_refused(o: &Output, needles: &[&str], what: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(2), "{what}: exit code; {err}");
    let lines: Vec<&str> = err.trim_end().lines().collect();
    let hint = lines.len() == 2 && lines[1].starts_with("For more information");
    assert!(lines.len() == 1 || hint, "{what}: one line: {err}");
    for n in needles {
        assert!(err.contains(n), "{what}: says `{n}`: {err}");
    }
}

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

/// A real PNG (2 × 2, RGB) that stickslip did not write: no `stickslip-output` text chunk.
fn users_png() -> Vec<u8> {
    let mut bytes = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut bytes, 2, 2);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        let mut w = enc.write_header().unwrap();
        w.write_image_data(&[7u8; 12]).unwrap();
    }
    bytes
}

/// The process id of a process that has ended (a `true` that was waited for).
fn dead_pid() -> u32 {
    let mut child = Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    pid
}

/// Starts a long slope run into `out` (an OBJ a step), waits until its staging directory holds
/// frames, kills it with SIGKILL (no clean-up can run) and returns the staging directory left.
fn killed_run(dir: &Path, out: &Path) -> PathBuf {
    let case_file = dir.join("case.toml");
    std::fs::write(&case_file, case_text("slope_mu0.11.toml")).unwrap();
    let mut child = bin()
        .args(["run", case_file.to_str().unwrap(), "--gpu", "off", "--obj"])
        .args(["--duration", "10000", "--out"])
        .arg(out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let name = out.file_name().unwrap().to_string_lossy().into_owned();
    let staging = out
        .parent()
        .unwrap()
        .join(format!(".{name}.partial-{}", child.id()));
    let start = std::time::Instant::now();
    while !staging.join("frame_00005.obj").exists() {
        assert!(start.elapsed().as_secs() < 60, "staging never appeared");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    staging
}

fn run_slope(dir: &Path, out: &Path) -> Output {
    let case_file = dir.join("case.toml");
    std::fs::write(&case_file, case_text("slope_mu0.11.toml")).unwrap();
    bin()
        .args(["run", case_file.to_str().unwrap(), "--gpu", "off"])
        .args(["--duration", "0.2", "--out"])
        .arg(out)
        .output()
        .unwrap()
}

/// Class 1. A directory beside `--out` named like a staging or backup directory and holding
/// only `.csv`/`.json` files used to be removed when no process had the PID in its name: a
/// user's backup folder, or a live run of another host or container sharing the filesystem.
/// Now only a directory carrying stickslip's staging marker, naming a process of this host,
/// boot and PID namespace that has ended, is removed.
#[cfg(target_os = "linux")]
#[test]
fn stale_staging_is_removed_only_with_stickslips_marker_of_an_ended_process() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    // A run killed with SIGKILL leaves its staging directory, marked.
    let killed = killed_run(dir.path(), &out);
    let marker: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(killed.join(".stickslip-staging")).unwrap())
            .expect("the staging directory carries its marker from creation");
    // The same left by a run on another host (another boot id): it may be live there.
    let elsewhere = dir.path().join(".out.partial-4242");
    std::fs::create_dir(&elsewhere).unwrap();
    std::fs::write(elsewhere.join("trajectory.csv"), "t_s\n").unwrap();
    let mut other = marker.clone();
    other["owner"]["boot_id"] = "00000000-0000-0000-0000-000000000000".into();
    std::fs::write(elsewhere.join(".stickslip-staging"), other.to_string()).unwrap();
    // A user's backup folders that merely look like staging or old outputs (a dead PID in the
    // name, only .csv and .json inside).
    let dead = dead_pid();
    let backups = [
        dir.path().join(format!(".out.old-{dead}")),
        dir.path().join(format!(".out.partial-{dead}")),
    ];
    for b in &backups {
        std::fs::create_dir(b).unwrap();
        std::fs::write(b.join("trajectory.csv"), precious_bytes()).unwrap();
        std::fs::write(b.join("summary.json"), precious_bytes()).unwrap();
    }

    let o = run_slope(dir.path(), &out);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        !killed.exists(),
        "the killed run's staging directory is removed"
    );
    assert!(
        elsewhere.join("trajectory.csv").exists(),
        "another host's stays"
    );
    for b in &backups {
        assert_eq!(
            std::fs::read(b.join("trajectory.csv")).unwrap(),
            precious_bytes()
        );
        assert_eq!(
            std::fs::read(b.join("summary.json")).unwrap(),
            precious_bytes()
        );
    }
    // A second run (a replacement, which clears stale `.old` directories after its commit)
    // keeps them too.
    let o = run_slope(dir.path(), &out);
    assert!(o.status.success(), "{}", stderr(&o));
    for b in &backups {
        assert_eq!(
            std::fs::read(b.join("trajectory.csv")).unwrap(),
            precious_bytes()
        );
    }
    assert!(elsewhere.exists());
}

/// Class 2. `plot --out` used to overwrite any existing file, and `plot --data DIR` ran the
/// cases, wrote the PNG, and only then refused DIR. Now every output path of every command is
/// checked before anything runs; a refused one is exit 2 and leaves nothing (no PNG, no parent
/// directories), and a user's file is never overwritten.
#[test]
fn every_output_path_is_checked_first_and_no_users_file_is_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let plot = |args: &[&std::ffi::OsStr]| -> Output {
        bin()
            .args(["plot", "--duration", "0.1"])
            .args(args)
            .current_dir(d)
            .output()
            .unwrap()
    };
    // A user's text file and a user's PNG at --out.
    std::fs::write(d.join("notes.png"), precious_bytes()).unwrap();
    std::fs::write(d.join("photo.png"), users_png()).unwrap();
    for name in ["notes.png", "photo.png"] {
        let before = std::fs::read(d.join(name)).unwrap();
        let o = plot(&["--out".as_ref(), name.as_ref()]);
        assert_refused(&o, &[name, "did not write"], name);
        assert_eq!(std::fs::read(d.join(name)).unwrap(), before, "{name} kept");
    }
    // --data DIR holding a user's file: refused before anything runs: no figure, no parents.
    std::fs::create_dir(d.join("data")).unwrap();
    std::fs::write(d.join("data/mine.csv"), precious_bytes()).unwrap();
    let o = plot(&[
        "--out".as_ref(),
        "new/deeper/fig.png".as_ref(),
        "--data".as_ref(),
        "data".as_ref(),
    ]);
    assert_refused(&o, &["data", "mine.csv"], "--data with a user's file");
    assert!(!d.join("new").exists(), "no parents made");
    assert_eq!(listing(&d.join("data")), vec!["mine.csv"]);
    // A figure stickslip's plot wrote is its own to replace; the parents it needs are made.
    let o = plot(&["--out".as_ref(), "new/deeper/fig.png".as_ref()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = plot(&["--out".as_ref(), "new/deeper/fig.png".as_ref()]);
    assert!(
        o.status.success(),
        "replacing its own figure: {}",
        stderr(&o)
    );
    assert_eq!(
        listing(&d.join("new/deeper")),
        vec!["fig.png"],
        "no temporary left"
    );
    // view --screenshot on a user's file: refused before any window opens (no display
    // needed to be refused).
    let o = bin()
        .args(["view", "--frames", "1", "--screenshot", "photo.png"])
        .current_dir(d)
        .env_remove("DISPLAY")
        .output()
        .unwrap();
    assert_refused(&o, &["photo.png"], "view --screenshot");
    assert_eq!(std::fs::read(d.join("photo.png")).unwrap(), users_png());
    // A figure of one command is not another's to replace.
    let o = bin()
        .args([
            "view",
            "--frames",
            "1",
            "--screenshot",
            "new/deeper/fig.png",
        ])
        .current_dir(d)
        .env_remove("DISPLAY")
        .output()
        .unwrap();
    assert_refused(&o, &["stickslip plot"], "view over plot's figure");
}

/// A small sweep of two cells into `out` (0.3 s each), written beside it.
fn small_sweep(dir: &Path) -> PathBuf {
    let file = dir.join("small.toml");
    std::fs::write(
        &file,
        format!(
            "case = {:?}\nset = [\"time.duration=0.3\"]\n[[axis]]\nkey = \"friction.mu\"\nvalues = [0.1, 0.2]\n",
            case("slope_mu0.11.toml")
        ),
    )
    .unwrap();
    file
}

/// Class 3. `sweep collect` used to write map.csv and map.png into any directory holding a
/// parseable sweep.json (a copied one was enough), over the user's files there. Now it needs
/// the sweep's marker and refuses a directory holding anything that is not the sweep's, as
/// `sweep` does.
#[test]
fn collect_writes_only_into_a_sweep_directory_and_never_over_a_users_map() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let sweep_dir = d.join("sweep");
    let o = bin()
        .arg("sweep")
        .arg(small_sweep(d))
        .arg("--out")
        .arg(&sweep_dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    // A user's directory with a copied sweep.json and the user's own map.csv.
    let users = d.join("mine");
    std::fs::create_dir(&users).unwrap();
    std::fs::copy(sweep_dir.join("sweep.json"), users.join("sweep.json")).unwrap();
    std::fs::write(users.join("map.csv"), precious_bytes()).unwrap();
    let o = bin()
        .args(["sweep", "collect"])
        .arg(&users)
        .output()
        .unwrap();
    assert_refused(&o, &["not a sweep directory"], "a copied sweep.json");
    assert_eq!(
        std::fs::read(users.join("map.csv")).unwrap(),
        precious_bytes()
    );
    assert_eq!(listing(&users), vec!["map.csv", "sweep.json"]);
    // The user's map.csv inside the real sweep directory is not overwritten either.
    std::fs::write(sweep_dir.join("map.csv"), precious_bytes()).unwrap();
    let o = bin()
        .args(["sweep", "collect"])
        .arg(&sweep_dir)
        .output()
        .unwrap();
    assert_refused(&o, &["map.csv"], "a user's map.csv in the sweep");
    assert_eq!(
        std::fs::read(sweep_dir.join("map.csv")).unwrap(),
        precious_bytes()
    );
    // Without it, collect writes its map, and replaces its own map on the next collect.
    std::fs::remove_file(sweep_dir.join("map.csv")).unwrap();
    for _ in 0..2 {
        let o = bin()
            .args(["sweep", "collect"])
            .arg(&sweep_dir)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
    }
}

/// Class 4. A run's `--out` accepted a directory written by another stickslip command (the
/// data of `plot --data`) as "a previous output" and replaced it. Now the marker says which
/// command wrote it, and `run` replaces only a run's output (and `plot --data` only plotted
/// data).
#[test]
fn run_replaces_only_a_run_output() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let data = d.join("data");
    let o = bin()
        .args(["plot", "--duration", "0.1", "--out"])
        .arg(d.join("fig.png"))
        .arg("--data")
        .arg(&data)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let before = listing(&data);
    let o = run_slope(d, &data);
    assert_refused(&o, &["stickslip plot"], "run over plotted data");
    assert_eq!(listing(&data), before, "the plotted data kept");
    // And the other way round.
    let run_out = d.join("run");
    let o = run_slope(d, &run_out);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = bin()
        .args(["plot", "--duration", "0.1", "--out"])
        .arg(d.join("fig2.png"))
        .arg("--data")
        .arg(&run_out)
        .output()
        .unwrap();
    assert_refused(&o, &["stickslip run"], "plot --data over a run");
    assert!(run_out.join("trajectory.csv").is_file());
    // A run's output is a run's to replace, whatever the case's kind.
    let o = bin()
        .args(["run", case("football.toml").to_str().unwrap(), "--out"])
        .arg(&run_out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(run_out.join("events.csv").is_file());
}

/// Class 5. `--set` was ignored for rigid cases (`--set impact.mu=0` ran at μ = 0.4, an unknown
/// key was accepted). Every kind takes it by the slope's rules, or refuses it with exit 2.
#[test]
fn set_applies_to_every_case_kind_or_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let o = bin()
        .args(["run", case("football.toml").to_str().unwrap()])
        .args(["--set", "impact.mu=0", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["mu"], "0", "{summary}");
    assert_eq!(summary["overrides"][0], "impact.mu=0");
    // μ = 0: every impulse is normal to the ground (here n = z).
    let events = std::fs::read_to_string(out.join("events.csv")).unwrap();
    for line in events.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let (jx, jy): (f64, f64) = (f[9].parse().unwrap(), f[10].parse().unwrap());
        assert!(jx == 0.0 && jy == 0.0, "a frictionless impulse: {line}");
    }
    for (set, key) in [
        ("impact.colour=1", "impact.colour"),
        ("impact.mu=-1", "impact.mu"),
    ] {
        let o = bin()
            .args(["run", case("football.toml").to_str().unwrap(), "--set", set])
            .arg("--out")
            .arg(dir.path().join("bad"))
            .output()
            .unwrap();
        assert_refused(&o, &[key, "--set"], set);
        assert!(!dir.path().join("bad").exists());
    }
    // The bounce scene takes no --set: refused (before any window or display is needed).
    let o = bin()
        .args(["view", case("bounce.toml").to_str().unwrap()])
        .args(["--set", "gravity=1"])
        .env_remove("DISPLAY")
        .output()
        .unwrap();
    assert_refused(&o, &["--set"], "bounce --set");
}

fn sweep_with_axes(dir: &Path, body: &str) -> Output {
    let file = dir.join("axes.toml");
    std::fs::write(
        &file,
        format!(
            "case = {:?}\nset = [\"time.duration=0.3\"]\n{body}",
            case("slope_mu0.11.toml")
        ),
    )
    .unwrap();
    bin()
        .arg("sweep")
        .arg(&file)
        .arg("--out")
        .arg(dir.join("out"))
        .output()
        .unwrap()
}

/// Class 6. Two axes setting one case quantity (two spellings of a key; an alias and its
/// target), or one value twice within an axis (`[1, 1.0]`), used to be accepted: the later
/// won and map.csv showed values never used. They are refused, nothing written.
#[test]
fn sweep_axes_that_set_one_quantity_twice_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (body, needle) in [
        (
            "[[axis]]\nkey = \"friction.mu\"\nvalues = [0.1, 0.2]\n[[axis]]\nkey = \"friction. mu\"\nvalues = [0.3, 0.4]\n",
            "friction.mu",
        ),
        (
            "[[axis]]\nkey = \"slope.tan_theta\"\nvalues = [0.1, 0.2]\n[[axis]]\nkey = \"slope.normal\"\nvalues = [[0.3, 1.0]]\n",
            "slope.normal",
        ),
        (
            "[[axis]]\nkey = \"friction.mu\"\nvalues = [1, 1.0]\n",
            "twice",
        ),
        (
            "[[axis]]\nkey = \"time.duration\"\nvalues = [0.2, 0.4]\n",
            "set[0]",
        ),
    ] {
        let o = sweep_with_axes(d, body);
        assert_refused(&o, &[needle], body);
        assert!(!d.join("out").exists(), "{body}: nothing written");
    }
}

/// The largest |value| among the numeric fields of a CSV (empty fields skipped); panics on a
/// field that is NaN or infinite.
fn assert_finite_csv(path: &Path) {
    let text = std::fs::read_to_string(path).unwrap();
    for (k, line) in text.lines().enumerate().skip(1) {
        for f in line.split(',') {
            if let Ok(x) = f.parse::<f64>() {
                assert!(x.is_finite(), "{}: line {}: {line}", path.display(), k + 1);
            }
        }
    }
}

/// Class 7. Values whose derived quantities overflow or underflow used to run anyway: a
/// quaternion [1e300, 1e300, 0, 0] gave a zero rotation and NaN distances with exit 0;
/// semi-axes of 1e±300 or a subnormal mass failed at step 1 with "try a smaller time.h"; a
/// square of side 1e-200 panicked. Now a direction is normalised without overflow, out-of-range
/// derived quantities are exit 2 naming the key, and a successful run's outputs hold no NaN.
#[test]
fn derived_quantities_out_of_range_are_refused_and_outputs_hold_no_nan() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let football = case_text("football.toml");
    // [1e300, 1e300, 0, 0] is the rotation by 90° about x: a valid orientation.
    let rotated = football.replace(
        "axis = [0.0, 1.0, 0.0]           # nose pitched up 0.5 rad about world y\nangle = -0.5",
        "quaternion = [1e300, 1e300, 0.0, 0.0]",
    );
    assert_ne!(rotated, football);
    std::fs::write(d.join("q.toml"), rotated).unwrap();
    let o = bin()
        .arg("run")
        .arg(d.join("q.toml"))
        .arg("--out")
        .arg(d.join("q"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert_finite_csv(&d.join("q/trajectory.csv"));
    assert_finite_csv(&d.join("q/events.csv"));
    // Its first row's quaternion is (cos 45°, sin 45°, 0, 0).
    let first = std::fs::read_to_string(d.join("q/trajectory.csv")).unwrap();
    let row: Vec<f64> = first
        .lines()
        .nth(1)
        .unwrap()
        .split(',')
        .map(|f| f.parse().unwrap())
        .collect();
    let half = std::f64::consts::FRAC_1_SQRT_2;
    // (q and −q are one rotation.)
    assert!(
        (row[4].abs() - half).abs() < 1e-15 && (row[5].abs() - half).abs() < 1e-15,
        "{row:?}"
    );
    // No ground: the distance column is empty, never NaN.
    let o = bin()
        .args(["run", case("football_torque_free.toml").to_str().unwrap()])
        .args(["--duration", "0.1", "--out"])
        .arg(d.join("free"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(d.join("free/trajectory.csv")).unwrap();
    assert!(
        !text.contains("NaN") && !text.contains("inf"),
        "no NaN in outputs"
    );
    assert_finite_csv(&d.join("free/trajectory.csv"));

    for (set, key) in [
        ("body.semi_axes=[1e300, 0.085, 0.085]", "body.semi_axes"),
        ("body.semi_axes=[1e-300, 0.085, 0.085]", "body.semi_axes"),
        ("body.mass=1e-320", "body.mass"),
        // A moment of inertia m(b² + c²)/5 ≈ 2.9e-309 kg m²: subnormal.
        ("body.mass=1e-306", "body.mass"),
        ("initial.omega=[1e200, 0, 0]", "initial.omega"),
    ] {
        let o = bin()
            .args(["run", case("football.toml").to_str().unwrap(), "--set", set])
            .arg("--out")
            .arg(d.join("bad"))
            .output()
            .unwrap();
        assert_refused(&o, &[key], set);
        assert!(!d.join("bad").exists());
    }
    for (set, key) in [
        ("square.side=1e-200", "material.density"),
        ("material.density=1e-320", "material.density"),
        ("square.velocity=[1e300, 0]", "square.velocity"),
        ("barrier.kappa=1e308", "barrier.kappa"),
        ("material.stiffness=1e308", "material.stiffness"),
        ("square.centre=[1e300, 1e300]", "square.centre"),
    ] {
        let o = bin()
            .args(["run", case("slope_mu0.11.toml").to_str().unwrap()])
            .args(["--gpu", "off", "--duration", "0.1", "--set", set])
            .arg("--out")
            .arg(d.join("bad"))
            .output()
            .unwrap();
        assert_refused(&o, &[key], set);
        assert!(!d.join("bad").exists());
    }
}

/// Class 8. Settings that were silently changed are refused with exit 2: `max_lagging = 0`
/// (implicit lagging turned off), a duration that is not a whole number of steps (rounded),
/// `--shard-count` beside `--shard` (ignored), `SLURM_ARRAY_TASK_COUNT` without a task id
/// (every cell run), a line break inside `--set` (the rest dropped).
#[test]
fn settings_are_never_silently_changed() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let run = |case_name: &str, args: &[&str]| -> Output {
        bin()
            .args(["run", case(case_name).to_str().unwrap(), "--gpu", "off"])
            .args(args)
            .arg("--out")
            .arg(d.join("out"))
            .output()
            .unwrap()
    };
    let cases: [(&str, &[&str], &str); 6] = [
        (
            "slope_mu0.11.toml",
            &[
                "--set",
                "friction.lagging=implicit",
                "--set",
                "friction.max_lagging=0",
            ],
            "friction.max_lagging",
        ),
        ("slope_mu0.11.toml", &["--duration", "0.505"], "--duration"),
        ("football.toml", &["--duration", "0.0105"], "--duration"),
        ("pulled_block.toml", &["--duration", "0.0105"], "--duration"),
        (
            "football.toml",
            &["--set", "time.duration=1.0005"],
            "time.duration",
        ),
        (
            "slope_mu0.11.toml",
            &["--set", "friction.mu=0.3\nsquare.n_seg=64"],
            "one line",
        ),
    ];
    for (name, args, needle) in cases {
        let o = run(name, args);
        assert_refused(&o, &[needle], &format!("{name} {args:?}"));
        assert!(!d.join("out").exists());
    }
    let sweep_file = small_sweep(d);
    let sweep = |args: &[&str], env: &[(&str, &str)]| -> Output {
        bin()
            .arg("sweep")
            .arg(&sweep_file)
            .arg("--out")
            .arg(d.join("sweep"))
            .args(args)
            .envs(env.iter().copied())
            .output()
            .unwrap()
    };
    let o = sweep(&["--shard", "0/2", "--shard-count", "3"], &[]);
    assert_refused(&o, &["--shard-count"], "--shard-count beside --shard");
    let o = sweep(&[], &[("SLURM_ARRAY_TASK_COUNT", "2")]);
    assert_refused(&o, &["SLURM_ARRAY_TASK_ID"], "a count without a task id");
    let o = sweep(&[], &[("STICKSLIP_SHARD_COUNT", "2")]);
    assert_refused(&o, &["JOB_COMPLETION_INDEX"], "a count without an index");
    assert!(!d.join("sweep").exists());
}

/// The rigid run of `cases/football.toml` with `set` overrides, into `out`, and its summary.
fn football_run(out: &Path, set: &[&str]) -> (Output, serde_json::Value) {
    let mut c = bin();
    c.args(["run", case("football.toml").to_str().unwrap()]);
    for s in set {
        c.args(["--set", s]);
    }
    let o = c.arg("--out").arg(out).output().unwrap();
    let summary = std::fs::read_to_string(out.join("summary.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(serde_json::Value::Null);
    (o, summary)
}

/// Class 9. With a smaller `impact.rest_speed` the football's impacts piled up until its lowest
/// point slipped below the ground; it then fell freely and the run ended "duration reached",
/// exit 0, with min_distance −0.1 m in its own summary. Now a successful run never has the body
/// below the ground by more than the bisection's worth, and a state that is is a failed run.
#[test]
fn a_body_below_the_ground_is_a_failed_run() {
    let dir = tempfile::tempdir().unwrap();
    for rest_speed in ["1e-6", "1e-9", "1e-12"] {
        let out = dir.path().join(format!("rs{rest_speed}"));
        let (o, summary) = football_run(&out, &[&format!("impact.rest_speed={rest_speed}")]);
        assert!(o.status.success(), "{}", stderr(&o));
        // The bisection locates each impact to 1e-9 s; at the ball's ≤ 20 m/s that is 2e-8 m.
        let min = summary["min_distance"].as_f64().unwrap();
        assert!(
            min >= -2e-8,
            "rest speed {rest_speed}: min distance {min} m"
        );
        assert_ne!(
            summary["ended"]["kind"], "duration_reached",
            "rest speed {rest_speed}: the impacts accumulate within the 6 s: {summary}"
        );
    }
    // A state below the ground (here the start, moved 5 cm into it past the validation) is a
    // failed run that says when and how far.
    let mut scene =
        stickslip::rigid::case::RigidScene::load(&case("football.toml")).expect("loads");
    scene.initial.pose.p.z = 0.085 - 0.05;
    scene.initial.twist = nalgebra::Vector6::zeros();
    let r = stickslip::rigid::run::simulate(&scene, None);
    let e = r
        .expect_err("a body under the ground is a failed run")
        .to_string();
    assert!(e.contains("t = ") && e.contains("below"), "{e}");
}

/// Class 10. "Settled" was claimed for a ball still rolling (the shipped throw: 0.7 m/s and
/// 7.5 rad/s at its "settled" time). Now "settled" means at rest; a ball whose impacts
/// accumulate while it moves is reported as such, with the accumulation time, the speed and
/// spin there. Checked against the closed form of a sphere's bounces.
#[test]
fn settled_only_at_rest_and_accumulating_impacts_are_reported_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("football");
    let (o, summary) = football_run(&out, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let ended = &summary["ended"];
    // The last row's state: body velocity (columns 11–13) and ω (8–10).
    let trajectory = std::fs::read_to_string(out.join("trajectory.csv")).unwrap();
    let last: Vec<f64> = trajectory
        .lines()
        .last()
        .unwrap()
        .split(',')
        .map(|f| f.parse().unwrap())
        .collect();
    let norm = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
    let (speed, spin) = (norm(&last[11..14]), norm(&last[8..11]));
    // Every point of the ball moves at most |v| + |ω|·0.14 m; the rest speed is 0.05 m/s.
    let fastest = speed + spin * 0.14;
    if ended["kind"] == "settled" {
        assert!(
            fastest <= 0.05,
            "settled while moving at up to {fastest} m/s: {ended}"
        );
    }
    assert!(
        fastest > 0.05,
        "the shipped throw still rolls: {speed} m/s, {spin} rad/s"
    );
    assert_eq!(ended["kind"], "impacts_accumulate", "{ended}");
    // The same state's norms (|Rv| = |v| to R's orthonormality, 1e-14).
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * b;
    assert!(
        close(ended["speed"].as_f64().unwrap(), speed),
        "{ended} {speed}"
    );
    assert!(
        close(ended["spin"].as_f64().unwrap(), spin),
        "{ended} {spin}"
    );
    let t = ended["t"].as_f64().unwrap();
    assert!(ended["accumulation_time"].as_f64().unwrap() > t, "{ended}");
    assert!(stdout(&o).contains("persistent contact"), "{}", stdout(&o));

    // A sphere of radius a = 0.1 m dropped from rest with its centre at 1 m onto the ground,
    // e = 0.5: it first hits at t₀ = √(2·0.9/g) with v₀ = g t₀, and after the k-th impact
    // leaves at eᵏv₀ for a flight of 2eᵏv₀/g, so the impacts accumulate at
    // t∞ = t₀ + 2 e v₀ / (g (1 − e)) (about 1.285 s); the ball is then at rest.
    let g: f64 = 9.81;
    let t0: f64 = (2.0 * 0.9 / g).sqrt();
    let t_inf = t0 + 2.0 * 0.5 * g * t0 / (g * (1.0 - 0.5));
    let sphere = "kind = \"rigid_ellipsoid\"\nname = \"sphere\"\n[body]\nsemi_axes = [0.1, 0.1, 0.1]\nmass = 1.0\n[initial]\nposition = [0.0, 0.0, 1.0]\nomega = [0.0, 0.0, 0.0]\nvelocity = [0.0, 0.0, 0.0]\n[gravity]\nacceleration = [0.0, 0.0, -9.81]\n[ground]\npoint = [0.0, 0.0, 0.0]\nnormal = [0.0, 0.0, 1.0]\n[impact]\nmodel = \"newton\"\nrestitution = 0.5\nmu = 0.5\nbisection_tolerance = 1e-9\nrest_speed = 0.05\n[time]\nh = 1e-3\nduration = 2.0\n";
    std::fs::write(dir.path().join("sphere.toml"), sphere).unwrap();
    let o = bin()
        .arg("run")
        .arg(dir.path().join("sphere.toml"))
        .arg("--out")
        .arg(dir.path().join("sphere"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let s: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("sphere/summary.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(s["ended"]["kind"], "settled", "{s}");
    // The extrapolation from the last two impacts is exact for this geometric sequence; what
    // is left is the impact times' bisection (1e-9 s each, summed over the series: < 1e-8 s)
    // and the rounding of the flights.
    let ta = s["ended"]["accumulation_time"].as_f64().unwrap();
    assert!((ta - t_inf).abs() < 1e-7, "{ta} s against {t_inf} s");
}

/// Class 11. Usage errors are exit 2 everywhere, one `error:` line and a `--help` hint; numbers
/// in messages are short; `collect` does not promise to rerun a cell the sweep will refuse.
#[test]
fn usage_errors_are_one_line_exit_2_and_messages_are_honest() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // `view CASE --scene bounce` was exit 1.
    let o = bin()
        .args(["view", case("slope_mu0.11.toml").to_str().unwrap()])
        .args(["--scene", "bounce"])
        .env_remove("DISPLAY")
        .output()
        .unwrap();
    assert_refused(&o, &["--scene bounce"], "view CASE --scene bounce");
    // clap's errors: an error line and the hint, without the usage block.
    for args in [&["run"][..], &["run", "a", "b"], &["sweep"]] {
        let o = bin().args(args).output().unwrap();
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        let lines: Vec<&str> = err.trim_end().lines().collect();
        assert_eq!(lines.len(), 2, "{args:?}: {err}");
        assert!(
            lines[0].starts_with("error:") && lines[1].contains("--help"),
            "{err}"
        );
    }
    // A tiny number is written short (it used to be 330 digits).
    let o = bin()
        .args(["run", case("slope_mu0.11.toml").to_str().unwrap()])
        .args(["--duration", "5e-324", "--out"])
        .arg(d.join("x"))
        .output()
        .unwrap();
    assert_refused(&o, &["5e-324"], "--duration 5e-324");
    assert!(stderr(&o).len() < 400, "{}", stderr(&o));
    // A cell file replaced by a directory: the sweep refuses the directory, so collect must
    // not promise that the sweep will run the cell again.
    let sweep_dir = d.join("sweep");
    let o = bin()
        .arg("sweep")
        .arg(small_sweep(d))
        .arg("--out")
        .arg(&sweep_dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let cell = sweep_dir.join("cells/c0000.json");
    std::fs::remove_file(&cell).unwrap();
    std::fs::create_dir(&cell).unwrap();
    let o = bin()
        .args(["sweep", "collect"])
        .arg(&sweep_dir)
        .output()
        .unwrap();
    assert!(!stdout(&o).contains("run again"), "{}", stdout(&o));
    assert_refused(
        &o,
        &["cells/c0000.json"],
        "collect with a directory for a cell",
    );
    let o = bin()
        .arg("sweep")
        .arg(small_sweep(d))
        .arg("--out")
        .arg(&sweep_dir)
        .output()
        .unwrap();
    assert_refused(&o, &["cells/c0000.json"], "the sweep refuses it too");
    assert!(cell.is_dir(), "the directory is left as it is");
}

/// Class 12. The rigid path ignored `STICKSLIP_GPU_BACKENDS` (a bogus list ran, exit 0, where
/// the slope refuses it with exit 2) and printed a case name's control characters raw.
#[test]
fn the_rigid_path_checks_the_backend_list_and_escapes_names() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for name in ["football.toml", "pulled_block.toml"] {
        let o = bin()
            .args(["run", case(name).to_str().unwrap(), "--duration", "0.01"])
            .arg("--out")
            .arg(d.join("out"))
            .env("STICKSLIP_GPU_BACKENDS", "bogus")
            .output()
            .unwrap();
        assert_refused(&o, &["STICKSLIP_GPU_BACKENDS"], name);
        assert!(!d.join("out").exists());
    }
    let evil = case_text("football.toml").replace(
        "name = \"football, thrown, mu = 0.4, energy-safe\"",
        "name = \"evil\\u001b[31mRED\\u0007\"",
    );
    std::fs::write(d.join("evil.toml"), evil).unwrap();
    let o = bin()
        .arg("run")
        .arg(d.join("evil.toml"))
        .arg("--out")
        .arg(d.join("evil"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{7}'),
        "{text:?}"
    );
    assert!(text.contains("evil\\u{1b}[31mRED"), "{text}");
}
