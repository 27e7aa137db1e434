//! Where things go on the screen: the window's panels, the world→screen transform of the scene
//! view and the chart (the colours are [`crate::graphics`]'s). Pure functions of the window size and the simulation
//! state, with no window behind them, so the tests can say where a frame must show the slope and
//! the mesh.

use crate::energy::Vec2;

/// Default window width, px.
pub const WINDOW_WIDTH: u32 = 1200;
/// Default window height, px.
pub const WINDOW_HEIGHT: u32 = 800;

/// A screen rectangle, px, y down.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    /// Left edge, px.
    pub x: f32,
    /// Top edge, px.
    pub y: f32,
    /// Width, px.
    pub w: f32,
    /// Height, px.
    pub h: f32,
}

impl Rect {
    /// Whether (x, y) lies inside.
    pub fn contains(&self, x: f32, y: f32) -> bool {
        x >= self.x && x <= self.x + self.w && y >= self.y && y <= self.y + self.h
    }
    /// The rectangle shrunk by `m` px on every side.
    pub fn inset(&self, m: f32) -> Rect {
        Rect {
            x: self.x + m,
            y: self.y + m,
            w: (self.w - 2.0 * m).max(0.0),
            h: (self.h - 2.0 * m).max(0.0),
        }
    }
}

/// The panels of the window.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Layout {
    /// The scene view (slope, mesh, forces).
    pub scene: Rect,
    /// The heads-up panel (numbers) right of the scene.
    pub hud: Rect,
    /// The strip of lamps, under the heads-up panel.
    pub lamps: Rect,
    /// The chart under the scene.
    pub chart: Rect,
    /// The help line at the bottom.
    pub help: Rect,
}

/// Height of the help line, px.
const HELP_H: f32 = 24.0;
/// Gap between panels, px.
const GAP: f32 = 8.0;

/// The panels for a window of `width` × `height` px: the scene view top left (two thirds of the
/// width, 62 % of the height), the heads-up panel and the lamps right of it, the chart across the
/// bottom, the help line under it.
pub fn layout(width: f32, height: f32) -> Layout {
    let usable_h = (height - HELP_H - 3.0 * GAP).max(1.0);
    let top_h = (usable_h * 0.62).round();
    let scene_w = ((width - 3.0 * GAP) * 0.64).round();
    let side_w = (width - 3.0 * GAP - scene_w).max(1.0);
    let scene = Rect {
        x: GAP,
        y: GAP,
        w: scene_w,
        h: top_h,
    };
    let lamps_h = (top_h * 0.30).round();
    let hud = Rect {
        x: 2.0 * GAP + scene_w,
        y: GAP,
        w: side_w,
        h: top_h - lamps_h - GAP,
    };
    let lamps = Rect {
        x: hud.x,
        y: GAP + hud.h + GAP,
        w: side_w,
        h: lamps_h,
    };
    let chart = Rect {
        x: GAP,
        y: 2.0 * GAP + top_h,
        w: width - 2.0 * GAP,
        h: (usable_h - top_h).max(1.0),
    };
    let help = Rect {
        x: GAP,
        y: height - HELP_H,
        w: width - 2.0 * GAP,
        h: HELP_H,
    };
    Layout {
        scene,
        hud,
        lamps,
        chart,
        help,
    }
}

/// The world→screen map of the scene view: a uniform scale (px/m) about a world centre, y up in
/// the world and down on the screen.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    /// The screen rectangle it draws into.
    pub rect: Rect,
    /// The world point at the centre of `rect`, m.
    pub centre: Vec2,
    /// px per m.
    pub scale: f64,
}

impl Camera {
    /// Screen point (px) of a world point (m).
    pub fn to_screen(&self, p: &Vec2) -> (f32, f32) {
        let cx = self.rect.x as f64 + 0.5 * self.rect.w as f64;
        let cy = self.rect.y as f64 + 0.5 * self.rect.h as f64;
        (
            (cx + (p.x - self.centre.x) * self.scale) as f32,
            (cy - (p.y - self.centre.y) * self.scale) as f32,
        )
    }

