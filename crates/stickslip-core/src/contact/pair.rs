//! The one shape of every contact pair type (SPEC.md §7): a primitive of a body against a
//! primitive of another body or of an obstacle.
//!
//! A pair has a *stencil*, the nodes of the state vector its distance depends on (one for a
//! node against a half-space; three for point–edge; four for point–triangle and edge–edge), a
//! distance d(x) with its gradient and Hessian over the stencil, the frame friction is lagged
//! in (the tangent basis T, D × (D − 1), and the weights of the closest points), and a CCD
//! bound for the line search. The barrier, friction and the stage are written once over this
//! trait (`contact::potentials`, `contact::pair_set`): a new pair type is one file in
//! `contact/candidates/` implementing it, with its broad phase.

use nalgebra::SMatrix;

use crate::energy::Vector;

/// The most nodes a stencil has (point–triangle and edge–edge in 3D).
pub const MAX_STENCIL: usize = 4;

/// The entries of a mollifier's Hessian buffer: (3 · MAX_STENCIL)².
pub(crate) const MOLLIFIER_HESSIAN: usize = (3 * MAX_STENCIL) * (3 * MAX_STENCIL);

/// A contact's tangent basis T (SPEC.md §7): D × (D − 1) orthonormal columns spanning the
/// tangent plane at the closest points, stored as D × 2 with the second column zero in 2D, so
/// that the tangential velocity u = Tᵀ v_rel is a 2-vector in both dimensions (its second
/// component exactly zero in 2D).
pub type TangentBasis<const D: usize> = SMatrix<f64, D, 2>;

/// What friction keeps of a pair, lagged at xⁿ (SPEC.md §7): the relative velocity of the two
/// closest points is v_rel = Σⱼ βⱼ vⱼ − v_s over the stencil's nodes, and friction acts on its
/// tangential part u = Tᵀ v_rel.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TangentFrame<const D: usize> {
    /// The tangent basis T.
    pub basis: TangentBasis<D>,
    /// The unit normal at the closest points, pointing from the other side towards the
    /// stencil's first primitive (for a node against a half-space, the half-space's normal).
    pub normal: Vector<D>,
    /// βⱼ, the barycentric weight of stencil node j in the relative velocity (the first
    /// [`ContactPair::NODES`] are used; dimensionless, signed).
    pub weights: [f64; MAX_STENCIL],
    /// v_s, the velocity of a moving obstacle's surface (a belt), m/s; zero between bodies.
    pub surface_velocity: Vector<D>,
}

/// A contact pair type in dimension D.
pub trait ContactPair<const D: usize>: Copy + Send + Sync + 'static {
    /// The pair type's name, for outputs (`contacts.csv`).
    const NAME: &'static str;
    /// Nodes in the stencil.
    const NODES: usize;
    /// Whether the distance is linear in x (its Hessian is zero): the barrier's block is then
    /// b″ ∇d ∇dᵀ, PSD as it is; otherwise b′ ∇²d is added and the block projected to PSD.
    const LINEAR: bool;

    /// The stencil's nodes (the first [`ContactPair::NODES`] are used).
    fn nodes(&self) -> [usize; MAX_STENCIL];

    /// A key that orders the pairs of one type and identifies a pair between two lists (the
    /// candidates are listed in its order).
    fn key(&self) -> u64;

    /// The barrier's weight of the pair: its contact area A, m^(D−1).
    fn area(&self) -> f64;

    /// The two bodies or obstacles the pair is between, as the friction table numbers them.
    fn bodies(&self) -> (usize, usize);

    /// The distance d at `x`, m (signed for a half-space, unsigned between bodies).
    fn distance(&self, x: &[Vector<D>]) -> f64;

    /// ∂d/∂x of every stencil node into `out[..NODES]`, dimensionless.
    fn distance_gradient(&self, x: &[Vector<D>], out: &mut [Vector<D>; MAX_STENCIL]);

    /// ∂²d/∂x² over the stencil, (D·NODES)² entries column-major into `out`, 1/m (never called
    /// when [`ContactPair::LINEAR`]).
    fn distance_hessian(&self, x: &[Vector<D>], out: &mut [f64]);

    /// Whether the barrier is multiplied by a mollifier m(x) that fades the pair out where its
    /// distance's derivatives are not defined (edge–edge as the edges turn parallel, SPEC.md
    /// §7): the pair's energy is then m A b(d).
    const MOLLIFIED: bool = false;

    /// The mollifier m at `x`, dimensionless, with ∂m/∂x into `grad` (1/m) and ∂²m/∂x² into
    /// `hess` ((D·NODES)² entries column-major, 1/m²); called only when
    /// [`ContactPair::MOLLIFIED`].
    fn mollifier(
        &self,
        _x: &[Vector<D>],
        _grad: &mut [Vector<D>; MAX_STENCIL],
        _hess: &mut [f64],
    ) -> f64 {
        1.0
    }

    /// The tangent frame at `x` (called at xⁿ, where friction is lagged).
    fn frame(&self, x: &[Vector<D>]) -> TangentFrame<D>;

    /// The step filter of this pair: the largest α ≤ 1 with which, moving from `x` along `p`,
    /// the pair covers at most `fraction` of its distance (a conservative CCD, SPEC.md §2 and
    /// §7), so that no α in [0, the bound] brings it to zero distance.
    fn max_step(&self, x: &[Vector<D>], p: &[Vector<D>], fraction: f64) -> f64;
}

