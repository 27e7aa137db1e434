//! The Lie group SE(3) and its algebra se(3) (SPEC.md §5): hat maps, the exponential with a
//! Taylor branch for small rotation angles, the adjoint of a twist, and the rotation logarithm
//! used to measure the distance between two orientations.
//!
//! Twists are ordered (ω, v), angular first (Modern Robotics' convention), rad/s and m/s.

use nalgebra::{Matrix3, Matrix6, Vector3, Vector6};

/// Below this rotation angle θ (rad) the coefficients of the exponential are evaluated by their
/// Taylor series (through θ⁶). At θ = 1e-2 the first omitted term is θ⁸/9! ≈ 3e-22, far under
/// rounding, while the closed forms there already lose digits to cancellation (1 − cos θ and
/// θ − sin θ carry a relative error ~ ε/θ² ≈ 2e-12).
pub const TAYLOR_THETA: f64 = 1e-2;

/// The skew matrix \[x\]ₓ with \[x\]ₓ y = x × y.
#[inline]
pub fn hat(x: &Vector3<f64>) -> Matrix3<f64> {
    Matrix3::new(0.0, -x.z, x.y, x.z, 0.0, -x.x, -x.y, x.x, 0.0)
}

/// The coefficients (sin θ/θ, (1 − cos θ)/θ², (θ − sin θ)/θ³) of Rodrigues' formula and of the
/// left Jacobian V, with Taylor series below [`TAYLOR_THETA`].
#[inline]
pub fn exp_coefficients(theta: f64) -> (f64, f64, f64) {
    if theta < TAYLOR_THETA {
        let t2 = theta * theta;
        (
            1.0 - t2 / 6.0 * (1.0 - t2 / 20.0 * (1.0 - t2 / 42.0)),
            0.5 - t2 / 24.0 * (1.0 - t2 / 30.0 * (1.0 - t2 / 56.0)),
            1.0 / 6.0 - t2 / 120.0 * (1.0 - t2 / 42.0 * (1.0 - t2 / 72.0)),
        )
    } else {
        let (s, c) = theta.sin_cos();
        (
            s / theta,
            (1.0 - c) / (theta * theta),
            (theta - s) / (theta * theta * theta),
        )
    }
}

/// exp of the rotation vector ω (rad): R = I + (sin θ/θ) ω̂ + ((1 − cos θ)/θ²) ω̂², θ = ‖ω‖.
#[inline]
pub fn exp_so3(omega: &Vector3<f64>) -> Matrix3<f64> {
    let (a, b, _) = exp_coefficients(omega.norm());
    let w = hat(omega);
    Matrix3::identity() + w * a + w * w * b
}

/// exp of the twist (ω, v) (rad, m): the rotation and translation (R, V v) of SPEC.md §5, with
/// V = I + ((1 − cos θ)/θ²) ω̂ + ((θ − sin θ)/θ³) ω̂².
#[inline]
pub fn exp_se3(omega: &Vector3<f64>, v: &Vector3<f64>) -> (Matrix3<f64>, Vector3<f64>) {
    let (a, b, c) = exp_coefficients(omega.norm());
    let w = hat(omega);
    let w2 = w * w;
    let r = Matrix3::identity() + w * a + w2 * b;
    let jac = Matrix3::identity() + w * b + w2 * c;
    (r, jac * v)
}

/// exp of the twist (ω, v) (rad, m) less the identity: (R − I, V v), for composing many small
/// motions without rounding at the scale of I (see [`crate::rigid::body::Pose::times_exps`]).
#[inline]
pub fn exp_se3_delta(omega: &Vector3<f64>, v: &Vector3<f64>) -> (Matrix3<f64>, Vector3<f64>) {
    let (a, b, c) = exp_coefficients(omega.norm());
    let w = hat(omega);
    let w2 = w * w;
    let jac = Matrix3::identity() + w * b + w2 * c;
    (w * a + w2 * b, jac * v)
}

