//! What the window asks of a scene: [`SceneView`]. The window loop (`window`) owns the keys, the
//! clock, the layout, the lamps' panel, the help line and the screenshots, and knows no scene;
//! each scene (`slope_view`, `bounce_view`, `cases_view` for 2D and 3D scene cases) steps and
//! paints itself.

use std::path::PathBuf;

use super::ViewError;
use super::lamps::LampStrip;
use super::layout::Rect;
use super::paint::Pen;

/// What the keys have set, as a scene's painting reads it.
pub(crate) struct ViewState<'a> {
    /// The case shown, 0-based, below [`SceneView::case_count`].
    pub selected: usize,
    /// Whether force arrows are shown (key F).
    pub forces: bool,
    /// How the keys have turned a 3D scene's camera (A/D, W/X, I/O, C); 2D scenes ignore it.
    pub orbit: super::solid_layout::Orbit,
    /// The status line (running/paused, speed, the last message).
    pub status: &'a str,
}

/// A scene the viewer shows: it steps on the window's clock and paints its panels.
pub(crate) trait SceneView {
    /// Cases the keys 1–9 choose between (1 for a scene of one).
    fn case_count(&self) -> usize;
    /// One step of every case (the key →, and every headless frame).
    fn step_once(&mut self) -> Result<(), ViewError>;
    /// Steps every case up to simulated time `target`, s, at most `max_steps` steps a case.
    fn advance(&mut self, target: f64, max_steps: usize) -> Result<(), ViewError>;
    /// Simulated time of case `selected`, s.
    fn time(&self, selected: usize) -> f64;
    /// Back to t = 0, lamps too (key R); an error is shown on the status line.
    fn reset(&mut self) -> Result<(), String>;
    /// The lamps of case `selected`.
    fn lamps(&self, selected: usize) -> &LampStrip;
    /// Paints the scene itself into `rect`.
    fn paint_scene(&self, view: &ViewState, rect: Rect, pen: &Pen);
    /// Paints the HUD (the figures of the moment) into `rect`.
    fn paint_hud(&self, view: &ViewState, rect: Rect, pen: &Pen);
    /// Paints the chart into `panel`.
    fn paint_chart(&self, view: &ViewState, panel: Rect, pen: &Pen);
    /// The file key S writes: `stickslip-<stem>-step<step>.png` in the working directory.
    fn screenshot_name(&self, selected: usize) -> PathBuf;
}

/// A case a scene view steps on the window's clock (one per key 1–9): what the stepping
/// methods of [`SceneView`] need of it, so that every view steps its cases one way.
pub(crate) trait SteppedCase {
    /// One step, lamps judged (nothing once it cannot step).
    fn step(&mut self);
    /// Whether it can take another step (not at its end, not stopped by an error).
    fn can_step(&self) -> bool;
    /// Simulated time, s.
    fn time(&self) -> f64;
    /// Its time step, s.
    fn h(&self) -> f64;
    /// Back to t = 0, lamps too.
    fn reset(&mut self) -> Result<(), String>;
}

/// [`SceneView::advance`] over `cases`: each stepped up to simulated time `target` (s), at
/// most `max_steps` steps.
pub(crate) fn advance_cases<C: SteppedCase>(cases: &mut [C], target: f64, max_steps: usize) {
    for c in cases {
        let mut n = 0;
        while c.can_step() && c.time() + 0.5 * c.h() <= target && n < max_steps {
            c.step();
            n += 1;
        }
    }
}

/// [`SceneView::reset`] over `cases`: every one reset, the last failure reported.
pub(crate) fn reset_cases<C: SteppedCase>(cases: &mut [C]) -> Result<(), String> {
    let mut result = Ok(());
    for c in cases {
        if let Err(e) = c.reset() {
            result = Err(format!("reset failed: {e}"));
        }
    }
    result
}
