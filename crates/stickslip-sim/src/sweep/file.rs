//! The sweep file: a base case, overrides for every cell, and axes of case keys; expanded into
//! the cells of the grid (every combination of the axes' values, the last axis fastest).
//!
//! ```toml
//! name = "stick-slip map"             # optional; default: the file's stem
//! case = "../cases/slope_mu0.11.toml" # the base case, relative to this file
//! set = ["time.duration=15"]          # optional: overrides of every cell, before the axes
//! record = ["verdict", "stop_time_s"] # optional: the result columns of map.csv (default all)
//!
//! [[axis]]                            # x of the map
//! key = "slope.tan_theta"             # any dotted case key, or the derived slope.tan_theta
//! from = 0.05                         # a linear range: from, to, count (count >= 2)
//! to = 0.4
//! count = 12
//!
//! [[axis]]                            # y of the map
//! key = "friction.mu"
//! values = [0.02, 0.1, 0.5]           # or explicit values (any TOML value the key takes)
//! ```
//!
//! The file is read strictly (unknown keys rejected), and every cell's scene is built and
//! validated like a case file with `--set` before anything runs, so a bad axis is an error
//! naming the sweep file and the axis, with nothing written.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::scene::case_file::{CaseError, parse_case_toml, read_case_file};
use crate::scene::multibody::MultibodyScene;
use crate::scene::multibody::dimension::declared_dimension;
use crate::scene::multibody::solid::SolidScene;
use crate::scene::{CaseKind, Override, Scene};

use super::SweepError;

/// The derived axis key for the slope's steepness: `slope.tan_theta = t` sets
/// `slope.normal = [t, 1.0]`, the book's normal (0.1, 1) for t = 0.1 (SPEC.md §1), i.e.
/// (sin θ, cos θ) once normalised. It replaces the base case's `slope.normal` (a base case that
/// states `slope.angle_deg` instead is rejected: a slope states exactly one of the two).
pub const TAN_THETA_KEY: &str = "slope.tan_theta";

/// The derived axis key for a scene's incline (`kind = "scene"` base cases), tan θ ≥ 0:
/// * in 2D, `gravity.tan_theta = t` sets `gravity.incline_deg` to atan(t) in degrees, so that
///   gravity is g (sin θ, −cos θ) with tan θ = t. It replaces the base case's
///   `gravity.incline_deg` (a base case that states `gravity.acceleration` instead is rejected:
///   gravity states one of them);
/// * in 3D, where gravity is a vector, it sets `gravity.acceleration` to the base case's
///   gravity turned at its magnitude g towards its fall line: g (sin θ f̂ − cos θ n̂), with n̂
///   the unit normal of the base case's one half-space and f̂ the unit direction of gravity's
///   part along it ([`tilted_gravity`]). The base case must have one half-space and a gravity
///   that is tilted against it (its fall line is the direction the axis tilts along).
pub const SCENE_TAN_THETA_KEY: &str = "gravity.tan_theta";

/// What a sweep's base case is, by its `kind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SweepKind {
    /// The square on the slope (`kind = "slope_square"`, or no `kind`).
    Slope,
    /// A scene of bodies, obstacles and drivers (`kind = "scene"`).
    Scene,
}

/// The result columns of `map.csv` a scene sweep may `record` besides one `BODY.verdict` per
/// body of the base case (all by default, the bodies' first), in their order: the lone box's
/// slide or tip ([`crate::analysis::slide_or_tip`]), the belt oscillator's measured
/// and closed-form cycle (SPEC.md §8), a 3D puck's stop times and v/(R ω) (SPEC.md §8) and the
/// impulse-law cross-check's agreement (SPEC.md §4).
pub const SCENE_RESULT_COLUMNS: [&str; 31] = [
    "slide_or_tip",
    "slide_or_tip_analytic",
    "tan_theta",
    "w_over_b",
    "max_rotation_deg",
    "displacement_m",
    "f_max_N",
    "f_max_N_analytic",
    "f_min_N",
    "f_min_N_analytic",
    "t_stick_s",
    "t_stick_s_analytic",
    "t_slip_s",
    "t_slip_s_analytic",
    "period_s",
    "period_s_analytic",
    "cycles",
    "slide_stop_s",
    "slide_stop_s_analytic",
    "spin_stop_s",
    "spin_stop_s_analytic",
    "spin_slide_ratio",
    "spin_slide_ratio_analytic",
    "launch_ratio",
    "agreement",
    "late_agreement",
    "gap_median_m_per_s",
    "newton_iterations",
    "max_iterations_in_step",
    "steps",
    "error",
];

/// The suffix of a per-body verdict column of a scene sweep (`block.verdict`).
pub const BODY_VERDICT_SUFFIX: &str = ".verdict";

