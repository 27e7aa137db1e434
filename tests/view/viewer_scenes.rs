//! `stickslip view` on scene cases (`kind = "scene"`, docs/scenes.md): headless frames show every
//! body filled where the runner puts it, the belt's marks where the belt's velocity × the
//! simulated time has carried them (and not where a still belt's would be), and the contact
//! pairs in their regime's colour; 3D scene cases (`dimension = 3`) show every body's faces
//! towards the camera where the perspective projection puts them and their contact pairs in
//! their regime's colour; the lamps judge the belt's stick–slip cycle against SPEC.md
//! §8; a bad option is exit 2 before any window.
//!
//! The window tests need an X11 display (`xvfb-run -a cargo test --release --test
//! viewer_scenes`): without one they fail, unless `STICKSLIP_ALLOW_SKIP=1` asks to skip them
//! knowingly.

use std::path::{Path, PathBuf};
use std::process::Command;

use stickslip::energy::Vec2;
use stickslip::graphics::{self, Rgb};
use stickslip::run::multibody::{ContactState, SceneRunner};
use stickslip::scene::multibody::MultibodyScene;
use stickslip::view::lamps::LampState;
use stickslip::view::layout::{self, Camera};
use stickslip::view::multibody::SceneCase;
use stickslip::view::multibody_layout::{belt_marks, body_fill, mark_segment, scene_camera};
use stickslip::view::solid::SolidCase;
use stickslip::view::solid_layout::{MESH_FILL, shade};

use crate::picture;
use picture::Picture;

const BIN: &str = env!("CARGO_BIN_EXE_stickslip");
/// A pixel has a colour when every channel is within this of it: the fills are flat (no
/// blending, no multisampling).
const CHANNEL_TOL: i32 = 6;
/// How far from the expected point the colour may be found, px (f64 here, f32 in the
/// renderer, lines rasterised to whole pixels).
const SEARCH_PX: i32 = 3;
/// Share of the expected points that must show their colour: the legend's text, the grid's
/// scale bar, a contact dot or a force label may cover a few.
const SHARE: f64 = 0.75;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn display_or_skip(test: &str) -> bool {
    if std::env::var_os("DISPLAY").is_some_and(|d| !d.is_empty()) {
        return true;
    }
    if std::env::var("STICKSLIP_ALLOW_SKIP").as_deref() != Ok("1") {
        panic!(
            "{test}: no DISPLAY: run under `xvfb-run -a`, or set STICKSLIP_ALLOW_SKIP=1 to skip the window tests knowingly"
        );
    }
    let notice = format!(
        "\n********************************************************************\n\
         * {test}: SKIPPED, no DISPLAY. Run `xvfb-run -a cargo test --test view viewer_scenes::`\n\
         * (skipped because STICKSLIP_ALLOW_SKIP=1; without it this fails).\n\
         ********************************************************************\n"
    );
    let _ = std::io::Write::write_all(&mut std::io::stderr(), notice.as_bytes());
    false
}

fn near(png: &Picture, p: (f32, f32), c: Rgb, search: i32) -> bool {
    let (x, y) = (p.0.round() as i32, p.1.round() as i32);
    (-search..=search).any(|dy| (-search..=search).any(|dx| png.is(x + dx, y + dy, c, CHANNEL_TOL)))
}

/// The colour a contact dot of regime `s` is drawn in.
fn regime_colour(s: ContactState) -> Rgb {
    match s {
        ContactState::Stick => graphics::NODE_STICKING,
        ContactState::Transition => graphics::CONTACT_TRANSITION,
        ContactState::Slide => graphics::NODE_SLIDING,
    }
}

/// `stickslip view CASE --frames N --screenshot` of `case`, selecting case `select` (1-based).
fn screenshot(cases: &[&str], select: usize, frames: usize, dir: &Path, name: &str) -> Picture {
    screenshot_with(cases, select, frames, dir, name, &[])
}

