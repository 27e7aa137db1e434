//! The slope cases in the viewer: [`SlopeView`] steps a [`SlopeCase`] each and paints the mesh
//! (node states, force arrows), the HUD and the chart of downhill distance against time.

use std::path::PathBuf;

use macroquad::shapes::{draw_circle, draw_circle_lines};

use super::ViewError;
use super::chart::{axes, legend, polyline};
use super::lamps::LampStrip;
use super::layout::{self, Rect};
use super::paint::{
    Pen, arrow, colour, faded, fill, force_legend, frame, ground, line, world_grid,
};
use super::panels::hud_lines;
use super::scene_view::{SceneView, SteppedCase, ViewState, advance_cases, reset_cases};
use super::slope::{NodeState, SlopeCase};
use crate::graphics;
use crate::run::verdict::Verdict;

/// Barrier-force arrows: m of arrow per N (the ~2 kN a bottom node carries at rest ↦ 0.4 m).
pub const BARRIER_ARROW_M_PER_N: f64 = 2.0e-4;
/// Friction-force arrows: m per N, ten times the barrier's so that μλ ≈ 0.1 λ reads as well.
pub const FRICTION_ARROW_M_PER_N: f64 = 2.0e-3;
/// Node radius, px.
pub const NODE_RADIUS: f32 = 5.0;
/// Spring thickness, px.
pub const MESH_THICKNESS: f32 = 2.0;

/// The slope cases loaded, and where their impulse law runs.
pub(crate) struct SlopeView {
    /// The cases, keys 1–9.
    pub cases: Vec<SlopeCase>,
    /// The impulse-law backend's name, for the HUD.
    pub backend_name: String,
}

impl SteppedCase for SlopeCase {
    fn step(&mut self) {
        SlopeCase::step(self);
    }

    fn can_step(&self) -> bool {
        SlopeCase::can_step(self)
    }

    fn time(&self) -> f64 {
        self.runner.sim.time()
    }

    fn h(&self) -> f64 {
        self.scene.h
    }

    fn reset(&mut self) -> Result<(), String> {
        SlopeCase::reset(self).map_err(|e| e.to_string())
    }
}

impl SceneView for SlopeView {
    fn case_count(&self) -> usize {
        self.cases.len()
    }

    fn step_once(&mut self) -> Result<(), ViewError> {
        for c in self.cases.iter_mut() {
            c.step();
        }
        Ok(())
    }

    fn advance(&mut self, target: f64, max_steps: usize) -> Result<(), ViewError> {
        advance_cases(&mut self.cases, target, max_steps);
        Ok(())
    }

    fn time(&self, selected: usize) -> f64 {
        self.cases[selected].runner.sim.time()
    }

    fn reset(&mut self) -> Result<(), String> {
        reset_cases(&mut self.cases)
    }

    fn lamps(&self, selected: usize) -> &LampStrip {
        &self.cases[selected].lamps
    }

    fn paint_scene(&self, view: &ViewState, rect: Rect, pen: &Pen) {
        slope_scene(&self.cases, view.selected, view.forces, rect, pen);
    }

    fn paint_hud(&self, view: &ViewState, rect: Rect, pen: &Pen) {
        slope_hud(
            &self.cases,
            view.selected,
            view.status,
            &self.backend_name,
            rect,
            pen,
        );
    }

    fn paint_chart(&self, view: &ViewState, panel: Rect, pen: &Pen) {
        slope_chart(&self.cases, view.selected, panel, pen);
    }

    fn screenshot_name(&self, selected: usize) -> PathBuf {
        let case = &self.cases[selected];
        let stem = case
            .scene
            .source
            .as_ref()
            .and_then(|p| p.file_stem())
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "slope".into());
        PathBuf::from(format!(
            "stickslip-{stem}-step{:05}.png",
            case.runner.sim.step
        ))
    }
}