/// At most this many cells in a sweep (each writes a file of ~1 kB).
pub const MAX_CELLS: usize = 1_000_000;

/// At most this many values an axis (`count` or `values`).
pub const MAX_AXIS_VALUES: usize = 100_000;

/// The result columns of `map.csv` a sweep may `record` (all by default), in their order.
pub const RESULT_COLUMNS: [&str; 11] = [
    "verdict",
    "stop_time_s",
    "downhill_distance_m",
    "final_speed_m_per_s",
    "creep_speed_m_per_s",
    "newton_iterations",
    "max_iterations_in_step",
    "agreement",
    "late_agreement",
    "gap_median_m_per_s",
    "error",
];

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SweepToml {
    #[serde(default)]
    name: Option<String>,
    case: String,
    #[serde(default)]
    set: Vec<String>,
    #[serde(default)]
    record: Option<Vec<String>>,
    #[serde(default)]
    axis: Vec<AxisToml>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AxisToml {
    key: String,
    #[serde(default)]
    values: Option<Vec<toml::Value>>,
    #[serde(default)]
    from: Option<f64>,
    #[serde(default)]
    to: Option<f64>,
    #[serde(default)]
    count: Option<usize>,
}

/// One axis: a case key and its values.
#[derive(Clone, Debug, PartialEq)]
pub struct Axis {
    /// The dotted key as written (`friction.mu`, or [`TAN_THETA_KEY`]).
    pub key: String,
    /// Its values, in order.
    pub values: Vec<toml::Value>,
}

/// One cell of the grid.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    /// Position in the grid (row-major, the last axis fastest), from 0.
    pub index: usize,
    /// Its name: `c` and the zero-padded index (`c0007`); the cell file is `cells/<id>.json`.
    pub id: String,
    /// The value of every axis, in axis order.
    pub inputs: Vec<toml::Value>,
    /// Every override of the cell, the sweep's `set` first, then one per axis.
    pub overrides: Vec<Override>,
}

/// A parsed, expanded and validated sweep.
#[derive(Clone, Debug)]
pub struct Sweep {
    /// The sweep file as given.
    pub file: PathBuf,
    /// Its text.
    pub text: String,
    /// The sweep's name.
    pub name: String,
    /// The base case as written in the sweep file (the path messages of the cells name).
    pub case_as_written: String,
    /// The base case's path (the sweep file's folder joined with it): a scene's mesh files are
    /// relative to it.
    pub case_path: PathBuf,
    /// The base case's kind.
    pub kind: SweepKind,
    /// Its dimension: 2, or 3 for a 3D scene (SPEC.md §7).
    pub dimension: usize,
    /// Its text.
    pub case_text: String,
    /// The axes.
    pub axes: Vec<Axis>,
    /// The result columns of map.csv.
    pub record: Vec<String>,
    /// The cells.
    pub cells: Vec<Cell>,
    /// 64-bit FNV-1a of the sweep file's and the base case's texts, hex: binds the cell files
    /// to the sweep that wrote them.
    pub hash: String,
}

