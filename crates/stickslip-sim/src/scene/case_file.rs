//! Reading case files, shared by every case kind: the file's text (refusing what is not a
//! regular file of a sensible size), strict TOML parsing into a kind's schema with errors that
//! name the file and the dotted key on one line, the `kind` peek, and the rules every kind's
//! validation shares (`Validator`). Each kind's schema and validation is its own module
//! (`scene/slope/`, `rigid/case.rs`, `scene/bounce.rs`).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Deserializer, Serialize};

use crate::contact::potentials::friction::StickModel;
use crate::energy::Projection;
use crate::number_format::{Short, short_list};
use crate::solver::InitialGuess;

/// A case file is a few hundred bytes; one over 1 MiB is not a case file.
const MAX_CASE_FILE_BYTES: u64 = 1 << 20;

/// Deserialises an array of exactly `N` numbers, a vector of a scene of dimension `N` (serde's
/// `[f64; N]` would take the first `N` of a longer array; a vector of the other dimension's
/// length is refused, naming its key).
pub(crate) fn exactly_n<'de, De: Deserializer<'de>, const N: usize>(
    d: De,
) -> Result<[f64; N], De::Error> {
    let v = Vec::<f64>::deserialize(d)?;
    <[f64; N]>::try_from(v.as_slice()).map_err(|_| {
        let expected = if N == 3 {
            "an array of exactly 3 numbers, [x, y, z] (the scene declares dimension = 3)"
        } else {
            "an array of exactly 2 numbers, [x, y]"
        };
        serde::de::Error::invalid_length(v.len(), &expected)
    })
}

/// [`exactly_n`] for an optional key (called only when the key is present).
pub(crate) fn exactly_n_opt<'de, De: Deserializer<'de>, const N: usize>(
    d: De,
) -> Result<Option<[f64; N]>, De::Error> {
    exactly_n::<De, N>(d).map(Some)
}

/// [`exactly_n`] in 2D: serde's own `[f64; 2]` reads the first two elements and ignores the
/// rest, so `[0, 0, -9.81]` would be taken as `[0, 0]`.
pub(crate) fn exactly_two<'de, D: Deserializer<'de>>(d: D) -> Result<[f64; 2], D::Error> {
    exactly_n::<D, 2>(d)
}

/// [`exactly_two`] for an optional key (called only when the key is present).
pub(crate) fn exactly_two_opt<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<[f64; 2]>, D::Error> {
    exactly_n_opt::<D, 2>(d)
}

/// An error reading or validating a case file. Its `Display` is one line naming the file, the key
/// and the rule.
#[derive(Debug, thiserror::Error)]
pub enum CaseError {
    /// The file could not be read.
    #[error("{file}: cannot read: {source}")]
    Io {
        /// The case file.
        file: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The path is not a regular file of a sensible size.
    #[error("{file}: not a case file: it is {what}; give the path of a TOML case file")]
    NotACaseFile {
        /// The path.
        file: PathBuf,
        /// What it is instead.
        what: &'static str,
    },
    /// The file is not valid TOML, or a key is unknown, missing or of the wrong type.
    #[error("{file}: key `{key}`: {message}")]
    Parse {
        /// The case file.
        file: PathBuf,
        /// Dotted path of the offending key (`(document)` when the TOML itself is malformed).
        key: String,
        /// What is wrong, on one line.
        message: String,
    },
    /// A value breaks a rule of the model.
    #[error("{file}: key `{key}`: {rule} (got {value})")]
    Invalid {
        /// The case file.
        file: PathBuf,
        /// Dotted path of the offending key.
        key: String,
        /// The rule broken.
        rule: String,
        /// The value as given.
        value: String,
    },
    /// An error about a key whose value came from a `--set` override
    /// ([`crate::scene::overrides`]).
    #[error("{source} [the value came from --set {setting}]")]
    FromOverride {
        /// The override as given (`KEY=VALUE`).
        setting: String,
        /// The error, as it would read for the same value in the file.
        source: Box<CaseError>,
    },
}

impl CaseError {
    /// The dotted key the error is about.
    pub fn key(&self) -> &str {
        match self {
            CaseError::Io { .. } | CaseError::NotACaseFile { .. } => "(file)",
            CaseError::Parse { key, .. } | CaseError::Invalid { key, .. } => key,
            CaseError::FromOverride { source, .. } => source.key(),
        }
    }
}

/// The top-level `kind` of a case file's text, if it is TOML with a string `kind` (the CLI's
/// dispatch peeks at it before choosing a parser).
pub fn peek_kind(text: &str) -> Option<String> {
    let table: toml::Table = toml::from_str(text).ok()?;
    table.get("kind")?.as_str().map(str::to_owned)
}

/// `[time]`: implicit Euler.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TimeSection {
    /// Time step h, s.
    pub h: f64,
    /// Simulated duration, s.
    pub duration: f64,
}

