//! The window: the keys, the clock, the layout, the lamps' panel, the help line and the
//! screenshots, around a [`SceneView`] that steps and paints itself. Nothing here knows a scene;
//! nothing here changes one but through its trait.

use std::path::Path;

use macroquad::input::{KeyCode, get_char_pressed, is_key_pressed};
use macroquad::time::get_frame_time;
use macroquad::window::{Conf, clear_background, next_frame, screen_height, screen_width};

use super::layout;
use super::paint::{Pen, colour};
use super::panels::lamp_strip;
use super::scene_view::{SceneView, ViewState};
use super::solid_layout::Orbit;
use super::{ViewConfig, ViewError};
use crate::graphics;

/// Speeds offered by + and −, simulated seconds per second.
const SPEEDS: [f64; 9] = [0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0];
/// Most steps a case takes in one frame, so a slow frame cannot snowball.
const MAX_STEPS_PER_FRAME: usize = 400;
/// Longest frame time counted, s (a window drag or a breakpoint is not simulated time).
const MAX_FRAME_DT: f64 = 0.1;

/// The window's configuration.
pub(crate) fn window_conf() -> Conf {
    Conf {
        window_title: "stickslip".to_owned(),
        window_width: layout::WINDOW_WIDTH as i32,
        window_height: layout::WINDOW_HEIGHT as i32,
        high_dpi: false,
        window_resizable: true,
        sample_count: 1,
        ..Default::default()
    }
}

const HELP: &str = "space pause · → step · R reset · 1/2/3 case · +/− speed · F forces · S screenshot · 3D: A/D W/X I/O C camera · Esc quit";

/// Writes the current frame as an RGB PNG through the one PNG writer
/// ([`crate::graphics::write_png`]).
pub(super) fn save_screenshot(path: &Path) -> Result<(), ViewError> {
    let img = macroquad::texture::get_screen_data();
    let (w, h) = (img.width as usize, img.height as usize);
    // GL rows run bottom to top; PNG rows top to bottom.
    let mut rgb = Vec::with_capacity(w * h * 3);
    for y in (0..h).rev() {
        for px in img.bytes[y * w * 4..(y + 1) * w * 4].chunks_exact(4) {
            rgb.extend_from_slice(&px[..3]);
        }
    }
    crate::graphics::write_png(path, &rgb, w as u32, h as u32, "view").map_err(|e| {
        ViewError::Screenshot {
            path: path.to_path_buf(),
            reason: e.to_string(),
        }
    })
}

/// The speed that + (`up`) or − gives: the next of [`SPEEDS`] above (below) `speed`, or `speed`
/// itself beyond the list's end. (From a `--speed` between two entries, + and − go to the
/// neighbours; they never move the other way.)
fn next_speed(speed: f64, up: bool) -> f64 {
    let next = if up {
        SPEEDS.iter().copied().find(|&s| s > speed)
    } else {
        SPEEDS.iter().rev().copied().find(|&s| s < speed)
    };
    next.unwrap_or(speed)
}

/// Esc or Q pressed: the window loop's end. Headless frames (`--frames`) cut short are the
/// window closed early: no screenshot, exit 1. Shared with the rigid view's loop.
pub(super) fn quit_key(frames: Option<usize>, done: usize) -> Option<Result<(), ViewError>> {
    if !(is_key_pressed(KeyCode::Escape) || is_key_pressed(KeyCode::Q)) {
        return None;
    }
    Some(match frames {
        Some(wanted) => Err(ViewError::Closed { done, wanted }),
        None => Ok(()),
    })
}

/// The camera keys of a 3D scene (A/D turn, W/X raise and lower, I/O zoom in and out, C back
/// to the default view) applied to `orbit`.
fn orbit_keys(orbit: Orbit) -> Orbit {
    let pressed = |key| i32::from(is_key_pressed(key));
    if is_key_pressed(KeyCode::C) {
        return Orbit::default();
    }
    orbit
        .turned(pressed(KeyCode::D) - pressed(KeyCode::A))
        .raised(pressed(KeyCode::W) - pressed(KeyCode::X))
        .zoomed(pressed(KeyCode::O) - pressed(KeyCode::I))
}

/// Paints every panel: the scene's own, the lamps of the case shown, the help line.
fn draw_all(scene: &dyn SceneView, view: &ViewState, pen: &Pen) {
    let lay = layout::layout(screen_width(), screen_height());
    clear_background(colour(graphics::BACKGROUND));
    scene.paint_scene(view, lay.scene, pen);
    scene.paint_hud(view, lay.hud, pen);
    lamp_strip(scene.lamps(view.selected), lay.lamps, pen);
    scene.paint_chart(view, lay.chart, pen);
    pen.text(
        HELP,
        lay.help.x,
        lay.help.y + 16.0,
        16,
        colour(graphics::TEXT),
    );
}

