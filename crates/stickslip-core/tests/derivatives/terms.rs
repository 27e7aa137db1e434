//! Every term of E through the harness, in D = 2 and D = 3, at configurations that exercise
//! every regime (the binary's module comment lists them), and the 3D assembled system.

use crate::harness::*;
use nalgebra::{DMatrix, Vector2};
use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use stickslip_core::contact::candidates::edge_edge::EdgeEdge;
use stickslip_core::contact::candidates::embedded_plane_vertex::EmbeddedPlaneVertex;
use stickslip_core::contact::candidates::plane_vertex::PlaneVertex;
use stickslip_core::contact::candidates::point_edge::PointEdge;
use stickslip_core::contact::candidates::point_triangle::PointTriangle;
use stickslip_core::contact::candidates::vertex_vertex::VertexVertex;
use stickslip_core::contact::collisions::tangential;
use stickslip_core::contact::collisions::tangential::TangentialCollision;
use stickslip_core::contact::pair::{TangentFrame, tangent_basis};
use stickslip_core::contact::potentials::barrier::BarrierPotential;
use stickslip_core::contact::potentials::friction::{
    FrictionParams, FrictionPotential, StickAnchor, StickModel, f1_over_y,
};
use stickslip_core::contact::{
    BarrierKind, BarrierParams, Coefficients, ContactPair, ContactStage, ContactSurface,
    FrictionTable, HalfSpace, MAX_STENCIL,
};
use stickslip_core::energy::anchor_spring::AnchorSpring;
use stickslip_core::energy::constant_force::ConstantForce;
use stickslip_core::energy::gravity::GravityEnergy;
use stickslip_core::energy::inertia::InertiaEnergy;
use stickslip_core::energy::inversion::{Inversion, InversionEnergy, cell_triangles, signed_area};
use stickslip_core::energy::neo_hookean::{self, Elasticity, NeoHookean};
use stickslip_core::energy::orthogonality::Orthogonality;
use stickslip_core::energy::spring::SpringEnergy;
use stickslip_core::energy::stiffness_damping::StiffnessDamping;
use stickslip_core::energy::{Energy, Projection, StepState, Vec2};
use stickslip_core::solver::driver::LinearMotion;
use stickslip_core::solver::{InitialGuess, Lagging, Simulation, SolverSettings, SystemBuilder};

fn inertia_and_gravity<const D: usize>() {
    let mut r = rng();
    let n = 6;
    let x: Vec<V<D>> = (0..n).map(|_| random(&mut r, 2.0)).collect();
    let x_tilde: Vec<V<D>> = (0..n).map(|_| random(&mut r, 2.0)).collect();
    let mass: Vec<f64> = (0..n).map(|i| 1.0 + 15.0 * i as f64).collect();
    let zeros = vec![V::<D>::zeros(); n];
    let step = state(&x_tilde, &zeros, 0.01);
    // Quadratic and linear: no truncation error; δ = 1e-5 m keeps the rounding error
    // (ε ~ 1e-16 of E ≲ 10³ J, over 2δ) under 1e-8 N.
    let delta = vec![1e-5; n];
    check_energy::<D>(&InertiaEnergy::new(mass.clone()), &x, &step, &delta, &mass);
    let mut g = V::<D>::zeros();
    g[D - 1] = -9.81;
    let gravity = GravityEnergy::new(mass.clone(), g);
    check_energy(&gravity, &x, &step, &delta, &vec![0.0; n]);
    assert!(gravity.is_linear());
    assert_eq!(dense_hessian(&gravity, &x, &step, 1.0, false).amax(), 0.0);
}

#[test]
fn inertia_and_gravity_in_2d_and_3d() {
    inertia_and_gravity::<2>();
    inertia_and_gravity::<3>();
}

fn springs<const D: usize>() {
    let mut r = rng();
    let k = 2e4;
    // Six nodes, nine springs sharing nodes (so their blocks overlap), each at its own
    // stretch: from 0.3 of its rest length (compressed; H_d indefinite) to 1.7 (stretched).
    let n = 6;
    let x: Vec<V<D>> = (0..n).map(|_| random(&mut r, 1.0)).collect();
    let edges = vec![
        [0, 1],
        [1, 2],
        [2, 0],
        [2, 3],
        [3, 4],
        [4, 5],
        [5, 0],
        [1, 4],
        [3, 5],
    ];
    let stretch = [0.3, 0.6, 0.9, 0.99, 1.01, 1.1, 1.3, 1.5, 1.7];
    let rest_l2: Vec<f64> = edges
        .iter()
        .zip(stretch)
        .map(|(&[a, b], s)| (x[a] - x[b]).norm_squared() / (s * s))
        .collect();
    let zeros = vec![V::<D>::zeros(); n];
    let step = state(&zeros, &zeros, 0.01);
    // Edges are longer than 0.05 m here; δ = 1e-7 m is ≤ 2e-6 of that: truncation ~1e-12
    // relative, rounding ε|E|/δ ~ 1e-16·10³/1e-7 ~ 1e-6 N against gradients of 10²–10⁴ N.
    let min_len = edges
        .iter()
        .map(|&[a, b]| (x[a] - x[b]).norm())
        .fold(f64::INFINITY, f64::min);
    assert!(min_len > 0.05, "the random nodes are apart: {min_len}");
    let delta = vec![1e-7; n];
    let exact = SpringEnergy::new(edges.clone(), rest_l2.clone(), k, Projection::None);
    check_energy::<D>(&exact, &x, &step, &delta, &vec![0.0; n]);
    assert!(!Energy::<D>::hessian_is_psd(&exact));
    // The solver's projection: PSD, the fallback's too; and for stretched springs only (H_d
    // PSD already) the projection changes nothing but rounding.
    let clamped = SpringEnergy::new(edges.clone(), rest_l2.clone(), k, Projection::Clamp);
    let h = dense_hessian::<D>(&clamped, &x, &step, 1.0, false);
    assert!(min_relative_eigenvalue(&h) >= -PSD_REL_TOL);
    assert!(min_relative_eigenvalue(&dense_hessian::<D>(&exact, &x, &step, 1.0, false)) < -0.01);
    assert_eq!(h, dense_hessian::<D>(&exact, &x, &step, 1.0, true));
    let stretched: Vec<usize> = (0..edges.len()).filter(|&e| stretch[e] > 1.0).collect();
    let pick_edges: Vec<[usize; 2]> = stretched.iter().map(|&e| edges[e]).collect();
    let pick_l2: Vec<f64> = stretched.iter().map(|&e| rest_l2[e]).collect();
    let of = |p: Projection| {
        let term = SpringEnergy::new(pick_edges.clone(), pick_l2.clone(), k, p);
        dense_hessian::<D>(&term, &x, &step, 1.0, false)
    };
    let (a, b) = (of(Projection::Clamp), of(Projection::None));
    assert!((a - &b).amax() <= 1e-12 * b.amax());
}

/// The drivers' terms: a spring from a node set to a moving anchor (zero-length, and with a
/// rest length both stretched and compressed, where its exact Hessian is indefinite and the
/// projection clamps it), evaluated at a time where the anchor has moved; a constant force.
fn drivers<const D: usize>() {
    let mut r = rng();
    let n = 5;
    let x: Vec<V<D>> = (0..n).map(|_| random(&mut r, 1.0)).collect();
    let zeros = vec![V::<D>::zeros(); n];
    let step = StepState {
        x_tilde: &zeros,
        x_n: &zeros,
        h: 0.01,
        time: 0.7,
    };
    let set = vec![0, 2, 3];
    let mean = set.iter().map(|&i| x[i]).sum::<V<D>>() / 3.0;
    let velocity = random::<D>(&mut r, 1.0);
    let anchor_at_t = mean + random::<D>(&mut r, 1.0).normalize() * 0.4;
    let anchor0 = anchor_at_t - velocity * step.time;
    // δ = 1e-7 m against a distance of 0.4 m to the anchor.
    let delta = vec![1e-7; n];
    for (rest_length, label) in [
        (0.0, "zero-length"),
        (0.25, "stretched"),
        (0.6, "compressed"),
    ] {
        let exact = AnchorSpring::new(
            set.clone(),
            anchor0,
            velocity,
            300.0,
            rest_length,
            Projection::None,
        );
        check_energy::<D>(&exact, &x, &step, &delta, &vec![0.0; n]);
        let h = dense_hessian::<D>(&exact, &x, &step, 1.0, false);
        let clamped = AnchorSpring::new(
            set.clone(),
            anchor0,
            velocity,
            300.0,
            rest_length,
            Projection::Clamp,
        );
        let hp = dense_hessian::<D>(&clamped, &x, &step, 1.0, false);
        assert!(min_relative_eigenvalue(&hp) >= -PSD_REL_TOL, "{label}");
        if label == "compressed" {
            assert!(min_relative_eigenvalue(&h) < -1e-3, "{label}: indefinite");
        } else {
            assert!(
                (h - &hp).amax() <= 1e-12 * hp.amax(),
                "{label}: already PSD"
            );
        }
        // The force it reports is minus the gradient's sum over the set.
        let g: V<D> = node_gradient::<D>(&exact, &x, &step, 1.0).iter().sum();
        let f = exact.force(&x, step.time);
        assert!(
            (f + g).amax() <= 1e-12 * g.amax(),
            "{label}: force {f:?} vs gradient {g:?}"
        );
    }
    let mass = [1.0, 3.0, 0.5];
    let total = random::<D>(&mut r, 10.0);
    let force = ConstantForce::new(set.clone(), &mass, total);
    check_energy::<D>(&force, &x, &step, &vec![1e-5; n], &vec![0.0; n]);
    assert!((force.total() - total).amax() <= 1e-14 * total.amax());
    let g = node_gradient::<D>(&force, &x, &step, 1.0);
    // Shared by mass: node 2 (3 kg) takes three times node 0's (1 kg) share.
    assert!((g[2] - g[0] * 3.0).amax() <= 1e-12 * total.amax());
}

#[test]
fn driver_terms_in_2d_and_3d() {
    drivers::<2>();
    drivers::<3>();
}

#[test]
fn springs_stretched_and_compressed_in_2d_and_3d() {
    springs::<2>();
    springs::<3>();
}

/// A tilted unit normal in D dimensions (the book's slope in 2D).
fn slope_normal<const D: usize>() -> V<D> {
    V::<D>::from_fn(|i, _| [0.1, 1.0, 0.3][if D == 2 { i } else { [0, 2, 1][i] }]).normalize()
}

/// Node × half-space pairs of every node of `x` against `plane`, contact area `area`.
fn plane_pairs<const D: usize>(plane: HalfSpace<D>, n: usize, area: f64) -> Vec<PlaneVertex<D>> {
    (0..n)
        .map(|node| PlaneVertex {
            node,
            vertex: node,
            area,
            body: 0,
            plane: 0,
            obstacle: 1,
            half_space: plane,
        })
        .collect()
}