/// `[newton]`: projected Newton and its line search (the slope's and a scene's).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct NewtonSection {
    /// Stop when ‖p‖∞ / h < tol, m/s.
    pub tol: f64,
    /// Iterations allowed per step before the step is an error.
    pub max_iterations: usize,
    /// Iterations every step takes before the stopping rule may end it
    /// ([`crate::solver::SolverSettings::min_iterations`]): 1 when absent, so that no step
    /// ends where it started while the body moves; 0 is the book's loop (its three slope
    /// cases state it), whose steps freeze when the first residual is under `tol`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_iterations: Option<usize>,
    /// Halvings allowed per line search before the step is an error.
    pub max_halvings: usize,
    /// How the elastic Hessian (springs; in a scene also the neo-Hookean's) is projected:
    /// `"clamp"` (SPEC.md §2, the default when absent) or
    /// `"none"` (the exact Hessian, clamped only in an iteration where it is not positive
    /// definite; for refined meshes, docs/refinement.md).
    #[serde(default)]
    pub projection: Projection,
    /// The tunnelling filter's fraction (SPEC.md §2): no node may cover more than this part of its
    /// distance to the slope in one line-search trial; in (0, 1), 0.9 in the book (the default).
    #[serde(default = "default_filter_fraction")]
    pub filter_fraction: f64,
    /// The stick-zone filter ([`crate::contact::potentials::friction::stick_zone_max_step`]): a line-search
    /// trial stops where a sliding contact node's tangential displacement would change sign, so
    /// Newton lands inside friction's stick zone instead of jumping across it. Off by default
    /// (the book's line search); for refined meshes, docs/refinement.md.
    #[serde(default)]
    pub stick_filter: bool,
    /// Where Newton starts a step: `"previous"` (xⁿ, the book's; the slope's default) or
    /// `"inertial"` (x̃ cut back by the step filter; a scene's default, docs/scenes.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_guess: Option<InitialGuess>,
}

fn default_filter_fraction() -> f64 {
    0.9
}

impl NewtonSection {
    /// `newton.min_iterations`, 1 when absent.
    pub fn min_iterations(&self) -> usize {
        self.min_iterations.unwrap_or(1)
    }
}

/// `friction.stick`: how friction holds a contact that sticks (SPEC.md §9).
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Stick {
    /// `"smoothed"`: the book's and IPC's smoothed friction (SPEC.md §2, §6), which creeps
    /// under a static load; the default.
    #[default]
    Smoothed,
    /// `"exact"`: exact stick, a persistent tangential spring per contact with yield
    /// displacement `friction.eps_d` (`contact::potentials::friction`).
    Exact,
}

/// Whether `s` is the default (for `skip_serializing_if`: a case written back keeps the book's
/// text).
pub(crate) fn is_smoothed(s: &Stick) -> bool {
    *s == Stick::Smoothed
}

/// The text of the case file at `path`, after checking, before opening it, that it is a regular
/// file of at most 1 MiB: opening a FIFO for reading blocks until a writer comes. Every reader of
/// case files (slope, rigid, `--set`, the `kind` peek) goes through here.
pub fn read_case_file(path: &Path) -> Result<String, CaseError> {
    let meta = std::fs::metadata(path).map_err(|source| CaseError::Io {
        file: path.to_path_buf(),
        source,
    })?;
    let ft = meta.file_type();
    let what = if meta.is_dir() {
        Some("a directory")
    } else if !ft.is_file() {
        Some("a FIFO, socket or device")
    } else if meta.len() > MAX_CASE_FILE_BYTES {
        Some("larger than 1 MiB")
    } else {
        None
    };
    if let Some(what) = what {
        return Err(CaseError::NotACaseFile {
            file: path.to_path_buf(),
            what,
        });
    }
    std::fs::read_to_string(path).map_err(|source| CaseError::Io {
        file: path.to_path_buf(),
        source,
    })
}

/// Builds the errors of one case file (`file` for the messages) and checks the rules every
/// kind shares.
pub(crate) struct Validator<'a> {
    /// The case file named in the messages.
    pub(crate) file: &'a Path,
}

