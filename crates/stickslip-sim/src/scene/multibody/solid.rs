//! 3D scenes (`kind = "scene"`, `dimension = 3`, SPEC.md §7): tetrahedral bodies (a cuboid of
//! nx × ny × nz cells, a cylinder or puck, a Gmsh `.msh` tetrahedral mesh), neo-Hookean or
//! mass-spring, launched with a rigid motion (a velocity and an angular velocity about the
//! centre), on half-spaces with an optional surface velocity, under gravity. The schema is
//! [`super::solid_schema`]; the friction, barrier, time and Newton sections are validated by
//! the 2D scene's rules (`super::settings`).
//!
//! Bodies meet each other through point–triangle and edge–edge pairs (SPEC.md §7); a scene whose
//! bodies start closer than d̂ or overlapping is refused (`super::solid_clearance`).
//!
//! Static triangle meshes are obstacles beside the half-spaces ([`super::triangle_obstacle`]),
//! numbered after them. Drivers (springs to moving anchors, prescribed motions, constant
//! forces) are the 2D scene's ([`super::drivers`]), their vectors of three components and their
//! node sets the faces of a body's bounding box in its own frame ([`SOLID_NODE_SETS`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use nalgebra::{Rotation3, Vector3};

use super::SCENE_KIND;
use super::drivers::{DriverForce, Face, face_nodes};
use super::half_space::HalfSpaceKeys;
use super::scene::{Dim, Scene, SceneDimension};
use super::shape_registry::{BodyKeys, shape_named, shape_of};
use super::solid_body::{SolidBodySpec, SolidShape};
use super::solid_clearance::solid_boundary;
use super::solid_schema::{SolidBodySection, SolidObstacleSection, SolidSceneFile};
use super::solid_shapes::{Generated, SHAPES, ShapeInput, shape_keys};
use super::triangle_obstacle::TriangleObstacle;
use crate::contact::{Coefficients, ContactSurface, EmbeddedVertices, HalfSpace};
use crate::energy::Vec3;
use crate::energy::gravity::GravityEnergy;
use crate::scene::bodies::Material;
use crate::scene::bodies::affine::AffineBody;
use crate::scene::bodies::affine_solid::AffineSolid;
use crate::scene::bodies::deformable::Deformable;
use crate::scene::bodies::mesh_rules::MeshSize;
use crate::scene::bodies::solid_model::{Contacts, Launch, SolidModel};
use crate::scene::bodies::tet_mesh::centroid;
use crate::scene::case_file::{CaseError, Validator};
use crate::scene::limits::{MAX_NODES, MIN_START_CLEARANCE_OF_DHAT};
use crate::solver::driver::LinearMotion;
use crate::solver::{System, SystemBuilder};

/// The least contact weight of a boundary node, as a fraction of its full share of the
/// boundary's area, where its faces do not face the half-space
/// ([`crate::scene::bodies::TetMesh::facing_contact_area`]): small enough that a puck's rim
/// nodes carry 0.1 % of their side faces' share beside their bottom share, large enough that a
/// node turned towards the plane still meets a barrier.
pub const FACING_FLOOR: f64 = 1e-3;

/// A 3D driver's node sets: all of a body's nodes, or those on one face of its bounding box at
/// rest in its own frame (local −x, +x, −y, +y, −z, +z).
pub const SOLID_NODE_SETS: [&str; 7] = ["all", "left", "right", "front", "back", "bottom", "top"];

/// The faces of a 3D body's bounding box that name node sets (besides `all`).
const SOLID_FACES: [Face; 6] = [
    ("left", 0, false),
    ("right", 0, true),
    ("front", 1, false),
    ("back", 1, true),
    ("bottom", 2, false),
    ("top", 2, true),
];

/// The nodes of `local` (positions in a body's frame) on face `set` of its bounding box (within
/// a thousandth of its largest size), or all of them.
fn solid_node_set(local: &[Vec3], set: &str) -> Vec<usize> {
    face_nodes(local, &SOLID_FACES, set)
}

/// A body's support: a half-space or a flat triangle mesh ([`SolidScene::nearest_support`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Support {
    /// Its number in the friction table's order (bodies, half-spaces, triangle meshes).
    pub member: usize,
    /// Its index in [`SolidObstacles::half_spaces`] when it is a half-space.
    pub half_space: Option<usize>,
    /// Its unit normal, towards the nodes it was found for (a half-space's: to its free side).
    pub normal: Vec3,
}

/// A validated 3D scene.
pub type SolidScene = Scene<3>;

