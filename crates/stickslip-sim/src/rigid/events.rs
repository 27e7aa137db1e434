//! Impact detection (SPEC.md §5): after each step the signed distance h(T) of the lowest point
//! is evaluated; when it goes from positive to non-positive over [t_k, t_k + Δt], the crossing
//! is found by bisection on the step length τ ∈ (0, Δt], re-integrating from t_k with one CG4
//! step of length τ each time.

use crate::rigid::body::{RigidBody, State};
use crate::rigid::cg4;
use crate::rigid::ellipsoid::{Ellipsoid, Ground};

/// A located crossing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Crossing {
    /// The step length τ (s) of the state just before the crossing: h > 0 there, and h ≤ 0 at
    /// some τ' ∈ (τ, τ + tolerance].
    pub tau: f64,
    /// The state after one CG4 step of length τ from t_k.
    pub state: State,
    /// Bisection halvings taken.
    pub halvings: usize,
}

/// Bisection on τ ∈ [0, Δt] for the sign change of h, given h(start) > 0 ≥ h(CG4 step of Δt),
/// until the bracket is at most `tolerance` (s) wide. Returns the left end of the final bracket
/// (where h > 0), so the impact is applied with the body not yet below the ground; the true
/// crossing time lies within `tolerance` after it.
pub fn locate_crossing(
    body: &RigidBody,
    shape: &Ellipsoid,
    ground: &Ground,
    start: &State,
    dt: f64,
    tolerance: f64,
) -> Crossing {
    let (mut lo, mut hi) = (0.0_f64, dt);
    let mut lo_state = *start;
    let mut halvings = 0;
    while hi - lo > tolerance {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break; // the bracket cannot shrink further in f64
        }
        let at = cg4::step(body, start, mid);
        if shape.signed_distance(&at.pose, ground) > 0.0 {
            lo = mid;
            lo_state = at;
        } else {
            hi = mid;
        }
        halvings += 1;
    }
    Crossing {
        tau: lo,
        state: lo_state,
        halvings,
    }
}