fn barriers<const D: usize>() {
    let normal = slope_normal::<D>();
    let point = -normal;
    let tangent = tangent_basis(&normal).column(0).into_owned();
    // Distances over d̂ from 0.05 to 0.99 (active; the book's kind is only C¹ at d̂, so none
    // within 1 % of it) and beyond d̂ (inactive: zero energy, force and stiffness).
    let over_dhat = [0.05, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99, 1.01, 1.5, 3.0];
    let n = over_dhat.len();
    let zeros = vec![V::<D>::zeros(); n];
    let step = state(&zeros, &zeros, 0.01);
    for kind in [BarrierKind::Book, BarrierKind::Ipc] {
        let params = BarrierParams {
            dhat: 0.01,
            kappa: 1e5,
            kind,
        };
        let x: Vec<V<D>> = over_dhat
            .iter()
            .enumerate()
            .map(|(i, s)| point + normal * (s * params.dhat) + tangent * (0.3 * i as f64 - 1.0))
            .collect();
        // δ = 1e-4 of the distance to the slope and to d̂: no difference reaches either, and
        // the truncation error (relative ~δ²/d²) is ~1e-8.
        let delta: Vec<f64> = over_dhat
            .iter()
            .map(|s| 1e-4 * params.dhat * s.min((s - 1.0).abs()))
            .collect();
        let plane = HalfSpace::new(normal, point);
        let term = BarrierPotential::with_candidates(params, plane_pairs(plane, n, 0.25), &x);
        assert_eq!(
            term.active().len(),
            7,
            "{kind:?}: the seven within d̂ are the elements"
        );
        check_energy::<D>(&term, &x, &step, &delta, &vec![0.0; n]);
        let grad = node_gradient::<D>(&term, &x, &step, 1.0);
        let hess = dense_hessian::<D>(&term, &x, &step, 1.0, false);
        assert!(
            min_relative_eigenvalue(&hess) >= -PSD_REL_TOL,
            "{kind:?}: PSD"
        );
        for (i, s) in over_dhat.iter().enumerate() {
            let inside = *s < 1.0;
            assert_eq!(
                grad[i] != V::<D>::zeros(),
                inside,
                "{kind:?}: force only inside d̂"
            );
            assert_eq!(
                hess[(D * i, D * i)] > 0.0,
                inside,
                "{kind:?}: stiffness inside d̂"
            );
        }
        let outside =
            BarrierPotential::with_candidates(params, plane_pairs(plane, 3, 0.25), &x[7..]);
        assert_eq!(
            outside.value(&x[7..], &step, 1.0),
            0.0,
            "no energy outside d̂"
        );
        assert!(outside.active().is_empty());
    }
}

#[test]
fn barriers_inside_and_outside_dhat_in_2d_and_3d() {
    barriers::<2>();
    barriers::<3>();
}

/// A curved pair written here, to reach the barrier's general path (b″ ∇d∇dᵀ + b′ ∇²d,
/// projected): two nodes at the unsigned distance d = ‖x_a − x_b‖, ∇d = (u, −u) with
/// u = (x_a − x_b)/d, ∇²d = [[P, −P], [−P, P]] with P = (I − u uᵀ)/d.
#[derive(Clone, Copy, Debug)]
struct PointPoint {
    a: usize,
    b: usize,
}

impl<const D: usize> ContactPair<D> for PointPoint {
    const NAME: &'static str = "point-point (test)";
    const NODES: usize = 2;
    const LINEAR: bool = false;
    fn nodes(&self) -> [usize; MAX_STENCIL] {
        [self.a, self.b, 0, 0]
    }
    fn key(&self) -> u64 {
        ((self.a as u64) << 32) | self.b as u64
    }
    fn area(&self) -> f64 {
        0.25
    }
    fn bodies(&self) -> (usize, usize) {
        (0, 1)
    }
    fn distance(&self, x: &[V<D>]) -> f64 {
        (x[self.a] - x[self.b]).norm()
    }
    fn distance_gradient(&self, x: &[V<D>], out: &mut [V<D>; MAX_STENCIL]) {
        let u = (x[self.a] - x[self.b]).normalize();
        out[0] = u;
        out[1] = -u;
    }
    fn distance_hessian(&self, x: &[V<D>], out: &mut [f64]) {
        let d = x[self.a] - x[self.b];
        let u = d.normalize();
        let p = (nalgebra::SMatrix::<f64, D, D>::identity() - u * u.transpose()) / d.norm();
        let n = 2 * D;
        for c in 0..n {
            for r in 0..n {
                let sign = if (r < D) == (c < D) { 1.0 } else { -1.0 };
                out[n * c + r] = sign * p[(r % D, c % D)];
            }
        }
    }
    fn frame(&self, x: &[V<D>]) -> TangentFrame<D> {
        let u = (x[self.a] - x[self.b]).normalize();
        TangentFrame {
            basis: tangent_basis(&u),
            normal: u,
            weights: [1.0, -1.0, 0.0, 0.0],
            surface_velocity: V::<D>::zeros(),
        }
    }
    fn max_step(&self, x: &[V<D>], p: &[V<D>], fraction: f64) -> f64 {
        let closing = (p[self.a] - p[self.b]).norm();
        if closing == 0.0 {
            1.0
        } else {
            (fraction * self.distance(x) / closing).min(1.0)
        }
    }
}

/// The exact Hessian of a barrier through the harness: a wrapper whose `hessian` is
/// [`BarrierPotential::exact_hessian`], everything else the term's own.
struct ExactBarrier<const D: usize, P>(BarrierPotential<D, P>);

impl<const D: usize, P: ContactPair<D>> Energy<D> for ExactBarrier<D, P> {
    fn name(&self) -> &'static str {
        "barrier (exact Hessian)"
    }
    fn elements(&self) -> stickslip_core::energy::Elements<'_> {
        self.0.elements()
    }
    fn value(&self, x: &[V<D>], step: &StepState<D>, w: f64) -> f64 {
        self.0.value(x, step, w)
    }
    fn gradient(&self, x: &[V<D>], step: &StepState<D>, w: f64, out: &mut [V<D>]) {
        self.0.gradient(x, step, w, out)
    }
    fn hessian(&self, x: &[V<D>], _step: &StepState<D>, w: f64, out: &mut [f64]) {
        self.0.exact_hessian(x, w, out)
    }
    fn hessian_is_psd(&self) -> bool {
        false
    }
}

fn curved_barrier<const D: usize>() {
    let mut r = rng();
    // Three pairs of nodes at 0.2, 0.5 and 0.8 d̂ apart in random directions, and one at 2 d̂.
    let dhat = 0.01;
    let mut x = vec![];
    let mut pairs = vec![];
    for (k, s) in [0.2, 0.5, 0.8, 2.0].iter().enumerate() {
        let a = random::<D>(&mut r, 1.0);
        let u = random::<D>(&mut r, 1.0).normalize();
        x.push(a);
        x.push(a + u * (s * dhat));
        pairs.push(PointPoint {
            a: 2 * k,
            b: 2 * k + 1,
        });
    }
    let params = BarrierParams {
        dhat,
        kappa: 1e5,
        kind: BarrierKind::Ipc,
    };
    let term = BarrierPotential::with_candidates(params, pairs, &x);
    assert_eq!(term.active().len(), 3);
    let zeros = vec![V::<D>::zeros(); x.len()];
    let step = state(&zeros, &zeros, 0.01);
    // δ = 1e-6 d̂ ≤ 5e-6 of the smallest distance.
    let exact = ExactBarrier(term.clone());
    check_energy::<D>(
        &exact,
        &x,
        &step,
        &vec![1e-6 * dhat; x.len()],
        &vec![0.0; x.len()],
    );
    // b′ ∇²d is negative semi-definite: the exact blocks are indefinite, the solver's PSD.
    assert!(min_relative_eigenvalue(&dense_hessian::<D>(&exact, &x, &step, 1.0, false)) < -1e-3);
    assert!(
        min_relative_eigenvalue(&dense_hessian::<D>(&term, &x, &step, 1.0, false)) >= -PSD_REL_TOL
    );
}

#[test]
fn a_curved_pair_takes_the_barriers_general_path_in_2d_and_3d() {
    curved_barrier::<2>();
    curved_barrier::<3>();
}

/// A unit vector orthogonal to the unit `e` (random in 3D).
fn orthogonal<const D: usize>(r: &mut ChaCha8Rng, e: &V<D>) -> V<D> {
    if D == 2 {
        return V::<D>::from_fn(|i, _| if i == 0 { -e[1] } else { e[0] });
    }
    let a = random::<D>(r, 1.0);
    (a - e * a.dot(e)).normalize()
}

/// Point–edge pairs with the closest point at e₀, inside the edge and at e₁, at several
/// fractions of d̂, and a vertex–vertex correction (negative weight), through the barrier's
/// general path with its exact Hessian (SPEC.md §7): the distance's gradient and Hessian in
/// each region of the segment, the book's and IPC's kernels. The solver's projected blocks are
/// PSD, also for the negative correction.
fn point_edge_barriers<const D: usize>() {
    let mut r = rng();
    let dhat = 0.01;
    let length = 2.0 * dhat;
    // (t along the edge, distance over d̂): beyond e₀ and e₁ the normal offset is set so that
    // the distance is the one given (the point 0.2 L past the end).
    let layout: [(f64, f64); 7] = [
        (-0.2, 0.6),
        (-0.2, 0.9),
        (0.4, 0.2),
        (0.4, 0.5),
        (0.4, 0.8),
        (1.2, 0.6),
        (0.7, 1.5),
    ];
    let mut x = Vec::new();
    let mut pairs = Vec::new();
    for (k, &(t, s)) in layout.iter().enumerate() {
        let e0 = random::<D>(&mut r, 1.0);
        let dir = random::<D>(&mut r, 1.0).normalize();
        let up = orthogonal(&mut r, &dir);
        let along = if (0.0..=1.0).contains(&t) {
            0.0
        } else {
            (t - t.clamp(0.0, 1.0)) * length
        };
        let height = ((s * dhat).powi(2) - along * along).sqrt();
        x.push(e0 + dir * (t * length) + up * height);
        x.push(e0);
        x.push(e0 + dir * length);
        pairs.push(PointEdge {
            nodes: [3 * k, 3 * k + 1, 3 * k + 2],
            vertex: k as u32,
            edge: k as u32,
            area: 0.05,
            bodies: (0, 1),
        });
    }
    let zeros = vec![V::<D>::zeros(); x.len()];
    let step = state(&zeros, &zeros, 0.01);
    // δ = 1e-6 d̂ = 5e-7 L: t moves by 5e-7, far from 0 and 1; the distance by 1e-6 d̂.
    let delta = vec![1e-6 * dhat; x.len()];
    for kind in [BarrierKind::Book, BarrierKind::Ipc] {
        let params = BarrierParams {
            dhat,
            kappa: 1e5,
            kind,
        };
        let term = BarrierPotential::with_candidates(params, pairs.clone(), &x);
        assert_eq!(
            term.active().len(),
            6,
            "{kind:?}: all but the last within d̂"
        );
        for (pair, &(_, s)) in pairs.iter().zip(&layout) {
            let d = ContactPair::<D>::distance(pair, &x);
            assert!((d - s * dhat).abs() < 1e-12, "{d} vs {}", s * dhat);
        }
        let exact = ExactBarrier(term.clone());
        check_energy::<D>(&exact, &x, &step, &delta, &vec![0.0; x.len()]);
        assert!(
            min_relative_eigenvalue(&dense_hessian::<D>(&term, &x, &step, 1.0, false))
                >= -PSD_REL_TOL
        );
    }
    // Vertex–vertex corrections: a negative weight, at 0.3, 0.6 and 0.9 d̂.
    let mut x = Vec::new();
    let mut pairs = Vec::new();
    for (k, s) in [0.3, 0.6, 0.9].iter().enumerate() {
        let a = random::<D>(&mut r, 1.0);
        x.push(a + random::<D>(&mut r, 1.0).normalize() * (s * dhat));
        x.push(a);
        pairs.push(VertexVertex {
            nodes: [2 * k, 2 * k + 1],
            vertices: [k as u32, k as u32 + 10],
            area: -0.05,
            bodies: (0, 1),
        });
    }
    let zeros = vec![V::<D>::zeros(); x.len()];
    let step = state(&zeros, &zeros, 0.01);
    let params = BarrierParams {
        dhat,
        kappa: 1e5,
        kind: BarrierKind::Ipc,
    };
    let term = BarrierPotential::with_candidates(params, pairs, &x);
    assert!(term.value(&x, &step, 1.0) < 0.0, "a correction lowers E");
    check_energy::<D>(
        &ExactBarrier(term.clone()),
        &x,
        &step,
        &vec![1e-6 * dhat; x.len()],
        &vec![0.0; x.len()],
    );
    // The solver's blocks of a correction are its positive twin's projected blocks negated
    // (they cancel the duplicates'): negative semi-definite, so the term says it is not PSD,
    // and its PSD fallback drops them.
    let solver = dense_hessian::<D>(&term, &x, &step, 1.0, false);
    assert!(min_relative_eigenvalue(&(-&solver)) >= -PSD_REL_TOL);
    assert!(solver.amax() > 0.0);
    assert!(!term.hessian_is_psd());
    assert_eq!(dense_hessian::<D>(&term, &x, &step, 1.0, true).amax(), 0.0);
}

