//! The ellipsoid's lowest point and the signed distance to the ground (SPEC.md §5, impact
//! kinematics).
//!
//! The ellipsoid is (q − p)ᵀ A (q − p) = 1 with A = R D Rᵀ, D = diag(1/a², 1/b², 1/c²). Its point
//! furthest along −n̂ is c = p − A⁻¹n̂ / √(n̂ᵀA⁻¹n̂), with A⁻¹ = R diag(a², b², c²) Rᵀ.

use nalgebra::Vector3;

use crate::rigid::body::Pose;

/// A plane through `point` (m) with unit normal `normal` pointing to the free side.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ground {
    /// A point of the plane, m, world.
    pub point: Vector3<f64>,
    /// Unit normal, out of the ground.
    pub normal: Vector3<f64>,
}

/// An ellipsoid with semi-axes (a, b, c) (m) along the body's x, y and z axes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ellipsoid {
    /// Semi-axes (a, b, c), m.
    pub semi_axes: Vector3<f64>,
}

impl Ellipsoid {
    /// The point of the ellipsoid at `pose` furthest along −`normal` (unit), m, world:
    /// c = p − A⁻¹n̂ / √(n̂ᵀA⁻¹n̂). Evaluated in the body frame: with m = Rᵀn̂ and
    /// s = diag(a², b², c²) m, c = p − R s / √(mᵀs).
    #[inline]
    pub fn lowest_point(&self, pose: &Pose, normal: &Vector3<f64>) -> Vector3<f64> {
        let m = pose.r.transpose() * normal;
        let s = self
            .semi_axes
            .component_mul(&self.semi_axes)
            .component_mul(&m);
        pose.p - pose.r * s / m.dot(&s).sqrt()
    }

    /// The event function h(T) = n̂·(c − p₀), m: the signed distance of the lowest point to the
    /// ground (> 0 above it).
    #[inline]
    pub fn signed_distance(&self, pose: &Pose, ground: &Ground) -> f64 {
        ground
            .normal
            .dot(&(self.lowest_point(pose, &ground.normal) - ground.point))
    }
}
