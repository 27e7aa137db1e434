//! The map figure of a sweep: three panels over the first two axes (x = axis 1, y = axis 2; for
//! the shipped sweep x = tan θ, y = μ), one rectangle per cell:
//! 1. the verdict (colour by state), with the line μ = tan θ drawn over it when the axes are
//!    `slope.tan_theta` and `friction.mu`;
//! 2. the downhill distance at the end (log colour scale, light = short, dark = long);
//! 3. the cross-check's stick/slide agreement (red at or below [`AGREEMENT_FLOOR`], green at 1).
//!
//! Missing, corrupt and failed cells are light grey, black for failed. The caller registers the
//! font (`text`) and writes the PNG. A sweep over a scene case has its own figure ([`scene`]).
//! The cells and the axes are the simulator's ([`crate::sweep`]); only the drawing is here.

pub mod scene;
pub mod style;

use plotters::prelude::*;

use crate::sweep::collect::Collected;
use crate::sweep::dir::{CellState, Outcome};
use crate::sweep::file::TAN_THETA_KEY;
use style::{NO_DATA, axis_positions, draw_legend, edges, verdict_colour};

/// Agreement at or below this is drawn fully red (SPEC.md §4 asks ≥ 98 % on the book's cases).
pub const AGREEMENT_FLOOR: f64 = 0.9;

const FAILED: RGBColor = RGBColor(0, 0, 0);

