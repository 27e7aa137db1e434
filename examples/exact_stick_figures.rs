//! The figure of exact stick (issue 38, SPEC.md §9), `docs/img/exact_stick.png`, and the
//! numbers it shows, printed:
//!
//! * **left**: the 3D box held on its incline (`cases/box3d_incline.toml` at μ_s = μ_k = 0.5 >
//!   tan 20° = 0.364) — the largest node displacement since t = 2 s (when it has settled)
//!   against time, on one log axis, for smoothed friction (which creeps at
//!   v* = ε_v(1 − √(1 − tan θ/μ)) = 47.8 µm/s, SPEC.md §6) and exact stick;
//! * **right**: the stick–slip map's boundary for both models: the book's square (the sweep
//!   `sweeps/stick_slip.toml`'s case, 15 s, its verdict) started at rest flat on slopes
//!   tan θ = 0.05 … 0.4 (stated in the slope's frame: floor normal (0, 1), gravity
//!   |g| (sin θ, −cos θ)) at μ = tan θ + δ for δ = ±0.0005, ±0.002, ±0.005, ±0.02; a filled
//!   mark where the verdict is "stopped", an open one where it is not. Coulomb's rule: stopped
//!   iff δ > 0.
//!
//! It also prints, for both models, the cells of the same offsets where the square *dropped*
//! as the sweep drops it misses Coulomb's rule: a landing square at small δ > 0 decelerates at
//! only g δ cos θ and has not stopped by the run's end, whatever the friction model.
//!
//! `cargo run --release --example exact_stick_figures [OUT_DIR]` (default `docs/img`). The PNG
//! is marked as this example's (`graphics::write_png`) and replaces only a figure it wrote.

use std::path::{Path, PathBuf};

use plotters::prelude::*;
use stickslip::energy::Vec3;
use stickslip::graphics::{load_font, write_png};
use stickslip::run::multibody::solid::SolidRunner;
use stickslip::run::runner::{RunOptions, Runner};
use stickslip::run::verdict::Verdict;
use stickslip::scene::multibody::solid::SolidScene;
use stickslip::scene::{Override, Scene};

