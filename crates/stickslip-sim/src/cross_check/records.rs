//! Contact records: what a runner keeps of every friction contact at every step for the
//! impulse-law cross-check (SPEC.md §4), in 2D and 3D: nodes against half-spaces (the slope's,
//! the scenes'), and the scenes' pairs between bodies and with obstacle meshes.

use std::collections::HashMap;

use crate::contact::candidates::embedded_plane_vertex::EmbeddedPlaneVertex;
use crate::contact::{ContactPair, ContactPoint, MAX_STENCIL, PairDistance};
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
    /// Whether the record is a pair of two primitives (between bodies, or of a body and an
    /// obstacle mesh or polyline) rather than a node against a half-space: its velocities are
    /// then the relative velocity of the two closest points, Σⱼ βⱼ vⱼ over the stencil
    /// ([`Recorder::push_step_records`]), and `node` is the stencil's first node.
    pub pair: bool,
    /// The contact's type (`node-half_space`, `embedded_node-half_space`, `point-edge`,
    /// `point-triangle`, `edge-edge`:
    /// [`crate::contact::ContactPair::NAME`]).
    pub kind: &'static str,
}

/// A pair's stencil, the bits of an embedded vertex's weights (zeros for other pairs) and the
/// two members it is between (an embedded vertex meets each half-space with one stencil).
type PairKey = ([usize; MAX_STENCIL], [u64; MAX_STENCIL], (usize, usize));

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
    /// Which components of every node a driver prescribes (contact forces do not move them).
    prescribed: Vec<[bool; D]>,
    /// The pairs of the last broad phase at x^{n+1}, with their barrier's normal force.
    pairs: Vec<PairDistance<D>>,
    /// A pair's stencil, an embedded vertex's weights (their bits: an affine body's vertices
    /// share one stencil) and its members → its index in `pairs`.
    pair_index: HashMap<PairKey, usize>,
}

impl<const D: usize> Default for Recorder<D> {
    fn default() -> Self {
        Recorder {
            contacts: Vec::new(),
            barrier: Vec::new(),
            friction: Vec::new(),
            elements: Vec::new(),
            prescribed: Vec::new(),
            pairs: Vec::new(),
            pair_index: HashMap::new(),
        }
    }
}

