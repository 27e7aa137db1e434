//! Contact records: what the runner keeps of every node in the friction set at every step.

/// One contact-node-step, as SPEC.md §4 defines it. All velocities in m/s, 2D (the slope scene);
/// the impulse law lifts them to 3D with z = 0.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactRecord {
    /// Index of the time step (0 = the step from t = 0 to t = h).
    pub step: u32,
    /// Node index in the mesh.
    pub node: u32,
    /// Time at the end of the step, s.
    pub time: f64,
    /// Contact-free velocity v_free = v^{n+1} − h (f_barrier + f_friction)/m, m/s.
    pub v_free: [f64; 2],
    /// Unit normal of the slope, out of the surface.
    pub normal: [f64; 2],
    /// Restitution (0 for the cross-check).
    pub restitution: f64,
    /// Friction coefficient μ.
    pub friction: f64,
    /// The optimiser's velocity v^{n+1}, m/s.
    pub v_opt: [f64; 2],
}

use crate::energy::Vec2;
use crate::energy::friction::blended_mu_lambda;
use crate::solver::Simulation;

/// Appends the records of the step `sim` has just taken (SPEC.md §4): for every node with
/// μλᵢ > 0, v_free = v^{n+1} − h (f_barrier + f_friction)/mᵢ with both forces at x^{n+1}
/// (friction with the lagged μλᵢ), e = `restitution`, and v^{n+1}. The law's μ is the one the
/// optimiser applied at that node: the scene's μ, or with static and kinetic coefficients the
/// blend μ(y) at the optimiser's tangential speed y = ‖T v^{n+1}‖ (μ_s up to ε_v, μ_k from 2ε_v;
/// see `energy::friction`), so the law checks the optimiser's own Coulomb bound.
pub fn push_step_records(sim: &Simulation, restitution: f64, out: &mut Vec<ContactRecord>) {
    let Some(step) = sim.step.checked_sub(1) else {
        return;
    };
    let h = sim.scene.h;
    let bar = sim.barrier();
    let fr = sim.friction();
    for (i, &ml) in sim.mu_lambda_static.iter().enumerate() {
        if ml <= 0.0 {
            continue;
        }
        let x = sim.x[i];
        let v = sim.v[i];
        let area = sim.mesh.contact_area[i];
        let f_barrier = bar.normal * (-bar.node_dbdd(bar.distance(&x), area));
        let f_friction = sim.friction_force(i);
        let v_free: Vec2 = v - (f_barrier + f_friction) * (h / sim.mesh.mass[i]);
        let y = (fr.tangent_operator() * v).norm();
        let (mu, _) = blended_mu_lambda(y, fr.eps_v, sim.scene.mu, sim.scene.mu_static);
        out.push(ContactRecord {
            step: step as u32,
            node: i as u32,
            time: sim.time(),
            v_free: [v_free.x, v_free.y],
            normal: [bar.normal.x, bar.normal.y],
            restitution,
            friction: mu,
            v_opt: [v.x, v.y],
        });
    }
}