#[test]
fn point_edge_and_vertex_vertex_barriers_in_every_region_in_2d_and_3d() {
    point_edge_barriers::<2>();
    point_edge_barriers::<3>();
}

/// Friction on point–edge pairs lagged by the stage's own code (`tangential::lag`: λ, the
/// frame at the closest points, weights 1, −(1 − t), −t), the point and both edge nodes
/// moving: exact Hessian against finite differences, sticking, in the transition and sliding
/// (relative speeds 0.4, 1.5 and 6 ε_v), with μ_s > μ_k, in 2D and 3D.
fn point_edge_friction<const D: usize>() {
    let mut r = rng();
    let (dhat, eps_v, h) = (0.01, 1e-3, 0.01);
    let mut x_n = Vec::new();
    let mut pairs = Vec::new();
    for (k, t) in [0.3, 0.55, 0.8].iter().enumerate() {
        let e0 = random::<D>(&mut r, 1.0);
        let dir = random::<D>(&mut r, 1.0).normalize();
        let up = orthogonal(&mut r, &dir);
        x_n.push(e0 + dir * (t * 0.05) + up * (0.4 * dhat));
        x_n.push(e0);
        x_n.push(e0 + dir * 0.05);
        pairs.push(PointEdge {
            nodes: [3 * k, 3 * k + 1, 3 * k + 2],
            vertex: k as u32,
            edge: k as u32,
            area: 0.05,
            bodies: (0, 1),
        });
    }
    let barrier = BarrierParams {
        dhat,
        kappa: 1e5,
        kind: BarrierKind::Book,
    };
    let table = FrictionTable::uniform(Coefficients {
        mu_static: 0.5,
        mu_kinetic: 0.3,
    });
    let (mut collisions, mut stencils) = (Vec::new(), Vec::new());
    tangential::lag(
        &pairs,
        &x_n,
        &barrier,
        &table,
        &mut collisions,
        &mut stencils,
    );
    assert_eq!(collisions.len(), 3);
    // Relative tangential speeds 0.4, 1.5 and 6 ε_v (the point moves, the edge nodes move too
    // along a random common velocity plus a spin that the weights must account for).
    let mut x = x_n.clone();
    for (k, s) in [0.4, 1.5, 6.0].iter().enumerate() {
        let c = &collisions[k];
        let tangent = c.frame.basis.column(0).into_owned();
        let common = random::<D>(&mut r, 0.01);
        for j in 0..3 {
            x[3 * k + j] += common * h;
        }
        x[3 * k] += tangent * (s * eps_v * h);
    }
    let params = FrictionParams {
        eps_v,
        projection: Projection::None,
        stick_filter: false,
    };
    let term = FrictionPotential::with_collisions(params, 3, collisions.clone());
    let zeros = vec![V::<D>::zeros(); x.len()];
    let step = state(&zeros, &x_n, h);
    // δ moves the relative speed by δ/h = 1e-4 ε_v·0.4: away from the kinks at ε_v and 2ε_v.
    let delta = vec![4e-5 * eps_v * h; x.len()];
    let lambda = -barrier.first(0.4 * dhat, 0.05);
    let floor = vec![0.5 * lambda / h / eps_v; x.len()];
    check_energy::<D>(&term, &x, &step, &delta, &floor);
    // Exact stick (SPEC.md §9) on the same frames and weights, ε_d = ε_v h: the step's
    // tangential displacements are 0.4, 1.5 and 6 ε_d, each with a carried offset
    // (0.2, 0.1) ε_d (across the tangent plane's second axis in 3D), so ‖s‖ ≈ 0.61, 1.7 and
    // 6.2 ε_d: inside the yield radius and beyond it, ≥ 0.39 ε_d (10⁴ δ) from it; stuck (μ_s)
    // and slipped (μ_k) contacts alternate. The Hessian's scale is μλ/ε_d.
    let eps_d = eps_v * h;
    let anchors = (0..collisions.len())
        .map(|k| StickAnchor {
            offset: Vector2::new(0.2 * eps_d, if D == 3 { 0.1 * eps_d } else { 0.0 }),
            stuck: k % 2 == 0,
        })
        .collect();
    let exact = FrictionPotential::with_collisions(params, 3, collisions)
        .with_stick(StickModel::Exact { eps_d })
        .with_anchors(anchors);
    let floor = vec![0.5 * lambda / eps_d; x.len()];
    check_energy::<D>(&exact, &x, &step, &delta, &floor);
}

#[test]
fn point_edge_friction_sticking_in_transition_and_sliding_in_2d_and_3d() {
    point_edge_friction::<2>();
    point_edge_friction::<3>();
}

fn friction<const D: usize>() {
    let mut r = rng();
    let normal = slope_normal::<D>();
    let (eps_v, h) = (1e-3, 0.01);
    // Tangential speeds over ε_v: sticking below 1, the static-to-kinetic transition in
    // (1, 2), slipping beyond; none within 10 % of the kinks at 1 and 2 (C¹ only there). The
    // last node has no collision, so no friction.
    let over_eps = [0.05, 0.5, 0.9, 1.2, 1.5, 1.8, 3.0, 20.0, 100.0, 0.7];
    let n = over_eps.len();
    let x_n: Vec<V<D>> = (0..n).map(|_| random(&mut r, 1.0)).collect();
    let basis = tangent_basis(&normal);
    let x: Vec<V<D>> = over_eps
        .iter()
        .enumerate()
        .map(|(i, s)| {
            // A random tangent direction, and a normal component too, which friction must
            // ignore.
            let a: f64 = r.random_range(0.0..std::f64::consts::TAU);
            let mut dir = basis.column(0) * a.cos();
            if D == 3 {
                dir += basis.column(1) * a.sin();
            }
            let dir = dir.normalize();
            let v = dir * (s * eps_v) + normal * r.random_range(-0.1..0.1);
            x_n[i] + v * h
        })
        .collect();
    // δx moves v by δx/h: ≤ 1e-4 of the speed and of its distance to either kink.
    let delta: Vec<f64> = over_eps
        .iter()
        .map(|s| 1e-4 * eps_v * h * s.min((s - 1.0).abs()).min((s - 2.0).abs()))
        .collect();
    let lambda = 300.0;
    let zeros = vec![V::<D>::zeros(); n];
    let step = state(&zeros, &x_n, h);
    for (label, stat_over_kinetic) in [("one μ", 1.0), ("μ_s = 4 μ_k", 4.0)] {
        let mu = Coefficients {
            mu_static: 0.1 * stat_over_kinetic,
            mu_kinetic: 0.1,
        };
        let collisions: Vec<TangentialCollision<D>> = (0..n - 1)
            .map(|i| TangentialCollision {
                nodes: [i, 0, 0, 0],
                key: i as u64,
                frame: TangentFrame {
                    basis,
                    normal,
                    weights: [1.0, 0.0, 0.0, 0.0],
                    surface_velocity: V::<D>::zeros(),
                },
                normal_force: lambda,
                coefficients: mu,
                bodies: (0, 1),
            })
            .collect();
        let of = |projection| {
            FrictionPotential::with_collisions(
                FrictionParams {
                    eps_v,
                    projection,
                    stick_filter: false,
                },
                1,
                collisions.clone(),
            )
        };
        let (exact, projected) = (of(Projection::None), of(Projection::Clamp));
        // The Hessian's terms are of size μ_sλ (f₁/y)/h per node.
        let floor: Vec<f64> = over_eps
            .iter()
            .map(|s| mu.mu_static * lambda / h * f1_over_y(s * eps_v, eps_v))
            .collect();
        check_energy::<D>(&exact, &x, &step, &delta, &floor);
        let grad = node_gradient::<D>(&exact, &x, &step, 1.0);
        assert_eq!(
            grad[n - 1],
            V::<D>::zeros(),
            "{label}: no collision, no friction"
        );
        // The solver's projection is PSD and equals the exact Hessian outside the transition
        // (its inner block is PSD there in exact arithmetic) up to rounding; inside it, with
        // μ_s > μ_k, the force falls with speed and the projection changes the Hessian.
        let hp = dense_hessian::<D>(&projected, &x, &step, 1.0, false);
        let he = dense_hessian::<D>(&exact, &x, &step, 1.0, false);
        assert_eq!(hp, dense_hessian::<D>(&exact, &x, &step, 1.0, true));
        let mut changed = false;
        for (i, s) in over_eps.iter().enumerate() {
            let block = |m: &DMatrix<f64>| m.view((D * i, D * i), (D, D)).into_owned();
            let (bp, be) = (block(&hp), block(&he));
            let min = nalgebra::SymmetricEigen::new(bp.clone()).eigenvalues.min();
            assert!(
                min >= -PSD_REL_TOL * floor[i],
                "D = {D}, {label}, node {i}: {min}"
            );
            if (1.0..2.0).contains(s) && stat_over_kinetic > 1.0 {
                changed |= (bp - be).amax() > 1e-6 * floor[i];
            } else {
                let err = (bp - be).amax();
                assert!(
                    err <= 1e-9 * floor[i],
                    "D = {D}, {label}, node {i}: {err:e}"
                );
            }
        }
        assert_eq!(
            changed,
            stat_over_kinetic > 1.0,
            "{label}: projection in the transition"
        );
    }
}

