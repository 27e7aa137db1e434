//! The window: reads the state of [`super::slope`] / [`super::bounce`] and draws it with
//! macroquad; keys drive it. Nothing here changes the simulation but through its public step and
//! reset calls.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use macroquad::color::Color;
use macroquad::input::{KeyCode, get_char_pressed, is_key_pressed};
use macroquad::math::vec2;
use macroquad::shapes::{draw_circle, draw_circle_lines, draw_line, draw_rectangle, draw_triangle};
use macroquad::text::{Font, TextParams, draw_text_ex, load_ttf_font_from_bytes, measure_text};
use macroquad::time::get_frame_time;
use macroquad::window::{Conf, clear_background, next_frame, screen_height, screen_width};

use super::bounce::{self, Bounce};
use super::lamps::{LampState, LampStrip};
use super::layout::{
    self, BALL_RADIUS_M, Camera, ChartMap, Layout, Rect, Rgb, ball_centre, bounce_camera,
};
use super::slope::{NodeState, SlopeCase};
use super::{ViewConfig, ViewError, ViewScene};
use crate::app::verdict::Verdict;
use crate::energy::Vec2;

/// Speeds offered by + and −, simulated seconds per second.
const SPEEDS: [f64; 9] = [0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0];
/// Most steps a case takes in one frame, so a slow frame cannot snowball.
const MAX_STEPS_PER_FRAME: usize = 400;
/// Longest frame time counted, s (a window drag or a breakpoint is not simulated time).
const MAX_FRAME_DT: f64 = 0.1;
/// Barrier-force arrows: m of arrow per N (the ~2 kN a bottom node carries at rest ↦ 0.4 m).
pub const BARRIER_ARROW_M_PER_N: f64 = 2.0e-4;
/// Friction-force arrows: m per N, ten times the barrier's so that μλ ≈ 0.1 λ reads as well.
pub const FRICTION_ARROW_M_PER_N: f64 = 2.0e-3;
/// Node radius, px.
pub const NODE_RADIUS: f32 = 5.0;
/// Spring thickness, px.
pub const MESH_THICKNESS: f32 = 2.0;
/// Slope line thickness, px.
pub const SLOPE_THICKNESS: f32 = 3.0;

/// The window's configuration.
pub(crate) fn window_conf() -> Conf {
    Conf {
        window_title: "stickslip".to_owned(),
        window_width: layout::WINDOW_WIDTH as i32,
        window_height: layout::WINDOW_HEIGHT as i32,
        high_dpi: false,
        window_resizable: true,
        sample_count: 1,
        ..Default::default()
    }
}

fn colour(c: Rgb) -> Color {
    Color::from_rgba(c[0], c[1], c[2], 255)
}

fn faded(c: Rgb, alpha: f32) -> Color {
    let mut c = colour(c);
    c.a = alpha;
    c
}

/// Text in DejaVu Sans when it can be found (see [`crate::app::plot::load_font`]), else in
/// macroquad's built-in font with the non-ASCII symbols spelled out.
struct Pen {
    font: Option<Font>,
}

