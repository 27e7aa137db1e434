//! The backtracking line search of SPEC.md §2, from the step filter's α₀.

use crate::energy::Vector;

/// Outcome of one accepted line search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LineSearchResult {
    /// Accepted step length α.
    pub alpha: f64,
    /// Halvings performed from the filtered initial α.
    pub halvings: usize,
    /// E before the step, J.
    pub energy_before: f64,
    /// E at the accepted point, J (≤ `energy_before`).
    pub energy_after: f64,
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

/// From `x` along `p`, starting at `alpha0` (the step filter: the smallest
/// [`crate::energy::Energy::max_step`] of the terms), halve α until E(x + αp) ≤ E(x). `trial` is a scratch
/// buffer for x + αp; on success it holds the accepted point. `energy` evaluates E.
pub fn backtrack<const D: usize>(
    x: &[Vector<D>],
    p: &[Vector<D>],
    alpha0: f64,
    max_halvings: usize,
    energy_before: f64,
    trial: &mut [Vector<D>],
    mut energy: impl FnMut(&[Vector<D>]) -> f64,
) -> Result<LineSearchResult, LineSearchFailure> {
    let mut alpha = alpha0;
    let mut halvings = 0;
    loop {
        for ((t, x), p) in trial.iter_mut().zip(x).zip(p) {
            *t = x + p * alpha;
        }
        let e = energy(trial);
        if e <= energy_before {
            return Ok(LineSearchResult {
                alpha,
                halvings,
                energy_before,
                energy_after: e,
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
