//! 3D scene cases (`kind = "scene"`, `dimension = 3`, SPEC.md §7) in the viewer: [`SolidView`]
//! steps a [`SolidCase`] each (keys 1–9 choose the one shown) and paints it through macroquad's
//! perspective camera inside the scene view (`solid_layout` places it): every body's outward
//! boundary triangles in its fill colour, shaded by its faces' normals; every half-space as a
//! gridded patch around the bodies; every triangle mesh's triangles; the contact pairs as dots in
//! their regime's colour. Its HUD gives time, step, Newton's iterations and every body's centroid
//! speed, angular speed and tilt; its chart every body's centroid speed against time.

use std::path::PathBuf;

use macroquad::camera::{Camera3D, Projection, set_camera, set_default_camera};
use macroquad::math::vec2;
use macroquad::models::{Mesh, Vertex, draw_line_3d, draw_mesh};
use macroquad::shapes::{draw_circle, draw_rectangle};
use macroquad::window::screen_height;

use super::ViewError;
use super::chart::{axes, legend, polyline};
use super::lamps::LampStrip;
use super::layout::Rect;
use super::multibody_layout::body_fill;
use super::multibody_paint::{CONTACT_RADIUS, contact_colour};
use super::paint::{Pen, arrow, colour, faded, fill, force_legend, frame, line};
use super::panels::hud_lines;
use super::scene_view::{SceneView, SteppedCase, ViewState, advance_cases, reset_cases};
use super::solid::{FORCE_ARROW_OF_RADIUS, SolidCase};
use super::solid_layout::{
    FOVY_RAD, MESH_FILL, Orbit, Patch, SolidCamera, gl, half_space_patch, shade, viewport,
};
use crate::energy::Vec3;
use crate::graphics::{self, Rgb};

/// Bodies the HUD lists by name (the rest are counted).
pub const HUD_BODIES: usize = 3;
/// Triangles per draw call: macroquad clamps a draw call's geometry (3 vertices and 3 indices
/// a triangle, under its 5000 indices).
pub const TRIANGLES_PER_DRAW: usize = 1500;
/// A prescribed motion's or a force's arrow is this share of the framed radius long.
const DRIVER_ARROW_OF_RADIUS: f64 = 0.3;

/// A half-space's grid lines are lifted off its patch by this share of the framed radius, so
/// that the depth test shows them.
pub const GRID_LIFT: f64 = 2e-3;

/// The 3D scene cases loaded.
pub(crate) struct SolidView {
    /// The cases, keys 1–9.
    pub cases: Vec<SolidCase>,
}

impl SteppedCase for SolidCase {
    fn step(&mut self) {
        SolidCase::step(self);
    }

    fn can_step(&self) -> bool {
        SolidCase::can_step(self)
    }

    fn time(&self) -> f64 {
        SolidCase::time(self)
    }

    fn h(&self) -> f64 {
        self.scene.settings.h
    }

    fn reset(&mut self) -> Result<(), String> {
        SolidCase::reset(self).map_err(|e| e.to_string())
    }
}

impl SceneView for SolidView {
    fn case_count(&self) -> usize {
        self.cases.len()
    }

    fn step_once(&mut self) -> Result<(), ViewError> {
        self.cases.iter_mut().for_each(SolidCase::step);
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
        scene(
            &self.cases[view.selected],
            view.forces,
            view.orbit,
            rect,
            pen,
        );
    }

    fn paint_hud(&self, view: &ViewState, rect: Rect, pen: &Pen) {
        hud(&self.cases, view, rect, pen);
    }

    fn paint_chart(&self, view: &ViewState, panel: Rect, pen: &Pen) {
        chart(&self.cases[view.selected], panel, pen);
    }

    fn screenshot_name(&self, selected: usize) -> PathBuf {
        let case = &self.cases[selected];
        super::multibody_view::screenshot_file(case.scene.source.as_deref(), case.runner.sim.step)
    }
}

/// Draws `triangles` (world corners, m, counter-clockwise seen from outside) filled with `fill`
/// shaded by each one's normal ([`shade`]), [`TRIANGLES_PER_DRAW`] a draw call.
fn draw_triangles(triangles: &[[Vec3; 3]], fill: Rgb) {
    for chunk in triangles.chunks(TRIANGLES_PER_DRAW) {
        let mut vertices = Vec::with_capacity(3 * chunk.len());
        for t in chunk {
            let n = (t[1] - t[0]).cross(&(t[2] - t[0]));
            let c = colour(shade(fill, &n.try_normalize(0.0).unwrap_or_else(Vec3::z)));
            vertices.extend(t.iter().map(|p| Vertex::new2(gl(p), vec2(0.0, 0.0), c)));
        }
        let indices = (0..vertices.len() as u16).collect();
        draw_mesh(&Mesh {
            vertices,
            indices,
            texture: None,
        });
    }
}

