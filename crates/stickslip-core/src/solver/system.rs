//! The system a scene builds and the solver steps (SPEC.md §7): the nodes of every body in one
//! state vector x ∈ ℝ^{D·n}, their lumped masses, the potentials of E, the contact stage, the
//! drivers, and the solver's settings. The solver knows no scene, mesh or generator: a scene
//! (a case `kind`, `scene/`) makes a [`SystemBuilder`], adds its bodies' nodes and terms, and
//! hands the [`System`] to [`crate::solver::Simulation::new`].

use std::ops::Range;

use serde::{Deserialize, Serialize};

use crate::contact::ContactStage;
use crate::energy::{Energy, Vector};
use crate::solver::driver::Driver;

/// How friction's normal force λ is lagged within a step (SPEC.md §2 and §6).
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Lagging {
    /// λ from xⁿ, fixed through the step (the book's).
    #[default]
    SemiImplicit,
    /// λ re-lagged at the converged x^{n+1} and the step re-solved until λ agrees.
    Implicit,
}

/// Where Newton starts a step (case key `newton.initial_guess`).
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum InitialGuess {
    /// xⁿ, the positions the step starts from (the book's).
    #[default]
    Previous,
    /// x̃ = xⁿ + h vⁿ, the inertial prediction, cut back by the step filter along xⁿ → x̃ so
    /// that no contact or element is crossed. Where static friction exceeds kinetic, the step's
    /// energy can have two minima while the driving force lies between μ_k N and μ_s N (the
    /// block sliding and the block sticking); from xⁿ, a body sticking to a moving belt starts
    /// Newton on the sliding side and can end there, from x̃ it starts where it stuck.
    Inertial,
}

/// What the Newton loop reads besides the energies (SPEC.md §2, §6): each setting here and
/// read only here.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SolverSettings {
    /// Time step h, s.
    pub h: f64,
    /// Newton tolerance on ‖p‖∞/h, m/s.
    pub tol: f64,
    /// Newton iteration bound per step.
    pub max_iterations: usize,
    /// Iterations every step takes before ‖p‖∞/h < tol may end it (issue 38's "no frozen
    /// steps", SPEC.md §2 and §6). With 0 (the book's loop) the first direction is tested
    /// before any iteration, so a step whose first residual is under tol ends at its start
    /// (xⁿ, or the inertial start): motion freezes, or a slide ignores friction, whenever the
    /// speed the first direction sees is below tol. With 1 or more that cannot happen. A first
    /// direction that is exactly zero ends the step whatever this is: x is then the minimiser.
    pub min_iterations: usize,
    /// Line-search halving bound.
    pub max_halvings: usize,
    /// The step filters' fraction: no trial may cover more than this part of a pair's distance
    /// or of a triangle's area (SPEC.md §2: 0.9 in the book).
    pub filter_fraction: f64,
    /// How friction's normal force is lagged.
    pub lagging: Lagging,
    /// Implicit lagging stops when max|λ_new − λ_used| / max|λ| ≤ this (dimensionless).
    pub lagging_tol: f64,
    /// Re-lagging passes allowed per step after the first solve (implicit lagging).
    pub max_lagging: usize,
    /// Where Newton starts a step.
    pub initial_guess: InitialGuess,
}

/// A system a builder finished: what [`crate::solver::Simulation::new`] takes.
pub struct System<const D: usize> {
    /// Node positions at t = 0, m.
    pub x0: Vec<Vector<D>>,
    /// Node velocities at t = 0, m/s.
    pub v0: Vec<Vector<D>>,
    /// Lumped mass of every node, kg.
    pub mass: Vec<f64>,
    /// The potentials of E (weight h² each; inertia is added by the solver), in summation order.
    pub potentials: Vec<Box<dyn Energy<D>>>,
    /// The contact stage, if the system has contact.
    pub contact: Option<ContactStage<D>>,
    /// The drivers.
    pub drivers: Vec<Box<dyn Driver<D>>>,
    /// The solver's settings.
    pub settings: SolverSettings,
}

/// A system that cannot be built: a mistake of the code that built it, with what and where.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum SystemError {
    /// The node arrays differ in length.
    #[error("nodes: {positions} positions, {velocities} velocities and {masses} masses")]
    Lengths {
        /// Positions given.
        positions: usize,
        /// Velocities given.
        velocities: usize,
        /// Masses given.
        masses: usize,
    },
    /// A mass that is not finite and positive.
    #[error("node {node}: mass {mass} kg must be finite and > 0")]
    Mass {
        /// The node.
        node: usize,
        /// Its mass, kg.
        mass: f64,
    },
    /// A term or driver names a node the system does not have.
    #[error("{owner}: node {node} is not one of the system's {nodes} nodes")]
    NodeOutOfRange {
        /// The term or driver.
        owner: String,
        /// The node named.
        node: usize,
        /// Nodes in the system.
        nodes: usize,
    },
    /// Two drivers prescribe one degree of freedom.
    #[error("drivers `{first}` and `{second}` both prescribe component {component} of node {node}")]
    DrivenTwice {
        /// The first driver.
        first: String,
        /// The second.
        second: String,
        /// The node.
        node: usize,
        /// The component.
        component: usize,
    },
}

