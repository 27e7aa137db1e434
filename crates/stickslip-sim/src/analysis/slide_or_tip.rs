//! A box started at rest on an incline: does it stay, slide or tip (SPEC.md §8, 2D and 3D)? The
//! closed-form rule and the rule that reads the outcome off a run. Lengths in m, angles in
//! degrees.
//!
//! The closed form, for a rigid box of width w (along the surface) and height b (across it) on
//! an incline of angle θ, with static and kinetic coefficients μ_s ≥ μ_k, its centre of mass at
//! its centre. Along the surface the weight's component is m g sin θ, into it m g cos θ.
//! * At rest the friction force is F = m g sin θ and the normal force N = m g cos θ; sticking
//!   needs F ≤ μ_s N, i.e. tan θ ≤ μ_s. Moments about the centre of mass (gravity makes none):
//!   F at the base, b/2 below the centre, is balanced by N acting a distance d = (F/N) b/2 =
//!   tan θ · b/2 downhill of the base's middle; the box rests on its base while d ≤ w/2, i.e.
//!   tan θ ≤ w/b. Beyond, the weight's line passes outside the lower corner and the box tips.
//! * Sliding, friction is μ_k N (the box does not turn, so the normal force still balances the
//!   weight's component, and the frame's acceleration acts at the centre of mass and makes no
//!   moment about it): the same balance puts N at d = μ_k b/2, inside the base iff μ_k ≤ w/b,
//!   whatever θ. So a box that slides with μ_k < w/b does not tip, and one with μ_k ≥ w/b tips.
//!
//! Hence: tan θ ≤ μ_s (it can stick): tip if tan θ > w/b, else stay; tan θ > μ_s (it slides):
//! tip if μ_k ≥ w/b, else slide. With μ_s = μ_k = μ: stay if tan θ < min(μ, w/b), else slide if
//! μ < w/b, else tip; as θ grows, the first of tan θ = μ and tan θ = w/b decides.

use serde::Serialize;

use super::{Analysis, lone_body};
use crate::contact::Coefficients;
use crate::energy::{Vec2, Vec3, Vector};
use crate::run::multibody::SceneRunner;
use crate::run::multibody::solid::SolidRunner;
use crate::scene::multibody::solid_body::SolidShape;

/// The measured outcome is `tip` once the body has turned by more than this, degrees, at any
/// sample. A box that stays or slides turns only elastically (under 0.1° in the shipped case);
/// one that tips turns on to 90° and lands on its side.
pub const TIP_ROTATION_DEG: f64 = 10.0;

/// The measured outcome is `slide` (when it does not tip) once the centre of mass has moved
/// along the surface by more than this fraction of the box's width.
pub const SLIDE_DISPLACEMENT_OVER_WIDTH: f64 = 0.1;

/// What the box does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// It stays where it is.
    Stay,
    /// It slides down without tipping.
    Slide,
    /// It tips over its lower corner.
    Tip,
}

impl Outcome {
    /// `stay`, `slide` or `tip`.
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Stay => "stay",
            Outcome::Slide => "slide",
            Outcome::Tip => "tip",
        }
    }

    /// The closed form (module docs) for tan θ, μ_s, μ_k and w/b.
    pub fn analytic(tan_theta: f64, mu_static: f64, mu_kinetic: f64, w_over_b: f64) -> Outcome {
        if tan_theta <= mu_static {
            if tan_theta > w_over_b {
                Outcome::Tip
            } else {
                Outcome::Stay
            }
        } else if mu_kinetic >= w_over_b {
            Outcome::Tip
        } else {
            Outcome::Slide
        }
    }

    /// The rule on a run: `tip` if the body turned by more than [`TIP_ROTATION_DEG`] at any
    /// sample, else `slide` if its centre of mass moved along the surface by more than
    /// [`SLIDE_DISPLACEMENT_OVER_WIDTH`] of its width, else `stay`.
    pub fn measured(max_rotation_deg: f64, displacement_m: f64, width_m: f64) -> Outcome {
        if max_rotation_deg > TIP_ROTATION_DEG {
            Outcome::Tip
        } else if displacement_m.abs() > SLIDE_DISPLACEMENT_OVER_WIDTH * width_m {
            Outcome::Slide
        } else {
            Outcome::Stay
        }
    }
}

/// What a run of the box did.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SlideOrTip {
    /// By [`Outcome::measured`].
    pub outcome: Outcome,
    /// The largest |rotation| at any sample, degrees.
    pub max_rotation_deg: f64,
    /// The centre of mass' displacement along the surface (downhill positive) at the end, m.
    pub displacement_m: f64,
}

