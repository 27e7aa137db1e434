//! The panels every scene shares: the strip of lamps and the HUD's lines of text.

use macroquad::shapes::{draw_circle, draw_rectangle};

use super::lamps::{LampState, LampStrip};
use super::layout::Rect;
use super::paint::{Pen, colour, fill, frame};
use crate::graphics;

/// The strip of lamps.
pub(super) fn lamp_strip(strip: &LampStrip, rect: Rect, pen: &Pen) {
    fill(rect, colour(graphics::SKY));
    let ink = colour(graphics::TEXT);
    frame(rect, ink);
    let n = strip.lamps.len().max(1) as f32;
    let w = (rect.w - 20.0) / n;
    for (k, lamp) in strip.lamps.iter().enumerate() {
        let c = match lamp.state {
            LampState::Green => graphics::LAMP_GREEN,
            LampState::Red { .. } => graphics::LAMP_RED,
            LampState::Pending => graphics::LAMP_PENDING,
        };
        draw_rectangle(
            rect.x + 10.0 + k as f32 * w,
            rect.y + 8.0,
            w - 6.0,
            16.0,
            colour(c),
        );
    }
    let mut y = rect.y + 42.0;
    for lamp in &strip.lamps {
        let (c, mark) = match lamp.state {
            LampState::Green => (graphics::LAMP_GREEN, "holds"),
            LampState::Red { .. } => (graphics::LAMP_RED, "FAILED"),
            LampState::Pending => (graphics::LAMP_PENDING, "not yet judged"),
        };
        draw_circle(rect.x + 16.0, y - 5.0, 5.0, colour(c));
        pen.text(&format!("{}: {mark}", lamp.name), rect.x + 28.0, y, 14, ink);
        y += 17.0;
    }
    if let Some(red) = strip.first_red()
        && let LampState::Red { detail, .. } = &red.state
    {
        let mut text = format!("{}: {detail}", red.name);
        while text.chars().count() > 8 && pen.width(&text, 13) > rect.w - 20.0 {
            text.pop();
        }
        pen.text(
            &text,
            rect.x + 10.0,
            y + 2.0,
            13,
            colour(graphics::LAMP_RED),
        );
    }
}

pub(super) fn hud_lines(rect: Rect, lines: &[String], pen: &Pen) {
    fill(rect, colour(graphics::SKY));
    let ink = colour(graphics::TEXT);
    frame(rect, ink);
    let mut y = rect.y + 22.0;
    for (k, l) in lines.iter().enumerate() {
        let size = if k == 0 { 18 } else { 16 };
        let mut l = l.clone();
        while l.chars().count() > 8 && pen.width(&l, size) > rect.w - 16.0 {
            l.pop();
        }
        pen.text(&l, rect.x + 10.0, y, size, ink);
        y += if l.is_empty() { 8.0 } else { 21.0 };
    }
}
