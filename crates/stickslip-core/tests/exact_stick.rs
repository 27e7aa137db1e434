//! Exact stick (SPEC.md §9, `contact::potentials::friction`'s module comment), in 2D and 3D:
//!
//! * its energy against finite differences, for a node against a plane and for a three-node
//!   stencil with signed weights and a moving surface (a belt), with a carried offset s₀, in the
//!   stuck (μ_s) and slipped (μ_k) states, inside the yield radius, beyond it and beside the
//!   yield boundary; C¹ across the boundary; the force never above μλ;
//! * a node on a floor pushed sideways by a constant force F, through the whole solver (so the
//!   return mapping and the state carried between steps by pair key are in the loop):
//!   below μ_s m g it settles where the spring balances F and then does not move, at
//!   x_t = F ε_d/(μ_s m g) (k_t = μ_s λ/ε_d with λ = m g at rest), with semi-implicit and with
//!   implicit lagging; above μ_k m g it slides at a = F/m − μ_k g (implicit Euler is exact for
//!   a constant acceleration).

use nalgebra::{DMatrix, SVector, Vector2};
use stickslip_core::contact::collisions::tangential::TangentialCollision;
use stickslip_core::contact::pair::{TangentFrame, tangent_basis};
use stickslip_core::contact::potentials::friction::{
    FrictionParams, FrictionPotential, StickAnchor, StickModel,
};
use stickslip_core::contact::{
    BarrierKind, BarrierParams, Coefficients, ContactStage, ContactSurface, FrictionTable,
    HalfSpace, MAX_STENCIL,
};
use stickslip_core::energy::constant_force::ConstantForce;
use stickslip_core::energy::gravity::GravityEnergy;
use stickslip_core::energy::{Energy, Projection, StepState};
use stickslip_core::solver::{InitialGuess, Lagging, Simulation, SolverSettings, SystemBuilder};

type V<const D: usize> = SVector<f64, D>;

const H: f64 = 0.01;
const EPS_D: f64 = 1e-5;
/// λ = 400 N; μ_s λ = 80 N, μ_k λ = 20 N.
const LAMBDA: f64 = 400.0;
const MU: Coefficients = Coefficients {
    mu_static: 0.2,
    mu_kinetic: 0.05,
};

/// Relative tolerance of the central differences below (step δ = 10⁻⁴ ε_d in x). Inside the
/// yield radius Ψ is quadratic and the gradient linear, so the differences are exact but for
/// rounding; beyond it the truncation is ~(δ/r)²/6 < 10⁻⁸. Rounding: x ~ 0.3 m carries
/// ~6·10⁻¹⁷ m, ~3·10⁻⁸ of 2δ. 10⁻⁶ keeps thirty times that and still catches any wrong factor,
/// sign or missing term (an O(1) error).
const FD_REL_TOL: f64 = 1e-6;

/// A tilted unit normal.
fn normal<const D: usize>() -> V<D> {
    V::<D>::from_fn(|i, _| [0.1, 1.0, 0.3][if D == 2 { i } else { [0, 2, 1][i] }]).normalize()
}

/// A unit tangent direction of the normal's plane, turned by `angle` in 3D (±T's column in 2D).
fn tangent<const D: usize>(angle: f64) -> V<D> {
    let t = tangent_basis(&normal::<D>());
    let mut d = V::<D>::zeros();
    for i in 0..D {
        d[i] = t[(i, 0)] * angle.cos() + t[(i, 1)] * angle.sin();
    }
    d.normalize()
}

/// One collision of `nodes` stencil nodes (weights 1 for one node; 1, −0.7, −0.3 for three, as a
/// point against an edge) with a surface velocity for three, carried offset `offset` (in the
/// frame's tangent coordinates) and state `stuck`.
fn friction<const D: usize>(
    nodes: usize,
    offset: Vector2<f64>,
    stuck: bool,
) -> FrictionPotential<D> {
    let n = normal::<D>();
    let (weights, surface_velocity) = if nodes == 1 {
        ([1.0, 0.0, 0.0, 0.0], V::<D>::zeros())
    } else {
        ([1.0, -0.7, -0.3, 0.0], tangent::<D>(0.4) * 2e-4)
    };
    let collision = TangentialCollision {
        nodes: [0, 1, 2, 0],
        key: 7,
        frame: TangentFrame {
            basis: tangent_basis(&n),
            normal: n,
            weights,
            surface_velocity,
        },
        normal_force: LAMBDA,
        coefficients: MU,
        bodies: (0, 1),
    };
    assert!(nodes <= MAX_STENCIL);
    FrictionPotential::with_collisions(
        FrictionParams {
            eps_v: 1e-3,
            projection: Projection::None,
            stick_filter: false,
        },
        nodes,
        vec![collision],
    )
    .with_stick(StickModel::Exact { eps_d: EPS_D })
    .with_anchors(vec![StickAnchor { offset, stuck }])
}

