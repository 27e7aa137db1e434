//! Two boxes stacked on an incline (3D, SPEC.md §8's stacked blocks with gravity as the drive;
//! accelerations in m/s², angles in degrees):
//! the lower body m₁ on an inclined half-space with coefficients μ_g, the upper m₂ on it with
//! μ_b. Measured: each body's downhill acceleration over the run's second half. Closed form
//! (derived here, θ the incline's angle, g gravity's magnitude):
//!
//! * together, both at a = g (sin θ − μ_g,k cos θ) where tan θ > μ_g,s (else a = 0); the upper
//!   body then needs a friction force m₂ (g sin θ − a) from the lower, which holds while it is at
//!   most μ_b,s m₂ g cos θ;
//! * otherwise the upper slides at a₂ = g (sin θ − μ_b,k cos θ), and the lower is driven by
//!   m₁ g sin θ + μ_b,k m₂ g cos θ (its weight's share and the upper's friction on it) against
//!   the ground's friction on the normal load (m₁ + m₂) g cos θ: it stays while the drive is at
//!   most μ_g,s (m₁ + m₂) g cos θ, else a₁ = [drive − μ_g,k (m₁ + m₂) g cos θ]/m₁.

use serde::Serialize;

use super::{Analysis, least_squares_slope};
use crate::run::multibody::solid::SolidRunner;

/// Two bodies stacked on an incline, measured (over the run's second half) or in closed form.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct InclineStack {
    /// The lower body (on the incline).
    pub lower: usize,
    /// The upper body (on the lower).
    pub upper: usize,
    /// The incline's angle to the plane normal to gravity, degrees.
    pub angle_deg: f64,
    /// The lower body's downhill acceleration, m/s².
    pub lower_acceleration_m_per_s2: f64,
    /// The upper body's, m/s².
    pub upper_acceleration_m_per_s2: f64,
}

/// The closed form of the module comment: (a₁, a₂), m/s², for masses `m1`, `m2` (kg), angle
/// `theta` (rad), gravity `g` (m/s²), and (μ_s, μ_k) of the ground (`ground`) and between the
/// bodies (`between`).
pub fn stack_accelerations(
    m1: f64,
    m2: f64,
    theta: f64,
    g: f64,
    ground: (f64, f64),
    between: (f64, f64),
) -> (f64, f64) {
    let (sin, cos) = theta.sin_cos();
    let together = if theta.tan() > ground.0 {
        g * (sin - ground.1 * cos)
    } else {
        0.0
    };
    if m2 * (g * sin - together) <= between.0 * m2 * g * cos {
        return (together, together);
    }
    let upper = g * (sin - between.1 * cos);
    let drive = m1 * g * sin + between.1 * m2 * g * cos;
    let load = (m1 + m2) * g * cos;
    let lower = if drive <= ground.0 * load {
        0.0
    } else {
        (drive - ground.1 * load) / m1
    };
    (lower, upper)
}

/// Two bodies and one inclined half-space without surface velocity, no drivers, both bodies
/// starting at rest without spin: the one nearer the half-space at t = 0 is the lower.
#[derive(Clone, Copy, Debug)]
pub struct StackOnIncline {
    /// The lower body (on the incline).
    pub lower: usize,
    /// The upper body (on the lower).
    pub upper: usize,
    /// The incline's angle θ, rad.
    pub theta: f64,
}

impl Analysis<SolidRunner> for StackOnIncline {
    type Measured = InclineStack;
    type ClosedForm = InclineStack;

    fn detect(run: &SolidRunner) -> Option<Self> {
        if run.driven() {
            return None;
        }
        let sc = &run.scene;
        if sc.bodies.len() != 2 || sc.obstacles.half_spaces.len() != 1 {
            return None;
        }
        if sc
            .bodies
            .iter()
            .any(|b| b.velocity.norm() > 0.0 || b.angular_velocity.norm() > 0.0)
        {
            return None;
        }
        let h = &sc.obstacles.half_spaces[0].1;
        if h.velocity.norm() > 0.0 {
            return None;
        }
        let g = sc.gravity.norm();
        let theta = (-sc.gravity.dot(&h.normal) / g).clamp(-1.0, 1.0).acos();
        if theta <= 0.0 || theta.to_degrees() >= 90.0 {
            return None;
        }
        let first = &run.rows[0];
        let height = |k: usize| first.bodies[k].min_distance;
        let lower = if height(0) <= height(1) { 0 } else { 1 };
        Some(StackOnIncline {
            lower,
            upper: 1 - lower,
            theta,
        })
    }

