//! One validated scene for both dimensions (`kind = "scene"`, SPEC.md §7): its name and file,
//! gravity, bodies, obstacles, drivers and settings. What a dimension decides — the type of its
//! bodies and obstacles, its case file's schema and the rules that validate it — is the
//! [`SceneDimension`] of [`Dim<D>`], implemented in 2D by [`super`] (`mod.rs`) and in 3D by
//! [`super::solid`]; reading a case file, `--set` overrides included, is written here once.

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::path::{Path, PathBuf};

use nalgebra::SVector;
use serde::de::DeserializeOwned;

use super::drivers::DriverSpec;
use super::schema::DriverSection;
use super::settings::SceneSettings;
use crate::scene::bodies::mesh_rules::MeshSize;
use crate::scene::body::Body;
use crate::scene::case_file::{CaseError, Validator, read_case_file};
use crate::scene::limits::MAX_NODES;
use crate::scene::overrides::{Override, attribute, parse_with_overrides};

/// The dimension `D` of a scene, as a type: what [`SceneDimension`] is implemented for.
#[derive(Clone, Copy, Debug)]
pub struct Dim<const D: usize>;

/// What a scene's dimension decides.
pub trait SceneDimension<const D: usize>: Sized {
    /// A body of a scene of this dimension.
    type Body: Body<D> + Clone + Debug;
    /// The scene's obstacles.
    type Obstacles: Clone + Debug;
    /// The case file as written (its schema: unknown keys refused).
    type File: DeserializeOwned;
    /// Checks what must hold of case-file `text` (`path` for messages) before it is parsed.
    fn check_text(text: &str, path: &Path) -> Result<(), CaseError>;
    /// Validates a parsed case file (`path` for messages and for the mesh files it names).
    fn validate(file: &Self::File, path: Option<&Path>) -> Result<Scene<D>, CaseError>
    where
        Dim<D>: SceneDimension<D>;
}

/// A body of a scene of dimension `D`.
pub type BodyOf<const D: usize> = <Dim<D> as SceneDimension<D>>::Body;

/// The obstacles of a scene of dimension `D`.
pub type ObstaclesOf<const D: usize> = <Dim<D> as SceneDimension<D>>::Obstacles;

/// A validated scene: everything its system needs, in SI units.
#[derive(Clone, Debug)]
pub struct Scene<const D: usize>
where
    Dim<D>: SceneDimension<D>,
{
    /// The case's name.
    pub name: String,
    /// The case file, if from one.
    pub source: Option<PathBuf>,
    /// The `--set` overrides applied, as given.
    pub overrides: Vec<String>,
    /// Gravity, m/s².
    pub gravity: SVector<f64, D>,
    /// The bodies, in name order (body i is number i of the friction table).
    pub bodies: Vec<BodyOf<D>>,
    /// The obstacles (numbered after the bodies).
    pub obstacles: ObstaclesOf<D>,
    /// The drivers, in name order.
    pub drivers: Vec<DriverSpec<D>>,
    /// The friction, barrier, time and Newton settings.
    pub settings: SceneSettings,
}

impl<const D: usize> Scene<D>
where
    Dim<D>: SceneDimension<D>,
{
    /// Reads and validates a scene case file with `overrides` applied first.
    pub fn load(path: &Path, overrides: &[Override]) -> Result<Scene<D>, CaseError> {
        let text = read_case_file(path)?;
        Scene::from_toml(&text, path, overrides)
    }

    /// Parses and validates scene case-file `text` (`path` for messages and for the mesh files
    /// it names) with `overrides` applied first.
    pub fn from_toml(
        text: &str,
        path: &Path,
        overrides: &[Override],
    ) -> Result<Scene<D>, CaseError> {
        <Dim<D>>::check_text(text, path)?;
        let file: <Dim<D> as SceneDimension<D>>::File =
            parse_with_overrides(text, path, overrides)?;
        let mut scene =
            <Dim<D>>::validate(&file, Some(path)).map_err(|e| attribute(e, overrides))?;
        scene.overrides = overrides.iter().map(|o| o.setting.clone()).collect();
        Ok(scene)
    }

    /// Number of time steps for `duration` seconds (the nearest whole step).
    pub fn steps_for(&self, duration: f64) -> usize {
        self.settings.steps_for(duration)
    }
}

