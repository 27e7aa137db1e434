//! The simulation loop of the rigid ellipsoid (SPEC.md §5) and its output files:
//! `trajectory.csv`, `events.csv` and `summary.json`.

use std::fs;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use nalgebra::{UnitQuaternion, Vector3};
use serde::Serialize;

use crate::rigid::body::State;
use crate::rigid::case::RigidScene;
use crate::rigid::events::locate_crossing;
use crate::rigid::impact::{
    self, ContactMode, ENERGY_SAFE_STEPS, ImpactModel, energy_safe_impulse, newton_impulse,
};
use crate::rigid::{cg4, se3};

/// An error of a rigid run.
#[derive(Debug, thiserror::Error)]
pub enum RigidRunError {
    /// The state stopped being finite (a step too large for the spin, say).
    #[error("the state is not finite at t = {t} s (step {step}); try a smaller time.h")]
    NonFinite {
        /// Time, s.
        t: f64,
        /// Step number.
        step: usize,
    },
    /// The body went below the ground by more than the bisection's worth: an impact was missed,
    /// and the rest of the run would be a fall through the ground (SPEC.md §5, impact detection).
    #[error(
        "the body went through the ground at t = {t} s (step {step}): its lowest point is {depth:e} m below it, more than the bisection's worth ({allowed:e} m); the run is not valid past this point (try a smaller time.h or impact.bisection_tolerance)"
    )]
    BelowGround {
        /// Time, s.
        t: f64,
        /// Step number.
        step: usize,
        /// How far below the ground the lowest point is, m (> 0).
        depth: f64,
        /// The depth the bisection tolerance allows, m.
        allowed: f64,
    },
    /// An output file could not be written.
    #[error("{path}: {source}")]
    Output {
        /// The file.
        path: PathBuf,
        /// Cause.
        source: std::io::Error,
    },
}

/// One row of `trajectory.csv`: the state at the end of a step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RigidRow {
    /// Time, s.
    pub t: f64,
    /// The state.
    pub state: State,
    /// Kinetic energy, J.
    pub kinetic: f64,
    /// Potential energy, J (zero with the centre of mass at the ground point, or the origin).
    pub potential: f64,
    /// |Iω|, kg m²/s: the angular momentum about the centre of mass.
    pub angular_momentum: f64,
    /// Signed distance of the lowest point to the ground, m (NaN without a ground; written as an
    /// empty field).
    pub distance: f64,
}

/// One impact: one row of `events.csv`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ImpactEvent {
    /// Time of the impact (left end of the bisection bracket), s.
    pub t: f64,
    /// Contact point, m, world.
    pub point: [f64; 3],
    /// n̂·u before and after, m/s.
    pub normal_speed_before: f64,
    /// n̂·u after, m/s.
    pub normal_speed_after: f64,
    /// Tangential contact speed before, m/s.
    pub tangential_speed_before: f64,
    /// Tangential contact speed after, m/s.
    pub tangential_speed_after: f64,
    /// Stick or slide.
    pub mode: ContactMode,
    /// The impulse J, N s, world.
    pub impulse: [f64; 3],
    /// Kinetic energy after − before, J.
    pub kinetic_energy_change: f64,
    /// Whether the energy-safe model used its frictionless fallback.
    pub fallback: bool,
}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Ending {
    /// The whole duration was simulated.
    DurationReached {
        /// The end time, s.
        t: f64,
    },
    /// The impacts accumulated (an approach slower than `impact.rest_speed`, a contact reached
    /// without approach, or more than [`MAX_IMPACTS_PER_STEP`] impacts in a step) with the body
    /// at rest: no point of it moves faster than the rest speed.
    Settled {
        /// When the run stopped, s.
        t: f64,
        /// The limit of the impact times, s, as for [`Ending::ImpactsAccumulate`].
        accumulation_time: Option<f64>,
        /// The last impact's approach speed −u_n, m/s (0 for a contact reached without
        /// approach).
        approach_speed: f64,
    },
    /// The impacts accumulated as for [`Ending::Settled`], but the body still moves: a Zeno
    /// sequence of ever smaller impacts towards persistent contact (rolling, sliding), which
    /// this impulse model cannot carry (SPEC.md §5). The run stops at the last impact it
    /// resolves; the state there is the one reported.
    ImpactsAccumulate {
        /// When the run stopped, s.
        t: f64,
        /// The limit of the impact times, s, extrapolated from the last two impacts (their
        /// approach speeds shrink by `ratio` each, and so do the flights between them); `None`
        /// with fewer than two impacts or a ratio outside (0, 1).
        accumulation_time: Option<f64>,
        /// The last impact's approach speed over the one before it.
        ratio: Option<f64>,
        /// The last impact's approach speed −u_n, m/s.
        approach_speed: f64,
        /// The speed of the centre of mass when the run stopped, m/s.
        speed: f64,
        /// The angular speed |ω| when the run stopped, rad/s.
        spin: f64,
    },
}

