//! Case files of `kind = "rigid_ellipsoid"` (SPEC.md §5): a rigid ellipsoid, its initial pose
//! and body twist, gravity, an optional ground and the impact model. Parsed strictly (unknown
//! keys rejected) and validated; errors are [`CaseError`]s, one line naming the file, the key
//! and the rule.
//!
//! ```toml
//! kind = "rigid_ellipsoid"
//! name = "football"
//! [body]
//! semi_axes = [0.14, 0.085, 0.085]  # m, along body x, y, z
//! mass = 0.41                       # kg
//! # inertia = [Ixx, Iyy, Izz]       # kg m^2, principal; default: solid ellipsoid
//! [initial]
//! position = [0.0, 0.0, 1.5]        # m, centre of mass
//! axis = [0.0, 1.0, 0.0]            # orientation as axis and angle (rad) ...
//! angle = 0.3
//! # quaternion = [1.0, 0.0, 0.0, 0.0]  # ... or as a quaternion w, x, y, z (normalised on load)
//! omega = [0.0, 0.0, 0.0]           # rad/s, body frame
//! velocity = [0.0, 0.0, 0.0]        # m/s, body frame
//! [gravity]
//! acceleration = [0.0, 0.0, -9.81]  # m/s^2, world
//! [ground]                          # omit the table for no ground
//! point = [0.0, 0.0, 0.0]           # m
//! normal = [0.0, 0.0, 1.0]          # out of the ground, normalised on load
//! [impact]                          # required with [ground]
//! model = "energy_safe"             # or "newton" (the seed's kinematic restitution)
//! restitution = 0.6                 # epsilon in [0, 1]
//! mu = 0.5                          # >= 0, or "inf" (newton only)
//! bisection_tolerance = 1e-9        # s, on the step length tau
//! rest_speed = 0.05                 # m/s: an approach slower than this = settled
//! [time]
//! h = 1e-3                          # s
//! duration = 5.0                    # s
//! ```

use std::path::{Path, PathBuf};

use nalgebra::{Matrix3, Quaternion, Unit, UnitQuaternion, Vector3};
use serde::{Deserialize, Serialize};

use crate::number_format::{Short, short_list};
use crate::rigid::body::{Pose, RigidBody, State};
use crate::rigid::ellipsoid::{Ellipsoid, Ground};
use crate::rigid::impact::ImpactModel;
use crate::scene::CaseError;
use crate::scene::Override;
use crate::scene::overrides::{attribute, parse_with_overrides};

/// The value of the top-level `kind` key that selects this system.
pub const KIND: &str = crate::scene::kind::RIGID_KIND;

/// `[body]`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BodySection {
    /// Semi-axes (a, b, c) along the body axes, m.
    pub semi_axes: [f64; 3],
    /// Mass, kg.
    pub mass: f64,
    /// Principal moments of inertia, kg m²; default: a solid ellipsoid's.
    #[serde(default)]
    pub inertia: Option<[f64; 3]>,
}

/// `[initial]`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct InitialSection {
    /// Centre of mass, m, world.
    pub position: [f64; 3],
    /// Rotation axis of the initial orientation (with `angle`).
    #[serde(default)]
    pub axis: Option<[f64; 3]>,
    /// Rotation angle about `axis`, rad.
    #[serde(default)]
    pub angle: Option<f64>,
    /// The initial orientation as a quaternion (w, x, y, z), normalised on load.
    #[serde(default)]
    pub quaternion: Option<[f64; 4]>,
    /// Body angular velocity ω, rad/s.
    pub omega: [f64; 3],
    /// Body linear velocity v, m/s.
    pub velocity: [f64; 3],
}

/// `[gravity]`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct GravitySection {
    /// g_w, m/s², world.
    pub acceleration: [f64; 3],
}

/// `[ground]`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct GroundSection {
    /// A point of the plane, m.
    pub point: [f64; 3],
    /// Normal out of the ground (normalised on load).
    pub normal: [f64; 3],
}

/// μ as written: a number or the string "inf".
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(untagged)]
pub enum FrictionValue {
    /// A finite coefficient.
    Number(f64),
    /// "inf".
    Word(String),
}

/// `[impact]`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ImpactSection {
    /// "newton" or "energy_safe".
    pub model: ImpactModel,
    /// Restitution ε ∈ [0, 1].
    pub restitution: f64,
    /// Friction μ ≥ 0, or "inf".
    pub mu: FrictionValue,
    /// Bisection tolerance on the step length τ, s.
    pub bisection_tolerance: f64,
    /// Approach speed below which the body counts as settled, m/s.
    pub rest_speed: f64,
}

