//! The puck: a lone cylinder launched sliding and/or spinning on a level half-space without
//! drivers (SPEC.md §8, 3D): when each motion stops, s, and v/(Rω) late in the run.
//!
//! *Measured*: a motion has stopped once the centroid's speed over the plane (the spin rate
//! about its normal) stays below [`STOP_FRACTION`] of its start to the end of the run; the ratio
//! is read when v + Rω has fallen to [`RATIO_AT_FRACTION`] of its start. *Closed form*: a pure
//! slide stops at v₀/(μ g), a pure spin at 3 R ω₀/(4 μ g), and both together tend to
//! [`SPIN_SLIDE_RATIO`].

use serde::Serialize;

use super::{Analysis, lone_body};
use crate::contact::HalfSpace;
use crate::run::multibody::solid::{SolidRow, SolidRunner};
use crate::scene::multibody::solid_body::SolidShape;

/// A body has stopped translating (spinning) once its centroid's speed over the surface (its
/// spin rate about the surface normal) stays below this fraction of its initial value to the
/// end of the run. Near the end both decay at a finite rate (≈ μg for a slide), so the time
/// from the threshold to rest is this fraction of the stop time or less: 0.1 %, well inside
/// the 3 % the closed forms are checked to.
pub const STOP_FRACTION: f64 = 1e-3;

/// v/(Rω) of a sliding, spinning disk is read when v + Rω has fallen to this fraction of its
/// initial value: late, since the ratio still falls towards its limit until the very end
/// (SPEC.md §8; docs/scenes.md tabulates ε(t)), but with v and Rω tens of ε_v (4 mm/s and
/// 6 mm/s for the shipped puck: 40 and 60 ε_v), above the smoothing and the ringing of the
/// body's centroid velocity after the stop (0.15 mm/s).
pub const RATIO_AT_FRACTION: f64 = 0.005;

/// The ratio ε* = v/(Rω) a sliding, spinning disk of uniform pressure tends to as both motions
/// stop (SPEC.md §8: Farkas, Bartels, Unger & Wolf 2003).
pub const SPIN_SLIDE_RATIO: f64 = 0.653;

/// A cylinder sliding and spinning on a level plane (SPEC.md §8), measured or in closed form.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SlideSpin {
    /// The body.
    pub body: usize,
    /// When the centroid's speed over the plane stops ([`STOP_FRACTION`]), s; analytic v₀/(μ g)
    /// for a pure slide.
    pub slide_stop_s: Option<f64>,
    /// When the spin about the plane's normal stops, s; analytic 3 R ω₀/(4 μ g) for a pure spin.
    pub spin_stop_s: Option<f64>,
    /// v/(R ω) when v + R ω has fallen to [`RATIO_AT_FRACTION`] of its start (both launched);
    /// analytic [`SPIN_SLIDE_RATIO`].
    pub ratio: Option<f64>,
    /// The launch's v₀/(R ω₀) (both launched; the same in the measured and the analytic).
    pub launch_ratio: Option<f64>,
}

/// The puck on its plane: its radius, m, the plane, its launch speed over the plane v₀ (m/s)
/// and spin about the plane's normal ω₀ (rad/s), and the plane's friction-table number.
#[derive(Clone, Copy, Debug)]
pub struct Puck {
    /// R, m.
    pub radius: f64,
    /// The level half-space it slides on.
    pub plane: HalfSpace<3>,
    /// The half-space's member number (friction table).
    pub member: usize,
    /// v₀, m/s.
    pub v0: f64,
    /// ω₀, rad/s.
    pub w0: f64,
}

impl Puck {
    /// v₀/(R ω₀) when both are launched.
    fn launch_ratio(&self) -> Option<f64> {
        (self.v0 > 0.0 && self.w0 > 0.0).then(|| self.v0 / (self.radius * self.w0))
    }
}

impl Analysis<SolidRunner> for Puck {
    type Measured = SlideSpin;
    type ClosedForm = SlideSpin;

    fn detect(run: &SolidRunner) -> Option<Self> {
        let (b, footing) = lone_body(run)?;
        let SolidShape::Cylinder { radius, .. } = b.shape else {
            return None;
        };
        if footing.fall_line.is_some() {
            return None;
        }
        let h = run.scene.obstacles.half_spaces[footing.half_space?].1;
        let n = h.normal;
        let v0 = (b.velocity - n * b.velocity.dot(&n) - h.velocity).norm();
        let w0 = b.angular_velocity.dot(&n).abs();
        if v0 == 0.0 && w0 == 0.0 {
            return None;
        }
        Some(Puck {
            radius,
            plane: h,
            member: footing.member,
            v0,
            w0,
        })
    }

    fn measure(&self, run: &SolidRunner) -> SlideSpin {
        let (radius, v0, w0) = (self.radius, self.v0, self.w0);
        let h = &self.plane;
        let n = h.normal;
        let speed = |r: &SolidRow| {
            let v = r.bodies[0].velocity;
            (v - n * v.dot(&n) - h.velocity).norm()
        };
        let spin = |r: &SolidRow| r.bodies[0].angular_velocity.dot(&n).abs();
        let stop = |value: &dyn Fn(&SolidRow) -> f64, start: f64| -> Option<f64> {
            if start == 0.0 {
                return None;
            }
            let last_above = run
                .rows
                .iter()
                .rposition(|r| value(r) >= STOP_FRACTION * start)?;
            run.rows.get(last_above + 1).map(|r| r.t)
        };
        let ratio = (v0 > 0.0 && w0 > 0.0)
            .then(|| {
                let start = v0 + radius * w0;
                run.rows
                    .iter()
                    .rev()
                    .find(|r| speed(r) + radius * spin(r) >= RATIO_AT_FRACTION * start)
                    .map(|r| speed(r) / (radius * spin(r)))
            })
            .flatten();
        SlideSpin {
            body: 0,
            slide_stop_s: stop(&speed, v0),
            spin_stop_s: stop(&spin, w0),
            ratio,
            launch_ratio: self.launch_ratio(),
        }
    }

    fn closed_form(&self, run: &SolidRunner) -> SlideSpin {
        let (radius, v0, w0) = (self.radius, self.v0, self.w0);
        let g = run.scene.gravity.norm();
        let mu = run.scene.coefficients(0, self.member).mu_kinetic;
        SlideSpin {
            body: 0,
            slide_stop_s: (w0 == 0.0).then(|| v0 / (mu * g)),
            spin_stop_s: (v0 == 0.0).then(|| 3.0 * radius * w0 / (4.0 * mu * g)),
            ratio: (v0 > 0.0 && w0 > 0.0).then_some(SPIN_SLIDE_RATIO),
            launch_ratio: self.launch_ratio(),
        }
    }
}

impl SolidRunner {
    /// A lone cylinder launched sliding and/or spinning on a level half-space: measured and
    /// SPEC.md §8's.
    pub fn slide_spin(&self) -> Option<(SlideSpin, SlideSpin)> {
        Puck::analyse(self)
    }
}
