//! The one view of scene cases (`kind = "scene"`, SPEC.md §7), 2D and 3D: [`CasesView`] steps a
//! case each (keys 1–9 choose the one shown) and paints it, its HUD and its chart. What a
//! dimension draws differently — its projection and camera, its shapes, its HUD's body lines,
//! what its chart plots — is [`ViewedRun`], implemented once per dimension (`multibody_view`
//! for 2D, `solid_view` for 3D); the cases' stepping ([`Case`], `scene_case`), the lamps, the
//! HUD's frame, the chart's axes, legend and time cursor, the contact dots and the screenshot's
//! name are written once.

use std::path::{Path, PathBuf};

use macroquad::shapes::draw_circle;

use super::ViewError;
use super::chart::{axes, legend, polyline};
use super::lamps::LampStrip;
use super::layout::{ChartMap, Rect};
use super::paint::{Pen, colour, faded, line};
use super::panels::hud_lines;
use super::scene_case::{Case, CaseRun, ContactCounts};
use super::scene_view::{SceneView, ViewState, advance_cases, reset_cases};
use super::solid_layout::Orbit;
use crate::energy::Vector;
use crate::graphics::{self, Rgb};
use crate::run::multibody::ContactState;

/// Bodies the HUD lists by name (the rest are counted).
pub const HUD_BODIES: usize = 3;
/// Radius of a contact pair's dot, px.
pub const CONTACT_RADIUS: f32 = 4.0;

/// World → screen of a dimension's camera, px (y down), in the scene view.
pub(super) trait Projection<const D: usize> {
    /// Where world point `p` (m) shows; `None` where it shows nowhere (behind a 3D camera).
    fn project(&self, p: &Vector<D>) -> Option<(f32, f32)>;
}

/// A scene's runner of one dimension as [`CasesView`] shows its [`Case`]: what its scene says
/// of Newton and its file, the HUD's lines only its dimension writes, its picture and its
/// chart's data.
pub(crate) trait ViewedRun: CaseRun {
    /// Written after the case's name on the HUD's first line (the dimension where it is not
    /// the plain 2D).
    const NAME_SUFFIX: &'static str;
    /// The file the scene was read from, if any.
    fn source(scene: &Self::Scene) -> Option<&Path>;
    /// The scene's Newton tolerance, m/s.
    fn tol(scene: &Self::Scene) -> f64;
    /// Newton's iterations and final residual (m/s) at the last step.
    fn newton(&self) -> (usize, f64);
    /// How many contact pairs stick, are in the transition, and slide now.
    fn contact_counts(case: &Case<Self>) -> ContactCounts;
    /// The HUD's lines on the bodies (and drivers) now, after the time and Newton's lines.
    fn hud_body_lines(case: &Case<Self>) -> Vec<String>;
    /// The HUD's line on the camera keys' turn (3D), after the contacts' line.
    fn camera_line(orbit: Orbit) -> Option<String>;
    /// Paints the case's picture into `rect`: its shapes through its camera, contacts, drivers
    /// and, on `view.forces`, its contact forces.
    fn paint(case: &Case<Self>, view: &ViewState, rect: Rect, pen: &Pen);
    /// What its chart plots.
    fn chart(case: &Case<Self>) -> CaseChart;
}

/// One line of a case's chart: its colour, legend and (t s, value) points.
pub(super) struct Series {
    /// Its colour.
    pub colour: Rgb,
    /// Its legend's text.
    pub label: String,
    /// Its points, (t in s, value in the chart's unit).
    pub points: Vec<(f64, f64)>,
}

/// What a case's chart shows against time: its value range, labels, lines, and the constant
/// levels drawn dashed across it (a closed form's figures).
pub(super) struct CaseChart {
    /// The value axis's range.
    pub y: (f64, f64),
    /// The value axis's label.
    pub y_label: &'static str,
    /// The chart's title.
    pub title: &'static str,
    /// The lines.
    pub series: Vec<Series>,
    /// The dashed levels and their legends.
    pub levels: Vec<(f64, String)>,
}

/// The scene cases loaded, of one dimension.
pub(crate) struct CasesView<R: CaseRun> {
    /// The cases, keys 1–9.
    pub cases: Vec<Case<R>>,
}

impl<R: ViewedRun> SceneView for CasesView<R> {
    fn case_count(&self) -> usize {
        self.cases.len()
    }

    fn step_once(&mut self) -> Result<(), ViewError> {
        self.cases.iter_mut().for_each(Case::step);
        Ok(())
    }

    fn advance(&mut self, target: f64, max_steps: usize) -> Result<(), ViewError> {
        advance_cases(&mut self.cases, target, max_steps);
        Ok(())
    }

    fn time(&self, selected: usize) -> f64 {
        self.cases[selected].time()
    }

    fn reset(&mut self) -> Result<(), String> {
        reset_cases(&mut self.cases)
    }

    fn lamps(&self, selected: usize) -> &LampStrip {
        &self.cases[selected].lamps
    }

    fn paint_scene(&self, view: &ViewState, rect: Rect, pen: &Pen) {
        R::paint(&self.cases[view.selected], view, rect, pen);
    }

    fn paint_hud(&self, view: &ViewState, rect: Rect, pen: &Pen) {
        hud(&self.cases, view, rect, pen);
    }