#[test]
fn friction_sticking_in_transition_and_slipping_in_2d_and_3d() {
    friction::<2>();
    friction::<3>();
}

/// A term that is another one with its gradient or its Hessian off by a relative 1e-3: the
/// harness must reject both (a check that passes whatever the derivatives are asserts nothing).
struct Skewed<'a, const D: usize> {
    term: &'a dyn Energy<D>,
    gradient_factor: f64,
    hessian_factor: f64,
}

impl<const D: usize> Energy<D> for Skewed<'_, D> {
    fn name(&self) -> &'static str {
        "skewed"
    }
    fn elements(&self) -> stickslip_core::energy::Elements<'_> {
        self.term.elements()
    }
    fn value(&self, x: &[V<D>], step: &StepState<D>, weight: f64) -> f64 {
        self.term.value(x, step, weight)
    }
    fn gradient(&self, x: &[V<D>], step: &StepState<D>, weight: f64, out: &mut [V<D>]) {
        self.term
            .gradient(x, step, weight * self.gradient_factor, out);
    }
    fn hessian(&self, x: &[V<D>], step: &StepState<D>, weight: f64, out: &mut [f64]) {
        self.term
            .hessian(x, step, weight * self.hessian_factor, out);
    }
}

#[test]
fn the_harness_rejects_a_gradient_or_hessian_off_by_a_thousandth() {
    let normal = slope_normal::<2>();
    let point = -normal;
    let params = BarrierParams {
        dhat: 0.01,
        kappa: 1e5,
        kind: BarrierKind::Book,
    };
    let x = vec![point + normal * 0.005];
    let zeros = vec![Vec2::zeros(); 1];
    let step = state(&zeros, &zeros, 0.01);
    let term = BarrierPotential::with_candidates(
        params,
        plane_pairs(HalfSpace::new(normal, point), 1, 0.25),
        &x,
    );
    let delta = [1e-4 * 0.005];
    check_energy::<2>(&term, &x, &step, &delta, &[0.0]);
    for (g, h) in [(1.001, 1.0), (1.0, 1.001)] {
        let skewed = Skewed::<2> {
            term: &term,
            gradient_factor: g,
            hessian_factor: h,
        };
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            check_energy::<2>(&skewed, &x, &step, &delta, &[0.0])
        }));
        assert!(
            caught.is_err(),
            "gradient ×{g}, Hessian ×{h} passed the harness"
        );
    }
}

/// A mass-spring tetrahedron on a tilted plane in 3D, three nodes inside d̂ sliding at speeds
/// below and above ε_v with static and kinetic μ and implicit lagging's settings, the apex
/// driven (its three degrees of freedom eliminated): the assembled gradient and Hessian over
/// the nine free degrees of freedom against finite differences of E.
#[test]
fn assembled_gradient_and_hessian_of_a_tetrahedron_in_3d() {
    let (dhat, eps_v, h) = (0.01, 1e-3, 0.01);
    let normal = slope_normal::<3>();
    let basis = tangent_basis(&normal);
    let (t1, t2) = (basis.column(0).into_owned(), basis.column(1).into_owned());
    let base = [(0.0, 0.0), (0.3, 0.0), (0.1, 0.25)];
    let mut x0: Vec<V<3>> = base
        .iter()
        .enumerate()
        .map(|(i, (a, b))| t1 * *a + t2 * *b + normal * (dhat * (0.3 + 0.2 * i as f64)))
        .collect();
    x0.push(t1 * 0.12 + t2 * 0.08 + normal * 0.25);
    let settings = SolverSettings {
        h,
        tol: 1e-6,
        max_iterations: 50,
        min_iterations: 1,
        max_halvings: 40,
        filter_fraction: 0.9,
        lagging: Lagging::Implicit,
        lagging_tol: 1e-6,
        initial_guess: InitialGuess::Previous,
        max_lagging: 5,
    };
    let mut b = SystemBuilder::<3>::new(settings);
    let mass = [0.5, 0.7, 0.6, 0.4];
    let mut r = rng();
    let v0: Vec<V<3>> = (0..4).map(|_| random(&mut r, 0.3)).collect();
    b.add_nodes(&x0, &v0, &mass);
    let edges = vec![[0, 1], [1, 2], [2, 0], [0, 3], [1, 3], [2, 3]];
    let rest_l2 = edges
        .iter()
        .map(|&[a, c]| (x0[a] - x0[c]).norm_squared() / 1.03)
        .collect();
    b.add_potential(Box::new(SpringEnergy::new(
        edges,
        rest_l2,
        500.0,
        Projection::Clamp,
    )));
    b.add_potential(Box::new(GravityEnergy::new(
        mass.to_vec(),
        V::<3>::new(0.0, 0.0, -9.81),
    )));
    let mut surface = ContactSurface::default();
    for node in 0..4 {
        surface.push(node, 0.01, 0);
    }
    let mut table = FrictionTable::uniform(Coefficients {
        mu_static: 0.4,
        mu_kinetic: 0.2,
    });
    table.bodies = 1;
    let mut stage = ContactStage::new(
        BarrierParams {
            dhat,
            kappa: 1e4,
            kind: BarrierKind::Ipc,
        },
        FrictionParams {
            eps_v,
            projection: Projection::Clamp,
            stick_filter: true,
        },
        table,
    );
    stage.add_half_spaces(surface, &[(HalfSpace::new(normal, V::<3>::zeros()), 1)]);
    b.set_contact(stage);
    b.add_driver(Box::new(LinearMotion::new(
        "apex",
        vec![3],
        vec![x0[3]],
        V::<3>::new(0.1, 0.0, 0.0),
        [true; 3],
    )));
    let mut sim = Simulation::new(b.build().unwrap()).unwrap();
    sim.begin_step();
    let x_n = sim.previous_positions().to_vec();
    // The base slides at 0.3, 3 and 30 ε_v in different tangent directions; the apex is where
    // its driver put it.
    let mut x = sim.x.clone();
    for (i, s) in [0.3, 3.0, 30.0].iter().enumerate() {
        let a = 1.7 * i as f64;
        x[i] =
            x_n[i] + (t1 * a.cos() + t2 * a.sin()) * (s * eps_v * h) + normal * (1e-5 * i as f64);
    }
    assert_eq!(assembled_system_matches(&mut sim, &x, 1e-9), 9);
}

/// The inversion barrier's exact (unprojected) Hessian through the harness: a wrapper whose
/// `hessian` is [`InversionEnergy::exact_hessian`], everything else the term's own.
struct ExactInversion(InversionEnergy);

impl Energy<2> for ExactInversion {
    fn name(&self) -> &'static str {
        "inversion (exact Hessian)"
    }
    fn elements(&self) -> stickslip_core::energy::Elements<'_> {
        self.0.elements()
    }
    fn value(&self, x: &[Vec2], step: &StepState<2>, w: f64) -> f64 {
        self.0.value(x, step, w)
    }
    fn gradient(&self, x: &[Vec2], step: &StepState<2>, w: f64, out: &mut [Vec2]) {
        self.0.gradient(x, step, w, out)
    }
    fn hessian(&self, x: &[Vec2], _step: &StepState<2>, w: f64, out: &mut [f64]) {
        self.0.exact_hessian(x, w, out)
    }
    fn hessian_is_psd(&self) -> bool {
        false
    }
}

#[test]
fn inversion_barrier_squashed_and_at_rest() {
    let mut r = rng();
    let (n_seg, cell) = (2, 0.5);
    let x0: Vec<Vec2> = (0..=n_seg)
        .flat_map(|i| (0..=n_seg).map(move |j| Vec2::new(i as f64 * cell, j as f64 * cell)))
        .collect();
    let constants = Inversion {
        kappa: 1e4,
        ratio: 0.5,
    };
    let triangles = cell_triangles(n_seg);
    let term = InversionEnergy::new(triangles.clone(), &x0, constants);
    // The first column of cells squashed to 0.3 of its height, the second left at 0.9; every
    // node jittered by ±0.02 m (4 % of a cell): triangles from r ≈ 0.2 to ≈ 1.
    let x: Vec<Vec2> = x0
        .iter()
        .enumerate()
        .map(|(k, p)| {
            let squash = if k / (n_seg + 1) == 0 { 0.3 } else { 0.9 };
            Vec2::new(p.x, p.y * squash)
                + Vec2::new(r.random_range(-0.02..0.02), r.random_range(-0.02..0.02))
        })
        .collect();
    let ratios: Vec<f64> = triangles
        .iter()
        .map(|t| {
            let rest = signed_area(&x0[t[0]], &x0[t[1]], &x0[t[2]]);
            signed_area(&x[t[0]], &x[t[1]], &x[t[2]]) / rest
        })
        .collect();
    // Active and inactive triangles, none within 0.02 of ŝ (where b is only C²) nor near 0.
    assert!(ratios.iter().any(|&q| q < 0.45) && ratios.iter().any(|&q| q > 0.55));
    assert!(
        ratios.iter().all(|&q| q > 0.1 && (q - 0.5).abs() > 0.02),
        "{ratios:?}"
    );
    let zeros = vec![Vec2::zeros(); x.len()];
    let step = state(&zeros, &zeros, 0.01);
    // δ = 1e-7 m moves r by ~|∇a|δ/a₀ ≈ 0.5·1e-7/0.125 = 4e-7 ≤ 4e-6 r (r > 0.1) and stays
    // 5·10⁴ δ's from ŝ: truncation ~1e-12 relative; rounding ε|E|/δ ≈ 1e-16·10³/1e-7 = 1e-6 N
    // against gradients of ~10³ N. The Hessian floor is κ_A (its entries are κ_A times
    // dimensionless factors of order 1–100).
    let n = x.len();
    check_energy::<2>(
        &ExactInversion(term.clone()),
        &x,
        &step,
        &vec![1e-7; n],
        &vec![constants.kappa; n],
    );
    // The solver's blocks: PSD (the exact ones are not), and zero at rest (r = 1 ≥ ŝ).
    assert!(term.hessian_is_psd());
    let exact = dense_hessian::<2>(&ExactInversion(term.clone()), &x, &step, 1.0, false);
    assert!(min_relative_eigenvalue(&exact) < -0.01);
    let projected = dense_hessian::<2>(&term, &x, &step, 1.0, false);
    assert!(min_relative_eigenvalue(&projected) >= -PSD_REL_TOL);
    assert_eq!(
        dense_hessian::<2>(&term, &x0, &step, 1.0, false).amax(),
        0.0
    );
    assert_eq!(term.value(&x0, &step, 1.0), 0.0);
}