/// `[time]`: the step h and the duration, s (the same section as a slope case's).
pub use crate::scene::case_file::TimeSection;

/// A rigid-ellipsoid case file as written.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RigidCaseFile {
    /// Must be "rigid_ellipsoid".
    pub kind: String,
    /// Human-readable name.
    pub name: String,
    /// The body.
    pub body: BodySection,
    /// Initial state.
    pub initial: InitialSection,
    /// Gravity.
    pub gravity: GravitySection,
    /// The ground; absent for none.
    #[serde(default)]
    pub ground: Option<GroundSection>,
    /// The impact model; required with a ground.
    #[serde(default)]
    pub impact: Option<ImpactSection>,
    /// Time stepping.
    pub time: TimeSection,
}

/// The validated impact settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ImpactSettings {
    /// The model.
    pub model: ImpactModel,
    /// Restitution ε ∈ [0, 1].
    pub restitution: f64,
    /// Friction μ ≥ 0, possibly +∞ (Newton model only).
    pub friction: f64,
    /// Bisection tolerance on τ, s.
    pub bisection_tolerance: f64,
    /// Settling approach speed, m/s.
    pub rest_speed: f64,
}

/// A validated rigid-ellipsoid scene, SI units.
#[derive(Clone, Debug, PartialEq)]
pub struct RigidScene {
    /// Name.
    pub name: String,
    /// The file it came from.
    pub source: Option<PathBuf>,
    /// Shape.
    pub shape: Ellipsoid,
    /// Mass properties and gravity.
    pub body: RigidBody,
    /// Whether the inertia was stated in the file (else a solid ellipsoid's).
    pub inertia_stated: bool,
    /// The state at t = 0.
    pub initial: State,
    /// Ground and impact settings, if there is a ground.
    pub ground: Option<(Ground, ImpactSettings)>,
    /// Step, s.
    pub h: f64,
    /// Duration, s.
    pub duration: f64,
    /// The `--set` overrides the scene was loaded with, as given (`impact.mu=0`).
    pub overrides: Vec<String>,
}

pub use crate::scene::case_file::peek_kind;

/// The most steps one rigid run may take. The run keeps a trajectory row (about 200 bytes) a
/// step, so 10⁶ steps is about 200 MB; at h = 10⁻³ s that is 1 000 s of flight. More is a typing
/// error in `time.h` or `time.duration` (`h = 1e-300` would otherwise run for ever).
pub const MAX_RIGID_STEPS: f64 = 1e6;

/// Checks that `duration / h` (s / s) makes a whole number of steps, at least one and at most
/// [`MAX_RIGID_STEPS`]; the error is the rule broken. Used for the case file and for
/// `--duration`.
pub fn check_steps(h: f64, duration: f64) -> Result<(), String> {
    let steps = duration / h;
    if steps.is_nan() || steps > MAX_RIGID_STEPS {
        Err(format!(
            "duration / h must be at most {MAX_RIGID_STEPS:e} steps (got {steps:e})"
        ))
    } else if steps < 1.0 {
        Err(format!(
            "the run must have at least one step (duration / h >= 1, got {steps:e})"
        ))
    } else {
        crate::scene::case_file::whole_steps(duration, h).map(|_| ())
    }
}

struct Check<'a> {
    file: &'a Path,
}

/// `x` scaled by its largest component's magnitude (so that its norm is in [1, √n] and cannot
/// overflow or underflow), or `None` for a zero or non-finite vector.
fn scaled<const N: usize>(x: [f64; N]) -> Option<nalgebra::SVector<f64, N>> {
    let scale = x.iter().fold(0.0f64, |m, c| m.max(c.abs()));
    (scale.is_finite() && scale > 0.0 && x.iter().all(|c| c.is_finite()))
        .then(|| nalgebra::SVector::from(x) / scale)
}

