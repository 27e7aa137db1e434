//! Scene cases (`kind = "scene"`) in the viewer: [`MultibodyView`] steps a [`SceneCase`] each
//! (keys 1–9 choose the one shown) and paints it (`multibody_paint`), its HUD (time, every
//! body's speed and slip, every driver's force, Newton's iterations) and the chart of its
//! drivers' forces against time, with SPEC.md §8's F_max and F_min for a spring on a belt.

use std::path::{Path, PathBuf};

use super::ViewError;
use super::chart::{axes, legend, polyline};
use super::lamps::LampStrip;
use super::layout::Rect;
use super::multibody::SceneCase;
use super::multibody_paint;
use super::paint::{Pen, colour, faded, line};
use super::panels::hud_lines;
use super::scene_view::{SceneView, SteppedCase, ViewState, advance_cases, reset_cases};
use crate::graphics;
use crate::run::multibody::SLIP_SPEED_OVER_EPS_V;
use crate::scene::multibody::DriverKind;

/// Bodies the HUD lists by name (the rest are counted).
pub const HUD_BODIES: usize = 3;
/// Drivers the HUD lists by name.
pub const HUD_DRIVERS: usize = 2;

/// The scene cases loaded.
pub(crate) struct MultibodyView {
    /// The cases, keys 1–9.
    pub cases: Vec<SceneCase>,
}

impl SteppedCase for SceneCase {
    fn step(&mut self) {
        SceneCase::step(self);
    }

    fn can_step(&self) -> bool {
        SceneCase::can_step(self)
    }

    fn time(&self) -> f64 {
        SceneCase::time(self)
    }

    fn h(&self) -> f64 {
        self.scene.settings.h
    }

    fn reset(&mut self) -> Result<(), String> {
        SceneCase::reset(self).map_err(|e| e.to_string())
    }
}

impl SceneView for MultibodyView {
    fn case_count(&self) -> usize {
        self.cases.len()
    }

    fn step_once(&mut self) -> Result<(), ViewError> {
        self.cases.iter_mut().for_each(SceneCase::step);
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
        multibody_paint::scene(&self.cases[view.selected], view.forces, rect, pen);
    }

    fn paint_hud(&self, view: &ViewState, rect: Rect, pen: &Pen) {
        hud(&self.cases, view.selected, view.status, rect, pen);
    }

    fn paint_chart(&self, view: &ViewState, panel: Rect, pen: &Pen) {
        chart(&self.cases[view.selected], panel, pen);
    }

