//! `--set KEY=VALUE` overrides of a case file, applied to the parsed TOML document before it is
//! deserialised, so an overridden value is validated exactly like one written in the file.
//!
//! KEY is a dotted path into the document (`square.n_seg`, `friction.mu`, `name`); VALUE is read
//! as a TOML value (`16`, `0.05`, `[0.1, 1.0]`, `"ipc"`), and a VALUE that is not valid TOML is
//! taken as a bare string, so `--set barrier.kind=ipc` works without shell quoting. A key the
//! case format does not know is rejected by the same strict deserialisation as the file's, and
//! every error about an overridden key says that the value came from `--set`.
//!
//! The sweep and the tests use this module directly:
//! `Scene::load_with_overrides(path, &[Override::parse("square.n_seg=16")?])` (`scene::slope`).

use std::path::Path;
use std::str::FromStr;

use super::case_file::{CaseError, one_line_toml};

/// A malformed `--set` argument (before any case file is read).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("--set {setting}: {rule}")]
pub struct OverrideError {
    /// The argument as given.
    pub setting: String,
    /// What is wrong with it.
    pub rule: String,
}

/// One `KEY=VALUE` override.
#[derive(Clone, Debug, PartialEq)]
pub struct Override {
    /// The dotted key, split at the dots (`["square", "n_seg"]`).
    pub path: Vec<String>,
    /// The value, as TOML.
    pub value: toml::Value,
    /// The argument as given, for messages and `summary.json`.
    pub setting: String,
}

impl Override {
    /// Parses `KEY=VALUE` (split at the first `=`; spaces around KEY and VALUE are ignored).
    pub fn parse(setting: &str) -> Result<Override, OverrideError> {
        let bad = |rule: &str| OverrideError {
            setting: setting.to_string(),
            rule: rule.to_string(),
        };
        // A line break would end the TOML value early and drop the rest without a word.
        if setting.chars().any(|c| c.is_control() && c != '\t') {
            return Err(bad(
                "must be on one line: KEY=VALUE holds a line break or another control character",
            ));
        }
        let (key, value) = setting
            .split_once('=')
            .ok_or_else(|| bad("expected KEY=VALUE, e.g. square.n_seg=16"))?;
        let key = key.trim();
        let path: Vec<String> = key.split('.').map(|s| s.trim().to_string()).collect();
        if path.iter().any(|s| s.is_empty()) {
            return Err(bad(
                "the key must be dotted names such as friction.mu (no empty part)",
            ));
        }
        let value = value.trim();
        if value.is_empty() {
            return Err(bad("the value is empty"));
        }
        Ok(Override {
            path,
            value: parse_value(value),
            setting: format!("{key}={value}"),
        })
    }

    /// The dotted key (`square.n_seg`).
    pub fn key(&self) -> String {
        self.path.join(".")
    }

    /// Sets the value in `doc`, creating the tables on the way when absent (the strict
    /// deserialisation that follows rejects a table the format does not know). Fails when a
    /// part of the path is a value rather than a table.
    pub fn apply(&self, doc: &mut toml::Table) -> Result<(), String> {
        let (last, parents) = self
            .path
            .split_last()
            .expect("parse() never yields an empty path");
        let mut table = doc;
        for (depth, part) in parents.iter().enumerate() {
            let entry = table
                .entry(part.clone())
                .or_insert_with(|| toml::Value::Table(toml::Table::new()));
            table = match entry {
                toml::Value::Table(t) => t,
                other => {
                    return Err(format!(
                        "`{}` is a {}, not a table",
                        self.path[..=depth].join("."),
                        other.type_str()
                    ));
                }
            };
        }
        table.insert(last.clone(), self.value.clone());
        Ok(())
    }

    /// Whether an error about `key` (dotted, as [`CaseError::key`] gives it) concerns this
    /// override: the same key, a key inside it, or the table that holds it.
    fn concerns(&self, key: &str) -> bool {
        let mine = self.key();
        key == mine
            || key.starts_with(&format!("{mine}."))
            || key.starts_with(&format!("{mine}["))
            || (key != "(document)" && mine.starts_with(&format!("{key}.")))
    }
}