/// The Kuhn split of a cube of side `side` in D dimensions: its 2^D corners (corner bits c₀ …
/// give node Σ cₐ 2ᵃ at side·c) and D! simplices, one per permutation π of the axes, from the
/// origin adding the unit steps e_π(1), e_π(2), … in turn; each put in positive order.
fn kuhn_cube<const D: usize>(side: f64) -> (Vec<V<D>>, Vec<usize>) {
    let x0: Vec<V<D>> = (0..1usize << D)
        .map(|c| V::<D>::from_fn(|a, _| side * ((c >> a) & 1) as f64))
        .collect();
    let perms: Vec<Vec<usize>> = if D == 2 {
        vec![vec![0, 1], vec![1, 0]]
    } else {
        vec![
            vec![0, 1, 2],
            vec![0, 2, 1],
            vec![1, 0, 2],
            vec![1, 2, 0],
            vec![2, 0, 1],
            vec![2, 1, 0],
        ]
    };
    let mut nodes = Vec::new();
    for p in perms {
        let mut el = vec![0usize];
        let mut c = 0usize;
        for a in p {
            c |= 1 << a;
            el.push(c);
        }
        let dm = nalgebra::SMatrix::<f64, D, D>::from_fn(|r, k| x0[el[k + 1]][r] - x0[el[0]][r]);
        if neo_hookean::determinant(&dm) < 0.0 {
            el.swap(0, 1);
        }
        nodes.extend(el);
    }
    (x0, nodes)
}

const RUBBER: Elasticity = Elasticity {
    youngs_modulus: 1e5,
    poisson_ratio: 0.4,
};

/// The stable neo-Hookean (SPEC.md §7) with its exact Hessian through the harness, on a cube of
/// side 0.5 m split into D! simplices that share nodes (so their blocks overlap), deformed so
/// that some elements are stretched (J > 1), some compressed (J < 1) and one inverted (J < 0):
/// the energy is defined for every F. Then the solver's blocks: PSD where the exact ones are
/// not, equal to the exact ones (to rounding) at a uniform stretch, where they are PSD.
fn neo_hookean_elements<const D: usize>() {
    let mut r = rng();
    let (x0, nodes) = kuhn_cube::<D>(0.5);
    let n = x0.len();
    let exact = NeoHookean::<D>::new(nodes.clone(), &x0, RUBBER, Projection::None).unwrap();
    let clamped = NeoHookean::<D>::new(nodes, &x0, RUBBER, Projection::Clamp).unwrap();
    // Node 1 (corner e₀) is in the simplices whose first step is along axis 0: pushed through
    // the facet opposite it, they invert; the rest are jittered by ±0.08 m.
    let mut x: Vec<V<D>> = x0
        .iter()
        .map(|p| p * 1.05 + random::<D>(&mut r, 0.08))
        .collect();
    x[1] = V::<D>::from_fn(|a, _| if a == 0 { 0.1 } else { 0.4 });
    let ratios = exact.volume_ratios(&x);
    assert!(
        ratios.iter().any(|&j| j < 0.0) && ratios.iter().any(|&j| j > 1.0),
        "D = {D}: inverted and stretched elements, {ratios:?}"
    );
    assert!(ratios.iter().all(|j| j.abs() > 0.05), "{ratios:?}");
    let zeros = vec![V::<D>::zeros(); n];
    let step = state(&zeros, &zeros, 0.01);
    // Element sizes ≥ 0.1 m: δ = 1e-7 m is ≤ 1e-6 of them (truncation ~1e-12 relative);
    // rounding ε|E|/δ ≈ 1e-16·10⁴ J/1e-7 m ≈ 1e-5 N against gradients of 10³–10⁵ N.
    check_energy::<D>(&exact, &x, &step, &vec![1e-7; n], &vec![0.0; n]);
    assert!(!Energy::<D>::hessian_is_psd(&exact) && Energy::<D>::hessian_is_psd(&clamped));
    assert!(min_relative_eigenvalue(&dense_hessian::<D>(&exact, &x, &step, 1.0, false)) < -1e-3);
    let projected = dense_hessian::<D>(&clamped, &x, &step, 1.0, false);
    assert!(min_relative_eigenvalue(&projected) >= -PSD_REL_TOL);
    assert_eq!(projected, dense_hessian::<D>(&exact, &x, &step, 1.0, true));
    let stretched: Vec<V<D>> = x0.iter().map(|p| p * 1.1).collect();
    let (a, b) = (
        dense_hessian::<D>(&exact, &stretched, &step, 1.0, false),
        dense_hessian::<D>(&clamped, &stretched, &step, 1.0, false),
    );
    assert!((a - &b).amax() <= 1e-10 * b.amax(), "D = {D}");
}

#[test]
fn neo_hookean_stretched_compressed_and_inverted_in_2d_and_3d() {
    neo_hookean_elements::<2>();
    neo_hookean_elements::<3>();
}

/// The orthogonality potential of an affine body (`energy::orthogonality`) through the
/// harness on the Kuhn cube's simplices (which share nodes), each standing for a body of its own
/// κ V, deformed by a random stretch and shear of up to 30 % and a turn: the exact Hessian
/// against finite differences. Then, independently of the harness: a rigid motion of the rest
/// shape costs nothing and exerts no force (its value is κ V ‖AᵀA − I‖², zero at a rotation up
/// to rounding κ V ε²); the projected blocks are PSD, and equal the exact ones where A is a
/// rotation (there ∂²Ψ/∂A² = 4 κ V sym(Aᵀ dA)-squared, PSD as it is).
fn orthogonality_elements<const D: usize>() {
    let mut r = rng();
    let (x0, nodes) = kuhn_cube::<D>(0.5);
    let n = x0.len();
    let k = nodes.len() / (D + 1);
    let kv: Vec<f64> = (0..k).map(|e| 1e3 * (1.0 + e as f64)).collect();
    let exact = Orthogonality::<D>::new(nodes.clone(), &x0, kv.clone(), Projection::None).unwrap();
    let clamped = Orthogonality::<D>::new(nodes, &x0, kv, Projection::Clamp).unwrap();
    let strain = nalgebra::SMatrix::<f64, D, D>::from_fn(|_, _| r.random_range(-0.3..0.3));
    let x: Vec<V<D>> = x0
        .iter()
        .map(|p| p + strain * p + random::<D>(&mut r, 0.02))
        .collect();
    let zeros = vec![V::<D>::zeros(); n];
    let step = state(&zeros, &zeros, 0.01);
    // Lengths ≥ 0.1 m and strains ≤ 0.3: δ = 1e-7 m keeps truncation ~1e-12 relative; values
    // ~10³ J round to ~1e-13 J, ~1e-6 N over 2δ against forces of 10³–10⁴ N.
    check_energy::<D>(&exact, &x, &step, &vec![1e-7; n], &vec![0.0; n]);
    assert!(!Energy::<D>::hessian_is_psd(&exact) && Energy::<D>::hessian_is_psd(&clamped));
    let projected = dense_hessian::<D>(&clamped, &x, &step, 1.0, false);
    assert!(min_relative_eigenvalue(&projected) >= -PSD_REL_TOL);
    assert_eq!(projected, dense_hessian::<D>(&exact, &x, &step, 1.0, true));
    // A rigid motion: turned by 0.7 rad (about z in 3D) and moved.
    let (c, s) = (0.7f64.cos(), 0.7f64.sin());
    let turn = nalgebra::SMatrix::<f64, D, D>::from_fn(|i, j| match (i, j) {
        (0, 0) | (1, 1) => c,
        (0, 1) => -s,
        (1, 0) => s,
        _ => (i == j) as u8 as f64,
    });
    let moved: Vec<V<D>> = x0.iter().map(|p| turn * p + V::<D>::repeat(0.4)).collect();
    assert!(exact.value(&moved, &step, 1.0) < 1e-20);
    let g = node_gradient::<D>(&exact, &moved, &step, 1.0);
    assert!(g.iter().all(|gi| gi.amax() < 1e-9), "D = {D}: {g:?}");
    let (a, b) = (
        dense_hessian::<D>(&exact, &moved, &step, 1.0, false),
        dense_hessian::<D>(&clamped, &moved, &step, 1.0, false),
    );
    assert!((a - &b).amax() <= 1e-10 * b.amax(), "D = {D}");
}

#[test]
fn orthogonality_stretched_sheared_and_turned_in_2d_and_3d() {
    orthogonality_elements::<2>();
    orthogonality_elements::<3>();
}

/// An affine body's embedded contact vertices against a half-space
/// (`contact::candidates::embedded_plane_vertex`): four control nodes in general position, and
/// vertices at weights inside and outside their simplex (negative weights), within and beyond
/// d̂. The barrier over them through the harness against finite differences; its gradient on the
/// control nodes is, independently, each vertex's own force along the normal shared out by its
/// weights (wⱼ times it), computed here from the vertex's distance with the barrier written
/// out; friction over their lagged frames (weights w, the plane's basis) through the harness at
/// a sliding and a sticking vertex.
fn embedded_vertices<const D: usize>() {
    let normal = slope_normal::<D>();
    let point = -normal;
    let mut r = rng();
    // Heights 4, 6, 8 and 12 mm over the plane, anywhere along it: a vertex's distance is
    // Σ wⱼ hⱼ (the weights sum to 1).
    let x: Vec<V<D>> = [0.004, 0.006, 0.008, 0.012]
        .iter()
        .map(|&height| {
            let t = random::<D>(&mut r, 0.3);
            point + normal * height + (t - normal * t.dot(&normal))
        })
        .collect();
    let plane = HalfSpace::new(normal, point);
    let weights = [
        [0.25, 0.25, 0.25, 0.25],
        [1.2, -0.1, -0.05, -0.05],
        [-0.3, 0.6, 0.4, 0.3],
        [0.1, 0.1, 0.1, 0.7],
        [0.0, 0.0, 2.5, -1.5],
        [0.0, 0.0, 0.0, 1.0],
    ];
    let pairs: Vec<EmbeddedPlaneVertex<D>> = weights
        .iter()
        .enumerate()
        .map(|(vertex, &w)| EmbeddedPlaneVertex {
            nodes: [0, 1, 2, 3],
            weights: w,
            vertex,
            area: 0.01,
            body: 0,
            plane: 0,
            obstacle: 1,
            half_space: plane,
        })
        .collect();
    let dhat = 0.01;
    let params = BarrierParams {
        dhat,
        kappa: 1e5,
        kind: BarrierKind::Ipc,
    };
    // 7.5, 3.2, 9.2, 10.2, 2 and 12 mm: four within d̂, two beyond.
    let d: Vec<f64> = pairs.iter().map(|p| p.distance(&x)).collect();
    let heights = [0.004, 0.006, 0.008, 0.012];
    for (p, &di) in pairs.iter().zip(&d) {
        let expected: f64 = (0..4).map(|j| p.weights[j] * heights[j]).sum();
        assert!((di - expected).abs() < 1e-15, "{di} {expected}");
    }
    let term = BarrierPotential::with_candidates(params, pairs.clone(), &x);
    let zeros = vec![V::<D>::zeros(); 4];
    let step = state(&zeros, &zeros, 0.01);
    check_energy::<D>(&term, &x, &step, &[1e-8; 4], &[0.0; 4]);
    // IPC's b(d) = −(κ/2d̂) (d − d̂)² ln(d/d̂), b′(d) = −(κ/2d̂) (2 (d − d̂) ln(d/d̂) +
    // (d − d̂)²/d); node j's force A b′ wⱼ n.
    let mut expected = [V::<D>::zeros(); 4];
    for (p, &di) in pairs.iter().zip(&d) {
        if di < dhat {
            let db = -1e5 / (2.0 * dhat)
                * (2.0 * (di - dhat) * (di / dhat).ln() + (di - dhat).powi(2) / di);
            for (e, w) in expected.iter_mut().zip(p.weights) {
                *e += normal * (0.01 * db * w);
            }
        }
    }
    let grad = node_gradient::<D>(&term, &x, &step, 1.0);
    for j in 0..4 {
        assert!(
            (grad[j] - expected[j]).amax() <= 1e-9 * expected[j].amax().max(1e-12),
            "D = {D}, node {j}: {:?} vs {:?}",
            grad[j],
            expected[j]
        );
    }
    let (eps_v, h) = (1e-3, 0.01);
    // The body translating along the plane (and off it, which friction ignores) at 0.5 ε_v
    // (sticking) and 5 ε_v (sliding): every vertex then moves at that speed, Σ wⱼ = 1.
    for speed in [0.5, 5.0] {
        let t = basis_column::<D>(&normal);
        let u = t * (speed * eps_v) + normal * 0.01;
        let x_n: Vec<V<D>> = x.iter().map(|p| p - u * h).collect();
        embedded_friction::<D>(&pairs, &x, &x_n, eps_v, h, speed);
    }
}

