//! A lone body on an inclined half-space (SPEC.md §6, 3D), launched (if at all) along the fall
//! line without spin, without drivers: its downhill acceleration where it slides, its creep
//! where friction holds it. Accelerations in m/s², speeds in m/s, angles in degrees.
//!
//! *Measured*, over the run's second half: the least-squares slope of the downhill speed, and
//! the mean downhill speed (the downhill distance covered over the time). *Closed form*:
//! a = g (sin θ − μ_k cos θ) where μ_k < tan θ; the creep v* = ε_v (1 − √(1 − tan θ/μ_s)) of
//! smoothed friction where μ_s > tan θ.

use serde::Serialize;

use super::{Analysis, least_squares_slope, lone_body};
use crate::run::multibody::solid::SolidRunner;

/// A body on an incline, measured (over the run's second half) or in closed form (SPEC.md §6).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Incline {
    /// The body.
    pub body: usize,
    /// The incline's angle to the plane normal to gravity, degrees.
    pub angle_deg: f64,
    /// Downhill acceleration, m/s²: the least-squares slope of the downhill speed over the
    /// run's second half; analytic g(sin θ − μ_k cos θ) where μ_k < tan θ (none where friction
    /// holds).
    pub acceleration_m_per_s2: Option<f64>,
    /// Mean downhill speed over the run's second half, m/s; analytic the creep
    /// v* = ε_v (1 − √(1 − tan θ/μ_s)) where μ_s > tan θ (SPEC.md §6; none where it slides).
    pub creep_speed_m_per_s: Option<f64>,
}

/// The lone body on its incline: the incline's angle θ, rad, and the friction table's number
/// of the half-space.
#[derive(Clone, Copy, Debug)]
pub struct BodyOnIncline {
    /// θ, rad.
    pub theta: f64,
    /// The half-space's member number (friction table).
    pub member: usize,
}

impl Analysis<SolidRunner> for BodyOnIncline {
    /// None when the run's second half is empty.
    type Measured = Option<Incline>;
    type ClosedForm = Incline;

    fn detect(run: &SolidRunner) -> Option<Self> {
        let (b, footing) = lone_body(run)?;
        let fall = footing.fall_line?;
        let across = b.velocity - fall * b.velocity.dot(&fall);
        if across.norm() > 1e-12 || b.angular_velocity.norm() > 0.0 {
            return None;
        }
        let h = &run.scene.obstacles.half_spaces[footing.half_space?].1;
        if h.velocity.norm() > 0.0 {
            return None;
        }
        let g = run.scene.gravity.norm();
        let theta = (-run.scene.gravity.dot(&h.normal) / g)
            .clamp(-1.0, 1.0)
            .acos();
        Some(BodyOnIncline {
            theta,
            member: footing.member,
        })
    }

    fn measure(&self, run: &SolidRunner) -> Option<Incline> {
        let half = &run.rows[run.rows.len() / 2..];
        let (first, last) = (half.first()?, half.last()?);
        let points: Vec<(f64, f64)> = half
            .iter()
            .map(|r| (r.t, r.bodies[0].downhill_speed.unwrap_or(0.0)))
            .collect();
        let mean_speed = (last.bodies[0].downhill.unwrap_or(0.0)
            - first.bodies[0].downhill.unwrap_or(0.0))
            / (last.t - first.t).max(f64::MIN_POSITIVE);
        Some(Incline {
            body: 0,
            angle_deg: self.theta.to_degrees(),
            acceleration_m_per_s2: Some(least_squares_slope(&points)),
            creep_speed_m_per_s: Some(mean_speed),
        })
    }

    fn closed_form(&self, run: &SolidRunner) -> Incline {
        let theta = self.theta;
        let g = run.scene.gravity.norm();
        let mu = run.scene.coefficients(0, self.member);
        let tan = theta.tan();
        let slides = mu.mu_kinetic < tan;
        Incline {
            body: 0,
            angle_deg: theta.to_degrees(),
            acceleration_m_per_s2: slides.then(|| g * (theta.sin() - mu.mu_kinetic * theta.cos())),
            creep_speed_m_per_s: (mu.mu_static > tan)
                .then(|| run.scene.settings.eps_v * (1.0 - (1.0 - tan / mu.mu_static).sqrt())),
        }
    }
}

impl SolidRunner {
    /// A lone body on an inclined half-space, launched (if at all) along the fall line without
    /// spin: measured and SPEC.md §6's.
    pub fn incline(&self) -> Option<(Incline, Incline)> {
        let (measured, analytic) = BodyOnIncline::analyse(self)?;
        Some((measured?, analytic))
    }
}
