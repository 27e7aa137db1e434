//! The charts' toolkit: axes with ticks and labels, polylines in chart coordinates, legends.

use macroquad::color::Color;

use super::layout::{self, ChartMap, Rect};
use super::paint::{Pen, colour, fill, frame, line};
use crate::graphics::{self, Rgb};

/// Axes, ticks and labels of a chart; returns its map.
#[allow(clippy::too_many_arguments)]
pub(super) fn axes(
    panel: Rect,
    x: (f64, f64),
    y: (f64, f64),
    x_label: &str,
    y_label: &str,
    title: &str,
    pen: &Pen,
) -> ChartMap {
    fill(panel, colour(graphics::SKY));
    let ink = colour(graphics::TEXT);
    frame(panel, ink);
    let area = layout::chart_area(panel);
    let map = ChartMap {
        area,
        x0: x.0,
        x1: x.1,
        y0: y.0,
        y1: y.1,
    };
    let grid = colour(graphics::GRID);
    let xs = layout::nice_step(x.1 - x.0, 10.0);
    let mut v = (x.0 / xs).ceil() * xs;
    while v <= x.1 + 1e-9 {
        let (sx, _) = map.to_screen(v, y.0);
        line((sx, area.y), (sx, area.y + area.h), 1.0, grid);
        let t = format!("{}", (v * 1e6).round() / 1e6 + 0.0);
        let w = pen.width(&t, 14);
        pen.text(&t, sx - 0.5 * w, area.y + area.h + 15.0, 14, ink);
        v += xs;
    }
    let ys = layout::nice_step(y.1 - y.0, 5.0);
    let mut v = (y.0 / ys).ceil() * ys;
    while v <= y.1 + 1e-9 {
        let (_, sy) = map.to_screen(x.0, v);
        line((area.x, sy), (area.x + area.w, sy), 1.0, grid);
        let t = format!("{}", (v * 1e6).round() / 1e6 + 0.0);
        let w = pen.width(&t, 14);
        pen.text(&t, area.x - w - 6.0, sy + 5.0, 14, ink);
        v += ys;
    }
    frame(area, ink);
    let y_w = pen.width(y_label, 14);
    pen.text(title, panel.x + 6.0 + y_w + 40.0, panel.y + 18.0, 16, ink);
    let w = pen.width(x_label, 14);
    pen.text(
        x_label,
        area.x + area.w - w,
        panel.y + panel.h - 2.0,
        14,
        ink,
    );
    pen.text(y_label, panel.x + 6.0, panel.y + 18.0, 14, ink);
    map
}

pub(super) fn polyline(map: &ChartMap, pts: impl Iterator<Item = (f64, f64)>, t: f32, c: Color) {
    let mut prev: Option<(f32, f32)> = None;
    for (x, y) in pts {
        let p = map.to_screen(x, y);
        if let Some(q) = prev
            && (p.0 - q.0).abs() + (p.1 - q.1).abs() >= 0.5
        {
            line(q, p, t, c);
            prev = Some(p);
        } else if prev.is_none() {
            prev = Some(p);
        }
    }
}

pub(super) fn legend(panel: Rect, entries: &[(Rgb, String, bool)], pen: &Pen) {
    let area = layout::chart_area(panel);
    let x = area.x + area.w + 14.0;
    let mut y = area.y + 16.0;
    for (c, label, bold) in entries {
        line(
            (x, y - 5.0),
            (x + 26.0, y - 5.0),
            if *bold { 4.0 } else { 2.0 },
            colour(*c),
        );
        pen.text(label, x + 32.0, y, 15, colour(graphics::TEXT));
        y += 22.0;
    }
}