fn gradient<const D: usize>(
    f: &FrictionPotential<D>,
    x: &[V<D>],
    step: &StepState<D>,
) -> Vec<V<D>> {
    let k = x.len();
    let mut out = vec![V::<D>::zeros(); k];
    f.gradient(x, step, 1.0, &mut out);
    out
}

fn hessian<const D: usize>(
    f: &FrictionPotential<D>,
    x: &[V<D>],
    step: &StepState<D>,
) -> DMatrix<f64> {
    let n = D * x.len();
    let mut out = vec![0.0; n * n];
    f.hessian(x, step, 1.0, &mut out);
    DMatrix::from_column_slice(n, n, &out)
}

/// Positions at which the collision's elastic displacement has length `r`: the first node
/// moved tangentially from xⁿ (the other nodes moved a little, and every node normally, which
/// friction must ignore), so that s = s₀ + Tᵀ(Σ βⱼ Δxⱼ − h v_s) points along `tangent(0.9)`.
fn positions<const D: usize>(
    f: &FrictionPotential<D>,
    x_n: &[V<D>],
    r: f64,
    step: &StepState<D>,
) -> Vec<V<D>> {
    let k = x_n.len();
    let n = normal::<D>();
    let mut x: Vec<V<D>> = (0..k)
        .map(|j| {
            x_n[j]
                + n * (1e-4 * (j as f64 + 1.0))
                + tangent::<D>(2.0 + j as f64) * (3e-6 * j as f64)
        })
        .collect();
    // The first node's weight is 1: solve for its tangential move.
    let s_now = f.elastic_slip(0, &x, step);
    let t = tangent_basis(&n);
    let target = t.transpose() * tangent::<D>(0.9) * r;
    x[0] += t * (target - s_now);
    let s = f.elastic_slip(0, &x, step);
    assert!(
        (s.norm() - r).abs() <= 1e-9 * EPS_D,
        "r = {r}: |s| = {}",
        s.norm()
    );
    x
}

