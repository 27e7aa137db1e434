//! A scene's drivers in either dimension (SPEC.md §7 "Drivers"): a spring from a body's node set
//! to an anchor moving at a constant velocity, a node set moved at a constant velocity, or a
//! constant total force on a node set shared by mass. Their rules, their terms in a system and
//! their force on the body after a step, one code path for 2D and 3D scenes.

use crate::energy::anchor_spring::AnchorSpring;
use crate::energy::constant_force::ConstantForce;
use crate::energy::{Projection, Vector};
use crate::scene::case_file::{CaseError, Validator};
use crate::solver::driver::LinearMotion;
use crate::solver::{Simulation, SystemBuilder};

/// What a driver does.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DriverKind<const D: usize = 2> {
    /// A spring from the node set's mean position to an anchor a₀ + v t.
    Spring {
        /// Stiffness, N/m.
        stiffness: f64,
        /// Rest length, m.
        rest_length: f64,
        /// The anchor at t = 0, m.
        anchor: Vector<D>,
        /// Its velocity, m/s.
        anchor_velocity: Vector<D>,
    },
    /// The node set moved at a velocity from where it starts.
    Move {
        /// m/s.
        velocity: Vector<D>,
    },
    /// A constant total force on the node set, shared by mass.
    Force {
        /// N.
        force: Vector<D>,
    },
}

impl<const D: usize> DriverKind<D> {
    /// `spring`, `move` or `force`, as the case file names it.
    pub fn name(&self) -> &'static str {
        match self {
            DriverKind::Spring { .. } => "spring",
            DriverKind::Move { .. } => "move",
            DriverKind::Force { .. } => "force",
        }
    }

    /// How fast a spring's force along the unit direction `along` grows while its node set
    /// stays put, N/s: k |v_anchor · along| (SPEC.md §8's breakaway ramp); zero for the other
    /// drivers.
    pub fn spring_force_rate(&self, along: &Vector<D>) -> f64 {
        match self {
            DriverKind::Spring {
                stiffness,
                anchor_velocity,
                ..
            } => stiffness * anchor_velocity.dot(along).abs(),
            _ => 0.0,
        }
    }
}

/// A driver of the scene.
#[derive(Clone, Debug)]
pub struct DriverSpec<const D: usize = 2> {
    /// Its name.
    pub name: String,
    /// The body it acts on (index into the scene's bodies).
    pub body: usize,
    /// The node set's name.
    pub node_set: String,
    /// The node set (the body's own node numbers).
    pub nodes: Vec<usize>,
    /// What it does.
    pub kind: DriverKind<D>,
}

/// How a driver's force on its body is found after a step.
#[derive(Clone, Debug)]
pub enum DriverForce<const D: usize = 2> {
    /// A spring: its own force at x and the time.
    Spring {
        /// The spring, as the system's potential `term` is.
        spring: AnchorSpring<D>,
        /// Its index among the system's potentials.
        term: usize,
    },
    /// A prescribed motion: the reaction on its nodes.
    Move {
        /// Its nodes' indices in the state vector.
        nodes: Vec<usize>,
        /// Its index among the system's drivers.
        driver: usize,
    },
    /// A constant force.
    Force {
        /// The total force, N.
        force: Vector<D>,
        /// Its index among the system's potentials.
        term: usize,
    },
}

/// A face of a body's bounding box that names a node set: (name, axis, on its high side).
pub(crate) type Face = (&'static str, usize, bool);

/// The nodes of `local` (positions in a body's own frame) on face `set` of its bounding box
/// (within a thousandth of its largest size), one of `faces`; any other name selects all of
/// them.
pub(crate) fn face_nodes<const D: usize>(
    local: &[Vector<D>],
    faces: &[Face],
    set: &str,
) -> Vec<usize> {
    let (lo, hi) = local.iter().fold(
        (
            Vector::<D>::repeat(f64::INFINITY),
            Vector::<D>::repeat(f64::NEG_INFINITY),
        ),
        |(lo, hi), p| (lo.inf(p), hi.sup(p)),
    );
    let tol = 1e-3 * (hi - lo).amax();
    let face = faces.iter().find(|(name, _, _)| *name == set);
    (0..local.len())
        .filter(|&i| match face {
            Some(&(_, axis, true)) => local[i][axis] >= hi[axis] - tol,
            Some(&(_, axis, false)) => local[i][axis] <= lo[axis] + tol,
            None => true,
        })
        .collect()
}

/// A `[drivers.NAME]` table's keys as read, in either dimension (vectors of D numbers).
pub(crate) struct DriverFields<'a, const D: usize> {
    /// `type`.
    pub kind: &'a str,
    /// `body`.
    pub body: &'a str,
    /// `nodes`.
    pub nodes: &'a str,
    /// `stiffness`, N/m.
    pub stiffness: Option<f64>,
    /// `rest_length`, m.
    pub rest_length: Option<f64>,
    /// `anchor`, m.
    pub anchor: Option<[f64; D]>,
    /// `anchor_velocity`, m/s.
    pub anchor_velocity: Option<[f64; D]>,
    /// `velocity`, m/s.
    pub velocity: Option<[f64; D]>,
    /// `force`, N.
    pub force: Option<[f64; D]>,
}