    /// World point (m) of a screen point (px).
    pub fn to_world(&self, x: f32, y: f32) -> Vec2 {
        let cx = self.rect.x as f64 + 0.5 * self.rect.w as f64;
        let cy = self.rect.y as f64 + 0.5 * self.rect.h as f64;
        Vec2::new(
            self.centre.x + (x as f64 - cx) / self.scale,
            self.centre.y - (y as f64 - cy) / self.scale,
        )
    }
}

/// World height the scene view shows, in units of the square's side.
pub const VIEW_HEIGHT_SIDES: f64 = 2.2;
/// Height of the view's centre above the slope, in units of the square's side.
pub const VIEW_CENTRE_ABOVE_SLOPE_SIDES: f64 = 0.75;

/// The camera of the slope scene: it follows the centroid `c` along the slope (the centre sits
/// [`VIEW_CENTRE_ABOVE_SLOPE_SIDES`] sides above the slope point under `c`), at a fixed scale
/// that shows [`VIEW_HEIGHT_SIDES`] sides of height. `normal` is the slope's unit normal and
/// `point` a point on it, m.
pub fn slope_camera(rect: Rect, side: f64, normal: &Vec2, point: &Vec2, c: &Vec2) -> Camera {
    let foot = c - normal * normal.dot(&(c - point));
    Camera {
        rect,
        centre: foot + Vec2::new(0.0, VIEW_CENTRE_ABOVE_SLOPE_SIDES * side),
        scale: rect.h as f64 / (VIEW_HEIGHT_SIDES * side),
    }
}

/// The slope line (n·(x − o) = 0) clipped to the camera's rectangle, as two screen points; `None`
/// when it misses the rectangle.
pub fn slope_segment(cam: &Camera, normal: &Vec2, point: &Vec2) -> Option<[(f32, f32); 2]> {
    let tangent = Vec2::new(normal.y, -normal.x);
    let diag = (cam.rect.w as f64).hypot(cam.rect.h as f64) / cam.scale;
    let foot = cam.centre - normal * normal.dot(&(cam.centre - point));
    let a = cam.to_screen(&(foot - tangent * diag));
    let b = cam.to_screen(&(foot + tangent * diag));
    clip_segment(cam.rect, a, b)
}

/// Liang–Barsky: the part of the segment a–b inside `r`.
pub fn clip_segment(r: Rect, a: (f32, f32), b: (f32, f32)) -> Option<[(f32, f32); 2]> {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let mut t0 = 0.0f32;
    let mut t1 = 1.0f32;
    for (p, q) in [
        (-dx, a.0 - r.x),
        (dx, r.x + r.w - a.0),
        (-dy, a.1 - r.y),
        (dy, r.y + r.h - a.1),
    ] {
        if p == 0.0 {
            if q < 0.0 {
                return None;
            }
        } else {
            let t = q / p;
            if p < 0.0 {
                t0 = t0.max(t);
            } else {
                t1 = t1.min(t);
            }
        }
    }
    (t0 <= t1).then_some([
        (a.0 + t0 * dx, a.1 + t0 * dy),
        (a.0 + t1 * dx, a.1 + t1 * dy),
    ])
}

/// Margins of a chart's plotting area inside its panel, px: left, top, right, bottom (room for
/// the axis labels and the legend).
pub const CHART_MARGINS: [f32; 4] = [64.0, 26.0, 150.0, 30.0];

/// The plotting area of a chart panel.
pub fn chart_area(panel: Rect) -> Rect {
    let [l, t, r, b] = CHART_MARGINS;
    Rect {
        x: panel.x + l,
        y: panel.y + t,
        w: (panel.w - l - r).max(1.0),
        h: (panel.h - t - b).max(1.0),
    }
}

/// A chart's map from data (x, y) to the screen, over [x0, x1] × [y0, y1].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChartMap {
    /// The plotting area.
    pub area: Rect,
    /// Data x at the left edge.
    pub x0: f64,
    /// Data x at the right edge.
    pub x1: f64,
    /// Data y at the bottom edge.
    pub y0: f64,
    /// Data y at the top edge.
    pub y1: f64,
}

