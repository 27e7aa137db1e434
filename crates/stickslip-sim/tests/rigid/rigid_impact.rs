//! The impact update (SPEC.md §5): the point-mass limit is §3's law, the limits μ = 0, μ = ∞ and
//! the friction cone, the energy-safe model never gains kinetic energy, and the seed's model
//! does gain energy in a configuration built for it.

use nalgebra::{Matrix3, Vector3, Vector6};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use stickslip_sim::cross_check::impulse_law::contact_f64;
use stickslip_sim::rigid::body::{Pose, RigidBody, State};
use stickslip_sim::rigid::ellipsoid::Ellipsoid;
use stickslip_sim::rigid::impact::{
    self, ContactMode, ENERGY_SAFE_STEPS, energy_safe_impulse, newton_impulse, sticking_impulse,
};

fn unit(rng: &mut ChaCha8Rng) -> Vector3<f64> {
    loop {
        let v = Vector3::new(
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
        );
        if v.norm() > 0.1 && v.norm() <= 1.0 {
            return v.normalize();
        }
    }
}

fn football() -> (RigidBody, Ellipsoid) {
    let semi_axes = Vector3::new(0.14, 0.085, 0.085);
    (
        RigidBody {
            mass: 0.41,
            inertia: RigidBody::solid_ellipsoid_inertia(0.41, &semi_axes),
            gravity: Vector3::new(0.0, 0.0, -9.81),
        },
        Ellipsoid { semi_axes },
    )
}

/// A random contact of the football: random orientation and twist, ground normal n random, the
/// contact at the lowest point along −n; flipped so that the contact approaches. Returns the
/// state, r = c − p, n, the contact velocity u and K.
struct Contact {
    state: State,
    r: Vector3<f64>,
    n: Vector3<f64>,
    u: Vector3<f64>,
    k: Matrix3<f64>,
}

fn random_contact(rng: &mut ChaCha8Rng, body: &RigidBody, shape: &Ellipsoid) -> Contact {
    let axis = unit(rng) * rng.random_range(0.0..3.1);
    let pose = Pose {
        r: stickslip_sim::rigid::se3::exp_so3(&axis),
        p: Vector3::new(0.0, 0.0, 0.5),
    };
    let n = unit(rng);
    let mut twist = Vector6::from_fn(|i, _| {
        if i < 3 {
            rng.random_range(-15.0..15.0)
        } else {
            rng.random_range(-5.0..5.0)
        }
    });
    let c = shape.lowest_point(&pose, &n);
    let r = c - pose.p;
    let mut state = State { pose, twist };
    let mut u = impact::point_velocity(&state, &r);
    if n.dot(&u) >= 0.0 {
        twist = -twist;
        state.twist = twist;
        u = -u;
    }
    let k = impact::inverse_effective_mass(body, &state, &r);
    Contact { state, r, n, u, k }
}

fn tangential(x: &Vector3<f64>, n: &Vector3<f64>) -> Vector3<f64> {
    x - n * n.dot(x)
}

/// Rounding scale of a velocity computed through K and J: a few ulps of the speeds involved.
const ROUNDING: f64 = 64.0 * f64::EPSILON;

#[test]
fn point_mass_limit_is_the_impulse_law_of_section_3() {
    // Contact at the centre of mass (r = 0): K = I/m exactly, the body is a point mass.
    let mut rng = ChaCha8Rng::seed_from_u64(10);
    let (body, _) = football();
    let mut worst_newton = 0.0_f64;
    let mut worst_safe = 0.0_f64;
    for _ in 0..10_000 {
        let n = unit(&mut rng);
        let mut v = Vector3::new(
            rng.random_range(-3.0..3.0),
            rng.random_range(-3.0..3.0),
            rng.random_range(-3.0..3.0),
        );
        if n.dot(&v) >= 0.0 {
            v = -v;
        }
        let e = rng.random_range(0.0..1.0);
        let mu = rng.random_range(0.0..1.0);
        let state = State {
            pose: Pose {
                r: stickslip_sim::rigid::se3::exp_so3(&(unit(&mut rng) * 2.0)),
                p: Vector3::zeros(),
            },
            twist: Vector6::zeros(),
        };
        let mut state = state;
        let vb = state.pose.r.transpose() * v;
        state.twist = Vector6::new(0.0, 0.0, 0.0, vb.x, vb.y, vb.z);
        let r = Vector3::zeros();
        let k = impact::inverse_effective_mass(&body, &state, &r);
        let u = impact::point_velocity(&state, &r);
        let law = Vector3::from(contact_f64([v.x, v.y, v.z], [n.x, n.y, n.z], e, mu));
        let newton = newton_impulse(&k, &n, &u, e, mu);
        let after = impact::point_velocity(
            &State {
                pose: state.pose,
                twist: impact::apply_impulse(&body, &state, &r, &newton.impulse),
            },
            &r,
        );
        worst_newton = worst_newton.max((after - law).norm() / v.norm());
        let safe = energy_safe_impulse(&k, &n, &u, e, mu, ENERGY_SAFE_STEPS);
        assert!(!safe.fallback);
        let after_safe = u + k * safe.impulse;
        worst_safe = worst_safe.max((after_safe - law).norm() / v.norm());
    }
    println!(
        "point mass vs §3 law, relative: newton {worst_newton:.2e}, energy-safe {worst_safe:.2e}"
    );
    // Newton: a handful of roundings through R, Rᵀ and K (measured ~1e-15).
    assert!(worst_newton <= ROUNDING, "{worst_newton}");
    // Energy-safe: the same law reached by ~(1 + e)·400 summed steps; rounding grows with the
    // number of steps, ~1e-13.
    assert!(worst_safe <= 1e-11, "{worst_safe}");
}

