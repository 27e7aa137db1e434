//! What the window asks of a scene: [`SceneView`]. The window loop (`window`) owns the keys, the
//! clock, the layout, the lamps' panel, the help line and the screenshots, and knows no scene;
//! each scene (`slope_view`, `bounce_view`, `multibody_view`, `solid_view`) steps and paints
//! itself.

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
