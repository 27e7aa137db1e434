//! Case files of `kind = "bounce"`: seed 001's bounce scene (SPEC.md §3), three balls dropped on
//! a floor whose every bounce goes through the impulse law (the scene itself:
//! the front-end's `stickslip::view::bounce`). `cases/bounce.toml` holds the seed's values:
//!
//! ```toml
//! kind = "bounce"
//! name = "bounce scene (seed 001)"
//! gravity = 9.80665              # m/s^2, > 0
//! drop = 2.0                     # m, > 0
//! restitutions = [0.5, 0.7, 0.9] # exactly three, each in (0, 1]
//! bounces = 8                    # 1..=8
//! steps_per_flight = 20          # 2..=1000
//! steps_per_second = 30.0        # > 0
//! ```
//!
//! The scene computes in binary32, as the seed's GPU program: every value must also be a finite
//! binary32. The lamps' tolerances are not case settings: they are the seed's bounds on the
//! rounding of binary32 arithmetic, for at most eight bounces (hence `bounces` ≤ 8).

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::case_file::{CaseError, parse_case_toml, read_case_file};
use super::kind::BOUNCE_KIND;

/// Most bounces a drop: seed 001's tolerance on a bounce's height (about 67 ε₃₂) is the
/// rounding of eight bounces of binary32 arithmetic, not of more.
pub const MAX_BOUNCES: u32 = 8;
/// Most steps a flight (a drop of 8 bounces is then 9000 steps, the chart's history).
pub const MAX_STEPS_PER_FLIGHT: u32 = 1000;

/// The file as written.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BounceCaseFile {
    /// Must be `"bounce"`.
    pub kind: String,
    /// A name for the scene.
    pub name: String,
    /// Gravity, m/s².
    pub gravity: f64,
    /// Drop height, m.
    pub drop: f64,
    /// The three balls' restitutions.
    pub restitutions: Vec<f64>,
    /// Bounces before the balls are dropped again.
    pub bounces: u32,
    /// Steps a flight.
    pub steps_per_flight: u32,
    /// Steps a second of the viewer's clock at speed 1.
    pub steps_per_second: f64,
}

/// A validated bounce case, in the binary32 the scene computes in.
#[derive(Clone, Debug, PartialEq)]
pub struct BounceCase {
    /// A name for the scene.
    pub name: String,
    /// The case file (`None` for a case made in code).
    pub source: Option<PathBuf>,
    /// Gravity, m/s², > 0.
    pub gravity: f32,
    /// Drop height, m, > 0.
    pub drop: f32,
    /// The three balls' restitutions, each in (0, 1].
    pub restitutions: [f32; 3],
    /// Bounces before the balls are dropped again, 1..=[`MAX_BOUNCES`].
    pub bounces: u32,
    /// Steps a flight, 2..=[`MAX_STEPS_PER_FLIGHT`].
    pub steps_per_flight: u32,
    /// Steps a second of the viewer's clock at speed 1, > 0.
    pub steps_per_second: f64,
}

impl BounceCase {
    /// Reads and validates the case file at `path`.
    pub fn load(path: &Path) -> Result<BounceCase, CaseError> {
        BounceCase::from_toml(&read_case_file(path)?, path)
    }

    /// Parses and validates case-file text; `path` is used in messages.
    pub fn from_toml(text: &str, path: &Path) -> Result<BounceCase, CaseError> {
        let file: BounceCaseFile = parse_case_toml(text, path)?;
        BounceCase::from_file(&file, path)
    }

