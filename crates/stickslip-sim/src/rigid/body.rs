//! The rigid body and its left-trivialised equations of motion (SPEC.md §5; Modern Robotics
//! eq. 8.42):
//!
//! ```text
//! Ṫ = T 𝒱̂,   𝒢 𝒱̇ = [ad_𝒱]ᵀ 𝒢 𝒱 + ℱ,   i.e.  I ω̇ = (Iω) × ω + τ,  m v̇ = m v × ω + f
//! ```
//!
//! with the body twist 𝒱 = (ω, v) in the body frame {b} (rad/s, m/s), 𝒢 = diag(I₁, I₂, I₃, m, m, m)
//! in principal axes, and gravity acting at the centre of mass: ℱ = (0, Rᵀ m g_w).

use nalgebra::{Matrix3, Vector3, Vector6};

use crate::rigid::se3;

/// A pose T = (R, p) ∈ SE(3): the body frame's orientation R (body → world) and the centre of
/// mass p (m, world).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose {
    /// Orientation, body → world.
    pub r: Matrix3<f64>,
    /// Centre of mass, m, world frame.
    pub p: Vector3<f64>,
}

impl Pose {
    /// T · exp(𝒱̂₁) ⋯ exp(𝒱̂ₖ) for twist increments 𝒱ᵢ = (ω, v) (rad, m) in the body frame.
    ///
    /// The product of the increments is formed as ΔR − I and Δp (small quantities, rounded at
    /// their own scale) and applied once, R + R(ΔR − I): a step rounds at the scale of R once
    /// instead of once per factor, which keeps R orthonormal over 10⁵ steps to ~1e-13
    /// (SPEC.md §5 asks for rounding level).
    #[inline]
    pub fn times_exps(&self, increments: impl IntoIterator<Item = Vector6<f64>>) -> Pose {
        let mut d = Matrix3::zeros();
        let mut t = Vector3::zeros();
        for inc in increments {
            let (di, ti) = se3::exp_se3_delta(
                &inc.fixed_rows::<3>(0).into_owned(),
                &inc.fixed_rows::<3>(3).into_owned(),
            );
            // (I + d, t) · (I + dᵢ, tᵢ) = (I + d + dᵢ + d dᵢ, t + tᵢ + d tᵢ)
            t += ti + d * ti;
            d += di + d * di;
        }
        Pose {
            r: self.r + self.r * d,
            p: self.p + self.r * t,
        }
    }
}

/// The state of the body: pose and body twist (ω, v) (rad/s, m/s, both in {b}).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct State {
    /// Pose T = (R, p).
    pub pose: Pose,
    /// Body twist (ω, v).
    pub twist: Vector6<f64>,
}

impl State {
    /// Body angular velocity ω, rad/s.
    pub fn omega(&self) -> Vector3<f64> {
        self.twist.fixed_rows::<3>(0).into_owned()
    }
    /// Body linear velocity v (of the centre of mass, in {b}), m/s.
    pub fn velocity(&self) -> Vector3<f64> {
        self.twist.fixed_rows::<3>(3).into_owned()
    }
    /// Velocity of the centre of mass in the world frame, R v, m/s.
    pub fn world_velocity(&self) -> Vector3<f64> {
        self.pose.r * self.velocity()
    }
}

/// Mass properties and the uniform gravity field.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RigidBody {
    /// Mass m, kg.
    pub mass: f64,
    /// Principal moments of inertia (I₁, I₂, I₃) about the body axes, kg m².
    pub inertia: Vector3<f64>,
    /// Gravitational acceleration g_w, m/s², world frame.
    pub gravity: Vector3<f64>,
}

impl RigidBody {
    /// Principal moments of a solid ellipsoid of semi-axes (a, b, c) (m) and mass m (kg):
    /// (m(b² + c²)/5, m(a² + c²)/5, m(a² + b²)/5), kg m².
    pub fn solid_ellipsoid_inertia(mass: f64, semi_axes: &Vector3<f64>) -> Vector3<f64> {
        let s = semi_axes.component_mul(semi_axes);
        Vector3::new(s.y + s.z, s.x + s.z, s.x + s.y) * (mass / 5.0)
    }

