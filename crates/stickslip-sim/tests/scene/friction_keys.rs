//! The `[friction]` keys of issue 8 (SPEC.md §6) on real case text: `mu` alone, or
//! `mu_static` with `mu_kinetic` (μ_s ≥ μ_k ≥ 0), and the lagging keys; every refusal is one
//! line naming the key and the rule.

use std::path::Path;

use stickslip_sim::scene::Scene;
use stickslip_sim::scene::slope::{DEFAULT_LAGGING_TOL, DEFAULT_MAX_LAGGING};
use stickslip_sim::solver::Lagging;

fn shipped() -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../cases/slope_mu0.11.toml"),
    )
    .unwrap()
}

/// The shipped case with its `mu = 0.11` line replaced by `friction_lines`.
fn with_friction(friction_lines: &str) -> Result<Scene, String> {
    let text = shipped().replace("mu = 0.11\n", &format!("{friction_lines}\n"));
    Scene::from_toml(&text, Path::new("case.toml")).map_err(|e| e.to_string())
}

#[test]
fn mu_alone_is_both_coefficients_with_the_books_lagging() {
    let s = with_friction("mu = 0.11").unwrap();
    assert_eq!((s.mu, s.mu_static), (0.11, 0.11));
    assert_eq!(s.lagging, Lagging::SemiImplicit);
    assert_eq!(
        (s.lagging_tol, s.max_lagging),
        (DEFAULT_LAGGING_TOL, DEFAULT_MAX_LAGGING)
    );
}

#[test]
fn static_and_kinetic_and_implicit_lagging_are_read() {
    let s = with_friction(
        "mu_static = 0.2\nmu_kinetic = 0.05\nlagging = \"implicit\"\nlagging_tol = 1e-8\nmax_lagging = 5",
    )
    .unwrap();
    assert_eq!((s.mu, s.mu_static), (0.05, 0.2));
    assert_eq!(s.lagging, Lagging::Implicit);
    assert_eq!((s.lagging_tol, s.max_lagging), (1e-8, 5));
}

#[test]
fn bad_friction_keys_are_refused_naming_the_key() {
    for (lines, key, rule) in [
        (
            "mu_static = 0.05\nmu_kinetic = 0.2",
            "friction.mu_static",
            "must be >= friction.mu_kinetic",
        ),
        (
            "mu = 0.1\nmu_static = 0.2\nmu_kinetic = 0.05",
            "friction.mu",
            "either mu alone or both",
        ),
        ("mu_static = 0.2", "friction.mu_kinetic", "missing"),
        ("mu_kinetic = 0.2", "friction.mu_static", "missing"),
        ("", "friction.mu", "missing"),
        (
            "mu_static = 0.2\nmu_kinetic = -0.1",
            "friction.mu_kinetic",
            ">= 0",
        ),
        (
            "mu = 0.1\nlagging = \"explicit\"",
            "friction.lagging",
            "unknown variant",
        ),
        ("mu = 0.1\nlagging_tol = 0.0", "friction.lagging_tol", "> 0"),
    ] {
        let err = with_friction(lines).expect_err(lines);
        assert!(
            err.contains(&format!("case.toml: key `{key}`")) && err.contains(rule),
            "{lines:?}: {err}"
        );
        assert!(!err.contains('\n'), "one line: {err}");
    }
}