#[test]
fn frictionless_impulse_is_normal_and_elastic_keeps_kinetic_energy() {
    // μ = 0: the impulse has no tangential part (for a rigid body the tangential *velocity*
    // still changes through the coupling of K, by exactly [K J]_t; for a point mass it is
    // unchanged, see the test above). With ε = 1 kinetic energy is kept to 1e-12.
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let (body, shape) = football();
    for _ in 0..10_000 {
        let c = random_contact(&mut rng, &body, &shape);
        let ke0 = body.kinetic_energy(&c.state.twist);
        for (name, j) in [
            ("newton", newton_impulse(&c.k, &c.n, &c.u, 1.0, 0.0).impulse),
            (
                "energy_safe",
                energy_safe_impulse(&c.k, &c.n, &c.u, 1.0, 0.0, ENERGY_SAFE_STEPS).impulse,
            ),
        ] {
            assert!(tangential(&j, &c.n).norm() <= ROUNDING * j.norm(), "{name}");
            let twist = impact::apply_impulse(&body, &c.state, &c.r, &j);
            let ke1 = body.kinetic_energy(&twist);
            assert!((ke1 - ke0).abs() <= 1e-12 * ke0, "{name}: {ke0} → {ke1}");
            let after = impact::point_velocity(&State { twist, ..c.state }, &c.r);
            // The normal contact velocity is reversed (ε = 1).
            assert!(
                (c.n.dot(&after) + c.n.dot(&c.u)).abs() <= 1e-10 * c.u.norm(),
                "{name}"
            );
        }
    }
}

#[test]
fn infinite_friction_zeroes_tangential_and_scales_normal_by_restitution() {
    let mut rng = ChaCha8Rng::seed_from_u64(12);
    let (body, shape) = football();
    for _ in 0..10_000 {
        let c = random_contact(&mut rng, &body, &shape);
        let e = rng.random_range(0.0..1.0);
        let j = newton_impulse(&c.k, &c.n, &c.u, e, f64::INFINITY);
        assert_eq!(j.mode, ContactMode::Stick);
        let twist = impact::apply_impulse(&body, &c.state, &c.r, &j.impulse);
        let after = impact::point_velocity(&State { twist, ..c.state }, &c.r);
        // Through Cholesky of K (condition number ≤ ~30 here) and back: ~1e-14 of the speed.
        let scale = 1e-12 * c.u.norm();
        assert!(tangential(&after, &c.n).norm() <= scale);
        assert!((c.n.dot(&after) + e * c.n.dot(&c.u)).abs() <= scale);
    }
}

#[test]
fn finite_friction_sticks_exactly_when_the_sticking_impulse_is_in_the_cone() {
    let mut rng = ChaCha8Rng::seed_from_u64(13);
    let (body, shape) = football();
    let (mut sticks, mut slides) = (0, 0);
    for _ in 0..10_000 {
        let c = random_contact(&mut rng, &body, &shape);
        let e = rng.random_range(0.0..1.0);
        let mu = rng.random_range(0.0..2.0);
        let star = sticking_impulse(&c.k, &c.n, &c.u, e).expect("K is SPD");
        let jn = c.n.dot(&star);
        let in_cone = jn >= 0.0 && tangential(&star, &c.n).norm() <= mu * jn;
        let j = newton_impulse(&c.k, &c.n, &c.u, e, mu);
        let after = c.u + c.k * j.impulse;
        let scale = 1e-12 * c.u.norm();
        if in_cone {
            sticks += 1;
            assert_eq!(j.mode, ContactMode::Stick);
            assert!(tangential(&after, &c.n).norm() <= scale);
        } else {
            slides += 1;
            assert_eq!(j.mode, ContactMode::Slide);
            // On the cone's edge, opposing the slide before; normal velocity −ε u_n (unless
            // the jam fallback took the frictionless impulse).
            let jt = tangential(&j.impulse, &c.n);
            let jn = c.n.dot(&j.impulse);
            let frictionless = jt.norm() <= ROUNDING * j.impulse.norm();
            assert!(frictionless || (jt.norm() - mu * jn).abs() <= 1e-12 * j.impulse.norm());
            assert!(frictionless || jt.dot(&tangential(&c.u, &c.n)) <= 0.0);
            assert!((c.n.dot(&after) + e * c.n.dot(&c.u)).abs() <= scale);
        }
    }
    println!("finite mu: {sticks} stick, {slides} slide");
    assert!(sticks > 100 && slides > 100, "both branches exercised");
}

