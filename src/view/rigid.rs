//! `stickslip view` for a case of `kind = "rigid_ellipsoid"` (SPEC.md §5): the football in 3D.
//!
//! The run is computed first ([`simulate`], a few ms) and played back: the ball (brown, with two
//! white stripes near its ends and a white seam along its length so that spin shows), the
//! ground grid (drawn as the horizontal plane through the ground point), the trail of the
//! centre of mass, a red marker at each impact, and a HUD with time, energy, impacts and the
//! last impact's stick/slide. Headless (`--frames N --screenshot out.png`), each frame advances
//! 1/60 s of simulated time times `--speed`.

use macroquad::camera::{Camera3D, set_camera, set_default_camera};
use macroquad::color::{Color, WHITE};
use macroquad::input::{KeyCode, is_key_pressed};
use macroquad::math::{Vec3, vec2, vec3};
use macroquad::models::{Mesh, Vertex, draw_grid_ex, draw_line_3d, draw_mesh, draw_sphere};
use macroquad::text::draw_text;
use macroquad::time::get_frame_time;
use macroquad::window::{clear_background, next_frame};
use nalgebra::Vector3;

use super::ViewError;
use crate::rigid::case::RigidScene;
use crate::rigid::run::{RigidRun, simulate};

/// Latitude and longitude divisions of the ball's mesh.
const RINGS: usize = 24;
const SEGMENTS: usize = 48;
/// Simulated seconds a headless frame advances (times the speed).
const HEADLESS_FRAME_S: f64 = 1.0 / 60.0;

/// World (z up) → macroquad's GL frame (y up): (x, y, z) ↦ (x, z, −y), a proper rotation.
fn gl(p: &Vector3<f64>) -> Vec3 {
    vec3(p.x as f32, p.z as f32, -p.y as f32)
}

const BROWN: Color = Color::new(0.45, 0.22, 0.08, 1.0);
const IMPACT: Color = Color::new(0.85, 0.1, 0.1, 1.0);
const TRAIL: Color = Color::new(0.2, 0.35, 0.8, 1.0);

/// The ball's surface in the body frame, with a colour per vertex: stripes at |x|/a ∈ [0.55,
/// 0.68] and a seam at |φ| < 0.14 rad where |x|/a < 0.5.
fn ball_vertices(semi_axes: &Vector3<f64>) -> Vec<(Vector3<f64>, Color)> {
    let mut v = Vec::with_capacity((RINGS + 1) * SEGMENTS);
    for i in 0..=RINGS {
        let theta = std::f64::consts::PI * i as f64 / RINGS as f64;
        for j in 0..SEGMENTS {
            let phi = 2.0 * std::f64::consts::PI * j as f64 / SEGMENTS as f64;
            let x = theta.cos();
            let p = Vector3::new(
                semi_axes.x * x,
                semi_axes.y * theta.sin() * phi.cos(),
                semi_axes.z * theta.sin() * phi.sin(),
            );
            let stripe = (0.55..=0.68).contains(&x.abs());
            let seam = x.abs() < 0.5 && phi.cos() > 0.14_f64.cos(); // |φ| < 0.14 rad
            v.push((p, if stripe || seam { WHITE } else { BROWN }));
        }
    }
    v
}

/// Rings per draw call: macroquad clamps a draw call's geometry, so the ball goes out in bands
/// of this many rings (6 × 48 quads = 1728 indices).
const RINGS_PER_BAND: usize = 6;

/// Triangle indices of a band of [`RINGS_PER_BAND`] rings, relative to its first vertex.
fn band_indices() -> Vec<u16> {
    let mut idx = Vec::with_capacity(RINGS_PER_BAND * SEGMENTS * 6);
    for i in 0..RINGS_PER_BAND {
        for j in 0..SEGMENTS {
            let a = (i * SEGMENTS + j) as u16;
            let b = (i * SEGMENTS + (j + 1) % SEGMENTS) as u16;
            let c = ((i + 1) * SEGMENTS + j) as u16;
            let d = ((i + 1) * SEGMENTS + (j + 1) % SEGMENTS) as u16;
            idx.extend_from_slice(&[a, c, b, b, c, d]);
        }
    }
    idx
}

/// Shades a colour by how much its surface normal faces a light from above and the side.
fn shade(c: Color, normal: &Vector3<f64>) -> Color {
    let light = Vector3::new(0.4, -0.5, 0.77).normalize();
    let k = (0.45 + 0.55 * normal.dot(&light).max(0.0)) as f32;
    Color::new(c.r * k, c.g * k, c.b * k, 1.0)
}

