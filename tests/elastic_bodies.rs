//! Neo-Hookean bodies (SPEC.md §7) against linear elasticity's closed form: a bar hanging
//! under its own weight from its top face, built by hand in 3D (a tetrahedral box) and, in 2D,
//! through a scene case file (`material = "neo_hookean"`).
//!
//! **The hanging bar.** A bar of length L, density ρ and Young's modulus E hangs from its top
//! in gravity g. At height s above its bottom the bar below weighs ρ g A s, so the axial
//! stress is σ(s) = ρ g s (uniaxial: the sides are free) and the axial strain σ/E. The bottom
//! moves down, relative to the top, by
//!
//!     δ = ∫₀ᴸ ρ g s / E ds = ρ g L² / (2E),
//!
//! whatever Poisson's ratio (it only sets the lateral contraction). In the thickness-free 2D
//! model (plane strain, `energy::neo_hookean`) the uniaxial modulus is E/(1 − ν²) in place of
//! E. Two things separate the simulation from δ: the finite strain (the model differs from
//! linear elasticity by O(ε) relatively, ε ≤ ρ g L/E = 1e-3 here), and the mesh (linear
//! elements for a displacement quadratic along the bar: nodal values exact in 1D, and with
//! ν = 0 there is no lateral coupling; with ν > 0 a clamped top stops the contraction next to
//! it, so the ν > 0 case hangs from rollers, which fix only the vertical component of the top
//! face, leaving an error of order ν (w/L)² from the flat top the exact solution does not
//! have, 0.3·0.01 = 3e-3 here). Each is at most a few 1e-3, so the elongation must be within
//! 1 % of δ. The bar starts at rest, unstretched, and is stepped with a long step so that
//! implicit Euler damps every oscillation (amplitude × 1/√(1 + ω²h²) per step): its slowest
//! mode is the sway of a cantilever, ω = 3.516 √(E I/(ρ A L⁴)) = 3.516 √(E w²/(12 ρ L⁴)) ≈
//! 20 rad/s for the 3D bar, so h = 0.05 s damps it by 0.7 a step and 60 steps (3 s) leave
//! 5e-10 of it (the axial modes, from (π/2L)√(E/ρ) = 157 rad/s up, far less). That it is at
//! rest is checked by equilibrium: the vertical force the held top exerts (its degrees of
//! freedom's share of ∇E/h², the constraint force) equals the bar's weight M g to 1e-6, which
//! leaves no room for inertial forces.

use nalgebra::{Rotation3, SVector};
use stickslip::contact::ContactSurface;
use stickslip::energy::Projection;
use stickslip::energy::gravity::GravityEnergy;
use stickslip::energy::neo_hookean::Elasticity;
use stickslip::scene::bodies::Material;
use stickslip::scene::bodies::cuboid::cuboid;
use stickslip::solver::driver::LinearMotion;
use stickslip::solver::{InitialGuess, Lagging, Simulation, SolverSettings, SystemBuilder};

type V3 = SVector<f64, 3>;

/// The 1 % bound of the module comment (finite strain ≤ 1e-3, mesh and top-face effects of a
/// few 1e-3).
const ELONGATION_REL_TOL: f64 = 0.01;

const G: f64 = 9.81;

fn settings(h: f64) -> SolverSettings {
    SolverSettings {
        h,
        // 1e-6 m/s: a step's last correction under h·tol = 5e-8 m, 1e-4 of the 5e-4 m
        // elongation.
        tol: 1e-6,
        max_iterations: 100,
        max_halvings: 60,
        filter_fraction: 0.9,
        lagging: Lagging::SemiImplicit,
        lagging_tol: 1e-6,
        initial_guess: InitialGuess::Previous,
        max_lagging: 5,
    }
}

