//! `stickslip plot` of a 3D scene case (`kind = "scene"`, `dimension = 3`, SPEC.md §6–8): runs
//! it as `stickslip run` does and draws what its closed form is about, dashed over the
//! measurement (docs/scenes.md, "Figures of 3D scenes"):
//!
//! * a body pulled by a spring over a fixed half-space (`analysis::breakaway`): the
//!   spring's force along the ground with μ_s N and the breakaway time, and the body's velocity
//!   along it (as the 2D figure);
//! * two stacked bodies, the lower pulled by a force: both velocities along the force with
//!   the closed form's a·t, and the upper's speed over the lower with 2 ε_v (as the 2D figure);
//! * two bodies stacked on an incline: both downhill speeds with a₁ t and a₂ t, and the upper's
//!   downhill distance over the lower's with ½ (a₂ − a₁) t²;
//! * a cylinder sliding and/or spinning on a level plane: v and R ω with the lone motions'
//!   closed forms (v₀ − μ g t, R ω₀ − 4 μ g t/3), and ε = v/(R ω) with its limit 0.653;
//! * a body launched across an incline: its downhill and across distances with the sliding
//!   point mass's (integrated here by RK4 at 10 µs: s̈ = g sin θ − μ g cos θ ṡ/|v|,
//!   ẅ = −μ g cos θ ẇ/|v|);
//! * a body on an incline: its downhill speed with a t (or the creep v* where friction holds),
//!   and a box's tilt with the slide-or-tip rule's 10° where the rule applies, else its downhill
//!   distance with ½ a t²;
//! * anything else (the football bouncing to rest): each body's centroid speed and rotation
//!   speed ρ|ω|, log scale, with ε_v.
//!
//! [`solid_panels`] computes the content from a finished [`SolidRunner`] apart from drawing
//! (`scene_plot::render`), so tests can read what is drawn.

use std::path::Path;

use crate::analysis::slide_or_tip::TIP_ROTATION_DEG;
use crate::analysis::slide_spin::SPIN_SLIDE_RATIO;
use crate::app::plot::{PlotArgs, PlotError};
use crate::app::scene_plot::{
    Curve, Panel, analytic, breakaway_panels, check_plot_options, level, measured, stacked_panels,
};
use crate::energy::Vec3;
use crate::number_format::Sig;
use crate::run::multibody::solid::SolidRunner;
use crate::scene::multibody::solid::SolidScene;
use crate::scene::multibody::solid_body::SolidShape;

/// The RK4 step of the sliding point mass, s.
pub const POINT_MASS_STEP_S: f64 = 1e-5;

