//! The backtracking line search of SPEC.md §2, from the step filter's α₀.
//!
//! Near convergence the Newton step can be so short (10⁻⁹ m against a body's metres) that E's
//! change along it is below E's own rounding: E(x + α₀ p) then comes out a few units of rounding
//! above E(x) although the step is a descent direction, every halving finds the same, and Newton
//! stalls at a residual just above its tolerance (docs/scenes.md, the box on the incline). A
//! first trial E cannot tell from E(x) is therefore handed to the caller's `flat` test, which
//! accepts it on a measure that does resolve there (the Newton loop's: the gradient's norm
//! fell). E cannot tell it when its increase is within [`FLAT_ENERGY_ULPS`] units of E's
//! rounding, or when the decrease the step predicts, α₀ |∇E · p|, is itself within that many:
//! either way the comparison of E(x + α₀ p) with E(x) says nothing. E's rounding is taken
//! relative to its terms' magnitudes Σ wₜ |Ψₜ| ([`StartPoint::scale`]), not to |E|, which can be
//! far smaller where the terms cancel.

use crate::energy::Vector;

/// A first trial whose E exceeds E(x) by at most this many units of rounding,
/// ε · max(Σ wₜ |Ψₜ(x)|, |E(x)|, |E(x + α₀ p)|), is "flat": E cannot tell it from E(x). E's
/// rounding is more than a sum's few units: a barrier's distance, a gap of 10⁻⁴ m taken from
/// coordinates of 1 m, carries 10⁴ units of rounding of its own, and Newton's stalls measured
/// E's noise at 5 600 and 8 600 units (docs/model.md). 2¹⁶ (1.5·10⁻¹¹ of E's terms) covers them.
pub const FLAT_ENERGY_ULPS: f64 = 65536.0;

/// Where a line search starts: E there, its terms' magnitudes, and the decrease the step
/// predicts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StartPoint {
    /// E(x), J·s².
    pub energy: f64,
    /// Σ wₜ |Ψₜ(x)| over E's terms, J·s²: what E's rounding is relative to.
    pub scale: f64,
    /// α₀ |∇E(x) · p|, J·s²: the first-order decrease of the first trial.
    pub predicted_decrease: f64,
}

/// Outcome of one accepted line search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LineSearchResult {
    /// Accepted step length α.
    pub alpha: f64,
    /// Halvings performed from the filtered initial α.
    pub halvings: usize,
    /// E before the step, J.
    pub energy_before: f64,
    /// E at the accepted point, J (≤ `energy_before`, or above it within rounding when `flat`).
    pub energy_after: f64,
    /// Accepted by the caller's `flat` test (module comment).
    pub flat: bool,
}

/// Backtracking failed: α was halved `halvings` times without E decreasing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LineSearchFailure {
    /// Last α tried.
    pub alpha: f64,
    /// Halvings performed.
    pub halvings: usize,
    /// E at the start point, J.
    pub energy_before: f64,
}

/// What a line search evaluates at its trial points.
pub trait TrialPoints<const D: usize> {
    /// E at `x`, J.
    fn energy(&mut self, x: &[Vector<D>]) -> f64;
    /// Whether a first trial within rounding of E(x) is accepted (module comment).
    fn flat(&mut self, x: &[Vector<D>]) -> bool;
}