impl Validator<'_> {
    /// Refuses the name of a body or driver (`section` "bodies" or "drivers") holding a comma,
    /// a double quote or a control character (a line break): it heads columns of
    /// trajectory.csv (`NAME.x_m`), read by splitting on commas by the plots, the viewer,
    /// Python and spreadsheets alike, and of a sweep's map.csv. A name is an identifier, so
    /// refusing loses nothing that quoting would keep.
    pub(crate) fn csv_name(&self, section: &str, name: &str) -> Result<(), CaseError> {
        if name.contains([',', '"']) || name.chars().any(char::is_control) {
            return Err(self.invalid(
                &format!("{section}.{name:?}"),
                "a name must hold no comma, double quote or control character (line break): it heads columns of trajectory.csv",
                format!("{name:?}"),
            ));
        }
        Ok(())
    }

    pub(crate) fn invalid(
        &self,
        key: &str,
        rule: &str,
        value: impl std::fmt::Display,
    ) -> CaseError {
        CaseError::Invalid {
            file: self.file.to_path_buf(),
            key: key.into(),
            rule: rule.into(),
            value: value.to_string(),
        }
    }
    pub(crate) fn positive(&self, key: &str, x: f64) -> Result<(), CaseError> {
        match positive_rule(x) {
            None => Ok(()),
            Some(rule) => Err(self.invalid(key, rule, Short(x))),
        }
    }
    pub(crate) fn non_negative(&self, key: &str, x: f64) -> Result<(), CaseError> {
        if x == 0.0 {
            return Ok(());
        }
        match positive_rule(x) {
            None => Ok(()),
            Some(_) if x.is_finite() && x > 0.0 => Err(self.invalid(key, SUBNORMAL_RULE, Short(x))),
            Some(_) => Err(self.invalid(key, "must be finite and >= 0", Short(x))),
        }
    }
    /// `friction.max_lagging`: at least 1. Zero re-lagging passes would turn implicit lagging
    /// into the semi-implicit one without a word.
    pub(crate) fn max_lagging(&self, key: &str, n: usize) -> Result<(), CaseError> {
        if n == 0 {
            Err(self.invalid(
                key,
                "must be at least 1 (re-lagging passes per step; for no re-lagging write lagging = \"semi-implicit\")",
                n,
            ))
        } else {
            Ok(())
        }
    }
    /// `friction.stick` and `friction.eps_d` (SPEC.md §9) into the core's stick model: with
    /// `"exact"`, ε_d (m) finite, > 0 and at most `barrier.dhat` = `dhat` (a contact's elastic
    /// micro-slip inside its barrier's reach), ε_v·h when absent (`eps_v` m/s, `h` s: the
    /// smoothed model's stick zone per step, so the two stiffnesses at zero slip are of one
    /// order); refused with `newton.stick_filter` (a line-search bound of the smoothed model's
    /// stick zone, which exact stick has not). `eps_d` without `"exact"` is refused: it would
    /// do nothing.
    pub(crate) fn stick_model(
        &self,
        stick: Stick,
        eps_d: Option<f64>,
        eps_v: f64,
        h: f64,
        dhat: f64,
        stick_filter: bool,
    ) -> Result<StickModel, CaseError> {
        match stick {
            Stick::Smoothed => match eps_d {
                Some(e) => Err(self.invalid(
                    "friction.eps_d",
                    "only with friction.stick = \"exact\" (smoothed friction has no yield displacement)",
                    Short(e),
                )),
                None => Ok(StickModel::Smoothed),
            },
            Stick::Exact => {
                if stick_filter {
                    return Err(self.invalid(
                        "newton.stick_filter",
                        "cannot be combined with friction.stick = \"exact\" (the filter bounds the smoothed model's stick zone)",
                        true,
                    ));
                }
                let eps_d = eps_d.unwrap_or(eps_v * h);
                self.positive("friction.eps_d", eps_d)?;
                if eps_d > dhat {
                    return Err(self.invalid(
                        "friction.eps_d",
                        &format!("must be at most barrier.dhat = {} m", Short(dhat)),
                        Short(eps_d),
                    ));
                }
                Ok(StickModel::Exact { eps_d })
            }
        }
    }

    /// Every component of `x` at key `key` finite. The message lists the components as the
    /// other vectors of the case's dimension do: 2D by `short_list`, 3D by Rust's debug format
    /// (kept apart, so that every message reads as it did before the two validators met).
    pub(crate) fn finite_n<const D: usize>(&self, key: &str, x: [f64; D]) -> Result<(), CaseError> {
        if D == 3 && !x.iter().all(|c| c.is_finite()) {
            return Err(self.invalid(key, "every component must be finite", format!("{x:?}")));
        }
        self.finite_vector(key, x)
    }

    pub(crate) fn finite2(&self, key: &str, x: [f64; 2]) -> Result<(), CaseError> {
        self.finite_vector(key, x)
    }

    /// Every component of the vector at `key` finite.
    pub(crate) fn finite_vector<const D: usize>(
        &self,
        key: &str,
        x: [f64; D],
    ) -> Result<(), CaseError> {
        if x.iter().all(|c| c.is_finite()) {
            Ok(())
        } else {
            Err(self.invalid(key, "every component must be finite", short_list(&x)))
        }
    }
}

