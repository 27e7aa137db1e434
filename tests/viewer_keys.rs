//! `stickslip view` in its live mode, driven by real X key events from `xdotool`: S writes a
//! screenshot named after the shown case and step, space pauses, → takes exactly one step, 2
//! switches the case, R resets every case to step 0, F toggles the force arrows, − and + change
//! the speed, Q and Esc quit with status 0 (and, in headless `--frames` mode, with the "closed
//! early" error and no screenshot).
//!
//! The viewer prints `stickslip view: screenshot written to NAME` on stderr for every S; the test
//! waits on that line (so a screenshot that overwrites one of the same name is still seen) and
//! reads the case and the step from NAME.
//!
//! Needs an X11 display and the `xdotool` binary (Debian package `xdotool`): CI runs
//! `xvfb-run -a cargo test`. A missing display or xdotool fails the tests, unless
//! `STICKSLIP_ALLOW_SKIP=1` asks to skip them knowingly (then they print a notice and return). The keys go to the
//! viewer's window only (`xdotool key --window ID`, a window that appeared after the viewer was
//! started and is named exactly `stickslip`), never to whatever has the focus.

use std::collections::HashSet;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::Mutex;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use stickslip::graphics;
use stickslip::view::layout;

#[path = "support/picture.rs"]
mod picture;
use picture::Picture;

const BIN: &str = env!("CARGO_BIN_EXE_stickslip");
/// Longest wait for anything the viewer does (window, screenshot, exit): generous for a loaded
/// 2-core machine with software OpenGL.
const WAIT: Duration = Duration::from_secs(30);
/// Poll interval.
const POLL: Duration = Duration::from_millis(100);
/// The window's exact title (`draw::window_conf`), as an anchored regex for `xdotool search`.
const TITLE_RE: &str = "^stickslip$";
const SCREENSHOT_LINE: &str = "stickslip view: screenshot written to ";
/// A pixel has a colour when every channel is within this of it (flat fills, no multisampling).
const CHANNEL_TOL: i32 = 6;

/// One viewer window at a time: the window is found by its title.
static ONE_WINDOW: Mutex<()> = Mutex::new(());

