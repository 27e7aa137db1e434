//! The bounce scene in the viewer: [`BounceView`] steps a [`Bounce`] through the impulse-law
//! backend on the window's clock (`steps_per_second` of its case) and paints the floor and the
//! balls, the HUD and the chart of every ball's height against the bounces.

use std::path::PathBuf;

use macroquad::shapes::{draw_circle, draw_circle_lines};

use super::ViewError;
use super::bounce::{BOUNCE_REL_TOL, Bounce};
use super::chart::{axes, legend};
use super::lamps::LampStrip;
use super::layout::{BALL_RADIUS_M, Rect, ball_centre, bounce_camera};
use super::paint::{Pen, colour, faded, fill, frame, ground, line, world_grid};
use super::panels::hud_lines;
use super::scene_view::{SceneView, ViewState};
use crate::cross_check::impulse_law::ImpulseBackend;
use crate::energy::Vec2;
use crate::graphics;

/// The bounce scene and the backend its contacts go through.
pub(crate) struct BounceView {
    /// The scene.
    pub bounce: Bounce,
    /// Where the impulse law runs.
    pub backend: Box<dyn ImpulseBackend>,
}

impl BounceView {
    fn step(&mut self) -> Result<(), ViewError> {
        self.bounce
            .step(self.backend.as_mut())
            .map_err(|e| ViewError::Window(format!("impulse law failed: {e}")))
    }
}

impl SceneView for BounceView {
    fn case_count(&self) -> usize {
        1
    }

    fn step_once(&mut self) -> Result<(), ViewError> {
        self.step()
    }

    fn advance(&mut self, target: f64, max_steps: usize) -> Result<(), ViewError> {
        let mut n = 0;
        while self.bounce.step as f64 + 1.0 <= target * self.bounce.case.steps_per_second
            && n < max_steps
        {
            self.step()?;
            n += 1;
        }
        Ok(())
    }

    fn time(&self, _selected: usize) -> f64 {
        self.bounce.time()
    }

    fn reset(&mut self) -> Result<(), String> {
        self.bounce = Bounce::new(&self.bounce.case);
        Ok(())
    }

    fn lamps(&self, _selected: usize) -> &LampStrip {
        &self.bounce.lamps
    }

    fn paint_scene(&self, _view: &ViewState, rect: Rect, pen: &Pen) {
        bounce_scene(&self.bounce, rect, pen);
    }

    fn paint_hud(&self, view: &ViewState, rect: Rect, pen: &Pen) {
        bounce_hud(&self.bounce, view.status, &self.backend.name(), rect, pen);
    }

    fn paint_chart(&self, _view: &ViewState, panel: Rect, pen: &Pen) {
        bounce_chart(&self.bounce, panel, pen);
    }

    fn screenshot_name(&self, _selected: usize) -> PathBuf {
        PathBuf::from(format!("stickslip-bounce-step{:05}.png", self.bounce.step))
    }
}

fn bounce_scene(b: &Bounce, rect: Rect, pen: &Pen) {
    let cam = bounce_camera(rect, b.case.drop);
    fill(rect, colour(graphics::SKY));
    world_grid(&cam, pen);
    ground(&cam, &Vec2::new(0.0, 1.0), &Vec2::zeros());
    let ink = colour(graphics::TEXT);
    let (_, drop_y) = cam.to_screen(&Vec2::new(0.0, b.case.drop as f64));
    line(
        (rect.x, drop_y),
        (rect.x + rect.w, drop_y),
        1.0,
        faded(graphics::TEXT, 0.5),
    );
    let drop_label = format!("drop, {} m", b.case.drop);
    pen.text(&drop_label, rect.x + rect.w - 90.0, drop_y - 4.0, 14, ink);
    let r_px = (BALL_RADIUS_M * cam.scale) as f32;
    for (i, &e) in b.case.restitutions.iter().enumerate() {
        let c = graphics::case_colour(i);
        // The top of this flight, dashed.
        let (tx, ty) = ball_centre(&cam, i, b.top[i]);
        let mut x = tx - 2.0 * r_px;
        while x < tx + 2.0 * r_px {
            line((x, ty - r_px), (x + 4.0, ty - r_px), 1.0, faded(c, 0.8));
            x += 8.0;
        }
        let (sx, sy) = ball_centre(&cam, i, b.now[i]);
        draw_circle(sx, sy, r_px, colour(c));
        draw_circle_lines(sx, sy, r_px, 1.5, ink);
        let label = format!("e = {e}");
        let w = pen.width(&label, 16);
        pen.text(&label, sx - 0.5 * w, rect.y + rect.h - 8.0, 16, ink);
    }
    pen.text(
        &format!(
            "three balls dropped from {} m; each bounce through the impulse law",
            b.case.drop
        ),
        rect.x + 10.0,
        rect.y + 20.0,
        17,
        ink,
    );
    frame(rect, ink);
}

/// The chart of every ball's height against the bounces.
fn bounce_chart(b: &Bounce, panel: Rect, pen: &Pen) {
    let map = axes(
        panel,
        (0.0, (b.case.bounces + 1) as f64),
        (0.0, b.case.drop as f64 * 1.08),
        "bounces",
        "height (m)",
        "each ball's height against the bounces: each arch e² as high as the last",
        pen,
    );
    let mut entries = Vec::new();
    for (i, &e) in b.case.restitutions.iter().enumerate() {
        let c = graphics::case_colour(i);
        let mut prev: Option<(f64, f64)> = None;
        for &(x, h) in &b.history {
            let p = (x as f64, h[i] as f64);
            if let Some(q) = prev
                && p.0 >= q.0
            {
                line(
                    map.to_screen(q.0, q.1),
                    map.to_screen(p.0, p.1),
                    2.0,
                    colour(c),
                );
            }
            prev = Some(p);
        }
        // e^(2n) of the drop at each bounce, as dots.
        for n in 0..=b.case.bounces {
            let (sx, sy) = map.to_screen(n as f64 + 0.5, b.closed(e, n));
            draw_circle_lines(sx, sy, 3.0, 1.0, colour(c));
        }
        entries.push((c, format!("e = {e}"), false));
    }
    entries.push((
        graphics::TEXT,
        format!("○ {} m × e^(2n)", b.case.drop),
        false,
    ));
    legend(panel, &entries, pen);
}

fn bounce_hud(b: &Bounce, status: &str, backend: &str, rect: Rect, pen: &Pen) {
    let t = &b.tilted;
    let mid = 1;
    let lines = vec![
        "bounce scene (seed 001)".to_owned(),
        format!(
            "step {}    bounce {}    point {} / {}",
            b.step, b.bounce, b.point, b.case.steps_per_flight
        ),
        format!(
            "e = {}: top {:.6} m, e^(2n) × drop {:.6} m",
            b.case.restitutions[mid],
            b.top[mid],
            b.closed(b.case.restitutions[mid], b.bounce)
        ),
        format!(
            "worst bounce error {:.1e} (tolerance {:.0e})",
            b.worst_bounce_error, BOUNCE_REL_TOL
        ),
        format!("tilted: e = {:.3}, μ = {:.3}", t.restitution, t.friction),
        format!(
            "  normal speed in {:.4}, out {:.4} m/s",
            t.normal_before(),
            t.normal_after()
        ),
        format!(
            "  slide in {:.4}, out {:.4} m/s",
            norm3(t.slide_before_vec()),
            norm3(t.slide_after_vec())
        ),
        format!("impulse law on {backend}"),
        String::new(),
        status.to_owned(),
    ];
    hud_lines(rect, &lines, pen);
}

fn norm3(v: [f32; 3]) -> f32 {
    (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt()
}
