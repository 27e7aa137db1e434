//! Terms and drivers changed between steps (`Simulation::potential_mut`, `driver_mut`; the
//! stepping Python API's `set_driver`): each change takes effect from the next step, continues
//! from where the driver is, and no kept value of the old term is reused.

use stickslip_core::energy::Projection;
use stickslip_core::energy::Vector;
use stickslip_core::energy::anchor_spring::AnchorSpring;
use stickslip_core::energy::constant_force::ConstantForce;
use stickslip_core::solver::driver::{Driver, LinearMotion};
use stickslip_core::solver::{InitialGuess, Lagging, Simulation, SolverSettings, SystemBuilder};

fn settings(h: f64) -> SolverSettings {
    SolverSettings {
        h,
        tol: 1e-10,
        max_iterations: 50,
        min_iterations: 1,
        max_halvings: 30,
        filter_fraction: 0.9,
        lagging: Lagging::SemiImplicit,
        lagging_tol: 1e-6,
        max_lagging: 1,
        initial_guess: InitialGuess::Previous,
    }
}

/// One free 2 kg node under a constant force: at rest with F = 0 a step leaves x bit for bit
/// where it was; then F = (4, 0) N for one step: implicit Euler on a free mass gives
/// v = h F / m and x = h² F / m exactly (to rounding), which only the new force gives.
#[test]
fn a_force_changed_between_steps_acts_from_the_next_step() {
    let h = 0.01;
    let mut b = SystemBuilder::<2>::new(settings(h));
    let nodes = b.add_nodes(&[Vector::<2>::zeros()], &[Vector::<2>::zeros()], &[2.0]);
    let term = b.potential_count();
    b.add_potential(Box::new(ConstantForce::new(
        nodes.collect(),
        &[2.0],
        Vector::<2>::zeros(),
    )));
    let mut sim = Simulation::new(b.build().expect("a valid system")).expect("factorised");
    sim.step().expect("a step at rest");
    assert_eq!(sim.x[0], Vector::<2>::zeros());
    sim.potential_mut(term)
        .and_then(|t| t.as_any_mut())
        .and_then(|a| a.downcast_mut::<ConstantForce<2>>())
        .expect("the force's term")
        .set_total(Vector::<2>::new(4.0, 0.0));
    sim.step().expect("a pushed step");
    let (v, x) = (h * 4.0 / 2.0, h * h * 4.0 / 2.0);
    assert!((sim.v[0].x - v).abs() < 1e-12, "{}", sim.v[0].x);
    assert!((sim.x[0].x - x).abs() < 1e-14, "{}", sim.x[0].x);
}

/// A prescribed motion changed at t1 continues from its position then: x(t) = x(t1) + v2 (t −
/// t1) for t ≥ t1, and its position at t1 is the same before and after the change.
#[test]
fn a_prescribed_velocity_changed_continues_from_where_the_nodes_are() {
    let start = Vector::<3>::new(1.0, 2.0, 3.0);
    let (v1, v2) = (
        Vector::<3>::new(0.5, 0.0, 0.0),
        Vector::<3>::new(0.0, -1.0, 2.0),
    );
    let mut m = LinearMotion::new("carry", vec![0], vec![start], v1, [true; 3]);
    let t1 = 0.7;
    let at_t1 = m.position(0, t1);
    m.set_velocity(v2, t1);
    assert!((m.position(0, t1) - at_t1).norm() < 1e-15);
    let t = 1.9;
    assert!((m.position(0, t) - (start + v1 * t1 + v2 * (t - t1))).norm() < 1e-14);
    assert_eq!(m.velocity(), v2);
}

/// A spring's anchor velocity changed at t1: the anchor is where it was at t1 and moves on at
/// the new velocity, so the spring's force at t1 is unchanged.
#[test]
fn an_anchor_velocity_changed_continues_from_where_the_anchor_is() {
    let mut s = AnchorSpring::new(
        vec![0],
        Vector::<2>::new(0.0, 1.0),
        Vector::<2>::new(0.05, 0.0),
        20.0,
        0.0,
        Projection::Clamp,
    );
    let x = [Vector::<2>::new(0.01, 0.0)];
    let t1 = 3.0;
    let (anchor, force) = (s.anchor_at(t1), s.force(&x, t1));
    s.set_anchor_velocity(Vector::<2>::zeros(), t1);
    assert!((s.anchor_at(t1) - anchor).norm() < 1e-15);
    assert!((s.anchor_at(t1 + 5.0) - anchor).norm() < 1e-15);
    assert!((s.force(&x, t1) - force).norm() < 1e-12);
}
