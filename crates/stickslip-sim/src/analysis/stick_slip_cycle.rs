//! The stick–slip cycle of a spring on a belt (SPEC.md §8, 2D): a block held by a spring to a
//! fixed anchor on a surface moving at constant speed sticks until the spring force reaches
//! μ_s N, slips on a half-oscillation, and sticks again. Forces in N, times in s, the spring's
//! stiffness in N/m, the belt's speed in m/s.
//!
//! *Measured.* Slip starts and ends where the block's slip speed over its support (the
//! trajectory's `slip` column) crosses [`SLIP_SPEED_OVER_EPS_V`] ε_v up and down; a full cycle
//! is an onset, the re-stick after it and the next onset, and the cycle is the mean over the
//! full cycles after the first slip.

use serde::Serialize;

use super::Analysis;
use crate::energy::Vec2;
use crate::run::multibody::{SLIP_SPEED_OVER_EPS_V, SceneRunner, Support};
use crate::scene::multibody::DriverKind;

/// The stick–slip cycle of a spring on a belt, measured or by SPEC.md §8.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct StickSlipCycle {
    /// The spring force when slip starts, N.
    pub f_max_n: f64,
    /// The spring force when the block sticks again, N.
    pub f_min_n: f64,
    /// Time stuck to the belt in a cycle, s.
    pub t_stick_s: f64,
    /// Time slipping in a cycle, s.
    pub t_slip_s: f64,
    /// t_stick + t_slip, s.
    pub period_s: f64,
}

impl StickSlipCycle {
    /// SPEC.md §8's cycle of a block of mass `m` (kg) pressed on a belt by `n` (N), with
    /// coefficients μ_s ≥ μ_k, held by a spring of stiffness `k` (N/m) to a fixed anchor, the
    /// belt at speed `v` (m/s): it sticks until the spring force reaches μ_s N, slips on a
    /// half-oscillation of ω = √(k/m) about the kinetic balance μ_k N, and sticks again at
    /// (2 μ_k − μ_s) N: ΔF = 2 (μ_s − μ_k) N, t_stick = ΔF/(k v), t_slip = (π + 2α)/ω with
    /// α = arctan(v/(ω A₀)), A₀ = (μ_s − μ_k) N/k.
    pub fn closed_form(m: f64, n: f64, mu_static: f64, mu_kinetic: f64, k: f64, v: f64) -> Self {
        let a0 = (mu_static - mu_kinetic) * n / k;
        let omega = (k / m).sqrt();
        let alpha = (v / (omega * a0)).atan();
        let drop = 2.0 * (mu_static - mu_kinetic) * n;
        let t_stick = drop / (k * v);
        let t_slip = (std::f64::consts::PI + 2.0 * alpha) / omega;
        StickSlipCycle {
            f_max_n: mu_static * n,
            f_min_n: (2.0 * mu_kinetic - mu_static) * n,
            t_stick_s: t_stick,
            t_slip_s: t_slip,
            period_s: t_stick + t_slip,
        }
    }
}

/// The measured cycle with how many full cycles it averages.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct MeasuredCycle {
    /// The means over the full cycles after the first slip.
    #[serde(flatten)]
    pub cycle: StickSlipCycle,
    /// Full cycles averaged.
    pub cycles: usize,
}

/// The belt oscillator: a spring driver with a fixed anchor whose body rests on a moving
/// surface.
#[derive(Clone, Debug)]
pub struct BeltOscillator {
    /// The spring's index among the drivers.
    pub driver: usize,
    /// The block it holds.
    pub body: usize,
    /// The belt it rests on at the end.
    pub support: Support,
    /// The spring's stiffness, N/m.
    pub stiffness: f64,
}

impl BeltOscillator {
    /// What [`StickSlipCycle::closed_form`] takes: the block's mass (kg), its weight's
    /// component into the belt (N), the coefficients, the spring's stiffness (N/m) and the
    /// belt's speed (m/s).
    pub fn inputs(&self, run: &SceneRunner) -> (f64, f64, crate::contact::Coefficients, f64, f64) {
        let (m, n) = run.load(self.body, &self.support);
        let mu = run.coefficients(self.body, &self.support);
        (m, n, mu, self.stiffness, self.support.surface_speed.abs())
    }
}

