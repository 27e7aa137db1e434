//! Contact records: what a runner keeps of every friction contact at every step, in 2D (the
//! slope scene) and 3D (the 3D scenes' nodes against half-spaces).

use crate::contact::ContactPoint;
use crate::energy::Vector;
use crate::solver::Simulation;

/// One contact-node-step, as SPEC.md §4 defines it. All velocities in m/s, as 3-vectors: the
/// law's own form (a 2D run's are lifted with z = 0).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactRecord {
    /// Index of the time step (0 = the step from t = 0 to t = h).
    pub step: u32,
    /// Node index in the mesh.
    pub node: u32,
    /// Time at the end of the step, s.
    pub time: f64,
    /// Contact-free velocity v_free = v^{n+1} − h (f_barrier + f_friction)/m, m/s.
    pub v_free: [f64; 3],
    /// Unit normal of the surface, out of it.
    pub normal: [f64; 3],
    /// Restitution (0 for the cross-check).
    pub restitution: f64,
    /// Friction coefficient μ.
    pub friction: f64,
    /// The optimiser's velocity v^{n+1}, m/s.
    pub v_opt: [f64; 3],
}

/// `v` as a 3-vector (z = 0 in 2D).
fn lift<const D: usize>(v: &Vector<D>) -> [f64; 3] {
    let mut out = [0.0; 3];
    out[..D].copy_from_slice(v.as_slice());
    out
}

/// The buffers the records of a step are made with, kept between steps.
pub struct Recorder<const D: usize> {
    contacts: Vec<ContactPoint<D>>,
    barrier: Vec<Vector<D>>,
    friction: Vec<Vector<D>>,
    elements: Vec<Vector<D>>,
}

impl<const D: usize> Default for Recorder<D> {
    fn default() -> Self {
        Recorder {
            contacts: Vec::new(),
            barrier: Vec::new(),
            friction: Vec::new(),
            elements: Vec::new(),
        }
    }
}

impl<const D: usize> Recorder<D> {
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
        sim: &Simulation<D>,
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
        self.barrier.resize(n, Vector::<D>::zeros());
        self.friction.resize(n, Vector::<D>::zeros());
        sim.contact_forces(&mut self.barrier, &mut self.friction, &mut self.elements);
        for c in &self.contacts {
            if c.len != 1 {
                continue;
            }
            let i = c.nodes[0];
            let v = sim.v[i];
            let v_free = v - (self.barrier[i] + self.friction[i]) * (h / sim.mass()[i]);
            out.push(ContactRecord {
                step: step as u32,
                node: i as u32,
                time: sim.time(),
                v_free: lift(&v_free),
                normal: lift(&c.normal),
                restitution,
                friction: c.mu,
                v_opt: lift(&v),
            });
        }
    }
}
