//! The inversion barrier (`[inversion]`, src/energy/inversion.rs): the refined square folds
//! when it lands without it (cells turn over: the mass-spring grid has no energy against a
//! mirrored cell) and does not with it; its keys are validated like every other; and a run
//! records it in `summary.json`.

use std::path::Path;
use std::process::Command;

use stickslip::energy::Vec2;
use stickslip::scene::{Override, Scene};
use stickslip::solver::Simulation;

const BOOK: &str = include_str!("../../cases/slope_mu0.11.toml");

/// κ_A of the runs below, J/m² (docs/model.md: how it was chosen).
const KAPPA: f64 = 1e5;

/// Cells of the n_seg × n_seg grid whose signed area (corners (i, j), (i+1, j), (i+1, j+1),
/// (i, j+1), shoelace formula) is ≤ 0: turned over or flat. Computed here from the positions
/// alone, independently of the term's triangles.
fn inverted_cells(x: &[Vec2], n_seg: usize) -> usize {
    let id = |i: usize, j: usize| i * (n_seg + 1) + j;
    let mut count = 0;
    for i in 0..n_seg {
        for j in 0..n_seg {
            let corners = [
                x[id(i, j)],
                x[id(i + 1, j)],
                x[id(i + 1, j + 1)],
                x[id(i, j + 1)],
            ];
            let twice_area: f64 = (0..4)
                .map(|k| {
                    let (a, b) = (corners[k], corners[(k + 1) % 4]);
                    a.x * b.y - a.y * b.x
                })
                .sum();
            count += usize::from(twice_area <= 0.0);
        }
    }
    count
}

/// The book's μ = 0.11 case at n_seg = 16 with the exact spring Hessian and room for the
/// landing's iterations, plus `extra` overrides.
fn refined(extra: &[&str]) -> Scene {
    let mut settings = vec![
        "square.n_seg=16",
        "newton.projection=none",
        "newton.max_iterations=1000",
    ];
    settings.extend_from_slice(extra);
    let overrides: Vec<Override> = settings
        .iter()
        .map(|s| Override::parse(s).unwrap())
        .collect();
    Scene::load_with_overrides(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("cases/slope_mu0.11.toml"),
        &overrides,
    )
    .unwrap()
}

/// Steps `scene` for `seconds` (or until a cell has turned over, when `stop_at_fold`); returns
/// the most cells inverted after any step and the time reached, s.
fn most_inverted(scene: Scene, seconds: f64, stop_at_fold: bool) -> (usize, f64) {
    let n_seg = scene.n_seg;
    let steps = scene.steps_for(seconds);
    let mut sim = Simulation::new(scene.system().0).unwrap();
    let mut most = 0;
    for _ in 0..steps {
        sim.step().unwrap();
        most = most.max(inverted_cells(&sim.x, n_seg));
        if stop_at_fold && most > 0 {
            break;
        }
    }
    (most, sim.time())
}

/// Landing at 2.2 m/s, t ≈ 0.31–0.40 s: without the term the bottom rows fold (cells turn
/// over) by t = 0.4 s; with it no cell does through 1 s, past the landing and the bounce.
#[test]
fn the_barrier_keeps_the_refined_square_from_folding_when_it_lands() {
    let (folded, at) = most_inverted(refined(&[]), 1.0, true);
    assert!(
        folded > 0,
        "without the barrier the square folds (by {at} s)"
    );
    assert!(at <= 0.5, "on landing, not later: {at} s");
    let kappa = format!("inversion.kappa={KAPPA}");
    let (with_barrier, reached) = most_inverted(refined(&[&kappa]), 1.0, false);
    assert!((reached - 1.0).abs() < 1e-9, "ran 1 s: {reached}");
    assert_eq!(with_barrier, 0, "no cell turned over with the barrier");
}

fn with(extra: &str) -> String {
    format!("{BOOK}\n{extra}\n")
}

#[test]
fn bad_inversion_keys_are_refused_naming_file_key_and_rule() {
    for (extra, key, rule) in [
        (
            "[inversion]\nkappa = 1e5\nratio = 1.5",
            "inversion.ratio",
            "(0, 1)",
        ),
        (
            "[inversion]\nkappa = 1e5\nratio = 0.0",
            "inversion.ratio",
            "(0, 1)",
        ),
        ("[inversion]\nkappa = -1.0", "inversion.kappa", "> 0"),
        (
            "[inversion]\nkappa = 1e5\nratoi = 0.2",
            "inversion.ratoi",
            "unknown",
        ),
        ("[inversion]\nratio = 0.2", "inversion", "kappa"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let case = dir.path().join("case.toml");
        std::fs::write(&case, with(extra)).unwrap();
        let out_dir = dir.path().join("out");
        let out = Command::new(env!("CARGO_BIN_EXE_stickslip"))
            .args(["run", case.to_str().unwrap(), "--gpu", "off", "--out"])
            .arg(&out_dir)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{extra}: {stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{extra}: {stderr}");
        for needle in ["case.toml", key, rule] {
            assert!(stderr.contains(needle), "{extra}: `{needle}` in {stderr}");
        }
        assert!(!out_dir.exists(), "{extra}: nothing written");
    }
    // The same rule through --set, which says where the value came from.
    let e = Scene::from_toml_with_overrides(
        BOOK,
        Path::new("book.toml"),
        &[
            Override::parse("inversion.kappa=1e5").unwrap(),
            Override::parse("inversion.ratio=1").unwrap(),
        ],
    )
    .unwrap_err();
    assert_eq!(e.key(), "inversion.ratio");
    assert!(e.to_string().contains("--set inversion.ratio=1"), "{e}");
}

#[test]
fn the_summary_records_the_barrier_and_its_absence() {
    let dir = tempfile::tempdir().unwrap();
    let case = dir.path().join("case.toml");
    std::fs::write(&case, BOOK).unwrap();
    let summary = |name: &str, set: &[&str]| -> serde_json::Value {
        let out_dir = dir.path().join(name);
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_stickslip"));
        cmd.args(["run", case.to_str().unwrap(), "--gpu", "off"])
            .args(["--duration", "0.05", "--out"])
            .arg(&out_dir);
        for s in set {
            cmd.args(["--set", s]);
        }
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = std::fs::read_to_string(out_dir.join("summary.json")).unwrap();
        serde_json::from_str(&text).unwrap()
    };
    assert!(summary("off", &[])["inversion"].is_null());
    let on = summary("on", &["inversion.kappa=2e5", "inversion.ratio=0.25"]);
    assert_eq!(on["inversion"]["kappa"], 2e5);
    assert_eq!(on["inversion"]["ratio"], 0.25);
}

/// The triangles' nodes are those of one cell, which its diagonal springs already couple: the
/// term adds no entry to the Hessian's pattern (the same column offsets and row indices, so the
/// same factorisation path and envelope; n_seg = 16, 578 unknowns, is the skyline's).
#[test]
fn the_barrier_leaves_the_hessian_pattern_unchanged() {
    let kappa = format!("inversion.kappa={KAPPA}");
    let pattern = |scene: Scene| {
        let mut sim = Simulation::new(scene.system().0).unwrap();
        sim.begin_step();
        let x = sim.x.clone();
        let (_, lower) = sim.assembled_gradient_and_hessian(&x).unwrap();
        let (offsets, rows, _) = lower.csc_data();
        (offsets.to_vec(), rows.to_vec())
    };
    assert_eq!(pattern(refined(&[])), pattern(refined(&[&kappa])));
}
