//! The book's three cases (cases/slope_mu0.10/0.11/0.20.toml, SPEC.md §1) print the figures
//! they printed before the refactor of issue 9: tests/data/book_figures.toml holds them, as
//! main at 3a95b10 wrote them (the file says how). The binary is run as a user runs it, with
//! `--gpu off` so the cross-check columns come from the CPU law on any machine.
//!
//! Compared: the verdict and its stop time, the downhill distance and the final speed to 4
//! significant digits (the precision the book and the verdict table quote; the last bits of an
//! f64 may move with the order of a sum on another CPU or compiler, the fourth digit may not),
//! Newton iterations (total, most in a step, 95th percentile) and line-search halvings exactly,
//! and the rows of the no-argument verdict table character for character except the two
//! wall-time columns.

use std::path::Path;
use std::process::Command;

use serde::Deserialize;

#[derive(Debug, Deserialize)]
struct Figures {
    case: Vec<CaseFigures>,
}

#[derive(Debug, Deserialize)]
struct CaseFigures {
    file: String,
    verdict: String,
    stop_time: Option<f64>,
    downhill_distance: f64,
    final_speed: f64,
    newton_iterations: u64,
    max_iterations_in_step: u64,
    p95_iterations_per_step: u64,
    line_search_halvings: u64,
    table: String,
}

/// The first and the last character of the wall-time columns (`wall`, `post-pass`) of a table
/// row: 6+1+24+1+10+1+12+1+8+1+14+1+9 characters of mu … halvings come before them.
const WALL_COLUMNS: std::ops::Range<usize> = 89..110;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn committed() -> Figures {
    let text = std::fs::read_to_string(root().join("tests/data/book_figures.toml")).unwrap();
    toml::from_str(&text).unwrap()
}

/// `x` to 4 significant digits, as text (so that equality means "prints the same").
fn sig4(x: f64) -> String {
    format!("{x:.3e}")
}

#[test]
fn the_book_cases_give_the_committed_figures() {
    let figures = committed();
    assert_eq!(figures.case.len(), 3);
    let dir = tempfile::tempdir().unwrap();
    for want in &figures.case {
        let out_dir = dir.path().join(Path::new(&want.file).file_stem().unwrap());
        let out = Command::new(env!("CARGO_BIN_EXE_stickslip"))
            .current_dir(root())
            .args(["run", &want.file, "--gpu", "off", "--out"])
            .arg(&out_dir)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}: {:?}", want.file, out);
        let text = std::fs::read_to_string(out_dir.join("summary.json")).unwrap();
        let got: serde_json::Value = serde_json::from_str(&text).unwrap();
        let f64_at = |path: &str| {
            got.pointer(path)
                .and_then(serde_json::Value::as_f64)
                .unwrap_or_else(|| panic!("{}: no number at {path}", want.file))
        };
        let u64_at = |path: &str| {
            got.pointer(path)
                .and_then(serde_json::Value::as_u64)
                .unwrap_or_else(|| panic!("{}: no count at {path}", want.file))
        };
        let case = &want.file;
        assert_eq!(got["verdict"]["state"], want.verdict.as_str(), "{case}");
        match want.stop_time {
            Some(t) => assert_eq!(sig4(f64_at("/verdict/since")), sig4(t), "{case}"),
            None => assert!(got["verdict"].get("since").is_none(), "{case}"),
        }
        assert_eq!(
            sig4(f64_at("/downhill_distance")),
            sig4(want.downhill_distance),
            "{case}"
        );
        assert_eq!(
            sig4(f64_at("/final_speed")),
            sig4(want.final_speed),
            "{case}"
        );
        assert_eq!(
            u64_at("/solver/newton_iterations"),
            want.newton_iterations,
            "{case}"
        );
        assert_eq!(
            u64_at("/solver/max_iterations_in_step"),
            want.max_iterations_in_step,
            "{case}"
        );
        assert_eq!(
            u64_at("/p95_iterations_per_step"),
            want.p95_iterations_per_step,
            "{case}"
        );
        assert_eq!(
            u64_at("/solver/line_search_halvings"),
            want.line_search_halvings,
            "{case}"
        );
    }
}

#[test]
fn the_verdict_table_prints_the_committed_rows() {
    let figures = committed();
    let out = Command::new(env!("CARGO_BIN_EXE_stickslip"))
        .args(["--gpu", "off"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    // The rows follow the title, the adapter line, a blank line and the two header lines.
    let rows: Vec<String> = stdout
        .lines()
        .skip(5)
        .take(figures.case.len())
        .map(|row| {
            assert!(row.is_ascii() && row.len() > WALL_COLUMNS.end, "{row:?}");
            format!(
                "{} |{}",
                &row[..WALL_COLUMNS.start],
                &row[WALL_COLUMNS.end..]
            )
        })
        .collect();
    let want: Vec<&str> = figures.case.iter().map(|c| c.table.as_str()).collect();
    assert_eq!(rows, want, "\n{stdout}");
}
