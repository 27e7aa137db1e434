//! Diagnostics: run a scene case (`kind = "scene"`, 2D or 3D) with `--set`-style overrides and
//! print every Newton iteration of the steps that took more than a given number of iterations,
//! and of the step that failed, if one did, with ∇E against central differences of E there.
//!
//! `cargo run --release --example trace_scene -- cases/pile_in_trough.toml 40 time.duration=1`
//! `cargo run --release --example trace_scene -- cases/box_on_box3d.toml 12 friction.mu_static=0.1`

use std::path::PathBuf;

use stickslip::scene::Override;
use stickslip::scene::multibody::MultibodyScene;
use stickslip::scene::multibody::dimension::declared_dimension;
use stickslip::scene::multibody::solid::SolidScene;
use stickslip::solver::Simulation;

fn print_trace<const D: usize>(sim: &Simulation<D>) {
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
            .ok_or("usage: trace_scene CASE MIN_ITERS [KEY=VALUE…]")?,
    );
    let min_iters: usize = args.next().ok_or("MIN_ITERS")?.parse()?;
    let overrides = args
        .map(|a| Override::parse(&a))
        .collect::<Result<Vec<_>, _>>()?;
    if declared_dimension(&std::fs::read_to_string(&case)?, &case)? == 3 {
        return trace_solid(&SolidScene::load(&case, &overrides)?, min_iters);
    }
    let scene = MultibodyScene::load(&case, &overrides)?;
    let steps = scene.steps_for(scene.settings.duration);
    let mut sim = Simulation::new(scene.system().0)?;
    sim.trace_iterations = true;
    for _ in 0..steps {
        match sim.step() {
            Ok(st) if st.iterations >= min_iters => {
                println!(
                    "step {} t={:.3}: {} iterations, {} halvings, {} mass shifts, {} projection fallbacks",
                    st.step,
                    st.time,
                    st.iterations,
                    st.halvings,
                    st.mass_shifts,
                    st.projection_fallbacks
                );
                print_trace(&sim);
            }
            Ok(_) => {}
            Err(e) => {
                println!("{e}");
                print_trace(&sim);
                let x = sim.x.clone();
                let (g, _) = sim.assembled_gradient_and_hessian(&x)?;
                let mut worst = (0.0f64, 0usize, 0.0, 0.0);
                for k in 0..2 * x.len() {
                    let d = 1e-7;
                    let mut xp = x.clone();
                    xp[k / 2][k % 2] += d;
                    let mut xm = x.clone();
                    xm[k / 2][k % 2] -= d;
                    let fd = (sim.energy_at(&xp) - sim.energy_at(&xm)) / (2.0 * d);
                    let a = g[k / 2][k % 2];
                    if (fd - a).abs() > worst.0 {
                        worst = ((fd - a).abs(), k, a, fd);
                    }
                }
                println!("worst gradient mismatch {worst:?}");
                {
                    use stickslip::contact::ContactPair;
                    use stickslip::contact::candidates::CandidateSource;
                    let g = stickslip::scene::multibody::geometry::geometry(
                        &scene.bodies,
                        &scene.obstacles,
                    );
                    let mut src =
                        stickslip::contact::candidates::point_edge::PointEdgeSource::<2>::new(
                            &g.boundary,
                            scene.bodies.len(),
                        );
                    let mut pairs = Vec::new();
                    src.candidates(&x, Some(&x), scene.settings.barrier.dhat, &mut pairs);
                    let node = worst.1 / 2;
                    for p in pairs.iter().filter(|p| p.nodes.contains(&node)) {
                        let d = p.distance(&x);
                        if d >= scene.settings.barrier.dhat {
                            continue;
                        }
                        let mut gr = [stickslip::energy::Vec2::zeros(); 4];
                        p.distance_gradient(&x, &mut gr);
                        let j = p.nodes.iter().position(|&n| n == node).unwrap();
                        let c = worst.1 % 2;
                        let h = 1e-9;
                        let mut xp = x.clone();
                        xp[node][c] += h;
                        let mut xm = x.clone();
                        xm[node][c] -= h;
                        let fd = (p.distance(&xp) - p.distance(&xm)) / (2.0 * h);
                        println!(
                            "pair {:?} d {:e} grad {} fd {} pos {:?} {:?} {:?}",
                            p.nodes, d, gr[j][c], fd, x[p.nodes[0]], x[p.nodes[1]], x[p.nodes[2]]
                        );
                    }
                }
                let k = worst.1;
                sim.assembled_gradient_and_hessian(&x)?;
                let step = sim.last_step_state();
                let contact = sim.contact().expect("contact");
                for (t, term) in contact.potentials().enumerate() {
                    let el = term.elements();
                    let mut buf = vec![stickslip::energy::Vec2::zeros(); el.gradient_len()];
                    term.gradient(&x, &step, 1.0, &mut buf);
                    let mut grad = vec![stickslip::energy::Vec2::zeros(); x.len()];
                    stickslip::energy::term::scatter_gradient(el, &buf, &mut grad);
                    let d = 1e-7;
                    let mut xp = x.clone();
                    xp[k / 2][k % 2] += d;
                    let mut xm = x.clone();
                    xm[k / 2][k % 2] -= d;
                    let fd =
                        (term.value(&xp, &step, 1.0) - term.value(&xm, &step, 1.0)) / (2.0 * d);
                    println!(
                        "term {t} {}: analytic {} fd {} elements {}",
                        term.name(),
                        grad[k / 2][k % 2],
                        fd,
                        el.len()
                    );
                }
                return Err(e.into());
            }
        }
    }
    Ok(())
}

/// The 3D scene's trace, and at a failed step every component of ∇E against central
/// differences of E at three step sizes, worst first.
fn trace_solid(scene: &SolidScene, min_iters: usize) -> Result<(), Box<dyn std::error::Error>> {
    let steps = scene.steps_for(scene.settings.duration);
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