/// The rule a value > 0 smaller than the smallest normal double breaks: a subnormal number has
/// lost precision, and its reciprocal (a stiffness over it, 1/m) overflows.
pub(crate) const SUBNORMAL_RULE: &str =
    "must be finite and > 0, and not subnormal (at least 2.2250738585072014e-308)";

/// The rule `x` breaks as a quantity that must be finite and > 0 and a normal double (not
/// subnormal), or `None`.
pub(crate) fn positive_rule(x: f64) -> Option<&'static str> {
    if x.is_normal() && x > 0.0 {
        None
    } else if x.is_finite() && x > 0.0 {
        Some(SUBNORMAL_RULE)
    } else {
        Some("must be finite and > 0")
    }
}

/// The number of steps of length `h` (s) in `duration` (s), when it is a whole number (to
/// 1e-9 relative, the rounding of the division): every command runs exactly `duration`, never
/// a rounded one. The error is the rule broken, naming the two nearest durations that are.
pub fn whole_steps(duration: f64, h: f64) -> Result<f64, String> {
    let steps = duration / h;
    let whole = steps.round();
    if !steps.is_finite() || (steps - whole).abs() <= 1e-9 * whole.max(1.0) {
        return Ok(whole);
    }
    let below = steps.floor().max(1.0);
    Err(format!(
        "must be a whole number of steps of time.h = {} s (it is {} steps; the run would not end at the duration given): give e.g. {} s or {} s",
        Short(h),
        Short(steps),
        Short(below * h),
        Short((below + 1.0) * h)
    ))
}

/// The dotted key of a "duplicate key" error: the key at the error's span, prefixed by the
/// table header above it (`[friction]` then `mu` twice gives `friction.mu`; a header given
/// twice gives the header's name).
fn duplicate_key(e: &toml::de::Error, text: &str) -> Option<String> {
    if !e.message().contains("duplicate key") {
        return None;
    }
    let span = e.span()?;
    let name = text.get(span.clone())?.trim().trim_matches(['"', '\'']);
    if name.is_empty() {
        return None;
    }
    let line_start = text[..span.start].rfind('\n').map_or(0, |i| i + 1);
    if text[line_start..].trim_start().starts_with('[') {
        return Some(name.to_string());
    }
    let table = text[..line_start].lines().rev().find_map(|l| {
        let l = l.trim();
        l.starts_with('[').then(|| {
            l.trim_start_matches('[')
                .split(']')
                .next()
                .unwrap_or("")
                .trim()
        })
    });
    Some(match table {
        Some(t) if !t.is_empty() => format!("{t}.{name}"),
        _ => name.to_string(),
    })
}

/// Case-file text parsed strictly into `T` (unknown keys rejected by `T`'s serde attributes),
/// with errors naming the dotted key (a duplicate key by its own name) on one line. Every kind of
/// case file (slope, rigid) is read through here.
pub(crate) fn parse_case_toml<T: serde::de::DeserializeOwned>(
    text: &str,
    file: &Path,
) -> Result<T, CaseError> {
    let de = toml::Deserializer::parse(text).map_err(|e| CaseError::Parse {
        file: file.to_path_buf(),
        key: duplicate_key(&e, text).unwrap_or_else(|| "(document)".into()),
        message: one_line_toml(&e, text),
    })?;
    serde_path_to_error::deserialize(de).map_err(|e| {
        let key = e.path().to_string();
        CaseError::Parse {
            file: file.to_path_buf(),
            key: if key == "." { "(document)".into() } else { key },
            message: one_line_toml(e.inner(), text),
        }
    })
}

/// A TOML error on one line: its message and the line/column it points at.
pub(crate) fn one_line_toml(e: &toml::de::Error, text: &str) -> String {
    let msg = e.message().replace('\n', " ").trim().to_string();
    match e.span() {
        Some(span) => {
            let before = &text[..span.start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
            format!("{msg} (line {line}, column {col})")
        }
        None => msg,
    }
}
