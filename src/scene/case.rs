//! Case files: every quantity of SPEC.md §1 stated in TOML, parsed strictly and validated.
//!
//! A case file has the sections `[square]`, `[material]`, `[gravity]`, `[slope]`, `[barrier]`,
//! `[friction]`, `[time]` and `[newton]`; unknown keys are rejected, and every value is checked
//! (finite, positive where it must be, a non-zero normal, μ ≥ 0, no node starting at or below the
//! slope). Errors name the file, the key and the rule broken, on one line.

use std::path::{Path, PathBuf};

use nalgebra::Vector2;
use serde::{Deserialize, Serialize};

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
}

impl CaseError {
    /// The dotted key the error is about.
    pub fn key(&self) -> &str {
        match self {
            CaseError::Io { .. } => "(file)",
            CaseError::Parse { key, .. } | CaseError::Invalid { key, .. } => key,
        }
    }
}

/// The `kind` of the square-on-slope case files (the default when `kind` is absent).
pub const SLOPE_KIND: &str = "slope_square";

/// `[square]`: the elastic square and its grid.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SquareSection {
    /// Side length, m.
    pub side: f64,
    /// Segments per side; (n_seg+1)² nodes.
    pub n_seg: usize,
    /// Centre of the square at t = 0, m.
    pub centre: [f64; 2],
    /// Initial velocity of every node, m/s.
    pub velocity: [f64; 2],
}

/// `[material]`: density and spring stiffness.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MaterialSection {
    /// Areal density ρ, kg/m²; the mass ρ·side² is spread evenly over the nodes.
    pub density: f64,
    /// Spring stiffness k of every edge, N/m (SPEC.md §2 mass-spring energy).
    pub stiffness: f64,
}

/// `[gravity]`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct GravitySection {
    /// Gravitational acceleration, m/s².
    pub acceleration: [f64; 2],
}

/// `[slope]`: the half-space n·(x − o) ≥ 0.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SlopeSection {
    /// Outward normal (normalised on load; must be non-zero).
    pub normal: [f64; 2],
    /// A point on the slope, m.
    pub point: [f64; 2],
}

/// `[barrier]`: the log barrier of SPEC.md §2.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BarrierSection {
    /// Activation distance d̂, m.
    pub dhat: f64,
    /// Stiffness κ, Pa (N/m² per unit contact area).
    pub kappa: f64,
    /// Contact area A of every node, m (in 2D: a length).
    pub contact_area: f64,
}

/// `[friction]`: smoothed semi-implicit Coulomb friction.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FrictionSection {
    /// Friction coefficient μ (dimensionless, ≥ 0).
    pub mu: f64,
    /// Smoothing speed ε_v, m/s.
    pub eps_v: f64,
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

/// `[newton]`: projected Newton and its line search.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct NewtonSection {
    /// Stop when ‖p‖∞ / h < tol, m/s.
    pub tol: f64,
    /// Iterations allowed per step before the step is an error.
    pub max_iterations: usize,
    /// Halvings allowed per line search before the step is an error.
    pub max_halvings: usize,
}

/// A case file as written.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CaseFile {
    /// Which system the case is for: `"slope_square"` (the default) here; other kinds (e.g.
    /// `"rigid_ellipsoid"`, [`crate::rigid::case`]) are dispatched before this parser runs.
    #[serde(default)]
    pub kind: Option<String>,
    /// Human-readable name of the case.
    pub name: String,
    /// The square.
    pub square: SquareSection,
    /// Its material.
    pub material: MaterialSection,
    /// Gravity.
    pub gravity: GravitySection,
    /// The slope.
    pub slope: SlopeSection,
    /// The barrier.
    pub barrier: BarrierSection,
    /// Friction.
    pub friction: FrictionSection,
    /// Time stepping.
    pub time: TimeSection,
    /// Newton solver.
    pub newton: NewtonSection,
}