/// The closed form's outcome and its inputs.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SlideOrTipAnalytic {
    /// By [`Outcome::analytic`].
    pub outcome: Outcome,
    /// tan θ: gravity's component along the surface over its component into it.
    pub tan_theta: f64,
    /// μ_s between the box and its support.
    pub mu_static: f64,
    /// μ_k.
    pub mu_kinetic: f64,
    /// The box's width along the surface, m (its nodes' extent at t = 0).
    pub width_m: f64,
    /// Its height across the surface, m.
    pub height_m: f64,
    /// w/b.
    pub w_over_b: f64,
}

impl SlideOrTipAnalytic {
    /// The closed form for tan θ, the coefficients `mu` between the box and its support, and
    /// the box's `width_m` along the surface and `height_m` across it.
    pub fn new(tan_theta: f64, mu: Coefficients, width_m: f64, height_m: f64) -> Self {
        SlideOrTipAnalytic {
            outcome: Outcome::analytic(tan_theta, mu.mu_static, mu.mu_kinetic, width_m / height_m),
            tan_theta,
            mu_static: mu.mu_static,
            mu_kinetic: mu.mu_kinetic,
            width_m,
            height_m,
            w_over_b: width_m / height_m,
        }
    }
}

/// The extent of the points `x` along `axis` (m): the largest projection less the smallest.
pub fn extent<const D: usize>(x: &[Vector<D>], axis: &Vector<D>) -> f64 {
    let (lo, hi) = x
        .iter()
        .map(|p| p.dot(axis))
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
            (lo.min(p), hi.max(p))
        });
    hi - lo
}

/// A lone box at rest on an incline in 2D: one body, no driver, at rest at t = 0, resting at
/// the end on a fixed obstacle with gravity pressing it on. Its width and height are its
/// nodes' extents along and across the support at t = 0 (a box or square placed flat on it).
#[derive(Clone, Debug)]
pub struct BoxOnIncline {
    /// The support's unit tangent (downhill, or the normal turned clockwise on a level one).
    pub tangent: Vec2,
    /// The closed form's inputs and outcome.
    pub analytic: SlideOrTipAnalytic,
}

impl Analysis<SceneRunner> for BoxOnIncline {
    type Measured = SlideOrTip;
    type ClosedForm = SlideOrTipAnalytic;

    fn detect(run: &SceneRunner) -> Option<Self> {
        let sc = &run.scene;
        if sc.bodies.len() != 1 || !sc.drivers.is_empty() || sc.bodies[0].velocity != Vec2::zeros()
        {
            return None;
        }
        let s = run.support(0)?;
        if s.body(sc).is_some() || s.surface_speed != 0.0 {
            return None;
        }
        let into = sc.gravity.dot(&-s.normal);
        if into <= 0.0 {
            return None;
        }
        let x0 = &sc.bodies[0].mesh.x0;
        let (width, height) = (extent(x0, &s.tangent), extent(x0, &s.normal));
        let mu = run.coefficients(0, &s);
        let tan_theta = sc.gravity.dot(&s.tangent).abs() / into;
        Some(BoxOnIncline {
            tangent: s.tangent,
            analytic: SlideOrTipAnalytic::new(tan_theta, mu, width, height),
        })
    }

    /// Its largest |rotation| over the run and its centroid's displacement along the support.
    fn measure(&self, run: &SceneRunner) -> SlideOrTip {
        let max_rotation_deg = run
            .rows
            .iter()
            .map(|r| r.bodies[0].rotation.abs())
            .fold(0.0, f64::max)
            .to_degrees();
        let first = run.rows.first().expect("a runner has the row of t = 0");
        let last = run.rows.last().expect("a runner has the row of t = 0");
        let displacement_m = Vec2::new(
            last.bodies[0].x - first.bodies[0].x,
            last.bodies[0].y - first.bodies[0].y,
        )
        .dot(&self.tangent);
        SlideOrTip {
            outcome: Outcome::measured(max_rotation_deg, displacement_m, self.analytic.width_m),
            max_rotation_deg,
            displacement_m,
        }
    }

    fn closed_form(&self, _run: &SceneRunner) -> SlideOrTipAnalytic {
        self.analytic
    }
}

