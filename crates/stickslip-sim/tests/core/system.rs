//! Systems built by hand, without a case file, on the one solver (issue 19; SPEC.md §7): two
//! separate meshes in one state vector with a driven node, a tetrahedron dropped onto a plane
//! in 3D, a term that depends on time, and a driver pushed into contact. Each is checked
//! against what implicit Euler must give, derived here:
//!
//! * **Free fall.** A body whose springs stay at rest length and that touches nothing moves as
//!   a rigid translation, and E is then quadratic in x with Hessian M, so one Newton step solves
//!   it exactly: vⁿ⁺¹ = vⁿ + h g and xⁿ⁺¹ = xⁿ + h vⁿ⁺¹, i.e. after n steps from rest
//!   v = n h g and x = x₀ + h² g n(n + 1)/2 (implicit Euler's discrete parabola).
//! * **A time-dependent force** F(t) on a free node: E = ½ m ‖x − x̃‖² − h² F(tⁿ⁺¹)·x is
//!   minimised at vⁿ⁺¹ = vⁿ + h F(tⁿ⁺¹)/m.
//! * **A driven node** is where its driver puts it, x₀ + v t, at the end of every step, exactly.

use nalgebra::SVector;
use stickslip_sim::contact::{
    BarrierKind, BarrierParams, Coefficients, ContactStage, ContactSurface, FrictionParams,
    FrictionTable, HalfSpace,
};
use stickslip_sim::energy::gravity::GravityEnergy;
use stickslip_sim::energy::spring::SpringEnergy;
use stickslip_sim::energy::{Elements, Energy, Projection, StepState, Vec2};
use stickslip_sim::scene::bodies::Material;
use stickslip_sim::scene::bodies::square::square;
use stickslip_sim::solver::driver::LinearMotion;
use stickslip_sim::solver::{
    InitialGuess, Lagging, Simulation, SolveError, SolverSettings, SystemBuilder,
};

type V<const D: usize> = SVector<f64, D>;

const H: f64 = 0.01;

/// Rounding of the discrete free fall: positions of order 1 m after a few hundred steps of
/// sums, each exact to ~1e-16 relative; 1e-12 m leaves three orders of margin.
const FREE_FALL_TOL: f64 = 1e-12;

fn settings(tol: f64) -> SolverSettings {
    SolverSettings {
        h: H,
        tol,
        max_iterations: 200,
        min_iterations: 1,
        max_halvings: 60,
        filter_fraction: 0.9,
        lagging: Lagging::SemiImplicit,
        lagging_tol: 1e-6,
        initial_guess: InitialGuess::Previous,
        max_lagging: 20,
    }
}

/// A floor at height 0 with normal +last axis, the book's barrier and μ = 0.3.
fn floor_stage<const D: usize>(surface: ContactSurface, bodies: usize) -> ContactStage<D> {
    let mut table = FrictionTable::uniform(Coefficients::single(0.3));
    table.bodies = bodies;
    let mut stage = ContactStage::new(
        BarrierParams {
            dhat: 0.01,
            kappa: 1e5,
            kind: BarrierKind::Book,
        },
        FrictionParams {
            eps_v: 1e-3,
            projection: Projection::Clamp,
            stick_filter: false,
        },
        table,
    );
    let mut up = V::<D>::zeros();
    up[D - 1] = 1.0;
    stage.add_half_spaces(surface, &[(HalfSpace::new(up, V::<D>::zeros()), bodies)]);
    stage
}

