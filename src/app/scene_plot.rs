//! `stickslip plot` of a scene case (`kind = "scene"`, SPEC.md §7–8): runs it as `stickslip run`
//! does and draws, in two panels, what its analytic reference of SPEC.md §8 is about, the closed
//! form dashed over the measurement (docs/scenes.md, "Figures"):
//!
//! * a spring on a belt: the spring force with μ_s N and (2μ_k − μ_s) N, and the block's
//!   velocity with the belt's;
//! * a spring pulling a block: the spring force with μ_s N and the breakaway time, and the
//!   block's velocity;
//! * two stacked blocks pulled by a force: both velocities with a·t at the closed-form
//!   accelerations, and the upper block's speed over the lower;
//! * anything else: each body's slip speed over its support (log scale) with the creep speed
//!   v* of SPEC.md §6 where it applies, and its displacement along the support.
//!
//! [`panels`] computes the figure's content from a finished [`SceneRunner`], apart from
//! drawing ([`render`]), so tests can read what is drawn.

use std::path::{Path, PathBuf};

use plotters::prelude::*;

use crate::analysis::Summarised;
use crate::analysis::stacked_blocks::StackMembers;
use crate::app::output::{OutputFile, StageError, StagedDir, WrittenBy};
use crate::app::plot::{CURVE_WIDTH, PlotArgs, PlotError, plotters_font};
use crate::console::{BadOption, Progress, emit};
use crate::energy::Vec2;
use crate::graphics::{CASE_COLOURS, Rgb, case_colour};
use crate::number_format::Sig;
use crate::run::multibody::{Runner, SLIP_SPEED_OVER_EPS_V, SceneRunner};
use crate::scene::multibody::MultibodyScene;

/// The grey of a closed-form line.
pub const ANALYTIC: Rgb = [90, 90, 90];

/// One curve of a panel.
#[derive(Clone, Debug)]
pub struct Curve {
    /// The legend's text.
    pub label: String,
    /// (t in s, value in the panel's unit).
    pub points: Vec<(f64, f64)>,
    /// Its colour.
    pub colour: Rgb,
    /// Dashed: a closed form of SPEC.md §6/§8 (solid: measured).
    pub analytic: bool,
}

/// One panel of the figure.
#[derive(Clone, Debug)]
pub struct Panel {
    /// Its title.
    pub title: String,
    /// The y axis' description, with its unit.
    pub y_desc: String,
    /// Whether values are drawn on a log scale (every value > 0).
    pub log_y: bool,
    /// Measured curves, then closed forms.
    pub curves: Vec<Curve>,
}

/// A measured curve's colour: the cases' colours of `stickslip plot`, then five more, so that a
/// stack of bodies has one a body (cycling past eight).
fn colour(k: usize) -> Rgb {
    const MORE: [Rgb; 5] = [
        [126, 47, 142],
        [237, 177, 32],
        [77, 190, 238],
        [162, 20, 47],
        [30, 30, 30],
    ];
    let n = CASE_COLOURS.len();
    match k % (n + MORE.len()) {
        i if i < n => case_colour(i),
        i => MORE[i - n],
    }
}

pub(crate) fn measured(label: String, points: Vec<(f64, f64)>, k: usize) -> Curve {
    Curve {
        label,
        points,
        colour: colour(k),
        analytic: false,
    }
}

pub(crate) fn analytic(label: String, points: Vec<(f64, f64)>) -> Curve {
    Curve {
        label,
        points,
        colour: ANALYTIC,
        analytic: true,
    }
}

/// A horizontal closed-form line at `value` over the run.
pub(crate) fn level(label: String, value: f64, t_end: f64) -> Curve {
    analytic(label, vec![(0.0, value), (t_end, value)])
}