    fn screenshot_name(&self, selected: usize) -> PathBuf {
        let case = &self.cases[selected];
        screenshot_file(case.scene.source.as_deref(), case.runner.sim.step)
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
pub(super) fn time_line(t: f64, step: usize, total: usize, h: f64) -> String {
    format!("t = {t:.3} s    step {step} / {total}    h = {h} s")
}

/// The HUD's line of Newton's last step at step `step`: its `iterations` and final residual
/// (m/s) against the tolerance `tol` (m/s).
pub(super) fn newton_line(step: usize, iterations: usize, residual: f64, tol: f64) -> String {
    if step == 0 {
        "Newton: no step yet".to_owned()
    } else {
        format!("Newton: {iterations} iter., residual {residual:.1e} m/s (tol {tol:.0e})")
    }
}

fn kind_name(kind: &DriverKind) -> &'static str {
    match kind {
        DriverKind::Spring { .. } => "spring",
        DriverKind::Move { .. } => "move",
        DriverKind::Force { .. } => "force",
    }
}

fn hud(cases: &[SceneCase], sel: usize, status: &str, rect: Rect, pen: &Pen) {
    let c = &cases[sel];
    let sc = &c.scene;
    let runner = &c.runner;
    let row = runner.rows.last().expect("a runner has the row of t = 0");
    let mut lines = vec![
        format!("case {}/{}: {}", sel + 1, cases.len(), sc.name),
        time_line(
            c.time(),
            runner.sim.step,
            runner.total_steps(),
            sc.settings.h,
        ),
        newton_line(
            runner.sim.step,
            row.newton_iterations,
            row.final_residual,
            sc.settings.tol,
        ),
    ];
    let slides_from = SLIP_SPEED_OVER_EPS_V * sc.settings.eps_v;
    for (b, s) in sc.bodies.iter().zip(&row.bodies).take(HUD_BODIES) {
        let speed = s.vx.hypot(s.vy);
        // The runner's rule (`SceneRunner::slip_events`): slipping above 2 ε_v.
        let regime = if s.min_distance >= sc.settings.barrier.dhat {
            "no contact".to_owned()
        } else if s.slip > slides_from {
            format!("slip {:.2e} m/s: slides", s.slip)
        } else {
            format!("slip {:.2e} m/s: sticks", s.slip)
        };
        lines.push(format!("{}: speed {:.4} m/s, {regime}", b.name, speed));
    }
    if sc.bodies.len() > HUD_BODIES {
        lines.push(format!(
            "… and {} more bodies",
            sc.bodies.len() - HUD_BODIES
        ));
    }
    for (d, f) in sc.drivers.iter().zip(&row.drivers).take(HUD_DRIVERS) {
        lines.push(format!(
            "{} ({}): {:.4} N  ({:.4}, {:.4})",
            d.name,
            kind_name(&d.kind),
            f.norm(),
            f.x,
            f.y
        ));
    }
    if sc.drivers.len() > HUD_DRIVERS {
        lines.push(format!(
            "… and {} more drivers",
            sc.drivers.len() - HUD_DRIVERS
        ));
    }
    let n = c.contact_counts();
    lines.push(format!(
        "contacts: {} stick, {} transition, {} slide",
        n.stick, n.transition, n.slide
    ));
    if let Some(e) = &c.error {
        lines.push(format!("stopped by an error: {e}"));
    } else if runner.done() {
        lines.push("the run is over (R starts it again)".to_owned());
    }
    lines.push(String::new());
    lines.push(status.to_owned());
    hud_lines(rect, &lines, pen);
}

/// The chart of every driver's force against time (a spring's tension along its line, another
/// driver's force magnitude), and for a spring on a belt SPEC.md §8's F_max = μ_s N and
/// F_min = (2μ_k − μ_s) N ([`crate::run::multibody::SceneRunner::stick_slip`]'s closed form).
fn chart(c: &SceneCase, panel: Rect, pen: &Pen) {
    let t_end = (c.runner.total_steps() as f64 * c.scene.settings.h).max(c.scene.settings.h);
    let analytic = c.runner.stick_slip().map(|(_, a)| a);
    let mut lo = 0.0f64;
    let mut hi = 0.0f64;
    for (_, v) in &c.chart {
        for &f in v {
            lo = lo.min(f);
            hi = hi.max(f);
        }
    }
    if let Some(a) = &analytic {
        lo = lo.min(a.f_min_n);
        hi = hi.max(a.f_max_n);
    }
    if hi - lo <= 0.0 {
        hi = lo + 1.0;
    }
    let span = hi - lo;
    let title = if c.scene.drivers.is_empty() {
        "no drivers: nothing to chart"
    } else {
        "drivers' forces against time (a spring: its tension); on a belt F_max = μ_s N, F_min = (2μ_k − μ_s) N"
    };
    let map = axes(
        panel,
        (0.0, t_end),
        (lo - 0.05 * span, hi + 0.08 * span),
        "t (s)",
        "force (N)",
        title,
        pen,
    );
    let mut entries = Vec::new();
    for (d, spec) in c.scene.drivers.iter().enumerate() {
        let col = graphics::case_colour(d);
        polyline(
            &map,
            c.chart.iter().map(|(t, v)| (*t, v[d])),
            2.0,
            colour(col),
        );
        let what = match spec.kind {
            DriverKind::Spring { .. } => "tension",
            _ => "|F|",
        };
        entries.push((col, format!("{} {what}", spec.name), false));
    }
    if let Some(a) = analytic {
        for (f, label) in [
            (a.f_max_n, format!("F_max {:.3} N", a.f_max_n)),
            (a.f_min_n, format!("F_min {:.3} N", a.f_min_n)),
        ] {
            dashed(&map, f, t_end);
            entries.push((graphics::TEXT, label, false));
        }
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

/// A dashed horizontal line at force `f` across the chart.
fn dashed(map: &super::layout::ChartMap, f: f64, t_end: f64) {
    let (x0, y) = map.to_screen(0.0, f);
    let (x1, _) = map.to_screen(t_end, f);
    let ink = colour(graphics::TEXT);
    let mut x = x0;
    while x < x1 {
        line((x, y), ((x + 6.0).min(x1), y), 1.5, ink);
        x += 11.0;
    }
}
