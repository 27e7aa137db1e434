//! Whether a scene's finished run is physical (issue 41): a run completes whenever every step's
//! Newton solve converges, but a body can still have turned inside out (an element inverted: a
//! soft neo-Hookean body, an affine body at low κ, a hard impact on a thin plate) or penetrated
//! (a node below a half-space or a pair distance below 0, which the barrier cannot see once a
//! body's interior nodes pass its own boundary). Such a run's outputs are written for
//! inspection, but it is not a silent success: `stickslip run` prints one line per body and
//! what happened, exits 3 ([`NOT_PHYSICAL_EXIT_CODE`]), and `summary.json` says
//! `"physical": false` with the reasons ([`Physicality`]). A spin too fast for the time step
//! ([`SPIN_PER_STEP_BOUND_RAD`]) is a warning: the result is damped, not wrong in kind.

use serde::Serialize;

/// The exit status of `stickslip run` for a run that completed but whose result is not
/// physical (a body inverted or penetrated): its outputs are written for inspection.
pub const NOT_PHYSICAL_EXIT_CODE: i32 = 3;

/// The angle a body may turn in one step, |ω| h, before a warning, rad. Implicit Euler treats a
/// rotation of ω h per step as it treats an oscillation of frequency ω: it multiplies its speed
/// by 1/√(1 + (ω h)²) each step, taking about (ω h)²/2 of it (2 % at this bound). A spin at the
/// bound so halves within 35 steps (7 rad, about one turn); at ω h ≫ 1 it is gone in a step.
pub const SPIN_PER_STEP_BOUND_RAD: f64 = 0.2;

/// A body with an element inverted at the end of some step.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Inversion {
    /// The body.
    pub body: String,
    /// The most of its elements (triangles in 2D, tetrahedra in 3D) inverted at the end of one
    /// step.
    pub elements: usize,
    /// Its elements.
    pub of: usize,
    /// The end of the first step with one inverted, s.
    pub first_time_s: f64,
}

/// A body whose distance to a half-space or another member went below 0.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Penetration {
    /// The body.
    pub body: String,
    /// Its smallest distance over the run (`trajectory.csv`'s `NAME.min_distance_m`), m.
    pub min_distance_m: f64,
    /// When it was smallest, s.
    pub time_s: f64,
    /// The first time it was below 0, s.
    pub first_time_s: f64,
}

/// A body that turned more than [`SPIN_PER_STEP_BOUND_RAD`] in a step.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FastSpin {
    /// The body.
    pub body: String,
    /// Its largest angular speed about its centroid, rad/s.
    pub angular_speed_rad_per_s: f64,
    /// That times h: the angle turned in a step, rad.
    pub omega_h_rad: f64,
    /// When (0 for the launch), s.
    pub time_s: f64,
    /// [`SPIN_PER_STEP_BOUND_RAD`].
    pub bound_rad: f64,
}

/// What one body did over a run, observed state by state.
#[derive(Clone, Debug)]
pub struct BodyWatch {
    inverted: usize,
    first_inversion: Option<f64>,
    min_distance: f64,
    min_time: f64,
    first_penetration: Option<f64>,
    spin: f64,
    spin_time: f64,
}

impl Default for BodyWatch {
    fn default() -> Self {
        BodyWatch {
            inverted: 0,
            first_inversion: None,
            min_distance: f64::INFINITY,
            min_time: 0.0,
            first_penetration: None,
            spin: 0.0,
            spin_time: 0.0,
        }
    }
}

impl BodyWatch {
    /// The body at time `t` (s): `inverted` elements, its smallest distance `min_distance` (m),
    /// its angular speed `spin` (rad/s).
    pub fn observe(&mut self, t: f64, inverted: usize, min_distance: f64, spin: f64) {
        if inverted > 0 && self.first_inversion.is_none() {
            self.first_inversion = Some(t);
        }
        self.inverted = self.inverted.max(inverted);
        if min_distance < self.min_distance {
            self.min_distance = min_distance;
            self.min_time = t;
        }
        if min_distance < 0.0 && self.first_penetration.is_none() {
            self.first_penetration = Some(t);
        }
        if spin > self.spin {
            self.spin = spin;
            self.spin_time = t;
        }
    }
}

