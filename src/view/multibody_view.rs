//! A 2D scene case (`kind = "scene"`, SPEC.md §7) in the one scene view
//! ([`CasesView`](super::cases_view::CasesView)): its
//! picture (`multibody_paint`, through the flat [`Camera`](super::layout::Camera)), its HUD's
//! lines on every body's speed and slip and every driver's force, and its chart of its drivers'
//! forces against time, with SPEC.md §8's F_max and F_min for a spring on a belt.

use std::path::Path;

use super::cases_view::{CaseChart, HUD_BODIES, Series, ViewedRun};
use super::layout::Rect;
use super::multibody::SceneCase;
use super::multibody_paint;
use super::paint::Pen;
use super::scene_case::ContactCounts;
use super::scene_view::ViewState;
use super::solid_layout::Orbit;
use crate::graphics;
use crate::run::multibody::{SLIP_SPEED_OVER_EPS_V, SceneRunner};
use crate::scene::multibody::{DriverKind, MultibodyScene};

/// Drivers the HUD lists by name.
pub const HUD_DRIVERS: usize = 2;

fn kind_name(kind: &DriverKind) -> &'static str {
    match kind {
        DriverKind::Spring { .. } => "spring",
        DriverKind::Move { .. } => "move",
        DriverKind::Force { .. } => "force",
    }
}

impl ViewedRun for SceneRunner {
    const NAME_SUFFIX: &'static str = "";

    fn source(scene: &MultibodyScene) -> Option<&Path> {
        scene.source.as_deref()
    }

    fn tol(scene: &MultibodyScene) -> f64 {
        scene.settings.tol
    }

    fn newton(&self) -> (usize, f64) {
        self.rows
            .last()
            .map_or((0, 0.0), |r| (r.newton_iterations, r.final_residual))
    }

    fn contact_counts(case: &SceneCase) -> ContactCounts {
        case.contact_counts()
    }

    /// Every body's speed and slip (sliding above the runner's 2 ε_v, or not in contact) and
    /// every driver's force, N.
    fn hud_body_lines(case: &SceneCase) -> Vec<String> {
        let sc = &case.scene;
        let Some(row) = case.runner.rows.last() else {
            return Vec::new();
        };
        let mut lines = Vec::new();
        let slides_from = SLIP_SPEED_OVER_EPS_V * sc.settings.eps_v;
        for (b, s) in sc.bodies.iter().zip(&row.bodies).take(HUD_BODIES) {
            let speed = s.vx.hypot(s.vy);
            // The runner's rule (`SceneRunner::slip_events`): slipping above 2 ε_v.
            let regime = if s.min_distance >= sc.settings.barrier.dhat {
                "no contact".to_owned()
            } else if s.slip > slides_from {
                format!("slip {:.2e} m/s: slides", s.slip)
            } else {
                format!("slip {:.2e} m/s: sticks", s.slip)
            };
            lines.push(format!("{}: speed {:.4} m/s, {regime}", b.name, speed));
        }
        if sc.bodies.len() > HUD_BODIES {
            lines.push(format!(
                "… and {} more bodies",
                sc.bodies.len() - HUD_BODIES
            ));
        }
        for (d, f) in sc.drivers.iter().zip(&row.drivers).take(HUD_DRIVERS) {
            lines.push(format!(
                "{} ({}): {:.4} N  ({:.4}, {:.4})",
                d.name,
                kind_name(&d.kind),
                f.norm(),
                f.x,
                f.y
            ));
        }
        if sc.drivers.len() > HUD_DRIVERS {
            lines.push(format!(
                "… and {} more drivers",
                sc.drivers.len() - HUD_DRIVERS
            ));
        }
        lines
    }

    fn camera_line(_orbit: Orbit) -> Option<String> {
        None
    }

    fn paint(case: &SceneCase, view: &ViewState, rect: Rect, pen: &Pen) {
        multibody_paint::scene(case, view.forces, rect, pen);
    }

    /// Every driver's force against time (a spring's tension along its line, another driver's
    /// force magnitude), and for a spring on a belt SPEC.md §8's F_max = μ_s N and
    /// F_min = (2μ_k − μ_s) N ([`crate::run::multibody::SceneRunner::stick_slip`]'s closed
    /// form), N.
    fn chart(case: &SceneCase) -> CaseChart {
        let analytic = case.runner.stick_slip().map(|(_, a)| a);
        let mut lo = 0.0f64;
        let mut hi = 0.0f64;
        for (_, v) in &case.own.chart {
            for &f in v {
                lo = lo.min(f);
                hi = hi.max(f);
            }
        }
        if let Some(a) = &analytic {
            lo = lo.min(a.f_min_n);
            hi = hi.max(a.f_max_n);
        }
        if hi - lo <= 0.0 {
            hi = lo + 1.0;
        }
        let span = hi - lo;
        let title = if case.scene.drivers.is_empty() {
            "no drivers: nothing to chart"
        } else {
            "drivers' forces against time (a spring: its tension); on a belt F_max = μ_s N, F_min = (2μ_k − μ_s) N"
        };
        let series = case
            .scene
            .drivers
            .iter()
            .enumerate()
            .map(|(d, spec)| {
                let what = match spec.kind {
                    DriverKind::Spring { .. } => "tension",
                    _ => "|F|",
                };
                Series {
                    colour: graphics::case_colour(d),
                    label: format!("{} {what}", spec.name),
                    points: case.own.chart.iter().map(|(t, v)| (*t, v[d])).collect(),
                }
            })
            .collect();
        let levels = analytic.map_or_else(Vec::new, |a| {
            vec![
                (a.f_max_n, format!("F_max {:.3} N", a.f_max_n)),
                (a.f_min_n, format!("F_min {:.3} N", a.f_min_n)),
            ]
        });
        CaseChart {
            y: (lo - 0.05 * span, hi + 0.08 * span),
            y_label: "force (N)",
            title,
            series,
            levels,
        }
    }
}
