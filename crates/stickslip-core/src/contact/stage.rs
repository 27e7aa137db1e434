//! The contact stage of a system (SPEC.md §2, §6, §7): its pair sets, the barrier's and
//! friction's constants and the friction table, and what the Newton loop calls on it.
//!
//! Per step ([`crate::solver::Simulation`]):
//! 1. [`ContactStage::begin_step`]: the broad phase over xⁿ → x (x differs from xⁿ where
//!    drivers moved nodes), friction lagged at xⁿ, the barrier's collisions at x;
//! 2. at every iterate x, [`ContactStage::update`]: the barrier's collisions active at x;
//! 3. before every line search from x along p, [`ContactStage::find_candidates`] over
//!    x → x + p, so that the barrier's value at every trial point and the CCD of the step filter
//!    see every pair the segment can bring within d̂;
//! 4. with implicit lagging, at a converged x, [`ContactStage::relag`] and
//!    [`ContactStage::accept_relag`].

use crate::contact::candidates::CandidateSource;
use crate::contact::candidates::edge_edge::EdgeEdgeSource;
use crate::contact::candidates::embedded_plane_vertex::EmbeddedPlaneVertexSource;
use crate::contact::candidates::plane_vertex::PlaneVertexSource;
use crate::contact::candidates::point_edge::PointEdgeSource;
use crate::contact::candidates::point_triangle::PointTriangleSource;
use crate::contact::candidates::vertex_vertex::VertexVertexSource;
use crate::contact::pair_set::{PairSet, Pairs};
use crate::contact::potentials::barrier::BarrierParams;
use crate::contact::potentials::friction::{FrictionParams, StickModel};
use crate::contact::{ContactSurface, EmbeddedVertices, FrictionTable, HalfSpace};
use crate::energy::{Energy, StepState, Vec3, Vector};

pub use crate::contact::pair_set::{ContactPoint, PairDistance};

/// What a contact potential is ([`ContactStage::potential`]), for the force outputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ContactTerm {
    /// The barrier (`contact::potentials::barrier`).
    Barrier,
    /// Friction (`contact::potentials::friction`).
    Friction,
    /// The normal damping (`contact::potentials::normal_damping`).
    Damping,
}

/// The contact stage.
pub struct ContactStage<const D: usize> {
    barrier: BarrierParams,
    friction: FrictionParams,
    /// The normal damping's β_c, s (zero: none).
    damping: f64,
    /// How friction holds a sticking contact (SPEC.md §9).
    stick: StickModel,
    table: FrictionTable,
    sets: Vec<Box<dyn PairSet<D>>>,
}

impl<const D: usize> ContactStage<D> {
    /// A stage with no pairs yet, with the barrier's and friction's constants and the friction
    /// table (whose `bodies` numbers the obstacles).
    pub fn new(barrier: BarrierParams, friction: FrictionParams, table: FrictionTable) -> Self {
        ContactStage {
            barrier,
            friction,
            damping: 0.0,
            stick: StickModel::Smoothed,
            table,
            sets: Vec::new(),
        }
    }

    /// The stage with the barrier damped along each pair's normal with damping time `beta`, s
    /// (`contact::potentials::normal_damping`; zero: none). Set before any pairs are added.
    pub fn with_normal_damping(mut self, beta: f64) -> Self {
        assert!(
            self.sets.is_empty(),
            "the normal damping is set before the pairs are added"
        );
        self.damping = beta;
        self
    }

    /// The normal damping's β_c, s (zero: none).
    pub fn normal_damping(&self) -> f64 {
        self.damping
    }

    /// The stage with sticking contacts held by `stick` (SPEC.md §9; smoothed by default). Set
    /// before any pairs are added.
    pub fn with_stick(mut self, stick: StickModel) -> Self {
        assert!(
            self.sets.is_empty(),
            "the stick model is set before the pairs are added"
        );
        self.stick = stick;
        self
    }

    /// How friction holds a sticking contact.
    pub fn stick(&self) -> StickModel {
        self.stick
    }

