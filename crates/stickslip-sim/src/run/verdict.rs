//! The verdict of a run over its trailing window (SPEC.md §2, extended by issue 8).
//!
//! Over the last [`WINDOW_S`] s, in this order:
//! * *airborne*: no node within the barrier's reach (every node's distance ≥ d̂) at any sample
//!   of the window;
//! * *tumbling*: the body turned by more than [`TUMBLING_ANGLE_RAD`] over the window (the
//!   square's rotation is the angle of its left edge, node 0 → node n_seg, unwrapped);
//! * *stopped*: the centroid's downhill displacement over the window is under 5 mm (SPEC.md §2)
//!   and, for a scene's body, its mean angular speed over the window (|ω| about its centroid,
//!   from its nodes' velocities) under [`STOPPED_ANGULAR_SPEED_RAD_PER_S`]; the verdict carries the measured
//!   creep speed, the mean downhill speed over the last window;
//!   with exact stick (SPEC.md §9, issue 38) the displacement rule reads every node: the
//!   centroid's displacement along its support plus the body's radius times the angle it
//!   turned over the window is under [`STOPPED_DISPLACEMENT_EXACT_M`]; the verdict also
//!   carries the drift, the centroid's displacement along its support from the stop to the end;
//! * *spinning*: the displacement rule holds but the angular-speed rule does not (a puck
//!   spinning in place: issue 41);
//! * *sliding*: its mean downhill speed over the window exceeds 0.1 m/s (SPEC.md §2);
//! * *moving*: none of these (slowing down, or rocking more than 5 mm a second).

use serde::Serialize;

/// Length of the trailing window, s (SPEC.md §2).
pub const WINDOW_S: f64 = 1.0;
/// Stopped: |downhill displacement over the window| below this, m (SPEC.md §2).
pub const STOPPED_DISPLACEMENT_M: f64 = 5e-3;
/// Stopped, with exact stick: every node moved less than this over the window, m (the
/// centroid's displacement along its support plus the body's radius times the angle it
/// turned). A body exact stick holds moves by zero once it has settled (SPEC.md §9); 1 µm in
/// the 1 s window is issue 38's drift bound (1 µm in 10 s) scaled to the window, 290× under the
/// smoothed book square's creep at μ = 0.2 and 48× under the 3D box's on its incline.
pub const STOPPED_DISPLACEMENT_EXACT_M: f64 = 1e-6;
/// Sliding: mean downhill speed over the window above this, m/s (SPEC.md §2).
pub const SLIDING_SPEED_M_PER_S: f64 = 0.1;
/// Stopped also needs the body's mean angular speed over the window (|ω| about its centroid,
/// the least-squares rotation rate of its nodes' velocities) below this, rad/s: it turned less
/// than 0.05 rad (2.9°) in the 1 s window, so a point 0.1 m from its centroid (the shipped
/// bodies' size) moved less than 5 mm, the displacement rule's bound.
pub const STOPPED_ANGULAR_SPEED_RAD_PER_S: f64 = 0.05;
/// Tumbling: the body turns by more than this over the window, rad (45°). A square that slides
/// or rocks after landing turns a few degrees; one rolling over its corners turns 90° per roll.
pub const TUMBLING_ANGLE_RAD: f64 = std::f64::consts::FRAC_PI_4;

