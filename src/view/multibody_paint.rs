//! Paints a 2D scene case into the scene view: the half-spaces (ground, hatching, a belt's moving
//! marks), the polylines, every body (its triangles filled, its edges, its boundary), the
//! drivers (a spring as a zig-zag to its anchor, a prescribed motion's nodes and direction, a
//! force's arrow), the contact pairs coloured by regime, and on key F the contact forces.

use macroquad::math::vec2;
use macroquad::shapes::{draw_circle, draw_rectangle, draw_triangle};

use super::cases_view::{CONTACT_RADIUS, Projection, contact_colour, contact_dots};
use super::layout::{Camera, Rect, slope_segment};
use super::multibody::SceneCase;
use super::multibody_layout::{belt_marks, body_fill, mark_segment, scene_camera, surface_tangent};
use super::paint::{
    Pen, arrow, colour, faded, fill, force_legend, frame, ground, line, world_grid,
};
use crate::contact::HalfSpace;
use crate::energy::Vec2;
use crate::graphics;
use crate::run::multibody::ContactState;
use crate::scene::multibody::{DriverKind, ObstacleShape};

/// Boundary edges of a body, px.
pub const BOUNDARY_THICKNESS: f32 = 2.0;
/// Belt marks, px.
pub const MARK_THICKNESS: f32 = 3.0;
/// The longest contact-force arrow, px (the others in proportion).
pub const LONGEST_ARROW_PX: f64 = 60.0;
/// A force driver's arrow, px (its size is written beside it).
pub const FORCE_ARROW_PX: f32 = 45.0;
/// Spacing of a ground's hatching, px.
const HATCH_EVERY_PX: f32 = 12.0;

/// The flat camera as the scene view's projection: every world point shows somewhere.
impl Projection<2> for Camera {
    fn project(&self, p: &Vec2) -> Option<(f32, f32)> {
        Some(self.to_screen(p))
    }
}

/// The whole scene view of `case`.
pub(super) fn scene(case: &SceneCase, forces: bool, rect: Rect, pen: &Pen) {
    let cam = scene_camera(rect, &case.runner);
    fill(rect, colour(graphics::SKY));
    world_grid(&cam, pen);
    let t = case.time();
    for o in &case.scene.obstacles {
        match &o.shape {
            ObstacleShape::HalfSpace(h) => half_space(&cam, h, t),
            ObstacleShape::Polyline { points, .. } => polyline(&cam, points),
        }
    }
    bodies(case, &cam);
    drivers(case, &cam, pen);
    contact_dots(&case.contact_points(), &cam, rect);
    if forces {
        force_arrows(case, &cam, pen);
    }
    legend(case, rect, pen);
    frame(rect, colour(graphics::TEXT));
}

/// A half-space: the ground under its surface, hatched, and a belt's marks.
fn half_space(cam: &Camera, h: &HalfSpace<2>, t: f64) {
    ground(cam, &h.normal, &h.point);
    let Some([a, b]) = slope_segment(cam, &h.normal, &h.point) else {
        return;
    };
    // Hatching: strokes into the ground at 45° to the surface.
    let (len, dx, dy) = {
        let (dx, dy) = (b.0 - a.0, b.1 - a.1);
        let len = dx.hypot(dy);
        (len, dx / len.max(1e-6), dy / len.max(1e-6))
    };
    let into = (-h.normal.x as f32, h.normal.y as f32);
    let stroke = (0.7 * (into.0 - dx) * 10.0, 0.7 * (into.1 - dy) * 10.0);
    let hatch = faded(graphics::SLOPE, 0.5);
    let mut s = HATCH_EVERY_PX * 0.5;
    while s < len {
        let p = (a.0 + dx * s, a.1 + dy * s);
        line(p, (p.0 + stroke.0, p.1 + stroke.1), 1.0, hatch);
        s += HATCH_EVERY_PX;
    }
    if h.velocity.dot(&surface_tangent(h)) != 0.0 {
        let c = colour(graphics::BELT_MARK);
        for at in belt_marks(cam, h, t) {
            if let Some([p, q]) = mark_segment(cam, h, at) {
                line(p, q, MARK_THICKNESS, c);
            }
        }
    }
}

/// A polyline obstacle: its segments, and a dot at every vertex.
fn polyline(cam: &Camera, points: &[Vec2]) {
    let c = colour(graphics::SLOPE);
    for w in points.windows(2) {
        line(cam.to_screen(&w[0]), cam.to_screen(&w[1]), 3.0, c);
    }
    for p in points {
        let (x, y) = cam.to_screen(p);
        draw_circle(x, y, 3.0, c);
    }
}

/// Every body: its triangles filled in its colour, its edges thin, its boundary thick.
fn bodies(case: &SceneCase, cam: &Camera) {
    let edge = faded(graphics::MESH, 0.35);
    let outline = colour(graphics::MESH);
    for (k, body) in case.scene.bodies.iter().enumerate() {
        let x = case.runner.body(k).of(&case.runner.sim.x);
        let at = |n: usize| {
            let (sx, sy) = cam.to_screen(&x[n]);
            vec2(sx, sy)
        };
        let c = colour(body_fill(k));
        for &[a, b, d] in &body.mesh.triangles {
            draw_triangle(at(a), at(b), at(d), c);
        }
        for &[a, b] in &body.mesh.edges {
            let (p, q) = (at(a), at(b));
            line((p.x, p.y), (q.x, q.y), 1.0, edge);
        }
        for [a, b] in body.mesh.boundary_edges() {
            let (p, q) = (at(a), at(b));
            line((p.x, p.y), (q.x, q.y), BOUNDARY_THICKNESS, outline);
        }
    }
}