/// The panels of a finished 3D run (see the module's list).
pub fn solid_panels(runner: &SolidRunner) -> Vec<Panel> {
    let t_end = runner.rows.last().map_or(0.0, |r| r.t);
    let sc = &runner.scene;
    let name = |k: usize| sc.bodies[k].name.clone();
    let downhill = |k: usize, speed: bool| -> Vec<(f64, f64)> {
        runner
            .rows
            .iter()
            .filter_map(|r| {
                let b = &r.bodies[k];
                if speed { b.downhill_speed } else { b.downhill }.map(|v| (r.t, v))
            })
            .collect()
    };
    let line = |a: f64, power: i32| -> Vec<(f64, f64)> {
        (0..=100)
            .map(|i| {
                let t = t_end * f64::from(i) / 100.0;
                let scale = if power == 1 { 1.0 } else { 0.5 };
                (t, scale * a * t.powi(power))
            })
            .collect()
    };
    if let (Some(p), Some((_, closed))) = (runner.pulling_spring(), runner.breakaway()) {
        let along = |f: &dyn Fn(&crate::run::multibody::solid::SolidRow) -> Vec3| {
            runner
                .rows
                .iter()
                .map(|r| (r.t, f(r).dot(&p.along)))
                .collect::<Vec<_>>()
        };
        let force = along(&|r| r.drivers[p.driver])
            .into_iter()
            .map(|(t, f)| (t, f.abs()))
            .collect();
        return breakaway_panels(
            &sc.drivers[p.driver].name,
            &name(p.body),
            force,
            along(&|r| r.bodies[p.body].velocity),
            &closed,
            t_end,
        );
    }
    if let Some(p) = runner.pulled_stack() {
        let velocity = |k: usize| {
            runner
                .rows
                .iter()
                .map(|r| (r.t, r.bodies[k].velocity.dot(&p.along)))
                .collect()
        };
        return stacked_panels(
            [&name(p.lower), &name(p.upper)],
            velocity(p.lower),
            velocity(p.upper),
            &p.analytic,
            sc.settings.eps_v,
            t_end,
        );
    }
    if let Some((_, a)) = runner.incline_stack() {
        let (lo, up) = (a.lower, a.upper);
        let relative: Vec<(f64, f64)> = downhill(up, false)
            .iter()
            .zip(downhill(lo, false))
            .map(|(u, l)| (u.0, u.1 - l.1))
            .collect();
        let gained = a.upper_acceleration_m_per_s2 - a.lower_acceleration_m_per_s2;
        return vec![
            Panel {
                title: "downhill speeds on the incline".into(),
                y_desc: "speed (m/s)".into(),
                log_y: false,
                curves: vec![
                    measured(name(lo), downhill(lo, true), 0),
                    measured(name(up), downhill(up, true), 1),
                    analytic(
                        format!("a₁ t, a₁ = {} m/s²", Sig(a.lower_acceleration_m_per_s2)),
                        line(a.lower_acceleration_m_per_s2, 1),
                    ),
                    analytic(
                        format!("a₂ t, a₂ = {} m/s²", Sig(a.upper_acceleration_m_per_s2)),
                        line(a.upper_acceleration_m_per_s2, 1),
                    ),
                ],
            },
            Panel {
                title: format!("{} on {}: downhill distance gained", name(up), name(lo)),
                y_desc: "distance (m)".into(),
                log_y: false,
                curves: vec![
                    measured("measured".into(), relative, 2),
                    analytic("½ (a₂ − a₁) t²".into(), line(gained, 2)),
                ],
            },
        ];
    }
    if let Some((_, a)) = runner.slide_spin() {
        return slide_spin_panels(runner, &a, t_end);
    }
    if let Some(panels) = across_panels(runner) {
        return panels;
    }
    if let Some((_, a)) = runner.incline() {
        let mut speed = vec![measured(name(0), downhill(0, true), 0)];
        if let Some(acc) = a.acceleration_m_per_s2 {
            speed.push(analytic(
                format!("a t, a = g (sin θ − μ_k cos θ) = {} m/s²", Sig(acc)),
                line(acc, 1),
            ));
        }
        if let Some(v) = a.creep_speed_m_per_s {
            speed.push(level(format!("creep v* = {} m/s", Sig(v)), v, t_end));
        }
        let second = match runner.slide_or_tip() {
            Some((_, rule)) => Panel {
                title: format!(
                    "{}: tilt (slide or tip: analytic {})",
                    name(0),
                    rule.outcome.name()
                ),
                y_desc: "tilt (degrees)".into(),
                log_y: false,
                curves: vec![
                    measured(
                        name(0),
                        runner
                            .rows
                            .iter()
                            .map(|r| (r.t, r.bodies[0].tilt.to_degrees()))
                            .collect(),
                        1,
                    ),
                    level(
                        format!("tip above {TIP_ROTATION_DEG}°"),
                        TIP_ROTATION_DEG,
                        t_end,
                    ),
                ],
            },
            None => Panel {
                title: format!("{}: downhill distance", name(0)),
                y_desc: "distance (m)".into(),
                log_y: false,
                curves: vec![measured(name(0), downhill(0, false), 1)],
            },
        };
        return vec![
            Panel {
                title: format!("{}: downhill speed ({:.1}° incline)", name(0), a.angle_deg),
                y_desc: "speed (m/s)".into(),
                log_y: false,
                curves: speed,
            },
            second,
        ];
    }
    fallback_panels(runner, t_end)
}

/// No closed form applies (a body thrown, bouncing or resting on a level support): how each body
/// comes to rest, as its centroid's speed and its rotation's speed ρ|ω| (ρ its nodes' largest
/// distance from its centroid at t = 0, so that both are m/s and compare with ε_v), log scale,
/// floored at ε_v/100 (a log axis has no zero).
fn fallback_panels(runner: &SolidRunner, t_end: f64) -> Vec<Panel> {
    let sc = &runner.scene;
    let floor = 1e-2 * sc.settings.eps_v;
    let series = |f: &dyn Fn(usize, &crate::run::multibody::solid::SolidBodyState) -> f64| {
        (0..sc.bodies.len())
            .map(|k| {
                let points = runner
                    .rows
                    .iter()
                    .map(|r| (r.t, f(k, &r.bodies[k]).max(floor)))
                    .collect();
                measured(sc.bodies[k].name.clone(), points, k)
            })
            .chain(std::iter::once(level(
                format!("ε_v = {} m/s", Sig(sc.settings.eps_v)),
                sc.settings.eps_v,
                t_end,
            )))
            .collect::<Vec<Curve>>()
    };
    let radii: Vec<f64> = sc.bodies.iter().map(|b| reach(&b.mesh.x0)).collect();
    vec![
        Panel {
            title: "speed of each body's centroid".into(),
            y_desc: "|v| (m/s, log)".into(),
            log_y: true,
            curves: series(&|_, b| b.velocity.norm()),
        },
        Panel {
            title: "speed of rotation ρ |ω| (ρ: the body's reach from its centroid)".into(),
            y_desc: "ρ |ω| (m/s, log)".into(),
            log_y: true,
            curves: series(&|k, b| radii[k] * b.angular_velocity.norm()),
        },
    ]
}