/// What the trailing window says at the end of a run.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum Verdict {
    /// Mean downhill speed over the last window above [`SLIDING_SPEED_M_PER_S`].
    Sliding {
        /// Mean downhill speed over the last window, m/s.
        mean_speed: f64,
    },
    /// Displacement over the window below [`STOPPED_DISPLACEMENT_M`] from `since` to the end.
    Stopped {
        /// The first time (end of a window) from which the stopped criterion holds at every
        /// later step, s.
        since: f64,
        /// Mean downhill speed over the last window, m/s: the creep of smoothed friction
        /// (SPEC.md §2), or 0 where a loose Newton tolerance froze the motion.
        creep_speed: f64,
        /// The centroid's displacement along its support from `since` to the end, m: the
        /// creep's distance with smoothed friction, zero to rounding with exact stick.
        drift: f64,
    },
    /// Its centroid stayed (the displacement rule of [`Verdict::Stopped`] holds) but it turned
    /// at a mean angular speed of [`STOPPED_ANGULAR_SPEED_RAD_PER_S`] or more over the last
    /// window.
    Spinning {
        /// Mean angular speed over the last window, rad/s.
        angular_speed: f64,
        /// Mean downhill speed over the last window, m/s.
        mean_speed: f64,
    },
    /// Turned by more than [`TUMBLING_ANGLE_RAD`] over the last window.
    Tumbling {
        /// Rotation over the last window, rad (positive counter-clockwise).
        turned: f64,
        /// Mean downhill speed over the last window, m/s.
        mean_speed: f64,
    },
    /// No node within the barrier's reach over the whole last window.
    Airborne,
    /// Neither (slowing down, or rocking more than 5 mm a second).
    Moving {
        /// Mean downhill speed over the last window, m/s.
        mean_speed: f64,
    },
    /// The run is shorter than one window.
    TooShort,
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Verdict::Sliding { mean_speed } => write!(f, "sliding ({mean_speed:.3} m/s)"),
            Verdict::Stopped { since, .. } => write!(f, "stopped at t = {since:.2} s"),
            Verdict::Tumbling { turned, .. } => {
                write!(f, "tumbling ({:.0}° in {WINDOW_S} s)", turned.to_degrees())
            }
            Verdict::Spinning { angular_speed, .. } => {
                write!(f, "spinning in place ({angular_speed:.3} rad/s)")
            }
            Verdict::Airborne => write!(f, "airborne"),
            Verdict::Moving { mean_speed } => write!(f, "moving ({mean_speed:.3} m/s)"),
            Verdict::TooShort => write!(f, "too short for a verdict"),
        }
    }
}

/// The rule in words, for the slope's `summary.json` (SPEC.md §2's, without the angular-speed
/// rule: the slope passes no [`Track::angular_speed`]).
pub fn rule() -> String {
    format!(
        "trailing {WINDOW_S} s window, first that holds: airborne if no node is within d_hat of the slope at any sample; tumbling if the body (its edge node 0 -> node n_seg) turned more than {:.0} degrees; stopped if |downhill displacement| < {STOPPED_DISPLACEMENT_M} m (creep speed = mean downhill speed over the window); sliding if mean downhill speed > {SLIDING_SPEED_M_PER_S} m/s; else moving (SPEC.md §2)",
        TUMBLING_ANGLE_RAD.to_degrees()
    )
}

/// What [`rule`] and the scenes' rules add with exact stick (SPEC.md §9).
pub fn exact_stick_rule() -> String {
    format!(
        "; with exact stick, stopped needs every node to have moved less than {STOPPED_DISPLACEMENT_EXACT_M:e} m over the window (the displacement along the surface plus the body's radius times the angle it turned) instead of the displacement rule; drift = the displacement along the surface from the stop to the end"
    )
}

/// The largest distance of `x` from their mean, m: a body's radius for
/// [`Track::exact_stick_radius`].
pub fn radius<const D: usize>(x: &[crate::energy::Vector<D>]) -> f64 {
    if x.is_empty() {
        return 0.0;
    }
    let c = x.iter().sum::<crate::energy::Vector<D>>() / x.len() as f64;
    x.iter().map(|p| (p - c).norm()).fold(0.0, f64::max)
}

/// Mean downhill speed over the trailing window ending at sample `k`, m/s; `None` when fewer
/// than a window of samples precede it. Samples are spaced `h` apart.
pub fn window_speed(downhill: &[f64], k: usize, h: f64) -> Option<f64> {
    let w = window_steps(h);
    (k >= w).then(|| (downhill[k] - downhill[k - w]) / (w as f64 * h))
}

/// Samples per window.
pub fn window_steps(h: f64) -> usize {
    (WINDOW_S / h).round().max(1.0) as usize
}

