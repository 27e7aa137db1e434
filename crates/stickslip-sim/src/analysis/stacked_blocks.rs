//! Two stacked blocks, the lower pulled along the ground by a constant force (SPEC.md §8, 2D
//! and 3D): the accelerations along the ground, m/s², measured or in closed form.
//!
//! *Measured*: each body's centroid velocity along the ground in the force's direction,
//! least-squares slope over the run's second half; the upper block slips when the two
//! velocities differ by more than [`SLIP_SPEED_OVER_EPS_V`] ε_v at the end. In 2D
//! ([`StackMembers`]) the ground is the lower body's support at the end and the force's
//! direction its tangent; in 3D ([`PulledStackMembers`]) the ground is a fixed half-space the
//! lower body rests on at t = 0, and the direction the force's part in its plane.

use serde::Serialize;

use super::breakaway::in_plane;
use super::{Analysis, least_squares_slope};
use crate::energy::{Vec2, Vec3};
use crate::run::multibody::solid::SolidRunner;
use crate::run::multibody::{SLIP_SPEED_OVER_EPS_V, SceneRunner, Support};
use crate::scene::multibody::DriverKind;

/// Two stacked blocks, the lower pulled by a constant force (SPEC.md §8): the accelerations
/// along the ground, measured or in closed form.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct StackAccelerations {
    /// The lower block's, m/s².
    pub lower_m_per_s2: f64,
    /// The upper block's, m/s².
    pub upper_m_per_s2: f64,
    /// Whether the upper block slips on the lower (measured: its speed relative to the lower
    /// one at the end above 2 ε_v).
    pub upper_slips: bool,
}

impl StackAccelerations {
    /// SPEC.md §8's two stacked blocks, the lower (m₁, kg) pulled along the ground by `force`
    /// N (its component along the ground), gravity pressing into the ground at `g_n` m/s², with
    /// the ground's coefficients `ground` and those between the blocks `between`. With
    /// N₁ = (m₁ + m₂) g_n: a force at most μ_s,g N₁ moves nothing; else together
    /// a = (F − μ_k,g N₁)/(m₁ + m₂) while a ≤ μ_s g_n between the blocks; beyond, the upper
    /// block slips at μ_k g_n and the lower accelerates at (F − μ_k m₂ g_n − μ_k,g N₁)/m₁. Used
    /// in 2D and 3D.
    pub fn closed_form(
        force: f64,
        g_n: f64,
        m1: f64,
        m2: f64,
        ground: crate::contact::Coefficients,
        between: crate::contact::Coefficients,
    ) -> StackAccelerations {
        let n1 = (m1 + m2) * g_n;
        if force <= ground.mu_static * n1 {
            return StackAccelerations {
                lower_m_per_s2: 0.0,
                upper_m_per_s2: 0.0,
                upper_slips: false,
            };
        }
        let together = (force - ground.mu_kinetic * n1) / (m1 + m2);
        if together <= between.mu_static * g_n {
            StackAccelerations {
                lower_m_per_s2: together,
                upper_m_per_s2: together,
                upper_slips: false,
            }
        } else {
            StackAccelerations {
                lower_m_per_s2: (force - between.mu_kinetic * m2 * g_n - ground.mu_kinetic * n1)
                    / m1,
                upper_m_per_s2: between.mu_kinetic * g_n,
                upper_slips: true,
            }
        }
    }
}

/// Two stacked blocks in 2D: a body pulled by a constant force over an obstacle, and a body
/// resting on it (SPEC.md §8).
#[derive(Clone, Debug)]
pub struct StackMembers {
    /// The pulled body.
    pub lower: usize,
    /// The body resting on it.
    pub upper: usize,
    /// What the lower body rests on.
    pub ground: Support,
    /// The unit tangent of the ground along the force.
    pub along: Vec2,
    /// The constant force, N.
    pub force: Vec2,
}

impl Analysis<SceneRunner> for StackMembers {
    type Measured = StackAccelerations;
    type ClosedForm = StackAccelerations;

    fn detect(run: &SceneRunner) -> Option<Self> {
        let (lower, ground, force) = run.scene.drivers.iter().find_map(|d| match d.kind {
            DriverKind::Force { force } => {
                let s = run.support(d.body)?;
                s.body(&run.scene).is_none().then_some((d.body, s, force))
            }
            _ => None,
        })?;
        let upper = (0..run.scene.bodies.len()).find(|&k| {
            k != lower
                && run
                    .support(k)
                    .is_some_and(|s| s.body(&run.scene) == Some(lower))
        })?;
        let along = if force.dot(&ground.tangent) < 0.0 {
            -ground.tangent
        } else {
            ground.tangent
        };
        Some(StackMembers {
            lower,
            upper,
            ground,
            along,
            force,
        })
    }

    fn measure(&self, run: &SceneRunner) -> StackAccelerations {
        let (lower, upper, along) = (self.lower, self.upper, self.along);
        let half = run.rows.len() / 2;
        let slope = |k: usize| {
            let pts: Vec<(f64, f64)> = run.rows[half..]
                .iter()
                .map(|r| (r.t, Vec2::new(r.bodies[k].vx, r.bodies[k].vy).dot(&along)))
                .collect();
            least_squares_slope(&pts)
        };
        let last = run.rows.last().expect("a runner has the row of t = 0");
        let v = |k: usize| Vec2::new(last.bodies[k].vx, last.bodies[k].vy);
        StackAccelerations {
            lower_m_per_s2: slope(lower),
            upper_m_per_s2: slope(upper),
            upper_slips: (v(upper) - v(lower)).norm()
                > SLIP_SPEED_OVER_EPS_V * run.scene.settings.eps_v,
        }
    }