/// Two meshes in one state vector: body 0 a mass-spring square (2 × 2 cells, 1 m) dropped from
/// 0.3 m above the floor, which it lands on and comes to rest on; body 1 a triangle of three
/// nodes high above it, one node driven sideways at 1 m/s, pulling the other two along by its
/// springs. The square falls on implicit Euler's discrete parabola until it lands, never
/// reaches the floor (by the test's own distances) and ends at rest on it; the driven node is
/// where its driver puts it at every step; the triangle follows at its rest lengths.
#[test]
fn two_meshes_and_a_driven_node_in_one_state_vector() {
    let mut b = SystemBuilder::<2>::new(settings(1e-6));
    let mut surface = ContactSurface::default();
    let g = Vec2::new(0.0, -9.81);
    // Body 0: its lowest nodes 0.3 m above the floor.
    let sq = square(1.0, 2, Vec2::new(0.0, 0.8), 100.0, 0.5);
    let a = sq.add_to(
        &mut b,
        Vec2::zeros(),
        &Material::MassSpring { stiffness: 2e4 },
        Projection::Clamp,
        0,
        &mut surface,
    );
    // Body 1: a triangle at 5 m, node 0 of it driven.
    let tri = [
        Vec2::new(3.0, 5.0),
        Vec2::new(3.5, 5.0),
        Vec2::new(3.2, 5.4),
    ];
    let t = b.add_nodes(&tri, &[Vec2::zeros(); 3], &[1.0, 1.0, 1.0]);
    let tri_edges = vec![
        [t.start, t.start + 1],
        [t.start + 1, t.start + 2],
        [t.start + 2, t.start],
    ];
    let rest_l2: Vec<f64> = [(0, 1), (1, 2), (2, 0)]
        .iter()
        .map(|&(i, j)| (tri[i] - tri[j]).norm_squared())
        .collect();
    b.add_potential(Box::new(SpringEnergy::new(
        tri_edges,
        rest_l2.clone(),
        1e5,
        Projection::Clamp,
    )));
    for i in 0..3 {
        surface.push(t.start + i, 0.1, 1);
    }
    let mass = b.masses().to_vec();
    b.add_potential(Box::new(GravityEnergy::new(mass, g)));
    b.set_contact(floor_stage(surface, 2));
    let drive = Vec2::new(1.0, 0.0);
    b.add_driver(Box::new(LinearMotion::new(
        "triangle's first node",
        vec![t.start],
        vec![tri[0]],
        drive,
        [true, true],
    )));
    let mut sim = Simulation::new(b.build().unwrap()).unwrap();
    let x0 = sim.x.clone();
    let mut landed = None;
    for n in 1..=150 {
        let stats = sim.step().unwrap();
        // The driven node, exactly.
        assert_eq!(sim.x[t.start], tri[0] + drive * (n as f64 * H), "step {n}");
        // The square: above the floor by the test's own distance, at every step.
        let lowest = a.clone().map(|i| sim.x[i].y).fold(f64::INFINITY, f64::min);
        assert!(lowest > 0.0, "step {n}: square node at y = {lowest}");
        assert!((stats.min_distance - lowest).abs() < 1e-15);
        if lowest < 0.01 && landed.is_none() {
            landed = Some(n);
        }
        if landed.is_none() {
            // Free fall on the discrete parabola, node by node.
            let drop = g * (H * H * (n * (n + 1)) as f64 / 2.0);
            for i in a.clone() {
                let err = (sim.x[i] - (x0[i] + drop)).amax();
                assert!(
                    err < FREE_FALL_TOL,
                    "step {n}, node {i}: {err:e} m off the parabola"
                );
            }
        }
    }
    let landed = landed.expect("the square reaches the floor's barrier");
    // 0.3 m of free fall: the barrier is reached near t = √(2·0.29/g) ≈ 0.24 s.
    assert!((20..30).contains(&landed), "landed at step {landed}");
    // Rest on the floor: every node's speed under 1 mm/s after a second.
    for _ in 0..100 {
        sim.step().unwrap();
    }
    let fastest = a.clone().map(|i| sim.v[i].norm()).fold(0.0, f64::max);
    assert!(fastest < 1e-3, "the square still moves at {fastest} m/s");
    // The triangle follows its driven node at its rest lengths (k = 1e5 N/m against the
    // 9.81 N weight of a node: the springs stretch by ~1e-4 m).
    for (k, &(i, j)) in [(0, 1), (1, 2), (2, 0)].iter().enumerate() {
        let l = (sim.x[t.start + i] - sim.x[t.start + j]).norm();
        assert!(
            (l / rest_l2[k].sqrt() - 1.0).abs() < 1e-3,
            "edge {k}: {l} m"
        );
    }
}

