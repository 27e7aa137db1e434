//! The three stages for one pair type (candidates → collisions → potentials), behind one
//! object-safe trait, so that a [`crate::contact::ContactStage`] holds any mix of pair types.

use crate::contact::barrier::BarrierParams;
use crate::contact::candidates::CandidateSource;
use crate::contact::candidates::embedded_plane_vertex::EmbeddedPlaneVertex;
use crate::contact::collisions::damped;
use crate::contact::collisions::tangential::{self, TangentialCollision};
use crate::contact::pair::MAX_STENCIL;
use crate::contact::pair::MOLLIFIER_HESSIAN;
use crate::contact::potentials::barrier::BarrierPotential;
use crate::contact::potentials::friction::{
    FrictionParams, FrictionPotential, StickAnchor, StickModel,
};
use crate::contact::potentials::normal_damping::NormalDampingPotential;
use crate::contact::{ContactPair, FrictionTable};
use crate::energy::{Energy, StepState, Vector};

/// One lagged friction contact as the outputs, the viewer and the cross-check see it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactPoint<const D: usize> {
    /// The stencil's nodes (the first `len`).
    pub nodes: [usize; MAX_STENCIL],
    /// Nodes in the stencil.
    pub len: usize,
    /// βⱼ of each node in the relative velocity.
    pub weights: [f64; MAX_STENCIL],
    /// The unit normal at xⁿ.
    pub normal: Vector<D>,
    /// λ lagged at xⁿ, N.
    pub normal_force: f64,
    /// The coefficient μ(y) friction applies at the current tangential speed y.
    pub mu: f64,
    /// The tangential relative velocity T u, m/s.
    pub slip: Vector<D>,
    /// The friction force on the relative motion (on node j: βⱼ times it), N.
    pub friction_force: Vector<D>,
    /// The two bodies or obstacles it is between, as the friction table numbers them (the
    /// stencil's first node is the first's).
    pub bodies: (usize, usize),
    /// v_s, the velocity of a moving obstacle's surface (a belt) the relative velocity is
    /// taken against, m/s; zero between bodies.
    pub surface_velocity: Vector<D>,
    /// The pair type's name ([`crate::contact::ContactPair::NAME`]).
    pub kind: &'static str,
}

/// One pair of the last broad phase at an x, as the outputs see it: its distance, and its
/// barrier's normal force where it is within d̂.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairDistance<const D: usize> {
    /// The two bodies or obstacles, as the friction table numbers them.
    pub bodies: (usize, usize),
    /// The distance, m.
    pub distance: f64,
    /// The unit normal at the closest points, from the second towards the first.
    pub normal: Vector<D>,
    /// The barrier's normal force −∂b/∂d, N (zero at or beyond d̂; negative for a correction
    /// pair of negative weight, `contact::candidates::vertex_vertex`).
    pub normal_force: f64,
    /// The stencil's nodes (the first `len`) and their weights βⱼ in the relative velocity.
    pub nodes: [usize; MAX_STENCIL],
    /// Nodes in the stencil.
    pub len: usize,
    /// βⱼ.
    pub weights: [f64; MAX_STENCIL],
    /// The surface velocity of a moving obstacle (a belt), m/s.
    pub surface_velocity: Vector<D>,
    /// The pair type's name.
    pub kind: &'static str,
}

impl<const D: usize> PairDistance<D> {
    /// The first primitive's point at `x`, m: the stencil's first node, or, for an embedded
    /// vertex (`contact::candidates::embedded_plane_vertex`, all of whose stencil is its own
    /// body's), the vertex Σⱼ βⱼ xⱼ.
    pub fn point(&self, x: &[Vector<D>]) -> Vector<D> {
        if self.kind == <EmbeddedPlaneVertex<D> as ContactPair<D>>::NAME {
            (0..self.len)
                .map(|j| x[self.nodes[j]] * self.weights[j])
                .sum()
        } else {
            x[self.nodes[0]]
        }
    }