/// The slope scene view of case `sel`, the others as faint outlines.
fn slope_scene(cases: &[SlopeCase], sel: usize, forces: bool, rect: Rect, pen: &Pen) {
    let case = &cases[sel];
    let sc = &case.scene;
    let cam = layout::slope_camera(rect, sc.side, &sc.normal, &sc.point, &case.centroid());
    fill(rect, colour(graphics::SKY));
    world_grid(&cam, pen);
    ground(&cam, &sc.normal, &sc.point);
    // The other loaded cases' outlines, faint, in their chart colours.
    let outline = case.runner.mesh.boundary_edges();
    for (k, other) in cases.iter().enumerate() {
        if k == sel || other.runner.mesh.triangles != case.runner.mesh.triangles {
            continue;
        }
        let c = faded(graphics::case_colour(k), 0.7);
        for &[a, b] in &outline {
            let (pa, pb) = (
                cam.to_screen(&other.runner.sim.x[a]),
                cam.to_screen(&other.runner.sim.x[b]),
            );
            if rect.contains(pa.0, pa.1) && rect.contains(pb.0, pb.1) {
                line(pa, pb, 1.5, c);
            }
        }
    }
    let sim = &case.runner.sim;
    let mesh = colour(graphics::MESH);
    for &[a, b] in &case.runner.mesh.edges {
        line(
            cam.to_screen(&sim.x[a]),
            cam.to_screen(&sim.x[b]),
            MESH_THICKNESS,
            mesh,
        );
    }
    if forces {
        for (x, (fb, ff)) in sim.x.iter().zip(case.node_forces()) {
            let a = cam.to_screen(x);
            if fb.norm() > 0.0 {
                arrow(
                    a,
                    cam.to_screen(&(x + fb * BARRIER_ARROW_M_PER_N)),
                    colour(graphics::BARRIER_ARROW),
                );
            }
            if ff.norm() > 0.0 {
                arrow(
                    a,
                    cam.to_screen(&(x + ff * FRICTION_ARROW_M_PER_N)),
                    colour(graphics::FRICTION_ARROW),
                );
            }
        }
    }
    for (x, state) in sim.x.iter().zip(case.node_states()) {
        let (sx, sy) = cam.to_screen(x);
        let c = match state {
            NodeState::Free => graphics::NODE_FREE,
            NodeState::Sticking => graphics::NODE_STICKING,
            NodeState::Sliding => graphics::NODE_SLIDING,
        };
        draw_circle(sx, sy, NODE_RADIUS, colour(c));
    }
    // Legend of the node colours and arrows, top left.
    let ink = colour(graphics::TEXT);
    let mut x = rect.x + 10.0;
    let y = rect.y + 20.0;
    x += pen.text(&sc.name, x, y, 18, ink) + 18.0;
    for (c, label) in [
        (graphics::NODE_FREE, "no contact"),
        (graphics::NODE_STICKING, "sticking (|v·t| < ε_v)"),
        (graphics::NODE_SLIDING, "sliding"),
    ] {
        draw_circle(x + 5.0, y - 5.0, NODE_RADIUS, colour(c));
        x += 14.0 + pen.text(label, x + 14.0, y, 15, ink) + 14.0;
    }
    if forces {
        let text = format!(
            "arrows: barrier 1 m = {:.0} N, friction 1 m = {:.0} N",
            1.0 / BARRIER_ARROW_M_PER_N,
            1.0 / FRICTION_ARROW_M_PER_N
        );
        force_legend(rect, &text, pen);
    }
    frame(rect, ink);
}

