//! The physics under refinement (docs/refinement.md): the slope cases at μ = 0.11 and 0.2 run
//! 8 s at n_seg = 4, 8, 16, 32, 64 with the given `--set`-style overrides, and the downhill
//! distance by 8 s and the stop time are written to `DIR/refinement.csv` and drawn against
//! n_seg into `DIR/refinement.png`, with the Newton iterations and wall time of every run.
//!
//! `cargo run --release --example refinement -- docs/img newton.projection=none newton.max_iterations=1000`
//!
//! The PNG is marked as this example's (`graphics::write_png`) and replaces only a figure it
//! wrote: remove a figure from before that marker to regenerate it.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use plotters::prelude::*;
use stickslip::app::plot::plotters_font;
use stickslip::graphics::write_png;
use stickslip::run::runner::{RunOptions, nearest_rank, run};
use stickslip::run::verdict::Verdict;
use stickslip::scene::{Override, Scene};

const N_SEG: [usize; 5] = [4, 8, 16, 32, 64];
const CASES: [(&str, &str); 2] = [("0.11", "slope_mu0.11.toml"), ("0.2", "slope_mu0.20.toml")];

struct Row {
    mu: &'static str,
    n_seg: usize,
    downhill: f64,
    stop: Option<f64>,
    iterations: usize,
    mean: f64,
    p95: usize,
    max: usize,
    halvings: usize,
    shifts: usize,
    fallbacks: usize,
    inverted: usize,
    wall: f64,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let dir = PathBuf::from(args.next().ok_or("usage: refinement DIR [KEY=VALUE…]")?);
    let settings: Vec<String> = args.collect();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut rows = Vec::new();
    for (mu, file) in CASES {
        for n in N_SEG {
            let mut overrides = settings
                .iter()
                .map(|s| Override::parse(s))
                .collect::<Result<Vec<_>, _>>()?;
            overrides.push(Override::parse(&format!("square.n_seg={n}"))?);
            let scene = Scene::load_with_overrides(&root.join("cases").join(file), &overrides)?;
            let clock = Instant::now();
            let runner = run(scene, &RunOptions::default(), None, |_, _| {})?;
            let wall = clock.elapsed().as_secs_f64();
            let mut its: Vec<usize> = runner
                .rows
                .iter()
                .skip(1)
                .map(|r| r.newton_iterations)
                .collect();
            its.sort_unstable();
            let t = runner.totals;
            let row = Row {
                mu,
                n_seg: n,
                downhill: runner.rows.last().map_or(0.0, |r| r.downhill_distance),
                stop: match runner.verdict() {
                    Verdict::Stopped { since, .. } => Some(since),
                    _ => None,
                },
                iterations: t.newton_iterations,
                mean: t.newton_iterations as f64 / t.steps.max(1) as f64,
                p95: nearest_rank(&its, 0.95),
                max: t.max_iterations_in_step,
                halvings: t.line_search_halvings,
                shifts: t.mass_shifts,
                fallbacks: t.projection_fallbacks,
                inverted: t.max_inverted_triangles,
                wall,
            };
            println!(
                "mu {mu} n_seg {n:2}: downhill {:.4} m, stop {}, iterations {} ({:.2}/{}/{}), halvings {}, mass shifts {}, clamp fallbacks {}, inverted triangles (most) {}, wall {:.2} s",
                row.downhill,
                row.stop.map_or("-".into(), |s| format!("{s:.2} s")),
                row.iterations,
                row.mean,
                row.p95,
                row.max,
                row.halvings,
                row.shifts,
                row.fallbacks,
                row.inverted,
                row.wall
            );
            rows.push(row);
        }
    }
    std::fs::create_dir_all(&dir)?;
    let mut csv = std::fs::File::create(dir.join("refinement.csv"))?;
    writeln!(
        csv,
        "# stickslip examples/refinement.rs, settings: {}",
        settings.join(" ")
    )?;
    writeln!(
        csv,
        "mu,n_seg,downhill_distance_8s_m,stop_time_s,newton_iterations,mean_per_step,p95_per_step,max_per_step,line_search_halvings,mass_shifts,clamp_fallbacks,max_inverted_triangles,wall_s"
    )?;
    for r in &rows {
        writeln!(
            csv,
            "{},{},{},{},{},{:.3},{},{},{},{},{},{},{:.3}",
            r.mu,
            r.n_seg,
            r.downhill,
            r.stop.map_or(String::new(), |s| format!("{s}")),
            r.iterations,
            r.mean,
            r.p95,
            r.max,
            r.halvings,
            r.shifts,
            r.fallbacks,
            r.inverted,
            r.wall
        )?;
    }
    let (w, h) = (1200u32, 700u32);
    let rgb = draw(&rows, w, h).map_err(|e| format!("drawing: {e}"))?;
    write_png(
        &dir.join("refinement.png"),
        &rgb,
        w,
        h,
        "example refinement",
    )?;
    println!(
        "wrote {0}/refinement.csv and {0}/refinement.png",
        dir.display()
    );
    Ok(())
}