impl Check<'_> {
    fn invalid(&self, key: &str, rule: &str, value: impl std::fmt::Display) -> CaseError {
        CaseError::Invalid {
            file: self.file.to_path_buf(),
            key: key.into(),
            rule: rule.into(),
            value: value.to_string(),
        }
    }
    fn positive(&self, key: &str, x: f64) -> Result<f64, CaseError> {
        match crate::scene::case_file::positive_rule(x) {
            None => Ok(x),
            Some(rule) => Err(self.invalid(key, rule, Short(x))),
        }
    }
    fn finite3(&self, key: &str, x: [f64; 3]) -> Result<Vector3<f64>, CaseError> {
        if x.iter().all(|c| c.is_finite()) {
            Ok(Vector3::from(x))
        } else {
            Err(self.invalid(key, "every component must be finite", short_list(&x)))
        }
    }
    /// The unit vector along `x`, normalised without overflow or underflow (`[1e300, 1e300, 0]`
    /// is the direction (1, 1, 0)/√2).
    fn unit3(&self, key: &str, x: [f64; 3]) -> Result<Vector3<f64>, CaseError> {
        self.finite3(key, x)?;
        scaled(x)
            .map(|v| v.normalize())
            .ok_or_else(|| self.invalid(key, "must be a non-zero vector", short_list(&x)))
    }
    /// A derived quantity (J, kg m², m/s², m) must be finite (and with `normal`, a normal
    /// number > 0): `key` names the input it comes from.
    fn derived(&self, key: &str, what: &str, x: f64, normal: bool) -> Result<(), CaseError> {
        let ok = if normal {
            x.is_normal() && x > 0.0
        } else {
            x.is_finite()
        };
        if ok {
            Ok(())
        } else {
            let rule = if normal {
                format!("{what} must be a finite, normal number > 0 (the value is out of range)")
            } else {
                format!("{what} must be finite (the value is out of range)")
            };
            Err(self.invalid(key, &rule, Short(x)))
        }
    }
}

/// The largest magnitude of `xs`, or infinity when one of them is not finite.
fn largest<'a>(xs: impl Iterator<Item = &'a f64>) -> f64 {
    xs.fold(0.0, |m: f64, c| {
        if c.is_finite() {
            m.max(c.abs())
        } else {
            f64::INFINITY
        }
    })
}

/// The quantities derived from the initial state must be finite: the kinetic energy of the spin
/// (½ωᵀIω) and of the motion (½m‖v‖²), the potential energy, their sum, and the accelerations of
/// the equations of motion at t = 0 (SPEC.md §5). A run from a state where one of them
/// overflows would only produce NaN.
fn check_initial_state(
    v: &Check,
    body: &RigidBody,
    initial: &State,
    ground: Option<&Ground>,
) -> Result<(), CaseError> {
    let omega = initial.omega();
    let spin = 0.5 * body.inertia.component_mul(&omega).dot(&omega);
    v.derived(
        "initial.omega",
        "the kinetic energy of the spin, ½ωᵀIω (J)",
        spin,
        false,
    )?;
    let motion = 0.5 * body.mass * initial.velocity().norm_squared();
    v.derived(
        "initial.velocity",
        "the kinetic energy of the motion, ½m|v|^2 (J)",
        motion,
        false,
    )?;
    let reference = ground.map_or(Vector3::zeros(), |g| g.point);
    let potential = body.potential_energy(&initial.pose, &reference);
    v.derived(
        "initial.position",
        "with gravity.acceleration, the potential energy -m g·(p - p0) (J)",
        potential,
        false,
    )?;
    v.derived(
        "initial.velocity",
        "the total energy at t = 0 (J)",
        spin + motion + potential,
        false,
    )?;
    let a = body.acceleration(&initial.pose, &initial.twist);
    v.derived(
        "initial.omega",
        "the angular acceleration I^-1((Iω) × ω) at t = 0 (rad/s^2)",
        largest(a.fixed_rows::<3>(0).iter()),
        false,
    )?;
    v.derived(
        "initial.velocity",
        "with gravity.acceleration, the acceleration v × ω + R^T g at t = 0 (m/s^2)",
        largest(a.fixed_rows::<3>(3).iter()),
        false,
    )
}

impl RigidScene {
    /// Reads and validates a case file.
    pub fn load(path: &Path) -> Result<RigidScene, CaseError> {
        RigidScene::load_with_overrides(path, &[])
    }

    /// Reads a case file, applies `overrides` in order (a later one wins) and validates the
    /// result: the same rules as the slope's `--set` (`crate::scene::overrides`): applied to
    /// the parsed document before validation, an unknown key refused, an error about an
    /// overridden key saying so. The scene records the overrides.
    pub fn load_with_overrides(
        path: &Path,
        overrides: &[Override],
    ) -> Result<RigidScene, CaseError> {
        let text = crate::scene::case_file::read_case_file(path)?;
        RigidScene::from_toml_with_overrides(&text, path, overrides)
    }

