//! Scenes of bodies, obstacles and drivers in 2D (`kind = "scene"`, SPEC.md §7): the schema
//! ([`schema`]), its validation into a [`MultibodyScene`] (here: every value checked, every key
//! named in an error), and the [`crate::solver::System`] a scene builds ([`system`]).
//!
//! Bodies are the book's square, boxes of nx × ny cells and triangle meshes from Gmsh `.msh`
//! files, mass-spring or neo-Hookean (`scene::bodies`); obstacles are half-spaces with an
//! optional surface velocity (belts) and static polylines; drivers are springs to anchors,
//! prescribed motions and constant forces. Bodies meet obstacles and each other through the
//! contact stage (point–edge pairs, SPEC.md §7); a scene whose bodies start closer than d̂ or
//! overlapping is refused. 3D scenes (`dimension = 3`) are [`solid`]'s.

mod clearance;
pub mod dimension;
pub mod drivers;
pub mod geometry;
mod half_space;
pub(crate) mod plane_shapes;
pub mod scene;
pub mod schema;
pub mod settings;
mod shape_registry;
pub mod solid;
pub mod solid_body;
pub mod solid_clearance;
pub mod solid_schema;
pub(crate) mod solid_shapes;
pub mod system;
pub mod triangle_obstacle;

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use nalgebra::Vector2;

pub use drivers::{DriverKind, DriverSpec};
pub use scene::{Dim, Scene, SceneDimension};
pub use schema::SceneFile;
pub use settings::SceneSettings;

use drivers::{Face, face_nodes};
use half_space::HalfSpaceKeys;
use plane_shapes::{Placed, PlaneInput, SHAPES, shape_keys};
use shape_registry::{BodyKeys, shape_named, shape_of};

use crate::contact::HalfSpace;
use crate::energy::Vec2;
use crate::scene::bodies::Material;
use crate::scene::bodies::mesh_rules::MeshSize;
use crate::scene::body::Body;
use crate::scene::case_file::{CaseError, Validator};
use crate::scene::{CaseKind, Mesh};

pub use crate::scene::kind::SCENE_KIND;

/// The node sets a driver can name, in a body's own frame at rest.
pub const NODE_SETS: [&str; 5] = ["all", "left", "right", "bottom", "top"];

/// A body of the scene.
#[derive(Clone, Debug)]
pub struct BodySpec {
    /// Its name.
    pub name: String,
    /// Its mesh at t = 0 (its own node numbering).
    pub mesh: Mesh,
    /// Its nodes' positions in the body's own frame at rest (before rotation and placement), m.
    pub local: Vec<Vec2>,
    /// Its initial velocity, m/s.
    pub velocity: Vec2,
    /// What it is made of.
    pub material: Material,
    /// Two of its nodes whose joining edge gives its rotation (node 0 → the top of its first
    /// column: the left edge).
    pub reference: [usize; 2],
}

impl Body<2> for BodySpec {
    fn name(&self) -> &str {
        &self.name
    }

    fn place<'a>(&self, x: &'a [Vec2]) -> Cow<'a, [Vec2]> {
        Cow::Borrowed(x)
    }

    fn elements(&self) -> usize {
        self.mesh.triangles.len()
    }

    fn inverted_elements(&self, x: &[Vec2]) -> usize {
        self.mesh.inverted_triangles(x)
    }
}

/// An obstacle's shape.
#[derive(Clone, Debug, PartialEq)]
pub enum ObstacleShape {
    /// A half-space with a surface velocity (a belt when it is not zero).
    HalfSpace(HalfSpace<2>),
    /// A static polyline: its vertices, m, and each vertex's contact area, m.
    Polyline {
        /// The vertices in order.
        points: Vec<Vec2>,
        /// The contact area of every vertex, m.
        contact_area: Vec<f64>,
    },
}

/// An obstacle of the scene.
#[derive(Clone, Debug)]
pub struct ObstacleSpec {
    /// Its name.
    pub name: String,
    /// Its shape.
    pub shape: ObstacleShape,
}