/// The panels of a finished run (see the module's list).
pub fn panels(runner: &SceneRunner) -> Vec<Panel> {
    let t_end = runner.rows.last().map_or(0.0, |r| r.t);
    if let (Some((d, k, s, _)), Some((_, cycle))) = (runner.belt_spring(), runner.stick_slip()) {
        let name = &runner.scene.bodies[k].name;
        let force = driver_along(runner, d, &s.tangent);
        return vec![
            Panel {
                title: format!(
                    "{}: the spring's force along the belt",
                    runner.scene.drivers[d].name
                ),
                y_desc: "force (N)".into(),
                log_y: false,
                curves: vec![
                    measured("measured".into(), force, 0),
                    level(
                        format!("μ_s N = {} N (SPEC.md §8)", Sig(cycle.f_max_n)),
                        cycle.f_max_n,
                        t_end,
                    ),
                    level(
                        format!("(2μ_k − μ_s) N = {} N", Sig(cycle.f_min_n)),
                        cycle.f_min_n,
                        t_end,
                    ),
                ],
            },
            Panel {
                title: format!("{name}: velocity along the belt"),
                y_desc: "velocity (m/s)".into(),
                log_y: false,
                curves: vec![
                    measured(name.clone(), velocity_along(runner, k, &s.tangent), 1),
                    level(
                        format!("belt surface, {} m/s", Sig(s.surface_speed)),
                        s.surface_speed,
                        t_end,
                    ),
                ],
            },
        ];
    }
    if let (Some((d, k, s)), Some((_, closed))) = (runner.pulling_spring(), runner.breakaway()) {
        return breakaway_panels(
            &runner.scene.drivers[d].name,
            &runner.scene.bodies[k].name,
            driver_along(runner, d, &s.tangent),
            velocity_along(runner, k, &s.tangent),
            &closed,
            t_end,
        );
    }
    if let (Some(m), Some((_, closed))) = (runner.stack_members(), runner.stack()) {
        return stack_panels(runner, &m, &closed, t_end);
    }
    creep_panels(runner, t_end)
}

fn stack_panels(
    runner: &SceneRunner,
    m: &StackMembers,
    closed: &crate::analysis::stacked_blocks::StackAccelerations,
    t_end: f64,
) -> Vec<Panel> {
    let names = |k: usize| runner.scene.bodies[k].name.clone();
    stacked_panels(
        [&names(m.lower), &names(m.upper)],
        velocity_along(runner, m.lower, &m.along),
        velocity_along(runner, m.upper, &m.along),
        closed,
        runner.scene.settings.eps_v,
        t_end,
    )
}

/// A spring pulling a block (2D and 3D): the spring's force along the ground (N, over time)
/// with μ_s N and the breakaway time dashed, and the block's velocity along it (m/s).
pub(crate) fn breakaway_panels(
    driver: &str,
    body: &str,
    force: Vec<(f64, f64)>,
    velocity: Vec<(f64, f64)>,
    closed: &crate::analysis::breakaway::Breakaway,
    t_end: f64,
) -> Vec<Panel> {
    let top = force.iter().map(|p| p.1).fold(closed.force_n, f64::max);
    let mut curves = vec![
        measured("measured".into(), force, 0),
        level(
            format!("μ_s N = {} N (SPEC.md §8)", Sig(closed.force_n)),
            closed.force_n,
            t_end,
        ),
    ];
    if let Some(t) = closed.time_s {
        curves.push(analytic(
            format!("breakaway at {} s", Sig(t)),
            vec![(t, 0.0), (t, top)],
        ));
    }
    vec![
        Panel {
            title: format!("{driver}: the spring's force along the ground"),
            y_desc: "force (N)".into(),
            log_y: false,
            curves,
        },
        Panel {
            title: format!("{body}: velocity along the ground"),
            y_desc: "velocity (m/s)".into(),
            log_y: false,
            curves: vec![measured(body.to_string(), velocity, 1)],
        },
    ]
}

/// Two stacked blocks, the lower pulled (2D and 3D): both velocities along the force (m/s)
/// with the closed form's a·t dashed, and the upper's speed over the lower with 2 ε_v.
pub(crate) fn stacked_panels(
    names: [&str; 2],
    lower: Vec<(f64, f64)>,
    upper: Vec<(f64, f64)>,
    closed: &crate::analysis::stacked_blocks::StackAccelerations,
    eps_v: f64,
    t_end: f64,
) -> Vec<Panel> {
    let [lower_name, upper_name] = names;
    let relative: Vec<(f64, f64)> = lower
        .iter()
        .zip(&upper)
        .map(|(l, u)| (l.0, (u.1 - l.1).abs()))
        .collect();
    vec![
        Panel {
            title: "velocities along the force".into(),
            y_desc: "velocity (m/s)".into(),
            log_y: false,
            curves: vec![
                measured(lower_name.to_string(), lower, 0),
                measured(upper_name.to_string(), upper, 1),
            ]
            .into_iter()
            .chain(accelerations(closed, lower_name, upper_name, t_end))
            .collect(),
        },
        Panel {
            title: format!("{upper_name}'s speed over {lower_name}"),
            y_desc: "speed (m/s)".into(),
            log_y: false,
            curves: vec![
                measured("measured".into(), relative, 1),
                level(
                    format!("{SLIP_SPEED_OVER_EPS_V} ε_v: slipping above"),
                    SLIP_SPEED_OVER_EPS_V * eps_v,
                    t_end,
                ),
            ],
        },
    ]
}