impl Validator<'_> {
    /// Driver `name`'s rules: `body` one of `bodies`, `nodes` one of `sets` selecting at least
    /// one node (`node_set(body, set)`), and the keys of its `type` only, each finite (and the
    /// stiffness > 0, the rest length ≥ 0).
    pub(crate) fn driver<const D: usize>(
        &self,
        name: &str,
        d: &DriverFields<D>,
        bodies: &[&str],
        sets: &[&str],
        node_set: impl Fn(usize, &str) -> Vec<usize>,
    ) -> Result<DriverSpec<D>, CaseError> {
        self.csv_name("drivers", name)?;
        let key = |k: &str| format!("drivers.{name}.{k}");
        let body = bodies.iter().position(|b| *b == d.body).ok_or_else(|| {
            self.invalid(
                &key("body"),
                &format!("must name a body ({})", bodies.join(", ")),
                d.body,
            )
        })?;
        if !sets.contains(&d.nodes) {
            return Err(self.invalid(&key("nodes"), &format!("must be one of {sets:?}"), d.nodes));
        }
        let nodes = node_set(body, d.nodes);
        if nodes.is_empty() {
            return Err(self.invalid(&key("nodes"), "selects no node", d.nodes));
        }
        // Every key but type, body and nodes belongs to some types only.
        let given = [
            ("stiffness", d.stiffness.is_some()),
            ("rest_length", d.rest_length.is_some()),
            ("anchor", d.anchor.is_some()),
            ("anchor_velocity", d.anchor_velocity.is_some()),
            ("velocity", d.velocity.is_some()),
            ("force", d.force.is_some()),
        ];
        let applies: &[&str] = match d.kind {
            "spring" => &["stiffness", "rest_length", "anchor", "anchor_velocity"],
            "move" => &["velocity"],
            "force" => &["force"],
            other => {
                return Err(self.invalid(
                    &key("type"),
                    "must be \"spring\", \"move\" or \"force\"",
                    other,
                ));
            }
        };
        if let Some((k, _)) = given.iter().find(|(k, on)| *on && !applies.contains(k)) {
            return Err(self.invalid(
                &key(k),
                &format!("does not apply to type = \"{}\"", d.kind),
                "given",
            ));
        }
        let vector = |k: &str, x: Option<[f64; D]>| -> Result<Vector<D>, CaseError> {
            let x = x.ok_or_else(|| self.invalid(&key(k), "missing", "nothing"))?;
            self.finite_vector(&key(k), x)?;
            Ok(Vector::<D>::from(x))
        };
        let kind = match d.kind {
            "spring" => {
                let stiffness = d
                    .stiffness
                    .ok_or_else(|| self.invalid(&key("stiffness"), "missing", "nothing"))?;
                self.positive(&key("stiffness"), stiffness)?;
                let rest_length = d.rest_length.unwrap_or(0.0);
                self.non_negative(&key("rest_length"), rest_length)?;
                let anchor_velocity = d.anchor_velocity.unwrap_or([0.0; D]);
                self.finite_vector(&key("anchor_velocity"), anchor_velocity)?;
                DriverKind::Spring {
                    stiffness,
                    rest_length,
                    anchor: vector("anchor", d.anchor)?,
                    anchor_velocity: Vector::<D>::from(anchor_velocity),
                }
            }
            "move" => DriverKind::Move {
                velocity: vector("velocity", d.velocity)?,
            },
            _ => DriverKind::Force {
                force: vector("force", d.force)?,
            },
        };
        Ok(DriverSpec {
            name: name.to_string(),
            body,
            node_set: d.nodes.to_string(),
            nodes,
            kind,
        })
    }

    /// No node moved by two drivers.
    pub(crate) fn one_motion_per_node<const D: usize>(
        &self,
        drivers: &[DriverSpec<D>],
    ) -> Result<(), CaseError> {
        for (i, a) in drivers.iter().enumerate() {
            for b in &drivers[i + 1..] {
                let both_move = matches!(a.kind, DriverKind::Move { .. })
                    && matches!(b.kind, DriverKind::Move { .. });
                if both_move && a.body == b.body && a.nodes.iter().any(|n| b.nodes.contains(n)) {
                    return Err(self.invalid(
                        &format!("drivers.{}.nodes", b.name),
                        &format!(
                            "a node may be moved by one driver only; `{}` moves some of the same nodes",
                            a.name
                        ),
                        &b.node_set,
                    ));
                }
            }
        }
        Ok(())
    }
}