impl std::fmt::Display for Ending {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Ending::DurationReached { t } => write!(f, "duration reached (t = {t:.3} s)"),
            Ending::Settled { t, .. } => write!(f, "settled at t = {t:.4} s"),
            Ending::ImpactsAccumulate { t, .. } => write!(f, "impacts accumulate, t = {t:.4} s"),
        }
    }
}

impl Ending {
    /// The ending in a sentence: for accumulating impacts, where, how fast the body still moves
    /// there, and that persistent contact is outside the model.
    pub fn explain(&self) -> String {
        match self {
            Ending::DurationReached { t } => format!("the run reached its duration, t = {t} s"),
            Ending::Settled {
                t,
                accumulation_time,
                approach_speed,
            } => format!(
                "the impacts accumulated{} and the body came to rest: the run stops at t = {t:.6} s (last approach {approach_speed:.3e} m/s)",
                accumulation_time.map_or(String::new(), |ta| format!(" towards t = {ta:.6} s"))
            ),
            Ending::ImpactsAccumulate {
                t,
                accumulation_time,
                ratio,
                approach_speed,
                speed,
                spin,
            } => {
                let towards = match (accumulation_time, ratio) {
                    (Some(ta), Some(r)) => format!(
                        " towards t = {ta:.6} s (approach speeds shrinking by a factor {r:.3e} each, a Zeno sequence)"
                    ),
                    _ => String::new(),
                };
                format!(
                    "the impacts accumulate{towards}; the run stops at t = {t:.6} s (last approach {approach_speed:.3e} m/s) with the body still moving at {speed:.3} m/s and spinning at {spin:.3} rad/s: persistent contact (rolling, sliding) is outside this impulse model (SPEC.md §5)"
                )
            }
        }
    }
}

/// `summary.json`.
#[derive(Clone, Debug, Serialize)]
pub struct RigidSummary {
    /// The case file.
    pub case: Option<PathBuf>,
    /// The case's name.
    pub name: String,
    /// The `--set` overrides, as given.
    pub overrides: Vec<String>,
    /// Always "rigid_ellipsoid".
    pub kind: &'static str,
    /// The impact model, if there is a ground.
    pub impact_model: Option<ImpactModel>,
    /// Restitution.
    pub restitution: Option<f64>,
    /// μ as text ("inf" for infinite).
    pub mu: Option<String>,
    /// Step, s.
    pub h: f64,
    /// Duration asked, s.
    pub duration: f64,
    /// How the run ended.
    pub ended: Ending,
    /// Number of impacts.
    pub impacts: usize,
    /// Impacts that ended sticking / sliding.
    pub stick_impacts: usize,
    /// Impacts that ended sliding.
    pub slide_impacts: usize,
    /// Energy-safe impacts that used the frictionless fallback.
    pub fallback_impacts: usize,
    /// Kinetic energy lost at each impact (before − after), J.
    pub energy_lost_per_impact: Vec<f64>,
    /// The largest kinetic-energy gain of any impact, J (0 if none gained).
    pub largest_energy_gain: f64,
    /// The largest |ΔE| of the total energy over a step without impact, J (integration drift).
    pub largest_flight_energy_drift: f64,
    /// Total energy at t = 0 and at the end, J.
    pub energy_initial: f64,
    /// Total energy at the end, J.
    pub energy_final: f64,
    /// The smallest signed distance of the lowest point at any step end, m (null without a
    /// ground).
    pub min_distance: Option<f64>,
    /// Largest ‖RᵀR − I‖_max over the run.
    pub max_orthonormality_error: f64,
    /// Wall time, s.
    pub wall_seconds: f64,
}

/// A finished run.
#[derive(Clone, Debug)]
pub struct RigidRun {
    /// One row at t = 0 and one per step.
    pub rows: Vec<RigidRow>,
    /// The impacts.
    pub events: Vec<ImpactEvent>,
    /// The summary.
    pub summary: RigidSummary,
}

/// Impacts allowed within one step before the run stops: a Zeno cascade of ever smaller
/// bounces ([`Ending::Settled`] or [`Ending::ImpactsAccumulate`]).
pub const MAX_IMPACTS_PER_STEP: usize = 64;

