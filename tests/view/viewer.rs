//! `stickslip view`: headless frames (`--frames N --screenshot PNG`) show the slope line and the
//! mesh (the floor and the balls for the bounce scene) where the scene and the viewer's
//! world→screen transform put them; the lamps judge the reference runs; no display is a clear
//! error.
//!
//! The window tests need an X11 display (CI runs them as `xvfb-run -a cargo test`): without one
//! they fail, unless `STICKSLIP_ALLOW_SKIP=1` asks to skip them knowingly (then they print a
//! notice and return).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};

use stickslip::cross_check::backend::BackendError;
use stickslip::cross_check::impulse_law::SharedBackend;
use stickslip::cross_check::impulse_law::{ContactInput, CpuLaw, ImpulseBackend};
use stickslip::energy::Vec2;
use stickslip::graphics::{self, Rgb};
use stickslip::run::runner::{RunOptions, Runner};
use stickslip::scene::Scene;
use stickslip::scene::bounce::BounceCase;
use stickslip::view::bounce::Bounce;
use stickslip::view::layout::{self, Camera};
use stickslip::view::slope::SlopeCase;

use crate::picture;
use picture::Picture;

const BIN: &str = env!("CARGO_BIN_EXE_stickslip");
/// Steps rendered before the screenshot.
const FRAMES: usize = 50;
/// A pixel "has" a colour when every channel is within this of it: the fills are flat (no
/// blending, no multisampling), so only a driver's dithering could move them.
const CHANNEL_TOL: i32 = 6;
/// How far from the expected point the colour may be found, px: the transform is evaluated in
/// f64 here and in f32 by the renderer, and lines are rasterised to whole pixels.
const SEARCH_PX: i32 = 3;
/// Share of the sampled slope points that must show the slope colour: the mesh, the nodes, the
/// scale bar and the labels cover some of the line.
const SLOPE_SHARE: f64 = 0.75;
/// Share of the springs whose midpoint must show the mesh colour: only the force arrows (off)
/// or a node could cover a midpoint.
const MESH_SHARE: f64 = 0.9;

/// The viewer's screenshot, with a search for a colour near a point.
struct Png(Picture);

impl Png {
    fn read(path: &Path) -> Png {
        Png(Picture::read(path))
    }

    fn is(&self, x: i32, y: i32, c: Rgb) -> bool {
        self.0.is(x, y, c, CHANNEL_TOL)
    }

    fn near(&self, p: (f32, f32), c: Rgb) -> bool {
        let (x, y) = (p.0.round() as i32, p.1.round() as i32);
        (-SEARCH_PX..=SEARCH_PX)
            .any(|dy| (-SEARCH_PX..=SEARCH_PX).any(|dx| self.is(x + dx, y + dy, c)))
    }

    fn count(&self, c: Rgb) -> usize {
        self.0.count(c, CHANNEL_TOL)
    }
}

/// Whether the window tests can run; panics when a display is required and missing.
fn display_or_skip(test: &str) -> bool {
    if std::env::var_os("DISPLAY").is_some_and(|d| !d.is_empty()) {
        return true;
    }
    if std::env::var("STICKSLIP_ALLOW_SKIP").as_deref() != Ok("1") {
        panic!(
            "{test}: no DISPLAY: run under `xvfb-run -a`, or set STICKSLIP_ALLOW_SKIP=1 to skip the window tests knowingly"
        );
    }
    // Straight to stderr, past the test harness's capture, so that the skip is seen.
    let notice = format!(
        "\n********************************************************************\n\
         * {test}: SKIPPED, no DISPLAY. Run `xvfb-run -a cargo test --test view viewer::`\n\
         * (skipped because STICKSLIP_ALLOW_SKIP=1; without it this fails).\n\
         ********************************************************************\n"
    );
    let _ = std::io::Write::write_all(&mut std::io::stderr(), notice.as_bytes());
    false
}

fn screenshot(args: &[&str], dir: &Path, name: &str) -> Png {
    let out = dir.join(name);
    let frames = FRAMES.to_string();
    let status = Command::new(BIN)
        .arg("view")
        .args(args)
        .args(["--frames", &frames, "--screenshot"])
        .arg(&out)
        .status()
        .expect("the binary runs");
    assert!(status.success(), "view {args:?} failed: {status}");
    let png = Png::read(&out);
    assert_eq!(
        (png.0.w, png.0.h),
        (
            layout::WINDOW_WIDTH as usize,
            layout::WINDOW_HEIGHT as usize
        ),
        "the PNG has the window's size"
    );
    // Nothing but the PNG is left beside it (the temporary file was renamed).
    let names: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(
        names
            .iter()
            .all(|n| !n.to_string_lossy().contains("partial")),
        "{names:?}"
    );
    png
}