/// The largest distance of `x` from its mean, m (the mean of the nodes: the reach only sets the
/// scale of a figure's rotation speed).
pub fn reach(x: &[Vec3]) -> f64 {
    let centre = x.iter().fold(Vec3::zeros(), |s, p| s + p) / x.len().max(1) as f64;
    x.iter().map(|p| (p - centre).norm()).fold(0.0, f64::max)
}

/// A puck's two panels: v and R ω, then ε = v/(R ω) while both are above 0.5 % of their start.
fn slide_spin_panels(
    runner: &SolidRunner,
    a: &crate::analysis::slide_spin::SlideSpin,
    t_end: f64,
) -> Vec<Panel> {
    let sc = &runner.scene;
    let b = &sc.bodies[0];
    let SolidShape::Cylinder { radius, .. } = b.shape else {
        return Vec::new();
    };
    let Some(h) = sc.nearest_half_space(&b.mesh.x0) else {
        return Vec::new();
    };
    let n = h.normal;
    let speed = |v: Vec3| (v - n * v.dot(&n) - h.velocity).norm();
    let v: Vec<(f64, f64)> = runner
        .rows
        .iter()
        .map(|r| (r.t, speed(r.bodies[0].velocity)))
        .collect();
    let rw: Vec<(f64, f64)> = runner
        .rows
        .iter()
        .map(|r| (r.t, radius * r.bodies[0].angular_velocity.dot(&n).abs()))
        .collect();
    let (v0, rw0) = (v[0].1, rw[0].1);
    let mut first = vec![
        measured("v, the centroid's speed".into(), v.clone(), 0),
        measured("R ω, the rim's speed of spin".into(), rw.clone(), 1),
    ];
    if let Some(t) = a.slide_stop_s {
        first.push(analytic(
            format!("v₀ − μ g t, stops at v₀/(μ g) = {} s", Sig(t)),
            vec![(0.0, v0), (t, 0.0)],
        ));
    }
    if let Some(t) = a.spin_stop_s {
        first.push(analytic(
            format!("R ω₀ − 4 μ g t/3, stops at 3 R ω₀/(4 μ g) = {} s", Sig(t)),
            vec![(0.0, rw0), (t, 0.0)],
        ));
    }
    let mut panels = vec![Panel {
        title: format!("{}: sliding and spinning", b.name),
        y_desc: "speed (m/s)".into(),
        log_y: false,
        curves: first,
    }];
    if a.ratio.is_some() {
        let start = v0 + rw0;
        let ratio: Vec<(f64, f64)> = v
            .iter()
            .zip(&rw)
            .take_while(|(s, w)| {
                s.1 + w.1 >= crate::analysis::slide_spin::RATIO_AT_FRACTION * start
            })
            .map(|(s, w)| (s.0, s.1 / w.1))
            .collect();
        panels.push(Panel {
            title: "ε = v/(R ω)".into(),
            y_desc: "ε".into(),
            log_y: false,
            curves: vec![
                measured("measured".into(), ratio, 2),
                level(
                    format!("ε* = {SPIN_SLIDE_RATIO} (SPEC.md §8)"),
                    SPIN_SLIDE_RATIO,
                    t_end,
                ),
            ],
        });
    }
    panels
}