/// Builds a [`System`]: nodes, potentials, contact and drivers, checked by
/// [`SystemBuilder::build`].
pub struct SystemBuilder<const D: usize> {
    system: System<D>,
}

impl<const D: usize> SystemBuilder<D> {
    /// An empty system with the solver's `settings`.
    pub fn new(settings: SolverSettings) -> Self {
        SystemBuilder {
            system: System {
                x0: Vec::new(),
                v0: Vec::new(),
                mass: Vec::new(),
                potentials: Vec::new(),
                contact: None,
                drivers: Vec::new(),
                settings,
            },
        }
    }

    /// Appends nodes at `x0` (m) with velocities `v0` (m/s) and lumped masses `mass` (kg);
    /// returns their indices in the state vector (a body's terms name its nodes by these).
    pub fn add_nodes(&mut self, x0: &[Vector<D>], v0: &[Vector<D>], mass: &[f64]) -> Range<usize> {
        let start = self.system.x0.len();
        self.system.x0.extend_from_slice(x0);
        self.system.v0.extend_from_slice(v0);
        self.system.mass.extend_from_slice(mass);
        start..start + x0.len()
    }

    /// Appends nodes at `x0` (m) that a driver will hold (an obstacle made of nodes): at rest,
    /// with a unit mass that nothing uses (their degrees of freedom are eliminated from the
    /// linear system, and their inertia term is zero where they are held). The caller adds the
    /// driver ([`crate::solver::driver::LinearMotion::fixed`]); returns their indices.
    pub fn add_fixed_nodes(&mut self, x0: &[Vector<D>]) -> Range<usize> {
        let zeros = vec![Vector::<D>::zeros(); x0.len()];
        self.add_nodes(x0, &zeros, &vec![1.0; x0.len()])
    }

    /// The masses of the nodes added so far, kg.
    pub fn masses(&self) -> &[f64] {
        &self.system.mass
    }

    /// The positions at t = 0 of the nodes added so far, m (the rest shape of an elastic
    /// term over them).
    pub fn positions(&self) -> &[Vector<D>] {
        &self.system.x0
    }

    /// How many potentials were added so far (the next one's index in `System::potentials`).
    pub fn potential_count(&self) -> usize {
        self.system.potentials.len()
    }

    /// How many drivers were added so far (the next one's index in `System::drivers`).
    pub fn driver_count(&self) -> usize {
        self.system.drivers.len()
    }

    /// Adds a potential (weight h²).
    pub fn add_potential(&mut self, term: Box<dyn Energy<D>>) {
        self.system.potentials.push(term);
    }

    /// Sets the contact stage.
    pub fn set_contact(&mut self, stage: ContactStage<D>) {
        self.system.contact = Some(stage);
    }

    /// Adds a driver.
    pub fn add_driver(&mut self, driver: Box<dyn Driver<D>>) {
        self.system.drivers.push(driver);
    }

    /// The system, once every array has one entry per node, every mass is finite and positive,
    /// every term and driver names existing nodes and no degree of freedom is driven twice.
    pub fn build(self) -> Result<System<D>, SystemError> {
        let s = &self.system;
        let n = s.x0.len();
        if s.v0.len() != n || s.mass.len() != n {
            return Err(SystemError::Lengths {
                positions: n,
                velocities: s.v0.len(),
                masses: s.mass.len(),
            });
        }
        if let Some((node, &mass)) = s
            .mass
            .iter()
            .enumerate()
            .find(|(_, m)| !(m.is_finite() && **m > 0.0))
        {
            return Err(SystemError::Mass { node, mass });
        }
        let out_of_range = |owner: &str, node: usize| SystemError::NodeOutOfRange {
            owner: owner.to_string(),
            node,
            nodes: n,
        };
        for term in &s.potentials {
            let e = term.elements();
            for i in 0..e.len() {
                for j in 0..e.nodes_per_element() {
                    if e.node(i, j) >= n {
                        return Err(out_of_range(term.name(), e.node(i, j)));
                    }
                }
            }
        }
        let mut driven_by: Vec<Option<usize>> = vec![None; D * n];
        for (d, driver) in s.drivers.iter().enumerate() {
            let axes = driver.axes();
            for &node in driver.nodes() {
                if node >= n {
                    return Err(out_of_range(driver.name(), node));
                }
                for (component, &on) in axes.iter().enumerate() {
                    if !on {
                        continue;
                    }
                    if let Some(first) = driven_by[D * node + component] {
                        return Err(SystemError::DrivenTwice {
                            first: s.drivers[first].name().to_string(),
                            second: driver.name().to_string(),
                            node,
                            component,
                        });
                    }
                    driven_by[D * node + component] = Some(d);
                }
            }
        }
        Ok(self.system)
    }
}
