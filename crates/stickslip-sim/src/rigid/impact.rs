//! The impact update at the contact point (SPEC.md §5): the inverse effective mass K, the seed's
//! kinematic model with μ = ∞, its finite-μ stick/slide rule, and an energy-safe model
//! (Routh's integration over the normal impulse with Stronge's energetic restitution).
//!
//! Notation (world frame): r = c − p the contact point from the centre of mass (m); the
//! contact-point velocity u = R(v + ω × Rᵀr) (m/s); an impulse J (N s) at c changes it by K J,
//! K = (1/m) I₃ − \[r\]ₓ R I⁻¹ Rᵀ \[r\]ₓ (1/kg); n̂ the ground's unit normal; u_n = n̂·u < 0 approaching;
//! ε the restitution, μ the friction coefficient (dimensionless).

use nalgebra::{Matrix2, Matrix3, Vector2, Vector3, Vector6};

use crate::rigid::body::{RigidBody, State};
use crate::rigid::se3::hat;

/// Which impact model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ImpactModel {
    /// The seed's kinematic (Newton) restitution: the normal contact velocity after is −ε u_n;
    /// with μ = ∞ the tangential one is zeroed, with finite μ SPEC.md §5's stick/slide rule.
    /// Can gain kinetic energy for a rigid body.
    Newton,
    /// Routh/Stronge: the impact integrated over the normal impulse with Coulomb friction and
    /// energetic restitution; never gains kinetic energy. Needs a finite μ.
    EnergySafe,
}

/// How the contact point ended the impact.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ContactMode {
    /// The tangential contact velocity is zero after the impact.
    Stick,
    /// The contact slides: the impulse lies on the edge of the friction cone.
    Slide,
}

impl std::fmt::Display for ContactMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ContactMode::Stick => "stick",
            ContactMode::Slide => "slide",
        })
    }
}

/// The impulse of one impact and how it ended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Impulse {
    /// J, N s, world frame.
    pub impulse: Vector3<f64>,
    /// Stick or slide at the end of the impact.
    pub mode: ContactMode,
    /// Whether the energy-safe model had to use its frictionless fallback (see
    /// [`energy_safe_impulse`]); always false for the Newton model.
    pub fallback: bool,
}

/// The inverse effective mass K = (1/m) I₃ − \[r\]ₓ R I⁻¹ Rᵀ \[r\]ₓ at the point p + r (1/kg).
pub fn inverse_effective_mass(body: &RigidBody, state: &State, r: &Vector3<f64>) -> Matrix3<f64> {
    let rot = state.pose.r;
    let inv_inertia = Matrix3::from_diagonal(&body.inertia.map(|i| 1.0 / i));
    let rx = hat(r);
    Matrix3::identity() / body.mass - rx * rot * inv_inertia * rot.transpose() * rx
}

/// The velocity of the body point p + r (m/s, world): R(v + ω × Rᵀr).
pub fn point_velocity(state: &State, r: &Vector3<f64>) -> Vector3<f64> {
    let rot = state.pose.r;
    rot * (state.velocity() + state.omega().cross(&(rot.transpose() * r)))
}

/// The body twist after the impulse J (N s, world) at p + r: Δv = RᵀJ/m,
/// Δω = I⁻¹(Rᵀr × RᵀJ).
pub fn apply_impulse(
    body: &RigidBody,
    state: &State,
    r: &Vector3<f64>,
    impulse: &Vector3<f64>,
) -> Vector6<f64> {
    let rt = state.pose.r.transpose();
    let jb = rt * impulse;
    let dw = (rt * r).cross(&jb).component_div(&body.inertia);
    let dv = jb / body.mass;
    state.twist + Vector6::new(dw.x, dw.y, dw.z, dv.x, dv.y, dv.z)
}