impl Analysis<SceneRunner> for BeltOscillator {
    type Measured = Option<MeasuredCycle>;
    type ClosedForm = StickSlipCycle;

    fn detect(run: &SceneRunner) -> Option<Self> {
        run.scene
            .drivers
            .iter()
            .enumerate()
            .find_map(|(i, d)| match d.kind {
                DriverKind::Spring {
                    stiffness,
                    anchor_velocity,
                    ..
                } if anchor_velocity == Vec2::zeros() => {
                    let s = run.support(d.body)?;
                    (s.surface_speed != 0.0).then_some(BeltOscillator {
                        driver: i,
                        body: d.body,
                        support: s,
                        stiffness,
                    })
                }
                _ => None,
            })
    }

    fn measure(&self, run: &SceneRunner) -> Option<MeasuredCycle> {
        let (on, off) = slip_events(run, self.body);
        let force = |i: usize| {
            run.rows[i].drivers[self.driver]
                .dot(&self.support.tangent)
                .abs()
        };
        // Full cycles after the first slip: onset k, re-stick after it, the next onset.
        let mut cycles = Vec::new();
        for w in on.windows(2).skip(1) {
            if let Some(&r) = off.iter().find(|&&r| r > w[0] && r < w[1]) {
                cycles.push((w[0], r, w[1]));
            }
        }
        (!cycles.is_empty()).then(|| {
            let time = |i: usize| run.rows[i].t;
            let mean = |f: &dyn Fn(&(usize, usize, usize)) -> f64| {
                cycles.iter().map(f).sum::<f64>() / cycles.len() as f64
            };
            MeasuredCycle {
                cycle: StickSlipCycle {
                    f_max_n: mean(&|c| force(c.0)),
                    f_min_n: mean(&|c| force(c.1)),
                    t_stick_s: mean(&|c| time(c.2) - time(c.1)),
                    t_slip_s: mean(&|c| time(c.1) - time(c.0)),
                    period_s: mean(&|c| time(c.2) - time(c.0)),
                },
                cycles: cycles.len(),
            }
        })
    }

    fn closed_form(&self, run: &SceneRunner) -> StickSlipCycle {
        let (m, n, mu, stiffness, v) = self.inputs(run);
        StickSlipCycle::closed_form(m, n, mu.mu_static, mu.mu_kinetic, stiffness, v)
    }
}

/// The times slip starts and ends for body `k` of a 2D run (its contacts' mean slip speed
/// crossing [`SLIP_SPEED_OVER_EPS_V`] ε_v up and down), as (onsets, re-sticks) row indices.
pub fn slip_events(run: &SceneRunner, k: usize) -> (Vec<usize>, Vec<usize>) {
    let threshold = SLIP_SPEED_OVER_EPS_V * run.scene.settings.eps_v;
    let speed: Vec<f64> = run.rows.iter().map(|r| r.bodies[k].slip).collect();
    let (mut on, mut off) = (Vec::new(), Vec::new());
    let mut slipping = speed.first().is_some_and(|s| s.abs() > threshold);
    for (i, s) in speed.iter().enumerate().skip(1) {
        let now = s.abs() > threshold;
        if now && !slipping {
            on.push(i);
        } else if !now && slipping {
            off.push(i);
        }
        slipping = now;
    }
    (on, off)
}

impl SceneRunner {
    /// The spring driver whose body rests on a moving surface with a fixed anchor (the belt
    /// oscillator), as (driver, body, support, stiffness).
    pub fn belt_spring(&self) -> Option<(usize, usize, Support, f64)> {
        BeltOscillator::detect(self).map(|b| (b.driver, b.body, b.support, b.stiffness))
    }

    /// What [`StickSlipCycle::closed_form`] takes for the belt oscillator, if the scene has
    /// one ([`BeltOscillator::inputs`]).
    pub fn stick_slip_inputs(&self) -> Option<(f64, f64, crate::contact::Coefficients, f64, f64)> {
        BeltOscillator::detect(self).map(|b| b.inputs(self))
    }

    /// The measured and the analytic stick–slip cycle of the belt oscillator, if the scene has
    /// one (SPEC.md §8).
    pub fn stick_slip(&self) -> Option<(Option<MeasuredCycle>, StickSlipCycle)> {
        BeltOscillator::analyse(self)
    }
}