impl ChartMap {
    /// Screen point of a data point.
    pub fn to_screen(&self, x: f64, y: f64) -> (f32, f32) {
        let fx = (x - self.x0) / (self.x1 - self.x0).max(f64::MIN_POSITIVE);
        let fy = (y - self.y0) / (self.y1 - self.y0).max(f64::MIN_POSITIVE);
        (
            self.area.x + (fx * self.area.w as f64) as f32,
            self.area.y + self.area.h - (fy * self.area.h as f64) as f32,
        )
    }
}

/// A "nice" tick step (1, 2 or 5 × 10ᵏ) giving about `target` ticks over `span`.
pub fn nice_step(span: f64, target: f64) -> f64 {
    if !(span.is_finite() && span > 0.0) {
        return 1.0;
    }
    let raw = span / target.max(1.0);
    let mag = 10f64.powf(raw.log10().floor());
    let f = raw / mag;
    let nice = if f < 1.5 {
        1.0
    } else if f < 3.5 {
        2.0
    } else if f < 7.5 {
        5.0
    } else {
        10.0
    };
    nice * mag
}

/// Ball radius in the bounce scene, m.
pub const BALL_RADIUS_M: f64 = 0.08;
/// World x of the three balls of the bounce scene, m.
pub const BALL_X_M: [f64; 3] = [-0.9, 0.0, 0.9];

/// The bounce scene's camera: the floor (z = 0) near the bottom, the drop height `drop` (m) near
/// the top.
pub fn bounce_camera(rect: Rect, drop: f32) -> Camera {
    let height_m = drop as f64 * 1.3;
    Camera {
        rect,
        centre: Vec2::new(0.0, 0.5 * height_m - 0.12 * drop as f64),
        scale: rect.h as f64 / height_m,
    }
}

/// Screen centre of ball `i` at height `h` (m): its bottom touches the floor at h = 0.
pub fn ball_centre(cam: &Camera, i: usize, h: f32) -> (f32, f32) {
    cam.to_screen(&Vec2::new(BALL_X_M[i], h as f64 + BALL_RADIUS_M))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn camera_round_trips_and_keeps_y_up() {
        let rect = Rect {
            x: 10.0,
            y: 20.0,
            w: 600.0,
            h: 400.0,
        };
        let n = Vec2::new(0.1, 1.0).normalize();
        let cam = slope_camera(rect, 1.0, &n, &Vec2::new(0.0, -1.0), &Vec2::zeros());
        let p = Vec2::new(0.3, -0.2);
        let (sx, sy) = cam.to_screen(&p);
        let back = cam.to_world(sx, sy);
        assert!((back - p).norm() < 1e-4);
        let (_, y_hi) = cam.to_screen(&Vec2::new(0.3, 0.5));
        assert!(y_hi < sy, "higher in the world is higher on the screen");
    }

    #[test]
    fn the_slope_segment_lies_on_the_slope_and_in_the_view() {
        let layout = layout(WINDOW_WIDTH as f32, WINDOW_HEIGHT as f32);
        let n = Vec2::new(0.1, 1.0).normalize();
        let o = Vec2::new(0.0, -1.0);
        let cam = slope_camera(layout.scene, 1.0, &n, &o, &Vec2::new(2.0, -1.0));
        let [a, b] = slope_segment(&cam, &n, &o).expect("the slope crosses the view");
        for (x, y) in [a, b] {
            assert!(layout.scene.inset(-0.01).contains(x, y));
            let w = cam.to_world(x, y);
            assert!(n.dot(&(w - o)).abs() < 1e-3, "{w:?} on the slope");
        }
        assert!((a.0 - b.0).abs() > 0.99 * layout.scene.w, "spans the view");
    }

    #[test]
    fn nice_steps() {
        assert_eq!(nice_step(8.0, 8.0), 1.0);
        assert_eq!(nice_step(3.5, 7.0), 0.5);
        assert_eq!(nice_step(0.3, 6.0), 0.05);
    }
}
