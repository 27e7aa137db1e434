//! Settings that used to be constants in code and are now case keys (issue 9): the tunnelling
//! filter's fraction (`newton.filter_fraction`) and the cross-check's late window and restitution
//! (`[cross_check]`). Their defaults are SPEC.md's (0.9, 1 s, e = 0), bad values are refused naming
//! the key, and each setting reaches what it sets.

use std::path::Path;
use std::process::Command;

use stickslip::contact::candidates::plane_vertex::PlaneVertex;
use stickslip::contact::{ContactPair, HalfSpace};
use stickslip::energy::Vec2;
use stickslip::scene::Scene;

const BOOK: &str = include_str!("../../cases/slope_mu0.11.toml");

/// The book case with `extra` appended (the last section of the file is `[newton]`).
fn with(extra: &str) -> String {
    format!("{BOOK}\n{extra}\n")
}

#[test]
fn defaults_are_the_specs_and_bad_values_name_their_key() {
    let book = Scene::from_toml(BOOK, Path::new("book.toml")).unwrap();
    assert_eq!(book.filter_fraction, 0.9, "SPEC.md §2's filter");
    assert_eq!(book.cross_check_late_from, 1.0, "SPEC.md §4's late window");
    assert_eq!(book.cross_check_restitution, 0.0, "SPEC.md §4's e = 0");

    let set = Scene::from_toml(
        &with("filter_fraction = 0.5\n[cross_check]\nlate_from = 2.5\nrestitution = 0.25"),
        Path::new("set.toml"),
    )
    .unwrap();
    assert_eq!(
        (
            set.filter_fraction,
            set.cross_check_late_from,
            set.cross_check_restitution
        ),
        (0.5, 2.5, 0.25)
    );

    for (extra, key) in [
        ("filter_fraction = 1.0", "newton.filter_fraction"),
        ("filter_fraction = 0.0", "newton.filter_fraction"),
        (
            "[cross_check]\nrestitution = 1.5",
            "cross_check.restitution",
        ),
        ("[cross_check]\nlate_from = -1.0", "cross_check.late_from"),
        ("[cross_check]\nlate_form = 1.0", "cross_check.late_form"),
    ] {
        let err = Scene::from_toml(&with(extra), Path::new("bad.toml")).unwrap_err();
        assert_eq!(err.key(), key, "{extra}: {err}");
        assert_eq!(err.to_string().lines().count(), 1, "{err}");
    }
}

#[test]
fn the_filter_fraction_is_the_share_of_the_distance_one_trial_may_cover() {
    let slope = HalfSpace::new(Vec2::new(0.0, 1.0), Vec2::zeros());
    let pair = |node| PlaneVertex {
        node,
        vertex: node,
        area: 0.25,
        body: 0,
        plane: 0,
        obstacle: 1,
        half_space: slope,
    };
    // A node 0.1 m above the slope, asked to move 1 m into it; another moving away.
    let x = [Vec2::new(0.0, 0.1), Vec2::new(1.0, 0.5)];
    let p = [Vec2::new(0.3, -1.0), Vec2::new(0.0, 2.0)];
    for fraction in [0.9, 0.5, 0.1] {
        let alpha = pair(0)
            .max_step(&x, &p, fraction)
            .min(pair(1).max_step(&x, &p, fraction));
        // The node ends fraction·0.1 m lower, i.e. (1 − fraction)·0.1 m above the slope.
        let end = x[0] + p[0] * alpha;
        assert!(
            (end.y - (1.0 - fraction) * 0.1).abs() < 1e-15,
            "{fraction}: {end}"
        );
    }
}

#[test]
fn the_late_window_of_the_cross_check_starts_where_the_case_says() {
    let dir = tempfile::tempdir().unwrap();
    let case = dir.path().join("late0.toml");
    std::fs::write(&case, with("[cross_check]\nlate_from = 0.0")).unwrap();
    let out = dir.path().join("out");
    let o = Command::new(env!("CARGO_BIN_EXE_stickslip"))
        .args([
            "run",
            case.to_str().unwrap(),
            "--gpu",
            "off",
            "--duration",
            "1",
        ])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let c = &summary["cross_check"];
    // From t = 0 on, the late window holds every approaching record: it equals the overall one.
    assert!(c["overall"]["total"].as_u64().unwrap() > 0, "{c}");
    assert_eq!(c["late"], c["overall"], "{c}");
    assert_eq!(c["config"]["late_from_s"], 0.0);
}