/// A mass-spring tetrahedron dropped 0.1 m onto a plane in 3D: free fall on the discrete
/// parabola, then it lands and rests on the plane without any node reaching it (by the test's
/// own heights), with friction holding it (no horizontal drift at rest).
#[test]
fn a_tetrahedron_dropped_onto_a_plane_lands_without_penetration() {
    let mut b = SystemBuilder::<3>::new(settings(1e-6));
    let base = 0.1;
    let x0 = [
        V::<3>::new(0.0, 0.0, base),
        V::<3>::new(0.2, 0.0, base),
        V::<3>::new(0.1, 0.17, base),
        V::<3>::new(0.1, 0.06, base + 0.16),
    ];
    let mass = [0.25; 4];
    b.add_nodes(&x0, &[V::<3>::new(0.05, 0.0, 0.0); 4], &mass);
    let edges = vec![[0, 1], [1, 2], [2, 0], [0, 3], [1, 3], [2, 3]];
    let rest_l2 = edges
        .iter()
        .map(|&[i, j]| (x0[i] - x0[j]).norm_squared())
        .collect();
    b.add_potential(Box::new(SpringEnergy::new(
        edges,
        rest_l2,
        2e4,
        Projection::Clamp,
    )));
    let g = V::<3>::new(0.0, 0.0, -9.81);
    b.add_potential(Box::new(GravityEnergy::new(mass.to_vec(), g)));
    let mut surface = ContactSurface::default();
    for i in 0..4 {
        surface.push(i, 0.01, 0);
    }
    b.set_contact(floor_stage(surface, 1));
    let mut sim = Simulation::new(b.build().unwrap()).unwrap();
    let mut landed = false;
    let v0 = V::<3>::new(0.05, 0.0, 0.0);
    for n in 1..=200 {
        let stats = sim.step().unwrap();
        let lowest = sim.x.iter().map(|x| x.z).fold(f64::INFINITY, f64::min);
        assert!(lowest > 0.0, "step {n}: a node at z = {lowest}");
        assert!((stats.min_distance - lowest).abs() < 1e-15);
        landed |= lowest < 0.01;
        if !landed {
            let drop = g * (H * H * (n * (n + 1)) as f64 / 2.0) + v0 * (n as f64 * H);
            for (i, x0) in x0.iter().enumerate() {
                let err = (sim.x[i] - (x0 + drop)).amax();
                assert!(
                    err < FREE_FALL_TOL,
                    "step {n}, node {i}: {err:e} m off the parabola"
                );
            }
        }
    }
    assert!(landed);
    let fastest = sim.v.iter().map(|v| v.norm()).fold(0.0, f64::max);
    assert!(
        fastest < 1e-3,
        "the tetrahedron still moves at {fastest} m/s"
    );
    let lowest = sim.x.iter().map(|x| x.z).fold(f64::INFINITY, f64::min);
    assert!(
        lowest < 0.01,
        "resting inside the barrier's reach: {lowest} m"
    );
}

/// A force that depends on time: F(t) = (F₀ cos ωt, F₀ sin ωt) on node 0, Ψ = −F(t)·x. It
/// declares (by the default) that it depends on the step, so the solver never reuses a value
/// of an earlier step at the same x.
struct Rotating {
    f0: f64,
    omega: f64,
}

impl Rotating {
    fn force(&self, t: f64) -> Vec2 {
        Vec2::new((self.omega * t).cos(), (self.omega * t).sin()) * self.f0
    }
}

impl Energy<2> for Rotating {
    fn name(&self) -> &'static str {
        "rotating force"
    }
    fn elements(&self) -> Elements<'_> {
        Elements::EachNode(1)
    }
    fn value(&self, x: &[Vec2], step: &StepState<2>, weight: f64) -> f64 {
        -weight * self.force(step.time).dot(&x[0])
    }
    fn gradient(&self, _x: &[Vec2], step: &StepState<2>, weight: f64, out: &mut [Vec2]) {
        out[0] = -self.force(step.time) * weight;
    }
    fn hessian(&self, _x: &[Vec2], _step: &StepState<2>, _weight: f64, out: &mut [f64]) {
        out.fill(0.0);
    }
    fn is_linear(&self) -> bool {
        true
    }
}