/// The adjoint \[ad_𝒱\] = [[ω̂, 0], [v̂, ω̂]] of a twist 𝒱 = (ω, v).
pub fn ad(twist: &Vector6<f64>) -> Matrix6<f64> {
    let w = hat(&twist.fixed_rows::<3>(0).into_owned());
    let v = hat(&twist.fixed_rows::<3>(3).into_owned());
    let mut m = Matrix6::zeros();
    m.fixed_view_mut::<3, 3>(0, 0).copy_from(&w);
    m.fixed_view_mut::<3, 3>(3, 0).copy_from(&v);
    m.fixed_view_mut::<3, 3>(3, 3).copy_from(&w);
    m
}

/// The rotation vector of R (rad), log: SO(3) → so(3), for θ ∈ [0, π]; ‖log R‖ is the angle
/// between R and the identity. Accurate near θ = 0 (used for R_aᵀR_b with a ≈ b), where it
/// reads the skew part, and near π, where it reads the symmetric part.
pub fn log_so3(r: &Matrix3<f64>) -> Vector3<f64> {
    let skew = Vector3::new(
        r[(2, 1)] - r[(1, 2)],
        r[(0, 2)] - r[(2, 0)],
        r[(1, 0)] - r[(0, 1)],
    );
    let cos = ((r.trace() - 1.0) / 2.0).clamp(-1.0, 1.0);
    let sin = skew.norm() / 2.0;
    let theta = sin.atan2(cos);
    if theta < 1e-8 {
        // θ/sin θ = 1 + O(θ²) ≈ 1 to 1e-16.
        return skew / 2.0;
    }
    if theta < std::f64::consts::PI - 1e-6 {
        return skew * (theta / (2.0 * sin));
    }
    // Near π: R ≈ 2 a aᵀ − I; take the largest column of (R + I)/2.
    let s = (r + Matrix3::identity()) / 2.0;
    let k = (0..3)
        .max_by(|&i, &j| s[(i, i)].total_cmp(&s[(j, j)]))
        .unwrap_or(0);
    let mut axis = s.column(k).into_owned();
    axis /= axis.norm();
    if axis.dot(&skew) < 0.0 {
        axis = -axis;
    }
    axis * theta
}

/// ‖RᵀR − I‖_max: how far R is from orthonormal.
pub fn orthonormality_error(r: &Matrix3<f64>) -> f64 {
    (r.transpose() * r - Matrix3::identity()).amax()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn taylor_branch_meets_closed_form() {
        // Either side of the switch the two forms agree to the closed forms' cancellation error
        // at θ = 1e-2: ~ε/θ² ≈ 2e-12 relative for (1 − cos θ)/θ² and (θ − sin θ)/θ³, ~ε for
        // sin θ/θ; bounds with a factor ~10 of room.
        let (a0, b0, c0) = exp_coefficients(TAYLOR_THETA * (1.0 - 1e-13));
        let (a1, b1, c1) = exp_coefficients(TAYLOR_THETA * (1.0 + 1e-13));
        assert!((a0 - a1).abs() < 1e-15);
        assert!((b0 - b1).abs() < 1e-11);
        assert!((c0 - c1).abs() < 1e-10);
    }

    #[test]
    fn exp_is_a_rotation_and_log_inverts_it() {
        for w in [
            Vector3::new(0.3, -1.2, 0.7),
            Vector3::new(1e-7, 2e-7, -1e-7),
            Vector3::new(0.0, 0.0, 3.0),
        ] {
            let r = exp_so3(&w);
            assert!(orthonormality_error(&r) < 1e-15);
            assert!((r.determinant() - 1.0).abs() < 1e-15);
            assert!((log_so3(&r) - w).norm() < 1e-14 * (1.0 + w.norm()));
        }
    }

    #[test]
    fn se3_translation_matches_the_series() {
        // V v = Σ ω̂ᵏ v /(k+1)!, summed to 30 terms.
        let w = Vector3::new(0.4, 0.9, -0.2);
        let v = Vector3::new(1.0, -2.0, 0.5);
        let (_, t) = exp_se3(&w, &v);
        let (mut term, mut sum) = (v, v);
        for k in 1..30 {
            term = hat(&w) * term / (k as f64 + 1.0);
            sum += term;
        }
        assert!((t - sum).norm() < 1e-14);
    }
}
