//! Where a scene case's pieces go on the screen: the camera that frames its bodies, anchors and
//! polylines, the marks a belt carries, the colour each body is filled with. Pure functions of
//! the state, with no window behind them, so that the tests can say where a frame must show
//! what.

use crate::contact::HalfSpace;
use crate::energy::Vec2;
use crate::graphics::{self, Rgb};
use crate::run::multibody::SceneRunner;
use crate::scene::multibody::{DriverKind, ObstacleShape};

use super::layout::{Camera, Rect, clip_segment, nice_step};

/// Share of the framed box left free on every side.
pub const MARGIN: f64 = 0.15;
/// Smallest world width and height the camera frames, m (a point-like scene still shows some
/// room).
pub const MIN_SPAN_M: f64 = 0.05;
/// Belt marks: about this many across the scene view.
pub const MARKS_ACROSS: f64 = 10.0;
/// Depth of a belt mark into the ground, px.
pub const MARK_DEPTH_PX: f32 = 14.0;

/// The box of everything the camera frames at the runner's current state, (min, max), m: every
/// body's nodes, every spring's two ends, every polyline's points, and the foot on every
/// half-space of the bodies' box centre.
pub fn framed_box(runner: &SceneRunner) -> (Vec2, Vec2) {
    let sim = &runner.sim;
    let scene = &runner.scene;
    let t = sim.time();
    let mut points: Vec<Vec2> = (0..scene.bodies.len())
        .flat_map(|k| runner.body(k).of(&sim.x).iter().copied())
        .collect();
    for d in &scene.drivers {
        if let DriverKind::Spring {
            anchor,
            anchor_velocity,
            ..
        } = d.kind
        {
            points.push(anchor + anchor_velocity * t);
        }
    }
    for o in &scene.obstacles {
        if let ObstacleShape::Polyline { points: p, .. } = &o.shape {
            points.extend(p.iter().copied());
        }
    }
    let bounds = |points: &[Vec2]| {
        points.iter().fold(
            (Vec2::repeat(f64::INFINITY), Vec2::repeat(f64::NEG_INFINITY)),
            |(lo, hi), p| (lo.inf(p), hi.sup(p)),
        )
    };
    let (lo, hi) = bounds(&points);
    let centre = if lo.x.is_finite() {
        (lo + hi) * 0.5
    } else {
        Vec2::zeros()
    };
    for h in scene.obstacles.iter().filter_map(|o| o.half_space()) {
        points.push(centre - h.normal * h.distance(&centre));
    }
    if points.is_empty() {
        return (Vec2::zeros(), Vec2::zeros());
    }
    bounds(&points)
}

/// The camera of a scene case in `rect`: [`framed_box`] centred, grown by [`MARGIN`] on every
/// side (at least [`MIN_SPAN_M`]), at the uniform scale that fits it.
pub fn scene_camera(rect: Rect, runner: &SceneRunner) -> Camera {
    let (lo, hi) = framed_box(runner);
    let span = (hi - lo).map(|s| s.max(MIN_SPAN_M)) * (1.0 + 2.0 * MARGIN);
    let scale = (rect.w as f64 / span.x).min(rect.h as f64 / span.y);
    Camera {
        rect,
        centre: (lo + hi) * 0.5,
        scale,
    }
}

/// The tangent of a half-space's surface: its normal turned clockwise (along the ground for an
/// upward normal).
pub fn surface_tangent(h: &HalfSpace<2>) -> Vec2 {
    Vec2::new(h.normal.y, -h.normal.x)
}

/// World spacing of a belt's marks in `cam`, m: a round step, about [`MARKS_ACROSS`] across.
pub fn mark_spacing(cam: &Camera) -> f64 {
    nice_step(cam.rect.w as f64 / cam.scale, MARKS_ACROSS)
}

/// The marks a belt carries at `time` s, as the screen points where they meet its surface:
/// every [`mark_spacing`] along the surface from its `point`, moved by its surface velocity ×
/// `time`, those inside the view. (A half-space with no surface velocity carries marks that
/// never move; the viewer draws them for belts only.)
pub fn belt_marks(cam: &Camera, h: &HalfSpace<2>, time: f64) -> Vec<(f32, f32)> {
    let tangent = surface_tangent(h);
    let spacing = mark_spacing(cam);
    let shift = h.velocity.dot(&tangent) * time;
    // The surface's stretch inside the view, as arc lengths from `point`.
    let foot = cam.centre - h.normal * h.distance(&cam.centre);
    let reach = (cam.rect.w as f64).hypot(cam.rect.h as f64) / cam.scale;
    let s_mid = (foot - h.point).dot(&tangent);
    let first = ((s_mid - reach - shift) / spacing).floor() as i64;
    let last = ((s_mid + reach - shift) / spacing).ceil() as i64;
    (first..=last)
        .map(|k| cam.to_screen(&(h.point + tangent * (k as f64 * spacing + shift))))
        .filter(|&(x, y)| cam.rect.contains(x, y))
        .collect()
}

/// The screen segment of a belt mark that meets the surface at `at`: into the ground, along
/// −normal, [`MARK_DEPTH_PX`] long, clipped to the view.
pub fn mark_segment(cam: &Camera, h: &HalfSpace<2>, at: (f32, f32)) -> Option<[(f32, f32); 2]> {
    let (dx, dy) = (-h.normal.x as f32, h.normal.y as f32);
    let end = (at.0 + dx * MARK_DEPTH_PX, at.1 + dy * MARK_DEPTH_PX);
    clip_segment(cam.rect, at, end)
}

/// The fill of body `k`: its case colour mixed half-way to white (opaque, so that a screenshot
/// shows exactly it).
pub fn body_fill(k: usize) -> Rgb {
    let c = graphics::case_colour(k);
    c.map(|v| ((v as u16 + 255) / 2) as u8)
}
