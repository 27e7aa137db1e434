//! The ellipsoid's lowest point (SPEC.md §5) against a brute-force search over its surface, and
//! impact detection by bisection against the closed-form time of a spin-free drop.

use nalgebra::{Matrix3, Vector3, Vector6};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use stickslip_sim::rigid::body::{Pose, RigidBody, State};
use stickslip_sim::rigid::case::{ImpactSettings, RigidScene};
use stickslip_sim::rigid::ellipsoid::{Ellipsoid, Ground};
use stickslip_sim::rigid::impact::ImpactModel;
use stickslip_sim::rigid::run::simulate;

fn random_rotation(rng: &mut ChaCha8Rng) -> Matrix3<f64> {
    // A uniformly random unit quaternion (normalised Gaussian-ish 4-vector from 4 uniforms is
    // not uniform, but any spread of orientations serves here).
    let q = nalgebra::Quaternion::new(
        rng.random_range(-1.0..1.0),
        rng.random_range(-1.0..1.0),
        rng.random_range(-1.0..1.0),
        rng.random_range(-1.0..1.0),
    );
    nalgebra::UnitQuaternion::from_quaternion(q)
        .to_rotation_matrix()
        .into_inner()
}

/// Brute force: the surface point x(θ, φ) = p + R diag(a, b, c) (sin θ cos φ, sin θ sin φ, cos θ)
/// minimising n·x, by a 48 × 96 grid followed by a compass pattern search down to a spacing of
/// 1e-13 rad; it knows nothing of the closed form.
fn brute_force_lowest(shape: &Ellipsoid, pose: &Pose, n: &Vector3<f64>) -> Vector3<f64> {
    let point = |theta: f64, phi: f64| {
        let s = Vector3::new(
            theta.sin() * phi.cos(),
            theta.sin() * phi.sin(),
            theta.cos(),
        );
        pose.p + pose.r * shape.semi_axes.component_mul(&s)
    };
    let f = |theta: f64, phi: f64| n.dot(&point(theta, phi));
    let (nt, np) = (48, 96);
    let (dt, dp) = (
        std::f64::consts::PI / nt as f64,
        2.0 * std::f64::consts::PI / np as f64,
    );
    let mut best = (0.0, 0.0, f64::INFINITY);
    for i in 0..=nt {
        for j in 0..np {
            let (t, p) = (i as f64 * dt, j as f64 * dp);
            let v = f(t, p);
            if v < best.2 {
                best = (t, p, v);
            }
        }
    }
    // Pattern search: move to the best of the 8 neighbours at the current spacing while one is
    // lower, else halve the spacing; stop below 1e-13 rad.
    let (mut st, mut sp) = (dt, dp);
    let mut moves = 0;
    while st > 1e-13 && moves < 100_000 {
        let (t0, p0) = (best.0, best.1);
        for a in -1..=1 {
            for b in -1..=1 {
                let (t, p) = (t0 + a as f64 * st, p0 + b as f64 * sp);
                let v = f(t, p);
                if v < best.2 {
                    best = (t, p, v);
                }
            }
        }
        if (best.0, best.1) == (t0, p0) {
            st *= 0.5;
            sp *= 0.5;
        }
        moves += 1;
    }
    // The value is flat at the minimum, so the search fixes the point only to ~√ε of the size
    // (~1e-8 m); Newton's method on the gradient of f(θ, φ) = w·s(θ, φ), w = diag(a, b, c) Rᵀn,
    // takes it to rounding (skipped where the parametrisation is singular, sin θ ≈ 0).
    let w = shape.semi_axes.component_mul(&(pose.r.transpose() * n));
    let (mut t, mut p) = (best.0, best.1);
    for _ in 0..8 {
        let (st_, ct) = t.sin_cos();
        let (sp_, cp) = p.sin_cos();
        let s = Vector3::new(st_ * cp, st_ * sp_, ct);
        let g = nalgebra::Vector2::new(
            w.dot(&Vector3::new(ct * cp, ct * sp_, -st_)),
            w.dot(&Vector3::new(-st_ * sp_, st_ * cp, 0.0)),
        );
        let htt = -w.dot(&s);
        let hpp = w.dot(&Vector3::new(-st_ * cp, -st_ * sp_, 0.0));
        let htp = w.dot(&Vector3::new(-ct * sp_, ct * cp, 0.0));
        let hess = nalgebra::Matrix2::new(htt, htp, htp, hpp);
        if st_.abs() < 1e-6 {
            break;
        }
        let Some(step) = hess.try_inverse().map(|h| h * g) else {
            break;
        };
        t -= step.x;
        p -= step.y;
    }
    point(t, p)
}