fn row(scene: &RigidScene, t: f64, state: &State) -> RigidRow {
    let reference = scene
        .ground
        .as_ref()
        .map_or(Vector3::zeros(), |(g, _)| g.point);
    RigidRow {
        t,
        state: *state,
        kinetic: scene.body.kinetic_energy(&state.twist),
        potential: scene.body.potential_energy(&state.pose, &reference),
        angular_momentum: scene.body.body_angular_momentum(&state.twist).norm(),
        distance: scene.ground.as_ref().map_or(f64::NAN, |(g, _)| {
            scene.shape.signed_distance(&state.pose, g)
        }),
    }
}

/// The depth below the ground (m) that the impact detection can leave at `state`: the distance
/// any point of the body moves within one bisection bracket, tol·(|v| + |ω|·a_max) + ½|g|tol²
/// with a_max the largest semi-axis (SPEC.md §5, impact detection).
pub fn allowed_depth(scene: &RigidScene, state: &State) -> f64 {
    let Some((_, settings)) = &scene.ground else {
        return f64::INFINITY;
    };
    let tol = settings.bisection_tolerance;
    tol * fastest_point_speed(scene, state) + 0.5 * scene.body.gravity.norm() * tol * tol
}

/// An upper bound of the speed of any point of the body, |v| + |ω|·a_max (m/s).
fn fastest_point_speed(scene: &RigidScene, state: &State) -> f64 {
    state.velocity().norm() + state.omega().norm() * scene.shape.semi_axes.max()
}

/// The invariants of a state the run keeps: finite, and not below the ground by more than
/// [`allowed_depth`].
fn check_state(
    scene: &RigidScene,
    state: &State,
    t: f64,
    step: usize,
) -> Result<(), RigidRunError> {
    if !state
        .twist
        .iter()
        .chain(state.pose.p.iter())
        .all(|x| x.is_finite())
    {
        return Err(RigidRunError::NonFinite { t, step });
    }
    if let Some((g, _)) = &scene.ground {
        let distance = scene.shape.signed_distance(&state.pose, g);
        let allowed = allowed_depth(scene, state);
        if distance.is_nan() || distance < -allowed {
            return Err(RigidRunError::BelowGround {
                t,
                step,
                depth: -distance,
                allowed,
            });
        }
    }
    Ok(())
}

/// How a run whose impacts accumulated ended: [`Ending::Settled`] when no point of the body
/// moves faster than `impact.rest_speed`, else [`Ending::ImpactsAccumulate`] with the limit of
/// the impact times extrapolated from the last two impacts: their approach speeds s₁, s₂ shrink
/// by r = s₂/s₁, and so do the flights between them (a flight lasts in proportion to the speed
/// it starts with), so the impacts after the last one take (t₂ − t₁)·r/(1 − r) in all.
fn accumulated_ending(
    scene: &RigidScene,
    state: &State,
    t: f64,
    approach_speed: f64,
    events: &[ImpactEvent],
) -> Ending {
    let rest_speed = scene.ground.as_ref().map_or(0.0, |(_, s)| s.rest_speed);
    let (ratio, accumulation_time) = match events {
        [.., a, b] => {
            let r = b.normal_speed_before / a.normal_speed_before;
            if r > 0.0 && r < 1.0 {
                (Some(r), Some(b.t + (b.t - a.t) * r / (1.0 - r)))
            } else {
                (Some(r), None)
            }
        }
        _ => (None, None),
    };
    if fastest_point_speed(scene, state) <= rest_speed {
        return Ending::Settled {
            t,
            accumulation_time,
            approach_speed,
        };
    }
    Ending::ImpactsAccumulate {
        t,
        accumulation_time,
        ratio,
        approach_speed,
        speed: state.world_velocity().norm(),
        spin: state.omega().norm(),
    }
}

