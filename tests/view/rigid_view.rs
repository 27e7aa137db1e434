//! `stickslip view cases/football.toml`: the 3D view of a rigid case renders headless frames and
//! writes a screenshot showing the ball and its trail.
//!
//! Needs an X11 display, like `tests/view/viewer.rs`: CI runs it under `xvfb-run -a` with
//! `STICKSLIP_REQUIRE_DISPLAY=1`, which turns a missing display into a failure; without it the
//! test prints a notice and returns.

use std::path::Path;
use std::process::Command;

use crate::picture;
use picture::Picture;

/// The ball at the view's camera distance (≈ 1.9 m) covers ~6 000 px of a 1200 × 800 frame
/// (measured); a seventh of that shows it is drawn (and not clipped away or hidden behind the ground).
const BALL_PX_MIN: usize = 900;
/// The trail is a 1-px line of a few hundred px on screen.
const TRAIL_PX_MIN: usize = 50;

fn display_or_skip() -> bool {
    if std::env::var_os("DISPLAY").is_some_and(|d| !d.is_empty()) {
        return true;
    }
    if std::env::var("STICKSLIP_REQUIRE_DISPLAY").as_deref() == Ok("1") {
        panic!("no DISPLAY, and STICKSLIP_REQUIRE_DISPLAY=1 (run under `xvfb-run -a`)");
    }
    let _ = std::io::Write::write_all(
        &mut std::io::stderr(),
        b"\n*** rigid_view: SKIPPED, no DISPLAY. Run `xvfb-run -a cargo test --test view rigid_view::` ***\n",
    );
    false
}

#[test]
fn football_view_draws_the_ball_and_its_trail() {
    if !display_or_skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("football.png");
    let case = Path::new(env!("CARGO_MANIFEST_DIR")).join("cases/football.toml");
    let out = Command::new(env!("CARGO_BIN_EXE_stickslip"))
        .args([
            "view",
            case.to_str().unwrap(),
            "--frames",
            "100",
            "--screenshot",
        ])
        .arg(&png)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let pic = Picture::read(&png);
    // Brown, shaded: red clearly above blue, green in between, not background-light.
    let ball = pic
        .rgb
        .chunks_exact(3)
        .filter(|p| {
            let (r, g, b) = (i32::from(p[0]), i32::from(p[1]), i32::from(p[2]));
            r > b + 40 && r > g && g > b && r < 200
        })
        .count();
    let trail = pic.count([51, 89, 204], 40);
    println!("ball {ball} px, trail {trail} px");
    assert!(ball >= BALL_PX_MIN, "ball {ball} px");
    assert!(trail >= TRAIL_PX_MIN, "trail {trail} px");
}
