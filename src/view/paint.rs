//! The viewer's drawing primitives on macroquad: colours, the text pen (DejaVu Sans, or the
//! built-in font with symbols spelled out), lines, arrows, the world grid with its scale bar and
//! the ground under a slope. Every scene paints with these; none of them knows a scene.

use std::borrow::Cow;

use macroquad::color::Color;
use macroquad::math::vec2;
use macroquad::shapes::{draw_line, draw_rectangle, draw_triangle};
use macroquad::text::{Font, TextParams, draw_text_ex, load_ttf_font_from_bytes, measure_text};

use super::layout::{self, Camera, Rect};
use crate::energy::Vec2;
use crate::graphics::{self, Rgb};

/// Slope line thickness, px.
pub const SLOPE_THICKNESS: f32 = 3.0;

pub(super) fn colour(c: Rgb) -> Color {
    Color::from_rgba(c[0], c[1], c[2], 255)
}

pub(super) fn faded(c: Rgb, alpha: f32) -> Color {
    let mut c = colour(c);
    c.a = alpha;
    c
}

/// Text in DejaVu Sans when it can be found (see [`crate::graphics::load_font`]), else in
/// macroquad's built-in font with the non-ASCII symbols spelled out.
pub(super) struct Pen {
    font: Option<Font>,
}

impl Pen {
    pub(super) fn new() -> Pen {
        let font = crate::graphics::load_font()
            .and_then(|(_, bytes)| load_ttf_font_from_bytes(&bytes).ok());
        Pen { font }
    }

    fn fix<'a>(&self, s: &'a str) -> Cow<'a, str> {
        if self.font.is_some() || s.is_ascii() {
            return Cow::Borrowed(s);
        }
        let mut out = String::with_capacity(s.len());
        for ch in s.chars() {
            match ch {
                'μ' => out.push_str("mu"),
                'ε' => out.push_str("eps"),
                'λ' => out.push_str("lambda"),
                '≥' => out.push_str(">="),
                '≤' => out.push_str("<="),
                '→' => out.push_str("->"),
                '←' => out.push_str("<-"),
                '−' => out.push('-'),
                '×' => out.push('x'),
                '·' => out.push('.'),
                '²' => out.push_str("^2"),
                '…' => out.push_str("..."),
                c if c.is_ascii() => out.push(c),
                _ => out.push('?'),
            }
        }
        Cow::Owned(out)
    }

    pub(super) fn text(&self, s: &str, x: f32, y: f32, size: u16, c: Color) -> f32 {
        let s = self.fix(s);
        draw_text_ex(
            s.as_ref(),
            x,
            y,
            TextParams {
                font: self.font.as_ref(),
                font_size: size,
                color: c,
                ..Default::default()
            },
        )
        .width
    }

    pub(super) fn width(&self, s: &str, size: u16) -> f32 {
        measure_text(self.fix(s).as_ref(), self.font.as_ref(), size, 1.0).width
    }
}

pub(super) fn fill(r: Rect, c: Color) {
    draw_rectangle(r.x, r.y, r.w, r.h, c);
}

pub(super) fn frame(r: Rect, c: Color) {
    macroquad::shapes::draw_rectangle_lines(r.x, r.y, r.w, r.h, 1.0, c);
}

pub(super) fn line(a: (f32, f32), b: (f32, f32), t: f32, c: Color) {
    draw_line(a.0, a.1, b.0, b.1, t, c);
}

pub(super) fn arrow(a: (f32, f32), b: (f32, f32), c: Color) {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let len = dx.hypot(dy);
    if len < 1.0 {
        return;
    }
    line(a, b, 2.0, c);
    let (ux, uy) = (dx / len, dy / len);
    let head = 8.0f32.min(0.5 * len);
    let base = (b.0 - ux * head, b.1 - uy * head);
    draw_triangle(
        vec2(b.0, b.1),
        vec2(base.0 - uy * head * 0.5, base.1 + ux * head * 0.5),
        vec2(base.0 + uy * head * 0.5, base.1 - ux * head * 0.5),
        c,
    );
}

/// The force arrows' legend at the scene panel's top left (every view's): a barrier swatch, a
/// friction swatch and `text` (their scale).
pub(super) fn force_legend(rect: Rect, text: &str, pen: &Pen) {
    let y = rect.y + 40.0;
    line(
        (rect.x + 10.0, y - 5.0),
        (rect.x + 30.0, y - 5.0),
        3.0,
        colour(graphics::BARRIER_ARROW),
    );
    line(
        (rect.x + 34.0, y - 5.0),
        (rect.x + 54.0, y - 5.0),
        3.0,
        colour(graphics::FRICTION_ARROW),
    );
    pen.text(text, rect.x + 62.0, y, 15, colour(graphics::TEXT));
}

/// The grid of the world scale inside `cam.rect`, every `step` m, and a scale bar.
pub(super) fn world_grid(cam: &Camera, pen: &Pen) {
    let r = cam.rect;
    let lo = cam.to_world(r.x, r.y + r.h);
    let hi = cam.to_world(r.x + r.w, r.y);
    let step = layout::nice_step(hi.x - lo.x, 8.0);
    let grid = colour(graphics::GRID);
    let mut x = (lo.x / step).ceil() * step;
    while x <= hi.x {
        let (sx, _) = cam.to_screen(&Vec2::new(x, 0.0));
        line((sx, r.y), (sx, r.y + r.h), 1.0, grid);
        x += step;
    }
    let mut y = (lo.y / step).ceil() * step;
    while y <= hi.y {
        let (_, sy) = cam.to_screen(&Vec2::new(0.0, y));
        line((r.x, sy), (r.x + r.w, sy), 1.0, grid);
        y += step;
    }
    // Scale bar, bottom left.
    let bar_m = layout::nice_step(hi.x - lo.x, 5.0);
    let px = (bar_m * cam.scale) as f32;
    let (x0, y0) = (r.x + 16.0, r.y + r.h - 16.0);
    let ink = colour(graphics::TEXT);
    line((x0, y0), (x0 + px, y0), 3.0, ink);
    line((x0, y0 - 6.0), (x0, y0 + 1.5), 2.0, ink);
    line((x0 + px, y0 - 6.0), (x0 + px, y0 + 1.5), 2.0, ink);
    pen.text(
        &format!("{bar_m} m   (grid {step} m)"),
        x0,
        y0 - 10.0,
        15,
        ink,
    );
}

/// The half-space under a slope and its line.
pub(super) fn ground(cam: &Camera, normal: &Vec2, point: &Vec2) {
    let r = cam.rect;
    let Some([a, b]) = layout::slope_segment(cam, normal, point) else {
        return;
    };
    let bottom = r.y + r.h;
    let g = colour(graphics::GROUND);
    draw_triangle(vec2(a.0, a.1), vec2(b.0, b.1), vec2(b.0, bottom), g);
    draw_triangle(vec2(a.0, a.1), vec2(b.0, bottom), vec2(a.0, bottom), g);
    line(a, b, SLOPE_THICKNESS, colour(graphics::SLOPE));
}