/// An orthonormal tangent basis of the plane normal to the unit vector `n` (SPEC.md §7): in 2D
/// the single column (n_y, −n_x) (the normal turned clockwise, the slope's downhill direction
/// for a slope descending towards +x) and a zero column; in 3D two unit columns orthogonal to n
/// and to each other, the first in the plane of n and the coordinate axis least aligned with it.
pub fn tangent_basis<const D: usize>(n: &Vector<D>) -> TangentBasis<D> {
    let mut t = TangentBasis::<D>::zeros();
    match D {
        2 => {
            t[(0, 0)] = n[1];
            t[(1, 0)] = -n[0];
        }
        3 => {
            // The axis least aligned with n, made orthogonal to it.
            let axis = (0..3)
                .min_by(|&a, &b| n[a].abs().total_cmp(&n[b].abs()))
                .unwrap_or(0);
            let mut e = Vector::<D>::zeros();
            e[axis] = 1.0;
            let t1 = (e - n * n[axis]).normalize();
            // t2 = n × t1.
            let t2 = [
                n[1] * t1[2] - n[2] * t1[1],
                n[2] * t1[0] - n[0] * t1[2],
                n[0] * t1[1] - n[1] * t1[0],
            ];
            for i in 0..3 {
                t[(i, 0)] = t1[i];
                t[(i, 1)] = t2[i];
            }
        }
        _ => panic!("contact is defined in 2 and 3 dimensions, not {D}"),
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The basis is orthonormal and orthogonal to n, for normals in every direction (checked
    /// by dot products written out here, not by the construction).
    fn check<const D: usize>(n: Vector<D>) {
        let n = n.normalize();
        let t = tangent_basis(&n);
        let columns = if D == 2 { 1 } else { 2 };
        for a in 0..columns {
            let ta = t.column(a);
            assert!((ta.dot(&ta) - 1.0).abs() < 1e-15, "{n:?}");
            assert!(ta.dot(&n).abs() < 1e-15, "{n:?}");
            for b in a + 1..columns {
                assert!(ta.dot(&t.column(b)).abs() < 1e-15, "{n:?}");
            }
        }
        if D == 2 {
            assert_eq!(t.column(1).amax(), 0.0);
        }
    }

    #[test]
    fn tangent_bases_are_orthonormal_and_tangent() {
        for k in 0..40 {
            let a = 0.31 * k as f64;
            check(nalgebra::Vector2::new(a.cos(), a.sin()));
            check(nalgebra::Vector3::new(
                a.cos() * (0.7 * a).sin(),
                a.sin(),
                (0.7 * a).cos(),
            ));
        }
        check(nalgebra::Vector3::new(0.0, 0.0, 1.0));
        check(nalgebra::Vector3::new(1.0, 0.0, 0.0));
    }
}
