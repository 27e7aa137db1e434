//! CG4 on SE(3) (SPEC.md §5): the tableau, torque-free tumbling (conservation, self-convergence
//! at order 4, orthonormality over 10⁵ steps) and free flight on the exact parabola.

use nalgebra::{Matrix3, Vector3, Vector6};
use stickslip_sim::rigid::body::{Pose, RigidBody, State};
use stickslip_sim::rigid::cg4::{self, A, B, C, STAGES};
use stickslip_sim::rigid::se3::{log_so3, orthonormality_error};

/// The tableau is printed to 16 significant digits, so each coefficient carries a representation
/// error ≤ 5e-17 and a sum of ≤ 5 of them ~2e-16; SPEC.md asks for 1e-15.
const TABLEAU_TOL: f64 = 1e-15;
/// The order conditions are sums of up to 125 products of coefficients of size ≤ 1.4; their
/// rounding stays below ~1e-14 (measured: under 4e-16).
const ORDER_TOL: f64 = 1e-14;

#[test]
fn tableau_rows_sum_to_c_and_weights_to_one() {
    for i in 0..STAGES {
        let row: f64 = A[i].iter().take(i).sum();
        assert!(
            (row - C[i]).abs() <= TABLEAU_TOL,
            "row {i}: {row} vs {}",
            C[i]
        );
    }
    let sum_b: f64 = B.iter().sum();
    assert!((sum_b - 1.0).abs() <= TABLEAU_TOL, "Σb = {sum_b}");
}

#[test]
fn classical_order_conditions_to_order_four() {
    let a = |i: usize, j: usize| if j < i { A[i][j] } else { 0.0 };
    let s = STAGES;
    let sum1 = |f: &dyn Fn(usize) -> f64| (0..s).map(f).sum::<f64>();
    let ac = |i: usize| sum1(&|j| a(i, j) * C[j]);
    let ac2 = |i: usize| sum1(&|j| a(i, j) * C[j] * C[j]);
    let aac = |i: usize| sum1(&|j| a(i, j) * ac(j));
    let conditions: [(&str, f64, f64); 8] = [
        ("Σb = 1", sum1(&|i| B[i]), 1.0),
        ("Σbc = 1/2", sum1(&|i| B[i] * C[i]), 0.5),
        ("Σbc² = 1/3", sum1(&|i| B[i] * C[i] * C[i]), 1.0 / 3.0),
        ("Σb(ac) = 1/6", sum1(&|i| B[i] * ac(i)), 1.0 / 6.0),
        ("Σbc³ = 1/4", sum1(&|i| B[i] * C[i].powi(3)), 0.25),
        ("Σbc(ac) = 1/8", sum1(&|i| B[i] * C[i] * ac(i)), 0.125),
        ("Σb(ac²) = 1/12", sum1(&|i| B[i] * ac2(i)), 1.0 / 12.0),
        ("Σb(a(ac)) = 1/24", sum1(&|i| B[i] * aac(i)), 1.0 / 24.0),
    ];
    for (name, got, want) in conditions {
        println!("{name}: error {:.2e}", got - want);
        assert!((got - want).abs() <= ORDER_TOL, "{name}: {got} vs {want}");
    }
}

/// The torque-free body of `cases/football_torque_free.toml`: three different moments, spun
/// near the intermediate axis (y), no gravity.
fn tumbling() -> (RigidBody, State) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../cases/football_torque_free.toml");
    let scene = stickslip_sim::rigid::case::RigidScene::load(&path).expect("shipped case loads");
    assert!(scene.ground.is_none() && scene.body.gravity == Vector3::zeros());
    (scene.body, scene.initial)
}

fn integrate(body: &RigidBody, start: &State, h: f64, steps: usize) -> State {
    (0..steps).fold(*start, |s, _| cg4::step(body, &s, h))
}

/// Largest deviation of kinetic energy and of the spatial angular momentum from their initial
/// values over `steps` steps of `h`, relative to the initial values.
fn conservation_drift(body: &RigidBody, start: &State, h: f64, steps: usize) -> (f64, f64) {
    let ke0 = body.kinetic_energy(&start.twist);
    let l0 = body.spatial_angular_momentum(start);
    let (mut ke_drift, mut l_drift) = (0.0_f64, 0.0_f64);
    let mut s = *start;
    for _ in 0..steps {
        s = cg4::step(body, &s, h);
        ke_drift = ke_drift.max((body.kinetic_energy(&s.twist) - ke0).abs() / ke0);
        l_drift = l_drift.max((body.spatial_angular_momentum(&s) - l0).norm() / l0.norm());
    }
    (ke_drift, l_drift)
}