    /// The velocity of the first primitive's closest point relative to the second's,
    /// Σⱼ βⱼ vⱼ − v_s, m/s, from node velocities `v`.
    pub fn relative_velocity(&self, v: &[Vector<D>]) -> Vector<D> {
        let mut r = -self.surface_velocity;
        for j in 0..self.len {
            r += v[self.nodes[j]] * self.weights[j];
        }
        r
    }

    /// The tangential part of [`PairDistance::relative_velocity`], m/s.
    pub fn slip(&self, v: &[Vector<D>]) -> Vector<D> {
        let r = self.relative_velocity(v);
        r - self.normal * self.normal.dot(&r)
    }
}

/// One pair type's candidates, collisions and potentials.
pub trait PairSet<const D: usize>: Send + Sync {
    /// The pair type's name.
    fn name(&self) -> &'static str;

    /// The broad phase over the straight path `x0` → `x1` (`None`: at `x0` alone).
    fn find_candidates(&mut self, x0: &[Vector<D>], x1: Option<&[Vector<D>]>);

    /// The barrier's active collisions at `x`.
    fn update(&mut self, x: &[Vector<D>]);

    /// Friction's collisions lagged at `x`.
    fn lag(&mut self, x: &[Vector<D>], table: &FrictionTable);

    /// Friction's collisions lagged at `x` made aside; returns how far their normal forces
    /// moved, (max |λ_new − λ_used|, max |λ|), N ([`tangential::change`]).
    fn relag(&mut self, x: &[Vector<D>], table: &FrictionTable) -> (f64, f64);

    /// The collisions of the last [`PairSet::relag`] replace the lagged ones.
    fn accept_relag(&mut self);

    /// After an accepted step ending at `x` (of the step `step`), exact stick's return
    /// mapping (SPEC.md §9): every lagged collision's state is kept, by pair key, for the
    /// collisions lagged at the next step; a pair not lagged this step loses its state.
    /// Nothing with smoothed friction.
    fn end_step(&mut self, x: &[Vector<D>], step: &StepState<D>);

    /// The smallest distance of any pair of this type at `x`, m.
    fn min_distance(&self, x: &[Vector<D>]) -> f64;

    /// The barrier as a term of E.
    fn barrier(&self) -> &dyn Energy<D>;

    /// Friction as a term of E.
    fn friction(&self) -> &dyn Energy<D>;

    /// The normal damping as a term of E (`None` without it: `barrier.damping` zero).
    fn damping(&self) -> Option<&dyn Energy<D>>;

    /// Every lagged friction contact at `x`, appended to `out`.
    fn contacts(&self, x: &[Vector<D>], step: &StepState<D>, out: &mut Vec<ContactPoint<D>>);

    /// Every candidate of the last broad phase at `x`, appended to `out`.
    fn distances(&self, x: &[Vector<D>], out: &mut Vec<PairDistance<D>>);
}

/// The stages of pair type `S::Pair` with its broad phase `S`.
pub struct Pairs<const D: usize, S: CandidateSource<D>> {
    source: S,
    barrier: BarrierPotential<D, S::Pair>,
    friction: FrictionPotential<D>,
    damping: Option<NormalDampingPotential<D>>,
    relag_collisions: Vec<TangentialCollision<D>>,
    relag_stencils: Vec<usize>,
    /// Exact stick's states carried from the last accepted step: (pair key, offset T s₀ in
    /// world coordinates (m), stuck), sorted by key (SPEC.md §9).
    memory: Vec<(u64, Vector<D>, bool)>,
    relag_anchors: Vec<StickAnchor>,
}

