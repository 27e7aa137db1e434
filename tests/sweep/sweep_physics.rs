//! The stick-slip map's physics on the shipped sweep (sweeps/stick_slip.toml, 12 × 12 cells of
//! tan θ ∈ [0.05, 0.4] and μ ∈ [0.02, 0.5]), by the verdict rule of `summary.json`:
//! * every cell with μ ≥ tan θ + 0.02 that does not tumble is *stopped*: static friction
//!   outweighs the downhill pull (SPEC.md §2, §6: the body decelerates at g(μ cos θ − sin θ));
//! * every cell with μ ≤ tan θ − 0.02 keeps moving downhill faster than the sliding threshold
//!   (0.1 m/s over the last 1 s window): verdict *sliding*, or *tumbling* with that mean speed
//!   (a square that rolls over its corners while going downhill; the rule names tumbling first);
//! * the duration is long enough for the slowest stopping cell: every stopped cell's stop time
//!   (the end of the first 1 s window from which it stays within 5 mm) leaves at least one more
//!   full window before the end of the run.
//!
//! The margin 0.02 on μ − tan θ is the band around the critical line where the smoothed
//! friction's creep and the landing's bounce decide slowly; outside it the verdict must be the
//! analytic one. The sweep runs the real binary, sharded in two processes, and the test reads
//! the merged map.csv.

use std::path::Path;
use std::process::Command;

/// μ − tan θ beyond which the verdict must follow Coulomb's rule (the band).
const MARGIN: f64 = 0.02;
/// The verdict's trailing window, s (src/app/verdict.rs, SPEC.md §2).
const WINDOW_S: f64 = 1.0;
/// The sliding threshold on the mean downhill speed over the window, m/s (SPEC.md §2).
const SLIDING_SPEED: f64 = 0.1;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_stickslip"))
}

#[test]
fn the_shipped_map_stops_above_and_slides_below_mu_equals_tan_theta() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let sweep = root.join("sweeps/stick_slip.toml");
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("map");
    for shard in ["0/2", "1/2"] {
        let o = bin()
            .arg("sweep")
            .arg(&sweep)
            .arg("--out")
            .arg(&out)
            .args(["--shard", shard, "--jobs", "2"])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let o = bin().args(["sweep", "collect"]).arg(&out).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stdout));

    let text = std::fs::read_to_string(root.join("sweeps/stick_slip.toml")).unwrap();
    let duration: f64 = text
        .split("time.duration=")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .and_then(|s| s.parse().ok())
        .expect("the shipped sweep sets time.duration");

    let csv = std::fs::read_to_string(out.join("map.csv")).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (c_tan, c_mu, c_verdict, c_stop, c_speed) = (
        col("slope.tan_theta"),
        col("friction.mu"),
        col("verdict"),
        col("stop_time_s"),
        col("final_speed_m_per_s"),
    );
    let mut cells = 0;
    let (mut checked_stopped, mut checked_sliding, mut tumbling_above) = (0, 0, 0);
    let mut slowest: Option<(f64, String)> = None;
    for line in lines {
        let f: Vec<&str> = line.split(',').collect();
        cells += 1;
        assert_eq!(f[col("status")], "done", "{line}");
        let tan: f64 = f[c_tan].parse().unwrap();
        let mu: f64 = f[c_mu].parse().unwrap();
        let verdict = f[c_verdict];
        if verdict == "stopped" {
            let stop: f64 = f[c_stop].parse().unwrap();
            if slowest.as_ref().is_none_or(|(t, _)| stop > *t) {
                slowest = Some((stop, f[0].to_string()));
            }
        }
        if mu >= tan + MARGIN {
            if verdict == "tumbling" {
                tumbling_above += 1;
            } else {
                assert_eq!(verdict, "stopped", "tan θ {tan}, μ {mu}: {line}");
                checked_stopped += 1;
            }
        }
        if mu <= tan - MARGIN {
            let speed: f64 = f[c_speed].parse().unwrap();
            assert!(
                verdict == "sliding" || (verdict == "tumbling" && speed > SLIDING_SPEED),
                "tan θ {tan}, μ {mu}: {line}"
            );
            checked_sliding += 1;
        }
    }
    assert!(cells >= 144, "at least 12 x 12 cells, got {cells}");
    // The rule must have been exercised on both sides, not vacuously.
    assert!(
        checked_stopped >= 30 && checked_sliding >= 30,
        "{checked_stopped} {checked_sliding}"
    );
    eprintln!(
        "{checked_stopped} cells stopped and {checked_sliding} slid as Coulomb says; {tumbling_above} above the line tumble"
    );
    let (stop, cell) = slowest.expect("some cell stops");
    eprintln!("slowest stopping cell: {cell}, stopped at t = {stop} s of {duration} s");
    assert!(
        stop + WINDOW_S <= duration,
        "the slowest stopping cell {cell} stops at {stop} s: the duration {duration} s leaves less than one more window"
    );
}
