//! A 3D scene case (`kind = "scene"`, `dimension = 3`, SPEC.md §7) in the one scene view
//! ([`CasesView`](super::cases_view::CasesView)): its picture through macroquad's perspective
//! camera inside the scene view (`solid_layout` places it): every body's outward boundary
//! triangles in its fill colour, shaded by its faces' normals; every half-space as a gridded
//! patch around the bodies; every triangle mesh's triangles; the contact pairs as dots in their
//! regime's colour, the drivers and, on key F, the contact forces over it. Its HUD's lines give
//! every body's centroid speed, angular speed and tilt, and the camera's turn; its chart every
//! body's centroid speed against time.

use std::path::Path;

use macroquad::camera::{Camera3D, Projection as GlProjection, set_camera, set_default_camera};
use macroquad::math::vec2;
use macroquad::models::{Mesh, Vertex, draw_line_3d, draw_mesh};
use macroquad::shapes::draw_rectangle;
use macroquad::window::screen_height;

use super::cases_view::{CaseChart, HUD_BODIES, Projection, Series, ViewedRun, contact_dots};
use super::layout::Rect;
use super::multibody_layout::body_fill;
use super::paint::{Pen, arrow, colour, fill, force_legend, frame, line};
use super::scene_case::ContactCounts;
use super::scene_view::ViewState;
use super::solid::{FORCE_ARROW_OF_RADIUS, SolidCase};
use super::solid_layout::{
    FOVY_RAD, MESH_FILL, Orbit, Patch, SolidCamera, gl, half_space_patch, shade, viewport,
};
use crate::energy::Vec3;
use crate::graphics::{self, Rgb};
use crate::run::multibody::solid::SolidRunner;
use crate::scene::multibody::solid::SolidScene;

/// Triangles per draw call: macroquad clamps a draw call's geometry (3 vertices and 3 indices
/// a triangle, under its 5000 indices).
pub const TRIANGLES_PER_DRAW: usize = 1500;
/// A prescribed motion's or a force's arrow is this share of the framed radius long.
const DRIVER_ARROW_OF_RADIUS: f64 = 0.3;

/// A half-space's grid lines are lifted off its patch by this share of the framed radius, so
/// that the depth test shows them.
pub const GRID_LIFT: f64 = 2e-3;

/// The perspective camera on the scene view `rect` as its projection.
struct Perspective<'a> {
    cam: &'a SolidCamera,
    rect: Rect,
}

impl Projection<3> for Perspective<'_> {
    fn project(&self, p: &Vec3) -> Option<(f32, f32)> {
        self.cam.to_screen(self.rect, p)
    }
}

impl ViewedRun for SolidRunner {
    const NAME_SUFFIX: &'static str = " (3D)";

    fn source(scene: &SolidScene) -> Option<&Path> {
        scene.source.as_deref()
    }

    fn tol(scene: &SolidScene) -> f64 {
        scene.settings.tol
    }

    fn newton(&self) -> (usize, f64) {
        self.rows
            .last()
            .map_or((0, 0.0), |r| (r.newton_iterations, r.final_residual))
    }

    fn contact_counts(case: &SolidCase) -> ContactCounts {
        case.contact_counts()
    }

    /// Every body's centroid speed (m/s), angular speed (rad/s) and tilt, its slip and
    /// smallest distance (m).
    fn hud_body_lines(case: &SolidCase) -> Vec<String> {
        let sc = &case.scene;
        let Some(row) = case.runner.rows.last() else {
            return Vec::new();
        };
        let mut lines = Vec::new();
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
        lines
    }

    fn camera_line(orbit: Orbit) -> Option<String> {
        Some(camera_line(orbit))
    }

    fn paint(case: &SolidCase, view: &ViewState, rect: Rect, pen: &Pen) {
        scene(case, view.forces, view.orbit, rect, pen);
    }

    /// Every body's centroid speed against time, m/s (the runner's rows).
    fn chart(case: &SolidCase) -> CaseChart {
        let rows = &case.runner.rows;
        let hi = rows
            .iter()
            .flat_map(|r| r.bodies.iter().map(|b| b.velocity.norm()))
            .fold(0.0f64, f64::max);
        let hi = if hi > 0.0 { hi } else { 1.0 };
        let series = case
            .scene
            .bodies
            .iter()
            .enumerate()
            .map(|(k, b)| Series {
                colour: graphics::case_colour(k),
                label: format!("{} |v|", b.name),
                points: rows
                    .iter()
                    .map(|r| (r.t, r.bodies[k].velocity.norm()))
                    .collect(),
            })
            .collect();
        CaseChart {
            y: (0.0, 1.08 * hi),
            y_label: "speed (m/s)",
            title: "every body's centroid speed against time",
            series,
            levels: Vec::new(),
        }
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
        projection: GlProjection::Perspective,
        render_target: None,
        viewport: Some(viewport(rect, screen_height())),
        z_near,
        z_far,
    });
    let mut spacing = None;
    for (_, h) in &case.scene.obstacles.half_spaces {
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
    let surface = &case.own.surface;
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
    contact_dots(
        &case.contact_points(),
        &Perspective { cam: &cam, rect },
        rect,
    );
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