/// Linear blend of two colours, `f` in [0, 1].
fn blend(a: RGBColor, b: RGBColor, f: f64) -> RGBColor {
    let f = f.clamp(0.0, 1.0);
    let mix = |x: u8, y: u8| (f64::from(x) + f * (f64::from(y) - f64::from(x))).round() as u8;
    RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// Draws the figure into an RGB buffer of `width` × `height`; `None` when the sweep has fewer
/// than two axes or a non-numeric one among the first two.
pub fn render(
    collected: &Collected,
    width: u32,
    height: u32,
    text: bool,
) -> Option<Result<Vec<u8>, String>> {
    let m = &collected.manifest;
    if m.kind.is_some() {
        return scene::render(collected, width, height, text);
    }
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
    Some(draw(collected, &xs, &ys, width, height, text).map_err(|e| e.to_string()))
}

type DrawResult<T> = Result<T, Box<dyn std::error::Error>>;

fn draw(
    collected: &Collected,
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
    // The position of every cell: its value of axis 1 and 2 (any further axis is ignored: the
    // figure shows the first cell of each (x, y), in index order, which is the first value of
    // the further axes).
    let n_rest: usize = m.axes[2..].iter().map(|a| a.values.len()).product();
    let cell_at = |k: usize| {
        let rest = k % n_rest;
        let y = (k / n_rest) % ys.len();
        let x = k / (n_rest * ys.len());
        (rest == 0).then(|| (x_pos[x], y_pos[y]))
    };
    let distances: Vec<f64> = collected
        .records()
        .filter_map(|r| match &r.outcome {
            Outcome::Done(res) => Some(res.downhill_distance_m.abs()),
            Outcome::DoneScene(_) | Outcome::Failed { .. } => None,
        })
        .filter(|d| *d > 0.0 && d.is_finite())
        .collect();
    let d_lo = distances.iter().copied().fold(f64::INFINITY, f64::min);
    let d_hi = distances.iter().copied().fold(0.0, f64::max);
    let (log_lo, log_hi) = (d_lo.log10(), d_hi.log10().max(d_lo.log10() + 1e-9));

    let mut buf = vec![255u8; width as usize * height as usize * 3];
    {
        let root = BitMapBackend::with_buffer(&mut buf, (width, height)).into_drawing_area();
        root.fill(&WHITE)?;
        let panels = root.split_evenly((1, 3));
        let titles = [
            "verdict".to_string(),
            if distances.is_empty() {
                "downhill distance".to_string()
            } else {
                format!("downhill distance (log scale {d_lo:.1e} to {d_hi:.2} m)")
            },
            format!("cross-check stick/slide agreement ({AGREEMENT_FLOOR} to 1)"),
        ];
        for (p, area) in panels.iter().enumerate() {
            let mut builder = ChartBuilder::on(area);
            builder.margin(12);
            if text {
                builder
                    .caption(&titles[p], ("sans-serif", 18))
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
                mesh.x_desc(m.axes[0].key.replace(TAN_THETA_KEY, "tan θ"))
                    .y_desc(m.axes[1].key.replace("friction.mu", "μ"))
                    .label_style(("sans-serif", 14))
                    .axis_desc_style(("sans-serif", 15));
            } else {
                mesh.x_labels(0).y_labels(0);
            }
            mesh.draw()?;
            let mut rects = Vec::new();
            for (k, c) in collected.cells.iter().enumerate() {
                let Some((xi, yi)) = cell_at(k) else {
                    continue;
                };
                let colour = match &c.state {
                    CellState::Missing | CellState::Corrupt(_) => NO_DATA,
                    CellState::Finished(r) => match &r.outcome {
                        Outcome::Failed { .. } | Outcome::DoneScene(_) => FAILED,
                        Outcome::Done(res) => match p {
                            0 => verdict_colour(&res.verdict),
                            1 => {
                                let d = res.downhill_distance_m.abs();
                                if d > 0.0 && d.is_finite() {
                                    let f = (d.log10() - log_lo) / (log_hi - log_lo);
                                    if f < 0.5 {
                                        blend(
                                            RGBColor(255, 247, 188),
                                            RGBColor(65, 182, 196),
                                            2.0 * f,
                                        )
                                    } else {
                                        blend(
                                            RGBColor(65, 182, 196),
                                            RGBColor(8, 29, 88),
                                            2.0 * f - 1.0,
                                        )
                                    }
                                } else {
                                    NO_DATA
                                }
                            }
                            _ => match res.agreement {
                                Some(a) => blend(
                                    RGBColor(214, 39, 40),
                                    RGBColor(44, 160, 44),
                                    (a - AGREEMENT_FLOOR) / (1.0 - AGREEMENT_FLOOR),
                                ),
                                None => NO_DATA,
                            },
                        },
                    },
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
            if m.axes[0].key == TAN_THETA_KEY && m.axes[1].key == "friction.mu" {
                let lo = x_range.start.max(y_range.start);
                let hi = x_range.end.min(y_range.end);
                if lo < hi {
                    let line = chart.draw_series(LineSeries::new(
                        [(lo, lo), (hi, hi)],
                        BLACK.stroke_width(2),
                    ))?;
                    if text && p == 0 {
                        line.label("μ = tan θ").legend(|(x, y)| {
                            PathElement::new([(x, y), (x + 18, y)], BLACK.stroke_width(2))
                        });
                    }
                }
            }
            if text && p == 0 {
                let present = |state: &str| {
                    collected
                        .records()
                        .any(|r| matches!(&r.outcome, Outcome::Done(res) if res.verdict == state))
                };
                for state in [
                    "stopped",
                    "moving",
                    "sliding",
                    "tumbling",
                    "airborne",
                    "too_short",
                ] {
                    if present(state) {
                        let colour = verdict_colour(state);
                        chart
                            .draw_series(std::iter::empty::<Rectangle<(f64, f64)>>())?
                            .label(state)
                            .legend(move |(x, y)| {
                                Rectangle::new([(x, y - 6), (x + 12, y + 6)], colour.filled())
                            });
                    }
                }
                draw_legend(&mut chart, SeriesLabelPosition::UpperLeft)?;
            }
        }
        root.present()?;
    }
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edges_lie_halfway_between_centres() {
        assert_eq!(edges(&[1.0, 2.0, 4.0]), vec![0.5, 1.5, 3.0, 5.0]);
    }
}