/// The closed-form velocities a·t of two stacked blocks: one line when they move together.
fn accelerations(
    closed: &crate::analysis::stacked_blocks::StackAccelerations,
    lower: &str,
    upper: &str,
    t_end: f64,
) -> Vec<Curve> {
    let line = |who: &str, a: f64| {
        analytic(
            format!("{who}: a·t, a = {} m/s² (SPEC.md §8)", Sig(a)),
            vec![(0.0, 0.0), (t_end, a * t_end)],
        )
    };
    if closed.upper_slips {
        vec![
            line(lower, closed.lower_m_per_s2),
            line(upper, closed.upper_m_per_s2),
        ]
    } else {
        vec![line("together", closed.lower_m_per_s2)]
    }
}

/// The smallest slip speed drawn on the log scale, m/s: 10⁻³ ε_v.
fn slip_floor(scene: &MultibodyScene) -> f64 {
    1e-3 * scene.settings.eps_v
}

fn creep_panels(runner: &SceneRunner, t_end: f64) -> Vec<Panel> {
    let sc = &runner.scene;
    let floor = slip_floor(sc);
    let mut slip = Vec::new();
    let mut along = Vec::new();
    let mut creep = Vec::new();
    for (k, b) in sc.bodies.iter().enumerate() {
        let Some(s) = runner.support(k) else { continue };
        let on = sc.member_name(s.member);
        slip.push(measured(
            format!("{} on {on}", b.name),
            runner
                .rows
                .iter()
                .map(|r| (r.t, r.bodies[k].slip.abs().max(floor)))
                .collect(),
            k,
        ));
        along.push(measured(
            format!("{} on {on}", b.name),
            runner
                .along_support(k, &s)
                .into_iter()
                .zip(&runner.rows)
                .map(|(d, r)| (r.t, 1e3 * d))
                .collect(),
            k,
        ));
        if let Some(v) = creep_speed(runner, k, &s) {
            creep.push(v);
        }
    }
    creep.sort_by(f64::total_cmp);
    creep.dedup_by(|a, b| (*a - *b).abs() <= 1e-12 * b.abs());
    for v in creep {
        slip.push(level(format!("v* = {} m/s (SPEC.md §6)", Sig(v)), v, t_end));
    }
    slip.push(level(
        format!("ε_v = {} m/s", Sig(sc.settings.eps_v)),
        sc.settings.eps_v,
        t_end,
    ));
    vec![
        Panel {
            title: "each body's slip over what it rests on".into(),
            y_desc: "slip speed (m/s, log scale)".into(),
            log_y: true,
            curves: slip,
        },
        Panel {
            title: "each body's displacement along what it rests on".into(),
            y_desc: "displacement (mm)".into(),
            log_y: false,
            curves: along,
        },
    ]
}

/// The creep speed v* = ε_v (1 − √(1 − tan θ/μ)) of smoothed friction holding body `k` on its
/// support under gravity alone (SPEC.md §6), where it applies: a half-space support (whose
/// normal, and so tan θ, is exact; a body support's normal is its contacts' mean, tilted by the
/// pairs at its corners), one coefficient (μ_s = μ_k > 0), tan θ < μ, and no driver on the
/// body. v* does not depend on the load, so it is also the creep of every contact above,
/// parallel to the half-space, of a stack resting on it.
fn creep_speed(runner: &SceneRunner, k: usize, s: &crate::run::multibody::Support) -> Option<f64> {
    let sc = &runner.scene;
    let on_half_space = s
        .member
        .checked_sub(sc.bodies.len())
        .is_some_and(|o| sc.obstacles[o].half_space().is_some());
    if !on_half_space || sc.drivers.iter().any(|d| d.body == k) {
        return None;
    }
    let mu = runner.coefficients(k, s);
    let g_n = sc.gravity.dot(&-s.normal);
    let g_t = sc.gravity.dot(&s.tangent).abs();
    (mu.mu_static == mu.mu_kinetic && mu.mu_static > 0.0 && g_n > 0.0 && g_t < mu.mu_static * g_n)
        .then(|| sc.settings.eps_v * (1.0 - (1.0 - g_t / (g_n * mu.mu_static)).sqrt()))
}

/// Driver `d`'s force along `t` at every row, N.
fn driver_along(runner: &SceneRunner, d: usize, t: &Vec2) -> Vec<(f64, f64)> {
    runner
        .rows
        .iter()
        .map(|r| (r.t, r.drivers[d].dot(t).abs()))
        .collect()
}