/// FNV-1a, 64 bits, over `parts` separated by a 0 byte (an identity check, not a security one).
pub fn fnv1a64(parts: &[&str]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for (k, part) in parts.iter().enumerate() {
        let sep: &[u8] = if k > 0 { &[0] } else { &[] };
        for &b in sep.iter().chain(part.as_bytes()) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

/// The message of a case error without the `--set` attribution (the sweep names the axis).
fn case_rule(e: &CaseError) -> String {
    match e {
        CaseError::FromOverride { source, .. } => case_rule(source),
        other => other.to_string(),
    }
}

/// `value` as the map and the CSV write it (TOML's form: `0.05`, `16`, `"ipc"`).
pub fn value_text(value: &toml::Value) -> String {
    match value {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// An axis key in its one spelling: the dotted parts trimmed (`friction. mu` is
/// `friction.mu`), as `--set` reads a key.
fn normalised_key(key: &str) -> Result<String, String> {
    let parts: Vec<&str> = key.split('.').map(str::trim).collect();
    if parts.iter().any(|p| p.is_empty()) {
        return Err("the key must be dotted names such as friction.mu (no empty part)".into());
    }
    if key.chars().any(char::is_control) {
        return Err("the key must not hold control characters".into());
    }
    Ok(parts.join("."))
}

/// The case key an axis with the (normalised) `key` sets, as a path, for a base case of `kind`
/// and `dimension`: [`TAN_THETA_KEY`] sets `slope.normal`, [`SCENE_TAN_THETA_KEY`] sets
/// `gravity.incline_deg` in 2D and `gravity.acceleration` in 3D.
fn target_path(kind: SweepKind, dimension: usize, key: &str, base: &toml::Table) -> Vec<String> {
    let key = match (kind, key) {
        (SweepKind::Slope, TAN_THETA_KEY) => "slope.normal",
        (SweepKind::Scene, SCENE_TAN_THETA_KEY) if dimension == 3 => "gravity.acceleration",
        (SweepKind::Scene, SCENE_TAN_THETA_KEY) => "gravity.incline_deg",
        _ => key,
    };
    match vector_component(key, base) {
        Some((vector, _, _)) => vector,
        None => key.split('.').map(str::to_string).collect(),
    }
}

/// A component axis: `KEY.x`, `KEY.y` or `KEY.z` where the base case (with the sweep's `set`)
/// holds an array of two or three numbers at `KEY` (a 2D or 3D vector; `z` of a 3D one). Returns
/// KEY's path, the component's index and the vector.
fn vector_component(key: &str, base: &toml::Table) -> Option<(Vec<String>, usize, Vec<f64>)> {
    let (vector, component) = key.rsplit_once('.')?;
    let index = match component {
        "x" => 0,
        "y" => 1,
        "z" => 2,
        _ => return None,
    };
    let path: Vec<String> = vector.split('.').map(str::to_string).collect();
    let vector = number_array(base, &path)?;
    (matches!(vector.len(), 2 | 3) && index < vector.len()).then_some((path, index, vector))
}

/// The array of numbers at `path` of `base`, if there is one.
fn number_array(base: &toml::Table, path: &[String]) -> Option<Vec<f64>> {
    let (last, parents) = path.split_last()?;
    let mut table = base;
    for part in parents {
        table = table.get(part)?.as_table()?;
    }
    let number = |v: &toml::Value| v.as_float().or_else(|| v.as_integer().map(|i| i as f64));
    table.get(last)?.as_array()?.iter().map(number).collect()
}

/// The name of the one half-space of a 3D base case `base`, which [`tilted_gravity`] tilts
/// against; an error saying how many it has otherwise.
fn one_half_space(base: &toml::Table) -> Result<&String, String> {
    let half_spaces: Vec<&String> = base
        .get("obstacles")
        .and_then(toml::Value::as_table)
        .into_iter()
        .flatten()
        .filter(|(_, o)| o.get("type").and_then(toml::Value::as_str) == Some("half_space"))
        .map(|(name, _)| name)
        .collect();
    match half_spaces.as_slice() {
        [name] => Ok(name),
        other => Err(format!(
            "tilts gravity against the base case's one half-space, and it has {}",
            other.len()
        )),
    }
}

/// A 3D scene's gravity for [`SCENE_TAN_THETA_KEY`] = `t` (tan θ ≥ 0): the base case's
/// `gravity.acceleration` g turned at its magnitude towards its fall line,
/// |g| (sin θ f̂ − cos θ n̂), n̂ the unit normal of the base case's one half-space (`base`, with
/// the sweep's `set`) and f̂ the unit direction of g's part along it.
pub fn tilted_gravity(t: f64, base: &toml::Table) -> Result<[f64; 3], String> {
    if t < 0.0 {
        return Err(format!(
            "must be at least 0 (tan theta of an incline), got {t}"
        ));
    }
    let path = |p: &str| p.split('.').map(str::to_string).collect::<Vec<_>>();
    let g = number_array(base, &path("gravity.acceleration"))
        .filter(|g| g.len() == 3)
        .ok_or("the base case has no 3-vector gravity.acceleration to tilt")?;
    let name = one_half_space(base)?;
    // Its normal as the case states it: `normal`, or `angle_deg` for (sin θ, 0, cos θ).
    let angle = base["obstacles"][name.as_str()]
        .get("angle_deg")
        .and_then(|a| a.as_float().or_else(|| a.as_integer().map(|i| i as f64)));
    let n = match (
        number_array(base, &path(&format!("obstacles.{name}.normal"))),
        angle,
    ) {
        (Some(n), _) if n.len() == 3 => n,
        (None, Some(deg)) => vec![deg.to_radians().sin(), 0.0, deg.to_radians().cos()],
        _ => {
            return Err(format!(
                "obstacles.{name} states no 3-vector normal or angle_deg to tilt against"
            ));
        }
    };
    let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>();
    let (n_norm, g_norm) = (dot(&n, &n).sqrt(), dot(&g, &g).sqrt());
    if !(n_norm > 0.0 && g_norm > 0.0) {
        return Err("the base case's gravity and half-space normal must be non-zero".into());
    }
    let n: Vec<f64> = n.iter().map(|c| c / n_norm).collect();
    let g_n = dot(&g, &n);
    let along: Vec<f64> = g.iter().zip(&n).map(|(a, b)| a - g_n * b).collect();
    let along_norm = dot(&along, &along).sqrt();
    if g_n >= 0.0 || along_norm <= 1e-9 * g_norm {
        return Err(format!(
            "tilts the base case's gravity towards its fall line along obstacles.{name}, so the base gravity must press on it (g . n < 0) with a part along it; tilt it in the base case (e.g. by a degree)"
        ));
    }
    let theta = t.atan();
    let mut tilted = [0.0; 3];
    for (k, c) in tilted.iter_mut().enumerate() {
        *c = g_norm * (theta.sin() * along[k] / along_norm - theta.cos() * n[k]);
    }
    Ok(tilted)
}

/// A number of an axis value.
fn axis_number(value: &toml::Value) -> Result<f64, String> {
    let t = match value {
        toml::Value::Float(f) => *f,
        toml::Value::Integer(i) => *i as f64,
        other => return Err(format!("must be a number, got {}", other.type_str())),
    };
    if t.is_finite() {
        Ok(t)
    } else {
        Err(format!("must be finite, got {t}"))
    }
}

/// An axis value in one canonical text per case value: numbers by value (`1` and `1.0` are
/// one value, as are `0.0` and `-0.0`), arrays and tables element by element (tables in key
/// order), strings and the rest as TOML writes them.
fn canonical_value(v: &toml::Value) -> String {
    use toml::Value::{Array, Float, Integer, Table};
    let number = |x: f64| {
        if x == 0.0 {
            "0".to_string()
        } else {
            format!("{x:e}")
        }
    };
    match v {
        Integer(i) => number(*i as f64),
        Float(f) => number(*f),
        Array(a) => format!(
            "[{}]",
            a.iter().map(canonical_value).collect::<Vec<_>>().join(",")
        ),
        Table(t) => {
            let mut items: Vec<String> = t
                .iter()
                .map(|(k, x)| format!("{k:?}={}", canonical_value(x)))
                .collect();
            items.sort();
            format!("{{{}}}", items.join(","))
        }
        other => other.to_string(),
    }
}

/// The override an axis value makes: `key` of a base case of `kind` whose document, with the
/// sweep's `set`, is `base`.
fn axis_override(
    kind: SweepKind,
    dimension: usize,
    key: &str,
    value: &toml::Value,
    base: &toml::Table,
) -> Result<Override, String> {
    if kind == SweepKind::Scene && key == SCENE_TAN_THETA_KEY && dimension == 3 {
        let g = tilted_gravity(axis_number(value)?, base)?;
        let array = toml::Value::Array(g.iter().map(|&c| toml::Value::Float(c)).collect());
        return Ok(Override {
            path: vec!["gravity".into(), "acceleration".into()],
            setting: format!("gravity.acceleration={array}"),
            value: array,
        });
    }
    if kind == SweepKind::Scene && key == SCENE_TAN_THETA_KEY {
        let t = axis_number(value)?;
        let degrees = toml::Value::Float(t.atan().to_degrees());
        return Ok(Override {
            path: vec!["gravity".into(), "incline_deg".into()],
            setting: format!("gravity.incline_deg={degrees}"),
            value: degrees,
        });
    }
    if let Some((path, index, mut vector)) = vector_component(key, base) {
        vector[index] = axis_number(value)?;
        let array = toml::Value::Array(vector.iter().map(|&c| toml::Value::Float(c)).collect());
        return Ok(Override {
            setting: format!("{}={array}", path.join(".")),
            path,
            value: array,
        });
    }
    if kind == SweepKind::Slope && key == TAN_THETA_KEY {
        let t = axis_number(value)?;
        let normal = toml::Value::Array(vec![toml::Value::Float(t), toml::Value::Float(1.0)]);
        return Ok(Override {
            path: vec!["slope".into(), "normal".into()],
            setting: format!("slope.normal={normal}"),
            value: normal,
        });
    }
    Override::parse(&format!("{key}={value}")).map_err(|e| e.rule)
}

impl Sweep {
    /// Reads, expands and validates the sweep file at `path` (module docs).
    pub fn load(path: &Path) -> Result<Sweep, SweepError> {
        let invalid = |key: &str, rule: String| SweepError::Invalid {
            file: path.to_path_buf(),
            key: key.to_string(),
            rule,
        };
        let text = read_case_file(path).map_err(|e| {
            invalid(
                "(file)",
                match e {
                    CaseError::Io { source, .. } => format!("cannot read: {source}"),
                    CaseError::NotACaseFile { what, .. } => {
                        format!(
                            "not a sweep file: it is {what}; give the path of a TOML sweep file"
                        )
                    }
                    other => case_rule(&other),
                },
            )
        })?;
        let parsed: SweepToml = parse_case_toml(&text, path).map_err(|e| match e {
            CaseError::Parse { key, message, .. } => invalid(&key, message),
            other => invalid(other.key(), case_rule(&other)),
        })?;
        let name = match parsed.name {
            Some(n) if n.trim().is_empty() => {
                return Err(invalid("name", "must not be empty".into()));
            }
            Some(n) => n,
            None => path
                .file_stem()
                .map_or_else(|| "sweep".into(), |s| s.to_string_lossy().into_owned()),
        };
        let case_path = path
            .parent()
            .unwrap_or_else(|| Path::new(""))
            .join(&parsed.case);
        let case_text = read_case_file(&case_path).map_err(|e| {
            invalid(
                "case",
                format!(
                    "the base case (relative to the sweep file) cannot be used: {}",
                    case_rule(&e)
                ),
            )
        })?;
        let case_as_written = parsed.case.clone();
        // A scene of bodies is swept as a scene; every other kind goes to the slope's loader,
        // which says why it is not a slope case.
        let kind = match CaseKind::of_text(&case_text, &case_path) {
            Ok(CaseKind::Scene) => SweepKind::Scene,
            _ => SweepKind::Slope,
        };
        let dimension = match kind {
            SweepKind::Scene => declared_dimension(&case_text, &case_path)
                .map_err(|e| invalid("case", case_rule(&e)))?,
            SweepKind::Slope => 2,
        };
        let scene_of = |overrides: &[Override]| -> Result<(), CaseError> {
            match (kind, dimension) {
                (SweepKind::Slope, _) => {
                    Scene::from_toml_with_overrides(
                        &case_text,
                        Path::new(&case_as_written),
                        overrides,
                    )?;
                }
                (SweepKind::Scene, 3) => {
                    SolidScene::from_toml(&case_text, &case_path, overrides)?;
                }
                (SweepKind::Scene, _) => {
                    MultibodyScene::from_toml(&case_text, &case_path, overrides)?;
                }
            }
            Ok(())
        };
        let mut set = Vec::new();
        for (k, s) in parsed.set.iter().enumerate() {
            set.push(Override::parse(s).map_err(|e| invalid(&format!("set[{k}]"), e.rule))?);
        }
        scene_of(&set).map_err(|e| {
            invalid(
                "set",
                format!(
                    "the base case with these overrides is rejected: {}",
                    case_rule(&e)
                ),
            )
        })?;
        // The base case's document with `set` applied: what a component axis reads its
        // vector from, and a scene's bodies (its verdict columns).
        let mut base: toml::Table = toml::from_str(&case_text).unwrap_or_default();
        for o in &set {
            // The case accepted these overrides above.
            let _ = o.apply(&mut base);
        }
        if parsed.axis.is_empty() {
            return Err(invalid(
                "axis",
                "missing: a sweep needs at least one [[axis]] with a key and its values".into(),
            ));
        }
        let mut axes: Vec<Axis> = Vec::new();
        // The case key each axis sets, as a path: two spellings of one key are one path, and
        // an alias is its target's (slope.tan_theta sets slope.normal).
        let mut targets: Vec<Vec<String>> = Vec::new();
        for (k, a) in parsed.axis.iter().enumerate() {
            let axis_err = |rule: String| SweepError::Axis {
                file: path.to_path_buf(),
                number: k + 1,
                key: a.key.clone(),
                rule,
            };
            if a.key.trim().is_empty() {
                return Err(axis_err("the key must not be empty".into()));
            }
            let key = normalised_key(&a.key).map_err(axis_err)?;
            let target = target_path(kind, dimension, &key, &base);
            let overlaps = |p: &[String]| p.starts_with(&target) || target.starts_with(p);
            if let Some(j) = targets.iter().position(|t| overlaps(t)) {
                return Err(axis_err(format!(
                    "sets the same case quantity as axis {} `{}` ({}); every cell would run with only one of them",
                    j + 1,
                    axes[j].key,
                    target.join(".")
                )));
            }
            if let Some(j) = set.iter().position(|o| overlaps(&o.path)) {
                return Err(axis_err(format!(
                    "sets the same case quantity as set[{j}] `{}`, which the axis would replace in every cell; remove one",
                    set[j].setting
                )));
            }
            targets.push(target);
            let values = axis_values(a).map_err(axis_err)?;
            let mut seen = std::collections::HashMap::new();
            for v in &values {
                if let Some(w) = seen.insert(canonical_value(v), v) {
                    return Err(axis_err(format!(
                        "value {v} is given twice (as {w} and {v}: the same value of the case; a range whose count is too fine for its span repeats values)"
                    )));
                }
            }
            for v in &values {
                let o = axis_override(kind, dimension, &key, v, &base)
                    .map_err(|rule| axis_err(format!("value {v}: {rule}")))?;
                let mut overrides = set.clone();
                overrides.push(o);
                scene_of(&overrides).map_err(|e| {
                    axis_err(format!(
                        "value {v} is rejected by the case: {}",
                        case_rule(&e)
                    ))
                })?;
            }
            axes.push(Axis { key, values });
        }
        // In 3D gravity.tan_theta tilts against the base case's half-space as it stands: an axis
        // that turns that half-space would leave each cell's incline other than its tan θ.
        if dimension == 3
            && let Some(tilt) = axes.iter().position(|a| a.key == SCENE_TAN_THETA_KEY)
            && let Ok(name) = one_half_space(&base)
        {
            let turns = |t: &[String]| {
                ["normal", "angle_deg"].iter().any(|q| {
                    let p = ["obstacles", name.as_str(), q];
                    p.iter().zip(t).all(|(a, b)| *a == b.as_str())
                })
            };
            if let Some(k) = targets.iter().position(|t| turns(t)) {
                return Err(SweepError::Axis {
                    file: path.to_path_buf(),
                    number: k + 1,
                    key: axes[k].key.clone(),
                    rule: format!(
                        "turns obstacles.{name}, the half-space axis {} `{SCENE_TAN_THETA_KEY}` tilts gravity against as the base case states it; each cell's incline would not be its tan theta (sweep the tilt alone, or turn the half-space in the base case)",
                        tilt + 1
                    ),
                });
            }
        }
        let total = axes
            .iter()
            .try_fold(1usize, |n, a| n.checked_mul(a.values.len()))
            .filter(|&n| n <= MAX_CELLS)
            .ok_or_else(|| invalid("axis", format!("more than {MAX_CELLS} cells")))?;
        let width = (total.saturating_sub(1)).to_string().len().max(4);
        let mut cells = Vec::with_capacity(total);
        for index in 0..total {
            let mut rest = index;
            let mut picks = vec![0; axes.len()];
            for (a, axis) in axes.iter().enumerate().rev() {
                picks[a] = rest % axis.values.len();
                rest /= axis.values.len();
            }
            let inputs: Vec<toml::Value> = axes
                .iter()
                .zip(&picks)
                .map(|(a, &p)| a.values[p].clone())
                .collect();
            let mut overrides = set.clone();
            for (a, v) in axes.iter().zip(&inputs) {
                // Every value made its override above.
                overrides.push(
                    axis_override(kind, dimension, &a.key, v, &base)
                        .map_err(|rule| invalid("axis", rule))?,
                );
            }
            let id = format!("c{index:0width$}");
            scene_of(&overrides).map_err(|e| {
                let at: Vec<String> = axes
                    .iter()
                    .zip(&inputs)
                    .map(|(a, v)| format!("{} = {v}", a.key))
                    .collect();
                invalid(
                    "axis",
                    format!(
                        "cell {id} ({}) is rejected by the case: {}",
                        at.join(", "),
                        case_rule(&e)
                    ),
                )
            })?;
            cells.push(Cell {
                index,
                id,
                inputs,
                overrides,
            });
        }
        let columns: Vec<String> = match kind {
            SweepKind::Slope => RESULT_COLUMNS.iter().map(|s| s.to_string()).collect(),
            SweepKind::Scene => base
                .get("bodies")
                .and_then(toml::Value::as_table)
                .map(|t| {
                    t.keys()
                        .map(|b| format!("{b}{BODY_VERDICT_SUFFIX}"))
                        .collect::<Vec<String>>()
                })
                .unwrap_or_default()
                .into_iter()
                .chain(SCENE_RESULT_COLUMNS.iter().map(|s| s.to_string()))
                .collect(),
        };
        let record = match parsed.record {
            None => columns,
            Some(r) if r.is_empty() => {
                return Err(invalid("record", "must name at least one column".into()));
            }
            Some(r) => {
                for c in &r {
                    if !columns.contains(c) {
                        return Err(invalid(
                            "record",
                            format!(
                                "unknown column `{c}`; the columns are {}",
                                columns.join(", ")
                            ),
                        ));
                    }
                }
                columns.into_iter().filter(|c| r.contains(c)).collect()
            }
        };
        let hash = fnv1a64(&[&text, &case_text]);
        Ok(Sweep {
            file: path.to_path_buf(),
            text,
            name,
            case_as_written,
            case_path,
            kind,
            dimension,
            case_text,
            axes,
            record,
            cells,
            hash,
        })
    }

    /// The validated 2D scene of bodies of `cell` (a sweep of [`SweepKind::Scene`] in 2D; built
    /// as [`Sweep::load`] checked it).
    pub fn multibody(&self, cell: &Cell) -> Result<MultibodyScene, CaseError> {
        MultibodyScene::from_toml(&self.case_text, &self.case_path, &cell.overrides)
    }

    /// The validated 3D scene of `cell` (a sweep of [`SweepKind::Scene`] in 3D; built as
    /// [`Sweep::load`] checked it).
    pub fn solid(&self, cell: &Cell) -> Result<SolidScene, CaseError> {
        SolidScene::from_toml(&self.case_text, &self.case_path, &cell.overrides)
    }

    /// The validated scene of `cell` (built as [`Sweep::load`] checked it).
    pub fn scene(&self, cell: &Cell) -> Result<Scene, CaseError> {
        Scene::from_toml_with_overrides(
            &self.case_text,
            Path::new(&self.case_as_written),
            &cell.overrides,
        )
    }
}

/// The values of an axis: `values`, or `count` points from `from` to `to` (both included).
fn axis_values(a: &AxisToml) -> Result<Vec<toml::Value>, String> {
    if a.key.trim().is_empty() {
        return Err("the key must not be empty".into());
    }
    match (&a.values, a.from, a.to, a.count) {
        (Some(values), None, None, None) => {
            if values.is_empty() {
                return Err("`values` is empty: an axis needs at least one value".into());
            }
            if values.len() > MAX_AXIS_VALUES {
                return Err(format!("more than {MAX_AXIS_VALUES} values"));
            }
            Ok(values.clone())
        }
        (None, Some(from), Some(to), Some(count)) => {
            if !(from.is_finite() && to.is_finite()) {
                return Err(format!("`from` and `to` must be finite (got {from}, {to})"));
            }
            if count == 0 {
                return Err("the range is empty (count = 0)".into());
            }
            if count == 1 {
                return Err("a range needs count >= 2; for one value write values = [v]".into());
            }
            if count > MAX_AXIS_VALUES {
                return Err(format!(
                    "count must be at most {MAX_AXIS_VALUES} (got {count})"
                ));
            }
            if from == to {
                return Err(format!(
                    "the range is empty: from = to = {from}; for one value write values = [v]"
                ));
            }
            let last = (count - 1) as f64;
            Ok((0..count)
                .map(|k| {
                    let v = if k == count - 1 {
                        to
                    } else {
                        from + (to - from) * (k as f64 / last)
                    };
                    toml::Value::Float(v)
                })
                .collect())
        }
        (None, None, None, None) => {
            Err("state `values = [...]`, or a range `from`, `to`, `count`".into())
        }
        (Some(_), ..) => {
            Err("state either `values` or a range (`from`, `to`, `count`), not both".into())
        }
        _ => Err("a range needs all of `from`, `to` and `count`".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_range_includes_both_ends_and_is_evenly_spaced() {
        let a = AxisToml {
            key: "friction.mu".into(),
            values: None,
            from: Some(0.02),
            to: Some(0.5),
            count: Some(5),
        };
        let v: Vec<f64> = axis_values(&a)
            .unwrap()
            .iter()
            .map(|v| v.as_float().unwrap())
            .collect();
        assert_eq!(v[0], 0.02);
        assert_eq!(v[4], 0.5);
        for k in 1..4 {
            // Rounding of one multiply-add: a few ulps of 0.5.
            assert!((v[k] - (0.02 + 0.12 * k as f64)).abs() < 1e-15, "{v:?}");
        }
    }

    #[test]
    fn tan_theta_sets_the_books_normal() {
        let o = axis_override(
            SweepKind::Slope,
            2,
            TAN_THETA_KEY,
            &toml::Value::Float(0.1),
            &toml::Table::new(),
        )
        .unwrap();
        assert_eq!(o.key(), "slope.normal");
        assert_eq!(
            o.value,
            toml::Value::Array(vec![toml::Value::Float(0.1), toml::Value::Float(1.0)])
        );
        assert_eq!(Override::parse(&o.setting).unwrap().value, o.value);
    }

    /// A 3D base case: gravity 9.81 m/s² tilted by 20° about y against a half-space of unit
    /// normal `n` = (sin α, 0, cos α) (the floor itself tilted by α about y).
    fn tilted_base(alpha: f64) -> toml::Table {
        let (ga, gb) = (20f64.to_radians() + alpha, 9.81);
        toml::from_str(&format!(
            "[gravity]\nacceleration = [{}, 0.0, {}]\n[obstacles.floor]\ntype = \"half_space\"\nnormal = [{}, 0.0, {}]\npoint = [0.0, 0.0, 0.0]\n[obstacles.wall]\ntype = \"triangle_mesh\"\n",
            gb * ga.sin(),
            -gb * ga.cos(),
            alpha.sin(),
            alpha.cos()
        ))
        .unwrap()
    }

    #[test]
    fn tan_theta_turns_3d_gravity_towards_its_fall_line_at_its_magnitude() {
        for alpha in [0.0, 0.3] {
            let base = tilted_base(alpha);
            for t in [0.0, 0.364, 1.5] {
                let g = tilted_gravity(t, &base).unwrap();
                let n = [alpha.sin(), 0.0, alpha.cos()];
                let norm = g.iter().map(|c| c * c).sum::<f64>().sqrt();
                // Its magnitude kept; its angle to −n is θ = atan t; it stays in the plane of n
                // and the base gravity (both in x–z: no y part); it leans the base's way (+x
                // relative to the floor, the part along the floor's in-plane axis
                // (cos α, 0, −sin α)).
                assert!((norm - 9.81).abs() < 1e-12, "{g:?}");
                let cos_angle = -(g[0] * n[0] + g[2] * n[2]) / norm;
                // acos near 1 turns a rounding of 1e-16 into an angle of about 1.4e-8 rad.
                assert!(
                    (cos_angle.min(1.0).acos() - t.atan()).abs() < 1e-7,
                    "{t}: {g:?}"
                );
                assert_eq!(g[1], 0.0);
                let along = g[0] * alpha.cos() - g[2] * alpha.sin();
                assert!(t == 0.0 || along > 0.0, "{g:?}");
            }
        }
        // The case's own gravity back from its own tan 20°.
        let g = tilted_gravity(20f64.to_radians().tan(), &tilted_base(0.0)).unwrap();
        assert!((g[0] - 3.355218).abs() < 1e-6 && (g[2] + 9.218385).abs() < 1e-6);
    }

    #[test]
    fn tan_theta_in_3d_needs_one_half_space_and_a_fall_line() {
        let mut level = tilted_base(0.0);
        level["gravity"]["acceleration"] = toml::Value::try_from([0.0, 0.0, -9.81]).unwrap();
        assert!(
            tilted_gravity(0.1, &level)
                .unwrap_err()
                .contains("fall line")
        );
        let mut up = tilted_base(0.0);
        up["gravity"]["acceleration"] = toml::Value::try_from([1.0, 0.0, 9.81]).unwrap();
        assert!(tilted_gravity(0.1, &up).unwrap_err().contains("g . n < 0"));
        let mut two = tilted_base(0.0);
        let floor = two["obstacles"]["floor"].clone();
        two["obstacles"]
            .as_table_mut()
            .unwrap()
            .insert("second".into(), floor);
        assert!(tilted_gravity(0.1, &two).unwrap_err().contains("it has 2"));
        assert!(
            tilted_gravity(-0.1, &tilted_base(0.0))
                .unwrap_err()
                .contains("at least 0")
        );
        // A half-space stated by its angle (box3d_incline's 20°) under level gravity: the
        // incline's own fall line, θ from its normal.
        let by_angle: toml::Table = toml::from_str(
            "[gravity]\nacceleration = [0.0, 0.0, -9.81]\n[obstacles.incline]\ntype = \"half_space\"\nangle_deg = 20.0\n",
        )
        .unwrap();
        let g = tilted_gravity(0.5, &by_angle).unwrap();
        let n = [20f64.to_radians().sin(), 0.0, 20f64.to_radians().cos()];
        let cos = -(g[0] * n[0] + g[2] * n[2]) / 9.81;
        assert!((cos.acos() - 0.5f64.atan()).abs() < 1e-9, "{g:?}");
        assert!(
            g[0] * n[2] - g[2] * n[0] > 0.0,
            "downhill is +x along it: {g:?}"
        );
    }

    #[test]
    fn a_component_axis_takes_x_y_or_z_of_a_3_vector_and_z_only_there() {
        let base: toml::Table =
            toml::from_str("[bodies.box]\ncentre = [0.5, 0.0, 0.1]\nvelocity = [1.0, 2.0]\n")
                .unwrap();
        let o = axis_override(
            SweepKind::Scene,
            3,
            "bodies.box.centre.z",
            &toml::Value::Float(0.2),
            &base,
        )
        .unwrap();
        assert_eq!(o.key(), "bodies.box.centre");
        assert_eq!(o.value, toml::Value::try_from([0.5, 0.0, 0.2]).unwrap());
        assert!(vector_component("bodies.box.velocity.z", &base).is_none());
        assert_eq!(
            vector_component("bodies.box.velocity.y", &base).map(|(_, i, v)| (i, v)),
            Some((1, vec![1.0, 2.0]))
        );
    }

    #[test]
    fn fnv_separates_its_parts() {
        assert_ne!(fnv1a64(&["ab", "c"]), fnv1a64(&["a", "bc"]));
        // The published FNV-1a 64 test vector for "a".
        assert_eq!(fnv1a64(&["a"]), "af63dc4c8601ec8c");
    }
}