/// The whole scene view of `case`: the 3D part through a `Camera3D` on `rect`'s viewport, then
/// the contact dots and the grid's scale in 2D over it.
fn scene(case: &SolidCase, forces: bool, orbit: Orbit, rect: Rect, pen: &Pen) {
    fill(rect, colour(graphics::SKY));
    let cam = case.camera_from(orbit);
    let (z_near, z_far) = cam.planes();
    set_camera(&Camera3D {
        position: gl(&cam.position),
        target: gl(&cam.target),
        up: gl(&cam.up),
        fovy: FOVY_RAD,
        aspect: Some(rect.w / rect.h.max(1.0)),
        projection: Projection::Perspective,
        render_target: None,
        viewport: Some(viewport(rect, screen_height())),
        z_near,
        z_far,
    });
    let mut spacing = None;
    for (_, h) in &case.scene.obstacles {
        let Patch {
            corners,
            lines,
            spacing: every,
        } = half_space_patch(&cam, h);
        draw_triangles(
            &[
                [corners[0], corners[1], corners[2]],
                [corners[0], corners[2], corners[3]],
            ],
            graphics::GROUND,
        );
        let lift = h.normal * (GRID_LIFT * cam.radius);
        for [a, b] in &lines {
            draw_line_3d(gl(&(a + lift)), gl(&(b + lift)), colour(graphics::SLOPE));
        }
        spacing = spacing.or(Some(every));
    }
    let x = case.runner.mesh_positions();
    let surface = &case.surface;
    let first_mesh = case.scene.first_mesh();
    for m in (0..case.scene.bodies.len()).chain(first_mesh..case.scene.members()) {
        let tris: Vec<[Vec3; 3]> = surface
            .triangles
            .iter()
            .zip(&surface.triangle_body)
            .filter(|(_, b)| **b == m)
            .map(|(t, _)| t.map(|i| x[i]))
            .collect();
        let fill = if m < first_mesh {
            body_fill(m)
        } else {
            MESH_FILL
        };
        draw_triangles(&tris, fill);
    }
    set_default_camera();
    contact_dots(case, &cam, rect);
    if forces {
        force_arrows(case, &cam, rect, pen);
    }
    drivers(case, &cam, rect, pen);
    if let Some(s) = spacing {
        pen.text(
            &format!("grid {s} m"),
            rect.x + 8.0,
            rect.y + rect.h - 8.0,
            16,
            colour(graphics::TEXT),
        );
    }
    frame(rect, colour(graphics::TEXT));
}

/// Every driver over the 3D picture (as the 2D view draws them): a spring as a line from its
/// node set's mean to its anchor (a square), a prescribed motion or a force as an arrow from the
/// mean, a force's size written at its tip.
fn drivers(case: &SolidCase, cam: &SolidCamera, rect: Rect, pen: &Pen) {
    let c = colour(graphics::DRIVER);
    for m in case.driver_marks(DRIVER_ARROW_OF_RADIUS * cam.radius) {
        let (Some(p), Some(q)) = (cam.to_screen(rect, &m.from), cam.to_screen(rect, &m.to)) else {
            continue;
        };
        if m.spring {
            line(p, q, 2.0, c);
            draw_rectangle(q.0 - 4.0, q.1 - 4.0, 8.0, 8.0, c);
        } else {
            arrow(p, q, c);
        }
        if let Some(label) = &m.label {
            pen.text(label, q.0 + 4.0, q.1 - 4.0, 14, c);
        }
    }
}

/// On `--forces` (key F) the barrier and friction force on every body node as arrows over
/// the 3D picture, the longest [`FORCE_ARROW_OF_RADIUS`] of the camera's radius long (its
/// length on the screen then depends on its depth), with the longest force written.
fn force_arrows(case: &SolidCase, cam: &SolidCamera, rect: Rect, pen: &Pen) {
    let (marks, largest) = case.force_marks(FORCE_ARROW_OF_RADIUS * cam.radius);
    let y = rect.y + 40.0;
    let ink = colour(graphics::TEXT);
    if marks.is_empty() {
        pen.text("arrows: no contact force", rect.x + 10.0, y, 15, ink);
        return;
    }
    for m in &marks {
        if let (Some(p), Some(q)) = (cam.to_screen(rect, &m.from), cam.to_screen(rect, &m.to)) {
            let c = if m.friction {
                graphics::FRICTION_ARROW
            } else {
                graphics::BARRIER_ARROW
            };
            arrow(p, q, colour(c));
        }
    }
    let text = format!(
        "arrows: barrier, friction; the longest {:.4} N, {FORCE_ARROW_OF_RADIUS} of the view's radius",
        largest
    );
    force_legend(rect, &text, pen);
}

