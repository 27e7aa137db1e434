//! `stickslip plot`: the book's Figure 10.2.1 as a static PNG: the centroid's downhill distance
//! and speed against time, one curve a case, two panels.
//!
//! The data come from [`runner::run`], the same code path as `stickslip run` (its
//! `trajectory.csv`); `--data DIR` writes what was plotted in that file's format, one CSV a case.
//! Both output paths are checked before anything runs ([`crate::app::output`]): the figure
//! replaces only a figure `plot` wrote, the data directory only plotted data.
//!
//! One case of `kind = "scene"` gets its own figure instead (`crate::app::scene_plot`, which
//! the CLI dispatches to).
//!
//! Text (title, axis labels, legend) is drawn in DejaVu Sans, read at run time from
//! [`crate::graphics::FONT_PATHS`] (or the file named by `STICKSLIP_FONT`); without it the figure is drawn without
//! any text and a notice goes to stderr.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use clap::Args;
use plotters::prelude::*;

use crate::app::output::{self, OutputError, OutputFile, StageError, StagedDir, WrittenBy};
use crate::console::{BadOption, EmitError, check_overrides, check_positive, emit};
use crate::graphics::{FONT_ENV, Rgb, case_colour, load_font};
use crate::number_format::Short;
use crate::run::runner::{self, RunError, RunOptions, TrajectoryRow};
use crate::scene::{CaseError, Scene};

/// Registers the font with plotters once per process; whether text can be drawn.
pub fn plotters_font() -> bool {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    *REGISTERED.get_or_init(|| match load_font() {
        Some((path, bytes)) => {
            let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
            let ok = plotters::style::register_font("sans-serif", FontStyle::Normal, bytes).is_ok();
            if !ok {
                eprintln!(
                    "stickslip: {} is not a usable font; the figure has no text",
                    path.display()
                );
            }
            ok
        }
        None => {
            eprintln!(
                "stickslip: no DejaVu Sans found (install fonts-dejavu-core or set {FONT_ENV}); the figure has no text"
            );
            false
        }
    })
}

/// `stickslip plot`.
#[derive(Debug, Args)]
pub struct PlotArgs {
    /// Case files (default: the three built-in slope cases), or one case of `kind = "scene"`
    /// alone, drawn in a figure of its own (docs/scenes.md, "Figures").
    pub cases: Vec<PathBuf>,
    /// The PNG to write: a new file (its missing directories are made), or a figure
    /// `stickslip plot` wrote; anything else there is refused before the cases run.
    #[arg(long, default_value = "slopes.png")]
    pub out: PathBuf,
    /// Also write the plotted data, one `<case file stem>.csv` a case in `trajectory.csv`'s
    /// format, into this directory.
    #[arg(long, value_name = "DIR")]
    pub data: Option<PathBuf>,
    /// Simulated seconds per case (default: the case's `time.duration`).
    #[arg(long)]
    pub duration: Option<f64>,
    /// Newton tolerance, m/s (default: the case's).
    #[arg(long)]
    pub tol: Option<f64>,
    /// Override a key of every case file (repeatable): `--set square.n_seg=16`.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<crate::scene::Override>,
    /// Figure width, px.
    #[arg(long, default_value_t = 1200)]
    pub width: u32,
    /// Figure height, px.
    #[arg(long, default_value_t = 900)]
    pub height: u32,
}

/// One plotted case.
#[derive(Clone, Debug)]
pub struct Series {
    /// The legend label (μ).
    pub label: String,
    /// The case file's stem (the data file's name).
    pub stem: String,
    /// The trajectory, as `stickslip run` writes it.
    pub rows: Vec<TrajectoryRow>,
}

/// Runs every scene with [`runner::run`] (no cross-check) and keeps its trajectory.
pub fn run_series(scenes: Vec<Scene>, opts: &RunOptions) -> Result<Vec<Series>, RunError> {
    scenes
        .into_iter()
        .enumerate()
        .map(|(k, scene)| {
            let tol = opts.tol.unwrap_or(scene.tol);
            let label = format!("μ = {}, tol = {tol:e} m/s", Short(scene.mu));
            let stem = scene
                .source
                .as_ref()
                .and_then(|p| p.file_stem())
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| format!("case{}", k + 1));
            let runner = runner::run(scene, opts, None, |_, _| {})?;
            Ok(Series {
                label,
                stem,
                rows: runner.rows,
            })
        })
        .collect()
}

