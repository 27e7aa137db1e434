//! `stickslip run` for case files of `kind = "rigid_ellipsoid"` (SPEC.md §5): runs
//! [`crate::rigid::run::simulate`], writes `trajectory.csv`, `events.csv` and `summary.json`
//! through a [`StagedDir`] (a failed run leaves nothing) and prints a short table.

use std::path::{Path, PathBuf};

use crate::app::cli::{CliError, RunArgs};
use crate::app::output::StagedDir;
use crate::rigid::case::{KIND, RigidScene, peek_kind};
use crate::rigid::run::{RigidSummary, simulate, write_outputs};

/// Whether the case file at `path` says `kind = "rigid_ellipsoid"`. A file that cannot be read
/// or parsed is not (the slope parser then reports what is wrong with it).
pub fn is_rigid_case(path: &Path) -> bool {
    crate::scene::case::read_case_file(path)
        .ok()
        .and_then(|text| peek_kind(&text))
        .is_some_and(|kind| kind == KIND)
}

fn reject(option: &str, given: bool) -> Result<(), CliError> {
    if given {
        Err(CliError::Option {
            option: option.into(),
            rule: "does not apply to a rigid_ellipsoid case".into(),
            value: "given".into(),
        })
    } else {
        Ok(())
    }
}

/// `stickslip run CASE --out DIR` for a rigid-ellipsoid case. `--duration` overrides the case's
/// `time.duration`; `--tol` and `--obj` are the slope solver's and are refused (exit 2); `--gpu`
/// is ignored (no impulse-law post-pass here).
pub fn run_rigid(args: &RunArgs) -> Result<(), CliError> {
    if let Some(d) = args.case.duration
        && !(d.is_finite() && d > 0.0)
    {
        return Err(CliError::Option {
            option: "--duration".into(),
            rule: "must be finite and > 0".into(),
            value: d.to_string(),
        });
    }
    reject("--tol", args.case.tol.is_some())?;
    reject("--obj", args.obj)?;
    let scene = RigidScene::load(&args.case.case)?;
    let out = args.out.clone().unwrap_or_else(|| {
        PathBuf::from("out").join(
            args.case
                .case
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "run".into()),
        )
    });
    if let Some(d) = args.case.duration {
        crate::rigid::case::check_steps(scene.h, d).map_err(|rule| CliError::Option {
            option: "--duration".into(),
            rule,
            value: d.to_string(),
        })?;
    }
    // The output path is checked (and a foreign one refused) before the run, not after it.
    let staged = StagedDir::new(&out)?;
    let run = simulate(&scene, args.case.duration)?;
    write_outputs(|name| staged.file(name), &run)?;
    let dir = staged.commit()?;
    print!("{}", rigid_table(&run.summary));
    println!(
        "\nwrote {}/trajectory.csv, events.csv and summary.json",
        dir.display()
    );
    Ok(())
}

/// The short table of a rigid run: impacts, how it ended, energy lost.
pub fn rigid_table(s: &RigidSummary) -> String {
    let model = match (s.impact_model, &s.mu, s.restitution) {
        (Some(m), Some(mu), Some(e)) => format!(
            "{}, e = {e}, mu = {mu}",
            serde_json::to_value(m)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default()
        ),
        _ => "no ground".into(),
    };
    // `+ 0.0`: an empty f64 sum is −0.0.
    let lost: f64 = s.energy_lost_per_impact.iter().sum::<f64>() + 0.0;
    let mut t = format!("{} (rigid_ellipsoid; {model}; h = {} s)\n\n", s.name, s.h);
    t.push_str(&format!(
        "{:>8} {:>6} {:>6}  {:<28} {:>10} {:>10} {:>12} {:>13} {:>9}\n",
        "impacts", "stick", "slide", "ended", "E start", "E end", "lost at", "largest gain", "wall"
    ));
    t.push_str(&format!(
        "{:>8} {:>6} {:>6}  {:<28} {:>10} {:>10} {:>12} {:>13} {:>9}\n",
        "", "", "", "", "J", "J", "impacts J", "J", "ms"
    ));
    t.push_str(&format!(
        "{:>8} {:>6} {:>6}  {:<28} {:>10.5} {:>10.5} {:>12.5} {:>13.3e} {:>9.1}\n",
        s.impacts,
        s.stick_impacts,
        s.slide_impacts,
        s.ended.to_string(),
        s.energy_initial,
        s.energy_final,
        lost,
        s.largest_energy_gain,
        s.wall_seconds * 1e3
    ));
    t
}