/// A 3D scene's obstacles: half-spaces, then static triangle meshes, each in name order (the
/// friction table numbers them after the bodies in this order).
#[derive(Clone, Debug, Default)]
pub struct SolidObstacles {
    /// The half-spaces, by name.
    pub half_spaces: Vec<(String, HalfSpace<3>)>,
    /// The triangle-mesh obstacles, by name.
    pub meshes: Vec<(String, TriangleObstacle)>,
}

/// A 3D scene: [`SolidBodySpec`] bodies, [`SolidObstacles`], the [`SolidSceneFile`] schema.
impl SceneDimension<3> for Dim<3> {
    type Body = SolidBodySpec;
    type Obstacles = SolidObstacles;
    type File = SolidSceneFile;

    /// Nothing: `dimension = 3` is how a 3D scene's file was told from a 2D one's.
    fn check_text(_: &str, _: &Path) -> Result<(), CaseError> {
        Ok(())
    }

    fn validate(file: &SolidSceneFile, path: Option<&Path>) -> Result<SolidScene, CaseError> {
        SolidScene::from_file(file, path)
    }
}

impl Scene<3> {
    /// Validates a parsed 3D scene file.
    pub fn from_file(f: &SolidSceneFile, path: Option<&Path>) -> Result<SolidScene, CaseError> {
        let file = path
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("(inline case)"));
        let v = Validator { file: &file };
        if f.kind != SCENE_KIND {
            return Err(v.invalid("kind", &format!("must be \"{SCENE_KIND}\""), &f.kind));
        }
        if f.dimension != 3 {
            return Err(v.invalid("dimension", "must be 3 for a 3D scene", f.dimension));
        }
        v.finite_n("gravity.acceleration", f.gravity.acceleration)?;
        let gravity = Vector3::from(f.gravity.acceleration);
        let bodies = v.sized_bodies(
            &f.bodies,
            generated_size,
            |name, b| v.solid_body(name, b, path),
            |b| b.mesh.len(),
        )?;
        let body_names: Vec<&str> = f.bodies.keys().map(String::as_str).collect();
        let drivers = v.drivers(&f.drivers, &body_names, &SOLID_NODE_SETS, |b, set| {
            solid_node_set(&bodies[b].local, set)
        })?;
        let nodes: usize = bodies.iter().map(|b| b.mesh.len()).sum();
        let (mut obstacles, mut meshes) = (Vec::new(), Vec::new());
        for (name, o) in &f.obstacles {
            v.obstacle_name(name, &f.bodies)?;
            match o.kind.as_str() {
                "half_space" => obstacles.push((name.clone(), v.solid_half_space(name, o)?)),
                "triangle_mesh" => meshes.push((name.clone(), v.solid_triangle_mesh(name, o)?)),
                other => {
                    return Err(v.invalid(
                        &format!("obstacles.{name}.type"),
                        "must be \"half_space\" or \"triangle_mesh\"",
                        other,
                    ));
                }
            }
        }
        let nodes = nodes + meshes.iter().map(|(_, m)| m.vertices.len()).sum::<usize>();
        if nodes as f64 > MAX_NODES {
            return Err(v.invalid(
                "obstacles",
                &format!(
                    "the bodies' and triangle meshes' nodes must be at most {MAX_NODES:e} in all"
                ),
                nodes,
            ));
        }
        // The friction table's numbering: bodies, half-spaces, triangle meshes.
        let names: Vec<&str> = f
            .bodies
            .keys()
            .chain(obstacles.iter().map(|(n, _)| n))
            .chain(meshes.iter().map(|(n, _)| n))
            .map(String::as_str)
            .collect();
        let settings = v.scene_settings(
            &names,
            &f.friction,
            &f.barrier,
            &f.time,
            &f.newton,
            gravity.amax(),
        )?;
        let clearance = MIN_START_CLEARANCE_OF_DHAT * settings.barrier.dhat;
        for b in &bodies {
            for (o, hs) in &obstacles {
                for (i, x) in b.mesh.x0.iter().enumerate() {
                    let d = hs.distance(x);
                    if d < clearance || d.is_nan() {
                        return Err(v.invalid(
                            &format!("bodies.{}.centre", b.name),
                            &format!(
                                "every node must start at least {clearance:e} m (1e-3 barrier.dhat) outside obstacle `{o}`"
                            ),
                            format!("node {i} at signed distance {d:e} m"),
                        ));
                    }
                }
            }
        }
        if let Some(b) = bodies.iter().find(|b| b.model.affine().is_some()) {
            let key = format!("bodies.{}.material", b.name);
            let refuse = |rule: &str| Err(v.invalid(&key, rule, "affine"));
            if bodies.len() > 1 {
                return refuse(
                    "an affine body must be the scene's only body (it meets half-spaces only, not yet other bodies)",
                );
            }
            if !meshes.is_empty() {
                return refuse(
                    "an affine body meets half-spaces only, not yet triangle-mesh obstacles",
                );
            }
            if !drivers.is_empty() {
                return refuse("an affine body takes no drivers yet");
            }
        }
        let members: Vec<String> = names.iter().map(|n| n.to_string()).collect();
        v.solid_clearances(&bodies, &meshes, &members, settings.barrier.dhat)?;
        Ok(SolidScene {
            name: f.name.clone(),
            source: path.map(Path::to_path_buf),
            overrides: Vec::new(),
            gravity,
            bodies,
            obstacles: SolidObstacles {
                half_spaces: obstacles,
                meshes,
            },
            drivers,
            settings,
        })
    }

    /// The system of this scene: the bodies' nodes (body by body; an affine body's four control
    /// nodes), their elastic terms, gravity, every boundary node (an affine body's: embedded)
    /// against every half-space, and, with more than one body, the point–triangle and edge–edge
    /// pairs between them; with every body's node range.
    pub fn system(&self) -> (System<3>, Vec<std::ops::Range<usize>>) {
        let (system, ranges, _) = self.system_and_drivers();
        (system, ranges)
    }

    /// [`SolidScene::system`], and how every driver's force on its body is found after a step
    /// (in the scene's order).
    pub fn system_and_drivers(
        &self,
    ) -> (System<3>, Vec<std::ops::Range<usize>>, Vec<DriverForce<3>>) {
        let mut builder = SystemBuilder::new(self.settings.solver_settings());
        let mut surface = ContactSurface::default();
        let mut embedded = EmbeddedVertices::default();
        let ranges: Vec<_> = self
            .bodies
            .iter()
            .enumerate()
            .map(|(k, b)| {
                // Half-space contact weights: the boundary's area facing the half-space the
                // body starts nearest (TetMesh::facing_contact_area), for a body with flat
                // faces whose rims would otherwise carry their side faces' share; or, with
                // `contact_weights = "full"` (an ellipsoid's default), every node's full share:
                // a tumbling body may land on a node facing away at t = 0 (the football's nose).
                let mut mesh = b.mesh.clone();
                if let (Some(h), false) =
                    (self.nearest_half_space(&mesh.x0), b.full_contact_weights)
                {
                    mesh.contact_area = mesh.facing_contact_area(&h.normal, FACING_FLOOR);
                }
                b.model.add_to(
                    &mesh,
                    &Launch {
                        velocities: &b.velocities,
                        velocity: b.velocity,
                        spin: b.angular_velocity,
                    },
                    &mut builder,
                    self.settings.projection,
                    k,
                    &mut Contacts {
                        surface: &mut surface,
                        embedded: &mut embedded,
                    },
                )
            })
            .collect();
        let mass = builder.masses().to_vec();
        builder.add_potential(Box::new(GravityEnergy::new(mass, self.gravity)));
        let drivers = self
            .drivers
            .iter()
            .map(|d| {
                d.add_to(
                    &mut builder,
                    ranges[d.body].start,
                    &self.bodies[d.body].mesh.x0,
                )
            })
            .collect();
        // Triangle meshes: their vertices are nodes held fixed (after the bodies', as
        // `solid_boundary` numbers them), so that the point–triangle and edge–edge pairs serve
        // body–mesh contact.
        for (name, m) in &self.obstacles.meshes {
            let nodes = builder.add_fixed_nodes(&m.vertices);
            builder.add_driver(Box::new(LinearMotion::fixed(
                name.clone(),
                nodes.collect(),
                m.vertices.clone(),
            )));
        }
        let mut stage = self.settings.contact_stage(self.bodies.len());
        let half_spaces: Vec<_> = self
            .obstacles
            .half_spaces
            .iter()
            .enumerate()
            .map(|(o, (_, h))| (*h, self.bodies.len() + o))
            .collect();
        if !half_spaces.is_empty() {
            stage.add_half_spaces(surface, &half_spaces);
            if !embedded.is_empty() {
                stage.add_embedded_half_spaces(&embedded, &half_spaces);
            }
        }
        if self.bodies.len() > 1 || !self.obstacles.meshes.is_empty() {
            let (x0, boundary) =
                solid_boundary(&self.bodies, &self.obstacles.meshes, self.first_mesh());
            stage.add_triangle_pairs(&boundary, &x0);
        }
        builder.set_contact(stage);
        let system = builder.build().expect(
            "a validated scene names only its own nodes, with positive masses, and no node is moved twice",
        );
        (system, ranges, drivers)
    }

    /// The friction table's number of the first triangle mesh (after the bodies and the
    /// half-spaces).
    pub fn first_mesh(&self) -> usize {
        self.bodies.len() + self.obstacles.half_spaces.len()
    }

    /// The bodies, half-spaces and triangle meshes, as the friction table numbers them.
    pub fn members(&self) -> usize {
        self.first_mesh() + self.obstacles.meshes.len()
    }

    /// The name of member `m` (a body, a half-space or a triangle mesh).
    pub fn member_name(&self, m: usize) -> &str {
        let (nb, first_mesh) = (self.bodies.len(), self.first_mesh());
        if m < nb {
            &self.bodies[m].name
        } else if m < first_mesh {
            &self.obstacles.half_spaces[m - nb].0
        } else {
            &self.obstacles.meshes[m - first_mesh].0
        }
    }

    /// The half-space nearest the nodes `x` (their smallest signed distance), if any.
    pub fn nearest_half_space(&self, x: &[Vec3]) -> Option<&HalfSpace<3>> {
        self.nearest_obstacle(x)
            .map(|o| &self.obstacles.half_spaces[o].1)
    }

    /// The index in `obstacles` of the half-space nearest the nodes `x`, if any.
    pub fn nearest_obstacle(&self, x: &[Vec3]) -> Option<usize> {
        self.obstacles
            .half_spaces
            .iter()
            .enumerate()
            .map(|(o, (_, h))| {
                let d = x
                    .iter()
                    .map(|p| h.distance(p))
                    .fold(f64::INFINITY, f64::min);
                (o, d)
            })
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(o, _)| o)
    }

    /// The support nearest the nodes `x`: the half-space or flat triangle mesh
    /// ([`TriangleObstacle::plane`]) with the smallest distance to any of them (a mesh's: to
    /// its plane), if there is one. A mesh with relief is never a support here (its distance
    /// would take every node against every triangle).
    pub fn nearest_support(&self, x: &[Vec3]) -> Option<Support> {
        let nearest = |d: &dyn Fn(&Vec3) -> f64| x.iter().map(d).fold(f64::INFINITY, f64::min);
        let half_spaces = self
            .obstacles
            .half_spaces
            .iter()
            .enumerate()
            .map(|(o, (_, h))| {
                let support = Support {
                    member: self.bodies.len() + o,
                    half_space: Some(o),
                    normal: h.normal,
                };
                (support, nearest(&|p| h.distance(p)))
            });
        let centre = x.iter().sum::<Vec3>() / x.len().max(1) as f64;
        let meshes = self
            .obstacles
            .meshes
            .iter()
            .enumerate()
            .filter_map(|(m, (_, mesh))| {
                let (n, point) = mesh.plane()?;
                // Towards the nodes, as a half-space's normal points to its free side.
                let n = if n.dot(&(centre - point)) < 0.0 {
                    -n
                } else {
                    n
                };
                let support = Support {
                    member: self.first_mesh() + m,
                    half_space: None,
                    normal: n,
                };
                Some((support, nearest(&|p| n.dot(&(p - point)).abs())))
            });
        half_spaces
            .chain(meshes)
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(s, _)| s)
    }

    /// The coefficients between body `k` and member `other` (a body or obstacle number).
    pub fn coefficients(&self, k: usize, other: usize) -> Coefficients {
        self.settings
            .friction_pairs
            .iter()
            .find(|(a, b, _)| (*a, *b) == (k, other) || (*b, *a) == (k, other))
            .map_or(self.settings.friction, |(_, _, c)| *c)
    }
}