    /// The stages of one pair type over `source`, with the stage's constants.
    fn pairs<S: CandidateSource<D> + 'static>(&self, source: S) -> Box<dyn PairSet<D>> {
        Box::new(
            Pairs::new(source, self.barrier, self.friction, self.damping).with_stick(self.stick),
        )
    }

    /// Node × half-space pairs between every vertex of `surface` and every half-space of
    /// `half_spaces`, each with its number in the friction table (`FrictionTable::obstacle`).
    pub fn add_half_spaces(
        &mut self,
        surface: ContactSurface,
        half_spaces: &[(HalfSpace<D>, usize)],
    ) {
        let source = PlaneVertexSource::plane_vertices(&surface, half_spaces);
        let set = self.pairs(source);
        self.sets.push(set);
    }

    /// Embedded vertex × half-space pairs between every vertex of `vertices` (an affine
    /// body's, `contact::candidates::embedded_plane_vertex`) and every half-space of
    /// `half_spaces`, each with its number in the friction table.
    pub fn add_embedded_half_spaces(
        &mut self,
        vertices: &EmbeddedVertices,
        half_spaces: &[(HalfSpace<D>, usize)],
    ) {
        let source = EmbeddedPlaneVertexSource::embedded_vertices(vertices, half_spaces);
        let set = self.pairs(source);
        self.sets.push(set);
    }

    /// Point–edge pairs (SPEC.md §7) between the boundary vertices and edges of `surface`'s
    /// different bodies, with their vertex–vertex corrections
    /// (`contact::candidates::vertex_vertex`); the vertices and edges of obstacles (numbered
    /// from the friction table's `bodies` on) never pair with each other.
    pub fn add_point_edges(&mut self, surface: ContactSurface) {
        let source = PointEdgeSource::new(&surface, self.table.bodies);
        let set = self.pairs(source);
        self.sets.push(set);
        let corrections = VertexVertexSource::new(&surface, self.table.bodies);
        let set = self.pairs(corrections);
        self.sets.push(set);
    }

    /// The friction table.
    pub fn friction_table(&self) -> &FrictionTable {
        &self.table
    }

    /// The friction table, to change the coefficients between steps (they are read when friction
    /// is lagged, at the start of the next step).
    pub fn friction_table_mut(&mut self) -> &mut FrictionTable {
        &mut self.table
    }

    /// The pair sets.
    pub fn sets(&self) -> &[Box<dyn PairSet<D>>] {
        &self.sets
    }

    /// Step 1 of the module comment.
    pub fn begin_step(&mut self, x_n: &[Vector<D>], x: &[Vector<D>]) {
        for set in &mut self.sets {
            set.find_candidates(x_n, Some(x));
            set.lag(x_n, &self.table);
            set.update(x);
        }
    }

    /// Step 2: the barrier's collisions at `x`.
    pub fn update(&mut self, x: &[Vector<D>]) {
        for set in &mut self.sets {
            set.update(x);
        }
    }

    /// Step 3: the broad phase over `x` → `x_end`.
    pub fn find_candidates(&mut self, x: &[Vector<D>], x_end: &[Vector<D>]) {
        for set in &mut self.sets {
            set.find_candidates(x, Some(x_end));
        }
    }

    /// Step 4: friction lagged again at `x`, aside; returns λ's relative change,
    /// max |λ_new − λ_used| / max |λ| over every pair (0 when there is no normal force before
    /// or after).
    pub fn relag(&mut self, x: &[Vector<D>]) -> f64 {
        let (mut diff, mut scale) = (0.0f64, 0.0f64);
        for set in &mut self.sets {
            let (d, s) = set.relag(x, &self.table);
            diff = diff.max(d);
            scale = scale.max(s);
        }
        if scale == 0.0 { 0.0 } else { diff / scale }
    }

    /// The collisions of the last [`ContactStage::relag`] replace the lagged ones.
    pub fn accept_relag(&mut self) {
        for set in &mut self.sets {
            set.accept_relag();
        }
    }

    /// After an accepted step ending at `x`: exact stick's return mapping in every pair set
    /// ([`PairSet::end_step`]; nothing with smoothed friction).
    pub fn end_step(&mut self, x: &[Vector<D>], step: &StepState<D>) {
        for set in &mut self.sets {
            set.end_step(x, step);
        }
    }

    /// The smallest distance of any pair at `x`, m (+∞ without pairs): the step invariant.
    pub fn min_distance(&self, x: &[Vector<D>]) -> f64 {
        self.sets
            .iter()
            .map(|s| s.min_distance(x))
            .fold(
                f64::INFINITY,
                |a, b| if b < a || b.is_nan() { b } else { a },
            )
    }

    /// Contact potentials per pair set: barrier, friction and, with a normal damping, damping.
    fn per_set(&self) -> usize {
        if self.damping > 0.0 { 3 } else { 2 }
    }

    /// The contact potentials, two or three per pair set ([`ContactStage::potential`]), in a
    /// fixed order.
    pub fn potentials(&self) -> impl Iterator<Item = &dyn Energy<D>> {
        (0..self.potential_count()).map(|k| self.potential(k).1)
    }

    /// The k-th contact potential and what it is: per pair set in turn, the barrier, friction
    /// and, with a normal damping, the damping.
    pub fn potential(&self, k: usize) -> (ContactTerm, &dyn Energy<D>) {
        let set = &self.sets[k / self.per_set()];
        match k % self.per_set() {
            0 => (ContactTerm::Barrier, set.barrier()),
            1 => (ContactTerm::Friction, set.friction()),
            _ => (
                ContactTerm::Damping,
                set.damping()
                    .expect("a stage with a normal damping gives every pair set one"),
            ),
        }
    }

    /// Number of contact potentials ([`ContactStage::potentials`]).
    pub fn potential_count(&self) -> usize {
        self.per_set() * self.sets.len()
    }

    /// Every lagged friction contact at `x` into `out` (cleared first).
    pub fn contacts(&self, x: &[Vector<D>], step: &StepState<D>, out: &mut Vec<ContactPoint<D>>) {
        out.clear();
        for set in &self.sets {
            set.contacts(x, step, out);
        }
    }

    /// Every pair of the last broad phase at `x` into `out` (cleared first): every pair closer
    /// than d̂ at `x` when the broad phase's path reached `x`.
    pub fn distances(&self, x: &[Vector<D>], out: &mut Vec<PairDistance<D>>) {
        out.clear();
        for set in &self.sets {
            set.distances(x, out);
        }
    }
}

impl ContactStage<3> {
    /// Point–triangle and edge–edge pairs (SPEC.md §7, IPC in 3D) between the boundary
    /// vertices, triangles and edges of `surface`'s different bodies, with every node's position
    /// at rest `rest` (m; edge areas and the edge–edge mollifier's thresholds); the primitives
    /// of obstacles (numbered from the friction table's `bodies` on) never pair with each other.
    pub fn add_triangle_pairs(&mut self, surface: &ContactSurface, rest: &[Vec3]) {
        let points = PointTriangleSource::new(surface, self.table.bodies);
        let set = self.pairs(points);
        self.sets.push(set);
        let edges = EdgeEdgeSource::new(surface, rest, self.table.bodies);
        let set = self.pairs(edges);
        self.sets.push(set);
    }
}