/// The window loop: until Esc (or the window is closed), or `--frames` frames.
pub(crate) async fn run(mut scene: Box<dyn SceneView>, cfg: ViewConfig) -> Result<(), ViewError> {
    let pen = Pen::new();
    let n_cases = scene.case_count();
    let mut sel = cfg.select.min(n_cases - 1);
    let mut forces = cfg.forces;
    let mut orbit = Orbit::default();
    let mut paused = false;
    let mut speed = cfg.speed;
    let mut target = 0.0f64;
    let mut status = String::new();
    let mut frames = 0usize;
    loop {
        // Keys.
        if let Some(end) = quit_key(cfg.frames, frames) {
            return end;
        }
        if is_key_pressed(KeyCode::Space) {
            paused = !paused;
        }
        if is_key_pressed(KeyCode::F) {
            forces = !forces;
        }
        orbit = orbit_keys(orbit);
        if is_key_pressed(KeyCode::R) {
            if let Err(e) = scene.reset() {
                status = e;
            }
            target = 0.0;
        }
        let digit_keys = [
            KeyCode::Key1,
            KeyCode::Key2,
            KeyCode::Key3,
            KeyCode::Key4,
            KeyCode::Key5,
            KeyCode::Key6,
            KeyCode::Key7,
            KeyCode::Key8,
            KeyCode::Key9,
        ];
        for (k, key) in digit_keys.iter().enumerate() {
            if k < n_cases && is_key_pressed(*key) {
                sel = k;
            }
        }
        while let Some(ch) = get_char_pressed() {
            match ch {
                '+' | '=' => speed = next_speed(speed, true),
                '-' | '_' => speed = next_speed(speed, false),
                _ => {}
            }
        }
        let one_step = is_key_pressed(KeyCode::Right);

        // Time.
        if cfg.frames.is_some() {
            scene.step_once()?;
            target = scene.time(sel);
        } else if one_step {
            paused = true;
            scene.step_once()?;
            target = scene.time(sel);
        } else if !paused {
            target += (get_frame_time() as f64).min(MAX_FRAME_DT) * speed;
            scene.advance(target, MAX_STEPS_PER_FRAME)?;
        }

        let state = if cfg.frames.is_some() {
            "headless frames".to_owned()
        } else if paused {
            "paused".to_owned()
        } else {
            "running".to_owned()
        };
        let line = format!("{state}, speed ×{speed}   {status}");
        let view = ViewState {
            selected: sel,
            forces,
            orbit,
            status: &line,
        };
        draw_all(scene.as_ref(), &view, &pen);
        frames += 1;
        cfg.frames_done.set(frames);

        if let Some(n) = cfg.frames
            && frames >= n
        {
            if let Some(path) = &cfg.screenshot {
                save_screenshot(path)?;
            }
            return Ok(());
        }
        if is_key_pressed(KeyCode::S) {
            let path = scene.screenshot_name(sel);
            // Also on stderr, for a terminal (and for tests/viewer_keys.rs, which waits on it).
            status = match save_screenshot(&path) {
                Ok(()) => {
                    eprintln!("stickslip view: screenshot written to {}", path.display());
                    format!("saved {}", path.display())
                }
                Err(e) => {
                    eprintln!("stickslip view: {e}");
                    e.to_string()
                }
            };
        }
        next_frame().await;
    }
}

#[cfg(test)]
mod tests {
    use super::{SPEEDS, next_speed};

    #[test]
    fn plus_and_minus_step_through_the_speeds_and_never_the_wrong_way() {
        assert_eq!(next_speed(1.0, true), 2.0);
        assert_eq!(next_speed(1.0, false), 0.5);
        assert_eq!(next_speed(0.3, true), 0.5);
        assert_eq!(next_speed(0.3, false), 0.25);
        // Beyond the ends: the other way still works, the way out keeps the speed.
        assert_eq!(next_speed(0.03, false), 0.03);
        assert_eq!(next_speed(0.03, true), 0.05);
        assert_eq!(next_speed(20.0, true), 20.0);
        assert_eq!(next_speed(20.0, false), 16.0);
        assert_eq!(next_speed(SPEEDS[0], false), SPEEDS[0]);
        assert_eq!(next_speed(SPEEDS[8], true), SPEEDS[8]);
    }
}