#[test]
fn energy_safe_model_never_gains_kinetic_energy_over_1e5_random_impacts() {
    let mut rng = ChaCha8Rng::seed_from_u64(14);
    let (body, shape) = football();
    let (mut fallbacks, mut newton_gains, mut worst) = (0, 0, f64::NEG_INFINITY);
    for _ in 0..100_000 {
        let c = random_contact(&mut rng, &body, &shape);
        let e = rng.random_range(0.0..=1.0);
        let mu = rng.random_range(0.0..=2.0);
        let ke0 = body.kinetic_energy(&c.state.twist);
        let j = energy_safe_impulse(&c.k, &c.n, &c.u, e, mu, ENERGY_SAFE_STEPS);
        fallbacks += usize::from(j.fallback);
        let twist = impact::apply_impulse(&body, &c.state, &c.r, &j.impulse);
        let gain = body.kinetic_energy(&twist) - ke0;
        worst = worst.max(gain / ke0);
        // Rounding of the kinetic energy itself: a few ulps of ke0.
        assert!(gain <= 1e-12 * ke0, "gain {gain} J of {ke0} J");
        // It does stop the approach: the normal contact velocity after is ≥ 0 (to rounding).
        let after = impact::point_velocity(&State { twist, ..c.state }, &c.r);
        assert!(c.n.dot(&after) >= -1e-9 * c.u.norm());
        let seed = newton_impulse(&c.k, &c.n, &c.u, e, mu).impulse;
        let seed_twist = impact::apply_impulse(&body, &c.state, &c.r, &seed);
        newton_gains += usize::from(body.kinetic_energy(&seed_twist) > ke0 * (1.0 + 1e-12));
    }
    println!(
        "1e5 random impacts: largest relative KE change {worst:.2e}, frictionless fallbacks {fallbacks}; the newton model gained energy in {newton_gains}"
    );
}

/// The seed's model gains energy: with u⁻ = u_n K n̂/(n̂ᵀKn̂) (the approach of least energy for
/// its normal speed) and ε = 1, the sticking impulse changes kinetic energy by
/// ½u_n²(n̂ᵀK⁻¹n̂ − 1/n̂ᵀKn̂) > 0 whenever K couples normal and tangent (Cauchy–Schwarz).
#[test]
fn the_seed_model_gains_energy_where_the_energy_safe_one_does_not() {
    let (body, shape) = football();
    // Lying at 45° in the x–z plane: the lowest point is off the vertical through the centre.
    let pose = Pose {
        r: stickslip_sim::rigid::se3::exp_so3(&Vector3::new(0.0, std::f64::consts::FRAC_PI_4, 0.0)),
        p: Vector3::new(0.0, 0.0, 0.3),
    };
    let n = Vector3::z();
    let r = shape.lowest_point(&pose, &n) - pose.p;
    let probe = State {
        pose,
        twist: Vector6::zeros(),
    };
    let k = impact::inverse_effective_mass(&body, &probe, &r);
    let un = -2.0;
    let u = k * n * (un / n.dot(&(k * n)));
    // A twist with that contact velocity: a pure translation v = Rᵀu.
    let vb = pose.r.transpose() * u;
    let state = State {
        pose,
        twist: Vector6::new(0.0, 0.0, 0.0, vb.x, vb.y, vb.z),
    };
    assert!((impact::point_velocity(&state, &r) - u).norm() < 1e-14);
    let ke0 = body.kinetic_energy(&state.twist);
    let kinv_nn = n.dot(&(k.try_inverse().expect("SPD") * n));
    let predicted = 0.5 * un * un * (kinv_nn - 1.0 / n.dot(&(k * n)));
    for (name, mu) in [("mu = inf", f64::INFINITY), ("mu = 2", 2.0)] {
        let seed = newton_impulse(&k, &n, &u, 1.0, mu);
        let ke_seed = body.kinetic_energy(&impact::apply_impulse(&body, &state, &r, &seed.impulse));
        println!(
            "{name}: seed model {ke0:.6} J → {ke_seed:.6} J (gain {:.6} J, predicted {predicted:.6} J)",
            ke_seed - ke0
        );
        assert_eq!(seed.mode, ContactMode::Stick);
        assert!(
            ke_seed - ke0 > 0.01 * ke0,
            "the seed model gains energy here"
        );
        assert!((ke_seed - ke0 - predicted).abs() <= 1e-12 * ke0);
    }
    let safe = energy_safe_impulse(&k, &n, &u, 1.0, 2.0, ENERGY_SAFE_STEPS);
    let ke_safe = body.kinetic_energy(&impact::apply_impulse(&body, &state, &r, &safe.impulse));
    println!("energy-safe model: {ke0:.6} J → {ke_safe:.6} J");
    assert!(ke_safe <= ke0 * (1.0 + 1e-12));
}