/// A lone cuboid started at rest on an inclined half-space (not a belt) in 3D, without
/// drivers. Its width is its nodes' extent along the fall line at t = 0 and its height their
/// extent along the half-space's normal (the box lies on a face), its rotation the tilt of its
/// local z axis, its displacement the downhill distance at the end.
#[derive(Clone, Copy, Debug)]
pub struct CuboidOnIncline {
    /// The closed form's inputs and outcome.
    pub analytic: SlideOrTipAnalytic,
}

impl Analysis<SolidRunner> for CuboidOnIncline {
    /// None when the last row has no downhill distance.
    type Measured = Option<SlideOrTip>;
    type ClosedForm = SlideOrTipAnalytic;

    fn detect(run: &SolidRunner) -> Option<Self> {
        let sc = &run.scene;
        let (b, footing) = lone_body(run)?;
        if !matches!(b.shape, SolidShape::Cuboid { .. })
            || b.velocity.norm() > 0.0
            || b.angular_velocity.norm() > 0.0
        {
            return None;
        }
        let fall: Vec3 = footing.fall_line?;
        let h = &sc.obstacles.half_spaces[footing.half_space?].1;
        if h.velocity.norm() > 0.0 {
            return None;
        }
        let into = -sc.gravity.dot(&h.normal);
        if into <= 0.0 {
            return None;
        }
        let x0 = &b.mesh.x0;
        let (width, height) = (extent(x0, &fall), extent(x0, &h.normal));
        let mu = sc.coefficients(0, footing.member);
        let tan_theta = sc.gravity.dot(&fall) / into;
        Some(CuboidOnIncline {
            analytic: SlideOrTipAnalytic::new(tan_theta, mu, width, height),
        })
    }

    fn measure(&self, run: &SolidRunner) -> Option<SlideOrTip> {
        let max_rotation_deg = run
            .rows
            .iter()
            .map(|r| r.bodies[0].tilt)
            .fold(0.0, f64::max)
            .to_degrees();
        let displacement_m = run.rows.last()?.bodies[0].downhill?;
        Some(SlideOrTip {
            outcome: Outcome::measured(max_rotation_deg, displacement_m, self.analytic.width_m),
            max_rotation_deg,
            displacement_m,
        })
    }

    fn closed_form(&self, _run: &SolidRunner) -> SlideOrTipAnalytic {
        self.analytic
    }
}

impl SceneRunner {
    /// A lone box on an incline, if the scene is one ([`BoxOnIncline`]): what it did and the
    /// closed form.
    pub fn slide_or_tip(&self) -> Option<(SlideOrTip, SlideOrTipAnalytic)> {
        BoxOnIncline::analyse(self)
    }
}

impl SolidRunner {
    /// A lone box started at rest on an inclined half-space (not a belt), if the scene is one
    /// ([`CuboidOnIncline`]): does it stay, slide or tip, measured and in closed form.
    pub fn slide_or_tip(&self) -> Option<(SlideOrTip, SlideOrTipAnalytic)> {
        let (measured, analytic) = CuboidOnIncline::analyse(self)?;
        Some((measured?, analytic))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_threshold_crossed_decides() {
        // w/b = 0.5; mu = 0.3 < w/b: stays below tan = 0.3, slides above (even past 0.5).
        assert_eq!(Outcome::analytic(0.2, 0.3, 0.3, 0.5), Outcome::Stay);
        assert_eq!(Outcome::analytic(0.4, 0.3, 0.3, 0.5), Outcome::Slide);
        assert_eq!(Outcome::analytic(0.8, 0.3, 0.3, 0.5), Outcome::Slide);
        // mu = 0.8 > w/b: stays below tan = 0.5, tips above (even past mu).
        assert_eq!(Outcome::analytic(0.4, 0.8, 0.8, 0.5), Outcome::Stay);
        assert_eq!(Outcome::analytic(0.6, 0.8, 0.8, 0.5), Outcome::Tip);
        assert_eq!(Outcome::analytic(0.9, 0.8, 0.8, 0.5), Outcome::Tip);
        // mu_s > tan > mu_k: it sticks; the kinetic coefficient does not matter.
        assert_eq!(Outcome::analytic(0.4, 0.45, 0.1, 0.5), Outcome::Stay);
    }

    #[test]
    fn the_measured_rule_puts_tipping_first() {
        assert_eq!(Outcome::measured(45.0, 1.0, 0.1), Outcome::Tip);
        assert_eq!(Outcome::measured(0.1, 0.02, 0.1), Outcome::Slide);
        assert_eq!(Outcome::measured(0.1, -0.005, 0.1), Outcome::Stay);
    }
}