/// Runs the view of one rigid case.
pub(crate) async fn run(
    scene: RigidScene,
    frames: Option<usize>,
    speed: f64,
    screenshot: Option<std::path::PathBuf>,
    frames_done: std::rc::Rc<std::cell::Cell<usize>>,
    save: fn(&std::path::Path) -> Result<(), ViewError>,
) -> Result<(), ViewError> {
    let run: RigidRun = simulate(&scene, None).map_err(|e| ViewError::Window(e.to_string()))?;
    let body_vertices = ball_vertices(&scene.shape.semi_axes);
    let indices = band_indices();
    let ground_height = scene.ground.as_ref().map(|(g, _)| g.point.z);
    let t_end = run.rows.last().map_or(0.0, |r| r.t);
    let h = scene.h;
    let mut t = 0.0_f64;
    let mut paused = false;
    let mut count = 0usize;
    loop {
        if let Some(end) = super::window::quit_key(frames, count) {
            return end;
        }
        if is_key_pressed(KeyCode::Space) {
            paused = !paused;
        }
        if is_key_pressed(KeyCode::R) {
            t = 0.0;
        }
        if frames.is_some() {
            t += HEADLESS_FRAME_S * speed;
        } else if !paused {
            t += f64::from(get_frame_time()).min(0.1) * speed;
        }
        t = t.min(t_end);
        let k = ((t / h).round() as usize).min(run.rows.len() - 1);
        let row = &run.rows[k];
        let pose = row.state.pose;

        clear_background(Color::new(0.93, 0.95, 0.98, 1.0));
        // Camera: behind and beside the ball, looking at it.
        let look = pose.p;
        set_camera(&Camera3D {
            position: gl(&(look + Vector3::new(-1.0, -1.6, 0.7))),
            target: gl(&look),
            up: vec3(0.0, 1.0, 0.0),
            ..Default::default()
        });
        if let Some(z) = ground_height {
            draw_grid_ex(
                60,
                0.5,
                Color::new(0.3, 0.5, 0.3, 1.0),
                Color::new(0.6, 0.75, 0.6, 1.0),
                vec3(look.x as f32, z as f32, -look.y as f32).floor(),
                Default::default(),
            );
        }
        // Trail of the centre of mass up to now.
        let stride = (0.01 / h).max(1.0) as usize;
        let trail: Vec<Vec3> = run.rows[..=k]
            .iter()
            .step_by(stride)
            .map(|r| gl(&r.state.pose.p))
            .chain(std::iter::once(gl(&pose.p)))
            .collect();
        for w in trail.windows(2) {
            draw_line_3d(w[0], w[1], TRAIL);
        }
        // Impacts so far.
        for e in run.events.iter().filter(|e| e.t <= t) {
            draw_sphere(gl(&Vector3::from(e.point)), 0.03, None, IMPACT);
        }
        // The ball.
        let vertices: Vec<Vertex> = body_vertices
            .iter()
            .map(|(p, c)| {
                let normal = pose.r
                    * p.component_div(&scene.shape.semi_axes.component_mul(&scene.shape.semi_axes));
                let world = pose.p + pose.r * p;
                Vertex::new2(gl(&world), vec2(0.0, 0.0), shade(*c, &normal.normalize()))
            })
            .collect();
        for band in 0..RINGS / RINGS_PER_BAND {
            let first = band * RINGS_PER_BAND * SEGMENTS;
            let last = first + (RINGS_PER_BAND + 1) * SEGMENTS;
            draw_mesh(&Mesh {
                vertices: vertices[first..last].to_vec(),
                indices: indices.clone(),
                texture: None,
            });
        }

        // HUD.
        set_default_camera();
        let impacts: Vec<_> = run.events.iter().filter(|e| e.t <= t).collect();
        let last = impacts.last().map_or("-".to_owned(), |e| {
            format!("{} at t = {:.3} s", e.mode, e.t)
        });
        let ended = if t >= t_end {
            format!("   ({})", run.summary.ended)
        } else {
            String::new()
        };
        let lines = [
            format!("{}{}", scene.name, ended),
            format!("t = {t:.3} s    speed x{speed}"),
            format!(
                "energy {:.4} J (kinetic {:.4} J, potential {:.4} J)",
                row.kinetic + row.potential,
                row.kinetic,
                row.potential
            ),
            format!("impacts {}    last impact: {last}", impacts.len()),
            "space pause  R restart  Esc quit".to_owned(),
        ];
        for (i, l) in lines.iter().enumerate() {
            draw_text(
                l,
                16.0,
                30.0 + 26.0 * i as f32,
                24.0,
                Color::new(0.1, 0.1, 0.1, 1.0),
            );
        }
        count += 1;
        frames_done.set(count);
        if let Some(n) = frames
            && count >= n
        {
            if let Some(path) = &screenshot {
                save(path)?;
            }
            return Ok(());
        }
        next_frame().await;
    }
}