fn draw(rows: &[Row], width: u32, height: u32) -> Result<Vec<u8>, String> {
    let text = plotters_font();
    let mut buf = vec![255u8; (width * height * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut buf, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let (left, right) = root.split_horizontally(width / 2);
        type Pick = fn(&Row) -> Option<f64>;
        let panels: [(&DrawingArea<_, _>, &str, Pick); 2] = [
            (&left, "downhill distance by t = 8 s (m)", |r| {
                Some(r.downhill)
            }),
            (&right, "stop time (s)", |r| r.stop),
        ];
        let colours = [RGBColor(31, 119, 180), RGBColor(214, 39, 40)];
        for (area, y_desc, pick) in panels {
            let hi = rows.iter().filter_map(pick).fold(0.1f64, f64::max) * 1.1;
            let mut b = ChartBuilder::on(area);
            b.margin(16);
            if text {
                b.caption(y_desc, ("sans-serif", 22))
                    .x_label_area_size(44)
                    .y_label_area_size(60);
            }
            let mut chart = b
                .build_cartesian_2d(1.8f64..6.2f64, 0.0..hi)
                .map_err(|e| e.to_string())?;
            let mut mesh = chart.configure_mesh();
            mesh.light_line_style(RGBColor(235, 235, 235))
                .x_labels(5)
                .x_label_formatter(&|x| format!("{}", 2f64.powf(*x).round()));
            if text {
                mesh.x_desc("n_seg (segments a side, log scale)")
                    .y_desc(y_desc)
                    .label_style(("sans-serif", 15))
                    .axis_desc_style(("sans-serif", 16));
            } else {
                mesh.x_labels(0).y_labels(0);
            }
            mesh.draw().map_err(|e| e.to_string())?;
            for (k, (mu, _)) in CASES.iter().enumerate() {
                let c = colours[k];
                let pts: Vec<(f64, f64)> = rows
                    .iter()
                    .filter(|r| r.mu == *mu)
                    .filter_map(|r| pick(r).map(|y| ((r.n_seg as f64).log2(), y)))
                    .collect();
                let drawn = chart
                    .draw_series(LineSeries::new(pts.clone(), c.stroke_width(2)))
                    .map_err(|e| e.to_string())?;
                if text {
                    let label = format!("μ = {mu}");
                    drawn.label(label).legend(move |(x, y)| {
                        PathElement::new([(x, y), (x + 24, y)], c.stroke_width(3))
                    });
                }
                chart
                    .draw_series(pts.iter().map(|p| Circle::new(*p, 4, c.filled())))
                    .map_err(|e| e.to_string())?;
            }
            if text {
                chart
                    .configure_series_labels()
                    .position(SeriesLabelPosition::UpperRight)
                    .background_style(WHITE.mix(0.85))
                    .border_style(BLACK)
                    .label_font(("sans-serif", 16))
                    .draw()
                    .map_err(|e| e.to_string())?;
            }
        }
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(buf)
}