    fn paint_chart(&self, view: &ViewState, panel: Rect, pen: &Pen) {
        chart(&self.cases[view.selected], panel, pen);
    }

    fn screenshot_name(&self, selected: usize) -> PathBuf {
        let case = &self.cases[selected];
        screenshot_file(R::source(&case.scene), case.runner.steps_done())
    }
}

/// The file key S writes for a scene case read from `source` at step `step`:
/// `stickslip-<stem>-step<step>.png` (`scene` for a case without a file).
pub(super) fn screenshot_file(source: Option<&Path>, step: usize) -> PathBuf {
    let stem = source
        .and_then(|p| p.file_stem())
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "scene".into());
    PathBuf::from(format!("stickslip-{stem}-step{step:05}.png"))
}

/// The HUD's line of time `t` (s), step `step` of `total` and step size `h` (s).
fn time_line(t: f64, step: usize, total: usize, h: f64) -> String {
    format!("t = {t:.3} s    step {step} / {total}    h = {h} s")
}

/// The HUD's line of Newton's last step at step `step`: its `iterations` and final residual
/// (m/s) against the tolerance `tol` (m/s).
fn newton_line(step: usize, iterations: usize, residual: f64, tol: f64) -> String {
    if step == 0 {
        "Newton: no step yet".to_owned()
    } else {
        format!("Newton: {iterations} iter., residual {residual:.1e} m/s (tol {tol:.0e})")
    }
}

/// The HUD of the case shown: which case, time and step, Newton's last step, the case's body
/// lines, its contacts by regime, the camera's line (3D), how the run stopped, the status line.
fn hud<R: ViewedRun>(cases: &[Case<R>], view: &ViewState, rect: Rect, pen: &Pen) {
    let sel = view.selected;
    let c = &cases[sel];
    let step = c.runner.steps_done();
    let (iterations, residual) = c.runner.newton();
    let mut lines = vec![
        format!(
            "case {}/{}: {}{}",
            sel + 1,
            cases.len(),
            c.runner.name(),
            R::NAME_SUFFIX
        ),
        time_line(c.time(), step, c.runner.total_steps(), R::h(&c.scene)),
        newton_line(step, iterations, residual, R::tol(&c.scene)),
    ];
    lines.extend(R::hud_body_lines(c));
    let n = R::contact_counts(c);
    lines.push(format!(
        "contacts: {} stick, {} transition, {} slide",
        n.stick, n.transition, n.slide
    ));
    lines.extend(R::camera_line(view.orbit));
    if let Some(e) = &c.error {
        lines.push(format!("stopped by an error: {e}"));
    } else if c.runner.done() {
        lines.push("the run is over (R starts it again)".to_owned());
    }
    lines.push(String::new());
    lines.push(view.status.to_owned());
    hud_lines(rect, &lines, pen);
}

/// The case's chart ([`ViewedRun::chart`]) over the whole run's time: its lines, its dashed
/// levels, the legend and a faint line at the time now.
fn chart<R: ViewedRun>(c: &Case<R>, panel: Rect, pen: &Pen) {
    let h = R::h(&c.scene);
    let t_end = (c.runner.total_steps() as f64 * h).max(h);
    let data = R::chart(c);
    let map = axes(
        panel,
        (0.0, t_end),
        data.y,
        "t (s)",
        data.y_label,
        data.title,
        pen,
    );
    let mut entries = Vec::new();
    for s in data.series {
        polyline(&map, s.points.into_iter(), 2.0, colour(s.colour));
        entries.push((s.colour, s.label, false));
    }
    for (f, label) in data.levels {
        dashed(&map, f, t_end);
        entries.push((graphics::TEXT, label, false));
    }
    legend(panel, &entries, pen);
    let (sx, _) = map.to_screen(c.time(), 0.0);
    line(
        (sx, map.area.y),
        (sx, map.area.y + map.area.h),
        1.0,
        faded(graphics::TEXT, 0.4),
    );
}

/// A dashed horizontal line at value `f` across the chart.
fn dashed(map: &ChartMap, f: f64, t_end: f64) {
    let (x0, y) = map.to_screen(0.0, f);
    let (x1, _) = map.to_screen(t_end, f);
    let ink = colour(graphics::TEXT);
    let mut x = x0;
    while x < x1 {
        line((x, y), ((x + 6.0).min(x1), y), 1.5, ink);
        x += 11.0;
    }
}

/// The colour of a contact regime.
pub fn contact_colour(s: ContactState) -> Rgb {
    match s {
        ContactState::Stick => graphics::NODE_STICKING,
        ContactState::Transition => graphics::CONTACT_TRANSITION,
        ContactState::Slide => graphics::NODE_SLIDING,
    }
}

/// The contact pairs `points` as dots in their regime's colour, those that show inside `rect`.
pub(super) fn contact_dots<const D: usize>(
    points: &[(Vector<D>, ContactState)],
    cam: &impl Projection<D>,
    rect: Rect,
) {
    for (p, s) in points {
        if let Some((x, y)) = cam.project(p)
            && rect.contains(x, y)
        {
            draw_circle(x, y, CONTACT_RADIUS, colour(contact_colour(*s)));
        }
    }
}