/// A validated scene: everything the solver needs, in SI units, normal normalised.
#[derive(Clone, Debug, Serialize)]
pub struct Scene {
    /// Name of the case.
    pub name: String,
    /// Where it came from (for messages), if from a file.
    pub source: Option<PathBuf>,
    /// Side of the square, m.
    pub side: f64,
    /// Segments per side.
    pub n_seg: usize,
    /// Centre at t = 0, m.
    pub centre: Vector2<f64>,
    /// Initial velocity, m/s.
    pub velocity: Vector2<f64>,
    /// Areal density, kg/m².
    pub density: f64,
    /// Spring stiffness, N/m.
    pub stiffness: f64,
    /// Gravity, m/s².
    pub gravity: Vector2<f64>,
    /// Unit outward slope normal.
    pub normal: Vector2<f64>,
    /// Point on the slope, m.
    pub point: Vector2<f64>,
    /// Barrier activation distance d̂, m.
    pub dhat: f64,
    /// Barrier stiffness κ.
    pub kappa: f64,
    /// Contact area per node, m.
    pub contact_area: f64,
    /// Friction coefficient μ.
    pub mu: f64,
    /// Friction smoothing speed ε_v, m/s.
    pub eps_v: f64,
    /// Time step, s.
    pub h: f64,
    /// Duration, s.
    pub duration: f64,
    /// Newton tolerance on ‖p‖∞/h, m/s.
    pub tol: f64,
    /// Newton iteration bound per step.
    pub max_iterations: usize,
    /// Line-search halving bound.
    pub max_halvings: usize,
}

impl Scene {
    /// Read and validate a case file.
    pub fn load(path: &Path) -> Result<Scene, CaseError> {
        let text = std::fs::read_to_string(path).map_err(|source| CaseError::Io {
            file: path.to_path_buf(),
            source,
        })?;
        Scene::from_toml(&text, path)
    }

    /// Parse and validate case-file text; `path` is used in messages.
    pub fn from_toml(text: &str, path: &Path) -> Result<Scene, CaseError> {
        let file = path.to_path_buf();
        // A file for another system (or a misspelt kind) is named by its `kind` before the
        // square's keys are looked for.
        if let Some(kind) = crate::rigid::case::peek_kind(text)
            && kind != SLOPE_KIND
        {
            let rule = if kind == crate::rigid::case::KIND {
                "a rigid_ellipsoid case runs only with `stickslip run` or `stickslip view` (alone); this needs square-on-slope cases"
            } else {
                "must be \"slope_square\" (the default) or \"rigid_ellipsoid\""
            };
            return Err(CaseError::Invalid {
                file,
                key: "kind".into(),
                rule: rule.into(),
                value: kind,
            });
        }
        let de = toml::Deserializer::parse(text).map_err(|e| CaseError::Parse {
            file: file.clone(),
            key: "(document)".into(),
            message: one_line_toml(&e, text),
        })?;
        let case: CaseFile = serde_path_to_error::deserialize(de).map_err(|e| {
            let key = e.path().to_string();
            CaseError::Parse {
                file: file.clone(),
                key: if key == "." { "(document)".into() } else { key },
                message: one_line_toml(e.inner(), text),
            }
        })?;
        Scene::from_case(&case, Some(path))
    }