#[test]
fn torque_free_conservation_drift_shrinks_like_h4() {
    let (body, start) = tumbling();
    // 2 s: the flip of the intermediate axis has begun (ω ≈ 10 rad/s).
    let t_end = 2.0;
    let mut previous: Option<(f64, f64)> = None;
    for h in [0.02, 0.01, 0.005] {
        let (ke, l) = conservation_drift(&body, &start, h, (t_end / h) as usize);
        println!("h = {h}: max relative drift of KE {ke:.3e}, of spatial L {l:.3e}");
        if let Some((ke_prev, l_prev)) = previous {
            // At least fourth order: halving h divides the drift by 2⁴ = 16 or more; we accept
            // an observed order ≥ 3.5 (2^3.5 ≈ 11.3, room for pre-asymptotic scatter at
            // ωh ≤ 0.2). Measured: L at 4.0, KE at 5.0 (its leading h⁴ term cancels).
            for (name, ratio) in [("KE", ke_prev / ke), ("L", l_prev / l)] {
                let order = ratio.log2();
                println!("  {name}: observed order {order:.2}");
                assert!(order >= 3.5, "{name} drift order {order}");
            }
        }
        previous = Some((ke, l));
    }
}

#[test]
fn torque_free_self_convergence_order_is_four() {
    let (body, start) = tumbling();
    let t_end = 2.0;
    let hs = [0.02, 0.01, 0.005, 0.0025];
    let finals: Vec<State> = hs
        .iter()
        .map(|&h| integrate(&body, &start, h, (t_end / h).round() as usize))
        .collect();
    let rotation_error = |a: &Matrix3<f64>, b: &Matrix3<f64>| log_so3(&(a.transpose() * b)).norm();
    let errors: Vec<f64> = finals
        .windows(2)
        .map(|w| rotation_error(&w[0].pose.r, &w[1].pose.r))
        .collect();
    for (k, e) in errors.iter().enumerate() {
        println!("‖log(R_hᵀR_h/2)‖ at h = {}: {e:.3e}", hs[k]);
    }
    for w in errors.windows(2) {
        let order = (w[0] / w[1]).log2();
        println!("observed order {order:.3}");
        // The window: 3.7 ≤ order ≤ 4.3.
        assert!((3.7..=4.3).contains(&order), "order {order}");
    }
}

#[test]
fn rotation_stays_orthonormal_over_1e5_steps() {
    let (body, start) = tumbling();
    let mut s = start;
    let mut worst = 0.0_f64;
    for _ in 0..100_000 {
        s = cg4::step(&body, &s, 1e-3);
        worst = worst.max(orthonormality_error(&s.pose.r));
    }
    println!("max ‖RᵀR − I‖ over 1e5 steps: {worst:.2e}");
    // Each step multiplies by five Rodrigues rotations, each orthonormal to ~ε; the error
    // walks like √N·ε ≈ 7e-14 at N = 1e5. 1e-12 is the bound.
    assert!(worst <= 1e-12, "{worst}");
}

#[test]
fn free_flight_follows_the_parabola_with_error_shrinking_like_h4() {
    let body = RigidBody {
        mass: 0.41,
        inertia: RigidBody::solid_ellipsoid_inertia(0.41, &Vector3::new(0.14, 0.085, 0.085)),
        gravity: Vector3::new(0.0, 0.0, -9.81),
    };
    let r0 = nalgebra::Rotation3::from_euler_angles(0.3, -0.7, 1.1).into_inner();
    let p0 = Vector3::new(0.0, 0.0, 1.8);
    let v_body = Vector3::new(7.0, 0.5, 2.5);
    let start = State {
        pose: Pose { r: r0, p: p0 },
        twist: Vector6::new(3.0, 9.0, 1.5, v_body.x, v_body.y, v_body.z),
    };
    let v0 = r0 * v_body;
    let t_end: f64 = 1.0;
    let mut errors = Vec::new();
    for h in [0.02, 0.01, 0.005] {
        let steps = (t_end / h).round() as usize;
        let end = integrate(&body, &start, h, steps);
        let exact = p0 + v0 * t_end + body.gravity * (0.5 * t_end * t_end);
        let err = (end.pose.p - exact).norm();
        println!("h = {h}: ‖p − (p₀ + v₀t + ½gt²)‖ = {err:.3e} m");
        errors.push(err);
    }
    // The bound from the order: error ≤ C h⁴ with C fixed by the coarsest run; the finer runs
    // must meet C h⁴ within the same 2^±0.5 window as above.
    let c = errors[0] / 0.02_f64.powi(4);
    for (k, h) in [0.01_f64, 0.005].iter().enumerate() {
        let order = (errors[k] / errors[k + 1]).log2();
        println!(
            "observed order {order:.2}, bound C h⁴ = {:.3e}",
            c * h.powi(4)
        );
        assert!((3.5..=4.5).contains(&order), "order {order}");
        assert!(errors[k + 1] <= 2.0_f64.sqrt() * c * h.powi(4));
    }
    // And the error is small in absolute terms at the shipped cases' h = 1e-3.
    let end = integrate(&body, &start, 1e-3, 1000);
    let exact = p0 + v0 * t_end + body.gravity * (0.5 * t_end * t_end);
    println!("h = 1e-3: {:.3e} m", (end.pose.p - exact).norm());
    assert!((end.pose.p - exact).norm() <= c * 1e-12 * 2.0 + 1e-13);
}
