//! The closed forms of driven 3D scenes (SPEC.md §8, the 2D scene's of `run::multibody` in 3D):
//! a body pulled by a spring over a fixed half-space until it breaks away, and two stacked
//! bodies, the lower pulled by a constant force over a fixed half-space. The formulas are the
//! 2D scene's ([`Breakaway::closed_form`], [`StackAccelerations::closed_form`]); here the
//! direction along the ground is the spring's anchor velocity's, or the force's, part in the
//! half-space's plane.
//!
//! *Measured breakaway.* The body's slip speed (its contacts' tangential speed over the
//! support, weighted by normal force) first exceeds 2 ε_v (the runner's slip threshold) at the
//! start of a slip that carries its centroid more than d̂ over the support before it sticks
//! again (or the run ends). The 3D cases land from half a d̂, and their bottom nodes spreading
//! under the weight slip above 2 ε_v = 0.2 mm/s for a step or three, by micrometres: those are
//! not a breakaway. The time and the spring's force along the ground at that step are reported.

use super::solid::SolidRunner;
use super::{Breakaway, SLIP_SPEED_OVER_EPS_V, StackAccelerations, least_squares_slope};
use crate::energy::Vec3;
use crate::scene::multibody::drivers::DriverKind;

/// A spring pulling a body over a fixed half-space ([`SolidRunner::pulling_spring`]).
#[derive(Clone, Copy, Debug)]
pub struct PullingSpring {
    /// The driver's index.
    pub driver: usize,
    /// The body it pulls.
    pub body: usize,
    /// The half-space's member number (friction table).
    pub member: usize,
    /// The half-space's unit normal.
    pub normal: Vec3,
    /// The unit direction along the ground: the anchor velocity's part in its plane.
    pub along: Vec3,
}

/// Two stacked bodies, the lower pulled ([`SolidRunner::pulled_stack`]).
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

/// `v`'s part in the plane normal to the unit `n`, normalised; `None` when it has none.
fn in_plane(v: &Vec3, n: &Vec3) -> Option<Vec3> {
    let t = v - n * v.dot(n);
    (t.norm() > 1e-12 * v.norm()).then(|| t.normalize())
}

impl SolidRunner {
    /// Body `k`'s mass, kg.
    pub fn body_mass(&self, k: usize) -> f64 {
        self.sim.mass()[self.bodies[k].clone()].iter().sum()
    }

    /// The half-space body `k` rests on at t = 0, if it is one without surface velocity, as
    /// (its member number, its unit normal).
    fn fixed_half_space(&self, k: usize) -> Option<(usize, Vec3)> {
        let footing = self.footing[k]?;
        let h = &self.scene.obstacles[footing.half_space?].1;
        (h.velocity.norm() == 0.0).then_some((footing.member, h.normal))
    }

    /// The spring pulling a body over a fixed half-space with a moving anchor, if the scene
    /// has one.
    pub fn pulling_spring(&self) -> Option<PullingSpring> {
        self.scene
            .drivers
            .iter()
            .enumerate()
            .find_map(|(i, d)| match d.kind {
                DriverKind::Spring {
                    anchor_velocity, ..
                } if anchor_velocity.norm() > 0.0 => {
                    let (member, normal) = self.fixed_half_space(d.body)?;
                    Some(PullingSpring {
                        driver: i,
                        body: d.body,
                        member,
                        normal,
                        along: in_plane(&anchor_velocity, &normal)?,
                    })
                }
                _ => None,
            })
    }

    /// The measured and the analytic breakaway of a body pulled by a spring over a fixed
    /// half-space (module comment), if the scene has one.
    pub fn breakaway(&self) -> Option<(Option<Breakaway>, Breakaway)> {
        let PullingSpring {
            driver: d,
            body: k,
            member,
            normal: n,
            along: t,
        } = self.pulling_spring()?;
        let normal_force = self.body_mass(k) * self.scene.gravity.dot(&-n);
        let mu = self.scene.coefficients(k, member);
        let rate = self.scene.drivers[d].kind.spring_force_rate(&t);
        let force = |i: usize| self.rows[i].drivers[d].dot(&t).abs();
        let analytic = Breakaway::closed_form(mu.mu_static, normal_force, force(0), rate);
        let threshold = SLIP_SPEED_OVER_EPS_V * self.scene.settings.eps_v;
        let dhat = self.scene.settings.barrier.dhat;
        let over = |from: usize, to: usize| {
            let moved = self.rows[to].bodies[k].centre - self.rows[from].bodies[k].centre;
            (moved - n * moved.dot(&n)).norm()
        };
        let slipping = |i: usize| self.rows[i].bodies[k].slip > threshold;
        let mut measured = None;
        let mut i = 1;
        while i < self.rows.len() {
            if slipping(i) && !slipping(i - 1) {
                let end = (i..self.rows.len())
                    .find(|&j| !slipping(j))
                    .unwrap_or(self.rows.len() - 1);
                if over(i - 1, end) > dhat {
                    measured = Some(Breakaway {
                        time_s: Some(self.rows[i].t),
                        force_n: force(i),
                    });
                    break;
                }
                i = end;
            }
            i += 1;
        }
        Some((measured, analytic))
    }

    /// Two stacked bodies, if the scene is that one (SPEC.md §8): a constant-force driver on a
    /// body resting on a fixed half-space at t = 0, and a body pressing on it at the end (the
    /// support of the run's table). The measured and the closed-form accelerations are along
    /// the ground in the force's direction (measured as each centroid velocity's component along it,
    /// least-squares slope over the run's second half; the upper slips when the two
    /// velocities differ by more than 2 ε_v at the end).
    pub fn pulled_stack(&self) -> Option<PulledStack> {
        let (lower, member, n, force) = self.scene.drivers.iter().find_map(|d| match d.kind {
            DriverKind::Force { force } => {
                let (member, n) = self.fixed_half_space(d.body)?;
                Some((d.body, member, n, force))
            }
            _ => None,
        })?;
        let upper = (0..self.scene.bodies.len())
            .find(|&k| k != lower && self.support(k).is_some_and(|(m, _)| m == lower))?;
        let along = in_plane(&force, &n)?;
        let g_n = self.scene.gravity.dot(&-n);
        let analytic = StackAccelerations::closed_form(
            force.dot(&along),
            g_n,
            self.body_mass(lower),
            self.body_mass(upper),
            self.scene.coefficients(lower, member),
            self.scene.coefficients(upper, lower),
        );
        let half = &self.rows[self.rows.len() / 2..];
        let slope = |k: usize| {
            let points: Vec<(f64, f64)> = half
                .iter()
                .map(|r| (r.t, r.bodies[k].velocity.dot(&along)))
                .collect();
            least_squares_slope(&points)
        };
        let last = self.rows.last()?;
        let relative = last.bodies[upper].velocity - last.bodies[lower].velocity;
        let measured = StackAccelerations {
            lower_m_per_s2: slope(lower),
            upper_m_per_s2: slope(upper),
            upper_slips: relative.norm() > SLIP_SPEED_OVER_EPS_V * self.scene.settings.eps_v,
        };
        Some(PulledStack {
            lower,
            upper,
            along,
            measured,
            analytic,
        })
    }
}