/// The first tangent of the plane of normal `n`.
fn basis_column<const D: usize>(n: &V<D>) -> V<D> {
    tangent_basis(n).column(0).into_owned()
}

/// Friction over the lagged frames of `pairs` at `x_n` through the harness at `x`, the vertices
/// all moving at `speed` ε_v.
fn embedded_friction<const D: usize>(
    pairs: &[EmbeddedPlaneVertex<D>],
    x: &[V<D>],
    x_n: &[V<D>],
    eps_v: f64,
    h: f64,
    speed: f64,
) {
    let zeros = vec![V::<D>::zeros(); 4];
    let step = state(&zeros, x_n, h);
    let collisions: Vec<TangentialCollision<D>> = pairs
        .iter()
        .enumerate()
        .map(|(i, p)| TangentialCollision {
            nodes: p.nodes,
            key: i as u64,
            frame: p.frame(x_n),
            normal_force: 50.0,
            coefficients: Coefficients {
                mu_static: 0.3,
                mu_kinetic: 0.3,
            },
            bodies: (0, 1),
        })
        .collect();
    let friction = FrictionPotential::with_collisions(
        FrictionParams {
            eps_v,
            projection: Projection::None,
            stick_filter: false,
        },
        1,
        collisions,
    );
    // δ = 1e-10 m moves a vertex's speed by ≤ 3e-8 m/s (|w| ≤ 2.5), ≤ 6e-5 of the speed and
    // of its distance to the kinks at ε_v and 2 ε_v. The Hessian's terms are of size
    // μ λ (f₁/y)/h per vertex, times wⱼ² ≤ 6.25.
    let floor = vec![0.3 * 50.0 / h * f1_over_y(speed * eps_v, eps_v); 4];
    check_energy::<D>(&friction, x, &step, &[1e-10; 4], &floor);
}

#[test]
fn embedded_vertices_against_a_half_space_in_2d_and_3d() {
    embedded_vertices::<2>();
    embedded_vertices::<3>();
}

/// Stiffness-proportional damping (`energy::stiffness_damping`) on the Kuhn cube: xⁿ deformed
/// (so K(xⁿ) is not the rest one, and its projection acts), x another deformation. Through the
/// harness (gradient and Hessian against finite differences of its value). Independently of the
/// harness: its Hessian is β/h times the clamped neo-Hookean's at xⁿ (the force −β K v of the
/// module comment), it changes when xⁿ changes (the lag is per step, not stale), and a rigid
/// translation of xⁿ gives it no value (K's null space: translations are not damped).
fn stiffness_damping<const D: usize>() {
    let mut r = rng();
    let (x0, nodes) = kuhn_cube::<D>(0.5);
    let n = x0.len();
    let (beta, h) = (2e-3, 0.01);
    let elastic = NeoHookean::<D>::new(nodes.clone(), &x0, RUBBER, Projection::Clamp).unwrap();
    let term = StiffnessDamping::new(elastic.clone(), beta);
    let x_n: Vec<V<D>> = x0
        .iter()
        .map(|p| p * 0.95 + random::<D>(&mut r, 0.04))
        .collect();
    let x: Vec<V<D>> = x_n.iter().map(|p| p + random::<D>(&mut r, 0.03)).collect();
    let step = state(&x_n, &x_n, h);
    // A quadratic: central differences are exact up to rounding, δ = 1e-6 m.
    check_energy::<D>(&term, &x, &step, &vec![1e-6; n], &vec![0.0; n]);
    let k = dense_hessian::<D>(&elastic, &x_n, &step, 1.0, false);
    let d = dense_hessian::<D>(&term, &x, &step, 1.0, false);
    assert!((&d - &k * (beta / h)).amax() <= 1e-12 * d.amax(), "D = {D}");
    let moved: Vec<V<D>> = x_n.iter().map(|p| p * 1.02).collect();
    let step2 = state(&moved, &moved, h);
    let d2 = dense_hessian::<D>(&term, &x, &step2, 1.0, false);
    assert!(
        (&d2 - &d).amax() > 1e-3 * d.amax(),
        "D = {D}: K lagged at the old xⁿ"
    );
    let shift = V::<D>::from_fn(|a, _| 0.3 - 0.1 * a as f64);
    let translated: Vec<V<D>> = x_n.iter().map(|p| p + shift).collect();
    let e = term.value(&translated, &step, 1.0);
    let scale = term.value(&x, &step, 1.0);
    assert!(
        e.abs() <= 1e-12 * scale,
        "D = {D}: a translation costs {e} (a deformation {scale})"
    );
}

#[test]
fn stiffness_damping_in_2d_and_3d() {
    stiffness_damping::<2>();
    stiffness_damping::<3>();
}

/// Settings of a system assembled at one step (semi-implicit lagging, Newton from the previous
/// x): the neo-Hookean tests' assemblies.
fn one_step_settings(h: f64) -> SolverSettings {
    SolverSettings {
        h,
        tol: 1e-6,
        max_iterations: 50,
        min_iterations: 1,
        max_halvings: 40,
        filter_fraction: 0.9,
        lagging: Lagging::SemiImplicit,
        lagging_tol: 1e-6,
        initial_guess: InitialGuess::Previous,
        max_lagging: 5,
    }
}

/// A neo-Hookean cube (exact Hessian, so the assembled matrix must be the exact one) resting
/// with its bottom corners inside d̂ of a plane, sliding at speeds below and above ε_v, one
/// top corner driven: the assembled gradient and Hessian over the free degrees of freedom
/// against finite differences of E, in 2D and 3D.
fn assembled_neo_hookean<const D: usize>() {
    let (dhat, eps_v, h) = (0.01, 1e-3, 0.01);
    let side = 0.2;
    let (mut x0, nodes) = kuhn_cube::<D>(side);
    // Bottom corners (last coordinate 0) at 0.3 … 0.6 d̂ above the plane x_{D−1} = 0.
    for (i, p) in x0.iter_mut().enumerate() {
        p[D - 1] += dhat * (0.3 + 0.1 * (i % 4) as f64);
    }
    let settings = one_step_settings(h);
    let mut b = SystemBuilder::<D>::new(settings);
    let n = x0.len();
    let mass = vec![1000.0 * side.powi(D as i32) / n as f64; n];
    let mut r = rng();
    let v0: Vec<V<D>> = (0..n).map(|_| random(&mut r, 0.3)).collect();
    b.add_nodes(&x0, &v0, &mass);
    b.add_potential(Box::new(
        NeoHookean::<D>::new(nodes, &x0, RUBBER, Projection::None).unwrap(),
    ));
    let mut g = V::<D>::zeros();
    g[D - 1] = -9.81;
    b.add_potential(Box::new(GravityEnergy::new(mass.clone(), g)));
    let mut surface = ContactSurface::default();
    for node in 0..n {
        surface.push(node, side, 0);
    }
    let mut table = FrictionTable::uniform(Coefficients {
        mu_static: 0.5,
        mu_kinetic: 0.3,
    });
    table.bodies = 1;
    let mut stage = ContactStage::new(
        BarrierParams {
            dhat,
            kappa: 1e4,
            kind: BarrierKind::Ipc,
        },
        FrictionParams {
            eps_v,
            projection: Projection::Clamp,
            stick_filter: true,
        },
        table,
    );
    let mut up = V::<D>::zeros();
    up[D - 1] = 1.0;
    stage.add_half_spaces(surface, &[(HalfSpace::new(up, V::<D>::zeros()), 1)]);
    b.set_contact(stage);
    let top = n - 1;
    let mut along = V::<D>::zeros();
    along[0] = 0.1;
    b.add_driver(Box::new(LinearMotion::new(
        "top corner",
        vec![top],
        vec![x0[top]],
        along,
        [true; D],
    )));
    let mut sim = Simulation::new(b.build().unwrap()).unwrap();
    sim.begin_step();
    let x_n = sim.previous_positions().to_vec();
    // The bottom corners slide at 0.3, 3, 30 (and 0.6) ε_v in different directions; the others
    // move by up to 2 mm, deforming the cube by ~1 %.
    let mut x = sim.x.clone();
    let mut k = 0;
    for i in 0..n {
        if i == top {
            continue;
        }
        if x0[i][D - 1] < dhat {
            let a = 1.7 * k as f64;
            let mut t = V::<D>::zeros();
            t[0] = a.cos();
            if D == 3 {
                t[1] = a.sin();
            }
            x[i] = x_n[i] + t * ([0.3, 3.0, 30.0, 0.6][k] * eps_v * h);
            k += 1;
        } else {
            x[i] = x_n[i] + random::<D>(&mut r, 2e-3);
        }
    }
    assert_eq!(k, 1 << (D - 1), "every bottom corner inside d̂");
    assert_eq!(assembled_system_matches(&mut sim, &x, 1e-9), D * (n - 1));
}

#[test]
fn assembled_gradient_and_hessian_of_neo_hookean_cubes_on_a_plane() {
    assembled_neo_hookean::<2>();
    assembled_neo_hookean::<3>();
}