impl Pen {
    fn new() -> Pen {
        let font = crate::app::plot::load_font()
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

    fn text(&self, s: &str, x: f32, y: f32, size: u16, c: Color) -> f32 {
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

    fn width(&self, s: &str, size: u16) -> f32 {
        measure_text(self.fix(s).as_ref(), self.font.as_ref(), size, 1.0).width
    }
}

fn fill(r: Rect, c: Color) {
    draw_rectangle(r.x, r.y, r.w, r.h, c);
}

fn frame(r: Rect, c: Color) {
    macroquad::shapes::draw_rectangle_lines(r.x, r.y, r.w, r.h, 1.0, c);
}

fn line(a: (f32, f32), b: (f32, f32), t: f32, c: Color) {
    draw_line(a.0, a.1, b.0, b.1, t, c);
}

fn arrow(a: (f32, f32), b: (f32, f32), c: Color) {
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

/// The grid of the world scale inside `cam.rect`, every `step` m, and a scale bar.
fn world_grid(cam: &Camera, pen: &Pen) {
    let r = cam.rect;
    let lo = cam.to_world(r.x, r.y + r.h);
    let hi = cam.to_world(r.x + r.w, r.y);
    let step = layout::nice_step(hi.x - lo.x, 8.0);
    let grid = colour(layout::GRID);
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
    let ink = colour(layout::TEXT);
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
fn ground(cam: &Camera, normal: &Vec2, point: &Vec2) {
    let r = cam.rect;
    let Some([a, b]) = layout::slope_segment(cam, normal, point) else {
        return;
    };
    let bottom = r.y + r.h;
    let g = colour(layout::GROUND);
    draw_triangle(vec2(a.0, a.1), vec2(b.0, b.1), vec2(b.0, bottom), g);
    draw_triangle(vec2(a.0, a.1), vec2(b.0, bottom), vec2(a.0, bottom), g);
    line(a, b, SLOPE_THICKNESS, colour(layout::SLOPE));
}

/// The slope scene view of case `sel`, the others as faint outlines.
fn slope_scene(cases: &[SlopeCase], sel: usize, forces: bool, rect: Rect, pen: &Pen) {
    let case = &cases[sel];
    let sc = &case.scene;
    let cam = layout::slope_camera(rect, sc.side, &sc.normal, &sc.point, &case.centroid());
    fill(rect, colour(layout::SKY));
    world_grid(&cam, pen);
    ground(&cam, &sc.normal, &sc.point);
    // The other loaded cases' outlines, faint, in their chart colours.
    let outline = super::slope::boundary_edges(&case.runner.sim.mesh.triangles);
    for (k, other) in cases.iter().enumerate() {
        if k == sel || other.runner.sim.mesh.triangles != case.runner.sim.mesh.triangles {
            continue;
        }
        let c = faded(layout::case_colour(k), 0.7);
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
    let mesh = colour(layout::MESH);
    for &[a, b] in &sim.mesh.edges {
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
                    colour(layout::BARRIER_ARROW),
                );
            }
            if ff.norm() > 0.0 {
                arrow(
                    a,
                    cam.to_screen(&(x + ff * FRICTION_ARROW_M_PER_N)),
                    colour(layout::FRICTION_ARROW),
                );
            }
        }
    }
    for (x, state) in sim.x.iter().zip(case.node_states()) {
        let (sx, sy) = cam.to_screen(x);
        let c = match state {
            NodeState::Free => layout::NODE_FREE,
            NodeState::Sticking => layout::NODE_STICKING,
            NodeState::Sliding => layout::NODE_SLIDING,
        };
        draw_circle(sx, sy, NODE_RADIUS, colour(c));
    }
    // Legend of the node colours and arrows, top left.
    let ink = colour(layout::TEXT);
    let mut x = rect.x + 10.0;
    let y = rect.y + 20.0;
    x += pen.text(&sc.name, x, y, 18, ink) + 18.0;
    for (c, label) in [
        (layout::NODE_FREE, "no contact"),
        (layout::NODE_STICKING, "sticking (|v·t| < ε_v)"),
        (layout::NODE_SLIDING, "sliding"),
    ] {
        draw_circle(x + 5.0, y - 5.0, NODE_RADIUS, colour(c));
        x += 14.0 + pen.text(label, x + 14.0, y, 15, ink) + 14.0;
    }
    if forces {
        let y = rect.y + 40.0;
        let text = format!(
            "arrows: barrier 1 m = {:.0} N, friction 1 m = {:.0} N",
            1.0 / BARRIER_ARROW_M_PER_N,
            1.0 / FRICTION_ARROW_M_PER_N
        );
        line(
            (rect.x + 10.0, y - 5.0),
            (rect.x + 30.0, y - 5.0),
            3.0,
            colour(layout::BARRIER_ARROW),
        );
        line(
            (rect.x + 34.0, y - 5.0),
            (rect.x + 54.0, y - 5.0),
            3.0,
            colour(layout::FRICTION_ARROW),
        );
        pen.text(&text, rect.x + 62.0, y, 15, ink);
    }
    frame(rect, ink);
}

fn bounce_scene(b: &Bounce, rect: Rect, pen: &Pen) {
    let cam = bounce_camera(rect);
    fill(rect, colour(layout::SKY));
    world_grid(&cam, pen);
    ground(&cam, &Vec2::new(0.0, 1.0), &Vec2::zeros());
    let ink = colour(layout::TEXT);
    let (_, drop_y) = cam.to_screen(&Vec2::new(0.0, bounce::DROP as f64));
    line(
        (rect.x, drop_y),
        (rect.x + rect.w, drop_y),
        1.0,
        faded(layout::TEXT, 0.5),
    );
    pen.text("drop, 2 m", rect.x + rect.w - 90.0, drop_y - 4.0, 14, ink);
    let r_px = (BALL_RADIUS_M * cam.scale) as f32;
    for (i, &e) in bounce::RESTITUTIONS.iter().enumerate() {
        let c = layout::case_colour(i);
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
        "three balls dropped from 2 m; each bounce through the impulse law",
        rect.x + 10.0,
        rect.y + 20.0,
        17,
        ink,
    );
    frame(rect, ink);
}

/// Axes, ticks and labels of a chart; returns its map.
#[allow(clippy::too_many_arguments)]
fn axes(
    panel: Rect,
    x: (f64, f64),
    y: (f64, f64),
    x_label: &str,
    y_label: &str,
    title: &str,
    pen: &Pen,
) -> ChartMap {
    fill(panel, colour(layout::SKY));
    let ink = colour(layout::TEXT);
    frame(panel, ink);
    let area = layout::chart_area(panel);
    let map = ChartMap {
        area,
        x0: x.0,
        x1: x.1,
        y0: y.0,
        y1: y.1,
    };
    let grid = colour(layout::GRID);
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

fn polyline(map: &ChartMap, pts: impl Iterator<Item = (f64, f64)>, t: f32, c: Color) {
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

fn legend(panel: Rect, entries: &[(Rgb, String, bool)], pen: &Pen) {
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
        pen.text(label, x + 32.0, y, 15, colour(layout::TEXT));
        y += 22.0;
    }
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
        let c = layout::case_colour(k);
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
        faded(layout::TEXT, 0.4),
    );
}

/// The chart of every ball's height against the bounces.
fn bounce_chart(b: &Bounce, panel: Rect, pen: &Pen) {
    let map = axes(
        panel,
        (0.0, (bounce::BOUNCES + 1) as f64),
        (0.0, bounce::DROP as f64 * 1.08),
        "bounces",
        "height (m)",
        "each ball's height against the bounces: each arch e² as high as the last",
        pen,
    );
    let mut entries = Vec::new();
    for (i, &e) in bounce::RESTITUTIONS.iter().enumerate() {
        let c = layout::case_colour(i);
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
        for n in 0..=bounce::BOUNCES {
            let (sx, sy) = map.to_screen(n as f64 + 0.5, bounce::closed(e, n));
            draw_circle_lines(sx, sy, 3.0, 1.0, colour(c));
        }
        entries.push((c, format!("e = {e}"), false));
    }
    entries.push((layout::TEXT, "○ 2 m × e^(2n)".into(), false));
    legend(panel, &entries, pen);
}

/// The strip of lamps.
fn lamp_strip(strip: &LampStrip, rect: Rect, pen: &Pen) {
    fill(rect, colour(layout::SKY));
    let ink = colour(layout::TEXT);
    frame(rect, ink);
    let n = strip.lamps.len().max(1) as f32;
    let w = (rect.w - 20.0) / n;
    for (k, lamp) in strip.lamps.iter().enumerate() {
        let c = match lamp.state {
            LampState::Green => layout::LAMP_GREEN,
            LampState::Red { .. } => layout::LAMP_RED,
            LampState::Pending => layout::LAMP_PENDING,
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
            LampState::Green => (layout::LAMP_GREEN, "holds"),
            LampState::Red { .. } => (layout::LAMP_RED, "FAILED"),
            LampState::Pending => (layout::LAMP_PENDING, "not yet judged"),
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
        pen.text(&text, rect.x + 10.0, y + 2.0, 13, colour(layout::LAMP_RED));
    }
}

fn hud_lines(rect: Rect, lines: &[String], pen: &Pen) {
    fill(rect, colour(layout::SKY));
    let ink = colour(layout::TEXT);
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

fn percent(f: Option<f64>) -> String {
    f.map_or_else(|| "n/a".into(), |f| format!("{:.2} %", 100.0 * f))
}

fn verdict_text(v: Verdict) -> String {
    match v {
        Verdict::Sliding { mean_speed } => format!("sliding ({mean_speed:.3} m/s over 1 s)"),
        Verdict::Stopped { since, .. } => format!("stopped since t = {since:.2} s"),
        Verdict::Tumbling { .. } | Verdict::Airborne => v.to_string(),
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

fn bounce_hud(b: &Bounce, status: &str, backend: &str, rect: Rect, pen: &Pen) {
    let t = &b.tilted;
    let mid = 1;
    let lines = vec![
        "bounce scene (seed 001)".to_owned(),
        format!(
            "step {}    bounce {}    point {} / {}",
            b.step,
            b.bounce,
            b.point,
            bounce::STEPS_PER_FLIGHT
        ),
        format!(
            "e = 0.7: top {:.6} m, e^(2n) × drop {:.6} m",
            b.top[mid],
            bounce::closed(bounce::RESTITUTIONS[mid], b.bounce)
        ),
        format!(
            "worst bounce error {:.1e} (tolerance {:.0e})",
            b.worst_bounce_error,
            bounce::BOUNCE_REL_TOL
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

const HELP: &str = "space pause · → one step · R reset · 1/2/3 case · +/− speed · F force arrows · S screenshot · Esc quit";

/// Writes the current frame as an RGB PNG: to a temporary name beside `path`, renamed on success.
pub(super) fn save_screenshot(path: &Path) -> Result<(), ViewError> {
    let img = macroquad::texture::get_screen_data();
    let (w, h) = (img.width as usize, img.height as usize);
    let err = |reason: String| ViewError::Screenshot {
        path: path.to_path_buf(),
        reason,
    };
    // GL rows run bottom to top; PNG rows top to bottom.
    let mut rgb = Vec::with_capacity(w * h * 3);
    for y in (0..h).rev() {
        for px in img.bytes[y * w * 4..(y + 1) * w * 4].chunks_exact(4) {
            rgb.extend_from_slice(&px[..3]);
        }
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| err("not a file name".into()))?;
    let tmp = path.with_file_name(format!(".{name}.partial-{}", std::process::id()));
    let write = || -> Result<(), String> {
        let file = std::fs::File::create(&tmp).map_err(|e| e.to_string())?;
        let mut enc = png::Encoder::new(std::io::BufWriter::new(file), w as u32, h as u32);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        let mut writer = enc.write_header().map_err(|e| e.to_string())?;
        writer.write_image_data(&rgb).map_err(|e| e.to_string())?;
        writer.finish().map_err(|e| e.to_string())?;
        std::fs::rename(&tmp, path).map_err(|e| e.to_string())
    };
    write().map_err(|reason| {
        let _ = std::fs::remove_file(&tmp);
        err(reason)
    })
}

/// The speed that + (`up`) or − gives: the next of [`SPEEDS`] above (below) `speed`, or `speed`
/// itself beyond the list's end. (From a `--speed` between two entries, + and − go to the
/// neighbours; they never move the other way.)
fn next_speed(speed: f64, up: bool) -> f64 {
    let next = if up {
        SPEEDS.iter().copied().find(|&s| s > speed)
    } else {
        SPEEDS.iter().rev().copied().find(|&s| s < speed)
    };
    next.unwrap_or(speed)
}

/// Steps the scene to simulated time `target` (s), at most [`MAX_STEPS_PER_FRAME`] steps a case.
fn advance(scene: &mut ViewScene, target: f64, bounce_steps: &mut f64) -> Result<(), ViewError> {
    match scene {
        ViewScene::Slope { cases, .. } => {
            for c in cases.iter_mut() {
                let mut n = 0;
                while c.can_step()
                    && c.runner.sim.time() + 0.5 * c.scene.h <= target
                    && n < MAX_STEPS_PER_FRAME
                {
                    c.step();
                    n += 1;
                }
            }
        }
        ViewScene::Bounce { bounce, backend } => {
            let mut n = 0;
            while *bounce_steps + 1.0 <= target * bounce::STEPS_PER_SECOND
                && n < MAX_STEPS_PER_FRAME
            {
                step_bounce(bounce, backend.as_mut())?;
                *bounce_steps += 1.0;
                n += 1;
            }
        }
    }
    Ok(())
}

fn step_bounce(
    b: &mut Bounce,
    backend: &mut dyn crate::contact::impulse_law::ImpulseBackend,
) -> Result<(), ViewError> {
    b.step(backend)
        .map_err(|e| ViewError::Window(format!("impulse law failed: {e}")))
}

fn step_once(scene: &mut ViewScene) -> Result<(), ViewError> {
    match scene {
        ViewScene::Slope { cases, .. } => {
            for c in cases.iter_mut() {
                c.step();
            }
            Ok(())
        }
        ViewScene::Bounce { bounce, backend } => step_bounce(bounce, backend.as_mut()),
    }
}

fn scene_time(scene: &ViewScene, sel: usize) -> f64 {
    match scene {
        ViewScene::Slope { cases, .. } => cases[sel].runner.sim.time(),
        ViewScene::Bounce { bounce, .. } => bounce.step as f64 / bounce::STEPS_PER_SECOND,
    }
}

fn draw_all(scene: &ViewScene, sel: usize, forces: bool, status: &str, pen: &Pen) -> Layout {
    let lay = layout::layout(screen_width(), screen_height());
    clear_background(colour(layout::BACKGROUND));
    match scene {
        ViewScene::Slope {
            cases,
            backend_name,
        } => {
            slope_scene(cases, sel, forces, lay.scene, pen);
            slope_hud(cases, sel, status, backend_name, lay.hud, pen);
            lamp_strip(&cases[sel].lamps, lay.lamps, pen);
            slope_chart(cases, sel, lay.chart, pen);
        }
        ViewScene::Bounce { bounce, backend } => {
            bounce_scene(bounce, lay.scene, pen);
            bounce_hud(bounce, status, &backend.name(), lay.hud, pen);
            lamp_strip(&bounce.lamps, lay.lamps, pen);
            bounce_chart(bounce, lay.chart, pen);
        }
    }
    pen.text(
        HELP,
        lay.help.x,
        lay.help.y + 16.0,
        16,
        colour(layout::TEXT),
    );
    lay
}

fn screenshot_name(scene: &ViewScene, sel: usize) -> PathBuf {
    let (stem, step) = match scene {
        ViewScene::Slope { cases, .. } => (
            cases[sel]
                .scene
                .source
                .as_ref()
                .and_then(|p| p.file_stem())
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "slope".into()),
            cases[sel].runner.sim.step,
        ),
        ViewScene::Bounce { bounce, .. } => ("bounce".into(), bounce.step),
    };
    PathBuf::from(format!("stickslip-{stem}-step{step:05}.png"))
}

/// The window loop: until Esc (or the window is closed), or `--frames` frames.
pub(crate) async fn run(mut scene: ViewScene, cfg: ViewConfig) -> Result<(), ViewError> {
    let pen = Pen::new();
    let n_cases = match &scene {
        ViewScene::Slope { cases, .. } => cases.len(),
        ViewScene::Bounce { .. } => 1,
    };
    let mut sel = cfg.select.min(n_cases - 1);
    let mut forces = cfg.forces;
    let mut paused = false;
    let mut speed = cfg.speed;
    let mut target = 0.0f64;
    let mut bounce_steps = 0.0f64;
    let mut status = String::new();
    let mut frames = 0usize;
    loop {
        // Keys.
        if is_key_pressed(KeyCode::Escape) || is_key_pressed(KeyCode::Q) {
            // Headless frames cut short are the window closed early: no screenshot, exit 1.
            return match cfg.frames {
                Some(wanted) => Err(ViewError::Closed {
                    done: frames,
                    wanted,
                }),
                None => Ok(()),
            };
        }
        if is_key_pressed(KeyCode::Space) {
            paused = !paused;
        }
        if is_key_pressed(KeyCode::F) {
            forces = !forces;
        }
        if is_key_pressed(KeyCode::R) {
            match &mut scene {
                ViewScene::Slope { cases, .. } => {
                    for c in cases.iter_mut() {
                        if let Err(e) = c.reset() {
                            status = format!("reset failed: {e}");
                        }
                    }
                }
                ViewScene::Bounce { bounce, .. } => **bounce = Bounce::new(),
            }
            target = 0.0;
            bounce_steps = 0.0;
        }
        let digit_keys = [
            KeyCode::Key1,
            KeyCode::Key2,
            KeyCode::Key3,
            KeyCode::Key4,
            KeyCode::Key5,
            KeyCode::Key6,
            KeyCode::Key7,
            KeyCode::Key8,
            KeyCode::Key9,
        ];
        for (k, key) in digit_keys.iter().enumerate() {
            if k < n_cases && is_key_pressed(*key) {
                sel = k;
            }
        }
        while let Some(ch) = get_char_pressed() {
            match ch {
                '+' | '=' => speed = next_speed(speed, true),
                '-' | '_' => speed = next_speed(speed, false),
                _ => {}
            }
        }
        let one_step = is_key_pressed(KeyCode::Right);

        // Time.
        if cfg.frames.is_some() {
            step_once(&mut scene)?;
            target = scene_time(&scene, sel);
        } else if one_step {
            paused = true;
            step_once(&mut scene)?;
            target = scene_time(&scene, sel);
            bounce_steps = target * bounce::STEPS_PER_SECOND;
        } else if !paused {
            target += (get_frame_time() as f64).min(MAX_FRAME_DT) * speed;
            advance(&mut scene, target, &mut bounce_steps)?;
        }

        let state = if cfg.frames.is_some() {
            "headless frames".to_owned()
        } else if paused {
            "paused".to_owned()
        } else {
            "running".to_owned()
        };
        let line = format!("{state}, speed ×{speed}   {status}");
        draw_all(&scene, sel, forces, &line, &pen);
        frames += 1;
        cfg.frames_done.set(frames);

        if let Some(n) = cfg.frames
            && frames >= n
        {
            if let Some(path) = &cfg.screenshot {
                save_screenshot(path)?;
            }
            return Ok(());
        }
        if is_key_pressed(KeyCode::S) {
            let path = screenshot_name(&scene, sel);
            // Also on stderr, for a terminal (and for tests/viewer_keys.rs, which waits on it).
            status = match save_screenshot(&path) {
                Ok(()) => {
                    eprintln!("stickslip view: screenshot written to {}", path.display());
                    format!("saved {}", path.display())
                }
                Err(e) => {
                    eprintln!("stickslip view: {e}");
                    e.to_string()
                }
            };
        }
        next_frame().await;
    }
}

#[cfg(test)]
mod tests {
    use super::{SPEEDS, next_speed};

    #[test]
    fn plus_and_minus_step_through_the_speeds_and_never_the_wrong_way() {
        assert_eq!(next_speed(1.0, true), 2.0);
        assert_eq!(next_speed(1.0, false), 0.5);
        assert_eq!(next_speed(0.3, true), 0.5);
        assert_eq!(next_speed(0.3, false), 0.25);
        // Beyond the ends: the other way still works, the way out keeps the speed.
        assert_eq!(next_speed(0.03, false), 0.03);
        assert_eq!(next_speed(0.03, true), 0.05);
        assert_eq!(next_speed(20.0, true), 20.0);
        assert_eq!(next_speed(20.0, false), 16.0);
        assert_eq!(next_speed(SPEEDS[0], false), SPEEDS[0]);
        assert_eq!(next_speed(SPEEDS[8], true), SPEEDS[8]);
    }
}