fn derivatives_match<const D: usize>(nodes: usize) {
    let x_n: Vec<V<D>> = (0..nodes)
        .map(|j| V::<D>::from_fn(|i, _| 0.3 - 0.6 * i as f64 + 0.2 * j as f64))
        .collect();
    let step = StepState {
        x_tilde: &x_n,
        x_n: &x_n,
        h: H,
        time: H,
    };
    let delta = 1e-4 * EPS_D;
    let mut offset = tangent_basis(&normal::<D>()).transpose() * tangent::<D>(2.5) * (0.4 * EPS_D);
    if D == 2 {
        offset.y = 0.0;
    }
    for stuck in [true, false] {
        let f = friction::<D>(nodes, offset, stuck);
        let mu_lambda = if stuck { 80.0 } else { 20.0 };
        // Inside, at the boundary's two sides, beyond; 0 is the anchor itself.
        for r_over in [0.0, 0.3, 0.999, 1.001, 3.0, 50.0] {
            let r = r_over * EPS_D;
            let x = positions(&f, &x_n, r, &step);
            let g = gradient(&f, &x, &step);
            let h = hessian(&f, &x, &step);
            let n = D * nodes;
            let mut fd_g = vec![0.0; n];
            let mut fd_h = DMatrix::<f64>::zeros(n, n);
            for k in 0..n {
                let (mut p, mut m) = (x.clone(), x.clone());
                p[k / D][k % D] += delta;
                m[k / D][k % D] -= delta;
                fd_g[k] = (f.value(&p, &step, 1.0) - f.value(&m, &step, 1.0)) / (2.0 * delta);
                let (gp, gm) = (gradient(&f, &p, &step), gradient(&f, &m, &step));
                for j in 0..n {
                    fd_h[(j, k)] = (gp[j / D][j % D] - gm[j / D][j % D]) / (2.0 * delta);
                }
            }
            // The force's scale is μλ; the curvature's is μλ/max(r, ε_d) (k_t inside).
            for k in 0..n {
                assert!(
                    (g[k / D][k % D] - fd_g[k]).abs() <= FD_REL_TOL * mu_lambda,
                    "D = {D}, {nodes} nodes, stuck {stuck}, r = {r_over} ε_d: gradient {g:?} vs {fd_g:?}"
                );
            }
            let curvature = mu_lambda / r.max(EPS_D);
            // A difference of the gradient straddling the boundary (within δ of it) is not a
            // Hessian: both sides are 10⁻³ ε_d ≫ δ away.
            assert!(
                (&h - &fd_h).amax() <= FD_REL_TOL * curvature,
                "D = {D}, {nodes} nodes, stuck {stuck}, r = {r_over} ε_d: Hessian {h} vs {fd_h}"
            );
            // PSD as it is: the smallest eigenvalue is zero to rounding.
            let low = h.clone().symmetric_eigenvalues().min();
            assert!(low >= -1e-9 * curvature, "eigenvalue {low}");
            // The force on the relative motion is k_t r below the yield radius and μλ beyond,
            // never more.
            let (_, force) = f.coefficient_and_force(0, &x, &step);
            let law = mu_lambda * (r / EPS_D).min(1.0);
            assert!(
                (force.norm() - law).abs() <= 1e-9 * mu_lambda,
                "{} vs {law}",
                force.norm()
            );
        }
        // C¹ at the yield boundary: the gradients just inside and just outside agree.
        let inside = gradient(&f, &positions(&f, &x_n, EPS_D * (1.0 - 1e-9), &step), &step);
        let outside = gradient(&f, &positions(&f, &x_n, EPS_D * (1.0 + 1e-9), &step), &step);
        for j in 0..nodes {
            assert!((inside[j] - outside[j]).amax() <= 1e-7 * mu_lambda);
        }
    }
}

#[test]
fn exact_stick_derivatives_match_finite_differences_in_2d_and_3d() {
    derivatives_match::<2>(1);
    derivatives_match::<2>(3);
    derivatives_match::<3>(1);
    derivatives_match::<3>(3);
}

fn settings(lagging: Lagging) -> SolverSettings {
    SolverSettings {
        h: H,
        tol: 1e-9,
        max_iterations: 100,
        min_iterations: 1,
        max_halvings: 60,
        filter_fraction: 0.9,
        lagging,
        lagging_tol: 1e-9,
        initial_guess: InitialGuess::Previous,
        max_lagging: 20,
    }
}

