//! Breakaway of a pulled block (SPEC.md §8, 2D and 3D): a spring whose anchor moves pulls a
//! block resting on a fixed support; the block sticks until the spring's force along the
//! support reaches μ_s N. Forces in N, times in s.
//!
//! *Measured, 2D* ([`PulledBlock`]): the first row at which the block's slip speed over its
//! support crosses [`SLIP_SPEED_OVER_EPS_V`] ε_v upwards, with the spring's force along the
//! support then.
//!
//! *Measured, 3D* ([`PullingSpring`], over a fixed half-space; the direction along the ground
//! is the anchor velocity's part in the half-space's plane): the body's slip speed first exceeds
//! 2 ε_v at the start of a slip that carries its centroid more than d̂ over the support before
//! it sticks again (or the run ends). The 3D cases land from half a d̂, and their bottom nodes
//! spreading under the weight slip above 2 ε_v = 0.2 mm/s for a step or three, by micrometres:
//! those are not a breakaway. The time and the spring's force along the ground at that step
//! are reported.

use serde::Serialize;

use super::Analysis;
use super::stick_slip_cycle::slip_events;
use crate::energy::{Vec2, Vec3};
use crate::run::multibody::solid::SolidRunner;
use crate::run::multibody::{SLIP_SPEED_OVER_EPS_V, SceneRunner, Support};
use crate::scene::multibody::DriverKind;

/// A block's breakaway: the first time it slides over its support, and the driver's force then.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Breakaway {
    /// s (none analytic: the closed form gives the force).
    pub time_s: Option<f64>,
    /// N.
    pub force_n: f64,
}

impl Breakaway {
    /// SPEC.md §8's breakaway of a block pressed on its support with `normal_force` N (with
    /// static coefficient `mu_static`) by a spring whose force along the support starts at
    /// `f0` N and grows at `rate` N/s while the block sticks: at μ_s N, at t = (μ_s N − f0)/rate
    /// (none without growth, or when the spring starts beyond it). Used in 2D and 3D.
    pub fn closed_form(mu_static: f64, normal_force: f64, f0: f64, rate: f64) -> Breakaway {
        let f_max = mu_static * normal_force;
        Breakaway {
            time_s: (rate > 0.0 && f0 < f_max).then(|| (f_max - f0) / rate),
            force_n: f_max,
        }
    }
}

/// A 2D block pulled by a spring with a moving anchor over a fixed obstacle.
#[derive(Clone, Debug)]
pub struct PulledBlock {
    /// The spring's index among the drivers.
    pub driver: usize,
    /// The block.
    pub body: usize,
    /// What it rests on at the end.
    pub support: Support,
}

impl Analysis<SceneRunner> for PulledBlock {
    type Measured = Option<Breakaway>;
    type ClosedForm = Breakaway;

    fn detect(run: &SceneRunner) -> Option<Self> {
        run.scene
            .drivers
            .iter()
            .enumerate()
            .find_map(|(i, d)| match d.kind {
                DriverKind::Spring {
                    anchor_velocity, ..
                } if anchor_velocity != Vec2::zeros() => {
                    let s = run.support(d.body)?;
                    (s.body(&run.scene).is_none() && s.surface_speed == 0.0).then_some(
                        PulledBlock {
                            driver: i,
                            body: d.body,
                            support: s,
                        },
                    )
                }
                _ => None,
            })
    }

    fn measure(&self, run: &SceneRunner) -> Option<Breakaway> {
        let t = self.support.tangent;
        let (on, _) = slip_events(run, self.body);
        on.first().map(|&i| Breakaway {
            time_s: Some(run.rows[i].t),
            force_n: run.rows[i].drivers[self.driver].dot(&t).abs(),
        })
    }