impl FromStr for Override {
    type Err = OverrideError;
    fn from_str(s: &str) -> Result<Override, OverrideError> {
        Override::parse(s)
    }
}

impl std::fmt::Display for Override {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.setting)
    }
}

/// VALUE as TOML (`16` an integer, `0.05` a float, `[1, 2]` an array, `"x"` a string); anything
/// that is not a TOML value is a bare string.
fn parse_value(text: &str) -> toml::Value {
    format!("v = {text}")
        .parse::<toml::Table>()
        .ok()
        // Exactly the one value: text that parses into more (`1 \n w = 2` cannot reach here,
        // but `{…}` tricks must not either) is a bare string.
        .filter(|t| t.len() == 1)
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(text.to_string()))
}

/// Case-file `text` parsed strictly into `T` with `overrides` applied, in order, to the parsed
/// document first (`path` for messages): with no overrides exactly
/// [`crate::scene::case_file::parse_case_toml`]; with them, an error about an overridden key
/// says that its value came from `--set`. Every case kind that takes `--set` reads through here.
pub(crate) fn parse_with_overrides<T: serde::de::DeserializeOwned>(
    text: &str,
    path: &Path,
    overrides: &[Override],
) -> Result<T, CaseError> {
    if overrides.is_empty() {
        return crate::scene::case_file::parse_case_toml(text, path);
    }
    let file = path.to_path_buf();
    let mut doc: toml::Table = text.parse().map_err(|e| CaseError::Parse {
        file: file.clone(),
        key: "(document)".into(),
        message: one_line_toml(&e, text),
    })?;
    for o in overrides {
        o.apply(&mut doc)
            .map_err(|message| CaseError::FromOverride {
                setting: o.setting.clone(),
                source: Box::new(CaseError::Parse {
                    file: file.clone(),
                    key: o.key(),
                    message,
                }),
            })?;
    }
    serde_path_to_error::deserialize(toml::Value::Table(doc)).map_err(|e| {
        let key = e.path().to_string();
        let message = e.inner().message().replace('\n', " ").trim().to_string();
        attribute(
            CaseError::Parse {
                file: file.clone(),
                key: if key == "." { "(document)".into() } else { key },
                message,
            },
            overrides,
        )
    })
}

/// `e` marked as coming from the last of `overrides` that concerns its key, if one does.
pub(crate) fn attribute(e: CaseError, overrides: &[Override]) -> CaseError {
    match overrides.iter().rev().find(|o| o.concerns(e.key())) {
        Some(o) => CaseError::FromOverride {
            setting: o.setting.clone(),
            source: Box::new(e),
        },
        None => e,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_read_as_toml_and_bare_words_as_strings() {
        let o = Override::parse("square.n_seg=16").unwrap();
        assert_eq!(o.path, ["square", "n_seg"]);
        assert_eq!(o.value, toml::Value::Integer(16));
        assert_eq!(
            Override::parse("friction.mu = 0.05").unwrap().value,
            toml::Value::Float(0.05)
        );
        assert_eq!(
            Override::parse("barrier.kind=ipc").unwrap().value,
            toml::Value::String("ipc".into())
        );
        let arr = Override::parse("slope.normal=[0.2, 1]").unwrap().value;
        assert_eq!(arr.as_array().map(Vec::len), Some(2));
    }

    #[test]
    fn malformed_settings_are_rejected() {
        for bad in [
            "square.n_seg",
            "=3",
            "square..n_seg=3",
            "square.n_seg=",
            "friction.mu=0.3\nsquare.n_seg=64",
        ] {
            assert!(Override::parse(bad).is_err(), "{bad} accepted");
        }
    }

    #[test]
    fn applying_through_a_value_is_an_error() {
        let mut doc: toml::Table = "[square]\nn_seg = 4\n".parse().unwrap();
        let e = Override::parse("square.n_seg.x=1")
            .unwrap()
            .apply(&mut doc)
            .unwrap_err();
        assert!(e.contains("`square.n_seg` is a integer"), "{e}");
    }
}