    /// Each body's downhill acceleration: the least-squares slope of its downhill speed over
    /// the run's second half.
    fn measure(&self, run: &SolidRunner) -> InclineStack {
        let half = &run.rows[run.rows.len() / 2..];
        let slope = |k: usize| {
            let points: Vec<(f64, f64)> = half
                .iter()
                .map(|r| (r.t, r.bodies[k].downhill_speed.unwrap_or(0.0)))
                .collect();
            least_squares_slope(&points)
        };
        InclineStack {
            lower: self.lower,
            upper: self.upper,
            angle_deg: self.theta.to_degrees(),
            lower_acceleration_m_per_s2: slope(self.lower),
            upper_acceleration_m_per_s2: slope(self.upper),
        }
    }

    fn closed_form(&self, run: &SolidRunner) -> InclineStack {
        let sc = &run.scene;
        let (lower, upper) = (self.lower, self.upper);
        let m = |k: usize| run.body_mass(k);
        let ground = sc.coefficients(lower, sc.bodies.len());
        let between = sc.coefficients(upper, lower);
        let (a1, a2) = stack_accelerations(
            m(lower),
            m(upper),
            self.theta,
            sc.gravity.norm(),
            (ground.mu_static, ground.mu_kinetic),
            (between.mu_static, between.mu_kinetic),
        );
        InclineStack {
            lower,
            upper,
            angle_deg: self.theta.to_degrees(),
            lower_acceleration_m_per_s2: a1,
            upper_acceleration_m_per_s2: a2,
        }
    }
}

impl SolidRunner {
    /// Two bodies stacked on an incline ([`StackOnIncline`]): measured and closed form.
    pub fn incline_stack(&self) -> Option<(InclineStack, InclineStack)> {
        StackOnIncline::analyse(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The regimes of the closed form, with numbers worked by hand: θ = 20°, g = 9.81, m₁ = 32,
    /// m₂ = 4 (sin θ = 0.342020, cos θ = 0.939693).
    #[test]
    fn the_closed_form_has_its_three_regimes() {
        let t = 20f64.to_radians();
        // μ_b = 0.5 ≥ μ_g = 0.2: together at 9.81 (0.342020 − 0.187939) = 1.511541.
        let (a1, a2) = stack_accelerations(32.0, 4.0, t, 9.81, (0.2, 0.2), (0.5, 0.5));
        assert!((a1 - 1.511541).abs() < 1e-6 && (a2 - a1).abs() < 1e-12);
        // μ_b = 0.1 < μ_g: the upper slides at 9.81 (0.342020 − 0.093969) = 2.433379; the lower
        // at 9.81 (0.342020 + 0.1·0.125·0.939693 − 0.2·1.125·0.939693) = 1.396311.
        let (a1, a2) = stack_accelerations(32.0, 4.0, t, 9.81, (0.2, 0.2), (0.1, 0.1));
        assert!((a2 - 2.433379).abs() < 1e-6, "{a2}");
        assert!((a1 - 1.396311).abs() < 1e-6, "{a1}");
        // μ_g = 0.5 > tan θ, μ_b = 0.1: the upper slides; the lower's drive 0.342020 + 0.011746
        // of m₁g is under 0.5 · 1.125 · 0.939693 = 0.528577: it stays.
        let (a1, a2) = stack_accelerations(32.0, 4.0, t, 9.81, (0.5, 0.5), (0.1, 0.1));
        assert_eq!(a1, 0.0);
        assert!((a2 - 2.433379).abs() < 1e-6);
        // Both held.
        assert_eq!(
            stack_accelerations(32.0, 4.0, t, 9.81, (0.5, 0.5), (0.5, 0.5)),
            (0.0, 0.0)
        );
    }
}