fn assert_line(png: &Png, seg: [(f32, f32); 2], c: Rgb, what: &str) {
    let n = 60;
    let hits = (0..=n)
        .filter(|&k| {
            let f = k as f32 / n as f32;
            let p = (
                seg[0].0 + f * (seg[1].0 - seg[0].0),
                seg[0].1 + f * (seg[1].1 - seg[0].1),
            );
            png.near(p, c)
        })
        .count();
    let share = hits as f64 / (n + 1) as f64;
    assert!(
        share >= SLOPE_SHARE,
        "{what}: only {hits}/{} points of the expected line show its colour",
        n + 1
    );
}

fn case_files() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/cases"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        // The book's three slope cases (slope_mu*.toml); cases/football*.toml are
        // rigid_ellipsoid cases (tests/view/rigid_view.rs) and slope_tumbling.toml leaves the view.
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("slope_mu"))
        })
        .collect();
    v.sort();
    assert_eq!(v.len(), 3, "the three slope cases");
    v
}

#[test]
fn every_slope_case_draws_the_slope_and_the_mesh_where_the_scene_puts_them() {
    if !display_or_skip("slope screenshots") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for case in case_files() {
        let stem = case.file_stem().unwrap().to_string_lossy().into_owned();
        let png = screenshot(
            &[case.to_str().unwrap(), "--gpu", "off"],
            dir.path(),
            &format!("{stem}.png"),
        );
        // The same run, stepped here: where the mesh is after FRAMES steps.
        let scene = Scene::load(&case).unwrap();
        let mut runner = Runner::new(scene.clone(), &RunOptions::default()).unwrap();
        for _ in 0..FRAMES {
            runner.step().unwrap();
        }
        let x = &runner.sim.x;
        let c = x.iter().sum::<Vec2>() / x.len() as f64;
        let lay = layout::layout(png.0.w as f32, png.0.h as f32);
        let cam = layout::slope_camera(lay.scene, scene.side, &scene.normal, &scene.point, &c);
        let seg = layout::slope_segment(&cam, &scene.normal, &scene.point)
            .expect("the slope crosses the scene view");
        assert_line(&png, seg, graphics::SLOPE, &format!("{stem}: slope line"));

        let edges = &runner.mesh.edges;
        let hits = edges
            .iter()
            .filter(|&&[a, b]| png.near(cam.to_screen(&((x[a] + x[b]) * 0.5)), graphics::MESH))
            .count();
        assert!(
            hits as f64 >= MESH_SHARE * edges.len() as f64,
            "{stem}: {hits}/{} spring midpoints show the mesh colour",
            edges.len()
        );
        let node_colours = [
            graphics::NODE_FREE,
            graphics::NODE_STICKING,
            graphics::NODE_SLIDING,
        ];
        let nodes = x
            .iter()
            .filter(|p| {
                let (sx, sy) = cam.to_screen(p);
                node_colours
                    .iter()
                    .any(|&c| png.is(sx.round() as i32, sy.round() as i32, c))
            })
            .count();
        assert!(
            nodes as f64 >= MESH_SHARE * x.len() as f64,
            "{stem}: {nodes}/{} nodes drawn in a node colour at their place",
            x.len()
        );
        // The mesh colour is not smeared over the frame: far from the square (a corner of the
        // scene view, the chart) it is absent.
        let mesh_px = png.count(graphics::MESH);
        assert!(mesh_px > 500, "{stem}: {mesh_px} mesh pixels");
        let corner = cam.to_world(lay.scene.x + 5.0, lay.scene.y + 60.0);
        assert!(
            (corner - c).norm() > scene.side,
            "the corner is off the square"
        );
        assert!(!png.near((lay.scene.x + 5.0, lay.scene.y + 60.0), graphics::MESH));
    }
}

#[test]
fn the_bounce_scene_draws_the_floor_and_the_balls_at_their_heights() {
    if !display_or_skip("bounce screenshot") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // --gpu auto: the GPU kernel when an adapter exists, else the CPU law.
    let png = screenshot(&["cases/bounce.toml"], dir.path(), "bounce.png");
    let case = BounceCase::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("cases/bounce.toml"));
    let mut b = Bounce::new(&case.unwrap());
    let mut law = CpuLaw::single_threaded();
    for _ in 0..FRAMES {
        b.step(&mut law).unwrap();
    }
    let lay = layout::layout(png.0.w as f32, png.0.h as f32);
    let cam: Camera = layout::bounce_camera(lay.scene, b.case.drop);
    let floor = layout::slope_segment(&cam, &Vec2::new(0.0, 1.0), &Vec2::zeros()).unwrap();
    assert_line(&png, floor, graphics::SLOPE, "bounce: floor");
    for i in 0..3 {
        let (x, y) = layout::ball_centre(&cam, i, b.now[i]);
        assert!(
            png.near((x, y), graphics::case_colour(i)),
            "ball {i} at height {} m not drawn at ({x}, {y})",
            b.now[i]
        );
        // And not where it would be a metre higher or lower (the balls are 16 cm wide).
        let other = layout::ball_centre(&cam, i, b.now[i] + 0.5);
        assert!(
            !png.near(other, graphics::case_colour(i)),
            "ball {i} smeared"
        );
    }
    // `--scene bounce` is the same file built into the binary: the same frame, pixel for pixel
    // (same backend, same steps, same painting).
    let alias = screenshot(&["--scene", "bounce"], dir.path(), "alias.png");
    assert!(
        alias.0.rgb == png.0.rgb,
        "--scene bounce differs from cases/bounce.toml"
    );
}