/// A lone body launched across an inclined half-space: its downhill and across distances with
/// the sliding point mass's.
fn across_panels(runner: &SolidRunner) -> Option<Vec<Panel>> {
    let sc = &runner.scene;
    // The sliding point mass is under gravity and friction alone, as the other closed forms.
    if runner.driven() || sc.bodies.len() != 1 || sc.bodies[0].angular_velocity.norm() > 0.0 {
        return None;
    }
    let b = &sc.bodies[0];
    let o = sc.nearest_obstacle(&b.mesh.x0)?;
    let h = &sc.obstacles.half_spaces[o].1;
    let n = h.normal;
    let g = sc.gravity;
    let along = g - n * g.dot(&n);
    if along.norm() <= 1e-9 * g.norm() || h.velocity.norm() > 0.0 {
        return None;
    }
    let d = along.normalize();
    let e = n.cross(&d);
    let (vs0, vw0) = (b.velocity.dot(&d), b.velocity.dot(&e));
    if vw0.abs() <= 1e-12 * b.velocity.norm().max(1e-300) {
        return None;
    }
    let mu = sc.coefficients(0, sc.bodies.len() + o).mu_kinetic;
    let t_end = runner.rows.last()?.t;
    let path = point_mass_path(
        [vs0, vw0],
        along.norm(),
        -g.dot(&n),
        mu,
        t_end,
        POINT_MASS_STEP_S,
    );
    let first = runner.rows.first()?.bodies[0].centre;
    let body = |axis: Vec3| -> Vec<(f64, f64)> {
        runner
            .rows
            .iter()
            .map(|r| (r.t, (r.bodies[0].centre - first).dot(&axis)))
            .collect()
    };
    let reference = |i: usize| -> Vec<(f64, f64)> { path.iter().map(|p| (p.0, p.1[i])).collect() };
    let panel = |title: &str, measured_points, i: usize, k: usize| Panel {
        title: format!("{}: {title}", b.name),
        y_desc: "distance (m)".into(),
        log_y: false,
        curves: vec![
            measured("measured (centroid)".into(), measured_points, k),
            analytic("sliding point mass (RK4)".into(), reference(i)),
        ],
    };
    Some(vec![
        panel("distance down the fall line", body(d), 0, 0),
        panel("distance across the incline", body(e), 1, 1),
    ])
}

/// A point mass sliding on an incline from the origin at velocity (ṡ, ẇ) = `v0` (m/s), gravity
/// `g_along` down the fall line and `g_into` into the plane (m/s²), kinetic coefficient `mu`:
/// s̈ = g_along − μ g_into ṡ/|v|, ẅ = −μ g_into ẇ/|v| by RK4 of step `dt` (s) to `t_end`; the
/// points (t, [s, w]) every step. (It never stops: launched, it only slows while |v| > 0, and
/// the cases have g_along > μ g_into.)
pub fn point_mass_path(
    v0: [f64; 2],
    g_along: f64,
    g_into: f64,
    mu: f64,
    t_end: f64,
    dt: f64,
) -> Vec<(f64, [f64; 2])> {
    let f = |y: [f64; 4]| -> [f64; 4] {
        let speed = y[2].hypot(y[3]).max(1e-300);
        let k = mu * g_into / speed;
        [y[2], y[3], g_along - k * y[2], -k * y[3]]
    };
    let add = |y: [f64; 4], k: [f64; 4], s: f64| std::array::from_fn(|i| y[i] + s * k[i]);
    let mut y = [0.0, 0.0, v0[0], v0[1]];
    let steps = (t_end / dt).round() as usize;
    let mut out = Vec::with_capacity(steps / 100 + 2);
    out.push((0.0, [0.0, 0.0]));
    for i in 1..=steps {
        let k1 = f(y);
        let k2 = f(add(y, k1, dt / 2.0));
        let k3 = f(add(y, k2, dt / 2.0));
        let k4 = f(add(y, k3, dt));
        y = std::array::from_fn(|j| y[j] + dt / 6.0 * (k1[j] + 2.0 * k2[j] + 2.0 * k3[j] + k4[j]));
        if i % 100 == 0 || i == steps {
            out.push((i as f64 * dt, [y[0], y[1]]));
        }
    }
    out
}

/// `stickslip plot CASE.toml` for one 3D scene case: checks every output path, runs it (the
/// cross-check off: a figure does not need it), writes the figure and, with `--data DIR`, the
/// run's `trajectory.csv` and `summary.json`.
pub fn plot_solid_scene(args: &PlotArgs, case: &Path) -> Result<(), PlotError> {
    check_plot_options(args)?;
    let scene = SolidScene::load(case, &args.set)?;
    crate::app::scene_plot::plot_run(args, scene, solid_panels, "tetrahedra")
}

/// A curve's value at time `t` (linear between its points; tests).
pub fn value_at(curve: &Curve, t: f64) -> Option<f64> {
    let i = curve.points.iter().position(|p| p.0 >= t)?;
    if i == 0 {
        return Some(curve.points[0].1);
    }
    let (a, b) = (curve.points[i - 1], curve.points[i]);
    Some(a.1 + (b.1 - a.1) * (t - a.0) / (b.0 - a.0).max(1e-300))
}