/// The vertex–vertex corrections cancel the duplicate point–edge pairs exactly: two flat chains
/// of collinear edges (the faces of two stacked boxes, 0.1 m segments, 0.5 d̂ apart), the upper
/// shifted along the lower by fractions of a segment and of d̂ (so points sit over edge
/// interiors, near vertices, and exactly over vertices). Through the stage's own candidates:
/// (a) the barrier's value equals Σ over both chains' vertices of w A b(distance to the other
/// chain) (the barrier of the union of the other chain's edges, computed here as a minimum over
/// segments); (b) the solver's Hessian (duplicates' projected blocks plus the corrections'
/// negated ones) equals the solver's Hessian of the interior pairs alone, up to rounding.
#[test]
fn vertex_vertex_corrections_cancel_duplicate_point_edge_pairs() {
    use stickslip_core::contact::candidates::point_edge::AREA_WEIGHT;
    use stickslip_core::contact::distance::point_edge::{self, Region};
    let dhat = 0.01;
    let params = BarrierParams {
        dhat,
        kappa: 1e5,
        kind: BarrierKind::Book,
    };
    let (segments, spacing, area) = (6usize, 0.1, 0.1);
    // The upper chain starts at 0.15 m + shift: its vertices mid-segment over the lower's at
    // shift 0, exactly over them at 0.05, and 0.1, 3 and 8 mm (0.01 to 0.8 d̂) off them.
    for shift in [0.0, 0.05, 0.05 + 1e-4, 0.05 - 3e-3, 0.05 + 8e-3] {
        // Chain 0 at y = 0 (body 0), chain 1 at y = 0.5 d̂ (body 1), nodes 0..=6 and 7..=13.
        let mut x: Vec<V<2>> = Vec::new();
        let mut surface = ContactSurface::default();
        for body in 0..2 {
            let start = x.len();
            for k in 0..=segments {
                let offset = if body == 1 { shift + 0.15 } else { 0.0 };
                x.push(V::<2>::new(
                    k as f64 * spacing + offset,
                    body as f64 * 0.5 * dhat,
                ));
                surface.push(start + k, area, body);
                if k > 0 {
                    surface.push_edge([start + k - 1, start + k], body);
                }
            }
        }
        let mut table = FrictionTable::uniform(Coefficients::single(0.3));
        table.bodies = 2;
        let mut stage = ContactStage::<2>::new(
            params,
            FrictionParams {
                eps_v: 1e-3,
                projection: Projection::Clamp,
                stick_filter: false,
            },
            table,
        );
        stage.add_point_edges(surface.clone());
        stage.find_candidates(&x, &x);
        stage.update(&x);
        let zeros = vec![V::<2>::zeros(); x.len()];
        let step = state(&zeros, &zeros, 0.01);
        let barriers: Vec<&dyn Energy<2>> = stage
            .potentials()
            .filter(|t| t.name() == "barrier")
            .collect();
        let value: f64 = barriers.iter().map(|t| t.value(&x, &step, 1.0)).sum();
        // (a) The union-distance barrier, by brute force.
        let mut union = 0.0;
        for (i, &node) in surface.vertices.iter().enumerate() {
            let d = surface
                .edges
                .iter()
                .zip(&surface.edge_body)
                .filter(|(_, b)| **b != surface.body[i])
                .map(|(&[a, b], _)| point_edge::distance(&x[node], &x[a], &x[b]))
                .fold(f64::INFINITY, f64::min);
            union += params.value(d, AREA_WEIGHT * area);
        }
        assert!(
            (value - union).abs() <= 1e-12 * union,
            "shift {shift}: stage {value} vs union {union}"
        );
        // (b) The interior pairs alone: every vertex against the other chain's edge whose
        // interior (or, exactly over a vertex, the first) holds its closest point.
        let mut interior = Vec::new();
        for (i, &node) in surface.vertices.iter().enumerate() {
            let own = surface.body[i];
            let best = surface
                .edges
                .iter()
                .enumerate()
                .filter(|(j, _)| surface.edge_body[*j] != own)
                .map(|(j, &[a, b])| {
                    let (_, region) = point_edge::closest(&x[node], &x[a], &x[b]);
                    (j, point_edge::distance(&x[node], &x[a], &x[b]), region)
                })
                .filter(|(_, d, _)| *d < dhat)
                .min_by(|p, q| {
                    (p.2 != Region::Interior)
                        .cmp(&(q.2 != Region::Interior))
                        .then(p.1.total_cmp(&q.1))
                });
            if let Some((j, _, _)) = best {
                let [a, b] = surface.edges[j];
                interior.push(PointEdge {
                    nodes: [node, a, b],
                    vertex: i as u32,
                    edge: j as u32,
                    area: AREA_WEIGHT * area,
                    bodies: (own, surface.edge_body[j]),
                });
            }
        }
        let singles = interior.len();
        let alone = BarrierPotential::with_candidates(params, interior, &x);
        let active: usize = barriers.iter().map(|t| t.elements().len()).sum();
        assert_eq!(
            active > singles,
            shift != 0.0,
            "shift {shift}: duplicates and corrections are active near the vertices ({active} pairs, {singles} single)"
        );
        let expected = dense_hessian::<2>(&alone, &x, &step, 1.0, false);
        let mut got = DMatrix::<f64>::zeros(2 * x.len(), 2 * x.len());
        for t in &barriers {
            got += dense_hessian::<2>(*t, &x, &step, 1.0, false);
        }
        let err = (&got - &expected).amax();
        assert!(
            err <= 1e-9 * expected.amax(),
            "shift {shift}: Hessians differ by {err:e} (scale {:e})",
            expected.amax()
        );
    }
}

/// Point–triangle pairs of contact area 0.05, one per entry of `layout` (barycentric weights of
/// the foot on the triangle's plane, distance over `dhat`), each on its own random triangle
/// with sides about 2 d̂; a foot outside the triangle is pushed further out in-plane so the
/// closest point is on its boundary. The positions and the pairs.
fn point_triangle_pairs(
    r: &mut ChaCha8Rng,
    dhat: f64,
    layout: &[([f64; 3], f64)],
) -> (Vec<V<3>>, Vec<PointTriangle>) {
    let length = 2.0 * dhat;
    let mut x: Vec<V<3>> = Vec::new();
    let mut triangles = Vec::new();
    for (k, &(w, s)) in layout.iter().enumerate() {
        let t0 = random::<3>(r, 1.0);
        let e1 = random::<3>(r, 1.0).normalize() * length;
        let e2 = orthogonal(r, &e1.normalize()) * length * 0.8 + e1 * 0.3;
        let t = [t0, t0 + e1, t0 + e2];
        let normal = e1.cross(&e2).normalize();
        let foot = t[0] * w[0] + t[1] * w[1] + t[2] * w[2];
        // The in-plane distance from the foot to the triangle, for a foot outside it.
        let outside = stickslip_core::contact::distance::point_triangle::distance(&foot, &t);
        let height = ((s * dhat).powi(2) - outside * outside).sqrt();
        x.push(foot + normal * height);
        x.extend_from_slice(&t);
        triangles.push(PointTriangle {
            nodes: [4 * k, 4 * k + 1, 4 * k + 2, 4 * k + 3],
            vertex: k as u32,
            triangle: k as u32,
            area: 0.05,
            bodies: (0, 1),
        });
    }
    (x, triangles)
}

/// Edge–edge pairs of contact area 0.05, one per entry of `cases` (angle between the edges,
/// rad; distance over `dhat`), both centred over each other so the closest points are inside
/// both. The positions and the pairs.
fn edge_edge_pairs(
    r: &mut ChaCha8Rng,
    dhat: f64,
    cases: &[(f64, f64)],
) -> (Vec<V<3>>, Vec<EdgeEdge>) {
    use stickslip_core::contact::distance::edge_edge::mollifier_threshold;
    let length = 2.0 * dhat;
    let mut x: Vec<V<3>> = Vec::new();
    let mut edges = Vec::new();
    for (k, &(angle, s)) in cases.iter().enumerate() {
        let c = random::<3>(r, 1.0);
        let u = random::<3>(r, 1.0).normalize();
        let up = orthogonal(r, &u);
        let side = up.cross(&u);
        let v = u * angle.cos() + side * angle.sin();
        let (a0, a1) = (c - u * (0.5 * length), c + u * (0.5 * length));
        let cb = c + up * (s * dhat);
        let (b0, b1) = (cb - v * (0.6 * length), cb + v * (0.6 * length));
        let nodes = [a0, a1, b0, b1];
        x.extend_from_slice(&nodes);
        edges.push(EdgeEdge {
            nodes: [4 * k, 4 * k + 1, 4 * k + 2, 4 * k + 3],
            first: k as u32,
            second: k as u32,
            area: 0.05,
            threshold: mollifier_threshold(&nodes),
            bodies: (0, 1),
        });
    }
    (x, edges)
}

/// Point–triangle pairs (the point over the face, beside an edge, beyond a vertex) and
/// edge–edge pairs (crossing, and nearly parallel within the mollifier's threshold, m ≈ 0.64)
/// at fractions of d̂, through the barrier's general path with its exact Hessian, the
/// mollified energy m A b(d) included (SPEC.md §7): gradient and Hessian against central
/// differences; the solver's projected blocks PSD.
#[test]
fn point_triangle_and_edge_edge_barriers_match_finite_differences_in_3d() {
    let mut r = rng();
    let dhat = 0.01;
    // (barycentric weights of the foot on the triangle's plane, distance over d̂); a foot
    // outside the triangle is pushed further out in-plane so the closest point is on its
    // boundary.
    let layout: [([f64; 3], f64); 4] = [
        ([0.3, 0.3, 0.4], 0.3),
        ([0.2, 0.5, 0.3], 0.8),
        ([0.55, -0.1, 0.55], 0.6),
        ([1.15, -0.05, -0.1], 0.5),
    ];
    let (x, triangles) = point_triangle_pairs(&mut r, dhat, &layout);
    let zeros = vec![V::<3>::zeros(); x.len()];
    let step = state(&zeros, &zeros, 0.01);
    let delta = vec![1e-6 * dhat; x.len()];
    let params = BarrierParams {
        dhat,
        kappa: 1e5,
        kind: BarrierKind::Ipc,
    };
    let term = BarrierPotential::with_candidates(params, triangles.clone(), &x);
    for (pair, &(_, s)) in triangles.iter().zip(&layout) {
        let d = ContactPair::<3>::distance(pair, &x);
        assert!((d - s * dhat).abs() < 1e-12, "{d} vs {}", s * dhat);
    }
    assert_eq!(term.active().len(), 4);
    check_energy::<3>(
        &ExactBarrier(term.clone()),
        &x,
        &step,
        &delta,
        &vec![0.0; x.len()],
    );
    assert!(
        min_relative_eigenvalue(&dense_hessian::<3>(&term, &x, &step, 1.0, false)) >= -PSD_REL_TOL
    );

    // Edge pairs: (angle between the edges, rad; distance over d̂), both centred over each
    // other, so the closest points are inside both.
    let (x, edges) = edge_edge_pairs(&mut r, dhat, &[(1.2, 0.4), (0.6, 0.7), (0.02, 0.5)]);
    let zeros = vec![V::<3>::zeros(); x.len()];
    let step = state(&zeros, &zeros, 0.01);
    let term = BarrierPotential::with_candidates(params, edges.clone(), &x);
    assert_eq!(term.active().len(), 3);
    let mut gm = [V::<3>::zeros(); 4];
    let mut hm = [0.0; 144];
    let m = ContactPair::<3>::mollifier(&edges[2], &x, &mut gm, &mut hm);
    assert!(
        m > 0.5 && m < 0.8,
        "the nearly parallel pair's mollifier: {m}"
    );
    check_energy::<3>(
        &ExactBarrier(term.clone()),
        &x,
        &step,
        &delta,
        &vec![0.0; x.len()],
    );
    assert!(
        min_relative_eigenvalue(&dense_hessian::<3>(&term, &x, &step, 1.0, false)) >= -PSD_REL_TOL
    );
}