impl<const D: usize> Recorder<D> {
    /// Appends the records of the step `sim` has just taken (SPEC.md §4), one per friction
    /// contact with a lagged λ > 0; e is `restitution`. The law's μ is the one the optimiser
    /// applied at that contact: μ(y) at the optimiser's tangential speed y = ‖Tᵀ v^{n+1}‖ (μ_s up
    /// to ε_v, μ_k from 2ε_v; the single μ when the case states one), so the law checks the
    /// optimiser's own Coulomb bound.
    ///
    /// * A node against a half-space, as SPEC.md §4 defines it: v_free = v^{n+1} −
    ///   h (f_barrier + f_friction)/mᵢ with all the contact forces on the node at x^{n+1}
    ///   (friction with its lagged λ), and v^{n+1}, both less the half-space's surface velocity
    ///   v_s (a belt's; the law is written for a surface at rest), with its normal.
    /// * A pair (point–edge in 2D, point–triangle and edge–edge in 3D, between bodies or with an
    ///   obstacle mesh): the relative velocity of its two closest points, v_rel = Σⱼ βⱼ vⱼ over
    ///   the stencil with the weights friction is lagged with, and its contact-free value
    ///   v_rel − h Σⱼ βⱼ² F/mⱼ with F the pair's own force on the relative motion at x^{n+1}
    ///   (its barrier's normal force along its normal there, plus its friction). A pair's force
    ///   acts on node j as βⱼ F, so that is its own change of v_rel, along F (an isotropic
    ///   effective mass), and the Coulomb cone on its impulse is the same cone on that change.
    ///   Only the pair's own force is taken off, not all of its nodes' contact forces: a node
    ///   shared by pairs of other normals (a box in a corner, a pile) would otherwise hand this
    ///   pair's law the other contacts' normal impulses as tangential velocity. Other contacts
    ///   act on it as the elastic forces do. A normal damping's force (`barrier.damping`) is
    ///   not in F.
    ///
    /// * An affine body's embedded vertex against a half-space
    ///   (`contact::candidates::embedded_plane_vertex`): as a pair, over its four control nodes
    ///   with its fixed weights (its own force off through Σⱼ wⱼ² F/mⱼ, along F: exactly the
    ///   12-coordinate body's mobility 1/m + rᵀJ⁻¹r at the vertex, isotropic as the point law
    ///   assumes), but recorded as a node against a half-space (`pair` false).
    ///
    /// Components a driver prescribes (an obstacle mesh's nodes, a `move` driver's) are not
    /// moved by contact: there v_free = v^{n+1}. A record whose nodes are all wholly
    /// prescribed is not made, nor one of a correction pair (negative weight, 2D's shared
    /// vertices).
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
        if self.prescribed.len() != n {
            self.prescribed = vec![[false; D]; n];
            for d in sim.drivers() {
                let axes = d.axes();
                for &node in d.nodes() {
                    for (on, &axis) in self.prescribed[node].iter_mut().zip(&axes) {
                        *on |= axis;
                    }
                }
            }
        }
        self.barrier.resize(n, Vector::<D>::zeros());
        self.friction.resize(n, Vector::<D>::zeros());
        sim.contact_forces(&mut self.barrier, &mut self.friction, &mut self.elements);
        // A pair's stencil names it, but an affine body's embedded vertices share one stencil
        // (its control nodes): theirs are told apart by their weights, which are fixed (the
        // other pairs' move with the closest points, between xⁿ and x^{n+1}).
        let key =
            |nodes: &[usize], weights: &[f64; MAX_STENCIL], kind: &str, bodies: (usize, usize)| {
                let mut k = [usize::MAX; MAX_STENCIL];
                k[..nodes.len()].copy_from_slice(nodes);
                let w = if kind == EMBEDDED {
                    weights.map(f64::to_bits)
                } else {
                    [0; MAX_STENCIL]
                };
                (k, w, bodies)
            };
        self.pairs.clear();
        self.pair_index.clear();
        if self.contacts.iter().any(|c| c.len > 1)
            && let Some(stage) = sim.contact()
        {
            stage.distances(&sim.x, &mut self.pairs);
            for (k, p) in self.pairs.iter().enumerate() {
                if p.len > 1 {
                    self.pair_index
                        .insert(key(&p.nodes[..p.len], &p.weights, p.kind, p.bodies), k);
                }
            }
        }
        let mass = sim.mass();
        for c in &self.contacts {
            if c.normal_force <= 0.0 {
                continue;
            }
            let nodes = &c.nodes[..c.len];
            if nodes
                .iter()
                .all(|&i| self.prescribed[i].iter().all(|&fixed| fixed))
            {
                continue;
            }
            let (v_free, v) = if c.len == 1 {
                let i = nodes[0];
                let mut free = sim.v[i] - (self.barrier[i] + self.friction[i]) * (h / mass[i]);
                for (k, &fixed) in self.prescribed[i].iter().enumerate() {
                    if fixed {
                        free[k] = sim.v[i][k];
                    }
                }
                (free - c.surface_velocity, sim.v[i] - c.surface_velocity)
            } else {
                let barrier = self
                    .pair_index
                    .get(&key(nodes, &c.weights, c.kind, c.bodies))
                    .map_or(Vector::<D>::zeros(), |&k| {
                        self.pairs[k].normal * self.pairs[k].normal_force
                    });
                let force = barrier + c.friction_force;
                let mut v = -c.surface_velocity;
                let mut own = Vector::<D>::zeros();
                for (&i, &w) in nodes.iter().zip(&c.weights) {
                    v += sim.v[i] * w;
                    for (k, &fixed) in self.prescribed[i].iter().enumerate() {
                        if !fixed {
                            own[k] += w * w * force[k] * h / mass[i];
                        }
                    }
                }
                (v - own, v)
            };
            out.push(ContactRecord {
                step: step as u32,
                node: nodes[0] as u32,
                time: sim.time(),
                v_free: lift(&v_free),
                normal: lift(&c.normal),
                restitution,
                friction: c.mu,
                v_opt: lift(&v),
                pair: c.len > 1 && c.kind != EMBEDDED,
                kind: c.kind,
            });
        }
    }
}

/// The pair type of an affine body's embedded vertex against a half-space.
const EMBEDDED: &str = <EmbeddedPlaneVertex<3> as ContactPair<3>>::NAME;