    /// Validates a parsed file: the first rule broken is one line naming `path` and the key.
    pub fn from_file(f: &BounceCaseFile, path: &Path) -> Result<BounceCase, CaseError> {
        let invalid = |key: &str, rule: &str, value: String| CaseError::Invalid {
            file: path.to_path_buf(),
            key: key.into(),
            rule: rule.into(),
            value,
        };
        if f.kind != BOUNCE_KIND {
            let rule = format!("must be \"{BOUNCE_KIND}\" here");
            return Err(invalid("kind", &rule, f.kind.clone()));
        }
        // Finite and > 0 also as binary32 (1e39 is finite in f64, infinite in f32).
        let positive32 = |key: &str, x: f64| -> Result<f32, CaseError> {
            let x32 = x as f32;
            if x.is_finite() && x > 0.0 && x32.is_finite() && x32 > 0.0 {
                Ok(x32)
            } else {
                let rule = "must be finite and > 0 (also as a binary32)";
                Err(invalid(key, rule, x.to_string()))
            }
        };
        let gravity = positive32("gravity", f.gravity)?;
        let drop = positive32("drop", f.drop)?;
        let restitutions: [f64; 3] = f.restitutions.as_slice().try_into().map_err(|_| {
            let rule = "must hold exactly three values, one a ball";
            invalid("restitutions", rule, format!("{:?}", f.restitutions))
        })?;
        let mut e32 = [0.0f32; 3];
        for (k, &e) in restitutions.iter().enumerate() {
            // e = 0 would make the bounce lamp's relative error 0/0.
            if !(e > 0.0 && e <= 1.0) {
                let key = format!("restitutions[{k}]");
                return Err(invalid(&key, "must be in (0, 1]", e.to_string()));
            }
            e32[k] = e as f32;
        }
        if !(1..=MAX_BOUNCES).contains(&f.bounces) {
            let rule = format!(
                "must be between 1 and {MAX_BOUNCES} (the bounce lamp's binary32 tolerance is for at most {MAX_BOUNCES} bounces)"
            );
            return Err(invalid("bounces", &rule, f.bounces.to_string()));
        }
        if !(2..=MAX_STEPS_PER_FLIGHT).contains(&f.steps_per_flight) {
            let rule = format!("must be between 2 and {MAX_STEPS_PER_FLIGHT}");
            return Err(invalid(
                "steps_per_flight",
                &rule,
                f.steps_per_flight.to_string(),
            ));
        }
        if !(f.steps_per_second.is_finite() && f.steps_per_second > 0.0) {
            let rule = "must be finite and > 0";
            return Err(invalid(
                "steps_per_second",
                rule,
                f.steps_per_second.to_string(),
            ));
        }
        Ok(BounceCase {
            name: f.name.clone(),
            source: Some(path.to_path_buf()),
            gravity,
            drop,
            restitutions: e32,
            bounces: f.bounces,
            steps_per_flight: f.steps_per_flight,
            steps_per_second: f.steps_per_second,
        })
    }

    /// The built-in `cases/bounce.toml` (what `stickslip view --scene bounce` shows).
    pub fn builtin() -> BounceCase {
        let (path, text) = super::builtin::BUILTIN_BOUNCE;
        match BounceCase::from_toml(text, Path::new(path)) {
            Ok(case) => case,
            // The file is part of the binary and checked by the tests below: not user input.
            Err(e) => unreachable!("the built-in bounce case is valid: {e}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(key: &str, value: &str) -> String {
        let (_, text) = super::super::builtin::BUILTIN_BOUNCE;
        text.lines()
            .map(|l| {
                if l.starts_with(&format!("{key} =")) {
                    format!("{key} = {value}")
                } else {
                    l.to_owned()
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn the_shipped_case_holds_the_seeds_values_to_the_bit() {
        let c = BounceCase::builtin();
        // Seed 001's binary32 constants, as it wrote them.
        assert_eq!(c.gravity.to_bits(), 9.80665f32.to_bits());
        assert_eq!(c.drop.to_bits(), 2.0f32.to_bits());
        assert_eq!(
            c.restitutions.map(f32::to_bits),
            [0.5f32, 0.7, 0.9].map(f32::to_bits)
        );
        assert_eq!((c.bounces, c.steps_per_flight), (8, 20));
        assert_eq!(c.steps_per_second, 30.0);
        // And the file on disk is the built-in one.
        let disk = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../cases/bounce.toml");
        assert_eq!(BounceCase::load(&disk).unwrap().gravity, c.gravity);
    }

    #[test]
    fn a_bad_value_names_the_key_and_the_rule() {
        for (key, value, named) in [
            ("gravity", "0.0", "gravity"),
            ("drop", "1e39", "drop"),
            ("restitutions", "[0.5, 0.7]", "restitutions"),
            ("restitutions", "[0.5, 0.0, 0.9]", "restitutions[1]"),
            ("restitutions", "[0.5, 0.7, 1.5]", "restitutions[2]"),
            ("bounces", "9", "bounces"),
            ("steps_per_flight", "1", "steps_per_flight"),
            ("steps_per_second", "nan", "steps_per_second"),
            ("kind", "\"slope_square\"", "kind"),
            ("bounces", "-1", "bounces"),
        ] {
            let e = BounceCase::from_toml(&with(key, value), Path::new("b.toml")).unwrap_err();
            assert_eq!(e.key(), named, "{key} = {value}: {e}");
            assert!(e.to_string().starts_with("b.toml: key `"), "{e}");
        }
        let extra = format!("{}\nwind = 1.0\n", with("drop", "2.0"));
        let e = BounceCase::from_toml(&extra, Path::new("b.toml")).unwrap_err();
        assert!(e.to_string().contains("wind"), "{e}");
    }
}