/// What every scene answers, in either dimension: its name and case file (for messages), its
/// settings and its bodies (the runner's and the outputs' view of a scene, `run::multibody`).
pub trait SceneBasics<const D: usize> {
    /// The scene's name (for messages).
    fn name(&self) -> &str;
    /// The case file it was read from, if any (for messages).
    fn source(&self) -> Option<&Path>;
    /// Its settings (time, barrier, friction, Newton).
    fn settings(&self) -> &SceneSettings;
    /// How many bodies it has.
    fn body_count(&self) -> usize;
    /// Its body `k`.
    fn body(&self, k: usize) -> &dyn Body<D>;
    /// Its drivers, in the scene's order.
    fn drivers(&self) -> &[DriverSpec<D>];
}

impl<const D: usize> SceneBasics<D> for Scene<D>
where
    Dim<D>: SceneDimension<D>,
{
    fn name(&self) -> &str {
        &self.name
    }

    fn source(&self) -> Option<&Path> {
        self.source.as_deref()
    }

    fn settings(&self) -> &SceneSettings {
        &self.settings
    }

    fn body_count(&self) -> usize {
        self.bodies.len()
    }

    fn body(&self, k: usize) -> &dyn Body<D> {
        &self.bodies[k]
    }

    fn drivers(&self) -> &[DriverSpec<D>] {
        &self.drivers
    }
}

/// The rules every scene's bodies, obstacles and drivers follow, in either dimension.
impl Validator<'_> {
    /// The bodies of `sections`, each built by `build` in name order, the scene sized before
    /// any body is built (issue 41): the generated bodies' nodes from their keys (`planned`:
    /// `None` for a mesh file and for keys the body's own validation refuses), then, as each
    /// body is built, those built (`nodes`; a mesh file's are known once it is read) and the
    /// generated ones still to come, at most [`MAX_NODES`] in all.
    pub(crate) fn sized_bodies<S, B>(
        &self,
        sections: &BTreeMap<String, S>,
        planned: impl Fn(&S) -> Option<MeshSize>,
        mut build: impl FnMut(&str, &S) -> Result<B, CaseError>,
        nodes: impl Fn(&B) -> usize,
    ) -> Result<Vec<B>, CaseError> {
        if sections.is_empty() {
            return Err(self.invalid("bodies", "a scene needs at least one body", "none"));
        }
        let planned: Vec<f64> = sections
            .values()
            .map(|b| planned(b).map_or(0.0, |s| s.nodes))
            .collect();
        let mut pending: f64 = planned.iter().sum();
        let too_many = |nodes: f64| {
            self.invalid(
                "bodies",
                &format!("the bodies' nodes must be at most {MAX_NODES:e} in all (generated bodies counted from their keys before any is built)"),
                crate::number_format::Short(nodes),
            )
        };
        if pending > MAX_NODES {
            return Err(too_many(pending));
        }
        let mut bodies = Vec::with_capacity(sections.len());
        let mut built = 0usize;
        for ((name, b), planned) in sections.iter().zip(planned) {
            self.csv_name("bodies", name)?;
            let body = build(name, b)?;
            built += nodes(&body);
            pending -= planned;
            if built as f64 + pending > MAX_NODES {
                return Err(too_many(built as f64 + pending));
            }
            bodies.push(body);
        }
        Ok(bodies)
    }

    /// That obstacle `name` is named apart from every body of `bodies` (the friction table
    /// names both).
    pub(crate) fn obstacle_name<S>(
        &self,
        name: &str,
        bodies: &BTreeMap<String, S>,
    ) -> Result<(), CaseError> {
        if bodies.contains_key(name) {
            return Err(self.invalid(
                &format!("obstacles.{name}"),
                "an obstacle's name must differ from every body's (the friction table names both)",
                name,
            ));
        }
        Ok(())
    }

    /// The drivers of `sections` in name order, on the bodies named `bodies` (in the scene's
    /// order), their node sets one of `sets` and found by `node_set` (a body's number and a
    /// set's name); no node moved by two drivers.
    pub(crate) fn drivers<const D: usize>(
        &self,
        sections: &BTreeMap<String, DriverSection<D>>,
        bodies: &[&str],
        sets: &[&str],
        node_set: impl Fn(usize, &str) -> Vec<usize>,
    ) -> Result<Vec<DriverSpec<D>>, CaseError> {
        let mut drivers = Vec::new();
        for (name, d) in sections {
            drivers.push(self.driver(name, &d.fields(), bodies, sets, &node_set)?);
        }
        self.one_motion_per_node(&drivers)?;
        Ok(drivers)
    }
}