/// Every driver: a spring as a zig-zag from its node set's mean to its anchor (a square), a
/// prescribed motion as its nodes boxed and an arrow along its velocity, a force as an arrow
/// from its node set's mean with its size written beside.
fn drivers(case: &SceneCase, cam: &Camera, pen: &Pen) {
    let c = colour(graphics::DRIVER);
    for (d, spec) in case.scene.drivers.iter().enumerate() {
        match spec.kind {
            DriverKind::Spring { .. } => {
                let (mean, anchor) = case.spring_ends(d);
                let (p, q) = (cam.to_screen(&mean), cam.to_screen(&anchor));
                zig_zag(p, q, c);
                draw_rectangle(q.0 - 4.0, q.1 - 4.0, 8.0, 8.0, c);
            }
            DriverKind::Move { velocity } => {
                for p in case.driver_points(d) {
                    let (sx, sy) = cam.to_screen(&p);
                    macroquad::shapes::draw_rectangle_lines(sx - 4.0, sy - 4.0, 8.0, 8.0, 2.0, c);
                }
                if velocity.norm() > 0.0 {
                    let from = cam.to_screen(&case.driver_mean(d));
                    arrow(from, screen_towards(from, &velocity, FORCE_ARROW_PX), c);
                }
            }
            DriverKind::Force { force } => {
                if force.norm() > 0.0 {
                    let from = cam.to_screen(&case.driver_mean(d));
                    let to = screen_towards(from, &force, FORCE_ARROW_PX);
                    arrow(from, to, c);
                    let label = format!("{:.3} N", force.norm());
                    pen.text(&label, to.0 + 4.0, to.1 - 4.0, 14, c);
                }
            }
        }
    }
}

/// The screen point `len` px from `from` along world direction `dir`.
fn screen_towards(from: (f32, f32), dir: &Vec2, len: f32) -> (f32, f32) {
    let u = dir.normalize();
    (from.0 + u.x as f32 * len, from.1 - u.y as f32 * len)
}

/// A spring's zig-zag from `p` to `q`: straight ends, ten teeth between.
fn zig_zag(p: (f32, f32), q: (f32, f32), c: macroquad::color::Color) {
    let (dx, dy) = (q.0 - p.0, q.1 - p.1);
    let len = dx.hypot(dy);
    if len < 12.0 {
        line(p, q, 2.0, c);
        return;
    }
    let (ux, uy) = (dx / len, dy / len);
    let (nx, ny) = (-uy, ux);
    let at = |f: f32, side: f32| {
        (
            p.0 + ux * len * f + nx * side,
            p.1 + uy * len * f + ny * side,
        )
    };
    let teeth = 10;
    let (start, end) = (0.15, 0.85);
    let mut prev = at(start, 0.0);
    line(p, prev, 2.0, c);
    for k in 1..=teeth {
        let f = start + (end - start) * k as f32 / teeth as f32;
        let side = if k == teeth {
            0.0
        } else if k % 2 == 1 {
            5.0
        } else {
            -5.0
        };
        let next = at(f, side);
        line(prev, next, 1.5, c);
        prev = next;
    }
    line(prev, q, 2.0, c);
}

/// The barrier and friction force on every body node, scaled so that the longest is
/// [`LONGEST_ARROW_PX`], with the scale written in the view.
fn force_arrows(case: &SceneCase, cam: &Camera, pen: &Pen) {
    // The bodies' nodes only: a polyline's fixed nodes carry the reactions of whole piles.
    let all = case.node_forces();
    let x = &case.runner.sim.x;
    let forces: Vec<(Vec2, (Vec2, Vec2))> = case
        .runner
        .layout
        .bodies
        .iter()
        .flat_map(|r| r.clone().map(|i| (x[i], all[i])))
        .collect();
    let largest = forces
        .iter()
        .map(|(_, (b, f))| b.norm().max(f.norm()))
        .fold(0.0f64, f64::max);
    let rect = cam.rect;
    let y = rect.y + 40.0;
    if largest <= 0.0 {
        pen.text(
            "arrows: no contact force",
            rect.x + 10.0,
            y,
            15,
            colour(graphics::TEXT),
        );
        return;
    }
    let px_per_n = LONGEST_ARROW_PX / largest;
    for (p, (b, f)) in &forces {
        let from = cam.to_screen(p);
        for (v, c) in [(b, graphics::BARRIER_ARROW), (f, graphics::FRICTION_ARROW)] {
            if v.norm() > 0.0 {
                let to = (
                    from.0 + (v.x * px_per_n) as f32,
                    from.1 - (v.y * px_per_n) as f32,
                );
                arrow(from, to, colour(c));
            }
        }
    }
    let text = format!(
        "arrows: barrier, friction; {:.0} px = {:.4} N",
        LONGEST_ARROW_PX, largest
    );
    force_legend(rect, &text, pen);
}

/// The case's name and the contact colours, top left.
fn legend(case: &SceneCase, rect: Rect, pen: &Pen) {
    let ink = colour(graphics::TEXT);
    let mut x = rect.x + 10.0;
    let y = rect.y + 20.0;
    x += pen.text(&case.scene.name, x, y, 18, ink) + 18.0;
    for s in [
        ContactState::Stick,
        ContactState::Transition,
        ContactState::Slide,
    ] {
        draw_circle(x + 5.0, y - 5.0, CONTACT_RADIUS, colour(contact_colour(s)));
        x += 14.0 + pen.text(s.name(), x + 14.0, y, 15, ink) + 14.0;
    }
}