#[test]
fn lowest_point_matches_brute_force_for_1e4_orientations() {
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let shape = Ellipsoid {
        semi_axes: Vector3::new(0.14, 0.085, 0.085),
    };
    let uneven = Ellipsoid {
        semi_axes: Vector3::new(0.14, 0.10, 0.07),
    };
    let (mut worst, mut worst_distance) = (0.0_f64, 0.0_f64);
    for k in 0..10_000 {
        let shape = if k % 2 == 0 { shape } else { uneven };
        let pose = Pose {
            r: random_rotation(&mut rng),
            p: Vector3::new(
                rng.random_range(-1.0..1.0),
                rng.random_range(-1.0..1.0),
                rng.random_range(0.0..2.0),
            ),
        };
        let n = Vector3::new(
            rng.random_range(-0.5..0.5),
            rng.random_range(-0.5..0.5),
            1.0,
        )
        .normalize();
        let closed = shape.lowest_point(&pose, &n);
        let brute = brute_force_lowest(&shape, &pose, &n);
        worst = worst.max((closed - brute).norm());
        worst_distance = worst_distance.max((n.dot(&(closed - brute))).abs());
        // On the surface: (c − p)ᵀ R D Rᵀ (c − p) = 1.
        let q = pose.r.transpose() * (closed - pose.p);
        let on_surface = q.component_div(&shape.semi_axes).norm_squared();
        assert!((on_surface - 1.0).abs() < 1e-14, "{on_surface}");
    }
    println!(
        "over 1e4 orientations: largest |closed form − brute force| {worst:.3e} m, in signed distance {worst_distance:.3e} m"
    );
    // The bound, on the point itself (so also on the signed distance).
    assert!(worst <= 1e-9, "{worst}");
    assert!(worst_distance <= 1e-9, "{worst_distance}");
}

/// A ball of the football's shape dropped without spin from rest: its lowest point falls as
/// h(t) = h₀ − ½ g t², so it reaches the ground at t* = √(2h₀/g).
#[test]
fn impact_time_of_a_spin_free_drop_within_the_bisection_tolerance() {
    let shape = Ellipsoid {
        semi_axes: Vector3::new(0.14, 0.085, 0.085),
    };
    let body = RigidBody {
        mass: 0.41,
        inertia: RigidBody::solid_ellipsoid_inertia(0.41, &shape.semi_axes),
        gravity: Vector3::new(0.0, 0.0, -9.81),
    };
    let ground = Ground {
        point: Vector3::zeros(),
        normal: Vector3::z(),
    };
    let tolerance = 1e-9;
    for (tilt, height) in [(0.0, 1.0), (0.7, 1.3), (1.2, 0.37)] {
        let pose = Pose {
            r: nalgebra::Rotation3::from_euler_angles(0.2, tilt, 0.0).into_inner(),
            p: Vector3::new(0.0, 0.0, height),
        };
        let h0 = shape.signed_distance(&pose, &ground);
        let exact = (2.0 * h0 / 9.81).sqrt();
        let scene = RigidScene {
            name: "drop".into(),
            source: None,
            shape,
            body,
            inertia_stated: false,
            initial: State {
                pose,
                twist: Vector6::zeros(),
            },
            ground: Some((
                ground,
                ImpactSettings {
                    model: ImpactModel::EnergySafe,
                    restitution: 0.5,
                    friction: 0.3,
                    bisection_tolerance: tolerance,
                    rest_speed: 0.05,
                },
            )),
            h: 1e-2,
            duration: exact + 0.05,
            overrides: Vec::new(),
        };
        let run = simulate(&scene, None).expect("runs");
        let first = run.events.first().expect("one impact");
        println!(
            "h0 = {h0:.4} m: event at {:.12} s, exact {exact:.12} s, difference {:.2e} s",
            first.t,
            exact - first.t
        );
        // Free fall without spin is a quadratic in t, which CG4 integrates exactly (rounding
        // ~1e-15 s); the bisection returns the bracket's left end, so t* − tol ≤ t_event ≤ t*.
        assert!(first.t <= exact + 1e-12 && exact - first.t <= tolerance + 1e-12);
        // Never below the ground by more than the tolerance's worth of approach.
        let worst = run.summary.min_distance.expect("has ground");
        let speed = (2.0 * 9.81 * h0).sqrt();
        assert!(worst >= -speed * tolerance, "min distance {worst}");
    }
}