/// Whether the key tests can run; panics when they are required and cannot.
fn can_run(test: &str) -> bool {
    let display = std::env::var_os("DISPLAY").is_some_and(|d| !d.is_empty());
    // Whether the binary runs at all: `xdotool version` itself needs the display.
    let xdotool = Command::new("xdotool")
        .arg("version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok();
    let missing = match (display, xdotool) {
        (true, true) => return true,
        (false, true) => "no DISPLAY",
        (true, false) => "no xdotool binary (Debian package `xdotool`)",
        (false, false) => "no DISPLAY and no xdotool binary (Debian package `xdotool`)",
    };
    if std::env::var("STICKSLIP_ALLOW_SKIP").as_deref() != Ok("1") {
        panic!(
            "{test}: {missing}: install xdotool and run under `xvfb-run -a`, or set STICKSLIP_ALLOW_SKIP=1 to skip knowingly"
        );
    }
    // Straight to stderr, past the test harness's capture, so that the skip is seen.
    let notice = format!(
        "\n********************************************************************\n\
         * {test}: SKIPPED, {missing}.\n\
         * Run `xvfb-run -a cargo test --test viewer_keys` with xdotool installed\n\
         * (skipped because STICKSLIP_ALLOW_SKIP=1; without it this fails).\n\
         ********************************************************************\n"
    );
    let _ = std::io::Write::write_all(&mut std::io::stderr(), notice.as_bytes());
    false
}

/// The windows now named [`TITLE_RE`].
fn windows() -> HashSet<String> {
    let o = Command::new("xdotool")
        .args(["search", "--name", TITLE_RE])
        .stderr(Stdio::null())
        .output()
        .expect("xdotool runs");
    // Exit 1 with no output when nothing matches.
    String::from_utf8_lossy(&o.stdout)
        .split_whitespace()
        .map(str::to_owned)
        .collect()
}

/// What a screenshot's name says.
#[derive(Debug, Clone, PartialEq)]
struct Shot {
    /// The case file's stem, e.g. `slope_mu0.10`.
    case: String,
    step: u64,
    path: PathBuf,
    /// When its line arrived.
    at: Instant,
}

/// A running viewer; killed (and reaped) when dropped, so that a failed assertion leaves no
/// window behind.
struct Viewer {
    child: Option<Child>,
    window: String,
    dir: PathBuf,
    /// stderr, line by line.
    lines: Receiver<String>,
    /// Everything read from stderr so far, for failure messages.
    seen: Vec<String>,
}

impl Drop for Viewer {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Viewer {
    /// Starts `stickslip view ARGS` in `dir` and waits for its window. A viewer that could not
    /// connect to the X server at all is started again, for up to [`WAIT`] (see [`XKeeper`]).
    fn start(args: &[&str], dir: &Path) -> Viewer {
        let start = Instant::now();
        loop {
            match Viewer::try_start(args, dir) {
                Ok(v) => return v,
                Err(seen) if start.elapsed() < WAIT => {
                    let _ = std::io::Write::write_all(
                        &mut std::io::stderr(),
                        format!("viewer_keys: no X connection, starting again: {seen:?}\n")
                            .as_bytes(),
                    );
                    std::thread::sleep(Duration::from_millis(500));
                }
                Err(seen) => panic!("the viewer could not connect to the X server: {seen:?}"),
            }
        }
    }

    /// [`Viewer::start`]'s one try: `Err(stderr)` when the viewer exited for want of an X
    /// connection (`XOpenDisplay() failed`).
    fn try_start(args: &[&str], dir: &Path) -> Result<Viewer, Vec<String>> {
        let before = windows();
        let mut child = Command::new(BIN)
            .arg("view")
            .args(args)
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the binary starts");
        let stderr = child.stderr.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut v = Viewer {
            child: Some(child),
            window: String::new(),
            dir: dir.to_path_buf(),
            lines,
            seen: Vec::new(),
        };
        let start = Instant::now();
        loop {
            let new: Vec<_> = windows().difference(&before).cloned().collect();
            match new.as_slice() {
                [w] => {
                    v.window = w.clone();
                    break;
                }
                [] => {}
                many => panic!("several new windows named {TITLE_RE}: {many:?}"),
            }
            if let Some(status) = v.child.as_mut().unwrap().try_wait().unwrap() {
                v.child = None;
                v.drain();
                if v.seen.iter().any(|l| l.contains("XOpenDisplay")) {
                    return Err(std::mem::take(&mut v.seen));
                }
                panic!(
                    "the viewer exited ({status}) before its window appeared; stderr: {:?}",
                    v.seen
                );
            }
            assert!(
                start.elapsed() < WAIT,
                "no window named {TITLE_RE} within {WAIT:?}"
            );
            std::thread::sleep(POLL);
        }
        Ok(v)
    }

    /// Reads the rest of stderr, once the viewer has exited (until the reader thread ends).
    fn drain(&mut self) {
        while let Ok(line) = self.lines.recv_timeout(WAIT) {
            self.seen.push(line);
        }
    }

    /// Sends `keys` (xdotool key names) to the window, press and release each.
    fn key(&self, keys: &[&str]) {
        self.xdotool("key", keys);
    }

    fn xdotool(&self, cmd: &str, keys: &[&str]) {
        let o = Command::new("xdotool")
            .args([cmd, "--window", &self.window])
            .args(keys)
            .output()
            .expect("xdotool runs");
        assert!(
            o.status.success(),
            "xdotool {cmd} {keys:?}: {}; {}",
            o.status,
            String::from_utf8_lossy(&o.stderr)
        );
    }

    /// The next screenshot line within `wait`, if any.
    fn next_shot(&mut self, wait: Duration) -> Option<Shot> {
        let deadline = Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = match self.lines.recv_timeout(left) {
                Ok(line) => line,
                Err(RecvTimeoutError::Timeout) => return None,
                Err(RecvTimeoutError::Disconnected) => {
                    panic!(
                        "the viewer closed its stderr (exited?) while a screenshot was awaited; stderr: {:?}",
                        self.seen
                    )
                }
            };
            self.seen.push(line.clone());
            let Some(name) = line.strip_prefix(SCREENSHOT_LINE) else {
                assert!(
                    !line.starts_with("stickslip view: "),
                    "the viewer reports: {line}"
                );
                continue;
            };
            let at = Instant::now();
            let stem = name
                .strip_prefix("stickslip-")
                .and_then(|s| s.strip_suffix(".png"))
                .unwrap_or_else(|| panic!("screenshot name {name:?}"));
            let (case, step) = stem
                .rsplit_once("-step")
                .unwrap_or_else(|| panic!("screenshot name {name:?}"));
            assert_eq!(step.len(), 5, "{name}: stepNNNNN");
            return Some(Shot {
                case: case.to_owned(),
                step: step.parse().unwrap_or_else(|e| panic!("{name}: {e}")),
                path: self.dir.join(name),
                at,
            });
        }
    }

    /// Presses S and returns the screenshot it wrote, after checking the file.
    fn screenshot(&mut self) -> Shot {
        self.key(&["s"]);
        let shot = self
            .next_shot(WAIT)
            .unwrap_or_else(|| panic!("S: no screenshot within {WAIT:?}; stderr: {:?}", self.seen));
        self.check_png(&shot);
        shot
    }

    /// The first screenshot: S again every 2 s until the viewer answers (a key sent before the
    /// window listens is lost).
    fn first_screenshot(&mut self) -> Shot {
        let start = Instant::now();
        loop {
            self.key(&["s"]);
            if let Some(shot) = self.next_shot(Duration::from_secs(2)) {
                self.check_png(&shot);
                return shot;
            }
            assert!(
                start.elapsed() < WAIT,
                "S: no screenshot within {WAIT:?}; stderr: {:?}",
                self.seen
            );
        }
    }

    /// The PNG decodes and has the window's size (the configured one, and the one X reports).
    fn check_png(&self, shot: &Shot) {
        let png = Picture::read(&shot.path);
        assert_eq!(
            (png.w, png.h),
            (
                layout::WINDOW_WIDTH as usize,
                layout::WINDOW_HEIGHT as usize
            ),
            "{}: the window's configured size",
            shot.path.display()
        );
        assert_eq!(
            (png.w, png.h),
            self.window_size(),
            "{}: the size X reports for the window",
            shot.path.display()
        );
    }

    fn window_size(&self) -> (usize, usize) {
        let o = Command::new("xdotool")
            .args(["getwindowgeometry", "--shell", &self.window])
            .output()
            .expect("xdotool runs");
        assert!(o.status.success(), "getwindowgeometry: {o:?}");
        let text = String::from_utf8_lossy(&o.stdout);
        let get = |key: &str| -> usize {
            text.lines()
                .find_map(|l| l.strip_prefix(key))
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or_else(|| panic!("no {key} in {text:?}"))
        };
        (get("WIDTH="), get("HEIGHT="))
    }

    /// Presses `key` (key down only: the window is gone before a release could reach it) and
    /// waits for the viewer to exit.
    fn quit_with(&mut self, key: &str) -> ExitStatus {
        self.xdotool("keydown", &[key]);
        let child = self.child.as_mut().unwrap();
        let start = Instant::now();
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                self.child = None;
                self.drain();
                return status;
            }
            assert!(
                start.elapsed() < WAIT,
                "{key}: the viewer still runs after {WAIT:?}"
            );
            std::thread::sleep(POLL);
        }
    }
}