impl ObstacleSpec {
    /// The half-space, if the obstacle is one.
    pub fn half_space(&self) -> Option<&HalfSpace<2>> {
        match &self.shape {
            ObstacleShape::HalfSpace(h) => Some(h),
            ObstacleShape::Polyline { .. } => None,
        }
    }

    /// The velocity of its surface, m/s (zero for a polyline).
    pub fn surface_velocity(&self) -> Vec2 {
        self.half_space().map_or(Vec2::zeros(), |h| h.velocity)
    }
}

/// A validated 2D scene.
pub type MultibodyScene = Scene<2>;

/// A 2D scene: [`BodySpec`] bodies, [`ObstacleSpec`] obstacles (half-spaces and polylines in
/// name order), the [`SceneFile`] schema.
impl SceneDimension<2> for Dim<2> {
    type Body = BodySpec;
    type Obstacles = Vec<ObstacleSpec>;
    type File = SceneFile;

    /// A 2D scene's file must be of `kind = "scene"` and must not declare `dimension = 3`.
    fn check_text(text: &str, path: &Path) -> Result<(), CaseError> {
        check_scene_kind(text, path)?;
        if dimension::declared_dimension(text, path)? == 3 {
            return Err(CaseError::Invalid {
                file: path.to_path_buf(),
                key: "dimension".into(),
                rule: "must be 2 for a 2D scene (`stickslip run`, `sweep`, `plot`, `view` and Python read a 3D scene as one)".into(),
                value: 3.to_string(),
            });
        }
        Ok(())
    }

    fn validate(file: &SceneFile, path: Option<&Path>) -> Result<MultibodyScene, CaseError> {
        MultibodyScene::from_file(file, path)
    }
}

/// The size of body `b`'s generated mesh from its keys (a square's or box's), when they are
/// in their ranges and the body within the one-body limits; None for a mesh file and for keys
/// the body's own validation refuses.
fn generated_size(b: &schema::BodySection) -> Option<MeshSize> {
    let size = shape_named(SHAPES, &b.shape)?.size(b)?;
    size.over_limits().is_none().then_some(size)
}

/// That case-file `text` (`path` for messages) is of `kind = "scene"`, 2D or 3D.
pub fn check_scene_kind(text: &str, path: &Path) -> Result<(), CaseError> {
    if CaseKind::of_text(text, path)? != CaseKind::Scene {
        return Err(CaseError::Invalid {
            file: path.to_path_buf(),
            key: "kind".into(),
            rule: format!("must be \"{SCENE_KIND}\" for a scene of bodies"),
            value: crate::scene::case_file::peek_kind(text).unwrap_or_default(),
        });
    }
    Ok(())
}

impl Scene<2> {
    /// Validates a parsed scene file.
    pub fn from_file(f: &SceneFile, path: Option<&Path>) -> Result<MultibodyScene, CaseError> {
        let file = path
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("(inline case)"));
        let v = Validator { file: &file };
        if f.kind != SCENE_KIND {
            return Err(v.invalid("kind", &format!("must be \"{SCENE_KIND}\""), &f.kind));
        }
        if let Some(d) = f.dimension.filter(|&d| d != 2) {
            return Err(v.invalid(
                "dimension",
                "must be 2 for a 2D scene (a 3D scene is read by `stickslip run` as one)",
                d,
            ));
        }
        let gravity = v.gravity(&f.gravity)?;
        let bodies = v.sized_bodies(
            &f.bodies,
            generated_size,
            |name, b| v.body(name, b, path),
            |b| b.mesh.len(),
        )?;
        let mut obstacles = Vec::new();
        for (name, o) in &f.obstacles {
            v.obstacle_name(name, &f.bodies)?;
            obstacles.push(v.obstacle(name, o)?);
        }
        let names: Vec<&str> = f
            .bodies
            .keys()
            .chain(f.obstacles.keys())
            .map(String::as_str)
            .collect();
        let body_names: Vec<&str> = f.bodies.keys().map(String::as_str).collect();
        let drivers = v.drivers(&f.drivers, &body_names, &NODE_SETS, |b, set| {
            node_set(&bodies[b].local, set)
        })?;
        let settings = v.scene_settings(
            &names,
            &f.friction,
            &f.barrier,
            &f.time,
            &f.newton,
            gravity.amax(),
        )?;
        let geometry = geometry::geometry(&bodies, &obstacles);
        v.clearances(&bodies, &obstacles, &geometry, settings.barrier.dhat)?;
        Ok(MultibodyScene {
            name: f.name.clone(),
            source: path.map(Path::to_path_buf),
            overrides: Vec::new(),
            gravity,
            bodies,
            obstacles,
            drivers,
            settings,
        })
    }

    /// The body or obstacle of friction-table number `k`, by name.
    pub fn member_name(&self, k: usize) -> &str {
        if k < self.bodies.len() {
            &self.bodies[k].name
        } else {
            &self.obstacles[k - self.bodies.len()].name
        }
    }
}