/// A time for a message, s: to the microsecond, trailing zeros dropped (a step's end k h
/// carries rounding: 0.08600000000000001).
fn time(t: f64) -> String {
    let s = format!("{t:.6}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

fn holds(physical: &bool) -> bool {
    *physical
}

/// A run's physicality in `summary.json` (flattened into it): every key absent when the run
/// was physical and no spin exceeded the bound, so a physical run's summary is as before.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Physicality {
    /// `false` when a body inverted or penetrated (absent when true).
    #[serde(skip_serializing_if = "holds")]
    pub physical: bool,
    /// The bodies with an element inverted.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub inverted: Vec<Inversion>,
    /// The bodies that penetrated a half-space or another member.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub penetrated: Vec<Penetration>,
    /// Warnings: the bodies whose |ω| h exceeded [`SPIN_PER_STEP_BOUND_RAD`].
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fast_spin: Vec<FastSpin>,
}

impl Physicality {
    /// Of bodies named `names` with `elements` elements each, watched by `watches`, at time
    /// step `h` (s).
    pub fn of(names: &[&str], elements: &[usize], watches: &[BodyWatch], h: f64) -> Physicality {
        let mut p = Physicality {
            physical: true,
            inverted: Vec::new(),
            penetrated: Vec::new(),
            fast_spin: Vec::new(),
        };
        for ((name, &of), w) in names.iter().zip(elements).zip(watches) {
            if let Some(first_time_s) = w.first_inversion {
                p.inverted.push(Inversion {
                    body: name.to_string(),
                    elements: w.inverted,
                    of,
                    first_time_s,
                });
            }
            if let Some(first_time_s) = w.first_penetration {
                p.penetrated.push(Penetration {
                    body: name.to_string(),
                    min_distance_m: w.min_distance,
                    time_s: w.min_time,
                    first_time_s,
                });
            }
            if w.spin * h > SPIN_PER_STEP_BOUND_RAD {
                p.fast_spin.push(FastSpin {
                    body: name.to_string(),
                    angular_speed_rad_per_s: w.spin,
                    omega_h_rad: w.spin * h,
                    time_s: w.spin_time,
                    bound_rad: SPIN_PER_STEP_BOUND_RAD,
                });
            }
        }
        p.physical = p.inverted.is_empty() && p.penetrated.is_empty();
        p
    }

    /// What the run's table prints: one line per inverted or penetrating body (`not physical:
    /// …`) and per fast spin (`warning: …`), each ending in a line break; empty when there is
    /// nothing to say.
    pub fn lines(&self, element: &str) -> String {
        let mut s = String::new();
        for i in &self.inverted {
            s.push_str(&format!(
                "not physical: {} turned inside out: up to {} of its {} {element} inverted at the end of a step, the first at t = {} s\n",
                crate::console::one_line(&i.body),
                i.elements,
                i.of,
                time(i.first_time_s)
            ));
        }
        for p in &self.penetrated {
            s.push_str(&format!(
                "not physical: {} penetrated: its distance went below 0 at t = {} s, to {:.3e} m at t = {} s\n",
                crate::console::one_line(&p.body),
                time(p.first_time_s),
                p.min_distance_m,
                time(p.time_s)
            ));
        }
        for f in &self.fast_spin {
            s.push_str(&format!(
                "warning: {} spins at {:.3} rad/s at t = {} s: |omega| h = {:.3} rad per step exceeds {} rad, and implicit Euler damps the spin by 1/sqrt(1 + (omega h)^2) a step (a smaller time.h keeps it)\n",
                crate::console::one_line(&f.body),
                f.angular_speed_rad_per_s,
                time(f.time_s),
                f.omega_h_rad,
                f.bound_rad
            ));
        }
        s
    }

    /// The reasons in a few words, for the error line (`None` when physical).
    pub fn reasons(&self) -> Option<String> {
        if self.physical {
            return None;
        }
        let mut r: Vec<String> = self
            .inverted
            .iter()
            .map(|i| format!("{} inverted", crate::console::one_line(&i.body)))
            .collect();
        r.extend(
            self.penetrated
                .iter()
                .map(|p| format!("{} penetrated", crate::console::one_line(&p.body))),
        );
        Some(r.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_physical_run_adds_nothing_to_the_summary() {
        let mut w = BodyWatch::default();
        w.observe(0.0, 0, 1e-3, 0.5);
        w.observe(0.01, 0, 2e-3, 1.0);
        let p = Physicality::of(&["box"], &[6], &[w], 0.01);
        assert!(p.physical);
        assert_eq!(serde_json::to_string(&p).unwrap(), "{}");
        assert_eq!(p.lines("triangles"), "");
        assert_eq!(p.reasons(), None);
    }

    #[test]
    fn inversion_penetration_and_fast_spin_are_reported() {
        let mut w = BodyWatch::default();
        w.observe(0.0, 0, 1e-3, 30.0);
        w.observe(0.01, 2, -1e-3, 0.0);
        w.observe(0.02, 5, -0.5, 0.0);
        w.observe(0.03, 1, -0.2, 0.0);
        let p = Physicality::of(&["box"], &[6], &[w], 0.01);
        assert!(!p.physical);
        assert_eq!(p.inverted[0].elements, 5);
        assert_eq!(p.inverted[0].first_time_s, 0.01);
        assert_eq!(p.penetrated[0].min_distance_m, -0.5);
        assert_eq!(p.penetrated[0].time_s, 0.02);
        assert_eq!(p.penetrated[0].first_time_s, 0.01);
        assert!((p.fast_spin[0].omega_h_rad - 0.3).abs() < 1e-12);
        assert_eq!(p.reasons().unwrap(), "box inverted, box penetrated");
        let json = serde_json::to_value(&p).unwrap();
        assert_eq!(json["physical"], false);
        assert_eq!(p.lines("triangles").lines().count(), 3);
    }
}