    /// With N₁ = (m₁ + m₂) g_n on the ground (g_n = g·(−n)) and μ_g its kinetic coefficient:
    /// together, a = (F − μ_g N₁)/(m₁ + m₂), while a ≤ μ_s g_n between the blocks; beyond, the
    /// upper block slips at μ_k g_n and the lower accelerates at (F − μ_k m₂ g_n − μ_g N₁)/m₁.
    /// A force below μ_s,g N₁ moves nothing.
    fn closed_form(&self, run: &SceneRunner) -> StackAccelerations {
        let f = self.force.dot(&self.along);
        let g_n = run.scene.gravity.dot(&-self.ground.normal);
        let (m1, m2) = (run.mass(self.lower), run.mass(self.upper));
        let mu_g = run.coefficients(self.lower, &self.ground);
        let mu = run
            .sim
            .contact()
            .expect("a scene has a contact stage")
            .friction_table()
            .get(self.lower, self.upper);
        StackAccelerations::closed_form(f, g_n, m1, m2, mu_g, mu)
    }
}

/// Two stacked bodies in 3D, the lower pulled ([`SolidRunner::pulled_stack`]).
#[derive(Clone, Copy, Debug)]
pub struct PulledStack {
    /// The pulled body.
    pub lower: usize,
    /// The body pressing on it.
    pub upper: usize,
    /// The unit direction along the ground: the force's part in its plane.
    pub along: Vec3,
    /// The accelerations along it, measured…
    pub measured: StackAccelerations,
    /// …and in closed form.
    pub analytic: StackAccelerations,
}

/// The members of a 3D pulled stack: a constant-force driver on a body resting on a fixed
/// half-space at t = 0, and a body pressing on it at the end (the support of the run's table).
#[derive(Clone, Copy, Debug)]
pub struct PulledStackMembers {
    /// The pulled body.
    pub lower: usize,
    /// The body pressing on it.
    pub upper: usize,
    /// The half-space's member number (friction table).
    pub member: usize,
    /// The half-space's unit normal.
    pub normal: Vec3,
    /// The constant force, N.
    pub force: Vec3,
    /// The unit direction along the ground: the force's part in its plane.
    pub along: Vec3,
}

impl Analysis<SolidRunner> for PulledStackMembers {
    type Measured = StackAccelerations;
    type ClosedForm = StackAccelerations;

    fn detect(run: &SolidRunner) -> Option<Self> {
        let (lower, member, normal, force) =
            run.scene.drivers.iter().find_map(|d| match d.kind {
                DriverKind::Force { force } => {
                    let (member, n) = run.fixed_half_space(d.body)?;
                    Some((d.body, member, n, force))
                }
                _ => None,
            })?;
        let upper = (0..run.scene.bodies.len())
            .find(|&k| k != lower && run.support(k).is_some_and(|(m, _)| m == lower))?;
        let along = in_plane(&force, &normal)?;
        Some(PulledStackMembers {
            lower,
            upper,
            member,
            normal,
            force,
            along,
        })
    }

    fn measure(&self, run: &SolidRunner) -> StackAccelerations {
        let (lower, upper, along) = (self.lower, self.upper, self.along);
        let half = &run.rows[run.rows.len() / 2..];
        let slope = |k: usize| {
            let points: Vec<(f64, f64)> = half
                .iter()
                .map(|r| (r.t, r.bodies[k].velocity.dot(&along)))
                .collect();
            least_squares_slope(&points)
        };
        let last = run.rows.last().expect("a runner has the row of t = 0");
        let relative = last.bodies[upper].velocity - last.bodies[lower].velocity;
        StackAccelerations {
            lower_m_per_s2: slope(lower),
            upper_m_per_s2: slope(upper),
            upper_slips: relative.norm() > SLIP_SPEED_OVER_EPS_V * run.scene.settings.eps_v,
        }
    }

    fn closed_form(&self, run: &SolidRunner) -> StackAccelerations {
        let g_n = run.scene.gravity.dot(&-self.normal);
        StackAccelerations::closed_form(
            self.force.dot(&self.along),
            g_n,
            run.body_mass(self.lower),
            run.body_mass(self.upper),
            run.scene.coefficients(self.lower, self.member),
            run.scene.coefficients(self.upper, self.lower),
        )
    }
}

impl SceneRunner {
    /// The members of two stacked blocks ([`SceneRunner::stack`]), if the scene has them.
    pub fn stack_members(&self) -> Option<StackMembers> {
        StackMembers::detect(self)
    }

    /// Two stacked blocks, if the scene is that one (SPEC.md §8): a constant-force driver on a
    /// body A resting on an obstacle, and a body B resting on A. Returns the measured and the
    /// closed-form accelerations along the ground (the force's direction).
    pub fn stack(&self) -> Option<(StackAccelerations, StackAccelerations)> {
        StackMembers::analyse(self)
    }
}

impl SolidRunner {
    /// Two stacked bodies, if the scene is that one (SPEC.md §8, [`PulledStackMembers`]): the
    /// measured and the closed-form accelerations along the ground in the force's direction.
    pub fn pulled_stack(&self) -> Option<PulledStack> {
        let members = PulledStackMembers::detect(self)?;
        Some(PulledStack {
            lower: members.lower,
            upper: members.upper,
            along: members.along,
            measured: members.measure(self),
            analytic: members.closed_form(self),
        })
    }
}