/// The normal damping's checks over `pairs` lagged at `x_n` (each within d̂ there): value,
/// gradient and Hessian at an x displaced from `x_n` by `size` against central differences;
/// each collision's stiffness against the second central difference of the barrier's own value
/// (`BarrierParams::value`, times the mollifier of a mollified pair) at d(xⁿ); its opening
/// s = ∇d(xⁿ)·(x − xⁿ) against d(x) − d(xⁿ) to first order (for a displacement of 0.02 d̂ and
/// one 10⁻³ times that, the difference must shrink by about 10⁻⁶, at least 10⁻⁵, where an error
/// of the first order would shrink it by 10⁻³ only); and the blocks PSD.
fn normal_damping_over<const D: usize, P: ContactPair<D>>(
    pairs: &[P],
    x_n: &[V<D>],
    params: &BarrierParams,
    size: f64,
) {
    use stickslip_core::contact::collisions::damped;
    use stickslip_core::contact::potentials::normal_damping::NormalDampingPotential;
    let mut r = rng();
    let (mut collisions, mut stencils) = (Vec::new(), Vec::new());
    damped::lag(pairs, x_n, params, &mut collisions, &mut stencils);
    assert_eq!(collisions.len(), pairs.len(), "every pair is within d̂");
    assert_eq!(stencils.len(), P::NODES * pairs.len());
    for (c, pair) in collisions.iter().zip(pairs) {
        let d = pair.distance(x_n);
        let e = 1e-4 * d;
        let mut m = 1.0;
        if P::MOLLIFIED {
            let mut g = [V::<D>::zeros(); MAX_STENCIL];
            let mut hm = vec![0.0; (D * MAX_STENCIL).pow(2)];
            m = pair.mollifier(x_n, &mut g, &mut hm);
        }
        let b = |d: f64| m * params.value(d, pair.area());
        let second = (b(d + e) - 2.0 * b(d) + b(d - e)) / (e * e);
        assert!(
            (c.stiffness - second).abs() <= 1e-5 * second.abs(),
            "stiffness {} vs the barrier's second difference {second}",
            c.stiffness
        );
        let dx: Vec<V<D>> = (0..x_n.len())
            .map(|_| random::<D>(&mut r, 0.02 * params.dhat))
            .collect();
        let misfit = |scale: f64| {
            let x: Vec<V<D>> = x_n.iter().zip(&dx).map(|(a, b)| a + b * scale).collect();
            (c.opening(&x, x_n, P::NODES) - (pair.distance(&x) - d)).abs()
        };
        let (far, near) = (misfit(1.0), misfit(1e-3));
        // 10⁻¹⁵ m: the rounding of a distance taken from coordinates of about 1 m (where d is
        // linear in x, as for a half-space, both misfits are that rounding alone).
        assert!(
            near <= 1e-5 * far + 1e-15,
            "opening not first order in the displacement: {far:e} at 1, {near:e} at 1e-3"
        );
    }
    let beta = 2e-3;
    let term = NormalDampingPotential::with_collisions(beta, P::NODES, collisions);
    let x: Vec<V<D>> = x_n.iter().map(|a| a + random::<D>(&mut r, size)).collect();
    let step = state(x_n, x_n, 1e-3);
    let delta = vec![1e-3 * size; x.len()];
    check_energy::<D>(&term, &x, &step, &delta, &vec![0.0; x.len()]);
    assert!(term.hessian_is_psd());
    assert!(
        min_relative_eigenvalue(&dense_hessian::<D>(&term, &x, &step, 1.0, false)) >= -PSD_REL_TOL
    );
    // The force on a stencil moving at velocity v is −β_c k (∇d·v) ∇d per node: at rest, none.
    let rest = node_gradient(&term, x_n, &step, 1.0);
    assert!(rest.iter().all(|g| g.amax() == 0.0));
}

/// The normal damping (`contact::potentials::normal_damping`, docs/model.md "Contact damping")
/// over node × half-space pairs in 2D and 3D, point–edge pairs in 2D, point–triangle pairs and
/// edge–edge pairs (one nearly parallel, mollified) in 3D, each at fractions of d̂.
#[test]
fn normal_damping_matches_finite_differences_and_the_barriers_stiffness() {
    let mut r = rng();
    let dhat = 0.01;
    let length = 2.0 * dhat;
    let params = BarrierParams {
        dhat,
        kappa: 1e5,
        kind: BarrierKind::Book,
    };
    // Nodes over a half-space, at 0.2, 0.5 and 0.9 d̂.
    fn plane_case<const D: usize>(params: &BarrierParams) {
        let n = slope_normal::<D>();
        let plane = HalfSpace::new(n, V::<D>::zeros());
        let pairs = plane_pairs(plane, 3, 0.05);
        let mut r = rng();
        let x_n: Vec<V<D>> = [0.2, 0.5, 0.9]
            .iter()
            .map(|s| orthogonal(&mut r, &n) * 0.3 + n * (s * params.dhat))
            .collect();
        normal_damping_over(&pairs, &x_n, params, 1e-4 * params.dhat);
    }
    plane_case::<2>(&params);
    plane_case::<3>(&params);
    // Point–edge pairs in 2D: over the edge and beyond an end.
    let mut x = Vec::new();
    let mut pairs = Vec::new();
    for (k, &(t, s)) in [(0.4, 0.3), (0.7, 0.8), (1.2, 0.6)].iter().enumerate() {
        let e0 = random::<2>(&mut r, 1.0);
        let dir = random::<2>(&mut r, 1.0).normalize();
        let up = V::<2>::new(-dir.y, dir.x);
        let along = (t - f64::clamp(t, 0.0, 1.0)) * length;
        let height = ((s * dhat).powi(2) - along * along).sqrt();
        x.extend_from_slice(&[e0 + dir * (t * length) + up * height, e0, e0 + dir * length]);
        pairs.push(PointEdge {
            nodes: [3 * k, 3 * k + 1, 3 * k + 2],
            vertex: k as u32,
            edge: k as u32,
            area: 0.05,
            bodies: (0, 1),
        });
    }
    normal_damping_over(&pairs, &x, &params, 1e-4 * dhat);
    // Point–triangle pairs in 3D: the foot inside the triangle and beside an edge.
    let (x, triangles) = point_triangle_pairs(
        &mut r,
        dhat,
        &[([0.3, 0.3, 0.4], 0.3), ([0.55, -0.1, 0.55], 0.6)],
    );
    normal_damping_over(&triangles, &x, &params, 1e-4 * dhat);
    // Edge–edge pairs: crossing, and nearly parallel (mollified).
    let (x, edges) = edge_edge_pairs(&mut r, dhat, &[(1.2, 0.4), (0.02, 0.5)]);
    normal_damping_over(&edges, &x, &params, 1e-4 * dhat);
}

/// A body of 1 296 tetrahedra (6 × 6 × 6 Kuhn cubes), at or above the size whose blocks the
/// solver makes one element at a time as it scatters them, the two halves of the mesh in
/// parallel (`Energy::assembles_by_element`, `solver::assembly`): its assembled Hessian (M +
/// h² Σ Vₑ Gᵀ K G, projected) equals the one summed here densely from the term's own block
/// buffer ([`Energy::hessian`]) and the lumped masses, at a randomly deformed x, within
/// rounding (10⁻¹² of the largest entry: the two add the same blocks in different orders), on
/// a 1 029-degree-of-freedom system with one node driven.
#[test]
fn a_large_body_assembled_by_element_gives_its_blocks_sum() {
    let (cells, side, h) = (6usize, 0.05, 1e-3);
    let (cube, local) = kuhn_cube::<3>(side);
    let index = |i: usize, j: usize, k: usize| i + (cells + 1) * (j + (cells + 1) * k);
    let mut x0 = Vec::new();
    for k in 0..=cells {
        for j in 0..=cells {
            for i in 0..=cells {
                x0.push(V::<3>::new(i as f64, j as f64, k as f64) * side);
            }
        }
    }
    let mut nodes = Vec::new();
    for k in 0..cells {
        for j in 0..cells {
            for i in 0..cells {
                for &c in &local {
                    let p = cube[c] / side;
                    nodes.push(index(i + p.x as usize, j + p.y as usize, k + p.z as usize));
                }
            }
        }
    }
    let n = x0.len();
    let nh = NeoHookean::<3>::new(nodes, &x0, RUBBER, Projection::Clamp).unwrap();
    assert!(nh.len() == 1296 && nh.assembles_by_element());
    let settings = one_step_settings(h);
    let mut b = SystemBuilder::<3>::new(settings);
    let mass = vec![1000.0 * (side * cells as f64).powi(3) / n as f64; n];
    b.add_nodes(&x0, &vec![V::<3>::zeros(); n], &mass);
    b.add_potential(Box::new(nh.clone()));
    b.add_driver(Box::new(LinearMotion::new(
        "corner",
        vec![0],
        vec![x0[0]],
        V::<3>::zeros(),
        [true; 3],
    )));
    let mut sim = Simulation::new(b.build().unwrap()).unwrap();
    sim.begin_step();
    let mut r = rng();
    let x: Vec<V<3>> = x0
        .iter()
        .map(|p| p + random::<3>(&mut r, 0.1 * side))
        .collect();
    let (_, lower) = sim.assembled_gradient_and_hessian(&x).unwrap();
    let free = 3 * (n - 1);
    assert_eq!(lower.nrows(), free);
    // The reference: M + h² Σ blocks, over the free degrees of freedom (node 0 driven).
    let x_tilde = x.clone();
    let step = StepState {
        x_tilde: &x_tilde,
        x_n: &x_tilde,
        h,
        time: h,
    };
    let mut blocks = vec![0.0; nh.elements().hessian_len(3)];
    nh.hessian(&x, &step, h * h, &mut blocks);
    let mut dense = DMatrix::<f64>::zeros(3 * n, 3 * n);
    for (k, m) in mass.iter().enumerate() {
        for c in 0..3 {
            dense[(3 * k + c, 3 * k + c)] += m;
        }
    }
    let stickslip_core::energy::Elements::Tuples { nodes, .. } = nh.elements() else {
        unreachable!("tetrahedra")
    };
    for (e, el) in nodes.chunks_exact(4).enumerate() {
        for c in 0..12 {
            for rr in 0..12 {
                dense[(3 * el[rr / 3] + rr % 3, 3 * el[c / 3] + c % 3)] +=
                    blocks[144 * e + 12 * c + rr];
            }
        }
    }
    let expected = dense.view((3, 3), (free, free)).into_owned();
    let mut got = DMatrix::<f64>::zeros(free, free);
    for (row, col, v) in lower.triplet_iter() {
        got[(row, col)] = *v;
        got[(col, row)] = *v;
    }
    let scale = expected.amax();
    let err = (&got - &expected).amax();
    assert!(err <= 1e-12 * scale, "{err} of {scale}");
    // The blocks are the projected ones: some element's projection changed its block.
    let mut exact = vec![0.0; blocks.len()];
    NeoHookean::<3>::new(nodes.to_vec(), &x0, RUBBER, Projection::None)
        .unwrap()
        .hessian(&x, &step, h * h, &mut exact);
    assert!(exact.iter().zip(&blocks).any(|(a, b)| a != b));
}
