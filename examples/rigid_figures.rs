//! The figures of docs/rigid.md:
//!
//! * `docs/img/rigid_energy.png`: total energy and height of the lowest point against time for
//!   `cases/football.toml` (energy-safe) and `cases/football_seed.toml` (the seed's model), with
//!   every impact marked;
//! * `docs/img/rigid_convergence.png`: CG4's self-convergence on the torque-free case of
//!   `cases/football_torque_free.toml` (error in R as ‖log(R_hᵀR_{h/2})‖ at t = 2 s) against h,
//!   log–log, with a slope-4 guide.
//!
//! `cargo run --release --example rigid_figures [OUT_DIR]` (default `docs/img`). Each PNG is
//! marked as this example's (`graphics::write_png`) and replaces only a figure it wrote: remove
//! a figure from before that marker to regenerate it.

use std::path::{Path, PathBuf};

use plotters::prelude::*;
use stickslip::graphics::{load_font, write_png};
use stickslip::rigid::case::RigidScene;
use stickslip::rigid::run::{RigidRun, simulate};
use stickslip::rigid::{cg4, se3};

const WIDTH: u32 = 1200;
const HEIGHT: u32 = 900;

fn case(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("cases")
        .join(name)
}

fn draw_energy(runs: &[(&str, RGBColor, RigidRun)]) -> Result<Vec<u8>, String> {
    let mut buf = vec![255u8; (WIDTH * HEIGHT * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut buf, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let (top, bottom) = root.split_vertically(HEIGHT / 2);
        let t_end = runs
            .iter()
            .filter_map(|r| r.2.rows.last().map(|x| x.t))
            .fold(0.5, f64::max);
        type Pick = fn(&stickslip::rigid::run::RigidRow) -> f64;
        let panels: [(&DrawingArea<_, _>, &str, &str, Pick); 2] = [
            (
                &top,
                "total energy (J)",
                "The football: total energy (kinetic + potential); dots = impacts",
                |r| r.kinetic + r.potential,
            ),
            (
                &bottom,
                "height of the lowest point (m)",
                "height of the lowest point above the ground",
                |r| r.distance,
            ),
        ];
        for (area, y_desc, title, pick) in panels {
            let (lo, hi) = runs
                .iter()
                .flat_map(|r| r.2.rows.iter().map(pick))
                .fold((0.0f64, 0.1f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
            let pad = 0.05 * (hi - lo);
            let mut chart = ChartBuilder::on(area)
                .margin(14)
                .caption(title, ("sans-serif", 22))
                .x_label_area_size(40)
                .y_label_area_size(64)
                .build_cartesian_2d(0.0..t_end, (lo - pad)..(hi + pad))
                .map_err(|e| e.to_string())?;
            chart
                .configure_mesh()
                .light_line_style(RGBColor(235, 235, 235))
                .x_desc("t (s)")
                .y_desc(y_desc)
                .label_style(("sans-serif", 15))
                .axis_desc_style(("sans-serif", 16))
                .draw()
                .map_err(|e| e.to_string())?;
            for (label, colour, run) in runs {
                let colour = *colour;
                chart
                    .draw_series(LineSeries::new(
                        run.rows.iter().map(|r| (r.t, pick(r))),
                        colour.stroke_width(2),
                    ))
                    .map_err(|e| e.to_string())?
                    .label(*label)
                    .legend(move |(x, y)| {
                        PathElement::new([(x, y), (x + 24, y)], colour.stroke_width(3))
                    });
                // Each impact: a dot on the curve at the impact time (the row just after it).
                let marks = run.events.iter().filter_map(|e| {
                    run.rows
                        .iter()
                        .find(|r| r.t >= e.t)
                        .map(|r| Circle::new((e.t, pick(r)), 4, colour.filled()))
                });
                chart.draw_series(marks).map_err(|e| e.to_string())?;
            }
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::UpperRight)
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK)
                .label_font(("sans-serif", 16))
                .draw()
                .map_err(|e| e.to_string())?;
        }
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(buf)
}

/// (h, ‖log(R_hᵀR_{h/2})‖ at t = 2 s) for the torque-free case.
fn convergence() -> Vec<(f64, f64)> {
    let scene = RigidScene::load(&case("football_torque_free.toml")).expect("case loads");
    let t_end = 2.0;
    let hs: Vec<f64> = (0..7).map(|k| 0.04 / 2f64.powi(k)).collect();
    let finals: Vec<_> = hs
        .iter()
        .map(|&h| {
            let steps = (t_end / h).round() as usize;
            (0..steps).fold(scene.initial, |s, _| cg4::step(&scene.body, &s, h))
        })
        .collect();
    hs.iter()
        .zip(finals.windows(2))
        .map(|(&h, w)| {
            (
                h,
                se3::log_so3(&(w[0].pose.r.transpose() * w[1].pose.r)).norm(),
            )
        })
        .collect()
}

fn draw_convergence(points: &[(f64, f64)]) -> Result<Vec<u8>, String> {
    let (w, h) = (900u32, 700u32);
    let mut buf = vec![255u8; (w * h * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut buf, (w, h)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let x_lo = points.iter().map(|p| p.0).fold(f64::INFINITY, f64::min) / 1.5;
        let x_hi = points.iter().map(|p| p.0).fold(0.0, f64::max) * 1.5;
        let y_lo = points.iter().map(|p| p.1).fold(f64::INFINITY, f64::min) / 10.0;
        let y_hi = points.iter().map(|p| p.1).fold(0.0, f64::max) * 10.0;
        let mut chart = ChartBuilder::on(&root)
            .margin(18)
            .caption(
                "CG4 self-convergence, torque-free tumbling (t = 2 s)",
                ("sans-serif", 22),
            )
            .x_label_area_size(48)
            .y_label_area_size(80)
            .build_cartesian_2d((x_lo..x_hi).log_scale(), (y_lo..y_hi).log_scale())
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .x_desc("h (s)")
            .y_desc("‖log(R_hᵀ R_h/2)‖ (rad)")
            .label_style(("sans-serif", 15))
            .axis_desc_style(("sans-serif", 16))
            .y_label_formatter(&|v| format!("{v:.0e}"))
            .x_label_formatter(&|v| {
                // Only 1, 2 and 5 of each decade: the others crowd the axis.
                let mantissa = v / 10f64.powf(v.log10().floor());
                if [1.0, 2.0, 5.0].iter().any(|m| (mantissa - m).abs() < 1e-6) {
                    format!("{v:.0e}")
                } else {
                    String::new()
                }
            })
            .draw()
            .map_err(|e| e.to_string())?;
        let blue = RGBColor(31, 119, 180);
        chart
            .draw_series(LineSeries::new(
                points.iter().copied(),
                blue.stroke_width(2),
            ))
            .map_err(|e| e.to_string())?
            .label("measured")
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 24, y)], blue.stroke_width(3)));
        chart
            .draw_series(points.iter().map(|&p| Circle::new(p, 5, blue.filled())))
            .map_err(|e| e.to_string())?;
        // Slope-4 guide through the middle point.
        let mid = points[points.len() / 2];
        let guide = [x_lo, x_hi].map(|x| (x, mid.1 * (x / mid.0).powi(4)));
        chart
            .draw_series(LineSeries::new(guide, BLACK.stroke_width(1)))
            .map_err(|e| e.to_string())?
            .label("slope 4")
            .legend(|(x, y)| PathElement::new([(x, y), (x + 24, y)], BLACK.stroke_width(1)));
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .label_font(("sans-serif", 16))
            .draw()
            .map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(buf)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = std::env::args()
        .nth(1)
        .map_or(PathBuf::from("docs/img"), PathBuf::from);
    let (_, font) = load_font().ok_or("DejaVu Sans not found (fonts-dejavu-core)")?;
    let font: &'static [u8] = Box::leak(font.into_boxed_slice());
    plotters::style::register_font("sans-serif", FontStyle::Normal, font)
        .map_err(|_| "font not usable")?;
    let safe = simulate(&RigidScene::load(&case("football.toml"))?, None)?;
    let seed = simulate(&RigidScene::load(&case("football_seed.toml"))?, None)?;
    for (name, run) in [("football.toml", &safe), ("football_seed.toml", &seed)] {
        println!(
            "{name}: {} impacts, {}, largest gain {:.3e} J",
            run.summary.impacts, run.summary.ended, run.summary.largest_energy_gain
        );
    }
    let rgb = draw_energy(&[
        (
            "energy-safe, μ = 0.4 (football.toml)",
            RGBColor(31, 119, 180),
            safe,
        ),
        (
            "seed: newton, μ = ∞ (football_seed.toml)",
            RGBColor(214, 39, 40),
            seed,
        ),
    ])?;
    write_png(
        &out.join("rigid_energy.png"),
        &rgb,
        WIDTH,
        HEIGHT,
        "example rigid_figures",
    )?;
    let points = convergence();
    for w in points.windows(2) {
        println!(
            "h = {:.5}: error {:.3e}; order {:.3}",
            w[0].0,
            w[0].1,
            (w[0].1 / w[1].1).log2()
        );
    }
    let rgb = draw_convergence(&points)?;
    write_png(
        &out.join("rigid_convergence.png"),
        &rgb,
        900,
        700,
        "example rigid_figures",
    )?;
    println!(
        "wrote {}/rigid_energy.png and rigid_convergence.png",
        out.display()
    );
    Ok(())
}