    /// Validate a parsed case.
    pub fn from_case(case: &CaseFile, path: Option<&Path>) -> Result<Scene, CaseError> {
        let file = path
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("(inline case)"));
        let v = Validator { file: &file };
        if let Some(kind) = &case.kind
            && kind != SLOPE_KIND
        {
            return Err(v.invalid(
                "kind",
                "must be \"slope_square\" (the default) or \"rigid_ellipsoid\"",
                kind,
            ));
        }
        v.positive("square.side", case.square.side)?;
        if case.square.n_seg == 0 {
            return Err(v.invalid("square.n_seg", "must be at least 1", 0));
        }
        v.finite2("square.centre", case.square.centre)?;
        v.finite2("square.velocity", case.square.velocity)?;
        v.positive("material.density", case.material.density)?;
        v.positive("material.stiffness", case.material.stiffness)?;
        v.finite2("gravity.acceleration", case.gravity.acceleration)?;
        v.finite2("slope.normal", case.slope.normal)?;
        let normal = Vector2::from(case.slope.normal);
        if normal.norm() == 0.0 || !normal.norm().is_finite() {
            return Err(v.invalid(
                "slope.normal",
                "must be a non-zero vector",
                format!("{:?}", case.slope.normal),
            ));
        }
        let normal = normal.normalize();
        v.finite2("slope.point", case.slope.point)?;
        v.positive("barrier.dhat", case.barrier.dhat)?;
        v.positive("barrier.kappa", case.barrier.kappa)?;
        v.positive("barrier.contact_area", case.barrier.contact_area)?;
        v.non_negative("friction.mu", case.friction.mu)?;
        v.positive("friction.eps_v", case.friction.eps_v)?;
        v.positive("time.h", case.time.h)?;
        v.positive("time.duration", case.time.duration)?;
        v.positive("newton.tol", case.newton.tol)?;
        if case.newton.max_iterations == 0 {
            return Err(v.invalid("newton.max_iterations", "must be at least 1", 0));
        }
        let scene = Scene {
            name: case.name.clone(),
            source: path.map(Path::to_path_buf),
            side: case.square.side,
            n_seg: case.square.n_seg,
            centre: Vector2::from(case.square.centre),
            velocity: Vector2::from(case.square.velocity),
            density: case.material.density,
            stiffness: case.material.stiffness,
            gravity: Vector2::from(case.gravity.acceleration),
            normal,
            point: Vector2::from(case.slope.point),
            dhat: case.barrier.dhat,
            kappa: case.barrier.kappa,
            contact_area: case.barrier.contact_area,
            mu: case.friction.mu,
            eps_v: case.friction.eps_v,
            h: case.time.h,
            duration: case.time.duration,
            tol: case.newton.tol,
            max_iterations: case.newton.max_iterations,
            max_halvings: case.newton.max_halvings,
        };
        // No node may start at or below the slope (the barrier is infinite there).
        let mesh = crate::scene::Mesh::square(&scene);
        let lowest = mesh
            .x0
            .iter()
            .map(|x| scene.normal.dot(&(x - scene.point)))
            .fold(f64::INFINITY, f64::min);
        if lowest <= 0.0 {
            return Err(v.invalid(
                "square.centre",
                "every node must start strictly above the slope (lowest node's signed distance must be > 0)",
                format!("{:?}, lowest signed distance {lowest:.6} m", case.square.centre),
            ));
        }
        Ok(scene)
    }

    /// Number of time steps for `duration` seconds (rounded to the nearest whole step).
    pub fn steps_for(&self, duration: f64) -> usize {
        (duration / self.h).round().max(0.0) as usize
    }
}

struct Validator<'a> {
    file: &'a Path,
}

impl Validator<'_> {
    fn invalid(&self, key: &str, rule: &str, value: impl std::fmt::Display) -> CaseError {
        CaseError::Invalid {
            file: self.file.to_path_buf(),
            key: key.into(),
            rule: rule.into(),
            value: value.to_string(),
        }
    }
    fn positive(&self, key: &str, x: f64) -> Result<(), CaseError> {
        if x.is_finite() && x > 0.0 {
            Ok(())
        } else {
            Err(self.invalid(key, "must be finite and > 0", x))
        }
    }
    fn non_negative(&self, key: &str, x: f64) -> Result<(), CaseError> {
        if x.is_finite() && x >= 0.0 {
            Ok(())
        } else {
            Err(self.invalid(key, "must be finite and >= 0", x))
        }
    }
    fn finite2(&self, key: &str, x: [f64; 2]) -> Result<(), CaseError> {
        if x.iter().all(|c| c.is_finite()) {
            Ok(())
        } else {
            Err(self.invalid(key, "every component must be finite", format!("{x:?}")))
        }
    }
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