/// Runs the scene for `duration` seconds (default: the scene's).
pub fn simulate(scene: &RigidScene, duration: Option<f64>) -> Result<RigidRun, RigidRunError> {
    let clock = std::time::Instant::now();
    let duration = duration.unwrap_or(scene.duration);
    let steps = (duration / scene.h).round().max(1.0) as usize;
    let body = &scene.body;
    let mut state = scene.initial;
    let mut rows = Vec::with_capacity(steps + 1);
    rows.push(row(scene, 0.0, &state));
    let mut events = Vec::new();
    let mut ending = Ending::DurationReached { t: duration };
    // Where the impacts accumulated: the time, the last approach speed and the step.
    let mut stop: Option<(f64, f64, usize)> = None;
    let mut flight_drift: f64 = 0.0;
    let mut max_ortho: f64 = se3::orthonormality_error(&state.pose.r);
    'steps: for step in 1..=steps {
        let t0 = (step - 1) as f64 * scene.h;
        let t1 = if step == steps {
            duration
        } else {
            step as f64 * scene.h
        };
        let mut t = t0;
        let mut impacts_here = 0;
        loop {
            let dt = t1 - t;
            let next = cg4::step(body, &state, dt);
            let crossing = scene.ground.as_ref().filter(|(g, _)| {
                scene.shape.signed_distance(&state.pose, g) > 0.0
                    && scene.shape.signed_distance(&next.pose, g) <= 0.0
            });
            let Some((ground, settings)) = crossing else {
                if impacts_here == 0 {
                    let before = rows.last().map_or(0.0, |r| r.kinetic + r.potential);
                    let after = row(scene, t1, &next);
                    flight_drift =
                        flight_drift.max((after.kinetic + after.potential - before).abs());
                }
                state = next;
                break;
            };
            let found = locate_crossing(
                body,
                &scene.shape,
                ground,
                &state,
                dt,
                settings.bisection_tolerance,
            );
            let at = found.state;
            let c = scene.shape.lowest_point(&at.pose, &ground.normal);
            let r = c - at.pose.p;
            let u = impact::point_velocity(&at, &r);
            let n = ground.normal;
            let un = n.dot(&u);
            if un >= 0.0 || impacts_here >= MAX_IMPACTS_PER_STEP {
                // The lowest point reaches the ground without approaching it (a contact at the
                // bisection's resolution: the impacts have piled up past what it resolves), or a
                // step's impacts do not end: persistent contact, where the impulse model ends.
                // The run stops here, above the ground, rather than letting the body sink.
                t += found.tau;
                state = at;
                stop = Some((t, (-un).max(0.0), step));
                break 'steps;
            }
            let k = impact::inverse_effective_mass(body, &at, &r);
            let result = match settings.model {
                ImpactModel::Newton => {
                    newton_impulse(&k, &n, &u, settings.restitution, settings.friction)
                }
                ImpactModel::EnergySafe => energy_safe_impulse(
                    &k,
                    &n,
                    &u,
                    settings.restitution,
                    settings.friction,
                    ENERGY_SAFE_STEPS,
                ),
            };
            let twist = impact::apply_impulse(body, &at, &r, &result.impulse);
            let after = State {
                pose: at.pose,
                twist,
            };
            let u_after = impact::point_velocity(&after, &r);
            let tangential = |x: &Vector3<f64>| (x - n * n.dot(x)).norm();
            t += found.tau;
            events.push(ImpactEvent {
                t,
                point: [c.x, c.y, c.z],
                normal_speed_before: un,
                normal_speed_after: n.dot(&u_after),
                tangential_speed_before: tangential(&u),
                tangential_speed_after: tangential(&u_after),
                mode: result.mode,
                impulse: [result.impulse.x, result.impulse.y, result.impulse.z],
                kinetic_energy_change: body.kinetic_energy(&twist) - body.kinetic_energy(&at.twist),
                fallback: result.fallback,
            });
            impacts_here += 1;
            state = after;
            if -un < settings.rest_speed {
                stop = Some((t, -un, step));
                break 'steps;
            }
        }
        check_state(scene, &state, t1, step)?;
        max_ortho = max_ortho.max(se3::orthonormality_error(&state.pose.r));
        rows.push(row(scene, t1, &state));
    }
    if let Some((t, approach_speed, step)) = stop {
        check_state(scene, &state, t, step)?;
        max_ortho = max_ortho.max(se3::orthonormality_error(&state.pose.r));
        rows.push(row(scene, t, &state));
        ending = accumulated_ending(scene, &state, t, approach_speed, &events);
    }
    let energy = |r: &RigidRow| r.kinetic + r.potential;
    let settings = scene.ground.as_ref().map(|(_, s)| *s);
    let summary = RigidSummary {
        case: scene.source.clone(),
        name: scene.name.clone(),
        overrides: scene.overrides.clone(),
        kind: crate::rigid::case::KIND,
        impact_model: settings.map(|s| s.model),
        restitution: settings.map(|s| s.restitution),
        mu: settings.map(|s| {
            if s.friction.is_infinite() {
                "inf".to_string()
            } else {
                crate::number_format::short(s.friction)
            }
        }),
        h: scene.h,
        duration,
        ended: ending,
        impacts: events.len(),
        stick_impacts: events
            .iter()
            .filter(|e| e.mode == ContactMode::Stick)
            .count(),
        slide_impacts: events
            .iter()
            .filter(|e| e.mode == ContactMode::Slide)
            .count(),
        fallback_impacts: events.iter().filter(|e| e.fallback).count(),
        energy_lost_per_impact: events.iter().map(|e| -e.kinetic_energy_change).collect(),
        largest_energy_gain: events
            .iter()
            .map(|e| e.kinetic_energy_change)
            .fold(0.0, f64::max),
        largest_flight_energy_drift: flight_drift,
        energy_initial: rows.first().map_or(0.0, energy),
        energy_final: rows.last().map_or(0.0, energy),
        min_distance: scene.ground.as_ref().map(|_| {
            rows.iter()
                .map(|r| r.distance)
                .fold(f64::INFINITY, f64::min)
        }),
        max_orthonormality_error: max_ortho,
        wall_seconds: clock.elapsed().as_secs_f64(),
    };
    Ok(RigidRun {
        rows,
        events,
        summary,
    })
}