impl<const D: usize> DriverSpec<D> {
    /// Adds this driver to `builder`: its body's nodes start at `first` in the state vector and
    /// rest at `x0` (the body's own numbering); a force is shared by the builder's masses.
    /// Returns how its force is found after a step.
    pub fn add_to(
        &self,
        builder: &mut SystemBuilder<D>,
        first: usize,
        x0: &[Vector<D>],
    ) -> DriverForce<D> {
        let nodes: Vec<usize> = self.nodes.iter().map(|&i| first + i).collect();
        match self.kind {
            DriverKind::Spring {
                stiffness,
                rest_length,
                anchor,
                anchor_velocity,
            } => {
                let spring = AnchorSpring::new(
                    nodes,
                    anchor,
                    anchor_velocity,
                    stiffness,
                    rest_length,
                    Projection::Clamp,
                );
                let term = builder.potential_count();
                builder.add_potential(Box::new(spring.clone()));
                DriverForce::Spring { spring, term }
            }
            DriverKind::Move { velocity } => {
                let start = self.nodes.iter().map(|&i| x0[i]).collect();
                let driver = builder.driver_count();
                builder.add_driver(Box::new(LinearMotion::new(
                    self.name.clone(),
                    nodes.clone(),
                    start,
                    velocity,
                    [true; D],
                )));
                DriverForce::Move { nodes, driver }
            }
            DriverKind::Force { force } => {
                let m: Vec<f64> = nodes.iter().map(|&i| builder.masses()[i]).collect();
                let term = builder.potential_count();
                builder.add_potential(Box::new(ConstantForce::new(nodes, &m, force)));
                DriverForce::Force { force, term }
            }
        }
    }
}

impl<const D: usize> DriverForce<D> {
    /// The driver's force on its body at the end of `sim`'s last step, N: a spring's own
    /// force, a prescribed motion's reaction (the sum of ∇E over its nodes, over h²), a constant
    /// force itself.
    pub fn on_body(&self, sim: &Simulation<D>) -> Vector<D> {
        match self {
            DriverForce::Spring { spring, .. } => spring.force(&sim.x, sim.time()),
            DriverForce::Move { nodes, .. } => {
                let h2 = sim.settings().h * sim.settings().h;
                nodes
                    .iter()
                    .map(|&i| sim.last_gradient()[i])
                    .sum::<Vector<D>>()
                    / h2
            }
            DriverForce::Force { force, .. } => *force,
        }
    }
}

/// A change to a driver between steps (Python's `Simulation.set_driver`): what it does from the
/// step after on, each continuing from where it is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Steer<const D: usize> {
    /// A spring's anchor velocity, m/s.
    AnchorVelocity(Vector<D>),
    /// A prescribed motion's velocity, m/s.
    Velocity(Vector<D>),
    /// A constant force's total, N.
    Force(Vector<D>),
}

impl<const D: usize> DriverForce<D> {
    /// The key of the change this driver takes: `anchor_velocity` (a spring), `velocity` (a
    /// prescribed motion) or `force` (a constant force).
    pub fn steered_by(&self) -> &'static str {
        match self {
            DriverForce::Spring { .. } => "anchor_velocity",
            DriverForce::Move { .. } => "velocity",
            DriverForce::Force { .. } => "force",
        }
    }

    /// Applies `change` to this driver and to its term or driver in `sim`, from `sim`'s time
    /// on; `Err` with the key this driver takes ([`DriverForce::steered_by`]) when `change` is
    /// not for its type, and nothing changed.
    pub fn steer(&mut self, sim: &mut Simulation<D>, change: Steer<D>) -> Result<(), &'static str> {
        let time = sim.time();
        match (self, change) {
            (DriverForce::Spring { spring, term }, Steer::AnchorVelocity(v)) => {
                spring.set_anchor_velocity(v, time);
                sim.potential_mut(*term)
                    .and_then(|t| t.as_any_mut())
                    .and_then(|a| a.downcast_mut::<AnchorSpring<D>>())
                    .expect("a spring driver's term is its spring")
                    .set_anchor_velocity(v, time);
            }
            (DriverForce::Move { driver, .. }, Steer::Velocity(v)) => {
                sim.driver_mut(*driver)
                    .and_then(|d| d.as_any_mut())
                    .and_then(|a| a.downcast_mut::<LinearMotion<D>>())
                    .expect("a move driver is a linear motion")
                    .set_velocity(v, time);
            }
            (DriverForce::Force { force, term }, Steer::Force(f)) => {
                *force = f;
                sim.potential_mut(*term)
                    .and_then(|t| t.as_any_mut())
                    .and_then(|a| a.downcast_mut::<ConstantForce<D>>())
                    .expect("a force driver's term is its constant force")
                    .set_total(f);
            }
            (me, _) => return Err(me.steered_by()),
        }
        Ok(())
    }
}