/// The contact pairs as dots in their regime's colour, over the 3D picture (seen through the
/// bodies: most of them are under one).
fn contact_dots(case: &SolidCase, cam: &SolidCamera, rect: Rect) {
    for (p, s) in case.contact_points() {
        if let Some((x, y)) = cam.to_screen(rect, &p)
            && rect.contains(x, y)
        {
            draw_circle(x, y, CONTACT_RADIUS, colour(contact_colour(s)));
        }
    }
}

fn hud(cases: &[SolidCase], view: &ViewState, rect: Rect, pen: &Pen) {
    let (sel, status) = (view.selected, view.status);
    let c = &cases[sel];
    let sc = &c.scene;
    let runner = &c.runner;
    let row = runner.rows.last().expect("a runner has the row of t = 0");
    let mut lines = vec![
        format!("case {}/{}: {} (3D)", sel + 1, cases.len(), sc.name),
        super::multibody_view::time_line(
            c.time(),
            runner.sim.step,
            runner.total_steps(),
            sc.settings.h,
        ),
        super::multibody_view::newton_line(
            runner.sim.step,
            row.newton_iterations,
            row.final_residual,
            sc.settings.tol,
        ),
    ];
    for (b, s) in sc.bodies.iter().zip(&row.bodies).take(HUD_BODIES) {
        lines.push(format!(
            "{}: speed {:.4} m/s, |ω| {:.3} rad/s, tilt {:.1}°",
            b.name,
            s.velocity.norm(),
            s.angular_velocity.norm(),
            s.tilt.to_degrees()
        ));
        let contact = if s.min_distance >= sc.settings.barrier.dhat {
            "no contact".to_owned()
        } else {
            format!("slip {:.2e} m/s", s.slip)
        };
        lines.push(format!(
            "    {contact}, min distance {:.2e} m",
            s.min_distance
        ));
    }
    if sc.bodies.len() > HUD_BODIES {
        lines.push(format!(
            "… and {} more bodies",
            sc.bodies.len() - HUD_BODIES
        ));
    }
    let n = c.contact_counts();
    lines.push(format!(
        "contacts: {} stick, {} transition, {} slide",
        n.stick, n.transition, n.slide
    ));
    lines.push(camera_line(view.orbit));
    if let Some(e) = &c.error {
        lines.push(format!("stopped by an error: {e}"));
    } else if runner.done() {
        lines.push("the run is over (R starts it again)".to_owned());
    }
    lines.push(String::new());
    lines.push(status.to_owned());
    hud_lines(rect, &lines, pen);
}

/// The HUD's line of the camera keys' turn ([`Orbit`]).
fn camera_line(o: Orbit) -> String {
    if o == Orbit::default() {
        return "camera: default view (A/D turn, W/X raise, I/O zoom, C back)".to_owned();
    }
    format!(
        "camera: turned {:+.0}°, raised {:+.0}°, distance ×{:.2} (C back)",
        o.yaw_deg,
        o.pitch_deg,
        o.zoom()
    )
}

/// The chart of every body's centroid speed against time, m/s (the runner's rows).
fn chart(c: &SolidCase, panel: Rect, pen: &Pen) {
    let t_end = (c.runner.total_steps() as f64 * c.scene.settings.h).max(c.scene.settings.h);
    let hi = c
        .runner
        .rows
        .iter()
        .flat_map(|r| r.bodies.iter().map(|b| b.velocity.norm()))
        .fold(0.0f64, f64::max);
    let hi = if hi > 0.0 { hi } else { 1.0 };
    let map = axes(
        panel,
        (0.0, t_end),
        (0.0, 1.08 * hi),
        "t (s)",
        "speed (m/s)",
        "every body's centroid speed against time",
        pen,
    );
    let mut entries = Vec::new();
    for (k, b) in c.scene.bodies.iter().enumerate() {
        let col = graphics::case_colour(k);
        polyline(
            &map,
            c.runner
                .rows
                .iter()
                .map(|r| (r.t, r.bodies[k].velocity.norm())),
            2.0,
            colour(col),
        );
        entries.push((col, format!("{} |v|", b.name), false));
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