/// A node of mass `M` at the barrier's rest height on a floor (normal +last axis), pushed along
/// the first axis by `push` (N), μ_s = `mu_s`, μ_k = `mu_k`, exact stick; returns the tangential
/// position and velocity after every step.
fn pushed_node<const D: usize>(
    push: f64,
    mu_s: f64,
    mu_k: f64,
    lagging: Lagging,
    steps: usize,
) -> Vec<(f64, f64)> {
    const M: f64 = 10.0;
    let g = 9.81;
    let (dhat, kappa, area) = (0.01, 1e5, 0.25);
    // Rest height: the book barrier's force A d̂ (κ/2)(ln s/d̂ + (s − 1)/d) balances −M g; the
    // node starts there (found by bisection), so no landing.
    let force = |d: f64| {
        let s = d / dhat;
        -area * dhat * 0.5 * kappa * (s.ln() / dhat + (s - 1.0) / d)
    };
    let (mut lo, mut hi) = (1e-9, dhat);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if force(mid) > M * g {
            lo = mid
        } else {
            hi = mid
        }
    }
    let mut x0 = V::<D>::zeros();
    x0[D - 1] = 0.5 * (lo + hi);
    let mut b = SystemBuilder::<D>::new(settings(lagging));
    let nodes = b.add_nodes(&[x0], &[V::<D>::zeros()], &[M]);
    let mut gravity = V::<D>::zeros();
    gravity[D - 1] = -g;
    b.add_potential(Box::new(GravityEnergy::new(vec![M], gravity)));
    let mut f = V::<D>::zeros();
    f[0] = push;
    b.add_potential(Box::new(ConstantForce::new(vec![nodes.start], &[M], f)));
    let mut surface = ContactSurface::default();
    surface.push(nodes.start, area, 0);
    let mut table = FrictionTable::uniform(Coefficients {
        mu_static: mu_s,
        mu_kinetic: mu_k,
    });
    table.bodies = 1;
    let mut stage = ContactStage::new(
        BarrierParams {
            dhat,
            kappa,
            kind: BarrierKind::Book,
        },
        FrictionParams {
            eps_v: 1e-3,
            projection: Projection::Clamp,
            stick_filter: false,
        },
        table,
    )
    .with_stick(StickModel::Exact { eps_d: EPS_D });
    let mut up = V::<D>::zeros();
    up[D - 1] = 1.0;
    stage.add_half_spaces(surface, &[(HalfSpace::new(up, V::<D>::zeros()), 1)]);
    b.set_contact(stage);
    let mut sim = Simulation::new(b.build().expect("one node")).expect("factorisation");
    (0..steps)
        .map(|_| {
            sim.step().expect("step");
            (sim.x[0][0], sim.v[0][0])
        })
        .collect()
}

/// Below μ_s m g the node settles where the spring balances F, x_t = F ε_d/(μ_s m g), and then
/// does not move. λ = m g to the barrier's bisection (~10⁻¹⁵ relative) and Newton's tolerance
/// (10⁻⁹ m/s, i.e. 10⁻¹¹ m a step, not accumulated: the anchor does not move while stuck), so
/// x_t is within 10⁻⁹ ε_d·… of the closed form: 10⁻³ ε_d = 10 nm leaves orders of margin and
/// is a thousandth of the model's own tolerance. The last 100 steps (1 s) move under 10⁻¹² m.
fn held<const D: usize>(lagging: Lagging) {
    let (m, g, mu_s) = (10.0, 9.81, 0.3);
    let push = 0.6 * mu_s * m * g;
    let path = pushed_node::<D>(push, mu_s, 0.1, lagging, 300);
    let expected = push * EPS_D / (mu_s * m * g);
    let (x_end, _) = path[path.len() - 1];
    assert!(
        (x_end - expected).abs() <= 1e-3 * EPS_D,
        "D = {D}, {lagging:?}: x_t = {x_end:e} m, closed form {expected:e} m"
    );
    let drift = (x_end - path[path.len() - 101].0).abs();
    assert!(
        drift <= 1e-12,
        "D = {D}, {lagging:?}: moved {drift:e} m in the last second"
    );
}

#[test]
fn a_pushed_node_below_static_friction_holds_still() {
    held::<2>(Lagging::SemiImplicit);
    held::<3>(Lagging::SemiImplicit);
    held::<2>(Lagging::Implicit);
    held::<3>(Lagging::Implicit);
}

/// Above μ_k m g (and μ_s m g) the node slides at a = F/m − μ_k g: from the second step on the
/// contact slipped at the last accepted step, so friction is exactly μ_k λ with λ = m g;
/// implicit Euler then gives vⁿ⁺¹ − vⁿ = h a, to Newton's tolerance (10⁻⁹ m/s a step, 10⁻⁷
/// m/s² in a): 10⁻⁶ relative.
fn slides<const D: usize>() {
    let (m, g, mu_s, mu_k) = (10.0, 9.81, 0.3, 0.1);
    let push = 1.1 * mu_s * m * g;
    let path = pushed_node::<D>(push, mu_s, mu_k, Lagging::SemiImplicit, 100);
    let a = push / m - mu_k * g;
    for w in path[10..].windows(2) {
        let measured = (w[1].1 - w[0].1) / H;
        assert!(
            (measured - a).abs() <= 1e-6 * a,
            "D = {D}: a = {measured} m/s², closed form {a}"
        );
    }
}

#[test]
fn a_pushed_node_above_friction_slides_at_the_kinetic_acceleration() {
    slides::<2>();
    slides::<3>();
}
