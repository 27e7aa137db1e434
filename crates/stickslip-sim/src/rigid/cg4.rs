//! CG4: the 5-stage, 4th-order Crouch–Grossman method on SE(3) × ℝ⁶ (SPEC.md §5; Jackiewicz,
//! Marthinsen & Owren, Adv. Comput. Math. 13 (2000)), with the full-precision tableau.
//!
//! Stage i: Tᵢ = T · exp(h a_{i1} 𝒱̂₁) ⋯ exp(h a_{i,i−1} 𝒱̂_{i−1}),
//! 𝒱ᵢ = 𝒱 + h Σⱼ a_{ij} Kⱼ, Kᵢ = 𝒱̇(Tᵢ, 𝒱ᵢ); the step: T⁺ = T · Πⱼ exp(h bⱼ 𝒱̂ⱼ),
//! 𝒱⁺ = 𝒱 + h Σⱼ bⱼ Kⱼ.

use nalgebra::Vector6;

use crate::rigid::body::{RigidBody, State};

/// Number of stages.
pub const STAGES: usize = 5;

/// The coefficients a_{ij} (row i, column j < i), SPEC.md §5 verbatim.
pub const A: [[f64; 4]; STAGES] = [
    [0.0, 0.0, 0.0, 0.0],
    [0.8177227988124852, 0.0, 0.0, 0.0],
    [0.3199876375476427, 0.0659864263556022, 0.0, 0.0],
    [
        0.9214417194464946,
        0.4997857776773573,
        -1.0969984448371582,
        0.0,
    ],
    [
        0.3552358559023322,
        0.2390958372307326,
        1.3918565724203246,
        -1.1092979392113465,
    ],
];

/// The weights bⱼ, SPEC.md §5 verbatim (trailing zeros included, hence the allow).
#[allow(clippy::excessive_precision)]
pub const B: [f64; STAGES] = [
    0.1370831520630755,
    -0.0183698531564020,
    0.7397813985370780,
    -0.1907142565505889,
    0.3322195591068374,
];

/// The nodes cᵢ, SPEC.md §5 verbatim.
pub const C: [f64; STAGES] = [
    0.0,
    0.8177227988124852,
    0.3859740639032449,
    0.3242290522866937,
    0.8768903263420429,
];

/// One CG4 step of length `h` (s) from `state`. Pure: no allocation.
pub fn step(body: &RigidBody, state: &State, h: f64) -> State {
    let mut twists = [Vector6::zeros(); STAGES];
    let mut rates = [Vector6::zeros(); STAGES];
    for i in 0..STAGES {
        let pose = state
            .pose
            .times_exps((0..i).map(|j| twists[j] * (h * A[i][j])));
        let mut twist = state.twist;
        for j in 0..i {
            twist += rates[j] * (h * A[i][j]);
        }
        twists[i] = twist;
        rates[i] = body.acceleration(&pose, &twist);
    }
    let pose = state
        .pose
        .times_exps((0..STAGES).map(|j| twists[j] * (h * B[j])));
    let mut twist = state.twist;
    for j in 0..STAGES {
        twist += rates[j] * (h * B[j]);
    }
    State { pose, twist }
}
