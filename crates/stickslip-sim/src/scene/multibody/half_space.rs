//! A half-space obstacle's keys, read alike in 2D and 3D (SPEC.md §7 obstacles): a unit
//! `normal` (or an incline's `angle_deg`, its normal (sin θ, cos θ) in 2D and (sin θ, 0, cos θ)
//! in 3D: descending towards +x), a `point` on its surface and a tangential surface
//! `velocity` (a belt's; default zero).

use crate::contact::HalfSpace;
use crate::energy::Vector;
use crate::scene::case_file::{CaseError, Validator};

/// A half-space section's keys, as the case file gives them.
pub(crate) struct HalfSpaceKeys<const D: usize> {
    /// `normal`: the outward normal (any length > 0).
    pub normal: Option<[f64; D]>,
    /// `angle_deg`: an incline's angle, degrees in [0, 90).
    pub angle_deg: Option<f64>,
    /// `point`: a point on the surface, m.
    pub point: Option<[f64; D]>,
    /// `velocity`: the surface's own velocity along itself, m/s.
    pub velocity: Option<[f64; D]>,
}

impl Validator<'_> {
    /// The half-space `obstacles.NAME` of keys `keys`, each checked by its rule.
    pub(crate) fn half_space_keys<const D: usize>(
        &self,
        name: &str,
        keys: HalfSpaceKeys<D>,
    ) -> Result<HalfSpace<D>, CaseError> {
        let key = |k: &str| format!("obstacles.{name}.{k}");
        let normal = match (keys.normal, keys.angle_deg) {
            (Some(n), None) => {
                self.finite_n(&key("normal"), n)?;
                let n = Vector::<D>::from(n);
                let norm = n.norm();
                if !(norm > 0.0 && norm.is_finite()) {
                    return Err(self.invalid(
                        &key("normal"),
                        "must be a non-zero vector",
                        format!("{n:?}"),
                    ));
                }
                n / norm
            }
            (None, Some(deg)) => {
                if !(deg.is_finite() && (0.0..90.0).contains(&deg)) {
                    return Err(self.invalid(&key("angle_deg"), "must be in [0, 90) degrees", deg));
                }
                let t = deg.to_radians();
                let mut n = Vector::<D>::zeros();
                n[0] = t.sin();
                n[D - 1] = t.cos();
                n
            }
            (Some(_), Some(_)) => {
                return Err(self.invalid(
                    &key("angle_deg"),
                    "state exactly one of normal and angle_deg",
                    "both",
                ));
            }
            (None, None) => {
                return Err(self.invalid(
                    &key("normal"),
                    "missing: state normal or angle_deg",
                    "nothing",
                ));
            }
        };
        let point = keys
            .point
            .ok_or_else(|| self.invalid(&key("point"), "missing", "nothing"))?;
        self.finite_n(&key("point"), point)?;
        let velocity = keys.velocity.unwrap_or([0.0; D]);
        self.finite_n(&key("velocity"), velocity)?;
        let velocity = Vector::<D>::from(velocity);
        if velocity.dot(&normal).abs() > 1e-12 * velocity.norm() {
            return Err(self.invalid(
                &key("velocity"),
                "a surface's velocity must be along the surface (normal to its normal)",
                format!("{:?}", velocity.as_slice()),
            ));
        }
        Ok(HalfSpace {
            normal,
            point: Vector::<D>::from(point),
            velocity,
        })
    }
}
