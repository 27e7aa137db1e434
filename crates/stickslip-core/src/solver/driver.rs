//! Drivers: prescribed motions of degrees of freedom (SPEC.md §7; the book's lecture 5 moving
//! boundary). At the start of every step the solver sets each driven degree of freedom to its
//! position at the step's end time, x_D(t + h), and eliminates it from the linear system; the
//! Newton step moves only the free ones. One file per driver type; today the motion at a
//! constant velocity ([`LinearMotion`], which with zero velocity fixes nodes in place).

use crate::energy::Vector;

/// A prescribed motion of some components of some nodes.
pub trait Driver<const D: usize>: Send + Sync {
    /// A name for messages and outputs.
    fn name(&self) -> &str;

    /// The nodes it moves.
    fn nodes(&self) -> &[usize];

    /// Which of a node's D components it prescribes (the others stay free).
    fn axes(&self) -> [bool; D];

    /// The prescribed position of its `i`-th node at time `time` (s), m (only the components
    /// of [`Driver::axes`] are used).
    fn position(&self, i: usize, time: f64) -> Vector<D>;

    /// This driver as [`std::any::Any`], for a caller that changes it between steps
    /// (`Simulation::driver_mut`); None unless the driver offers it.
    fn as_any_mut(&mut self) -> Option<&mut dyn std::any::Any> {
        None
    }
}

/// Nodes moved at a constant velocity from where they start: x(t) = x(0) + v t.
#[derive(Clone, Debug, PartialEq)]
pub struct LinearMotion<const D: usize> {
    name: String,
    nodes: Vec<usize>,
    start: Vec<Vector<D>>,
    velocity: Vector<D>,
    axes: [bool; D],
}

impl<const D: usize> LinearMotion<D> {
    /// `nodes`, starting at `start` (m, one per node), moved at `velocity` (m/s) along the
    /// components `axes`.
    pub fn new(
        name: impl Into<String>,
        nodes: Vec<usize>,
        start: Vec<Vector<D>>,
        velocity: Vector<D>,
        axes: [bool; D],
    ) -> Self {
        assert_eq!(nodes.len(), start.len(), "one start position per node");
        LinearMotion {
            name: name.into(),
            nodes,
            start,
            velocity,
            axes,
        }
    }

    /// The velocity, m/s.
    pub fn velocity(&self) -> Vector<D> {
        self.velocity
    }

    /// Moves the nodes at `velocity` (m/s) from `time` (s) on, from where they are then:
    /// x(t) = x(`time`) + `velocity` (t − `time`), written x₀' + v t.
    pub fn set_velocity(&mut self, velocity: Vector<D>, time: f64) {
        for s in &mut self.start {
            *s = *s + self.velocity * time - velocity * time;
        }
        self.velocity = velocity;
    }

    /// `nodes` held at `start` (m) in every component.
    pub fn fixed(name: impl Into<String>, nodes: Vec<usize>, start: Vec<Vector<D>>) -> Self {
        Self::new(name, nodes, start, Vector::<D>::zeros(), [true; D])
    }
}

impl<const D: usize> Driver<D> for LinearMotion<D> {
    fn name(&self) -> &str {
        &self.name
    }

    fn nodes(&self) -> &[usize] {
        &self.nodes
    }

    fn axes(&self) -> [bool; D] {
        self.axes
    }

    fn position(&self, i: usize, time: f64) -> Vector<D> {
        self.start[i] + self.velocity * time
    }

    fn as_any_mut(&mut self) -> Option<&mut dyn std::any::Any> {
        Some(self)
    }
}
