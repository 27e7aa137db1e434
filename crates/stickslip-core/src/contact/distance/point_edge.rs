//! The distance from a point p to a segment [e₀, e₁] (SPEC.md §7, point–edge), in D = 2 or 3,
//! with its gradient and Hessian over (p, e₀, e₁).
//!
//! With q = p − e₀, e = e₁ − e₀ and t = q·e / e·e, the closest point of the segment is e₀ for
//! t ≤ 0, e₁ for t ≥ 1 and e₀ + t e in between, and d² = ‖r‖² with r = p − (closest point).
//! d² is C¹ across the three regions (its gradient is 2r ∂r/∂x in each), so d is C¹ wherever
//! it is positive; its Hessian jumps across the region boundaries, as ipc-toolkit's does.
//!
//! On the segment's interior, with L = e·e (derivation in docs/contact.md):
//! ∂d²/∂q = 2r, ∂d²/∂e = −2t r, and
//! ∂²d²/∂q² = 2(I − e eᵀ/L), ∂²d²/∂q∂e = −(2/L) e (r − t e)ᵀ − 2t I,
//! ∂²d²/∂e² = −(2/L)(r − t e)(r − t e)ᵀ + 2t² I,
//! carried to (p, e₀, e₁) by q = p − e₀, e = e₁ − e₀. At an end v (p − v = r): ∂d²/∂p = 2r,
//! ∂d²/∂v = −2r, and the Hessian 2[[I, −I], [−I, I]]. Then ∇d = ∇d²/(2d) and
//! ∇²d = (∇²d² − 2 ∇d ∇dᵀ)/(2d).

use nalgebra::SMatrix;

use crate::energy::Vector;

/// Where on the segment the closest point lies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Region {
    /// At e₀ (t ≤ 0).
    Start,
    /// Inside (0 < t < 1).
    Interior,
    /// At e₁ (t ≥ 1).
    End,
}

/// The closest point of [e₀, e₁] to p: its parameter t ∈ [0, 1] (the closest point is
/// e₀ + t (e₁ − e₀)) and its region.
#[inline]
pub fn closest<const D: usize>(p: &Vector<D>, e0: &Vector<D>, e1: &Vector<D>) -> (f64, Region) {
    let e = e1 - e0;
    let l = e.norm_squared();
    let t = if l > 0.0 { (p - e0).dot(&e) / l } else { 0.0 };
    if t <= 0.0 {
        (0.0, Region::Start)
    } else if t >= 1.0 {
        (1.0, Region::End)
    } else {
        (t, Region::Interior)
    }
}

/// r = p − (closest point), m, and the closest point's parameter t and region.
#[inline]
pub fn offset<const D: usize>(
    p: &Vector<D>,
    e0: &Vector<D>,
    e1: &Vector<D>,
) -> (Vector<D>, f64, Region) {
    let (t, region) = closest(p, e0, e1);
    let r = match region {
        Region::Start => p - e0,
        Region::End => p - e1,
        Region::Interior => (p - e0) - (e1 - e0) * t,
    };
    (r, t, region)
}

/// d, m.
#[inline]
pub fn distance<const D: usize>(p: &Vector<D>, e0: &Vector<D>, e1: &Vector<D>) -> f64 {
    offset(p, e0, e1).0.norm()
}

/// ∂d/∂(p, e₀, e₁): n, −(1 − t) n, −t n with n = r/d the unit normal from the segment to the
/// point (dimensionless); d must be positive.
#[inline]
pub fn gradient<const D: usize>(p: &Vector<D>, e0: &Vector<D>, e1: &Vector<D>) -> [Vector<D>; 3] {
    let (r, t, _) = offset(p, e0, e1);
    let n = r / r.norm();
    [n, -n * (1.0 - t), -n * t]
}

/// ∂²d/∂(p, e₀, e₁)², 3D × 3D entries column-major into `out[..9 D²]`, 1/m; d must be
/// positive.
pub fn hessian<const D: usize>(p: &Vector<D>, e0: &Vector<D>, e1: &Vector<D>, out: &mut [f64]) {
    let (r, t, region) = offset(p, e0, e1);
    let d = r.norm();
    let n = 3 * D;
    let out = &mut out[..n * n];
    out.fill(0.0);
    // The Hessian of d² into `out`, node blocks (a, b).
    let mut put = |a: usize, b: usize, m: &SMatrix<f64, D, D>| {
        for c in 0..D {
            for rr in 0..D {
                out[n * (D * b + c) + D * a + rr] += m[(rr, c)];
            }
        }
    };
    let id = SMatrix::<f64, D, D>::identity();
    match region {
        Region::Start | Region::End => {
            let v = if region == Region::Start { 1 } else { 2 };
            let two = id * 2.0;
            put(0, 0, &two);
            put(v, v, &two);
            put(0, v, &(-two));
            put(v, 0, &(-two));
        }
        Region::Interior => {
            let e = e1 - e0;
            let l = e.norm_squared();
            let s = r - e * t;
            let hqq = (id - e * e.transpose() / l) * 2.0;
            let hqe = -(e * s.transpose()) * (2.0 / l) - id * (2.0 * t);
            let hee = -(s * s.transpose()) * (2.0 / l) + id * (2.0 * t * t);
            let heq = hqe.transpose();
            // q = p − e₀, e = e₁ − e₀.
            put(0, 0, &hqq);
            put(0, 1, &(-hqq - hqe));
            put(0, 2, &hqe);
            put(1, 0, &(-hqq - heq));
            put(1, 1, &(hqq + hqe + heq + hee));
            put(1, 2, &(-hqe - hee));
            put(2, 0, &heq);
            put(2, 1, &(-heq - hee));
            put(2, 2, &hee);
        }
    }
    // ∇²d = (∇²d² − 2 ∇d ∇dᵀ)/(2d), ∇d = (n, −(1 − t) n, −t n).
    let g = [1.0, -(1.0 - t), -t];
    let u = r / d;
    for bc in 0..n {
        for br in 0..n {
            let grad_r = g[br / D] * u[br % D];
            let grad_c = g[bc / D] * u[bc % D];
            out[n * bc + br] = (out[n * bc + br] - 2.0 * grad_r * grad_c) / (2.0 * d);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{Vector2, Vector3};

    /// The closest point by brute force over a fine sampling of the segment agrees with
    /// [`distance`], in each region, in 2D and 3D.
    #[test]
    fn distance_is_the_nearest_sample_of_the_segment() {
        let e0 = Vector3::new(0.1, -0.2, 0.3);
        let e1 = Vector3::new(1.1, 0.4, -0.2);
        for p in [
            Vector3::new(-0.5, 0.0, 0.1),
            Vector3::new(0.6, 0.7, 0.2),
            Vector3::new(2.0, 0.1, -0.3),
        ] {
            let sampled = (0..=100_000)
                .map(|k| (p - (e0 + (e1 - e0) * (k as f64 / 1e5))).norm())
                .fold(f64::INFINITY, f64::min);
            let d = distance(&p, &e0, &e1);
            assert!(d <= sampled && sampled - d < 1e-10, "{d} vs {sampled}");
        }
        let d = distance(
            &Vector2::new(0.5, 0.3),
            &Vector2::new(0.0, 0.0),
            &Vector2::new(1.0, 0.0),
        );
        assert!((d - 0.3).abs() < 1e-15);
    }
}
