//! The figure of a sweep over a scene case (docs/sweeps.md), by what its cells hold:
//! * a belt oscillator's stick–slip cycle (SPEC.md §8): the force drop ΔF = F_max − F_min, the
//!   period T and the slip time against the belt speed, one colour per spring stiffness, the
//!   measured cycles as points over the closed form's curves;
//! * a puck launched sliding and spinning (3D, SPEC.md §8): over the launch's v₀/(R ω₀), the
//!   measured v/(R ω) near the stop beside its limit 0.653 and the launch's own ratio, and
//!   when the slide and the spin stop;
//! * a lone box on an incline: two maps over axis 1 (x) and axis 2 (y), what the runs did
//!   (stay / slide / tip) and what the closed form says, with the rule's lines tan θ = μ,
//!   tan θ = w/b and μ = w/b drawn over both when the axes are `gravity.tan_theta` and
//!   `friction.mu`; a cell whose run disagrees with the closed form is crossed;
//! * otherwise one map of the first body's verdict.

use plotters::prelude::*;

use super::style::{NO_DATA, axis_positions, draw_legend, edges, verdict_colour};
use crate::analysis::stick_slip_cycle::StickSlipCycle;
use crate::sweep::collect::Collected;
use crate::sweep::dir::{CellState, Outcome, SceneCellResult};
use crate::sweep::file::SCENE_TAN_THETA_KEY;

type DrawResult<T> = Result<T, Box<dyn std::error::Error>>;

/// A line of the slide-or-tip rule: its label, its two ends and its style.
type RuleLine = (String, Vec<(f64, f64)>, ShapeStyle);

/// The colour of a slide-or-tip outcome.
pub fn outcome_colour(outcome: &str) -> RGBColor {
    match outcome {
        "stay" => RGBColor(44, 160, 44),
        "slide" => RGBColor(214, 39, 40),
        "tip" => RGBColor(148, 103, 189),
        _ => RGBColor(150, 150, 150),
    }
}

/// Colours of the stiffness series.
const SERIES: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
];

