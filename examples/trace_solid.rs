//! Diagnostics: run a 3D scene case (`kind = "scene"`, `dimension = 3`) with `--set`-style
//! overrides and print every Newton iteration of the steps that took at least a given number
//! of iterations, and of the step that failed, if one did.
//!
//! `cargo run --release --example trace_solid -- cases/box_on_box3d.toml 40 friction.mu_static=0.1`

use std::path::PathBuf;

use stickslip::scene::Override;
use stickslip::scene::multibody::solid::SolidScene;
use stickslip::solver::Simulation;

fn print_trace(sim: &Simulation<3>) {
    for (i, t) in sim.iteration_trace.iter().enumerate() {
        println!(
            "  {i:3} pass {} res {:.3e} alpha0 {:.3e} alpha {:.3e} E {:.15e} dmin {:.3e} worst node {}",
            t.lagging_pass,
            t.residual,
            t.filter_alpha,
            t.alpha,
            t.energy,
            t.min_distance,
            t.worst_node,
        );
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let case = PathBuf::from(
        args.next()
            .ok_or("usage: trace_solid CASE MIN_ITERS [KEY=VALUE…]")?,
    );
    let min_iters: usize = args.next().ok_or("MIN_ITERS")?.parse()?;
    let overrides = args
        .map(|a| Override::parse(&a))
        .collect::<Result<Vec<_>, _>>()?;
    let scene = SolidScene::load(&case, &overrides)?;
    let steps = scene.steps_for(scene.duration);
    let mut sim = Simulation::new(scene.system().0)?;
    sim.trace_iterations = true;
    for _ in 0..steps {
        match sim.step() {
            Ok(st) if st.iterations >= min_iters => {
                println!(
                    "step {} t={:.4}: {} iterations, {} halvings, {} flat, {} mass shifts, {} lagging passes",
                    st.step,
                    st.time,
                    st.iterations,
                    st.halvings,
                    st.flat_line_searches,
                    st.mass_shifts,
                    st.lagging_passes,
                );
                print_trace(&sim);
            }
            Ok(_) => {}
            Err(e) => {
                println!("{e}");
                print_trace(&sim);
                // ∇E against central differences of E at the stalled iterate, per component.
                let x = sim.x.clone();
                let (g, _) = sim.assembled_gradient_and_hessian(&x)?;
                let mut worst = Vec::new();
                for k in 0..3 * x.len() {
                    for d in [1e-7, 1e-8, 1e-9] {
                        let mut xp = x.clone();
                        xp[k / 3][k % 3] += d;
                        let mut xm = x.clone();
                        xm[k / 3][k % 3] -= d;
                        let fd = (sim.energy_at(&xp) - sim.energy_at(&xm)) / (2.0 * d);
                        worst.push(((fd - g[k / 3][k % 3]).abs(), k, d, g[k / 3][k % 3], fd));
                    }
                }
                worst.sort_by(|a, b| b.0.total_cmp(&a.0));
                for w in worst.iter().take(12) {
                    println!(
                        "  |fd − g| {:.3e} dof {} (node {}) delta {:e}: g {:.6e} fd {:.6e}",
                        w.0,
                        w.1,
                        w.1 / 3,
                        w.2,
                        w.3,
                        w.4
                    );
                }
                break;
            }
        }
    }
    Ok(())
}