#[test]
fn no_display_is_a_one_line_error_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.png");
    let o = Command::new(BIN)
        .args(["view", "--frames", "2", "--gpu", "off", "--screenshot"])
        .arg(&out)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("no display"), "{err}");
    assert!(err.contains("xvfb-run"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(!out.exists());
}

#[test]
fn bad_options_exit_2() {
    for args in [
        vec!["view", "--screenshot", "x.png"],
        vec!["view", "--speed", "0"],
        vec!["view", "--select", "4"],
        vec!["view", "no/such/case.toml"],
    ] {
        let o = Command::new(BIN).args(&args).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}: {o:?}");
    }
}

fn shared(b: impl ImpulseBackend + 'static) -> SharedBackend {
    let b: Box<dyn ImpulseBackend> = Box::new(b);
    SharedBackend(Arc::new(Mutex::new(b)))
}

#[test]
fn the_lamps_stay_green_over_the_reference_runs() {
    for case in case_files() {
        let scene = Scene::load(&case).unwrap();
        let mut c = SlopeCase::new(
            scene,
            &RunOptions::default(),
            shared(CpuLaw::single_threaded()),
        )
        .unwrap();
        while c.can_step() {
            c.step();
        }
        assert!(
            c.lamps.all_hold(),
            "{}: {:?}",
            case.display(),
            c.lamps.first_red()
        );
        assert!(
            c.lamps
                .lamps
                .iter()
                .all(|l| l.state == stickslip::view::lamps::LampState::Green),
            "every lamp judged by the end"
        );
    }
}

/// A law that never sticks: the optimiser's stops (μ = 0.2) then all disagree.
struct NeverSticks;
impl ImpulseBackend for NeverSticks {
    fn name(&self) -> String {
        "never sticks".into()
    }
    fn apply(
        &mut self,
        inputs: &[ContactInput],
        out: &mut Vec<[f32; 3]>,
    ) -> Result<(), BackendError> {
        out.clear();
        out.extend(inputs.iter().map(|c| {
            let mut v = c.resolve();
            let n = c.normal;
            // A tangential part of 1 m/s along the slope.
            v[0] += n[1];
            v[1] -= n[0];
            v
        }));
        Ok(())
    }
}

#[test]
fn a_wrong_law_turns_the_cross_check_lamp_red() {
    let case = &case_files()[2];
    let mut c = SlopeCase::new(
        Scene::load(case).unwrap(),
        &RunOptions::default(),
        shared(NeverSticks),
    )
    .unwrap();
    while c.can_step() {
        c.step();
    }
    assert!(c.lamps.lamps[2].is_red(), "{:?}", c.lamps.lamps[2]);
    assert!(!c.lamps.lamps[0].is_red() && !c.lamps.lamps[1].is_red());
}

/// A case file's `kind` chooses the scene: a bad bounce case, an unknown kind, and a bounce case
/// given to `run` are each one line naming the file and the key, exit 2, before any window.
#[test]
fn a_bad_bounce_case_or_an_unknown_kind_is_one_line_naming_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let bounce =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("cases/bounce.toml"))
            .unwrap();
    let bad_drop = dir.path().join("drop.toml");
    std::fs::write(&bad_drop, bounce.replace("drop = 2.0", "drop = -1.0")).unwrap();
    let cube = dir.path().join("cube.toml");
    std::fs::write(
        &cube,
        bounce.replace("kind = \"bounce\"", "kind = \"cube\""),
    )
    .unwrap();
    let as_file = |p: &Path| p.to_str().unwrap().to_owned();
    for (args, key) in [
        (vec!["view".to_owned(), as_file(&bad_drop)], "`drop`"),
        (vec!["view".to_owned(), as_file(&cube)], "`kind`"),
        (vec!["run".to_owned(), as_file(&cube)], "`kind`"),
        (
            vec!["run".to_owned(), "cases/bounce.toml".to_owned()],
            "`kind`",
        ),
    ] {
        let o = Command::new(BIN)
            .args(&args)
            .args(["--gpu", "off"])
            .env_remove("DISPLAY")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.contains(key) && err.contains(".toml"),
            "{args:?}: {err}"
        );
    }
}
