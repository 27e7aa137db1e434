//! The entry points the command line and the Python package share (`crates/stickslip-sim/src/api.rs`):
//! * a sweep run in memory gives `map.csv` byte for byte as `stickslip sweep` + `collect` write
//!   it, although the CLI's results pass through the cell files (JSON) on the way: every float
//!   survives the round trip exactly (serde_json's `float_roundtrip`; without it the default
//!   parser put some agreements and gap medians one ulp off);
//! * stopping a sweep in memory starts no further cell, and the cells not run are missing;
//! * `load_case` dispatches on `kind` as `stickslip run` does, and refuses what it refuses with
//!   the same message.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use stickslip::api::{self, LoadedCase};
use stickslip::scene::Override;
use stickslip::sweep::dir::CellState;
use stickslip::sweep::file::Sweep;

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// 2 × 2 cells of the book's square over 3 s, on a gentle and a steep slope, with little and
/// much friction: cells that stop, slide and are still moving, with contact records (so the
/// agreement and gap columns have values).
fn small_sweep(dir: &Path) -> PathBuf {
    let path = dir.join("small.toml");
    std::fs::write(
        &path,
        format!(
            "case = {:?}\nset = [\"time.duration=3\"]\n\n[[axis]]\nkey = \"slope.tan_theta\"\nvalues = [0.1, 0.3]\n\n[[axis]]\nkey = \"friction.mu\"\nvalues = [0.05, 0.5]\n",
            repo("cases/slope_mu0.11.toml")
        ),
    )
    .unwrap();
    path
}

fn cli(args: &[&std::ffi::OsStr]) -> std::process::Output {
    let out = Command::new(env!("CARGO_BIN_EXE_stickslip"))
        .args(args)
        .env_remove("SLURM_ARRAY_TASK_ID")
        .env_remove("JOB_COMPLETION_INDEX")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

#[test]
fn a_sweep_in_memory_gives_the_clis_map_csv_byte_for_byte() {
    let tmp = tempfile::tempdir().unwrap();
    let file = small_sweep(tmp.path());
    let out = tmp.path().join("dir");
    cli(&[
        "sweep".as_ref(),
        file.as_ref(),
        "--out".as_ref(),
        out.as_ref(),
    ]);
    cli(&["sweep".as_ref(), "collect".as_ref(), out.as_ref()]);
    let written = std::fs::read_to_string(out.join("map.csv")).unwrap();

    let sweep = Sweep::load(&file).unwrap();
    let done = AtomicUsize::new(0);
    let collected = api::run_sweep_in_memory(&sweep, 2, &AtomicBool::new(false), |_| {
        done.fetch_add(1, Ordering::Relaxed);
    });

    assert_eq!(collected.csv(), written);
    assert_eq!(done.load(Ordering::Relaxed), 4);
    // The comparison means something only if the map has the columns that went through JSON.
    let header = written.lines().next().unwrap();
    assert!(header.contains("gap_median_m_per_s"), "{header}");
    assert!(written.lines().skip(1).all(|row| row.contains(",done,")));
}

#[test]
fn a_stopped_sweep_starts_no_further_cell() {
    let tmp = tempfile::tempdir().unwrap();
    let sweep = Sweep::load(&small_sweep(tmp.path())).unwrap();
    let stop = AtomicBool::new(false);
    // One worker; the stop is raised when the first cell ends.
    let collected =
        api::run_sweep_in_memory(&sweep, 1, &stop, |_| stop.store(true, Ordering::Relaxed));
    let states: Vec<bool> = collected
        .cells
        .iter()
        .map(|c| matches!(c.state, CellState::Finished(_)))
        .collect();
    assert_eq!(states, [true, false, false, false]);
    assert!(
        collected
            .report()
            .starts_with("4 cells: 1 done, 0 failed, 3 missing")
    );
}

#[test]
fn load_case_dispatches_on_kind() {
    let slope = api::load_case(
        &repo("cases/slope_mu0.11.toml"),
        &[Override::parse("friction.mu=0.2").unwrap()],
    );
    assert!(
        matches!(slope, Ok(LoadedCase::Slope(s)) if s.mu == 0.2 && s.overrides == ["friction.mu=0.2"])
    );
    assert!(matches!(
        api::load_case(&repo("cases/belt_stick_slip.toml"), &[]),
        Ok(LoadedCase::Scene(_))
    ));
    assert!(matches!(
        api::load_case(&repo("cases/football.toml"), &[]),
        Ok(LoadedCase::Rigid(_))
    ));
}

#[test]
fn load_case_refuses_what_run_refuses_with_the_same_message() {
    // The bounce scene is the viewer's: `stickslip run` refuses it (exit 2) through the slope
    // loader, which names the key and the commands that take it.
    let bounce = repo("cases/bounce.toml");
    let e = api::load_case(&bounce, &[]).unwrap_err();
    let out = Command::new(env!("CARGO_BIN_EXE_stickslip"))
        .arg("run")
        .arg(&bounce)
        .arg("--out")
        .arg(tempfile::tempdir().unwrap().path().join("o"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.trim(), format!("stickslip: error: {e}"));

    // A rigid case takes `--set` as the CLI does: applied before validation (recorded on the
    // scene), an unknown key refused with the CLI's own message.
    let football = repo("cases/football.toml");
    let Ok(LoadedCase::Rigid(rigid)) =
        api::load_case(&football, &[Override::parse("impact.mu=0").unwrap()])
    else {
        panic!("a rigid override was refused");
    };
    assert_eq!(rigid.overrides, ["impact.mu=0"]);
    let e = api::load_case(&football, &[Override::parse("impact.colour=1").unwrap()]).unwrap_err();
    let out = Command::new(env!("CARGO_BIN_EXE_stickslip"))
        .arg("run")
        .arg(&football)
        .args(["--set", "impact.colour=1", "--out"])
        .arg(tempfile::tempdir().unwrap().path().join("o"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.trim(), format!("stickslip: error: {e}"));
}
