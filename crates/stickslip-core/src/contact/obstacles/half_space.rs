//! A half-space n·(x − o) ≥ 0 with an optional surface velocity (SPEC.md §1, §7): the book's
//! slope, a floor, a conveyor belt (friction sees the relative velocity v − v_s).

use crate::energy::Vector;

/// The half-space n·(x − o) ≥ 0.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HalfSpace<const D: usize> {
    /// Unit outward normal n.
    pub normal: Vector<D>,
    /// A point o on its boundary, m.
    pub point: Vector<D>,
    /// The velocity of its surface v_s (tangential; zero for a fixed slope), m/s.
    pub velocity: Vector<D>,
}

impl<const D: usize> HalfSpace<D> {
    /// A fixed half-space of unit normal `normal` through `point`.
    pub fn new(normal: Vector<D>, point: Vector<D>) -> Self {
        HalfSpace {
            normal,
            point,
            velocity: Vector::<D>::zeros(),
        }
    }

    /// Signed distance of `x` to the boundary, m (positive outside, in the free region).
    #[inline]
    pub fn distance(&self, x: &Vector<D>) -> f64 {
        self.normal.dot(&(x - self.point))
    }
}