/// Body `k`'s velocity along `t` at every row, m/s.
fn velocity_along(runner: &SceneRunner, k: usize, t: &Vec2) -> Vec<(f64, f64)> {
    runner
        .rows
        .iter()
        .map(|r| (r.t, Vec2::new(r.bodies[k].vx, r.bodies[k].vy).dot(t)))
        .collect()
}

fn rgb(c: Rgb) -> RGBColor {
    RGBColor(c[0], c[1], c[2])
}

/// Draws the panels one above the other into an RGB buffer of `width` × `height`.
pub fn render(title: &str, panels: &[Panel], width: u32, height: u32) -> Result<Vec<u8>, String> {
    let text = plotters_font();
    let mut buf = vec![255u8; width as usize * height as usize * 3];
    {
        let root = BitMapBackend::with_buffer(&mut buf, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let root = if text {
            root.titled(title, ("sans-serif", 24))
                .map_err(|e| e.to_string())?
        } else {
            root
        };
        let areas = root.split_evenly((panels.len().max(1), 1));
        for (area, panel) in areas.iter().zip(panels) {
            draw_panel(area, panel, text)?;
        }
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(buf)
}

fn draw_panel(
    area: &DrawingArea<BitMapBackend, plotters::coord::Shift>,
    panel: &Panel,
    text: bool,
) -> Result<(), String> {
    let y = |v: f64| if panel.log_y { v.log10() } else { v };
    let points = || panel.curves.iter().flat_map(|c| c.points.iter());
    let t_end = points().map(|p| p.0).fold(1e-9, f64::max);
    let (lo, hi) = points()
        .map(|p| y(p.1))
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    let (lo, hi) = if lo.is_finite() { (lo, hi) } else { (0.0, 1.0) };
    // Room above the curves for the legend (a quarter of the panel).
    let span = (hi - lo).max(1e-12);
    let (below, above) = (0.06 * span, 0.4 * span);
    let mut builder = ChartBuilder::on(area);
    builder.margin(14);
    if text {
        builder
            .caption(&panel.title, ("sans-serif", 20))
            .x_label_area_size(40)
            .y_label_area_size(72);
    } else {
        builder.x_label_area_size(8).y_label_area_size(8);
    }
    let mut chart = builder
        .build_cartesian_2d(0.0..t_end, (lo - below)..(hi + above))
        .map_err(|e| e.to_string())?;
    let mut mesh = chart.configure_mesh();
    mesh.light_line_style(RGBColor(235, 235, 235));
    // Decades only: 1e-3, not 1e-3.5.
    let log_label = |v: &f64| {
        if (v - v.round()).abs() < 1e-6 {
            format!("1e{}", v.round())
        } else {
            String::new()
        }
    };
    if panel.log_y {
        mesh.y_label_formatter(&log_label);
    }
    if text {
        mesh.x_desc("t (s)")
            .y_desc(panel.y_desc.as_str())
            .label_style(("sans-serif", 15))
            .axis_desc_style(("sans-serif", 16));
    } else {
        mesh.x_labels(0).y_labels(0);
    }
    mesh.draw().map_err(|e| e.to_string())?;
    for c in &panel.curves {
        let colour = rgb(c.colour);
        let pts = c.points.iter().map(|p| (p.0, y(p.1)));
        let drawn = if c.analytic {
            chart
                .draw_series(DashedLineSeries::new(
                    pts,
                    10,
                    6,
                    colour.stroke_width(CURVE_WIDTH),
                ))
                .map_err(|e| e.to_string())?
        } else {
            chart
                .draw_series(LineSeries::new(pts, colour.stroke_width(CURVE_WIDTH)))
                .map_err(|e| e.to_string())?
        };
        if text {
            drawn.label(c.label.clone()).legend(move |(x, y)| {
                PathElement::new([(x, y), (x + 24, y)], colour.stroke_width(3))
            });
        }
    }
    if text {
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .label_font(("sans-serif", 15))
            .draw()
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// The case file when `cases` is one scene case (`kind = "scene"`); a scene among several
/// cases is refused (its figure is its own, not a curve beside others).
pub fn one_scene_case(cases: &[PathBuf]) -> Result<Option<&Path>, PlotError> {
    use crate::scene::CaseKind;
    let mut scene = None;
    for case in cases {
        if CaseKind::of_file(case)? == CaseKind::Scene {
            scene = Some(case);
        }
    }
    match (scene, cases.len()) {
        (None, _) => Ok(None),
        (Some(case), 1) => Ok(Some(case)),
        (Some(case), n) => Err(BadOption::new(
            "CASES",
            "a scene case is plotted alone (its figure is its own): give it as the only case",
            format!("{} among {n} cases", case.display()),
        )
        .into()),
    }
}

/// `stickslip plot CASE.toml` for one scene case: checks every output path, runs it (with the
/// run's progress line), writes the figure and, with `--data DIR`, the run's `trajectory.csv`
/// and `summary.json` as `stickslip run` writes them.
pub fn plot_scene(args: &PlotArgs, case: &Path) -> Result<(), PlotError> {
    check_plot_options(args)?;
    let scene = MultibodyScene::load(case, &args.set)?;
    plot_run(args, scene, panels, "triangles")
}

/// Runs `scene` (2D or 3D) for its figure, its outputs checked first and its progress shown,
/// then writes the figure of `panels` and, with `--data DIR`, the run's `trajectory.csv` and
/// `summary.json` as `stickslip run` writes them; reports a body that turned inside out
/// (`elements`: what its elements are called) or penetrated.
pub(crate) fn plot_run<S: Summarised<D>, const D: usize>(
    args: &PlotArgs,
    scene: S,
    panels: fn(&Runner<S, D>) -> Vec<Panel>,
    elements: &str,
) -> Result<(), PlotError> {
    crate::api::check_scene_duration(&scene, args.duration)?;
    let outputs = PlotOutputs::check(args)?;
    let mut runner = Runner::<S, D>::new(scene, args.duration).map_err(PlotError::Scene)?;
    let name = runner.scene.name().to_string();
    let mut progress = Progress::new(runner.total_steps(), &name);
    while !runner.done() {
        runner.step().map_err(PlotError::Scene)?;
        progress.update(runner.sim.step);
    }
    progress.finish();
    let content = panels(&runner);
    outputs.finish(args, &name, runner.rows.len() - 1, &content, |staged| {
        let summary = S::summary(&runner);
        staged.write("trajectory.csv", |path| {
            crate::app::scene_command::write_trajectory(path, &runner)
        })?;
        Ok(staged.write("summary.json", |path| {
            crate::app::output::write_json(path, &summary)
        })?)
    })?;
    crate::app::plot::report_physicality(&name, &runner.physicality(), elements, &args.out)
}

/// The options a scene's figure checks first (2D and 3D): `--duration` finite and > 0, the
/// figure's size, no `--tol`.
pub(crate) fn check_plot_options(args: &PlotArgs) -> Result<(), PlotError> {
    crate::console::check_positive("--duration", args.duration)?;
    crate::app::plot::check_size(args)?;
    if args.tol.is_some() {
        return Err(crate::console::BadOption::new(
            "--tol",
            "does not apply to a scene case (set newton.tol in the case, or --set newton.tol=…)",
            "given",
        )
        .into());
    }
    Ok(())
}

/// A scene figure's outputs, checked before the run: the figure's path and, with `--data DIR`,
/// the staged directory of the run's files.
pub(crate) struct PlotOutputs {
    figure: OutputFile,
    staged: Option<StagedDir>,
}

impl PlotOutputs {
    /// Checks every output path of `args` (refusing one that is not stickslip's to write).
    pub(crate) fn check(args: &PlotArgs) -> Result<PlotOutputs, PlotError> {
        let figure = OutputFile::check(&args.out, "plot", true).map_err(StageError::from)?;
        if let Some(dir) = &args.data {
            crate::app::plot::refuse_figure_inside_data(&args.out, dir)?;
        }
        let staged = match &args.data {
            Some(dir) => Some(StagedDir::new(
                dir,
                WrittenBy::new("plot", crate::scene::multibody::SCENE_KIND),
            )?),
            None => None,
        };
        Ok(PlotOutputs { figure, staged })
    }

    /// Draws `content`, writes the data with `write_data` into the staged directory (with
    /// `--data`) and the figure, and prints what was written for the case `name` of `steps`
    /// steps.
    pub(crate) fn finish(
        self,
        args: &PlotArgs,
        name: &str,
        steps: usize,
        content: &[Panel],
        write_data: impl FnOnce(&StagedDir) -> Result<(), PlotError>,
    ) -> Result<(), PlotError> {
        let rgb = render(name, content, args.width, args.height).map_err(|e| {
            crate::app::output::OutputError {
                path: args.out.clone(),
                source: std::io::Error::other(format!("drawing the figure: {e}")),
            }
        })?;
        if let Some(staged) = self.staged {
            write_data(&staged)?;
            staged.commit()?;
        }
        self.figure.write_png(&rgb, args.width, args.height)?;
        Ok(emit(&format!(
            "{name}: {steps} steps\nwrote {}{}\n",
            args.out.display(),
            args.data.as_ref().map_or(String::new(), |d| format!(
                " and the data in {}",
                d.display()
            ))
        ))?)
    }
}