/// The samples of a run the verdict reads; sample k is at time `times[k] = k h`, k = 0 at t = 0.
#[derive(Clone, Copy, Debug)]
pub struct Track<'a> {
    /// Times, s.
    pub times: &'a [f64],
    /// The centroid's downhill distance since t = 0, m.
    pub downhill: &'a [f64],
    /// The body's rotation since t = 0, unwrapped, rad.
    pub rotation: &'a [f64],
    /// Whether any node is within the barrier's reach (distance < d̂).
    pub in_contact: &'a [bool],
    /// The body's angular speed |ω| about its centroid, rad/s ([`angular_velocity_2d`] in 2D),
    /// for the scenes' rule that a stopped body also stopped turning; `None` for the slope,
    /// whose square's rotation only the tumbling rule reads (SPEC.md §2, the book's rule).
    pub angular_speed: Option<&'a [f64]>,
    /// With exact stick, the body's radius (the largest distance of its nodes from its
    /// centroid, m), for the rule that every node moved less than
    /// [`STOPPED_DISPLACEMENT_EXACT_M`]; `None` with smoothed friction (SPEC.md §2's 5 mm rule).
    pub exact_stick_radius: Option<f64>,
}

/// The verdict over a whole run (rule in the module comment).
pub fn verdict(track: &Track, h: f64) -> Verdict {
    let Track {
        times,
        downhill,
        rotation,
        in_contact,
        angular_speed,
        exact_stick_radius,
    } = *track;
    let w = window_steps(h);
    let last = match downhill.len().checked_sub(1) {
        Some(l) if l >= w => l,
        _ => return Verdict::TooShort,
    };
    let mean_speed = (downhill[last] - downhill[last - w]) / (w as f64 * h);
    if !in_contact[last - w..=last].iter().any(|&c| c) {
        return Verdict::Airborne;
    }
    let turned = rotation[last] - rotation[last - w];
    if turned.abs() > TUMBLING_ANGLE_RAD {
        return Verdict::Tumbling { turned, mean_speed };
    }
    // The mean |ω| of the window's samples after its start (the rotation over it, over W).
    let turning =
        |k: usize| angular_speed.map_or(0.0, |a| a[k + 1 - w..=k].iter().sum::<f64>() / w as f64);
    let stayed = |k: usize| {
        let moved = (downhill[k] - downhill[k - w]).abs();
        match exact_stick_radius {
            None => moved < STOPPED_DISPLACEMENT_M,
            Some(radius) => {
                let angle = (rotation[k] - rotation[k - w])
                    .abs()
                    .max(turning(k) * w as f64 * (times[k] - times[k - 1]));
                moved + radius * angle < STOPPED_DISPLACEMENT_EXACT_M
            }
        }
    };
    let stopped_at = |k: usize| stayed(k) && turning(k) < STOPPED_ANGULAR_SPEED_RAD_PER_S;
    if stayed(last) && !stopped_at(last) {
        return Verdict::Spinning {
            angular_speed: turning(last),
            mean_speed,
        };
    }
    if stopped_at(last) {
        let mut first = last;
        while first > w && stopped_at(first - 1) {
            first -= 1;
        }
        return Verdict::Stopped {
            since: times[first],
            creep_speed: mean_speed,
            drift: (downhill[last] - downhill[first]).abs(),
        };
    }
    if mean_speed > SLIDING_SPEED_M_PER_S {
        Verdict::Sliding { mean_speed }
    } else {
        Verdict::Moving { mean_speed }
    }
}

pub use crate::scene::body::angular_velocity_2d;