/// The sides of a 2D body's bounding box that name node sets (besides `all`).
const FACES: [Face; 4] = [
    ("left", 0, false),
    ("right", 0, true),
    ("bottom", 1, false),
    ("top", 1, true),
];

/// The nodes of `local` (positions in a body's frame) on side `set` of its bounding box
/// (within a thousandth of its size), or all of them.
fn node_set(local: &[Vec2], set: &str) -> Vec<usize> {
    face_nodes(local, &FACES, set)
}

/// The rules of a scene's bodies, obstacles and drivers.
impl Validator<'_> {
    /// Gravity from `gravity.acceleration`, or from `gravity.incline_deg` θ in [0, 90) and
    /// `gravity.magnitude` g > 0 (default [`schema::STANDARD_GRAVITY`]) as g (sin θ, −cos θ):
    /// exactly one of `acceleration` and `incline_deg`.
    fn gravity(&self, g: &schema::GravitySection) -> Result<Vec2, CaseError> {
        match (g.acceleration, g.incline_deg) {
            (Some(a), None) => {
                if g.magnitude.is_some() {
                    return Err(self.invalid(
                        "gravity.magnitude",
                        "goes with gravity.incline_deg only (gravity.acceleration states the magnitude)",
                        "magnitude with acceleration",
                    ));
                }
                self.finite2("gravity.acceleration", a)?;
                Ok(Vector2::from(a))
            }
            (None, Some(theta)) => {
                if !(theta.is_finite() && (0.0..90.0).contains(&theta)) {
                    return Err(self.invalid(
                        "gravity.incline_deg",
                        "must be in [0, 90) degrees",
                        theta,
                    ));
                }
                let magnitude = g.magnitude.unwrap_or(schema::STANDARD_GRAVITY);
                self.positive("gravity.magnitude", magnitude)?;
                let t = theta.to_radians();
                Ok(magnitude * Vector2::new(t.sin(), -t.cos()))
            }
            (Some(_), Some(_)) => Err(self.invalid(
                "gravity.incline_deg",
                "state either gravity.acceleration or gravity.incline_deg, not both",
                "both",
            )),
            (None, None) => Err(self.invalid(
                "gravity",
                "missing: state acceleration = [x, y], or incline_deg (with magnitude, default 9.81 m/s^2)",
                "nothing",
            )),
        }
    }

    /// A body: its shape's mesh placed at `centre` and turned by `rotation_deg`, its material.
    /// `case` is the case file (a mesh file is relative to its folder).
    fn body(
        &self,
        name: &str,
        b: &schema::BodySection,
        case: Option<&Path>,
    ) -> Result<BodySpec, CaseError> {
        let key = |k: &str| format!("bodies.{name}.{k}");
        self.finite2(&key("centre"), b.centre)?;
        if !b.rotation_deg.is_finite() {
            return Err(self.invalid(&key("rotation_deg"), "must be finite", b.rotation_deg));
        }
        let velocity = b.velocity.unwrap_or([0.0; 2]);
        self.finite2(&key("velocity"), velocity)?;
        self.positive(&key("density"), b.density)?;
        let material = self.material(
            name,
            &b.material,
            b.stiffness,
            b.youngs_modulus,
            b.poisson_ratio,
        )?;
        if let Some(a) = b.contact_area {
            self.positive(&key("contact_area"), a)?;
        }
        let centre = Vector2::from(b.centre);
        let rotation = b.rotation_deg.to_radians();
        let generator = shape_of(self, SHAPES, name, &b.shape, &shape_keys(b))?;
        let Placed {
            mesh,
            local,
            reference,
        } = generator.generate(&PlaneInput {
            keys: BodyKeys { v: self, name },
            b,
            case,
            centre,
            rotation,
            material,
        })?;
        Ok(BodySpec {
            name: name.to_string(),
            mesh,
            local,
            velocity: Vector2::from(velocity),
            material,
            reference,
        })
    }

    fn obstacle(&self, name: &str, o: &schema::ObstacleSection) -> Result<ObstacleSpec, CaseError> {
        let key = |k: &str| format!("obstacles.{name}.{k}");
        let not_for = |keys: &[(&str, bool)], kind: &str| -> Result<(), CaseError> {
            match keys.iter().find(|(_, given)| *given) {
                Some((k, _)) => Err(self.invalid(
                    &key(k),
                    &format!("does not apply to type = \"{kind}\""),
                    "given",
                )),
                None => Ok(()),
            }
        };
        let shape = match o.kind.as_str() {
            "half_space" => {
                not_for(
                    &[
                        ("points", o.points.is_some()),
                        ("contact_area", o.contact_area.is_some()),
                    ],
                    "half_space",
                )?;
                ObstacleShape::HalfSpace(self.half_space(name, o)?)
            }
            "polyline" => {
                not_for(
                    &[
                        ("normal", o.normal.is_some()),
                        ("angle_deg", o.angle_deg.is_some()),
                        ("point", o.point.is_some()),
                        ("velocity", o.velocity.is_some()),
                    ],
                    "polyline",
                )?;
                let points = o
                    .points
                    .as_ref()
                    .ok_or_else(|| self.invalid(&key("points"), "missing", "nothing"))?;
                if points.len() < 2 {
                    return Err(self.invalid(
                        &key("points"),
                        "a polyline needs at least two points",
                        points.len(),
                    ));
                }
                let mut p = Vec::with_capacity(points.len());
                for (i, q) in points.iter().enumerate() {
                    self.finite2(&format!("obstacles.{name}.points[{i}]"), *q)?;
                    p.push(Vector2::from(*q));
                }
                for i in 1..p.len() {
                    let length = (p[i] - p[i - 1]).norm();
                    if !(length > 0.0 && length.is_finite()) {
                        return Err(self.invalid(
                            &format!("obstacles.{name}.points[{i}]"),
                            "consecutive points of a polyline must differ (and be a finite distance apart)",
                            format!("{:?}", points[i]),
                        ));
                    }
                }
                if let Some(a) = o.contact_area {
                    self.positive(&key("contact_area"), a)?;
                }
                let contact_area = (0..p.len())
                    .map(|i| {
                        o.contact_area.unwrap_or_else(|| {
                            let before = if i > 0 { (p[i] - p[i - 1]).norm() } else { 0.0 };
                            let after = p.get(i + 1).map_or(0.0, |q| (q - p[i]).norm());
                            0.5 * (before + after)
                        })
                    })
                    .collect();
                ObstacleShape::Polyline {
                    points: p,
                    contact_area,
                }
            }
            other => {
                return Err(self.invalid(
                    &key("type"),
                    "must be \"half_space\" or \"polyline\"",
                    other,
                ));
            }
        };
        Ok(ObstacleSpec {
            name: name.to_string(),
            shape,
        })
    }

    fn half_space(
        &self,
        name: &str,
        o: &schema::ObstacleSection,
    ) -> Result<HalfSpace<2>, CaseError> {
        self.half_space_keys(
            name,
            HalfSpaceKeys {
                normal: o.normal,
                angle_deg: o.angle_deg,
                point: o.point,
                velocity: o.velocity,
            },
        )
    }
}