    /// Parses and validates case-file text; `path` is used in messages.
    pub fn from_toml(text: &str, path: &Path) -> Result<RigidScene, CaseError> {
        RigidScene::from_toml_with_overrides(text, path, &[])
    }

    /// [`RigidScene::from_toml`] with `overrides` applied to the parsed document first.
    pub fn from_toml_with_overrides(
        text: &str,
        path: &Path,
        overrides: &[Override],
    ) -> Result<RigidScene, CaseError> {
        let case: RigidCaseFile = parse_with_overrides(text, path, overrides)?;
        let mut scene = RigidScene::from_case(&case, path).map_err(|e| attribute(e, overrides))?;
        scene.overrides = overrides.iter().map(|o| o.setting.clone()).collect();
        Ok(scene)
    }

    /// Validates a parsed case.
    pub fn from_case(case: &RigidCaseFile, path: &Path) -> Result<RigidScene, CaseError> {
        let v = Check { file: path };
        if case.kind != KIND {
            return Err(v.invalid("kind", "must be \"rigid_ellipsoid\" here", &case.kind));
        }
        let semi_axes = v.finite3("body.semi_axes", case.body.semi_axes)?;
        if semi_axes.iter().any(|a| *a <= 0.0) {
            return Err(v.invalid(
                "body.semi_axes",
                "every semi-axis must be > 0",
                short_list(&case.body.semi_axes),
            ));
        }
        // The lowest point and the inertia use the squared semi-axes (m²).
        for a in semi_axes.iter() {
            v.derived(
                "body.semi_axes",
                "every squared semi-axis (m^2)",
                a * a,
                true,
            )?;
        }
        let mass = v.positive("body.mass", case.body.mass)?;
        let (inertia, inertia_stated) = match case.body.inertia {
            Some(i) => {
                let i = v.finite3("body.inertia", i)?;
                if i.iter().any(|x| *x <= 0.0) {
                    return Err(v.invalid(
                        "body.inertia",
                        "every principal moment must be > 0",
                        short_list(&[i.x, i.y, i.z]),
                    ));
                }
                for m in i.iter() {
                    v.derived("body.inertia", "every principal moment (kg m^2)", *m, true)?;
                }
                // Principal moments of a real body satisfy the triangle inequalities.
                if i.x > i.y + i.z || i.y > i.x + i.z || i.z > i.x + i.y {
                    return Err(v.invalid(
                        "body.inertia",
                        "principal moments must satisfy the triangle inequality (each <= sum of the other two)",
                        format!("{:?}", [i.x, i.y, i.z]),
                    ));
                }
                (i, true)
            }
            None => {
                let i = RigidBody::solid_ellipsoid_inertia(mass, &semi_axes);
                for m in i.iter() {
                    v.derived(
                        "body.mass",
                        "with body.semi_axes, every principal moment m(b^2 + c^2)/5 (kg m^2)",
                        *m,
                        true,
                    )?;
                }
                (i, false)
            }
        };
        let position = v.finite3("initial.position", case.initial.position)?;
        let rotation = match (
            &case.initial.quaternion,
            &case.initial.axis,
            case.initial.angle,
        ) {
            (Some(_), Some(_), _) | (Some(_), _, Some(_)) => {
                return Err(v.invalid(
                    "initial.quaternion",
                    "give either quaternion or axis and angle, not both",
                    "both",
                ));
            }
            (Some(q), None, None) => {
                // Scaled before it is normalised: [1e300, 1e300, 0, 0] is a valid direction
                // whose plain norm overflows.
                let Some(q4) = scaled(*q) else {
                    return Err(v.invalid(
                        "initial.quaternion",
                        "must be finite and non-zero (w, x, y, z)",
                        short_list(q),
                    ));
                };
                UnitQuaternion::from_quaternion(Quaternion::new(q4[0], q4[1], q4[2], q4[3]))
                    .to_rotation_matrix()
                    .into_inner()
            }
            (None, Some(axis), Some(angle)) => {
                let axis = v.unit3("initial.axis", *axis)?;
                if !angle.is_finite() {
                    return Err(v.invalid("initial.angle", "must be finite", Short(angle)));
                }
                UnitQuaternion::from_axis_angle(&Unit::new_normalize(axis), angle)
                    .to_rotation_matrix()
                    .into_inner()
            }
            (None, Some(_), None) => {
                return Err(v.invalid("initial.angle", "required with initial.axis", "missing"));
            }
            (None, None, Some(_)) => {
                return Err(v.invalid("initial.axis", "required with initial.angle", "missing"));
            }
            (None, None, None) => Matrix3::identity(),
        };
        let omega = v.finite3("initial.omega", case.initial.omega)?;
        let velocity = v.finite3("initial.velocity", case.initial.velocity)?;
        let gravity = v.finite3("gravity.acceleration", case.gravity.acceleration)?;
        let h = v.positive("time.h", case.time.h)?;
        let duration = v.positive("time.duration", case.time.duration)?;
        crate::scene::case_file::whole_steps(duration, h).map_err(|rule| {
            v.invalid(
                "time.duration",
                &rule,
                format!("{} s / {} s", Short(duration), Short(h)),
            )
        })?;
        check_steps(h, duration).map_err(|rule| {
            v.invalid(
                "time.h",
                &rule,
                format!("{} s / {} s", Short(duration), Short(h)),
            )
        })?;
        let shape = Ellipsoid { semi_axes };
        let initial = State {
            pose: Pose {
                r: rotation,
                p: position,
            },
            twist: nalgebra::Vector6::new(
                omega.x, omega.y, omega.z, velocity.x, velocity.y, velocity.z,
            ),
        };
        let ground = match (&case.ground, &case.impact) {
            (None, None) => None,
            (None, Some(_)) => {
                return Err(v.invalid("impact", "only with a [ground] table", "given"));
            }
            (Some(_), None) => {
                return Err(v.invalid("impact", "required when [ground] is given", "missing"));
            }
            (Some(g), Some(imp)) => {
                let ground = Ground {
                    point: v.finite3("ground.point", g.point)?,
                    normal: v.unit3("ground.normal", g.normal)?,
                };
                let restitution = imp.restitution;
                if !(restitution.is_finite() && (0.0..=1.0).contains(&restitution)) {
                    return Err(v.invalid(
                        "impact.restitution",
                        "must be in [0, 1]",
                        Short(restitution),
                    ));
                }
                let friction = match &imp.mu {
                    FrictionValue::Number(x) if x.is_finite() && *x >= 0.0 => *x,
                    FrictionValue::Word(w) if w == "inf" => f64::INFINITY,
                    FrictionValue::Number(x) => {
                        return Err(v.invalid(
                            "impact.mu",
                            "must be finite and >= 0, or \"inf\"",
                            Short(*x),
                        ));
                    }
                    FrictionValue::Word(w) => {
                        return Err(v.invalid("impact.mu", "must be a number >= 0 or \"inf\"", w));
                    }
                };
                if friction.is_infinite() && imp.model == ImpactModel::EnergySafe {
                    return Err(v.invalid(
                        "impact.mu",
                        "must be finite with model = \"energy_safe\" (\"inf\" is the newton model's)",
                        "inf",
                    ));
                }
                let bisection_tolerance =
                    v.positive("impact.bisection_tolerance", imp.bisection_tolerance)?;
                if bisection_tolerance >= h {
                    return Err(v.invalid(
                        "impact.bisection_tolerance",
                        "must be smaller than time.h",
                        Short(bisection_tolerance),
                    ));
                }
                let rest_speed = v.positive("impact.rest_speed", imp.rest_speed)?;
                v.derived(
                    "initial.position",
                    "the lowest point's signed distance to the ground (m)",
                    shape.signed_distance(&initial.pose, &ground),
                    false,
                )?;
                if shape.signed_distance(&initial.pose, &ground) <= 0.0 {
                    return Err(v.invalid(
                        "initial.position",
                        "the ellipsoid must start strictly above the ground",
                        format!(
                            "{:?}, lowest point's signed distance {:.6} m",
                            case.initial.position,
                            shape.signed_distance(&initial.pose, &ground)
                        ),
                    ));
                }
                Some((
                    ground,
                    ImpactSettings {
                        model: imp.model,
                        restitution,
                        friction,
                        bisection_tolerance,
                        rest_speed,
                    },
                ))
            }
        };
        let body = RigidBody {
            mass,
            inertia,
            gravity,
        };
        check_initial_state(&v, &body, &initial, ground.as_ref().map(|(g, _)| g))?;
        Ok(RigidScene {
            name: case.name.clone(),
            source: Some(path.to_path_buf()),
            shape,
            body,
            inertia_stated,
            initial,
            ground,
            h,
            duration,
            overrides: Vec::new(),
        })
    }
}
