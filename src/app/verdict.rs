//! The stopping verdict of SPEC.md §2: over a trailing 1 s window, *stopped* when the centroid's
//! downhill displacement is under 5 mm, *sliding* when its mean downhill speed exceeds 0.1 m/s.

use serde::Serialize;

/// Length of the trailing window, s (SPEC.md §2).
pub const WINDOW_S: f64 = 1.0;
/// Stopped: |downhill displacement over the window| below this, m (SPEC.md §2).
pub const STOPPED_DISPLACEMENT_M: f64 = 5e-3;
/// Sliding: mean downhill speed over the window above this, m/s (SPEC.md §2).
pub const SLIDING_SPEED_M_PER_S: f64 = 0.1;

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
    },
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
            Verdict::Stopped { since } => write!(f, "stopped at t = {since:.2} s"),
            Verdict::Moving { mean_speed } => write!(f, "moving ({mean_speed:.3} m/s)"),
            Verdict::TooShort => write!(f, "too short for a verdict"),
        }
    }
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

/// The verdict over a whole run: `downhill[k]` is the centroid's downhill distance at time
/// `times[k] = k h`, with `downhill[0]` at t = 0.
pub fn verdict(times: &[f64], downhill: &[f64], h: f64) -> Verdict {
    let w = window_steps(h);
    let last = match downhill.len().checked_sub(1) {
        Some(l) if l >= w => l,
        _ => return Verdict::TooShort,
    };
    let stopped_at = |k: usize| (downhill[k] - downhill[k - w]).abs() < STOPPED_DISPLACEMENT_M;
    if stopped_at(last) {
        let mut first = last;
        while first > w && stopped_at(first - 1) {
            first -= 1;
        }
        return Verdict::Stopped {
            since: times[first],
        };
    }
    let mean_speed = (downhill[last] - downhill[last - w]) / (w as f64 * h);
    if mean_speed > SLIDING_SPEED_M_PER_S {
        Verdict::Sliding { mean_speed }
    } else {
        Verdict::Moving { mean_speed }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn series(f: impl Fn(f64) -> f64, n: usize, h: f64) -> (Vec<f64>, Vec<f64>) {
        let t: Vec<f64> = (0..n).map(|k| k as f64 * h).collect();
        let s = t.iter().map(|&t| f(t)).collect();
        (t, s)
    }

    #[test]
    fn constant_speed_is_sliding() {
        let (t, s) = series(|t| 0.45 * t, 1001, 0.01);
        match verdict(&t, &s, 0.01) {
            Verdict::Sliding { mean_speed } => assert!((mean_speed - 0.45).abs() < 1e-9),
            v => panic!("{v:?}"),
        }
    }

    #[test]
    fn stop_time_is_first_time_the_window_criterion_holds_for_good() {
        // Slides at 1 m/s until t = 3 s, then rests: the window [t−1, t] moves < 5 mm from
        // t = 3 + 1 − 0.005 s on; a 2 cm twitch at t = 5.5 s resets it to 6.5 s.
        let (t, s) = series(
            |t| t.min(3.0) + if t >= 5.5 { 0.02 } else { 0.0 },
            1001,
            0.01,
        );
        match verdict(&t, &s, 0.01) {
            Verdict::Stopped { since } => assert!((since - 6.5).abs() < 1e-9, "{since}"),
            v => panic!("{v:?}"),
        }
        let (t, s) = series(|t| t.min(3.0), 1001, 0.01);
        match verdict(&t, &s, 0.01) {
            Verdict::Stopped { since } => assert!((since - 3.995).abs() < 0.006, "{since}"),
            v => panic!("{v:?}"),
        }
    }

    #[test]
    fn slow_creep_is_neither() {
        let (t, s) = series(|t| 0.05 * t, 1001, 0.01);
        assert!(matches!(verdict(&t, &s, 0.01), Verdict::Moving { .. }));
        assert_eq!(verdict(&t[..50], &s[..50], 0.01), Verdict::TooShort);
    }
}