/// Each collision's carried state from `memory` (sorted by key), into `anchors` (cleared
/// first): the offset re-expressed in the collision's own tangent frame, T'ᵀ w scaled back to
/// ‖w‖ (so a frame that turned keeps the stored elastic displacement's length); a pair not in
/// `memory` starts as a new contact.
fn attach<const D: usize>(
    collisions: &[TangentialCollision<D>],
    memory: &[(u64, Vector<D>, bool)],
    anchors: &mut Vec<StickAnchor>,
) {
    anchors.clear();
    for c in collisions {
        let anchor = match memory.binary_search_by_key(&c.key, |m| m.0) {
            Ok(k) => {
                let (_, w, stuck) = memory[k];
                let mut offset = c.frame.basis.transpose() * w;
                let (length, projected) = (w.norm(), offset.norm());
                if projected > 0.0 && projected != length {
                    offset *= length / projected;
                }
                StickAnchor { offset, stuck }
            }
            Err(_) => StickAnchor::default(),
        };
        anchors.push(anchor);
    }
}

impl<const D: usize, S: CandidateSource<D>> Pairs<D, S> {
    /// The stages over `source`'s pairs with the barrier's and friction's constants and the
    /// normal damping's β_c (s; none when zero).
    pub fn new(source: S, barrier: BarrierParams, friction: FrictionParams, damping: f64) -> Self {
        Pairs {
            source,
            barrier: BarrierPotential::new(barrier),
            friction: FrictionPotential::new(friction, S::Pair::NODES),
            damping: (damping > 0.0).then(|| NormalDampingPotential::new(damping, S::Pair::NODES)),
            relag_collisions: Vec::new(),
            relag_stencils: Vec::new(),
            memory: Vec::new(),
            relag_anchors: Vec::new(),
        }
    }

    /// The same stages with sticking contacts held by `stick` (SPEC.md §9).
    pub fn with_stick(mut self, stick: StickModel) -> Self {
        self.friction = self.friction.with_stick(stick);
        self
    }
}

