//! Issue 41, item 4: two `[friction.pairs.*]` entries for the same two bodies (in either order)
//! are refused, not settled by which name sorts first; a body or driver name holding a comma,
//! a double quote or a control character (a line break) is refused, since it heads columns of
//! trajectory.csv (and of a sweep's map.csv): exit 2 with one line naming the key and the rule,
//! in 2D and 3D.

use std::path::Path;
use std::process::Command;

fn case(name: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("cases")
            .join(name),
    )
    .unwrap()
}

/// `text` with `from` replaced by `to` (which must be there).
fn edit(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "{from:?}");
    text.replacen(from, to, 1)
}

/// Runs `text` for two steps: exit 2, one line on stderr holding every one of `words`, no
/// output directory.
fn refused(text: &str, words: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("case.toml");
    std::fs::write(&path, text).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_stickslip"))
        .args(["run", path.to_str().unwrap(), "--gpu", "off", "--out"])
        .arg(dir.path().join("out"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    for w in words {
        assert!(err.contains(w), "names {w:?}: {err}");
    }
    assert!(!dir.path().join("out").exists());
}

#[test]
fn duplicate_friction_pairs_are_refused() {
    let blocks = case("stacked_blocks.toml");
    let ground = "[friction.pairs.ground]\nbetween = [\"lower\", \"floor\"]";
    // "again" sorts before "ground": the later entry is refused, naming the earlier.
    for between in ["[\"floor\", \"lower\"]", "[\"lower\", \"floor\"]"] {
        let text = edit(
            &blocks,
            "[barrier]",
            &format!(
                "[friction.pairs.again]\nbetween = {between}\nmu_static = 0.5\nmu_kinetic = 0.5\n\n[barrier]"
            ),
        );
        assert!(text.contains(ground));
        refused(
            &text,
            &[
                "friction.pairs.ground.between",
                "friction.pairs.again",
                "same two",
            ],
        );
    }
    let boxes = case("box_on_box3d.toml");
    let text = edit(
        &boxes,
        "[barrier]",
        "[friction.pairs.twin]\nbetween = [\"incline\", \"lower\"]\nmu_static = 0.5\nmu_kinetic = 0.5\n\n[barrier]",
    );
    refused(
        &text,
        &[
            "friction.pairs.twin.between",
            "friction.pairs.ground",
            "same two",
        ],
    );
}

#[test]
fn names_that_would_break_csv_columns_are_refused() {
    let blocks = case("stacked_blocks.toml");
    for (from, to, key) in [
        ("[bodies.upper]", "[bodies.\"up,per\"]", "bodies.\"up,per\""),
        (
            "[bodies.upper]",
            "[bodies.'up\"per']",
            "bodies.\"up\\\"per\"",
        ),
        (
            "[bodies.upper]",
            "[bodies.\"up\\nper\"]",
            "bodies.\"up\\nper\"",
        ),
        ("[drivers.pull]", "[drivers.\"pu,ll\"]", "drivers.\"pu,ll\""),
        (
            "[drivers.pull]",
            "[drivers.\"pu\\rll\"]",
            "drivers.\"pu\\rll\"",
        ),
    ] {
        refused(&edit(&blocks, from, to), &[key, "comma"]);
    }
    let pulled = case("pulled_block3d.toml");
    for (from, to, key) in [
        (
            "[drivers.spring]",
            "[drivers.\"spr,ing\"]",
            "drivers.\"spr,ing\"",
        ),
        (
            "[bodies.block]",
            "[bodies.\"bl\\nock\"]",
            "bodies.\"bl\\nock\"",
        ),
    ] {
        refused(&edit(&pulled, from, to), &[key, "comma"]);
    }
}