/// What a body's `material` key made of it: an elastic mesh or an affine body of stiffness κ
/// (Pa).
enum MadeOf {
    Elastic(Material),
    Affine { stiffness: f64 },
}

impl Validator<'_> {
    fn solid_body(
        &self,
        name: &str,
        b: &SolidBodySection,
        case: Option<&Path>,
    ) -> Result<SolidBodySpec, CaseError> {
        let key = |k: &str| format!("bodies.{name}.{k}");
        self.finite_n(&key("centre"), b.centre)?;
        let rotation = b.rotation_deg.unwrap_or([0.0; 3]);
        self.finite_n(&key("rotation_deg"), rotation)?;
        let velocity = b.velocity.unwrap_or([0.0; 3]);
        self.finite_n(&key("velocity"), velocity)?;
        let spin = b.angular_velocity.unwrap_or([0.0; 3]);
        self.finite_n(&key("angular_velocity"), spin)?;
        self.positive(&key("density"), b.density)?;
        if !["neo_hookean", "mass_spring", "affine"].contains(&b.material.as_str()) {
            return Err(self.invalid(
                &key("material"),
                "must be \"neo_hookean\", \"mass_spring\" or \"affine\"",
                &b.material,
            ));
        }
        let material = if b.material == "affine" {
            for (k, given) in [
                ("youngs_modulus", b.youngs_modulus.is_some()),
                ("poisson_ratio", b.poisson_ratio.is_some()),
            ] {
                if given {
                    return Err(self.invalid(
                        &key(k),
                        "does not apply to material = \"affine\" (its stiffness is κ of the orthogonality potential, Pa)",
                        "given",
                    ));
                }
            }
            let stiffness = b
                .stiffness
                .ok_or_else(|| self.invalid(&key("stiffness"), "missing", "nothing"))?;
            self.positive(&key("stiffness"), stiffness)?;
            MadeOf::Affine { stiffness }
        } else {
            MadeOf::Elastic(self.material(
                name,
                &b.material,
                b.stiffness,
                b.youngs_modulus,
                b.poisson_ratio,
            )?)
        };
        let damping = b.damping.unwrap_or(0.0);
        if !(damping.is_finite() && damping >= 0.0) {
            return Err(self.invalid(&key("damping"), "must be finite and >= 0", damping));
        }
        if damping > 0.0 && !matches!(material, MadeOf::Elastic(Material::NeoHookean(_))) {
            return Err(self.invalid(
                &key("damping"),
                "applies to material = \"neo_hookean\" only",
                damping,
            ));
        }
        let centre = Vector3::from(b.centre);
        let rotation = Rotation3::new(Vector3::from(rotation).map(f64::to_radians));
        let generator = shape_of(self, SHAPES, name, &b.shape, &shape_keys(b))?;
        let Generated { mesh, shape, axis } = generator.generate(&ShapeInput {
            keys: BodyKeys { v: self, name },
            b,
            case,
            centre,
            rotation: &rotation,
        })?;
        let c = centroid(&mesh);
        let (velocity, angular_velocity) = (Vector3::from(velocity), Vector3::from(spin));
        let velocities = mesh
            .x0
            .iter()
            .map(|x| velocity + angular_velocity.cross(&(x - c)))
            .collect();
        let local = mesh
            .x0
            .iter()
            .map(|x| rotation.inverse() * (x - centre))
            .collect();
        // An affine ellipsoid carries the ellipsoid's own mass and second moment
        // (ρ 4/3 π abc and m/5 diag(a², b², c²) in its frame) about the centre, not its faceted
        // mesh's: it then tumbles as the ellipsoid does (cases/football_affine.toml).
        let full_contact_weights = match b.contact_weights.as_deref() {
            None => matches!(shape, SolidShape::Ellipsoid(_)),
            Some("full") => true,
            Some("facing") => false,
            Some(other) => {
                return Err(self.invalid(
                    &key("contact_weights"),
                    "must be \"facing\" or \"full\"",
                    other,
                ));
            }
        };
        let model: Arc<dyn SolidModel> = match material {
            MadeOf::Elastic(material) => Arc::new(Deformable { material, damping }),
            MadeOf::Affine { stiffness } => Arc::new(AffineSolid {
                body: match shape {
                    SolidShape::Ellipsoid(axes) => {
                        AffineBody::ellipsoid(&mesh, axes, b.density, centre, &rotation)
                    }
                    _ => AffineBody::new(&mesh),
                },
                stiffness,
            }),
        };
        Ok(SolidBodySpec {
            name: name.to_string(),
            mesh,
            shape,
            velocities,
            velocity,
            angular_velocity,
            model,
            axis,
            local,
            full_contact_weights,
        })
    }

    fn solid_half_space(
        &self,
        name: &str,
        o: &SolidObstacleSection,
    ) -> Result<HalfSpace<3>, CaseError> {
        let key = |k: &str| format!("obstacles.{name}.{k}");
        if o.vertices.is_some() || o.triangles.is_some() {
            let k = if o.vertices.is_some() {
                "vertices"
            } else {
                "triangles"
            };
            return Err(self.invalid(
                &key(k),
                "belongs to a triangle mesh (type = \"triangle_mesh\"); a half-space takes normal or angle_deg, point and velocity",
                "given",
            ));
        }
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

/// The size of body `b`'s generated mesh from its keys ([`super::solid_shapes::ShapeGenerator::size`]), when they
/// are in their ranges and the body within the one-body limits; None for a mesh file and for
/// keys the body's own validation refuses.
fn generated_size(b: &SolidBodySection) -> Option<MeshSize> {
    let size = shape_named(SHAPES, &b.shape)?.size(b)?;
    size.over_limits().is_none().then_some(size)
}