/// The kinetic-energy change of an impulse J at a point of velocity u with inverse effective
/// mass K: ΔKE = Jᵀu + ½ JᵀKJ (J), exact since the kinetic energy is quadratic in the twist.
pub fn kinetic_energy_change(k: &Matrix3<f64>, u: &Vector3<f64>, impulse: &Vector3<f64>) -> f64 {
    impulse.dot(u) + 0.5 * impulse.dot(&(k * impulse))
}

/// The tangential part of `x` with respect to the unit normal `n`.
#[inline]
fn tangential(x: &Vector3<f64>, n: &Vector3<f64>) -> Vector3<f64> {
    x - n * n.dot(x)
}

/// The sticking impulse J* = K⁻¹(−ε u_n n̂ − u): normal contact velocity after −ε u_n, tangential
/// zero (the seed's μ = ∞ model). `None` if K is singular (it is SPD for a body of positive mass
/// and inertia).
pub fn sticking_impulse(
    k: &Matrix3<f64>,
    n: &Vector3<f64>,
    u: &Vector3<f64>,
    restitution: f64,
) -> Option<Vector3<f64>> {
    let un = n.dot(u);
    let target = -n * (restitution * un) - u;
    k.cholesky().map(|c| c.solve(&target))
}

/// The Newton (kinematic-restitution) impulse of SPEC.md §5 for an approaching contact
/// (u_n < 0); zero impulse when u_n ≥ 0.
///
/// * μ = ∞ (the seed): J = J*, always sticking.
/// * finite μ: J = J* if n̂·J* ≥ 0 and ‖J* − (n̂·J*)n̂‖ ≤ μ n̂·J*; otherwise the contact slides:
///   J = j_n (n̂ − μ t̂), t̂ the unit tangential contact velocity before the impact, and
///   j_n = −(1 + ε) u_n / n̂ᵀK(n̂ − μ t̂) so that the normal velocity after is −ε u_n.
///   If that denominator is ≤ 0 (friction so strong against the coupling of K that no
///   sliding impulse can stop the approach — Painlevé's jam), the frictionless impulse
///   j_n n̂ with j_n = −(1 + ε)u_n / n̂ᵀKn̂ is used and the contact reported as sliding.
///
/// For a point mass (K = I/m) this is exactly the law of SPEC.md §3.
pub fn newton_impulse(
    k: &Matrix3<f64>,
    n: &Vector3<f64>,
    u: &Vector3<f64>,
    restitution: f64,
    friction: f64,
) -> Impulse {
    let un = n.dot(u);
    let none = Impulse {
        impulse: Vector3::zeros(),
        mode: ContactMode::Stick,
        fallback: false,
    };
    if un >= 0.0 {
        return Impulse {
            mode: ContactMode::Slide,
            ..none
        };
    }
    let Some(stick) = sticking_impulse(k, n, u, restitution) else {
        return none;
    };
    let jn = n.dot(&stick);
    if friction.is_infinite() || (jn >= 0.0 && tangential(&stick, n).norm() <= friction * jn) {
        return Impulse {
            impulse: stick,
            ..none
        };
    }
    let ut = tangential(u, n);
    let s = ut.norm();
    let t_hat = if s > 0.0 { ut / s } else { Vector3::zeros() };
    let direction = n - t_hat * friction;
    let rate = n.dot(&(k * direction));
    let impulse = if rate > 0.0 {
        direction * (-(1.0 + restitution) * un / rate)
    } else {
        n * (-(1.0 + restitution) * un / n.dot(&(k * n)))
    };
    Impulse {
        impulse,
        mode: ContactMode::Slide,
        fallback: false,
    }
}

/// An orthonormal basis (t₁, t₂) of the plane normal to the unit `n`.
fn tangent_basis(n: &Vector3<f64>) -> (Vector3<f64>, Vector3<f64>) {
    let helper = if n.x.abs() < 0.9 {
        Vector3::x()
    } else {
        Vector3::y()
    };
    let t1 = n.cross(&helper).normalize();
    (t1, n.cross(&t1))
}