/// An X client held open for a test's length (`xdotool getdisplaygeometry sleep`), so that the
/// X server never loses its last client between two viewers. Xvfb (as `xvfb-run` starts it,
/// without `-noreset`) resets then, and a viewer connecting meanwhile fails with
/// `XOpenDisplay() failed`: seen on a loaded machine, up to three times in a row.
struct XKeeper(Child);

impl XKeeper {
    fn start() -> XKeeper {
        let start = Instant::now();
        loop {
            let mut child = Command::new("xdotool")
                .args(["getdisplaygeometry", "sleep", "3600"])
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .expect("xdotool runs");
            // The geometry line says it is connected; EOF without it, that it failed.
            let mut line = String::new();
            let _ = BufReader::new(child.stdout.take().unwrap()).read_line(&mut line);
            if !line.trim().is_empty() {
                return XKeeper(child);
            }
            let _ = child.kill();
            let _ = child.wait();
            assert!(
                start.elapsed() < WAIT,
                "no connection to the X server within {WAIT:?}"
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

impl Drop for XKeeper {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn lock() -> std::sync::MutexGuard<'static, ()> {
    ONE_WINDOW.lock().unwrap_or_else(|e| e.into_inner())
}

/// Nothing half-written is left in `dir`.
fn assert_no_partial(dir: &Path) {
    let names: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.contains("partial")), "{names:?}");
}

#[test]
fn the_live_viewer_answers_its_keys() {
    if !can_run("live viewer keys") {
        return;
    }
    let _one = lock();
    let _x = XKeeper::start();
    let dir = tempfile::tempdir().unwrap();
    // A long duration, so that no case stops by itself and a still step number means a pause.
    let mut v = Viewer::start(&["--gpu", "off", "--duration", "600"], dir.path());

    // S: a screenshot of the first case, in the working directory.
    let first = v.first_screenshot();
    assert_eq!(first.case, "slope_mu0.10", "{first:?}");
    assert_eq!(first.path.parent(), Some(dir.path()));

    // Running: the step number advances (so that a still one below means the pause).
    let mut running = v.screenshot();
    while running.step == first.step {
        assert!(
            running.at.duration_since(first.at) < WAIT,
            "the step stays at {} while running",
            first.step
        );
        std::thread::sleep(POLL);
        running = v.screenshot();
    }
    assert!(running.step > first.step, "{first:?} then {running:?}");
    // How long the running viewer took to move on: a pause is judged over more than that.
    let advance = running.at.duration_since(first.at);
    let hold = (2 * advance).clamp(Duration::from_millis(500), Duration::from_secs(5));

    // Space pauses: two screenshots `hold` apart show the same step.
    v.key(&["space"]);
    let p1 = v.screenshot();
    std::thread::sleep(hold);
    let p2 = v.screenshot();
    assert_eq!(
        p2.step, p1.step,
        "paused: the step moved in {hold:?} ({p1:?} then {p2:?})"
    );
    assert!(p1.step >= running.step);

    // → takes exactly one step, and stays paused.
    v.key(&["Right"]);
    let s1 = v.screenshot();
    assert_eq!(s1.step, p1.step + 1, "→: one step ({p1:?} then {s1:?})");
    // (A screenshot between the two: two presses within one frame count once.)
    v.key(&["Right"]);
    let s2 = v.screenshot();
    assert_eq!(s2.step, s1.step + 1, "→ again ({s1:?} then {s2:?})");
    v.key(&["Right"]);
    let s3 = v.screenshot();
    assert_eq!(s3.step, s2.step + 1, "→ a third time ({s2:?} then {s3:?})");
    std::thread::sleep(hold);
    let s3b = v.screenshot();
    assert_eq!(s3b.step, s3.step, "still paused after →");

    // 2 shows the second case, at the same step (the cases run in lock-step).
    v.key(&["2"]);
    let c2 = v.screenshot();
    assert_eq!(c2.case, "slope_mu0.11", "{c2:?}");
    assert_eq!(c2.step, s3.step, "{c2:?}");

    // F toggles the force arrows (their legend line, and the arrows at contacts). Paused, the
    // three screenshots share one name, each overwriting the last: count at once.
    let arrows = |s: &Shot| Picture::read(&s.path).count(graphics::BARRIER_ARROW, CHANNEL_TOL);
    assert_eq!(arrows(&c2), 0, "force arrows are off at the start");
    v.key(&["f"]);
    let f_on = v.screenshot();
    assert!(
        arrows(&f_on) >= 40,
        "F: {} barrier-arrow pixels",
        arrows(&f_on)
    );
    v.key(&["f"]);
    let f_off = v.screenshot();
    assert_eq!(arrows(&f_off), 0, "F again: arrows off");

    // R resets every case to step 0, keeping the selection (and the pause).
    v.key(&["r"]);
    let r2 = v.screenshot();
    assert_eq!((r2.case.as_str(), r2.step), ("slope_mu0.11", 0), "{r2:?}");
    v.key(&["1"]);
    let r1 = v.screenshot();
    assert_eq!((r1.case.as_str(), r1.step), ("slope_mu0.10", 0), "{r1:?}");
    v.key(&["3"]);
    let r3 = v.screenshot();
    assert_eq!((r3.case.as_str(), r3.step), ("slope_mu0.20", 0), "{r3:?}");

    // − four times: speed 1 → 0.05 (five steps per second at most); space resumes.
    v.key(&["minus", "minus", "minus", "minus"]);
    v.key(&["space"]);
    let a = v.screenshot();
    std::thread::sleep(Duration::from_secs(1));
    let b = v.screenshot();
    let wall = b.at.duration_since(a.at).as_secs_f64();
    // h = 0.01 s: 0.05 simulated s per wall s is 5 steps; a second of slack for when the
    // frames ran against when their lines arrived, and one for rounding.
    let most = (5.0 * (wall + 1.0)).ceil() as u64 + 1;
    assert!(
        b.step >= a.step && b.step - a.step <= most,
        "at ×0.05: {} steps in {wall:.2} s ({a:?} then {b:?})",
        b.step - a.step
    );
    // + nine times: 0.05 → 16. A frame advances min(frame time, 0.1 s) × 16 simulated s, so a
    // second holds at least 1.6 s = 160 steps, however slow the frames.
    v.key(&["plus"; 9]);
    let c = v.screenshot();
    std::thread::sleep(Duration::from_secs(1));
    let d = v.screenshot();
    assert!(
        d.step >= c.step + 100,
        "at ×16: {} steps in {:.2} s ({c:?} then {d:?})",
        d.step - c.step,
        d.at.duration_since(c.at).as_secs_f64()
    );

    // Q quits, with status 0.
    let status = v.quit_with("q");
    assert!(status.success(), "Q: {status}");
    assert_no_partial(dir.path());
}

#[test]
fn escape_quits_the_live_viewer_and_cuts_headless_frames_short() {
    if !can_run("viewer Esc") {
        return;
    }
    let _one = lock();
    let _x = XKeeper::start();
    let dir = tempfile::tempdir().unwrap();
    let mut v = Viewer::start(&["--gpu", "off"], dir.path());
    v.first_screenshot();
    let status = v.quit_with("Escape");
    assert!(status.success(), "Esc: {status}");

    // Headless frames quit early: the "closed" error (exit 1) and no screenshot, as for a closed
    // window, not a success without the file asked for.
    let out = dir.path().join("frames.png");
    let out_arg = out.to_str().unwrap();
    let mut v = Viewer::start(
        &[
            "--gpu",
            "off",
            "--frames",
            "1000000",
            "--screenshot",
            out_arg,
        ],
        dir.path(),
    );
    // S works in this mode too: once it answers, the window takes keys.
    let shot = v.first_screenshot();
    assert!(shot.step > 0, "{shot:?}");
    let status = v.quit_with("q");
    assert_eq!(status.code(), Some(1), "Q during --frames: {status}");
    assert!(
        v.seen.iter().any(|l| l.contains("closed after")),
        "{:?}",
        v.seen
    );
    assert!(!out.exists(), "no screenshot from frames cut short");
    assert_no_partial(dir.path());
}

/// Scene cases (`kind = "scene"`) answer the same keys through the same window loop: S names
/// the shot after the case file and step, space pauses, → takes one step, 2 shows the second
/// case at the same step, F draws the contact-force arrows, R goes back to step 0, Q exits 0.
#[test]
fn the_live_viewer_answers_its_keys_on_scene_cases() {
    if !can_run("live viewer keys on scenes") {
        return;
    }
    let _one = lock();
    let _x = XKeeper::start();
    let dir = tempfile::tempdir().unwrap();
    let case = |name: &str| {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("cases")
            .join(name)
            .to_string_lossy()
            .into_owned()
    };
    let (belt, stack) = (case("belt_stick_slip.toml"), case("stacked_blocks.toml"));
    let mut v = Viewer::start(&[&belt, &stack], dir.path());
    let first = v.first_screenshot();
    assert_eq!(first.case, "belt_stick_slip", "{first:?}");

    v.key(&["space"]);
    let p1 = v.screenshot();
    v.key(&["Right"]);
    let s1 = v.screenshot();
    assert_eq!(s1.step, p1.step + 1, "→: one step ({p1:?} then {s1:?})");

    v.key(&["2"]);
    let c2 = v.screenshot();
    assert_eq!(
        (c2.case.as_str(), c2.step),
        ("stacked_blocks", s1.step),
        "{c2:?}"
    );

    let arrows = |s: &Shot| Picture::read(&s.path).count(graphics::BARRIER_ARROW, CHANNEL_TOL);
    assert_eq!(arrows(&c2), 0, "force arrows are off at the start");
    v.key(&["f"]);
    let f_on = v.screenshot();
    assert!(
        arrows(&f_on) >= 40,
        "F: {} barrier-arrow pixels",
        arrows(&f_on)
    );

    v.key(&["r"]);
    let r = v.screenshot();
    assert_eq!((r.case.as_str(), r.step), ("stacked_blocks", 0), "{r:?}");

    let status = v.quit_with("q");
    assert!(status.success(), "Q: {status}");
    assert_no_partial(dir.path());
}

/// The pixels of the scene panel of `shot` (the window's layout), row by row.
fn scene_panel(shot: &Shot) -> (Vec<u8>, usize) {
    let p = Picture::read(&shot.path);
    let r = layout::layout(p.w as f32, p.h as f32).scene;
    let (x0, y0, w, h) = (r.x as usize, r.y as usize, r.w as usize, r.h as usize);
    let mut px = Vec::with_capacity(3 * w * h);
    for y in y0..y0 + h {
        px.extend_from_slice(&p.rgb[3 * (y * p.w + x0)..3 * (y * p.w + x0 + w)]);
    }
    (px, w * h)
}

/// Pixels of `panel` within `tol` of `c`.
fn count_in(panel: &[u8], c: [u8; 3], tol: i32) -> usize {
    panel
        .chunks_exact(3)
        .filter(|p| (0..3).all(|k| (p[k] as i32 - c[k] as i32).abs() <= tol))
        .count()
}

#[test]
fn the_3d_view_turns_its_camera_on_the_orbit_keys_and_c_puts_it_back() {
    if !can_run("3D camera keys") {
        return;
    }
    let _one = lock();
    let _x = XKeeper::start();
    let dir = tempfile::tempdir().unwrap();
    let case = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("cases/box3d_incline.toml")
        .to_string_lossy()
        .into_owned();
    let mut v = Viewer::start(&[&case], dir.path());
    v.first_screenshot();
    // Paused, every shot is of one step: only the camera keys change the scene panel. (A shot
    // of the same step overwrites the last one's file, so each is read before the next.)
    v.key(&["space"]);
    let home_shot = v.screenshot();
    let (home, n) = scene_panel(&home_shot);
    let sky = |panel: &[u8]| count_in(panel, graphics::SKY, 2);
    // From the default view, 28° above the horizontal, the sky shows above the incline's patch.
    assert!(sky(&home) > n / 20, "sky {} of {n}", sky(&home));

    // D six times: a quarter turn about up. The bodies and patch are seen from another side.
    v.key(&["d", "d", "d", "d", "d", "d"]);
    let turned_shot = v.screenshot();
    assert_eq!(turned_shot.step, home_shot.step, "paused");
    let (turned, _) = scene_panel(&turned_shot);
    let differ = home
        .chunks_exact(3)
        .zip(turned.chunks_exact(3))
        .filter(|(a, b)| a != b)
        .count();
    assert!(differ > n / 20, "D: {differ} of {n} pixels changed");

    // C: the default view again, pixel for pixel.
    v.key(&["c"]);
    let (back, _) = scene_panel(&v.screenshot());
    assert!(
        back == home,
        "C: the scene panel differs from the default view's"
    );

    // W six times (the sixth at the 55° limit): looking down from 82.7° above the horizontal,
    // onto the 20° incline. Its patch
    // (six framed radii each way round the target; the view's half-height there is 1.6 radii)
    // fills the panel: no sky.
    v.key(&["w", "w", "w", "w", "w", "w"]);
    let (above, _) = scene_panel(&v.screenshot());
    assert!(sky(&above) < n / 1000, "W: sky {} of {n}", sky(&above));

    let status = v.quit_with("q");
    assert!(status.success(), "Q: {status}");
    assert_no_partial(dir.path());
}