impl<const D: usize, S: CandidateSource<D>> PairSet<D> for Pairs<D, S> {
    fn name(&self) -> &'static str {
        S::Pair::NAME
    }

    fn find_candidates(&mut self, x0: &[Vector<D>], x1: Option<&[Vector<D>]>) {
        let dhat = self.barrier.params().dhat;
        self.source
            .candidates(x0, x1, dhat, &mut self.barrier.candidates);
        self.barrier.candidates_changed();
    }

    fn update(&mut self, x: &[Vector<D>]) {
        self.barrier.update(x);
    }

    fn lag(&mut self, x: &[Vector<D>], table: &FrictionTable) {
        tangential::lag(
            self.barrier.candidates(),
            x,
            self.barrier.params(),
            table,
            &mut self.friction.collisions,
            &mut self.friction.stencils,
        );
        if self.friction.stick().is_exact() {
            attach(
                &self.friction.collisions,
                &self.memory,
                &mut self.friction.anchors,
            );
        }
        if let Some(damping) = &mut self.damping {
            damped::lag(
                self.barrier.candidates(),
                x,
                self.barrier.params(),
                &mut damping.collisions,
                &mut damping.stencils,
            );
        }
    }

    fn relag(&mut self, x: &[Vector<D>], table: &FrictionTable) -> (f64, f64) {
        tangential::lag(
            self.barrier.candidates(),
            x,
            self.barrier.params(),
            table,
            &mut self.relag_collisions,
            &mut self.relag_stencils,
        );
        if self.friction.stick().is_exact() {
            attach(
                &self.relag_collisions,
                &self.memory,
                &mut self.relag_anchors,
            );
        }
        tangential::change(&self.friction.collisions, &self.relag_collisions)
    }

    fn accept_relag(&mut self) {
        std::mem::swap(&mut self.friction.collisions, &mut self.relag_collisions);
        std::mem::swap(&mut self.friction.stencils, &mut self.relag_stencils);
        if self.friction.stick().is_exact() {
            std::mem::swap(&mut self.friction.anchors, &mut self.relag_anchors);
        }
    }

    fn end_step(&mut self, x: &[Vector<D>], step: &StepState<D>) {
        if !self.friction.stick().is_exact() {
            return;
        }
        self.friction.return_mappings(x, step, &mut self.memory);
        self.memory.sort_unstable_by_key(|m| m.0);
    }

    fn min_distance(&self, x: &[Vector<D>]) -> f64 {
        self.source.min_distance(x, self.barrier.candidates())
    }

    fn barrier(&self) -> &dyn Energy<D> {
        &self.barrier
    }

    fn friction(&self) -> &dyn Energy<D> {
        &self.friction
    }

    fn damping(&self) -> Option<&dyn Energy<D>> {
        self.damping.as_ref().map(|d| d as &dyn Energy<D>)
    }

    fn contacts(&self, x: &[Vector<D>], step: &StepState<D>, out: &mut Vec<ContactPoint<D>>) {
        for (i, c) in self.friction.collisions().iter().enumerate() {
            let u = self.friction.tangential_velocity(c, x, step);
            let (mu, friction_force) = self.friction.coefficient_and_force(i, x, step);
            out.push(ContactPoint {
                nodes: c.nodes,
                len: S::Pair::NODES,
                weights: c.frame.weights,
                normal: c.frame.normal,
                normal_force: c.normal_force,
                mu,
                slip: c.frame.basis * u,
                friction_force,
                bodies: c.bodies,
                surface_velocity: c.frame.surface_velocity,
                kind: S::Pair::NAME,
            });
        }
    }

    fn distances(&self, x: &[Vector<D>], out: &mut Vec<PairDistance<D>>) {
        let params = self.barrier.params();
        let kind = self.name();
        for pair in self.barrier.candidates() {
            let distance = pair.distance(x);
            let frame = pair.frame(x);
            let mut normal_force = -params.first(distance, pair.area());
            if S::Pair::MOLLIFIED && normal_force != 0.0 {
                let mut grad = [Vector::<D>::zeros(); MAX_STENCIL];
                let mut hess = [0.0; MOLLIFIER_HESSIAN];
                normal_force *= pair.mollifier(x, &mut grad, &mut hess);
            }
            out.push(PairDistance {
                bodies: pair.bodies(),
                distance,
                normal: frame.normal,
                normal_force,
                nodes: pair.nodes(),
                len: S::Pair::NODES,
                weights: frame.weights,
                surface_velocity: frame.surface_velocity,
                kind,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contact::pair::{TangentFrame, tangent_basis};
    use crate::contact::{Coefficients, MAX_STENCIL};
    use crate::energy::Vec3;

    fn collision(key: u64, normal: Vec3) -> TangentialCollision<3> {
        TangentialCollision {
            nodes: [0; MAX_STENCIL],
            key,
            frame: TangentFrame {
                basis: tangent_basis(&normal),
                normal,
                weights: [1.0, 0.0, 0.0, 0.0],
                surface_velocity: Vec3::zeros(),
            },
            normal_force: 1.0,
            coefficients: Coefficients::single(0.1),
            bodies: (0, 1),
        }
    }

    /// A pair found in the memory takes its state, its offset re-expressed in its own frame:
    /// unchanged in world coordinates when the frame is the same, the same length when the
    /// normal turned (its tangential part scaled back); a pair not in the memory starts new,
    /// and a memory entry with no collision is not used.
    #[test]
    fn carried_states_are_matched_by_key_and_keep_their_length() {
        let up = Vec3::z();
        let tilted = Vec3::new(0.2, 0.0, 1.0).normalize();
        let w = Vec3::new(3e-6, -4e-6, 0.0);
        let memory = [(2, w, false), (5, w, true), (9, w, true)];
        let collisions = [collision(2, up), collision(4, up), collision(5, tilted)];
        let mut anchors = Vec::new();
        attach(&collisions, &memory, &mut anchors);
        assert_eq!(anchors.len(), 3);
        let same = collisions[0].frame.basis * anchors[0].offset;
        assert!((same - w).amax() < 1e-20, "{same:?}");
        assert!(!anchors[0].stuck);
        assert_eq!(anchors[1], StickAnchor::default());
        let turned = collisions[2].frame.basis * anchors[2].offset;
        assert!((turned.norm() - w.norm()).abs() < 1e-20);
        assert!(
            turned.dot(&tilted).abs() < 1e-20,
            "tangent to the new frame"
        );
        assert!(anchors[2].stuck);
    }
}