/// A free node under a rotating force follows vⁿ⁺¹ = vⁿ + h F(tⁿ⁺¹)/m at every step: the
/// term is evaluated at each step's time, never a stale value from the x the last step ended
/// at (where a term of x alone would be reused).
#[test]
fn a_term_that_depends_on_time_is_evaluated_at_each_steps_time() {
    let mut b = SystemBuilder::<2>::new(settings(1e-9));
    let m = 2.0;
    b.add_nodes(&[Vec2::zeros()], &[Vec2::zeros()], &[m]);
    let force = Rotating {
        f0: 3.0,
        omega: 7.0,
    };
    b.add_potential(Box::new(Rotating {
        f0: force.f0,
        omega: force.omega,
    }));
    let mut sim = Simulation::new(b.build().unwrap()).unwrap();
    let (mut v, mut x) = (Vec2::zeros(), Vec2::zeros());
    for n in 1..=100 {
        sim.step().unwrap();
        v += force.force(n as f64 * H) * (H / m);
        x += v * H;
        // One Newton step solves the quadratic E exactly: rounding only.
        assert!(
            (sim.v[0] - v).amax() < 1e-12,
            "step {n}: v {:?} vs {v:?}",
            sim.v[0]
        );
        assert!((sim.x[0] - x).amax() < 1e-12, "step {n}");
    }
}

/// A driver that pushes a node into the floor puts E at +∞ at the step's start: the step fails
/// with that error, naming the time, instead of a line search that cannot start.
#[test]
fn a_driver_into_the_floor_is_an_error_naming_the_time() {
    let mut b = SystemBuilder::<2>::new(settings(1e-6));
    b.add_nodes(&[Vec2::new(0.0, 0.02)], &[Vec2::zeros()], &[1.0]);
    let mut surface = ContactSurface::default();
    surface.push(0, 0.1, 0);
    b.set_contact(floor_stage(surface, 1));
    b.add_driver(Box::new(LinearMotion::new(
        "press",
        vec![0],
        vec![Vec2::new(0.0, 0.02)],
        Vec2::new(0.0, -1.0),
        [true, true],
    )));
    let mut sim = Simulation::new(b.build().unwrap()).unwrap();
    // 1 m/s down from 2 cm: at 0.01 s the node is at 1 cm, at 0.02 s on the floor.
    sim.step().unwrap();
    match sim.step() {
        Err(SolveError::DrivenIntoContact { step: 1, end, .. }) => {
            assert!((end - 0.02).abs() < 1e-15)
        }
        other => panic!("expected a driven-into-contact error, got {other:?}"),
    }
}

/// The builder refuses, naming what is wrong: a term naming a node the system lacks, a mass
/// that is not positive, two drivers on one degree of freedom.
#[test]
fn the_builder_refuses_an_inconsistent_system() {
    use stickslip_sim::solver::SystemError;
    let mut b = SystemBuilder::<2>::new(settings(1e-6));
    b.add_nodes(
        &[Vec2::zeros(), Vec2::x()],
        &[Vec2::zeros(); 2],
        &[1.0, 1.0],
    );
    b.add_potential(Box::new(SpringEnergy::new(
        vec![[0, 2]],
        vec![1.0],
        1.0,
        Projection::Clamp,
    )));
    assert!(matches!(
        b.build(),
        Err(SystemError::NodeOutOfRange {
            node: 2,
            nodes: 2,
            ..
        })
    ));
    let mut b = SystemBuilder::<2>::new(settings(1e-6));
    b.add_nodes(&[Vec2::zeros()], &[Vec2::zeros()], &[0.0]);
    assert!(matches!(b.build(), Err(SystemError::Mass { node: 0, .. })));
    let mut b = SystemBuilder::<2>::new(settings(1e-6));
    b.add_nodes(&[Vec2::zeros()], &[Vec2::zeros()], &[1.0]);
    b.add_driver(Box::new(LinearMotion::fixed(
        "a",
        vec![0],
        vec![Vec2::zeros()],
    )));
    b.add_driver(Box::new(LinearMotion::new(
        "b",
        vec![0],
        vec![Vec2::zeros()],
        Vec2::zeros(),
        [false, true],
    )));
    let e = b.build().map(|_| ()).unwrap_err();
    assert_eq!(
        e,
        SystemError::DrivenTwice {
            first: "a".into(),
            second: "b".into(),
            node: 0,
            component: 1
        }
    );
}
