//! Bad sweep files are refused before any cell runs: exit 2, one line naming the sweep file and
//! the axis (or key) at fault, and no output directory created. And the case key
//! `slope.angle_deg` the sweeps' slope axis is an alternative to: θ = atan 0.1 gives the book's
//! normal (0.1, 1)/‖(0.1, 1)‖ (SPEC.md §1), and a slope states exactly one of the two.

use std::path::Path;
use std::process::Command;

use stickslip::scene::Scene;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_stickslip"))
}

fn book_case() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("cases/slope_mu0.11.toml")
        .display()
        .to_string()
}

/// Runs a sweep file of `axes` (TOML) over the book's case; asserts exit 2, one line holding
/// every one of `needles`, and no output directory.
fn refused(axes: &str, needles: &[&str]) {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("bad.toml");
    std::fs::write(
        &file,
        format!(
            "case = {:?}\nset = [\"time.duration=1.2\"]\n\n{axes}",
            book_case()
        ),
    )
    .unwrap();
    let out = tmp.path().join("out");
    let o = bin()
        .arg("sweep")
        .arg(&file)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    assert!(
        err.contains(&file.display().to_string()),
        "names the file: {err}"
    );
    for n in needles {
        assert!(err.contains(n), "{n:?} in {err}");
    }
    assert!(!out.exists(), "no output directory for a bad sweep file");
    assert_eq!(
        std::fs::read_dir(tmp.path()).unwrap().count(),
        1,
        "nothing beside it either"
    );
}

#[test]
fn an_unknown_key_on_an_axis_is_named() {
    refused(
        "[[axis]]\nkey = \"friction.mu\"\nvalues = [0.1]\n\n[[axis]]\nkey = \"friction.muu\"\nvalues = [0.1, 0.2]\n",
        &["axis 2 `friction.muu`", "unknown field `muu`"],
    );
}

#[test]
fn an_empty_range_is_named() {
    refused(
        "[[axis]]\nkey = \"friction.mu\"\nfrom = 0.1\nto = 0.5\ncount = 0\n",
        &["axis 1 `friction.mu`", "empty"],
    );
    refused(
        "[[axis]]\nkey = \"friction.mu\"\nvalues = []\n",
        &["axis 1 `friction.mu`", "empty"],
    );
    refused(
        "[[axis]]\nkey = \"friction.mu\"\nfrom = 0.3\nto = 0.3\ncount = 4\n",
        &["axis 1 `friction.mu`", "empty"],
    );
}

#[test]
fn a_value_the_case_rejects_is_named_with_the_cases_rule() {
    refused(
        "[[axis]]\nkey = \"friction.mu\"\nvalues = [0.1, -1]\n",
        &["axis 1 `friction.mu`", "value -1", "friction.mu", ">= 0"],
    );
    // tan θ = 2 puts the square's lowest corner below the slope through (0, -1).
    refused(
        "[[axis]]\nkey = \"slope.tan_theta\"\nvalues = [0.1, 2.0]\n",
        &["axis 1 `slope.tan_theta`", "value 2.0", "square.centre"],
    );
}

#[test]
fn a_malformed_sweep_file_names_its_key() {
    refused(
        "[[axis]]\nkey = \"friction.mu\"\nvalues = [0.1]\nstep = 2\n",
        &["axis", "step"],
    );
    refused("", &["axis", "at least one"]);
}

#[test]
fn angle_deg_reproduces_the_books_normal_and_excludes_the_normal() {
    let text = std::fs::read_to_string(book_case()).unwrap();
    let book = Scene::from_toml(&text, Path::new("book.toml")).unwrap();
    let by_angle = text.replace(
        "normal = [0.1, 1.0]",
        &format!("angle_deg = {:?}", 0.1f64.atan().to_degrees()),
    );
    assert_ne!(by_angle, text);
    let scene = Scene::from_toml(&by_angle, Path::new("angle.toml")).unwrap();
    // atan, to degrees and back, sin and cos: a few roundings of numbers below 1.
    assert!(
        (scene.normal - book.normal).amax() < 1e-15,
        "{} {}",
        scene.normal,
        book.normal
    );

    let both = text.replace(
        "normal = [0.1, 1.0]",
        "normal = [0.1, 1.0]\nangle_deg = 5.0",
    );
    let e = Scene::from_toml(&both, Path::new("both.toml")).unwrap_err();
    assert_eq!(e.key(), "slope.angle_deg");
    assert!(e.to_string().contains("exactly one"), "{e}");
    for bad in ["0.0", "90.0", "-5.0", "nan"] {
        let t = text.replace("normal = [0.1, 1.0]", &format!("angle_deg = {bad}"));
        let e = Scene::from_toml(&t, Path::new("bad.toml")).unwrap_err();
        assert_eq!(e.key(), "slope.angle_deg", "{bad}: {e}");
    }
    let neither = text.replace("normal = [0.1, 1.0]", "");
    let e = Scene::from_toml(&neither, Path::new("neither.toml")).unwrap_err();
    assert!(
        e.to_string().contains("slope.normal or slope.angle_deg"),
        "{e}"
    );
}