/// The finished scene results, by cell index.
fn results(collected: &Collected) -> Vec<Option<&SceneCellResult>> {
    collected
        .cells
        .iter()
        .map(|c| match &c.state {
            CellState::Finished(r) => match &r.outcome {
                Outcome::DoneScene(res) => Some(&**res),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// Draws the figure of a scene sweep into an RGB buffer; `None` when there is nothing to draw
/// (no cell holds a cycle and fewer than two numeric axes).
pub fn render(
    collected: &Collected,
    width: u32,
    height: u32,
    text: bool,
) -> Option<Result<Vec<u8>, String>> {
    let res = results(collected);
    if res.iter().flatten().any(|r| r.cycle_inputs.is_some()) {
        return Some(draw_cycles(&res, width, height, text).map_err(|e| e.to_string()));
    }
    // A puck swept over one axis (its launch): with more, the points of different cells at one
    // launch ratio would not be told apart; the maps below draw those.
    if collected.manifest.axes.len() == 1 && res.iter().flatten().any(|r| r.launch_ratio.is_some())
    {
        return Some(draw_slide_spin(&res, width, height, text).map_err(|e| e.to_string()));
    }
    let m = &collected.manifest;
    if m.axes.len() < 2 {
        return None;
    }
    let numbers = |a: usize| -> Option<Vec<f64>> {
        m.axes[a]
            .values
            .iter()
            .map(serde_json::Value::as_f64)
            .collect()
    };
    let (xs, ys) = (numbers(0)?, numbers(1)?);
    Some(draw_maps(collected, &res, &xs, &ys, width, height, text).map_err(|e| e.to_string()))
}

/// The cycle figure (module docs).
fn draw_cycles(
    res: &[Option<&SceneCellResult>],
    width: u32,
    height: u32,
    text: bool,
) -> DrawResult<Vec<u8>> {
    let samples: usize = 200;
    // The cells with a closed form, grouped by stiffness (in order of first appearance).
    let mut groups: Vec<(f64, Vec<&SceneCellResult>)> = Vec::new();
    for r in res.iter().flatten() {
        let Some(inputs) = &r.cycle_inputs else {
            continue;
        };
        match groups
            .iter_mut()
            .find(|(k, _)| *k == inputs.stiffness_n_per_m)
        {
            Some((_, g)) => g.push(r),
            None => groups.push((inputs.stiffness_n_per_m, vec![r])),
        }
    }
    groups.sort_by(|a, b| a.0.total_cmp(&b.0));
    let speeds: Vec<f64> = groups
        .iter()
        .flat_map(|(_, g)| g.iter().filter_map(|r| r.cycle_inputs.as_ref()))
        .map(|i| i.belt_speed_m_per_s)
        .collect();
    let v_lo = speeds.iter().copied().fold(f64::INFINITY, f64::min);
    let v_hi = speeds.iter().copied().fold(0.0, f64::max);
    // Log axes, a fifth of the span's ratio (at least 10 %) beyond the ends.
    let pad = (v_hi / v_lo).powf(0.1).max(1.1);
    let (x_lo, x_hi) = (v_lo / pad, v_hi * pad);
    let speed_at = |s: usize| x_lo * (x_hi / x_lo).powf(s as f64 / samples as f64);
    type Pick = fn(&StickSlipCycle) -> f64;
    let panels: [(&str, &str, Pick); 3] = [
        (
            "force drop ΔF = F_max − F_min",
            "ΔF (N, log scale)",
            |c| c.f_max_n - c.f_min_n,
        ),
        ("period T = t_stick + t_slip", "T (s, log scale)", |c| {
            c.period_s
        }),
        ("slip time t_slip", "t_slip (s, log scale)", |c| c.t_slip_s),
    ];
    let cycle_of = |r: &SceneCellResult| {
        r.cycle.as_ref().map(|c| StickSlipCycle {
            f_max_n: c.f_max_n,
            f_min_n: c.f_min_n,
            t_stick_s: c.t_stick_s,
            t_slip_s: c.t_slip_s,
            period_s: c.period_s,
        })
    };
    let curve = |r: &SceneCellResult, v: f64| {
        r.cycle_inputs.as_ref().map(|i| {
            StickSlipCycle::closed_form(
                i.mass_kg,
                i.normal_force_n,
                i.mu_static,
                i.mu_kinetic,
                i.stiffness_n_per_m,
                v,
            )
        })
    };
    let mut buf = vec![255u8; width as usize * height as usize * 3];
    {
        let root = BitMapBackend::with_buffer(&mut buf, (width, height)).into_drawing_area();
        root.fill(&WHITE)?;
        let areas = root.split_evenly((1, 3));
        for (p, area) in areas.iter().enumerate() {
            let (title, unit, pick) = panels[p];
            // The panel's range: every curve sample and every measured point (log axes).
            let (mut y_lo, mut y_hi) = (f64::INFINITY, 0.0_f64);
            let mut extend = |y: f64| {
                if y.is_finite() && y > 0.0 {
                    y_lo = y_lo.min(y);
                    y_hi = y_hi.max(y);
                }
            };
            for (_, g) in &groups {
                let Some(first) = g.first() else { continue };
                for s in 0..=samples {
                    if let Some(c) = curve(first, speed_at(s)) {
                        extend(pick(&c));
                    }
                }
                for r in g {
                    if let Some(c) = cycle_of(r) {
                        extend(pick(&c));
                    }
                }
            }
            // At least a factor 1.3 from bottom to top, so that a flat curve (ΔF) gets ticks.
            let (y_lo, y_hi) = if y_hi > 0.0 {
                let widen = (1.3 / (y_hi / y_lo)).max(1.0).sqrt().max(1.05);
                (y_lo / widen, y_hi * widen)
            } else {
                (0.1, 1.0)
            };
            let mut builder = ChartBuilder::on(area);
            builder.margin(12);
            if text {
                builder
                    .caption(title, ("sans-serif", 18))
                    .x_label_area_size(40)
                    .y_label_area_size(56);
            } else {
                builder.x_label_area_size(6).y_label_area_size(6);
            }
            let mut chart =
                builder.build_cartesian_2d((x_lo..x_hi).log_scale(), (y_lo..y_hi).log_scale())?;
            let mut mesh = chart.configure_mesh();
            if text {
                mesh.x_desc("belt speed v (m/s, log scale)")
                    .y_desc(unit)
                    .x_label_formatter(&|v| format!("{v:.3}"))
                    .y_label_formatter(&|v| format!("{v:.3}"))
                    .label_style(("sans-serif", 14))
                    .axis_desc_style(("sans-serif", 15));
            } else {
                mesh.x_labels(0).y_labels(0);
            }
            mesh.draw()?;
            for (gi, (k, g)) in groups.iter().enumerate() {
                let colour = SERIES[gi % SERIES.len()];
                let Some(first) = g.first() else { continue };
                let line: Vec<(f64, f64)> = (0..=samples)
                    .filter_map(|s| curve(first, speed_at(s)).map(|c| (speed_at(s), pick(&c))))
                    .collect();
                let drawn = chart.draw_series(LineSeries::new(line, colour.stroke_width(2)))?;
                if text {
                    drawn.label(format!("k = {k} N/m")).legend(move |(x, y)| {
                        PathElement::new([(x, y), (x + 18, y)], colour.stroke_width(2))
                    });
                }
                let points: Vec<(f64, f64)> = g
                    .iter()
                    .filter_map(|r| {
                        let v = r.cycle_inputs.as_ref()?.belt_speed_m_per_s;
                        cycle_of(r).map(|c| (v, pick(&c)))
                    })
                    .collect();
                // Points of later series smaller, so that coinciding ones (ΔF) stay visible.
                let radius = 9 - 2 * (gi as i32).min(3);
                chart.draw_series(
                    points
                        .into_iter()
                        .map(|pt| Circle::new(pt, radius, colour.filled())),
                )?;
            }
            if text {
                chart
                    .draw_series(std::iter::empty::<Circle<(f64, f64), i32>>())?
                    .label("measured (points); closed form, SPEC.md §8 (lines)")
                    .legend(|(x, y)| Circle::new((x + 9, y), 5, BLACK.filled()));
                draw_legend(&mut chart, SeriesLabelPosition::UpperRight)?;
            }
        }
        root.present()?;
    }
    Ok(buf)
}

/// The puck figure (module docs): over the launch ratio v₀/(R ω₀) (log scale), the measured
/// v/(R ω) near the stop with the limit 0.653 and the launch ratio itself (where the point would
/// sit had nothing coupled them), and the two stop times.
fn draw_slide_spin(
    res: &[Option<&SceneCellResult>],
    width: u32,
    height: u32,
    text: bool,
) -> DrawResult<Vec<u8>> {
    let cells: Vec<&SceneCellResult> = res
        .iter()
        .flatten()
        .copied()
        .filter(|r| r.launch_ratio.is_some_and(|l| l.is_finite() && l > 0.0))
        .filter(|r| r.spin_slide_ratio.is_none_or(|v| v.is_finite() && v > 0.0))
        .collect();
    let launch = |r: &SceneCellResult| r.launch_ratio.unwrap_or(f64::NAN);
    let lo = cells
        .iter()
        .map(|r| launch(r))
        .fold(f64::INFINITY, f64::min);
    let hi = cells.iter().map(|r| launch(r)).fold(0.0, f64::max);
    let (x_lo, x_hi) = (lo / 1.25, hi * 1.25);
    let limit = cells
        .iter()
        .find_map(|r| r.spin_slide_ratio_analytic)
        .unwrap_or(crate::analysis::slide_spin::SPIN_SLIDE_RATIO);
    let mut buf = vec![255u8; width as usize * height as usize * 3];
    {
        let root = BitMapBackend::with_buffer(&mut buf, (width, height)).into_drawing_area();
        root.fill(&WHITE)?;
        let areas = root.split_evenly((1, 2));
        let caption = |b: &mut ChartBuilder<_>, title: &str| {
            b.margin(12);
            if text {
                b.caption(title, ("sans-serif", 18))
                    .x_label_area_size(40)
                    .y_label_area_size(56);
            } else {
                b.x_label_area_size(6).y_label_area_size(6);
            }
        };
        // Left: v/(R ω) near the stop against the launch's.
        let ratios = cells.iter().filter_map(|r| r.spin_slide_ratio);
        let y_hi = ratios.chain([x_hi, limit]).fold(0.0, f64::max) * 1.1;
        let y_lo = cells
            .iter()
            .filter_map(|r| r.spin_slide_ratio)
            .chain([x_lo, limit])
            .fold(f64::INFINITY, f64::min)
            / 1.1;
        let mut b = ChartBuilder::on(&areas[0]);
        caption(&mut b, "v/(R ω) near the stop");
        let mut chart = b.build_cartesian_2d((x_lo..x_hi).log_scale(), (y_lo..y_hi).log_scale())?;
        let mut mesh = chart.configure_mesh();
        if text {
            mesh.x_desc("launch v₀/(R ω₀) (log scale)")
                .y_desc("v/(R ω) (log scale)")
                .label_style(("sans-serif", 14))
                .axis_desc_style(("sans-serif", 15));
        } else {
            mesh.x_labels(0).y_labels(0);
        }
        mesh.draw()?;
        let grey = RGBColor(120, 120, 120);
        let drawn = chart.draw_series(DashedLineSeries::new(
            [(x_lo, limit), (x_hi, limit)],
            8,
            5,
            BLACK.stroke_width(2),
        ))?;
        if text {
            drawn
                .label(format!("limit {limit} (SPEC.md §8)"))
                .legend(|(x, y)| PathElement::new([(x, y), (x + 18, y)], BLACK.stroke_width(2)));
        }
        let drawn = chart.draw_series(LineSeries::new(
            [(x_lo, x_lo), (x_hi, x_hi)],
            grey.stroke_width(1),
        ))?;
        if text {
            drawn
                .label("the launch's (no coupling)")
                .legend(move |(x, y)| {
                    PathElement::new([(x, y), (x + 18, y)], grey.stroke_width(1))
                });
        }
        let drawn = chart.draw_series(cells.iter().filter_map(|r| {
            r.spin_slide_ratio
                .map(|v| Circle::new((launch(r), v), 6, SERIES[0].filled()))
        }))?;
        if text {
            drawn
                .label("measured at 0.5 % of the launch's v + R ω")
                .legend(|(x, y)| Circle::new((x + 9, y), 5, SERIES[0].filled()));
            draw_legend(&mut chart, SeriesLabelPosition::UpperLeft)?;
        }
        // Right: the stop times.
        let t_hi = cells
            .iter()
            .flat_map(|r| [r.slide_stop_s, r.spin_stop_s])
            .flatten()
            .fold(0.0, f64::max)
            .max(1e-3)
            * 1.1;
        let mut b = ChartBuilder::on(&areas[1]);
        caption(&mut b, "when the slide and the spin stop");
        let mut chart = b.build_cartesian_2d((x_lo..x_hi).log_scale(), 0.0..t_hi)?;
        let mut mesh = chart.configure_mesh();
        if text {
            mesh.x_desc("launch v₀/(R ω₀) (log scale)")
                .y_desc("stop time (s)")
                .label_style(("sans-serif", 14))
                .axis_desc_style(("sans-serif", 15));
        } else {
            mesh.x_labels(0).y_labels(0);
        }
        mesh.draw()?;
        let (slide, spin) = (SERIES[3], SERIES[1]);
        let drawn = chart.draw_series(cells.iter().filter_map(|r| {
            r.slide_stop_s
                .map(|t| Circle::new((launch(r), t), 7, slide.filled()))
        }))?;
        if text {
            drawn
                .label("slide stops")
                .legend(move |(x, y)| Circle::new((x + 9, y), 5, slide.filled()));
        }
        let drawn = chart.draw_series(cells.iter().filter_map(|r| {
            r.spin_stop_s
                .map(|t| Cross::new((launch(r), t), 7, spin.stroke_width(2)))
        }))?;
        if text {
            drawn
                .label("spin stops")
                .legend(move |(x, y)| Cross::new((x + 9, y), 5, spin.stroke_width(2)));
            draw_legend(&mut chart, SeriesLabelPosition::UpperLeft)?;
        }
        root.present()?;
    }
    Ok(buf)
}

/// The maps (module docs).
fn draw_maps(
    collected: &Collected,
    res: &[Option<&SceneCellResult>],
    xs: &[f64],
    ys: &[f64],
    width: u32,
    height: u32,
    text: bool,
) -> DrawResult<Vec<u8>> {
    let m = &collected.manifest;
    let (x_sorted, x_pos) = axis_positions(xs);
    let (y_sorted, y_pos) = axis_positions(ys);
    let (x_edges, y_edges) = (edges(&x_sorted), edges(&y_sorted));
    let n_rest: usize = m.axes[2..].iter().map(|a| a.values.len()).product();
    let cell_at = |k: usize| {
        let rest = k % n_rest;
        let y = (k / n_rest) % ys.len();
        let x = k / (n_rest * ys.len());
        (rest == 0).then(|| (x_pos[x], y_pos[y]))
    };
    let tipping = res.iter().flatten().any(|r| r.slide_or_tip.is_some());
    let w_over_b = res.iter().flatten().find_map(|r| r.w_over_b);
    let rule_axes = m.axes[0].key == SCENE_TAN_THETA_KEY && m.axes[1].key == "friction.mu";
    let titles: Vec<String> = if tipping {
        vec![
            "measured: stay / slide / tip (× disagrees with the closed form)".into(),
            "closed form: stay if tan θ < min(μ, w/b), else slide if μ < w/b, else tip".into(),
        ]
    } else {
        let body = m
            .record
            .iter()
            .find(|c| c.ends_with(crate::sweep::file::BODY_VERDICT_SUFFIX))
            .cloned()
            .unwrap_or_else(|| "verdict".into());
        vec![body]
    };
    let mut buf = vec![255u8; width as usize * height as usize * 3];
    {
        let root = BitMapBackend::with_buffer(&mut buf, (width, height)).into_drawing_area();
        root.fill(&WHITE)?;
        let panels = root.split_evenly((1, titles.len()));
        for (p, area) in panels.iter().enumerate() {
            let mut builder = ChartBuilder::on(area);
            builder.margin(12);
            if text {
                builder
                    .caption(&titles[p], ("sans-serif", 16))
                    .x_label_area_size(40)
                    .y_label_area_size(56);
            } else {
                builder.x_label_area_size(6).y_label_area_size(6);
            }
            let x_range = x_edges[0]..x_edges[x_edges.len() - 1];
            let y_range = y_edges[0]..y_edges[y_edges.len() - 1];
            let mut chart = builder.build_cartesian_2d(x_range.clone(), y_range.clone())?;
            let mut mesh = chart.configure_mesh();
            mesh.disable_mesh();
            if text {
                mesh.x_desc(m.axes[0].key.replace(SCENE_TAN_THETA_KEY, "tan θ"))
                    .y_desc(m.axes[1].key.replace("friction.mu", "μ"))
                    .label_style(("sans-serif", 14))
                    .axis_desc_style(("sans-serif", 15));
            } else {
                mesh.x_labels(0).y_labels(0);
            }
            mesh.draw()?;
            let mut rects = Vec::new();
            let mut crosses = Vec::new();
            for (k, c) in collected.cells.iter().enumerate() {
                let Some((xi, yi)) = cell_at(k) else {
                    continue;
                };
                let colour = match (&c.state, res[k]) {
                    (_, Some(r)) if tipping => {
                        let (measured, analytic) = (
                            r.slide_or_tip.as_deref().unwrap_or(""),
                            r.slide_or_tip_analytic.as_deref().unwrap_or(""),
                        );
                        if p == 0 && measured != analytic {
                            crosses.push((xi, yi));
                        }
                        outcome_colour(if p == 0 { measured } else { analytic })
                    }
                    (_, Some(r)) => r
                        .bodies
                        .first()
                        .map_or(NO_DATA, |b| verdict_colour(&b.verdict)),
                    (CellState::Finished(_), None) => RGBColor(0, 0, 0),
                    _ => NO_DATA,
                };
                rects.push(Rectangle::new(
                    [
                        (x_edges[xi], y_edges[yi]),
                        (x_edges[xi + 1], y_edges[yi + 1]),
                    ],
                    colour.filled(),
                ));
            }
            chart.draw_series(rects)?;
            for (xi, yi) in crosses {
                let (x0, x1) = (x_edges[xi], x_edges[xi + 1]);
                let (y0, y1) = (y_edges[yi], y_edges[yi + 1]);
                let (dx, dy) = (0.25 * (x1 - x0), 0.25 * (y1 - y0));
                for seg in [
                    [(x0 + dx, y0 + dy), (x1 - dx, y1 - dy)],
                    [(x0 + dx, y1 - dy), (x1 - dx, y0 + dy)],
                ] {
                    chart.draw_series(LineSeries::new(seg, BLACK.stroke_width(3)))?;
                }
            }
            if tipping
                && rule_axes
                && let Some(wb) = w_over_b
            {
                let (x0, x1) = (x_range.start, x_range.end);
                let (y0, y1) = (y_range.start, y_range.end);
                let lo = x0.max(y0);
                let hi = x1.min(y1);
                let mut lines: Vec<RuleLine> = Vec::new();
                if lo < hi {
                    lines.push((
                        "tan θ = μ".into(),
                        vec![(lo, lo), (hi, hi)],
                        BLACK.stroke_width(2),
                    ));
                }
                if (x0..x1).contains(&wb) {
                    lines.push((
                        format!("tan θ = w/b = {wb:.3}"),
                        vec![(wb, y0), (wb, y1)],
                        RGBColor(40, 40, 40).stroke_width(2),
                    ));
                }
                if (y0..y1).contains(&wb) && wb < x1 {
                    lines.push((
                        "μ = w/b (tan θ > w/b)".into(),
                        vec![(wb.max(x0), wb), (x1, wb)],
                        RGBColor(90, 90, 90).stroke_width(2),
                    ));
                }
                for (label, pts, style) in lines {
                    let drawn = chart.draw_series(LineSeries::new(pts, style))?;
                    if text && p == 0 {
                        drawn
                            .label(label)
                            .legend(move |(x, y)| PathElement::new([(x, y), (x + 18, y)], style));
                    }
                }
            }
            if text && p == 0 && tipping {
                for outcome in ["stay", "slide", "tip"] {
                    let colour = outcome_colour(outcome);
                    chart
                        .draw_series(std::iter::empty::<Rectangle<(f64, f64)>>())?
                        .label(outcome)
                        .legend(move |(x, y)| {
                            Rectangle::new([(x, y - 6), (x + 12, y + 6)], colour.filled())
                        });
                }
                draw_legend(&mut chart, SeriesLabelPosition::UpperLeft)?;
            }
        }
        root.present()?;
    }
    Ok(buf)
}