/// From `x` along `p`, starting at `alpha0` (the step filter: the smallest
/// [`crate::energy::Energy::max_step`] of the terms), halve α until E(x + αp) ≤ E(x). `trial` is a scratch
/// buffer for x + αp; on success it holds the accepted point. `points` evaluates E and decides
/// on a first trial E cannot tell from E(x) (module comment).
pub fn backtrack<const D: usize>(
    x: &[Vector<D>],
    p: &[Vector<D>],
    alpha0: f64,
    max_halvings: usize,
    start: StartPoint,
    trial: &mut [Vector<D>],
    points: &mut impl TrialPoints<D>,
) -> Result<LineSearchResult, LineSearchFailure> {
    let energy_before = start.energy;
    let unresolved = start.predicted_decrease
        <= FLAT_ENERGY_ULPS * f64::EPSILON * start.scale.max(energy_before.abs());
    let mut alpha = alpha0;
    let mut halvings = 0;
    loop {
        for ((t, x), p) in trial.iter_mut().zip(x).zip(p) {
            *t = x + p * alpha;
        }
        let e = points.energy(trial);
        let rounding = f64::EPSILON * start.scale.max(energy_before.abs()).max(e.abs());
        let within_rounding = halvings == 0
            && (unresolved || e - energy_before <= FLAT_ENERGY_ULPS * rounding)
            && e.is_finite();
        if e <= energy_before || (within_rounding && points.flat(trial)) {
            return Ok(LineSearchResult {
                alpha,
                halvings,
                energy_before,
                energy_after: e,
                flat: e > energy_before,
            });
        }
        if halvings >= max_halvings {
            return Err(LineSearchFailure {
                alpha,
                halvings,
                energy_before,
            });
        }
        alpha *= 0.5;
        halvings += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::Vector2;

    /// E = `base` at x = 0 and `base + rise` everywhere else; the flat test answers `accept`
    /// and counts its calls.
    struct Rise {
        base: f64,
        rise: f64,
        accept: bool,
        calls: usize,
    }

    impl Rise {
        fn new(base: f64, rise: f64, accept: bool) -> Rise {
            Rise {
                base,
                rise,
                accept,
                calls: 0,
            }
        }
    }

    impl TrialPoints<2> for Rise {
        fn energy(&mut self, x: &[Vector<2>]) -> f64 {
            self.base + self.rise * x[0].norm().signum()
        }
        fn flat(&mut self, _: &[Vector<2>]) -> bool {
            self.calls += 1;
            self.accept
        }
    }

    /// A start at E = `energy` whose terms are as large as E, predicting `predicted_decrease`.
    fn start(energy: f64, predicted_decrease: f64) -> StartPoint {
        StartPoint {
            energy,
            scale: energy.abs(),
            predicted_decrease,
        }
    }

    /// E along a line that is flat to within a few units of rounding: E(x) = e0 at x = 0,
    /// e0 (1 + 4ε) at every other point; the flat test's answer is given, and its calls counted.
    struct Flat {
        e0: f64,
        accept: bool,
        calls: usize,
    }

    impl TrialPoints<2> for Flat {
        fn energy(&mut self, x: &[Vector<2>]) -> f64 {
            if x[0].norm() == 0.0 {
                self.e0
            } else {
                self.e0 * (1.0 + 4.0 * f64::EPSILON)
            }
        }
        fn flat(&mut self, _: &[Vector<2>]) -> bool {
            self.calls += 1;
            self.accept
        }
    }

    #[test]
    fn a_first_trial_within_rounding_is_accepted_only_on_the_flat_test() {
        let (x, p) = ([Vector2::zeros()], [Vector2::new(1e-9, 0.0)]);
        let mut trial = [Vector2::zeros()];
        let mut yes = Flat {
            e0: 2.4e-5,
            accept: true,
            calls: 0,
        };
        let r = backtrack(&x, &p, 0.8, 10, start(2.4e-5, 1.0), &mut trial, &mut yes).unwrap();
        assert_eq!((r.alpha, r.halvings, r.flat, yes.calls), (0.8, 0, true, 1));
        assert!(r.energy_after > r.energy_before);
        assert_eq!(trial[0], p[0] * 0.8);
        // Refused: halving goes on (the flat test is asked at the first trial only) and fails.
        let mut no = Flat {
            e0: 2.4e-5,
            accept: false,
            calls: 0,
        };
        let f = backtrack(&x, &p, 0.8, 10, start(2.4e-5, 1.0), &mut trial, &mut no).unwrap_err();
        assert_eq!((f.halvings, no.calls), (10, 1));
    }

    /// An increase beyond rounding (1e-9 relative: 4.5·10⁶ units) never reaches the flat test.
    #[test]
    fn a_real_increase_is_not_handed_to_the_flat_test() {
        let (x, p) = ([Vector2::zeros()], [Vector2::new(1.0, 0.0)]);
        let mut up = Rise::new(1.0, 1e-9, true);
        let f = backtrack(
            &x,
            &p,
            1.0,
            5,
            start(1.0, 1.0),
            &mut [Vector2::zeros()],
            &mut up,
        )
        .unwrap_err();
        assert_eq!((f.halvings, up.calls), (5, 0));
    }

    /// The same increase on a step whose predicted decrease is below E's rounding (zero here) goes
    /// to the flat test, once, at the first trial: accepted when it says so, halved on when not;
    /// an infinite E (a trial into contact) never does.
    #[test]
    fn an_unresolved_step_is_handed_to_the_flat_test_whatever_e_did() {
        let (x, p) = ([Vector2::zeros()], [Vector2::new(1.0, 0.0)]);
        let mut yes = Rise::new(1.0, 1e-9, true);
        let r = backtrack(
            &x,
            &p,
            1.0,
            5,
            start(1.0, 0.0),
            &mut [Vector2::zeros()],
            &mut yes,
        )
        .unwrap();
        assert_eq!((r.alpha, r.halvings, r.flat, yes.calls), (1.0, 0, true, 1));
        let mut no = Rise::new(1.0, 1e-9, false);
        let f = backtrack(
            &x,
            &p,
            1.0,
            5,
            start(1.0, 0.0),
            &mut [Vector2::zeros()],
            &mut no,
        )
        .unwrap_err();
        assert_eq!((f.halvings, no.calls), (5, 1));
        struct Wall(usize);
        impl TrialPoints<2> for Wall {
            fn energy(&mut self, x: &[Vector<2>]) -> f64 {
                if x[0].norm() > 0.5 {
                    f64::INFINITY
                } else {
                    0.5
                }
            }
            fn flat(&mut self, _: &[Vector<2>]) -> bool {
                self.0 += 1;
                true
            }
        }
        let mut wall = Wall(0);
        let r = backtrack(
            &x,
            &p,
            1.0,
            5,
            start(1.0, 0.0),
            &mut [Vector2::zeros()],
            &mut wall,
        )
        .unwrap();
        assert_eq!((r.alpha, r.halvings, wall.0), (0.5, 1, 0));
    }

    /// E's rounding is relative to its terms: E = 10⁻⁶ from terms of size 1 risen by 10⁻¹² is
    /// within rounding (2¹⁶ ε ≈ 1.5·10⁻¹¹ of the terms) and goes to the flat test; from terms
    /// as small as E it is not (10⁶ times E's rounding) and is halved.
    #[test]
    fn rounding_is_taken_relative_to_the_terms() {
        let (x, p) = ([Vector2::zeros()], [Vector2::new(1.0, 0.0)]);
        let at = |scale| StartPoint {
            energy: 1e-6,
            scale,
            predicted_decrease: 1e-9,
        };
        let mut large = Rise::new(1e-6, 1e-12, true);
        let r = backtrack(&x, &p, 1.0, 5, at(1.0), &mut [Vector2::zeros()], &mut large).unwrap();
        assert_eq!((r.halvings, r.flat, large.calls), (0, true, 1));
        let mut small = Rise::new(1e-6, 1e-12, true);
        let f = backtrack(
            &x,
            &p,
            1.0,
            5,
            at(1e-6),
            &mut [Vector2::zeros()],
            &mut small,
        )
        .unwrap_err();
        assert_eq!((f.halvings, small.calls), (5, 0));
    }
}