/// A 0.2 × 0.2 × 1 m bar of 2 × 2 × 10 cells (240 tetrahedra), ρ = 1000 kg/m³,
/// E = 1e7 Pa, its top face held (every component, or only the vertical with `rollers`, then
/// one top node fixed and a second fixed across to stop the rigid motions), hung for 3 s at
/// h = 0.05 s. Returns the mean downward displacement of the bottom face, m, and the vertical
/// force the top exerts over the weight.
fn hang_3d(poisson_ratio: f64, rollers: bool) -> (f64, f64) {
    let (w, l) = (0.2, 1.0);
    let mesh = cuboid(
        V3::new(w, w, l),
        [2, 2, 10],
        V3::zeros(),
        &Rotation3::identity(),
        1000.0,
    )
    .unwrap();
    let material = Material::NeoHookean(Elasticity {
        youngs_modulus: 1e7,
        poisson_ratio,
    });
    let mut b = SystemBuilder::<3>::new(settings(0.05));
    let mut surface = ContactSurface::default();
    let nodes = mesh.add_to(
        &mut b,
        V3::zeros(),
        &material,
        Projection::Clamp,
        0,
        &mut surface,
    );
    b.add_potential(Box::new(GravityEnergy::new(
        mesh.mass.clone(),
        V3::new(0.0, 0.0, -G),
    )));
    let top: Vec<usize> = (0..mesh.len())
        .filter(|&i| mesh.x0[i].z > l / 2.0 - 1e-9)
        .collect();
    let bottom: Vec<usize> = (0..mesh.len())
        .filter(|&i| mesh.x0[i].z < -l / 2.0 + 1e-9)
        .collect();
    assert_eq!((top.len(), bottom.len()), (9, 9));
    let start = |set: &[usize]| set.iter().map(|&i| mesh.x0[i]).collect::<Vec<_>>();
    if rollers {
        // The corner (−w/2, −w/2) fixed; the corner (+w/2, −w/2) fixed in y (and z); the
        // rest in z only.
        let corner = top[0];
        let along_x = *top
            .iter()
            .find(|&&i| mesh.x0[i].x > 0.0 && mesh.x0[i].y < -w / 4.0)
            .unwrap();
        let rest: Vec<usize> = top
            .iter()
            .copied()
            .filter(|&i| i != corner && i != along_x)
            .collect();
        b.add_driver(Box::new(LinearMotion::new(
            "corner",
            vec![nodes.start + corner],
            start(&[corner]),
            V3::zeros(),
            [true; 3],
        )));
        b.add_driver(Box::new(LinearMotion::new(
            "along x",
            vec![nodes.start + along_x],
            start(&[along_x]),
            V3::zeros(),
            [false, true, true],
        )));
        b.add_driver(Box::new(LinearMotion::new(
            "rollers",
            rest.iter().map(|&i| nodes.start + i).collect(),
            start(&rest),
            V3::zeros(),
            [false, false, true],
        )));
    } else {
        b.add_driver(Box::new(LinearMotion::new(
            "top",
            top.iter().map(|&i| nodes.start + i).collect(),
            start(&top),
            V3::zeros(),
            [true; 3],
        )));
    }
    let mut sim = Simulation::new(b.build().unwrap()).unwrap();
    for _ in 0..60 {
        sim.step().unwrap();
    }
    assert_eq!(mesh.inverted_tets(&sim.x), 0);
    let drop = bottom
        .iter()
        .map(|&i| mesh.x0[i].z - sim.x[i].z)
        .sum::<f64>()
        / bottom.len() as f64;
    let h2 = 0.05f64 * 0.05;
    let held: f64 = top.iter().map(|&i| sim.last_gradient()[i].z).sum::<f64>() / h2;
    let weight = mesh.mass.iter().sum::<f64>() * G;
    (drop, held / weight)
}

#[test]
fn a_3d_neo_hookean_bar_hangs_by_rho_g_l_squared_over_2e() {
    let delta = 1000.0 * G * 1.0 / (2.0 * 1e7);
    for (nu, rollers) in [(0.0, false), (0.3, true)] {
        let (drop, held) = hang_3d(nu, rollers);
        let rel = drop / delta - 1.0;
        eprintln!(
            "3D ν = {nu}: elongation {drop:.6e} m, ρgL²/2E = {delta:.6e} m, relative error {rel:.2e}; held force / weight − 1 = {:.1e}",
            held - 1.0
        );
        assert!(
            (held - 1.0).abs() < 1e-6,
            "at rest: held force / weight {held}"
        );
        assert!(
            rel.abs() < ELONGATION_REL_TOL,
            "ν = {nu}: {drop} vs {delta}"
        );
    }
}
