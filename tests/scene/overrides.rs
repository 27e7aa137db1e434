//! `--set KEY=VALUE` overrides (issue 8): applied to the case document before it is validated,
//! so an overridden value obeys exactly the file's rules; derived quantities follow; errors say
//! the value came from `--set`; `summary.json` records what was overridden.

use std::path::{Path, PathBuf};
use std::process::Command;

use stickslip::scene::{CaseError, Override, Scene};

fn case(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("cases")
        .join(name)
}

fn set(settings: &[&str]) -> Vec<Override> {
    settings
        .iter()
        .map(|s| Override::parse(s).unwrap())
        .collect()
}

/// The shipped cases do not state the contact area; it follows side/n_seg, which is 0.25 m
/// exactly at the book's n_seg = 4 (so the book's figures are unchanged), and 1/32 m when the
/// square is refined to 32 segments from the command line.
#[test]
fn the_contact_area_follows_the_mesh_unless_stated() {
    let book = Scene::load(&case("slope_mu0.11.toml")).unwrap();
    assert_eq!(book.contact_area, 0.25);
    let refined =
        Scene::load_with_overrides(&case("slope_mu0.11.toml"), &set(&["square.n_seg=32"])).unwrap();
    assert_eq!(refined.n_seg, 32);
    assert_eq!(refined.contact_area, 1.0 / 32.0);
    let stated = Scene::load_with_overrides(
        &case("slope_mu0.11.toml"),
        &set(&["square.n_seg=32", "barrier.contact_area=0.25"]),
    )
    .unwrap();
    assert_eq!(stated.contact_area, 0.25);
}

#[test]
fn overrides_apply_in_order_and_are_recorded() {
    let s = Scene::load_with_overrides(
        &case("slope_mu0.20.toml"),
        &set(&[
            "friction.mu=0.05",
            "friction.mu = 0.07",
            "slope.normal=[0.2, 1]",
        ]),
    )
    .unwrap();
    assert_eq!(s.mu, 0.07);
    let n = nalgebra::Vector2::new(0.2, 1.0).normalize();
    assert_eq!(s.normal, n);
    assert_eq!(
        s.overrides,
        [
            "friction.mu=0.05",
            "friction.mu=0.07",
            "slope.normal=[0.2, 1]"
        ]
    );
}

/// An overridden value breaks the same rules as one in the file, and the message names the key
/// and says where the value came from.
#[test]
fn bad_overrides_are_rejected_naming_the_key_and_the_flag() {
    for (setting, key) in [
        ("friction.mu=-1", "friction.mu"),
        ("square.n_seg=0", "square.n_seg"),
        ("square.n_seg=2.5", "square.n_seg"),
        ("square.nseg=8", "square.nseg"),
        ("sqare.n_seg=8", "sqare"),
        ("barrier.kind=fancy", "barrier.kind"),
        ("square.n_seg.x=1", "square.n_seg.x"),
    ] {
        let e = Scene::load_with_overrides(&case("slope_mu0.11.toml"), &set(&[setting]))
            .expect_err(setting);
        assert!(
            matches!(e, CaseError::FromOverride { .. }),
            "{setting}: {e:?}"
        );
        let msg = e.to_string();
        assert!(msg.contains(&format!("key `{key}`")), "{setting}: {msg}");
        assert!(
            msg.contains(&format!("--set {setting}")),
            "{setting}: {msg}"
        );
        assert_eq!(msg.lines().count(), 1, "{msg}");
    }
}

#[test]
fn the_cli_records_overrides_and_refuses_bad_ones_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("out");
    let out = Command::new(env!("CARGO_BIN_EXE_stickslip"))
        .args(["run", case("slope_mu0.11.toml").to_str().unwrap()])
        .args(["--gpu", "off", "--duration", "0.05", "--out"])
        .arg(&out_dir)
        .args(["--set", "square.n_seg=8", "--set", "friction.mu=0.05"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("summary.json")).unwrap())
            .unwrap();
    assert_eq!(
        summary["overrides"],
        serde_json::json!(["square.n_seg=8", "friction.mu=0.05"])
    );
    assert_eq!(summary["nodes"], 81);
    assert_eq!(summary["mu"], 0.05);

    let bad_dir = dir.path().join("bad");
    let out = Command::new(env!("CARGO_BIN_EXE_stickslip"))
        .args(["run", case("slope_mu0.11.toml").to_str().unwrap()])
        .args(["--gpu", "off", "--out"])
        .arg(&bad_dir)
        .args(["--set", "square.colour=3"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("square.colour") && err.contains("--set"),
        "{err}"
    );
    assert!(!bad_dir.exists(), "nothing written for a refused case");
}
