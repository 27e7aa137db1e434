//! What the 2D and 3D shape registries share (`plane_shapes`, `solid_shapes`): a shape is one
//! file behind its dimension's shape trait (on [`ShapeKeys`]), found by the case key `shape` in
//! its dimension's registry; the lookup, the rule naming the shapes, the refusal of a key its
//! shape does not read and a mesh file's path are written here once.

use std::path::{Path, PathBuf};

use crate::scene::case_file::{CaseError, Validator};

/// What every shape says of its case keys: its value of `shape` and the shape keys it reads.
/// Each dimension's shape trait (`PlaneShape`, `ShapeGenerator`) builds on it.
pub(crate) trait ShapeKeys: Sync {
    /// Its value of the case key `shape`.
    fn name(&self) -> &'static str;

    /// The shape keys it reads; the others are refused when given.
    fn keys(&self) -> &'static [&'static str];
}

/// The shape of `registry` named `name`.
pub(crate) fn shape_named<'r, T: ShapeKeys + ?Sized>(
    registry: &'r [&'r T],
    name: &str,
) -> Option<&'r T> {
    registry.iter().copied().find(|s| s.name() == name)
}

/// The rule of the key `shape`, naming every shape of `registry` in its order:
/// `must be "a", "b" or "c"`.
pub(crate) fn shape_rule<T: ShapeKeys + ?Sized>(registry: &[&T]) -> String {
    let names: Vec<String> = registry
        .iter()
        .map(|s| format!("\"{}\"", s.name()))
        .collect();
    match names.split_last() {
        Some((last, [])) => format!("must be {last}"),
        Some((last, rest)) => format!("must be {} or {last}", rest.join(", ")),
        None => "must name a shape".into(),
    }
}

/// The shape of body `body`'s `shape` key in `registry`, refused when unknown or when a shape
/// key of `given` (every shape key of the dimension and whether it is given, in the order a
/// refusal names the first) is not one it reads.
pub(crate) fn shape_of<'r, T: ShapeKeys + ?Sized>(
    v: &Validator,
    registry: &'r [&'r T],
    body: &str,
    shape: &str,
    given: &[(&str, bool)],
) -> Result<&'r T, CaseError> {
    let key = |k: &str| format!("bodies.{body}.{k}");
    let generator = shape_named(registry, shape)
        .ok_or_else(|| v.invalid(&key("shape"), &shape_rule(registry), shape))?;
    if let Some((k, _)) = given
        .iter()
        .find(|(k, given)| *given && !generator.keys().contains(k))
    {
        return Err(v.invalid(
            &key(k),
            &format!("does not apply to shape = \"{}\"", generator.name()),
            "given",
        ));
    }
    Ok(generator)
}

/// A mesh file `file` of a case file `case`: relative to the case file's folder (as given when
/// there is no case file).
pub(crate) fn mesh_path(case: Option<&Path>, file: &str) -> PathBuf {
    case.and_then(Path::parent)
        .map_or_else(|| PathBuf::from(file), |dir| dir.join(file))
}

/// A body's keys as a shape reads them: each named `bodies.NAME.KEY` in the messages.
pub(crate) struct BodyKeys<'a> {
    /// The case file's validator (for messages).
    pub v: &'a Validator<'a>,
    /// The body's name.
    pub name: &'a str,
}

impl BodyKeys<'_> {
    /// Body key `k`, as the messages name it.
    pub fn key(&self, k: &str) -> String {
        format!("bodies.{}.{k}", self.name)
    }

    /// Length key `k`: given and > 0, m.
    pub fn need(&self, k: &str, x: Option<f64>) -> Result<f64, CaseError> {
        let x = x.ok_or_else(|| self.v.invalid(&self.key(k), "missing", "nothing"))?;
        self.v.positive(&self.key(k), x)?;
        Ok(x)
    }

    /// Count key `k`: given, at least `least` and at most 1000.
    pub fn need_count(&self, k: &str, n: Option<usize>, least: usize) -> Result<usize, CaseError> {
        match n {
            None => Err(self.v.invalid(&self.key(k), "missing", "nothing")),
            Some(n) if n < least => {
                Err(self
                    .v
                    .invalid(&self.key(k), &format!("must be at least {least}"), n))
            }
            Some(n) if n > 1000 => Err(self.v.invalid(&self.key(k), "must be at most 1000", n)),
            Some(n) => Ok(n),
        }
    }
}
