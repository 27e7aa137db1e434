//! What the sweep figures share (the module's own: a slope sweep's, `scene`: a scene sweep's): the
//! verdicts' colours, the cells' rectangles over the axes' values, and the legend box.

use plotters::prelude::*;

type DrawResult<T> = Result<T, Box<dyn std::error::Error>>;

/// The colour of a verdict state.
pub fn verdict_colour(state: &str) -> RGBColor {
    match state {
        "stopped" => RGBColor(44, 160, 44),
        "sliding" => RGBColor(214, 39, 40),
        "moving" => RGBColor(255, 127, 14),
        "tumbling" => RGBColor(148, 103, 189),
        // A scene's body that stays but turns (run::verdict::Verdict::Spinning).
        "spinning" => RGBColor(227, 119, 194),
        "airborne" => RGBColor(23, 190, 207),
        _ => RGBColor(150, 150, 150),
    }
}

/// The colour of a cell without data (missing or corrupt).
pub const NO_DATA: RGBColor = RGBColor(225, 225, 225);

/// The rectangle edges around sorted, distinct `centres`: midpoints between neighbours, and
/// half a gap beyond the ends.
pub fn edges(centres: &[f64]) -> Vec<f64> {
    let n = centres.len();
    if n == 1 {
        return vec![centres[0] - 0.5, centres[0] + 0.5];
    }
    let mut e = Vec::with_capacity(n + 1);
    e.push(centres[0] - 0.5 * (centres[1] - centres[0]));
    for k in 0..n - 1 {
        e.push(0.5 * (centres[k] + centres[k + 1]));
    }
    e.push(centres[n - 1] + 0.5 * (centres[n - 1] - centres[n - 2]));
    e
}

/// Sorted distinct values and the position of each original.
pub fn axis_positions(values: &[f64]) -> (Vec<f64>, Vec<usize>) {
    let mut sorted: Vec<f64> = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted.dedup();
    let pos = values
        .iter()
        .map(|v| sorted.iter().position(|s| s == v).unwrap_or(0))
        .collect();
    (sorted, pos)
}

/// The series' legend of a sweep figure's panel at `position`: on a white box, bordered, in the
/// figures' 14 px type (every sweep figure draws it so).
pub fn draw_legend<'a, CT: CoordTranslate>(
    chart: &mut ChartContext<'a, BitMapBackend<'a>, CT>,
    position: SeriesLabelPosition,
) -> DrawResult<()> {
    chart
        .configure_series_labels()
        .position(position)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 14))
        .draw()?;
    Ok(())
}
