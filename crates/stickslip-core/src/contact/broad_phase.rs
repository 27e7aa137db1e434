//! The broad phase of the body–body pair types (SPEC.md §7: never all pairs): sort and sweep
//! over axis-aligned boxes, in D = 2 or 3.
//!
//! The boxes of two kinds of primitive (points and edges in 2D; points and triangles, or edges
//! and edges, in 3D) are sorted by their lower corner along the axis on which the boxes'
//! centres spread most, and swept: a box is tested, on every axis, only against the boxes of
//! the other kind whose extent along the sweep axis it overlaps. The cost is the sort plus the
//! overlaps along one axis, not the product of the two counts.

use crate::energy::Vector;

/// An axis-aligned box, m.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aabb<const D: usize> {
    /// Lower corner.
    pub lo: Vector<D>,
    /// Upper corner.
    pub hi: Vector<D>,
}

impl<const D: usize> Aabb<D> {
    /// The box of `points`, grown by `margin` (m) on every side.
    pub fn around(points: &[Vector<D>], margin: f64) -> Self {
        let mut lo = Vector::<D>::repeat(f64::INFINITY);
        let mut hi = Vector::<D>::repeat(f64::NEG_INFINITY);
        for p in points {
            lo = lo.inf(p);
            hi = hi.sup(p);
        }
        // A NaN coordinate makes the box everything, so the pair is listed and the step
        // invariant sees it.
        for c in 0..D {
            if lo[c].is_nan() || hi[c].is_nan() {
                lo[c] = f64::NEG_INFINITY;
                hi[c] = f64::INFINITY;
            }
        }
        Aabb {
            lo: lo.add_scalar(-margin),
            hi: hi.add_scalar(margin),
        }
    }

    /// Whether the two boxes overlap (touching counts).
    #[inline]
    pub fn overlaps(&self, other: &Aabb<D>) -> bool {
        (0..D).all(|c| self.lo[c] <= other.hi[c] && other.lo[c] <= self.hi[c])
    }
}

/// Sort and sweep, with its buffers kept between calls (no allocation once they have grown).
#[derive(Clone, Debug, Default)]
pub struct SweepAndPrune {
    /// (lower corner on the sweep axis, box): box `i < a.len()` is `a[i]`, else `b[i − a.len()]`.
    order: Vec<(f64, usize)>,
    active_a: Vec<usize>,
    active_b: Vec<usize>,
}

impl SweepAndPrune {
    /// Calls `emit(i, j)` once for every i, j with `a[i]` overlapping `b[j]`, in no particular
    /// order.
    pub fn overlaps<const D: usize>(
        &mut self,
        a: &[Aabb<D>],
        b: &[Aabb<D>],
        mut emit: impl FnMut(usize, usize),
    ) {
        if a.is_empty() || b.is_empty() {
            return;
        }
        let axis = Self::axis(a, b);
        self.order.clear();
        self.order.extend(
            a.iter()
                .chain(b)
                .enumerate()
                .map(|(i, bx)| (bx.lo[axis], i)),
        );
        self.order.sort_unstable_by(|x, y| x.0.total_cmp(&y.0));
        self.active_a.clear();
        self.active_b.clear();
        let na = a.len();
        for &(lo, i) in &self.order {
            // Boxes that end before this one starts can overlap nothing later.
            self.active_a.retain(|&k| a[k].hi[axis] >= lo);
            self.active_b.retain(|&k| b[k].hi[axis] >= lo);
            if i < na {
                for &j in &self.active_b {
                    if a[i].overlaps(&b[j]) {
                        emit(i, j);
                    }
                }
                self.active_a.push(i);
            } else {
                let j = i - na;
                for &k in &self.active_a {
                    if a[k].overlaps(&b[j]) {
                        emit(k, j);
                    }
                }
                self.active_b.push(j);
            }
        }
    }

    /// The axis on which the boxes' centres spread most.
    fn axis<const D: usize>(a: &[Aabb<D>], b: &[Aabb<D>]) -> usize {
        let mut lo = Vector::<D>::repeat(f64::INFINITY);
        let mut hi = Vector::<D>::repeat(f64::NEG_INFINITY);
        for bx in a.iter().chain(b) {
            let c = (bx.lo + bx.hi) * 0.5;
            if c.iter().all(|v| v.is_finite()) {
                lo = lo.inf(&c);
                hi = hi.sup(&c);
            }
        }
        (0..D)
            .max_by(|&i, &j| (hi[i] - lo[i]).total_cmp(&(hi[j] - lo[j])))
            .unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::Vector3;

    /// The sweep lists exactly the overlapping pairs that testing every pair finds, for random
    /// boxes in 3D (the test's own all-pairs loop is the reference).
    #[test]
    fn the_sweep_finds_every_overlap_and_no_other() {
        let mut s = 17u64;
        let mut next = || {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (s >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut boxes = |n: usize, size: f64| -> Vec<Aabb<3>> {
            (0..n)
                .map(|_| {
                    let c = Vector3::new(next(), next() * 0.3, next());
                    Aabb::around(&[c], size * next())
                })
                .collect()
        };
        let (a, b) = (boxes(300, 0.05), boxes(200, 0.08));
        let mut sap = SweepAndPrune::default();
        let mut found = Vec::new();
        sap.overlaps(&a, &b, |i, j| found.push((i, j)));
        found.sort_unstable();
        let mut all = Vec::new();
        for (i, x) in a.iter().enumerate() {
            for (j, y) in b.iter().enumerate() {
                let overlap = (0..3).all(|c| x.lo[c] <= y.hi[c] && y.lo[c] <= x.hi[c]);
                if overlap {
                    all.push((i, j));
                }
            }
        }
        assert!(
            all.len() > 50,
            "the boxes must overlap somewhere ({})",
            all.len()
        );
        assert_eq!(found, all);
    }
}