const WIDTH: u32 = 1600;
const HEIGHT: u32 = 700;
/// The held box has settled by then, s (its start half a d̂ above the plane rings down).
const SETTLED_S: f64 = 2.0;
/// The held box's run, s.
const HELD_END_S: f64 = 12.0;
/// The floor of the log axis, m: displacements below it are drawn on it.
const FLOOR_M: f64 = 1e-12;
/// The map's slopes.
const TAN_THETAS: [f64; 8] = [0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4];
/// The map's offsets of μ from tan θ.
const OFFSETS: [f64; 8] = [-0.02, -0.005, -0.002, -0.0005, 0.0005, 0.002, 0.005, 0.02];
const MODELS: [(&str, RGBColor); 2] = [
    ("smoothed", RGBColor(214, 39, 40)),
    ("exact", RGBColor(31, 119, 180)),
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn overrides(settings: &[String]) -> Result<Vec<Override>, String> {
    settings
        .iter()
        .map(|s| Override::parse(s).map_err(|e| e.to_string()))
        .collect()
}

/// The held box with `stick`: (t, largest node displacement since [`SETTLED_S`]) per step after
/// it, m.
fn held(stick: &str) -> Result<Vec<(f64, f64)>, String> {
    let settings = [
        "friction.mu_static=0.5".to_string(),
        "friction.mu_kinetic=0.5".to_string(),
        format!("time.duration={HELD_END_S}"),
        format!("friction.stick=\"{stick}\""),
    ];
    let scene = SolidScene::load(
        &root().join("cases/box3d_incline.toml"),
        &overrides(&settings)?,
    )
    .map_err(|e| e.to_string())?;
    let mut r = SolidRunner::new(scene, None).map_err(|e| e.to_string())?;
    while r.sim.time() < SETTLED_S - 1e-9 {
        r.step().map_err(|e| e.to_string())?;
    }
    let at_rest: Vec<Vec3> = r.sim.x.clone();
    let mut curve = Vec::new();
    while !r.done() {
        r.step().map_err(|e| e.to_string())?;
        let moved = r
            .sim
            .x
            .iter()
            .zip(&at_rest)
            .map(|(p, q)| (p - q).norm())
            .fold(0.0, f64::max);
        curve.push((r.sim.time(), moved));
    }
    Ok(curve)
}

/// Whether the book's square on tan θ with μ = `mu` and `stick`, started at rest on the slope
/// or `dropped` as the sweep drops it, is "stopped" after the map's run.
fn stops(tan_theta: f64, mu: f64, stick: &str, dropped: bool) -> Result<bool, String> {
    let path = root().join("cases/slope_mu0.11.toml");
    let text = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
    let mut settings = vec![
        "time.duration=15".to_string(),
        format!("friction.mu={mu}"),
        format!("friction.stick=\"{stick}\""),
    ];
    if dropped {
        settings.push(format!("slope.normal=[{tan_theta}, 1.0]"));
    } else {
        let cos = 1.0 / (1.0 + tan_theta * tan_theta).sqrt();
        let g = 9.81;
        settings.extend([
            "slope.normal=[0.0, 1.0]".to_string(),
            "slope.point=[0.0, -1.0]".to_string(),
            format!(
                "gravity.acceleration=[{}, {}]",
                g * tan_theta * cos,
                -g * cos
            ),
            // Bottom row 9 mm up, near the gap at which the barrier carries the weight.
            "square.centre=[0.0, -0.491]".to_string(),
        ]);
    }
    let scene = Scene::from_toml_with_overrides(&text, &path, &overrides(&settings)?)
        .map_err(|e| e.to_string())?;
    let mut r = Runner::new(scene, &RunOptions::default()).map_err(|e| e.to_string())?;
    while !r.done() {
        r.step().map_err(|e| e.to_string())?;
        r.records.clear();
    }
    Ok(matches!(r.verdict(), Verdict::Stopped { .. }))
}

type Curve = Vec<(f64, f64)>;
type Map = Vec<(f64, f64, bool)>;

fn draw(
    held: &[(&str, RGBColor, Curve)],
    maps: &[(&str, RGBColor, Map)],
) -> Result<Vec<u8>, String> {
    let mut buf = vec![255u8; (WIDTH * HEIGHT * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut buf, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let (left, right) = root.split_horizontally(WIDTH / 2);
        let mut chart = ChartBuilder::on(&left)
            .caption(
                "3D box held on its incline (μ = 0.5 > tan 20°): drift since t = 2 s",
                ("sans-serif", 22),
            )
            .margin(20)
            .x_label_area_size(50)
            .y_label_area_size(80)
            .build_cartesian_2d(SETTLED_S..HELD_END_S, (FLOOR_M..1e-2).log_scale())
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .x_desc("t (s)")
            .y_desc("largest node displacement (m)")
            .y_label_formatter(&|v| format!("{v:.0e}"))
            .draw()
            .map_err(|e| e.to_string())?;
        for (name, colour, curve) in held {
            chart
                .draw_series(LineSeries::new(
                    curve.iter().map(|&(t, d)| (t, d.max(FLOOR_M))),
                    colour.stroke_width(3),
                ))
                .map_err(|e| e.to_string())?
                .label(format!(
                    "{name} (drift at 12 s: {:.2e} m)",
                    curve.last().map_or(0.0, |c| c.1)
                ))
                .legend(move |(x, y)| {
                    PathElement::new([(x, y), (x + 20, y)], colour.stroke_width(3))
                });
        }
        chart
            .draw_series(std::iter::once(PathElement::new(
                [(SETTLED_S, 1e-6), (HELD_END_S, 1e-6)],
                BLACK.stroke_width(2),
            )))
            .map_err(|e| e.to_string())?
            .label("1 µm (issue 38's bound over 10 s)")
            .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], BLACK.stroke_width(2)));
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::MiddleRight)
            .background_style(WHITE.mix(0.9))
            .border_style(BLACK)
            .label_font(("sans-serif", 18))
            .draw()
            .map_err(|e| e.to_string())?;

        let mut chart = ChartBuilder::on(&right)
            .caption(
                "the square at rest on the slope: stopped (filled) or not (open), μ = tan θ + δ",
                ("sans-serif", 22),
            )
            .margin(20)
            .x_label_area_size(50)
            .y_label_area_size(80)
            .build_cartesian_2d(0.0..0.62, -0.5..(OFFSETS.len() as f64 - 0.5))
            .map_err(|e| e.to_string())?;
        // One row per offset, evenly spaced whatever the offsets are.
        chart
            .configure_mesh()
            .x_desc("tan θ")
            .y_desc("δ = μ − tan θ")
            .y_labels(OFFSETS.len())
            .y_label_formatter(&|v| {
                let k = v.round();
                if (v - k).abs() < 1e-6 && k >= 0.0 && (k as usize) < OFFSETS.len() {
                    format!("{:+}", OFFSETS[k as usize])
                } else {
                    String::new()
                }
            })
            .draw()
            .map_err(|e| e.to_string())?;
        let zero_row = OFFSETS.iter().filter(|&&d| d < 0.0).count() as f64 - 0.5;
        chart
            .draw_series(std::iter::once(PathElement::new(
                [(0.0, zero_row), (0.62, zero_row)],
                BLACK.stroke_width(1),
            )))
            .map_err(|e| e.to_string())?
            .label("Coulomb: stops iff δ > 0")
            .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], BLACK));
        for (k, (name, colour, map)) in maps.iter().enumerate() {
            // The two models side by side at each slope.
            let shift = if k == 0 { -0.006 } else { 0.006 };
            let colour = *colour;
            chart
                .draw_series(map.iter().map(move |&(t, d, stopped)| {
                    let row = OFFSETS.iter().position(|&o| o == d).unwrap_or(0) as f64;
                    Circle::new(
                        (t + shift, row),
                        7,
                        if stopped {
                            colour.filled()
                        } else {
                            colour.stroke_width(2)
                        },
                    )
                }))
                .map_err(|e| e.to_string())?
                .label(format!(
                    "{name} ({} of each slope)",
                    if k == 0 { "left" } else { "right" }
                ))
                .legend(move |(x, y)| Circle::new((x + 10, y), 7, colour.filled()));
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::MiddleRight)
            .background_style(WHITE.mix(0.9))
            .border_style(BLACK)
            .label_font(("sans-serif", 18))
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
    let mut curves = Vec::new();
    for (name, colour) in MODELS {
        let curve = held(name)?;
        let at = |t: f64| {
            curve
                .iter()
                .find(|c| c.0 >= t - 1e-9)
                .map_or(f64::NAN, |c| c.1)
        };
        println!(
            "held box, {name}: largest node displacement since t = {SETTLED_S} s: {:.3e} m at 7 s, {:.3e} m at {HELD_END_S} s",
            at(7.0),
            at(HELD_END_S)
        );
        curves.push((name, colour, curve));
    }
    let mut maps = Vec::new();
    for (name, colour) in MODELS {
        let mut map = Vec::new();
        let mut wrong = Vec::new();
        let mut dropped_wrong = Vec::new();
        for t in TAN_THETAS {
            for d in OFFSETS {
                let stopped = stops(t, t + d, name, false)?;
                if stopped != (d > 0.0) {
                    wrong.push(format!("tan θ = {t}, δ = {d:+}"));
                }
                if stops(t, t + d, name, true)? != (d > 0.0) {
                    dropped_wrong.push(format!("tan θ = {t}, δ = {d:+}"));
                }
                map.push((t, d, stopped));
            }
        }
        println!(
            "map, {name}, at rest: {} of {} cells against Coulomb's rule{}{}",
            wrong.len(),
            map.len(),
            if wrong.is_empty() { "" } else { ": " },
            wrong.join("; ")
        );
        println!(
            "map, {name}, dropped as the sweep drops it: {} of {} cells against Coulomb's rule{}{}",
            dropped_wrong.len(),
            map.len(),
            if dropped_wrong.is_empty() { "" } else { ": " },
            dropped_wrong.join("; ")
        );
        maps.push((name, colour, map));
    }
    let rgb = draw(&curves, &maps)?;
    let path = out.join("exact_stick.png");
    write_png(&path, &rgb, WIDTH, HEIGHT, "example exact_stick_figures")?;
    println!("wrote {}", Path::new(&path).display());
    Ok(())
}
