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
    let distance = |x: &stickslip::energy::Vec2| scene.normal.dot(&(x - scene.point));
    let mut sim = Simulation::new(scene.system().0)?;
    sim.trace_iterations = true;
    let mut contacts = Vec::new();
    for _ in 0..steps {
        let st = sim.step()?;
        if st.iterations >= min_iters {
            println!(
                "step {} t={:.2}: {} iterations, {} halvings, {} projection fallbacks",
                st.step, st.time, st.iterations, st.halvings, st.projection_fallbacks
            );
            sim.contacts(&mut contacts);
            for (i, t) in sim.iteration_trace.iter().enumerate() {
                let lambda = contacts
                    .iter()
                    .find(|c| c.nodes[0] == t.worst_node)
                    .map_or(0.0, |c| c.normal_force);
                println!(
                    "  {i:3} pass {} res {:.3e} alpha0 {:.3e} alpha {:.3e} E {:.9e} dmin {:.3e} worst node {} (at the step's end: d = {:.3e} m, lagged lambda = {:.3e} N)",
                    t.lagging_pass,
                    t.residual,
                    t.filter_alpha,
                    t.alpha,
                    t.energy,
                    t.min_distance,
                    t.worst_node,
                    distance(&sim.x[t.worst_node]),
                    lambda
                );
            }
        }
    }
    Ok(())
}