    /// 𝒱̇ = 𝒢⁻¹(\[ad_𝒱\]ᵀ 𝒢 𝒱 + ℱ(T)) (rad/s², m/s²), written out as
    /// ω̇ = I⁻¹((Iω) × ω), v̇ = v × ω + Rᵀ g_w.
    #[inline]
    pub fn acceleration(&self, pose: &Pose, twist: &Vector6<f64>) -> Vector6<f64> {
        let w = twist.fixed_rows::<3>(0).into_owned();
        let v = twist.fixed_rows::<3>(3).into_owned();
        let iw = self.inertia.component_mul(&w);
        let w_dot = iw.cross(&w).component_div(&self.inertia);
        let v_dot = v.cross(&w) + pose.r.transpose() * self.gravity;
        Vector6::new(w_dot.x, w_dot.y, w_dot.z, v_dot.x, v_dot.y, v_dot.z)
    }

    /// Kinetic energy ½ ωᵀIω + ½ m‖v‖², J.
    pub fn kinetic_energy(&self, twist: &Vector6<f64>) -> f64 {
        let w = twist.fixed_rows::<3>(0);
        let v = twist.fixed_rows::<3>(3);
        0.5 * (self.inertia.component_mul(&w.into_owned()).dot(&w) + self.mass * v.norm_squared())
    }

    /// Potential energy −m g_w·(p − reference), J (zero at the reference point).
    pub fn potential_energy(&self, pose: &Pose, reference: &Vector3<f64>) -> f64 {
        -self.mass * self.gravity.dot(&(pose.p - reference))
    }

    /// Angular momentum about the centre of mass in the body frame, Iω, kg m²/s. Its norm is
    /// the same in the world frame.
    pub fn body_angular_momentum(&self, twist: &Vector6<f64>) -> Vector3<f64> {
        self.inertia
            .component_mul(&twist.fixed_rows::<3>(0).into_owned())
    }

    /// Spatial angular momentum about the world origin, R Iω + p × m R v, kg m²/s: constant
    /// when no force acts.
    pub fn spatial_angular_momentum(&self, state: &State) -> Vector3<f64> {
        state.pose.r * self.body_angular_momentum(&state.twist)
            + state.pose.p.cross(&(state.world_velocity() * self.mass))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn acceleration_is_the_left_trivialised_form_with_ad_transpose() {
        // 𝒢⁻¹([ad_𝒱]ᵀ 𝒢 𝒱 + ℱ) with the 6×6 matrices, against the written-out form.
        let body = RigidBody {
            mass: 0.41,
            inertia: Vector3::new(0.0012, 0.0027, 0.0031),
            gravity: Vector3::new(0.0, 0.0, -9.81),
        };
        let pose = Pose {
            r: se3::exp_so3(&Vector3::new(0.3, -0.5, 1.1)),
            p: Vector3::new(1.0, 2.0, 3.0),
        };
        let twist = Vector6::new(3.0, -1.0, 7.0, 0.5, 2.0, -1.5);
        let g = nalgebra::Matrix6::from_diagonal(&Vector6::new(
            body.inertia.x,
            body.inertia.y,
            body.inertia.z,
            body.mass,
            body.mass,
            body.mass,
        ));
        let f = pose.r.transpose() * body.gravity * body.mass;
        let wrench = Vector6::new(0.0, 0.0, 0.0, f.x, f.y, f.z);
        let rhs = se3::ad(&twist).transpose() * g * twist + wrench;
        let expect = g.try_inverse().unwrap() * rhs;
        assert!((body.acceleration(&pose, &twist) - expect).norm() < 1e-12 * expect.norm());
    }
}