/// Angle of the vector from `a` to `b` nearest to `previous` (unwrapped by whole turns), rad.
pub fn unwrapped_angle(a: &crate::energy::Vec2, b: &crate::energy::Vec2, previous: f64) -> f64 {
    let d = b - a;
    let raw = d.y.atan2(d.x);
    let turns = ((previous - raw) / std::f64::consts::TAU).round();
    raw + turns * std::f64::consts::TAU
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone)]
    struct Series {
        t: Vec<f64>,
        s: Vec<f64>,
        rot: Vec<f64>,
        contact: Vec<bool>,
        spin: Vec<f64>,
    }

    fn series(f: impl Fn(f64) -> f64, n: usize, h: f64) -> Series {
        let t: Vec<f64> = (0..n).map(|k| k as f64 * h).collect();
        let s = t.iter().map(|&t| f(t)).collect();
        Series {
            rot: vec![0.0; n],
            contact: vec![true; n],
            spin: vec![0.0; n],
            t,
            s,
        }
    }

    fn judge(x: &Series, h: f64) -> Verdict {
        judge_with(x, h, None)
    }

    fn judge_with(x: &Series, h: f64, exact_stick_radius: Option<f64>) -> Verdict {
        verdict(
            &Track {
                times: &x.t,
                downhill: &x.s,
                rotation: &x.rot,
                in_contact: &x.contact,
                angular_speed: Some(&x.spin),
                exact_stick_radius,
            },
            h,
        )
    }

    /// A body creeping at 0.29 mm/s (the smoothed book square's creep at μ = 0.2) after
    /// stopping at t = 2 s from a slide: stopped by the 5 mm rule, its drift the creep's
    /// distance from the stop to the end; with exact stick's 1 µm rule it is not stopped; the same body
    /// held still from t = 2 s is stopped at t = 3 s (a full window at rest) with zero drift,
    /// and one turning 10⁻⁵ rad/s with a radius of 0.5 m (5 µm a window) is not.
    #[test]
    fn exact_stick_stops_a_body_only_when_its_nodes_stay_within_a_micrometre() {
        let h = 0.01;
        let creep = 0.29e-3;
        let path = |t: f64, v_late: f64| {
            if t < 2.0 {
                0.5 * t - 0.125 * t * t
            } else {
                0.5 + v_late * (t - 2.0)
            }
        };
        let creeping = series(|t| path(t, creep), 1001, h);
        match judge(&creeping, h) {
            // The tail after t = 2 s is linear, so the drift from the stop is the creep times
            // the time from it to the end (t = 10 s).
            Verdict::Stopped { since, drift, .. } => {
                assert!(since >= 2.0, "{since}");
                assert!(
                    (drift - creep * (10.0 - since)).abs() < 1e-12,
                    "{drift} {since}"
                );
            }
            v => panic!("{v:?}"),
        }
        assert!(matches!(
            judge_with(&creeping, h, Some(0.5)),
            Verdict::Moving { .. }
        ));
        let held = series(|t| path(t, 0.0), 1001, h);
        match judge_with(&held, h, Some(0.5)) {
            Verdict::Stopped { since, drift, .. } => {
                assert!((since - 3.0).abs() < 1.5 * h, "{since}");
                assert_eq!(drift, 0.0);
            }
            v => panic!("{v:?}"),
        }
        let mut turning = held.clone();
        turning.rot = turning.t.iter().map(|t| 1e-5 * t).collect();
        assert!(!matches!(
            judge_with(&turning, h, Some(0.5)),
            Verdict::Stopped { .. }
        ));
    }

    #[test]
    fn constant_speed_is_sliding() {
        let x = series(|t| 0.45 * t, 1001, 0.01);
        match judge(&x, 0.01) {
            Verdict::Sliding { mean_speed } => assert!((mean_speed - 0.45).abs() < 1e-9),
            v => panic!("{v:?}"),
        }
    }

    #[test]
    fn stop_time_is_first_time_the_window_criterion_holds_for_good() {
        // Slides at 1 m/s until t = 3 s, then rests: the window [t−1, t] moves < 5 mm from
        // t = 3 + 1 − 0.005 s on; a 2 cm twitch at t = 5.5 s resets it to 6.5 s.
        let x = series(
            |t| t.min(3.0) + if t >= 5.5 { 0.02 } else { 0.0 },
            1001,
            0.01,
        );
        match judge(&x, 0.01) {
            Verdict::Stopped { since, .. } => assert!((since - 6.5).abs() < 1e-9, "{since}"),
            v => panic!("{v:?}"),
        }
        let x = series(|t| t.min(3.0), 1001, 0.01);
        match judge(&x, 0.01) {
            Verdict::Stopped { since, .. } => assert!((since - 3.995).abs() < 0.006, "{since}"),
            v => panic!("{v:?}"),
        }
    }

    #[test]
    fn stopped_reports_the_creep_speed() {
        // Rests from t = 3 s but creeps at 0.7 mm/s (SPEC.md §2's μ = 0.11 creep).
        let x = series(|t| t.min(3.0) + 7e-4 * (t - 3.0).max(0.0), 1001, 0.01);
        match judge(&x, 0.01) {
            Verdict::Stopped { creep_speed, .. } => {
                assert!((creep_speed - 7e-4).abs() < 1e-12, "{creep_speed}")
            }
            v => panic!("{v:?}"),
        }
    }

    #[test]
    fn slow_creep_is_neither() {
        let x = series(|t| 0.05 * t, 1001, 0.01);
        assert!(matches!(judge(&x, 0.01), Verdict::Moving { .. }));
        let short = Series {
            t: x.t[..50].to_vec(),
            s: x.s[..50].to_vec(),
            rot: x.rot[..50].to_vec(),
            contact: x.contact[..50].to_vec(),
            spin: x.spin[..50].to_vec(),
        };
        assert_eq!(judge(&short, 0.01), Verdict::TooShort);
    }

    #[test]
    fn turning_past_the_angle_is_tumbling_whatever_the_speed() {
        // Rolls downhill at 0.5 m/s turning 1.2 rad/s: tumbling, not sliding.
        let mut x = series(|t| 0.5 * t, 1001, 0.01);
        x.rot = x.t.iter().map(|t| -1.2 * t).collect();
        match judge(&x, 0.01) {
            Verdict::Tumbling { turned, .. } => assert!((turned + 1.2).abs() < 1e-9, "{turned}"),
            v => panic!("{v:?}"),
        }
        // Rocking by ±0.3 rad is not tumbling.
        x.rot = x.t.iter().map(|t| 0.3 * (7.0 * t).sin()).collect();
        assert!(matches!(judge(&x, 0.01), Verdict::Sliding { .. }));
    }

    #[test]
    fn no_contact_over_the_window_is_airborne() {
        let mut x = series(|_| 0.0, 201, 0.01);
        x.contact = x.t.iter().map(|&t| t < 0.95).collect();
        assert_eq!(judge(&x, 0.01), Verdict::Airborne);
        x.contact = x.t.iter().map(|&t| t < 1.05).collect();
        assert!(matches!(judge(&x, 0.01), Verdict::Stopped { .. }));
    }

    #[test]
    fn a_body_that_stays_but_spins_has_not_stopped() {
        // Rests from t = 3 s, its centroid fixed, but spins at 8.45 rad/s to the end (issue
        // 41's puck): spinning, not stopped; once the spin stops at t = 6 s, stopped from 7 s.
        let mut x = series(|t| t.min(3.0), 1001, 0.01);
        x.spin = vec![8.45; 1001];
        match judge(&x, 0.01) {
            Verdict::Spinning { angular_speed, .. } => {
                assert!((angular_speed - 8.45).abs() < 1e-9, "{angular_speed}")
            }
            v => panic!("{v:?}"),
        }
        x.spin =
            x.t.iter()
                .map(|&t| if t < 6.0 { 8.45 } else { 0.0 })
                .collect();
        match judge(&x, 0.01) {
            Verdict::Stopped { since, .. } => assert!((since - 7.0).abs() < 0.011, "{since}"),
            v => panic!("{v:?}"),
        }
    }

    #[test]
    fn the_angular_velocity_of_a_rigid_rotation_is_its_rate() {
        use crate::energy::Vec2;
        let x = [
            Vec2::new(1.0, 2.0),
            Vec2::new(2.0, 2.0),
            Vec2::new(1.0, 4.0),
        ];
        let m = [1.0, 2.0, 3.0];
        // v = u + ω ẑ × (x − c) for any c: ω = 0.7 rad/s, u = (0.3, −0.1) m/s.
        let v: Vec<Vec2> = x
            .iter()
            .map(|p| Vec2::new(0.3, -0.1) + Vec2::new(-(p.y - 5.0), p.x + 1.0) * 0.7)
            .collect();
        let w = angular_velocity_2d(&x, &v, &m);
        assert!((w - 0.7).abs() < 1e-12, "{w}");
    }

    #[test]
    fn angles_unwrap_across_a_half_turn() {
        use crate::energy::Vec2;
        let o = Vec2::zeros();
        let a = unwrapped_angle(&o, &Vec2::new(-1.0, 1e-3), 3.1);
        let b = unwrapped_angle(&o, &Vec2::new(-1.0, -1e-3), a);
        assert!((b - a - 2e-3).abs() < 1e-6, "{a} {b}");
    }
}