/// Default number of steps the normal impulse of compression is divided into by
/// [`energy_safe_impulse`] (the frictionless compression impulse / this many is the step).
pub const ENERGY_SAFE_STEPS: usize = 400;

/// The energy-safe impulse: Routh's method, the impact integrated over the normal impulse
/// p (N s), with Coulomb friction and Stronge's energetic restitution.
///
/// Along p the impulse grows by dJ = (n̂ − μ d) dp while the contact slides in the unit
/// tangential direction d (d = the direction of the tangential contact velocity), and by
/// dJ = (n̂ + τ) dp while it sticks, τ the tangential impulse rate that keeps the tangential
/// velocity constant ((K(n̂ + τ))_t = 0), allowed when ‖τ‖ ≤ μ. The contact velocity follows
/// du = K dJ. Compression ends where u_n = 0, having done normal work W_c = ∫u_n dp < 0;
/// restitution goes on until the normal work since then is ε²|W_c| (Stronge's energetic
/// coefficient). When sliding stops and sticking is not allowed, sliding resumes in the
/// direction d with d ∥ (K(n̂ − μd))_t (found by fixed-point iteration; Mirtich ch. 3 with
/// Baber's correction).
///
/// Why it never gains energy: the impulse is integrated in steps over which u is linear, so the
/// work of each step is exactly ΔJ·ū with ū the mid-step velocity. The normal work sums to
/// W_c + ε²|W_c| = −(1 − ε²)|W_c| ≤ 0. Each sliding step's friction work is −μΔp d·ū, and the
/// step is cut where the tangential velocity comes closest to zero, which keeps d·ū ≥ 0;
/// sticking steps keep the tangential velocity at (near) zero. As a last guard, should the
/// exact change ΔKE = Jᵀu + ½JᵀKJ of the result still be positive beyond rounding (10⁻¹² of
/// the kinetic energy at the contact, ½ u_n²/n̂ᵀKn̂), the frictionless energetic impulse
/// J = −(1 + ε) u_n/(n̂ᵀKn̂) n̂ is used instead (ΔKE = −½(1 − ε²)u_n²/n̂ᵀKn̂ ≤ 0) and
/// [`Impulse::fallback`] is set. The same fallback is taken if the integration has not ended
/// within 200 × `steps` steps (a long jam: friction against the coupling of K makes the
/// approach faster while sliding; left where it is, the body would still be approaching).
///
/// For a point mass (K = I/m) the directions never change and the result is the law of
/// SPEC.md §3 up to the rounding of the summed steps.
///
/// `steps`: the impulse ‖u‖/n̂ᵀKn̂ is divided into this many steps (the step in p).
/// `friction` must be finite.
pub fn energy_safe_impulse(
    k: &Matrix3<f64>,
    n: &Vector3<f64>,
    u0: &Vector3<f64>,
    restitution: f64,
    friction: f64,
    steps: usize,
) -> Impulse {
    let un0 = n.dot(u0);
    if un0 >= 0.0 {
        return Impulse {
            impulse: Vector3::zeros(),
            mode: ContactMode::Slide,
            fallback: false,
        };
    }
    let knn = n.dot(&(k * n));
    let speed_scale = u0.norm();
    // The step in p: the impulse that would stop the whole contact velocity along n̂, divided
    // into `steps` (the tangential part can need far more impulse than the normal approach).
    let dp = speed_scale / knn / steps.max(1) as f64;
    // Below this the tangential contact velocity counts as stopped: 1e-12 of the contact speed,
    // far below anything the integration resolves and far above rounding.
    let stopped = 1e-12 * speed_scale;
    let (t1, t2) = tangent_basis(n);
    let tk = nalgebra::Matrix3x2::from_columns(&[t1, t2]);
    let ktt: Matrix2<f64> = tk.transpose() * k * tk;
    let ktn: Vector2<f64> = tk.transpose() * (k * n);
    let stick_rate = ktt
        .cholesky()
        .map(|c| tk * c.solve(&(-ktn)))
        .unwrap_or_else(Vector3::zeros);
    let can_stick = stick_rate.norm() <= friction;

    let mut u = *u0;
    // The impulse as its normal part p (N s) and its tangential part, summed apart so that a
    // frictionless impulse stays exactly normal.
    let mut normal_impulse = 0.0;
    let mut tangential_impulse = Vector3::zeros();
    let mut completed = false;
    let mut work = 0.0;
    let mut compression_work: Option<f64> = None;
    let mut sticking = false;
    let max_iterations = 200 * steps.max(1);
    for _ in 0..max_iterations {
        let ut = tangential(&u, n);
        let s = ut.norm();
        let direction = if sticking || s <= stopped {
            if can_stick {
                sticking = true;
                n + stick_rate
            } else {
                n - resumed_slide_direction(k, n, &stick_rate, friction) * friction
            }
        } else {
            n - ut * (friction / s)
        };
        let du = k * direction;
        let a = n.dot(&du);
        let un = n.dot(&u);
        let mut step = dp;
        // Cut where the tangential velocity comes closest to zero.
        if !sticking && s > stopped {
            let g = tangential(&du, n);
            let closest = -ut.dot(&g) / g.norm_squared();
            if closest > 0.0 && closest < step {
                step = closest;
            }
        }
        let mut finished = false;
        match compression_work {
            None => {
                // Cut at the end of compression, u_n = 0.
                if a > 0.0 && un + a * step >= 0.0 {
                    step = -un / a;
                    let w = work + step * (un + 0.5 * a * step);
                    compression_work = Some(w);
                    if restitution == 0.0 {
                        finished = true;
                    }
                }
            }
            Some(wc) => {
                let target = -restitution * restitution * wc;
                let done = work - wc;
                let remaining = target - done;
                let dw = step * (un + 0.5 * a * step);
                if dw >= remaining {
                    // Solve ½ a x² + u_n x = remaining for the smallest x ≥ 0.
                    let x = if a.abs() > 0.0 {
                        let disc = (un * un + 2.0 * a * remaining).max(0.0);
                        (-un + disc.sqrt()) / a
                    } else {
                        remaining / un
                    };
                    step = x.clamp(0.0, step);
                    finished = true;
                }
            }
        }
        work += step * (un + 0.5 * a * step);
        normal_impulse += step;
        tangential_impulse += (direction - n) * step;
        u += du * step;
        if finished {
            completed = true;
            break;
        }
    }
    let total = n * normal_impulse + tangential_impulse;
    let mode = if sticking {
        ContactMode::Stick
    } else {
        ContactMode::Slide
    };
    let contact_energy = 0.5 * un0 * un0 / knn;
    if !completed || kinetic_energy_change(k, u0, &total) > 1e-12 * contact_energy {
        return Impulse {
            impulse: n * (-(1.0 + restitution) * un0 / knn),
            mode: ContactMode::Slide,
            fallback: true,
        };
    }
    Impulse {
        impulse: total,
        mode,
        fallback: false,
    }
}

/// The direction d in which a stopped contact resumes sliding when it cannot stick: d ∥
/// (K(n̂ − μd))_t, found by fixed-point iteration from d₀ = −τ/‖τ‖ (τ the sticking rate, which
/// lies outside the cone, so friction on the cone's edge points roughly along it).
fn resumed_slide_direction(
    k: &Matrix3<f64>,
    n: &Vector3<f64>,
    stick_rate: &Vector3<f64>,
    friction: f64,
) -> Vector3<f64> {
    let mut d = -stick_rate.normalize();
    for _ in 0..50 {
        let g = tangential(&(k * (n - d * friction)), n);
        let norm = g.norm();
        if norm == 0.0 {
            break;
        }
        let next = g / norm;
        let change = (next - d).norm();
        d = next;
        if change < 1e-14 {
            break;
        }
    }
    d
}