fn rgb(c: Rgb) -> RGBColor {
    RGBColor(c[0], c[1], c[2])
}

/// Width of every curve, px.
pub const CURVE_WIDTH: u32 = 2;

/// Top of the lower panel, px from the top: the figure splits at half its height.
pub fn panel_split(height: u32) -> u32 {
    height / 2
}

/// Draws the two-panel figure into an RGB buffer of `width` × `height`.
pub fn render(series: &[Series], width: u32, height: u32) -> Result<Vec<u8>, String> {
    let text = plotters_font();
    let mut buf = vec![255u8; width as usize * height as usize * 3];
    {
        let root = BitMapBackend::with_buffer(&mut buf, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let (top, bottom) = root.split_vertically(panel_split(height));
        let t_end = series
            .iter()
            .filter_map(|s| s.rows.last().map(|r| r.t))
            .fold(1.0f64, f64::max);
        type Pick = fn(&TrajectoryRow) -> f64;
        // Legends where the curves are not: upper left above the distances (which start at 0),
        // middle right in the speed panel (the curves end at 0 and ≈ 0.47 m/s).
        let panels: [(&DrawingArea<_, _>, &str, &str, Pick, SeriesLabelPosition); 2] = [
            (
                &top,
                "downhill distance of the centroid (m)",
                "The square on the slope: downhill distance against time (Figure 10.2.1)",
                |r| r.downhill_distance,
                SeriesLabelPosition::UpperLeft,
            ),
            (
                &bottom,
                "downhill speed of the centroid (m/s)",
                "downhill speed against time",
                |r| r.downhill_speed,
                SeriesLabelPosition::MiddleRight,
            ),
        ];
        for (area, y_desc, title, pick, legend_at) in panels {
            let (lo, hi) = series
                .iter()
                .flat_map(|s| s.rows.iter().map(pick))
                .fold((0.0f64, 0.1f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
            let pad = 0.05 * (hi - lo);
            let mut builder = ChartBuilder::on(area);
            builder.margin(14);
            if text {
                builder
                    .caption(title, ("sans-serif", 22))
                    .x_label_area_size(40)
                    .y_label_area_size(64);
            } else {
                builder.x_label_area_size(8).y_label_area_size(8);
            }
            let mut chart = builder
                .build_cartesian_2d(0.0..t_end, (lo - pad)..(hi + pad))
                .map_err(|e| e.to_string())?;
            let mut mesh = chart.configure_mesh();
            mesh.light_line_style(RGBColor(235, 235, 235));
            if text {
                mesh.x_desc("t (s)")
                    .y_desc(y_desc)
                    .label_style(("sans-serif", 15))
                    .axis_desc_style(("sans-serif", 16));
            } else {
                mesh.x_labels(0).y_labels(0);
            }
            mesh.draw().map_err(|e| e.to_string())?;
            for (k, s) in series.iter().enumerate() {
                let colour = rgb(case_colour(k));
                let drawn = chart
                    .draw_series(LineSeries::new(
                        s.rows.iter().map(|r| (r.t, pick(r))),
                        colour.stroke_width(CURVE_WIDTH),
                    ))
                    .map_err(|e| e.to_string())?;
                if text {
                    drawn.label(s.label.clone()).legend(move |(x, y)| {
                        PathElement::new([(x, y), (x + 24, y)], colour.stroke_width(3))
                    });
                }
            }
            if text {
                chart
                    .configure_series_labels()
                    .position(legend_at)
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

/// Errors of `stickslip plot`; the CLI maps them to its own (and to the exit code).
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    /// Bad case file (exit 2).
    #[error(transparent)]
    Case(#[from] CaseError),
    /// Bad option value (exit 2).
    #[error(transparent)]
    Option(#[from] BadOption),
    /// A run failed (exit 1).
    #[error(transparent)]
    Run(#[from] RunError),
    /// A scene's run failed (exit 1).
    #[error(transparent)]
    Scene(#[from] crate::run::multibody::SceneRunError),
    /// The figure could not be drawn or written (exit 1).
    #[error(transparent)]
    Output(#[from] OutputError),
    /// `--data DIR` could not be staged, or is not stickslip's to write.
    #[error(transparent)]
    Stage(#[from] StageError),
    /// Printing the report failed (a closed stdout ends quietly).
    #[error(transparent)]
    Emit(#[from] EmitError),
    /// A scene's run completed and its figure was written, but a body inverted or penetrated
    /// (exit 3, as `stickslip run`'s [`crate::app::scene_command::SceneCommandError::NotPhysical`]).
    #[error(transparent)]
    NotPhysical(crate::app::scene_command::SceneCommandError),
}

/// After a scene's figure: its `not physical:` and `warning:` lines
/// ([`crate::run::physical::Physicality::lines`]), and exit 3 when a body of case `case`
/// inverted or penetrated (`figure` is the figure written).
pub(crate) fn report_physicality(
    case: &str,
    physicality: &crate::run::physical::Physicality,
    element: &str,
    figure: &Path,
) -> Result<(), PlotError> {
    let lines = physicality.lines(element);
    if !lines.is_empty() {
        crate::console::emit(&lines)?;
    }
    crate::app::scene_command::physical_or_error(case, physicality, figure)
        .map_err(PlotError::NotPhysical)
}

/// Refuses a figure path inside the `--data` directory: the figure would be a file the data
/// directory's marker does not list.
pub(crate) fn refuse_figure_inside_data(figure: &Path, data: &Path) -> Result<(), StageError> {
    let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    if absolute(figure).starts_with(absolute(data)) {
        return Err(output::OutputRefused {
            path: figure.to_path_buf(),
            is_file: true,
            what: format!("is inside the --data directory {}", data.display()),
            advice: "give the figure a path outside the data directory".into(),
        }
        .into());
    }
    Ok(())
}

/// The figure's size rule: 200 to 8000 px each way.
pub fn check_size(args: &PlotArgs) -> Result<(), BadOption> {
    for (option, v) in [("--width", args.width), ("--height", args.height)] {
        if !(200..=8000).contains(&v) {
            return Err(BadOption::new(option, "must be between 200 and 8000 px", v));
        }
    }
    Ok(())
}

/// Runs `stickslip plot` for slope cases (one scene case goes to
/// [`crate::app::scene_plot::plot_scene`] instead; the CLI chooses).
pub fn plot_command(args: &PlotArgs) -> Result<(), PlotError> {
    check_positive("--duration", args.duration)?;
    check_positive("--tol", args.tol)?;
    check_size(args)?;
    let scenes = crate::scene::builtin::load_slope_cases(&args.cases, &args.set)?;
    for scene in &scenes {
        check_overrides(scene, args.duration, args.tol)?;
    }
    // Every output path is checked (and a foreign one refused) before anything runs.
    let figure = OutputFile::check(&args.out, "plot", true).map_err(StageError::from)?;
    if let Some(dir) = &args.data {
        refuse_figure_inside_data(&args.out, dir)?;
    }
    let staged = match &args.data {
        Some(dir) => Some(StagedDir::new(
            dir,
            WrittenBy::new("plot", crate::scene::kind::SLOPE_KIND),
        )?),
        None => None,
    };
    let opts = RunOptions {
        duration: args.duration,
        tol: args.tol,
        ..Default::default()
    };
    let series = run_series(scenes, &opts)?;
    let rgb = render(&series, args.width, args.height).map_err(|e| OutputError {
        path: args.out.clone(),
        source: std::io::Error::other(format!("drawing the figure: {e}")),
    })?;
    if let Some(staged) = staged {
        for s in &series {
            staged.write(&format!("{}.csv", s.stem), |path| {
                output::write_trajectory(path, &s.rows)
            })?;
        }
        staged.commit()?;
    }
    figure.write_png(&rgb, args.width, args.height)?;
    for s in &series {
        let last = s.rows.last().map_or(0.0, |r| r.downhill_distance);
        emit(&format!(
            "{}: {} steps, downhill {last:.4} m\n",
            s.label,
            s.rows.len() - 1
        ))?;
    }
    Ok(emit(&format!(
        "wrote {}{}\n",
        args.out.display(),
        args.data.as_ref().map_or(String::new(), |d| format!(
            " and the data in {}",
            d.display()
        ))
    ))?)
}