/// The chart of downhill distance against time, every case.
fn slope_chart(cases: &[SlopeCase], sel: usize, panel: Rect, pen: &Pen) {
    let t_end = cases
        .iter()
        .map(|c| c.runner.total_steps() as f64 * c.scene.h)
        .fold(1.0f64, f64::max);
    let (lo, hi) = cases
        .iter()
        .flat_map(|c| c.runner.rows.iter().map(|r| r.downhill_distance))
        .fold((0.0f64, 0.5f64), |(lo, hi), s| (lo.min(s), hi.max(s)));
    let span = hi - lo;
    let map = axes(
        panel,
        (0.0, t_end),
        (lo - 0.05 * span, hi + 0.08 * span),
        "t (s)",
        "downhill distance (m)",
        "centroid's downhill distance against time (the book's Figure 10.2.1)",
        pen,
    );
    let mut entries = Vec::new();
    for (k, case) in cases.iter().enumerate() {
        let c = graphics::case_colour(k);
        let rows = &case.runner.rows;
        polyline(
            &map,
            rows.iter().map(|r| (r.t, r.downhill_distance)),
            if k == sel { 3.0 } else { 2.0 },
            colour(c),
        );
        entries.push((c, format!("μ = {}", case.scene.mu), k == sel));
        if let Verdict::Stopped { since, .. } = case.verdict() {
            let s = rows
                .iter()
                .find(|r| r.t >= since)
                .map_or(0.0, |r| r.downhill_distance);
            let (sx, sy) = map.to_screen(since, s);
            draw_circle_lines(sx, sy, 6.0, 2.0, colour(c));
        }
    }
    legend(panel, &entries, pen);
    let t_now = cases[sel].runner.sim.time();
    let (sx, _) = map.to_screen(t_now, 0.0);
    line(
        (sx, map.area.y),
        (sx, map.area.y + map.area.h),
        1.0,
        faded(graphics::TEXT, 0.4),
    );
}

fn percent(f: Option<f64>) -> String {
    f.map_or_else(|| "n/a".into(), |f| format!("{:.2} %", 100.0 * f))
}

fn verdict_text(v: Verdict) -> String {
    match v {
        Verdict::Sliding { mean_speed } => format!("sliding ({mean_speed:.3} m/s over 1 s)"),
        Verdict::Stopped { since, .. } => format!("stopped since t = {since:.2} s"),
        Verdict::Tumbling { .. } | Verdict::Spinning { .. } | Verdict::Airborne => v.to_string(),
        Verdict::Moving { mean_speed } => format!("moving ({mean_speed:.3} m/s over 1 s)"),
        Verdict::TooShort => "no verdict before t = 1 s".into(),
    }
}

fn slope_hud(cases: &[SlopeCase], sel: usize, status: &str, backend: &str, rect: Rect, pen: &Pen) {
    let c = &cases[sel];
    let sim = &c.runner.sim;
    let row = c.runner.rows.last().copied();
    let states = c.node_states();
    let sticking = states.iter().filter(|s| **s == NodeState::Sticking).count();
    let sliding = states.iter().filter(|s| **s == NodeState::Sliding).count();
    let mut lines = vec![
        format!("case {}/{}: {}", sel + 1, cases.len(), c.scene.name),
        format!(
            "t = {:.2} s    step {} / {}",
            sim.time(),
            sim.step,
            c.runner.total_steps()
        ),
        format!(
            "μ = {}    ε_v = {:.0e} m/s    h = {} s",
            c.scene.mu, c.scene.eps_v, c.scene.h
        ),
        match (c.last, row) {
            (Some(s), _) => format!(
                "Newton: {} iter., residual {:.1e} m/s (tol {:.0e})",
                s.iterations,
                s.residual,
                c.runner.tol()
            ),
            _ => "Newton: no step yet".into(),
        },
        match row {
            Some(r) => format!(
                "downhill {:.4} m    speed {:.4} m/s",
                r.downhill_distance, r.downhill_speed
            ),
            None => String::new(),
        },
        format!("verdict: {}", verdict_text(c.verdict())),
        format!("contact nodes: {sticking} sticking, {sliding} sliding"),
        format!(
            "cross-check: {} of {}, ≥ 1 s {}",
            percent(c.agreement.fraction),
            c.agreement.total,
            percent(c.late_agreement.fraction),
        ),
        format!("impulse law on {backend}"),
    ];
    if let Some(e) = &c.error {
        lines.push(format!("stopped by an error: {e}"));
    }
    lines.push(String::new());
    lines.push(status.to_owned());
    hud_lines(rect, &lines, pen);
}
