//! Contact records: what the runner keeps of every friction contact at every step.

use crate::contact::ContactPoint;
use crate::energy::Vec2;
use crate::solver::Simulation;

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

/// The buffers the records of a step are made with, kept between steps.
#[derive(Default)]
pub struct Recorder {
    contacts: Vec<ContactPoint<2>>,
    barrier: Vec<Vec2>,
    friction: Vec<Vec2>,
    elements: Vec<Vec2>,
}

impl Recorder {
    /// Appends the records of the step `sim` has just taken (SPEC.md §4): for every node
    /// against a half-space in friction's set (a lagged λ > 0), v_free = v^{n+1} −
    /// h (f_barrier + f_friction)/mᵢ with the contact forces on the node at x^{n+1} (friction
    /// with its lagged λ), e = `restitution`, and v^{n+1}. The law's μ is the one the
    /// optimiser applied at that contact: μ(y) at the optimiser's tangential speed
    /// y = ‖Tᵀ v^{n+1}‖ (μ_s up to ε_v, μ_k from 2ε_v; the single μ when the case states one),
    /// so the law checks the optimiser's own Coulomb bound. Contacts between bodies (more than
    /// one node) are not records of this law.
    pub fn push_step_records(
        &mut self,
        sim: &Simulation<2>,
        restitution: f64,
        out: &mut Vec<ContactRecord>,
    ) {
        let Some(step) = sim.step.checked_sub(1) else {
            return;
        };
        let h = sim.settings().h;
        if sim.contact().is_none() {
            return;
        }
        sim.contacts(&mut self.contacts);
        let n = sim.x.len();
        self.barrier.resize(n, Vec2::zeros());
        self.friction.resize(n, Vec2::zeros());
        sim.contact_forces(&mut self.barrier, &mut self.friction, &mut self.elements);
        for c in &self.contacts {
            if c.len != 1 {
                continue;
            }
            let i = c.nodes[0];
            let v = sim.v[i];
            let v_free: Vec2 = v - (self.barrier[i] + self.friction[i]) * (h / sim.mass()[i]);
            out.push(ContactRecord {
                step: step as u32,
                node: i as u32,
                time: sim.time(),
                v_free: [v_free.x, v_free.y],
                normal: [c.normal.x, c.normal.y],
                restitution,
                friction: c.mu,
                v_opt: [v.x, v.y],
            });
        }
    }
}
