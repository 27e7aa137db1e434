//! Diagnostics: run a case with `--set`-style overrides and print every Newton iteration of the
//! steps that took more than a given number of iterations.
//!
//! `cargo run --release --example trace_step -- cases/slope_mu0.11.toml 40 square.n_seg=16`

use std::path::PathBuf;

use stickslip::scene::{Override, Scene};
use stickslip::solver::Simulation;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let case = PathBuf::from(
        args.next()
            .ok_or("usage: trace_step CASE MIN_ITERS [KEY=VALUE…]")?,
    );
    let min_iters: usize = args.next().ok_or("MIN_ITERS")?.parse()?;
    let overrides = args
        .map(|a| Override::parse(&a))
        .collect::<Result<Vec<_>, _>>()?;
    let scene = Scene::load_with_overrides(&case, &overrides)?;
    let steps = scene.steps_for(scene.duration);
    let mut sim = Simulation::new(scene)?;
    sim.trace_iterations = true;
    for _ in 0..steps {
        let st = sim.step()?;
        if st.iterations >= min_iters {
            println!(
                "step {} t={:.2}: {} iterations, {} halvings, {} projection fallbacks",
                st.step, st.time, st.iterations, st.halvings, st.projection_fallbacks
            );
            for (i, t) in sim.iteration_trace.iter().enumerate() {
                println!(
                    "  {i:3} pass {} res {:.3e} alpha0 {:.3e} alpha {:.3e} E {:.9e} dmin {:.3e} worst node {} (at the step's end: d = {:.3e} m, mu*lambda = {:.3e} N)",
                    t.lagging_pass,
                    t.residual,
                    t.filter_alpha,
                    t.alpha,
                    t.energy,
                    t.min_distance,
                    t.worst_node,
                    sim.barrier().distance(&sim.x[t.worst_node]),
                    sim.mu_lambda[t.worst_node]
                );
            }
        }
    }
    Ok(())
}