    fn closed_form(&self, run: &SceneRunner) -> Breakaway {
        let (_, n) = run.load(self.body, &self.support);
        let mu = run.coefficients(self.body, &self.support);
        let t = self.support.tangent;
        // While the block sticks, the spring's force along the support grows at k·(v_anchor·t)
        // from its value at t = 0.
        let rate = run.scene.drivers[self.driver].kind.spring_force_rate(&t);
        let f0 = run.rows[0].drivers[self.driver].dot(&t).abs();
        Breakaway::closed_form(mu.mu_static, n, f0, rate)
    }
}

/// A 3D spring pulling a body over a fixed half-space ([`SolidRunner::pulling_spring`]).
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

/// `v`'s part in the plane normal to the unit `n`, normalised; `None` when it has none.
pub fn in_plane(v: &Vec3, n: &Vec3) -> Option<Vec3> {
    let t = v - n * v.dot(n);
    (t.norm() > 1e-12 * v.norm()).then(|| t.normalize())
}

impl Analysis<SolidRunner> for PullingSpring {
    type Measured = Option<Breakaway>;
    type ClosedForm = Breakaway;

    fn detect(run: &SolidRunner) -> Option<Self> {
        run.scene
            .drivers
            .iter()
            .enumerate()
            .find_map(|(i, d)| match d.kind {
                DriverKind::Spring {
                    anchor_velocity, ..
                } if anchor_velocity.norm() > 0.0 => {
                    let (member, normal) = run.fixed_half_space(d.body)?;
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

    fn measure(&self, run: &SolidRunner) -> Option<Breakaway> {
        let (d, k, n, t) = (self.driver, self.body, self.normal, self.along);
        let force = |i: usize| run.rows[i].drivers[d].dot(&t).abs();
        let threshold = SLIP_SPEED_OVER_EPS_V * run.scene.settings.eps_v;
        let dhat = run.scene.settings.barrier.dhat;
        let over = |from: usize, to: usize| {
            let moved = run.rows[to].bodies[k].centre - run.rows[from].bodies[k].centre;
            (moved - n * moved.dot(&n)).norm()
        };
        let slipping = |i: usize| run.rows[i].bodies[k].slip > threshold;
        let mut i = 1;
        while i < run.rows.len() {
            if slipping(i) && !slipping(i - 1) {
                let end = (i..run.rows.len())
                    .find(|&j| !slipping(j))
                    .unwrap_or(run.rows.len() - 1);
                if over(i - 1, end) > dhat {
                    return Some(Breakaway {
                        time_s: Some(run.rows[i].t),
                        force_n: force(i),
                    });
                }
                i = end;
            }
            i += 1;
        }
        None
    }

    fn closed_form(&self, run: &SolidRunner) -> Breakaway {
        let (d, t) = (self.driver, self.along);
        let normal_force = run.body_mass(self.body) * run.scene.gravity.dot(&-self.normal);
        let mu = run.scene.coefficients(self.body, self.member);
        let rate = run.scene.drivers[d].kind.spring_force_rate(&t);
        let f0 = run.rows[0].drivers[d].dot(&t).abs();
        Breakaway::closed_form(mu.mu_static, normal_force, f0, rate)
    }
}

impl SceneRunner {
    /// The spring pulling a body over a fixed obstacle with a moving anchor, as (driver, body,
    /// support).
    pub fn pulling_spring(&self) -> Option<(usize, usize, Support)> {
        PulledBlock::detect(self).map(|p| (p.driver, p.body, p.support))
    }

    /// The measured and the analytic breakaway of a block pulled by a spring (SPEC.md §8).
    pub fn breakaway(&self) -> Option<(Option<Breakaway>, Breakaway)> {
        PulledBlock::analyse(self)
    }
}

impl SolidRunner {
    /// The spring pulling a body over a fixed half-space with a moving anchor, if the scene
    /// has one.
    pub fn pulling_spring(&self) -> Option<PullingSpring> {
        PullingSpring::detect(self)
    }

    /// The measured and the analytic breakaway of a body pulled by a spring over a fixed
    /// half-space (module comment), if the scene has one.
    pub fn breakaway(&self) -> Option<(Option<Breakaway>, Breakaway)> {
        PullingSpring::analyse(self)
    }
}
