//! A scene's body as runners, outputs and viewers see it, whatever its type and dimension
//! (SPEC.md §7): the [`Body`] trait every body type answers, and a [`BodyHandle`] — a body with
//! where its nodes are in the state vector — through which its state is read. Nothing outside a
//! body type reads its nodes' slice of the state by hand.

use std::borrow::Cow;
use std::ops::Range;

use nalgebra::Matrix3;

use crate::energy::{Vec2, Vec3, Vector};
use crate::solver::Simulation;

/// What a body type answers about itself, in `D` dimensions.
pub trait Body<const D: usize> {
    /// Its name in the case file.
    fn name(&self) -> &str;

    /// Its mesh's nodes, m, from its nodes `x` of the state vector: the same positions for a
    /// body whose nodes are its mesh's, or those an affine body's control nodes place.
    fn place<'a>(&self, x: &'a [Vector<D>]) -> Cow<'a, [Vector<D>]>;

    /// Its elements (triangles in 2D, tetrahedra in 3D).
    fn elements(&self) -> usize;

    /// How many of its elements are inverted (signed area or volume ≤ 0) with its nodes of the
    /// state vector at `x`.
    fn inverted_elements(&self, x: &[Vector<D>]) -> usize;
}

/// A body of a system and the range of its nodes in the state vector.
#[derive(Clone, Copy)]
pub struct BodyHandle<'a, const D: usize> {
    /// The body.
    pub body: &'a dyn Body<D>,
    /// Its nodes in the state vector (an affine body's: its control nodes).
    pub nodes: &'a Range<usize>,
}

impl<'a, const D: usize> BodyHandle<'a, D> {
    /// A handle on `body`, whose nodes are `nodes` of the state vector.
    pub fn new(body: &'a dyn Body<D>, nodes: &'a Range<usize>) -> Self {
        BodyHandle { body, nodes }
    }

    /// Its nodes' entries of a per-node vector of the system (positions, velocities, masses).
    pub fn of<'s, T>(&self, all: &'s [T]) -> &'s [T] {
        &all[self.nodes.clone()]
    }

    /// Its mass, kg: the sum of its nodes' masses.
    pub fn mass(&self, sim: &Simulation<D>) -> f64 {
        self.of(sim.mass()).iter().sum()
    }

    /// Its mass-weighted centroid, m, and the mass-weighted mean of its nodes' velocities, m/s.
    pub fn centre_velocity(&self, sim: &Simulation<D>) -> (Vector<D>, Vector<D>) {
        let mass = sim.mass();
        let m = self.mass(sim);
        let r = self.nodes.clone();
        let c = r.clone().map(|i| sim.x[i] * mass[i]).sum::<Vector<D>>() / m;
        let v = r.map(|i| sim.v[i] * mass[i]).sum::<Vector<D>>() / m;
        (c, v)
    }

    /// Its mesh's nodes now, m ([`Body::place`]).
    pub fn positions(&self, sim: &'a Simulation<D>) -> Cow<'a, [Vector<D>]> {
        self.body.place(&sim.x[self.nodes.clone()])
    }

    /// Its mesh's nodes' velocities now, m/s: [`Body::place`] of its nodes' velocities (the
    /// placement is linear in the nodes, weights summing to one).
    pub fn velocities(&self, sim: &'a Simulation<D>) -> Cow<'a, [Vector<D>]> {
        self.body.place(&sim.v[self.nodes.clone()])
    }

    /// Its inverted elements now ([`Body::inverted_elements`]).
    pub fn inverted_elements(&self, sim: &Simulation<D>) -> usize {
        self.body.inverted_elements(self.of(&sim.x))
    }
}

impl BodyHandle<'_, 2> {
    /// Its angular velocity about its centroid, rad/s counter-clockwise
    /// ([`angular_velocity_2d`]).
    pub fn angular_velocity(&self, sim: &Simulation<2>) -> f64 {
        angular_velocity_2d(self.of(&sim.x), self.of(&sim.v), self.of(sim.mass()))
    }
}

impl BodyHandle<'_, 3> {
    /// Its angular velocity about its centroid `c` (m) with its nodes' mean velocity `v`
    /// (m/s), rad/s: the inertia tensor about `c` solved against the angular momentum (zero
    /// when the tensor is singular, as for nodes on a line).
    pub fn angular_velocity(&self, sim: &Simulation<3>, c: Vec3, v: Vec3) -> Vec3 {
        let mass = sim.mass();
        let mut inertia = Matrix3::zeros();
        let mut momentum = Vec3::zeros();
        for i in self.nodes.clone() {
            let (ri, vi) = (sim.x[i] - c, sim.v[i] - v);
            inertia += (Matrix3::identity() * ri.norm_squared() - ri * ri.transpose()) * mass[i];
            momentum += ri.cross(&vi) * mass[i];
        }
        inertia
            .cholesky()
            .map_or(Vec3::zeros(), |l| l.solve(&momentum))
    }
}

/// The angular velocity of 2D nodes about their mass-weighted centroid, rad/s
/// (counter-clockwise positive): the least-squares rigid rotation rate of their velocities,
/// ω = Σ mᵢ rᵢ × vᵢ / Σ mᵢ |rᵢ|² (rᵢ, vᵢ relative to the centroid's); 0 for coincident nodes.
pub fn angular_velocity_2d(x: &[Vec2], v: &[Vec2], m: &[f64]) -> f64 {
    let total: f64 = m.iter().sum();
    let c = x.iter().zip(m).map(|(x, m)| x * *m).sum::<Vec2>() / total;
    let u = v.iter().zip(m).map(|(v, m)| v * *m).sum::<Vec2>() / total;
    let (mut moment, mut inertia) = (0.0, 0.0);
    for ((x, v), m) in x.iter().zip(v).zip(m) {
        let (r, w) = (x - c, v - u);
        moment += m * (r.x * w.y - r.y * w.x);
        inertia += m * r.norm_squared();
    }
    if inertia > 0.0 { moment / inertia } else { 0.0 }
}