fn io<T>(path: &Path, r: std::io::Result<T>) -> Result<T, RigidRunError> {
    r.map_err(|source| RigidRunError::Output {
        path: path.to_path_buf(),
        source,
    })
}

/// Column names of the rigid `trajectory.csv`, with units.
pub const TRAJECTORY_HEADER: &str = "t_s,x_m,y_m,z_m,qw,qx,qy,qz,omega_x_rad_per_s,omega_y_rad_per_s,omega_z_rad_per_s,v_x_m_per_s,v_y_m_per_s,v_z_m_per_s,kinetic_j,potential_j,total_j,angular_momentum_kg_m2_per_s,distance_to_ground_m";

/// Column names of `events.csv`, with units.
pub const EVENTS_HEADER: &str = "t_s,contact_x_m,contact_y_m,contact_z_m,normal_speed_before_m_per_s,normal_speed_after_m_per_s,tangential_speed_before_m_per_s,tangential_speed_after_m_per_s,mode,impulse_x_n_s,impulse_y_n_s,impulse_z_n_s,kinetic_energy_change_j,fallback";

/// The values of one row of `trajectory.csv`, in the order of [`TRAJECTORY_HEADER`] (the
/// orientation as a unit quaternion w, x, y, z; the twist as ω then v, body frame as stored).
pub fn trajectory_values(r: &RigidRow) -> [f64; 19] {
    let q = UnitQuaternion::from_matrix(&r.state.pose.r);
    let (p, tw) = (r.state.pose.p, r.state.twist);
    [
        r.t,
        p.x,
        p.y,
        p.z,
        q.w,
        q.i,
        q.j,
        q.k,
        tw[0],
        tw[1],
        tw[2],
        tw[3],
        tw[4],
        tw[5],
        r.kinetic,
        r.potential,
        r.kinetic + r.potential,
        r.angular_momentum,
        r.distance,
    ]
}

/// Writes `trajectory.csv`, `events.csv` and `summary.json`; `file(name)` gives each one's
/// path (e.g. inside the front-end's `stickslip::app::output::StagedDir`).
pub fn write_outputs(file: impl Fn(&str) -> PathBuf, run: &RigidRun) -> Result<(), RigidRunError> {
    let path = file("trajectory.csv");
    let mut w = BufWriter::new(io(&path, fs::File::create(&path))?);
    io(&path, writeln!(w, "{TRAJECTORY_HEADER}"))?;
    for r in &run.rows {
        // The distance without a ground is an empty field.
        let row = crate::number_format::csv_row(&trajectory_values(r));
        io(&path, writeln!(w, "{row}"))?;
    }
    io(&path, w.flush())?;
    let path = file("events.csv");
    let mut w = BufWriter::new(io(&path, fs::File::create(&path))?);
    io(&path, writeln!(w, "{EVENTS_HEADER}"))?;
    for e in &run.events {
        io(
            &path,
            writeln!(
                w,
                "{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
                e.t,
                e.point[0],
                e.point[1],
                e.point[2],
                e.normal_speed_before,
                e.normal_speed_after,
                e.tangential_speed_before,
                e.tangential_speed_after,
                e.mode,
                e.impulse[0],
                e.impulse[1],
                e.impulse[2],
                e.kinetic_energy_change,
                e.fallback
            ),
        )?;
    }
    io(&path, w.flush())?;
    let path = file("summary.json");
    let text = serde_json::to_string_pretty(&run.summary).map_err(|e| RigidRunError::Output {
        path: path.clone(),
        source: std::io::Error::other(e),
    })?;
    io(&path, fs::write(&path, text + "\n"))
}