/// [`screenshot`] with more options (`--forces`).
fn screenshot_with(
    cases: &[&str],
    select: usize,
    frames: usize,
    dir: &Path,
    name: &str,
    options: &[&str],
) -> Picture {
    let out = dir.join(name);
    let o = Command::new(BIN)
        .arg("view")
        .args(cases.iter().map(|c| root().join(c)))
        .args(["--select", &select.to_string()])
        .args(["--frames", &frames.to_string(), "--screenshot"])
        .arg(&out)
        .args(options)
        .output()
        .expect("the binary runs");
    assert!(
        o.status.success(),
        "view {cases:?} failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let png = Picture::read(&out);
    assert_eq!(
        (png.w, png.h),
        (
            layout::WINDOW_WIDTH as usize,
            layout::WINDOW_HEIGHT as usize
        )
    );
    png
}

/// The same case stepped here, `steps` steps: the state the frame shows.
fn stepped(case: &str, steps: usize) -> SceneCase {
    let scene = MultibodyScene::load(&root().join(case), &[]).unwrap();
    let mut c = SceneCase::new(scene, None).unwrap();
    for _ in 0..steps {
        c.step();
    }
    assert!(c.error.is_none(), "{case}: {:?}", c.error);
    c
}

fn camera(png: &Picture, runner: &SceneRunner) -> Camera {
    let lay = layout::layout(png.w as f32, png.h as f32);
    scene_camera(lay.scene, runner)
}

/// Every body's triangles show its fill colour at their centroids (a share [`SHARE`]), and the
/// fill is nowhere near where the body is not: the view's top-left corner.
fn assert_bodies_drawn(png: &Picture, case: &SceneCase, what: &str) {
    let cam = camera(png, &case.runner);
    let x = &case.runner.sim.x;
    for (k, (body, r)) in case
        .scene
        .bodies
        .iter()
        .zip(&case.runner.layout.bodies)
        .enumerate()
    {
        let tris = &body.mesh.triangles;
        let hits = tris
            .iter()
            .filter(|t| {
                let c = t.iter().map(|&n| x[r.start + n]).sum::<Vec2>() / 3.0;
                near(png, cam.to_screen(&c), body_fill(k), 1)
            })
            .count();
        assert!(
            hits as f64 >= SHARE * tris.len() as f64,
            "{what}: body {}: {hits}/{} triangle centroids show its fill",
            body.name,
            tris.len()
        );
        // The body fill's pixels: about its area on the screen (its triangles cover it once).
        let area_px = body.mesh.area() * cam.scale * cam.scale;
        let px = png.count(body_fill(k), CHANNEL_TOL) as f64;
        assert!(
            px > 0.5 * area_px && px < 1.2 * area_px,
            "{what}: body {}: {px} pixels of its fill for {area_px:.0} px² of body",
            body.name
        );
    }
}

/// The belt's marks: at the belt's velocity × t, in the mark colour (a share [`SHARE`]); and
/// none where a still belt's marks would be. Returns how many marks were expected.
fn assert_belt_marks(png: &Picture, case: &SceneCase, what: &str) -> usize {
    let cam = camera(png, &case.runner);
    let belt = case
        .scene
        .obstacles
        .iter()
        .find_map(|o| o.half_space())
        .expect("the belt");
    let t = case.time();
    // The marks' shift v t on the screen, modulo their spacing: far enough from 0 that a still
    // belt's marks are elsewhere (the test's premise; 3 px of search, 3 px of line).
    let spacing = stickslip::view::multibody_layout::mark_spacing(&cam);
    let shift_px = (belt.velocity.x * t).rem_euclid(spacing) * cam.scale;
    let gap_px = shift_px.min(spacing * cam.scale - shift_px);
    assert!(gap_px > 8.0, "{what}: marks shifted {gap_px:.1} px only");
    let mark_mid = |at| {
        let [p, q] = mark_segment(&cam, belt, at).expect("a mark in the view");
        (0.5 * (p.0 + q.0), 0.5 * (p.1 + q.1))
    };
    let moving = belt_marks(&cam, belt, t);
    assert!(moving.len() >= 5, "{what}: {} marks in view", moving.len());
    let hits = moving
        .iter()
        .filter(|&&at| near(png, mark_mid(at), graphics::BELT_MARK, SEARCH_PX))
        .count();
    assert!(
        hits as f64 >= SHARE * moving.len() as f64,
        "{what}: {hits}/{} belt marks where the belt has carried them",
        moving.len()
    );
    let still = belt_marks(&cam, belt, 0.0);
    let wrong = still
        .iter()
        .filter(|&&at| near(png, mark_mid(at), graphics::BELT_MARK, SEARCH_PX))
        .count();
    assert_eq!(wrong, 0, "{what}: marks where a still belt's would be");
    moving.len()
}

#[test]
fn the_belt_case_draws_the_block_and_marks_that_move_with_the_belt() {
    if !display_or_skip("belt screenshots") {
        return;
    }
    let case = "cases/belt_stick_slip.toml";
    let dir = tempfile::tempdir().unwrap();
    // Two times: 0.04 s and 0.15 s, the belt (0.1 m/s) 4 and 15 mm along.
    let mut shots = Vec::new();
    for frames in [40, 150] {
        let png = screenshot(&[case], 1, frames, dir.path(), &format!("belt{frames}.png"));
        let state = stepped(case, frames);
        assert_bodies_drawn(&png, &state, &format!("belt at step {frames}"));
        assert_belt_marks(&png, &state, &format!("belt at step {frames}"));
        shots.push(png);
    }
    // The two frames differ in the belt's band under the block, not only in the text.
    assert!(shots[0].rgb != shots[1].rgb);
}

#[test]
fn the_stacked_blocks_draw_both_bodies_and_their_contacts_in_their_regime() {
    if !display_or_skip("stacked blocks screenshot") {
        return;
    }
    let case = "cases/stacked_blocks.toml";
    let dir = tempfile::tempdir().unwrap();
    let frames = 60;
    // Loaded beside the belt, shown second: keys 1–9 choose among scene cases.
    let png = screenshot(
        &["cases/belt_stick_slip.toml", case],
        2,
        frames,
        dir.path(),
        "stack.png",
    );
    let state = stepped(case, frames);
    assert_bodies_drawn(&png, &state, "stacked blocks");
    let cam = camera(&png, &state.runner);
    let points = state.contact_points();
    assert!(!points.is_empty(), "the upper block rests on the lower");
    let hits = points
        .iter()
        .filter(|(p, s)| near(&png, cam.to_screen(p), regime_colour(*s), 1))
        .count();
    assert!(
        hits as f64 >= SHARE * points.len() as f64,
        "{hits}/{} contact dots in their regime's colour",
        points.len()
    );
}

/// The viewer's contact dots are `contacts.csv`'s pairs in `contacts.csv`'s regimes: after 60
/// steps of the stacked blocks (the upper block still settling, some pairs sliding), the
/// viewer's counts per regime equal those of the run's last rows with a positive normal force.
#[test]
fn the_contact_dots_are_the_pairs_and_regimes_of_contacts_csv() {
    let case = "cases/stacked_blocks.toml";
    let steps = 60;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let o = Command::new(BIN)
        .arg("run")
        .arg(root().join(case))
        .args(["--duration", "0.06", "--contacts", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(out.join("contacts.csv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (t_col, force_col, state_col) = (col("t_s"), col("normal_force_N"), col("state"));
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    let t_end: f64 = rows.last().unwrap()[t_col].parse().unwrap();
    assert!(
        (t_end - 0.06).abs() < 1e-9,
        "the last rows are at {t_end} s"
    );
    let mut csv = [0usize; 3];
    for r in rows
        .iter()
        .filter(|r| r[t_col].parse::<f64>().unwrap() == t_end)
    {
        if r[force_col].parse::<f64>().unwrap() > 0.0 {
            let k = ["stick", "transition", "slide"]
                .iter()
                .position(|s| *s == r[state_col])
                .unwrap();
            csv[k] += 1;
        }
    }
    let n = stepped(case, steps).contact_counts();
    assert_eq!([n.stick, n.transition, n.slide], csv);
    assert!(csv.iter().sum::<usize>() >= 10, "{csv:?}: the blocks touch");
}

/// The lamps over the belt's first 9 s (the first slip at 2.94 s, then the first full cycle
/// after it, which the runner's measured cycle needs, ends near 8.5 s): every lamp judged and
/// green, the cycle's within the 2 % of SPEC.md §8 (tests/scene/scene_cases.rs derives it).
#[test]
fn the_belt_lamps_judge_the_cycle_green_and_leave_it_pending_without_one() {
    let scene = MultibodyScene::load(&root().join("cases/belt_stick_slip.toml"), &[]).unwrap();
    let mut c = SceneCase::new(scene.clone(), Some(9.0)).unwrap();
    while c.can_step() {
        c.step();
    }
    assert!(c.lamps.all_hold(), "{:?}", c.lamps.first_red());
    assert!(
        c.lamps.lamps.iter().all(|l| l.state == LampState::Green),
        "every lamp judged by 9 s: {:?}",
        c.lamps.lamps
    );
    // 3 s: the first slip (2.94 s) but no full cycle after it: the cycle's lamp is not
    // judged (pending), never green on nothing.
    let mut short = SceneCase::new(scene, Some(3.0)).unwrap();
    while short.can_step() {
        short.step();
    }
    assert_eq!(short.lamps.lamps[3].state, LampState::Pending);
}

#[test]
fn bad_options_on_a_scene_exit_2_before_any_window() {
    for extra in [
        vec!["--select", "2"],
        vec!["--duration", "0"],
        vec!["--set", "friction.mu_static=0.1"],
    ] {
        let o = Command::new(BIN)
            .arg("view")
            .arg(root().join("cases/belt_stick_slip.toml"))
            .args(&extra)
            .env_remove("DISPLAY")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{extra:?}: {err}");
    }
}

/// A 3D scene case stepped here, `steps` steps: the state the frame shows.
fn solid_stepped(case: &str, steps: usize) -> SolidCase {
    let scene = stickslip::scene::multibody::solid::SolidScene::load(&root().join(case), &[])
        .expect("a shipped case loads");
    let mut c = SolidCase::new(scene, None).unwrap();
    for _ in 0..steps {
        c.step();
    }
    assert!(c.error.is_none(), "{case}: {:?}", c.error);
    c
}

/// The box of body `k`'s nodes' projections into `rect`, 2 px wider every way, px.
fn projected_box(case: &SolidCase, rect: layout::Rect, k: usize) -> ((f32, f32), (f32, f32)) {
    let cam = case.camera();
    let (mut lo, mut hi) = ((f32::MAX, f32::MAX), (f32::MIN, f32::MIN));
    for p in case.runner.body_positions(k).iter() {
        let (sx, sy) = cam.to_screen(rect, p).unwrap();
        lo = (lo.0.min(sx - 2.0), lo.1.min(sy - 2.0));
        hi = (hi.0.max(sx + 2.0), hi.1.max(sy + 2.0));
    }
    (lo, hi)
}

/// Every body's boundary triangles that face the camera show their shaded fill (the body's
/// fill shaded by the face's normal, the painter's rule) at their projected centroids (a share
/// [`SHARE`] of those neither under a contact dot nor within the projection of a body whose
/// centroid is nearer the camera than they are), and no
/// pixel of the scene view outside the projected box of a body's nodes has any of its faces'
/// colours. Returns the scene view's rectangle.
fn assert_solid_bodies_drawn(png: &Picture, case: &SolidCase, what: &str) -> layout::Rect {
    let rect = layout::layout(png.w as f32, png.h as f32).scene;
    let cam = case.camera();
    let x = case.runner.mesh_positions();
    let surface = &case.own.surface;
    let boxes: Vec<_> = (0..case.scene.bodies.len())
        .map(|k| projected_box(case, rect, k))
        .collect();
    let within = |p: (f32, f32), (lo, hi): ((f32, f32), (f32, f32))| {
        p.0 >= lo.0 && p.0 <= hi.0 && p.1 >= lo.1 && p.1 <= hi.1
    };
    let dots: Vec<(f32, f32)> = case
        .contact_points()
        .iter()
        .filter_map(|(p, _)| cam.to_screen(rect, p))
        .collect();
    // A dot's radius (4 px) and the search (1 px), and a pixel to spare.
    let under_a_dot = |p: (f32, f32)| dots.iter().any(|d| (d.0 - p.0).hypot(d.1 - p.1) < 6.0);
    // How far each body's centroid is from the camera, m: a body nearer may hide another.
    let nearness: Vec<f64> = case
        .runner
        .rows
        .last()
        .unwrap()
        .bodies
        .iter()
        .map(|b| (cam.position - b.centre).norm())
        .collect();
    for (k, body) in case.scene.bodies.iter().enumerate() {
        let mut faces = Vec::new();
        for (t, _) in surface
            .triangles
            .iter()
            .zip(&surface.triangle_body)
            .filter(|(_, b)| **b == k)
        {
            let [a, b, c] = t.map(|i| x[i]);
            let n = (b - a).cross(&(c - a)).normalize();
            let centroid = (a + b + c) / 3.0;
            if n.dot(&(cam.position - centroid)) > 0.0 {
                faces.push((
                    cam.to_screen(rect, &centroid).unwrap(),
                    shade(body_fill(k), &n),
                    (cam.position - centroid).norm(),
                ));
            }
        }
        assert!(!faces.is_empty(), "{what}: {} faces the camera", body.name);
        let clear: Vec<_> = faces
            .iter()
            .filter(|(p, _, depth)| {
                !under_a_dot(*p)
                    && boxes
                        .iter()
                        .enumerate()
                        .all(|(other, b)| other == k || !within(*p, *b) || nearness[other] > *depth)
            })
            .map(|(p, c, _)| (*p, *c))
            .collect();
        assert!(
            clear.len() >= 4,
            "{what}: {} faces of {} in clear view",
            clear.len(),
            body.name
        );
        let hits = clear.iter().filter(|(p, c)| near(png, *p, *c, 1)).count();
        assert!(
            hits as f64 >= SHARE * clear.len() as f64,
            "{what}: body {}: {hits}/{} faces towards the camera in clear view show their shaded fill",
            body.name,
            clear.len()
        );
        let mut colours: Vec<Rgb> = faces.iter().map(|(_, c, _)| *c).collect();
        colours.sort();
        colours.dedup();
        let mut inside = 0usize;
        for py in rect.y as i32..(rect.y + rect.h) as i32 {
            for px in rect.x as i32..(rect.x + rect.w) as i32 {
                if colours.iter().any(|&c| png.is(px, py, c, 2)) {
                    assert!(
                        within((px as f32, py as f32), boxes[k]),
                        "{what}: body {}'s colour at ({px}, {py}), outside its projection {:?}",
                        body.name,
                        boxes[k]
                    );
                    inside += 1;
                }
            }
        }
        assert!(
            inside > 100,
            "{what}: {inside} pixels of body {}",
            body.name
        );
    }
    rect
}

/// The contact pairs within d̂ show as dots in their regime's colour where the camera projects
/// them (a share [`SHARE`]).
fn assert_solid_contacts(png: &Picture, case: &SolidCase, rect: layout::Rect, what: &str) {
    let cam = case.camera();
    let points = case.contact_points();
    assert!(!points.is_empty(), "{what}: the bodies rest on something");
    let hits = points
        .iter()
        .filter(|(p, s)| near(png, cam.to_screen(rect, p).unwrap(), regime_colour(*s), 1))
        .count();
    assert!(
        hits as f64 >= SHARE * points.len() as f64,
        "{what}: {hits}/{} contact dots in their regime's colour",
        points.len()
    );
}

/// `view` on the 3D box on the incline after 100 steps (0.1 s, sliding): the box's faces
/// towards the camera show in their shade where the perspective projection puts them and
/// nowhere else, its sliding contacts as dots; 100 steps later the picture has changed.
#[test]
fn the_3d_box_on_the_incline_is_drawn_where_the_camera_projects_it() {
    if !display_or_skip("3D box screenshot") {
        return;
    }
    let case = "cases/box3d_incline.toml";
    let dir = tempfile::tempdir().unwrap();
    let png = screenshot(&[case], 1, 100, dir.path(), "box3d.png");
    let state = solid_stepped(case, 100);
    let rect = assert_solid_bodies_drawn(&png, &state, "3D box at step 100");
    assert_solid_contacts(&png, &state, rect, "3D box at step 100");
    let n = state.contact_counts();
    assert!(n.slide > 0, "{n:?}: the box slides at 0.1 s");
    let later = screenshot(&[case], 1, 200, dir.path(), "box3d_later.png");
    assert!(png.rgb != later.rgb);
}

/// `view` on the box on the incline as an affine body (cases/box3d_affine_incline.toml, its mesh
/// placed by its four control nodes, not in the state vector) after 100 steps: its faces drawn
/// where the camera projects the placed mesh, and its embedded contact vertices' dots where
/// they are, sliding.
#[test]
fn the_3d_affine_box_is_drawn_from_its_placed_mesh() {
    if !display_or_skip("3D affine box screenshot") {
        return;
    }
    let case = "cases/box3d_affine_incline.toml";
    let dir = tempfile::tempdir().unwrap();
    let png = screenshot(&[case], 1, 100, dir.path(), "affine_box.png");
    let state = solid_stepped(case, 100);
    assert_eq!(state.runner.layout.bodies[0].len(), 4, "the control nodes");
    let rect = assert_solid_bodies_drawn(&png, &state, "affine box at step 100");
    assert_solid_contacts(&png, &state, rect, "affine box at step 100");
    let n = state.contact_counts();
    assert!(n.slide > 0, "{n:?}: the box slides at 0.1 s");
}

/// `view` on the 3D box on a box after 150 steps: both boxes drawn, the upper box's pairs
/// sticking on the lower and the lower's sliding on the incline, each dot in its regime's
/// colour (green and orange both on the picture).
#[test]
fn the_3d_stack_shows_both_boxes_and_sticking_and_sliding_contacts() {
    if !display_or_skip("3D stack screenshot") {
        return;
    }
    let case = "cases/box_on_box3d.toml";
    let dir = tempfile::tempdir().unwrap();
    let png = screenshot(&[case], 1, 150, dir.path(), "stack3d.png");
    let state = solid_stepped(case, 150);
    let rect = assert_solid_bodies_drawn(&png, &state, "3D stack at step 150");
    assert_solid_contacts(&png, &state, rect, "3D stack at step 150");
    let n = state.contact_counts();
    assert!(n.stick > 0 && n.slide > 0, "{n:?}");
    for c in [graphics::NODE_STICKING, graphics::NODE_SLIDING] {
        assert!(png.count(c, CHANNEL_TOL) > 20, "{c:?} on the picture");
    }
}

/// `view` on the 3D pulled block after 100 steps (0.1 s, its spring stretching): the box drawn
/// where the camera projects it, and the spring's anchor, a₀ + v t, as a square in the driver
/// colour where the camera projects that point; the line's midpoint in that colour too.
#[test]
fn the_3d_pulled_block_shows_its_spring_to_the_moving_anchor() {
    if !display_or_skip("3D driver screenshot") {
        return;
    }
    let case = "cases/pulled_block3d.toml";
    let dir = tempfile::tempdir().unwrap();
    let png = screenshot(&[case], 1, 100, dir.path(), "pulled3d.png");
    let state = solid_stepped(case, 100);
    let rect = assert_solid_bodies_drawn(&png, &state, "3D pulled block at step 100");
    let cam = state.camera();
    let marks = state.driver_marks(0.3 * cam.radius);
    assert_eq!(marks.len(), 1);
    let (from, to) = (
        cam.to_screen(rect, &marks[0].from).unwrap(),
        cam.to_screen(rect, &marks[0].to).unwrap(),
    );
    assert!(near(&png, to, graphics::DRIVER, 2), "the anchor at {to:?}");
    let mid = (0.5 * (from.0 + to.0), 0.5 * (from.1 + to.1));
    assert!(
        near(&png, mid, graphics::DRIVER, 2),
        "the spring at {mid:?}"
    );
}

/// `view --forces` on the 3D box sliding down the incline after 200 steps: the barrier's and
/// friction's force on every body node as arrows in their colours, the longest of each kind's
/// tip where the camera projects it (the model's marks: the node plus its force scaled so that
/// the longest is a quarter of the camera's radius). The longest barrier arrow lies along the
/// incline's normal and the longest friction arrow up the fall line (the box slides down it).
/// Without `--forces` neither colour is on the picture.
#[test]
fn the_3d_view_draws_contact_forces_on_request() {
    use stickslip::view::solid::FORCE_ARROW_OF_RADIUS;
    if !display_or_skip("3D forces screenshot") {
        return;
    }
    let case = "cases/box3d_incline.toml";
    let dir = tempfile::tempdir().unwrap();
    let png = screenshot_with(&[case], 1, 200, dir.path(), "forces3d.png", &["--forces"]);
    let state = solid_stepped(case, 200);
    let rect = assert_solid_bodies_drawn(&png, &state, "3D box with forces at step 200");
    let cam = state.camera();
    let (marks, largest) = state.force_marks(FORCE_ARROW_OF_RADIUS * cam.radius);
    assert!(largest > 0.0 && !marks.is_empty());
    let theta = 20f64.to_radians();
    let (normal, uphill) = (
        nalgebra::Vector3::new(theta.sin(), 0.0, theta.cos()),
        nalgebra::Vector3::new(-theta.cos(), 0.0, theta.sin()),
    );
    for friction in [false, true] {
        let longest = marks
            .iter()
            .filter(|m| m.friction == friction)
            .max_by(|a, b| (a.to - a.from).norm().total_cmp(&(b.to - b.from).norm()))
            .expect("both kinds of arrow");
        let along = (longest.to - longest.from).normalize();
        let expected = if friction { uphill } else { normal };
        assert!(along.dot(&expected) > 0.99, "{friction}: {along:?}");
        let tip = cam.to_screen(rect, &longest.to).unwrap();
        let c = if friction {
            graphics::FRICTION_ARROW
        } else {
            graphics::BARRIER_ARROW
        };
        assert!(near(&png, tip, c, 3), "friction {friction}: tip at {tip:?}");
    }
    let plain = screenshot(&[case], 1, 200, dir.path(), "plain3d.png");
    for c in [graphics::BARRIER_ARROW, graphics::FRICTION_ARROW] {
        assert_eq!(plain.count(c, CHANNEL_TOL), 0, "{c:?} without --forces");
    }
}

/// 2D and 3D scene files in one `view`: exit 2 before any window, one line naming the file of
/// the other dimension and the key `dimension`, whichever comes first.
#[test]
fn mixing_2d_and_3d_scenes_in_one_view_exits_2_naming_the_file_and_dimension() {
    let (flat, solid) = ("cases/stacked_blocks.toml", "cases/box3d_incline.toml");
    for (files, odd) in [([flat, solid], solid), ([solid, flat], flat)] {
        let o = Command::new(BIN)
            .arg("view")
            .args(files.iter().map(|c| root().join(c)))
            .args(["--frames", "1"])
            .env_remove("DISPLAY")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{files:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{files:?}: {err}");
        assert!(
            err.contains(odd) && err.contains("key `dimension`"),
            "{err}"
        );
        assert!(err.contains("2D and 3D scenes are viewed apart"), "{err}");
    }
    // A file of another kind among 3D scenes is refused for its `kind`, as among 2D ones.
    for first in [solid, flat] {
        let o = Command::new(BIN)
            .arg("view")
            .args([first, "cases/slope_mu0.10.toml"].map(|c| root().join(c)))
            .args(["--frames", "1"])
            .env_remove("DISPLAY")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(
            err.contains("slope_mu0.10.toml") && err.contains("key `kind`"),
            "{err}"
        );
    }
    // A 3D scene alone is no longer refused: without a display it gets as far as the window.
    let o = Command::new(BIN)
        .arg("view")
        .arg(root().join(solid))
        .args(["--frames", "1"])
        .env_remove("DISPLAY")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("no display"), "{err}");
}

/// The 3D box on the incline run to its end (1 s) in the viewer's case: every lamp green, the
/// incline's (its acceleration within 1 % of SPEC.md §6's) and the slide-or-tip's among them,
/// judged at the end and not before.
#[test]
fn the_3d_box_lamps_judge_the_incline_green_at_the_end() {
    let mut c = solid_stepped("cases/box3d_incline.toml", 0);
    use stickslip::view::solid::{SOLID_LAMPS, SolidCheck};
    assert_eq!(c.own.checks, [SolidCheck::SlideOrTip, SolidCheck::Incline]);
    for _ in 0..10 {
        c.step();
    }
    assert!(
        c.lamps.lamps[SOLID_LAMPS.len()..]
            .iter()
            .all(|l| l.state == LampState::Pending)
    );
    while c.can_step() {
        c.step();
    }
    assert!(
        c.lamps.lamps.iter().all(|l| l.state == LampState::Green),
        "{:?}",
        c.lamps.lamps
    );
}

/// The box of `cases/box3d_incline.toml` on a triangle mesh of its incline's plane (the ramp
/// of tests/scene/solid_contact.rs) instead of the half-space: after 100 steps the box is drawn as on
/// the half-space, and the ramp's triangles show the mesh's fill shaded by their normal beside
/// the box (where the projection puts points of the ramp's plane up and down the fall line
/// from it); no
/// half-space patch is drawn.
#[test]
fn a_triangle_mesh_obstacle_is_drawn_as_its_triangles() {
    if !display_or_skip("3D triangle-mesh screenshot") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(root().join("cases/box3d_incline.toml")).unwrap();
    let (a, b) = (
        text.find("[obstacles.incline]").unwrap(),
        text.find("[friction]").unwrap(),
    );
    // The plane n·x = 0, n = (sin θ, 0, cos θ), θ = 20°, as two triangles.
    let ramp = "[obstacles.incline]\ntype = \"triangle_mesh\"\nvertices = [[-0.9396926, -1.0, 0.3420201], [2.8190779, -1.0, -1.0260604], [2.8190779, 1.0, -1.0260604], [-0.9396926, 1.0, 0.3420201]]\ntriangles = [[0, 1, 2], [0, 2, 3]]\n\n";
    let case = dir.path().join("ramp.toml");
    std::fs::write(&case, format!("{}{ramp}{}", &text[..a], &text[b..])).unwrap();
    let png = screenshot(&[case.to_str().unwrap()], 1, 100, dir.path(), "ramp.png");
    let state = {
        let scene = stickslip::scene::multibody::solid::SolidScene::load(&case, &[]).unwrap();
        let mut c = SolidCase::new(scene, None).unwrap();
        for _ in 0..100 {
            c.step();
        }
        assert!(c.error.is_none(), "{:?}", c.error);
        c
    };
    assert!(
        state.scene.obstacles.half_spaces.is_empty() && state.scene.obstacles.meshes.len() == 1
    );
    let rect = assert_solid_bodies_drawn(&png, &state, "3D box on a ramp at step 100");
    let theta = 20f64.to_radians();
    let n = stickslip::energy::Vec3::new(theta.sin(), 0.0, theta.cos());
    let ramp_colour = shade(MESH_FILL, &n);
    let cam = state.camera();
    // Points of the ramp's plane beside the box: its centroid's foot, ±1.5 framed radii along
    // the fall line (the box's half-length is under one radius).
    let centre = state.runner.rows.last().unwrap().bodies[0].centre;
    let foot = centre - n * n.dot(&centre);
    let fall = stickslip::energy::Vec3::new(theta.cos(), 0.0, -theta.sin());
    for side in [-1.5, 1.5] {
        let p = foot + fall * (side * cam.radius);
        let at = cam.to_screen(rect, &p).unwrap();
        assert!(rect.contains(at.0, at.1), "{at:?}");
        assert!(near(&png, at, ramp_colour, 2), "the ramp's shade at {at:?}");
    }
    let flat_ground = shade(graphics::GROUND, &n);
    assert_eq!(png.count(flat_ground, 2), 0, "a half-space patch drawn");
}

/// A box too soft for its weight (tests/data/unphysical/soft_box3d.toml) turns inside out and
/// its interior nodes fall through the incline while every step converges: the viewer's
/// penetration lamp and its inversion lamp turn red, the convergence lamp stays green. The
/// penetration lamp read the barrier pairs' distance and stayed green (issue 41).
#[test]
fn the_lamps_turn_red_for_a_body_that_inverts_and_penetrates() {
    let scene = stickslip::scene::multibody::solid::SolidScene::load(
        &root().join("tests/data/unphysical/soft_box3d.toml"),
        &[],
    )
    .unwrap();
    let mut c = SolidCase::new(scene, None).unwrap();
    while c.can_step() {
        c.step();
    }
    assert!(c.error.is_none(), "{:?}", c.error);
    let l = &c.lamps.lamps;
    assert!(l[0].is_red(), "penetration: {:?}", l[0]);
    assert_eq!(l[1].state, LampState::Green, "{:?}", l[1]);
    assert!(l[2].is_red(), "inversion: {:?}", l[2]);
    match &l[0].state {
        LampState::Red { detail, .. } => assert!(detail.contains("min distance -"), "{detail}"),
        s => panic!("{s:?}"),
    }
}
