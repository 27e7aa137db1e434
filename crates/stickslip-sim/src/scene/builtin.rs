//! The case files built into the binary: the three slope cases of SPEC.md §1 that `stickslip`
//! runs with no arguments (and `view` and `plot` show when given no case), and the bounce scene
//! that `stickslip view --scene bounce` shows. Each is `(path as named in messages, text)`.

/// The three slope cases of SPEC.md §1, from `cases/`.
pub const BUILTIN_CASES: [(&str, &str); 3] = [
    (
        "cases/slope_mu0.10.toml",
        include_str!("../../../../cases/slope_mu0.10.toml"),
    ),
    (
        "cases/slope_mu0.11.toml",
        include_str!("../../../../cases/slope_mu0.11.toml"),
    ),
    (
        "cases/slope_mu0.20.toml",
        include_str!("../../../../cases/slope_mu0.20.toml"),
    ),
];

/// Seed 001's bounce scene, `cases/bounce.toml` (`kind = "bounce"`).
pub const BUILTIN_BOUNCE: (&str, &str) = (
    "cases/bounce.toml",
    include_str!("../../../../cases/bounce.toml"),
);

use std::path::{Path, PathBuf};

use super::{CaseError, Override, Scene};

/// The slope cases at `paths`, or the built-in three when `paths` is empty, each with
/// `overrides` applied (`stickslip view` and `stickslip plot`).
pub fn load_slope_cases(
    paths: &[PathBuf],
    overrides: &[Override],
) -> Result<Vec<Scene>, CaseError> {
    if paths.is_empty() {
        BUILTIN_CASES
            .iter()
            .map(|(path, text)| Scene::from_toml_with_overrides(text, Path::new(path), overrides))
            .collect()
    } else {
        paths
            .iter()
            .map(|p| Scene::load_with_overrides(p, overrides))
            .collect()
    }
}
