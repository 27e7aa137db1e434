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

use std::path::{Path, PathBuf};
use std::process::Command;

use nalgebra::{Rotation3, SVector};
use stickslip::contact::ContactSurface;
use stickslip::energy::gravity::GravityEnergy;
use stickslip::energy::neo_hookean::Elasticity;
use stickslip::energy::{Projection, Vec2};
use stickslip::scene::bodies::Material;
use stickslip::scene::bodies::cuboid::cuboid;
use stickslip::scene::bodies::rectangle::rectangle;
use stickslip::scene::multibody::MultibodyScene;
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
        min_iterations: 1,
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

/// The 2D bar of the module comment hung from rollers by hand: a 0.2 × 1 m box of 2 × 10 cells
/// (areal density 1000 kg/m², E = 1e7 Pa, ν = 0.3), its top row held vertically (its left
/// corner also across). The thickness-free 2D model is plane strain: the bottom drops by
/// (1 − ν²) ρ g L²/(2E).
#[test]
fn a_2d_neo_hookean_bar_on_rollers_hangs_by_the_plane_strain_modulus() {
    let (w, l, nu) = (0.2, 1.0, 0.3);
    let mesh =
        rectangle(w, l, 2, 10, Vec2::zeros(), 0.0, 1000.0, 0.1).with_area_lumped_masses(1000.0);
    let material = Material::NeoHookean(Elasticity {
        youngs_modulus: 1e7,
        poisson_ratio: nu,
    });
    let mut b = SystemBuilder::<2>::new(settings(0.05));
    let mut surface = ContactSurface::default();
    mesh.add_to(
        &mut b,
        Vec2::zeros(),
        &material,
        Projection::Clamp,
        0,
        &mut surface,
    );
    b.add_potential(Box::new(GravityEnergy::new(
        mesh.mass.clone(),
        Vec2::new(0.0, -G),
    )));
    let top: Vec<usize> = (0..mesh.len())
        .filter(|&i| mesh.x0[i].y > l / 2.0 - 1e-9)
        .collect();
    let bottom: Vec<usize> = (0..mesh.len())
        .filter(|&i| mesh.x0[i].y < -l / 2.0 + 1e-9)
        .collect();
    let start = |set: &[usize]| set.iter().map(|&i| mesh.x0[i]).collect::<Vec<_>>();
    b.add_driver(Box::new(LinearMotion::new(
        "corner",
        vec![top[0]],
        start(&top[..1]),
        Vec2::zeros(),
        [true, true],
    )));
    b.add_driver(Box::new(LinearMotion::new(
        "rollers",
        top[1..].to_vec(),
        start(&top[1..]),
        Vec2::zeros(),
        [false, true],
    )));
    let mut sim = Simulation::new(b.build().unwrap()).unwrap();
    for _ in 0..60 {
        sim.step().unwrap();
    }
    assert_eq!(mesh.inverted_triangles(&sim.x), 0);
    let drop = bottom
        .iter()
        .map(|&i| mesh.x0[i].y - sim.x[i].y)
        .sum::<f64>()
        / bottom.len() as f64;
    let held: f64 = top.iter().map(|&i| sim.last_gradient()[i].y).sum::<f64>() / (0.05 * 0.05);
    let weight = mesh.mass.iter().sum::<f64>() * G;
    let delta = (1.0 - nu * nu) * 1000.0 * G * l * l / (2.0 * 1e7);
    let rel = drop / delta - 1.0;
    eprintln!(
        "2D ν = {nu} on rollers: elongation {drop:.6e} m, (1 − ν²)ρgL²/2E = {delta:.6e} m, relative error {rel:.2e}; held force / weight − 1 = {:.1e}",
        held / weight - 1.0
    );
    assert!(
        (held / weight - 1.0).abs() < 1e-6,
        "at rest: {held} vs {weight}"
    );
    assert!(rel.abs() < ELONGATION_REL_TOL, "{drop} vs {delta}");
}

/// The hanging-bar case as a scene file (`kind = "scene"`): a neo-Hookean box whose top row a
/// `move` driver holds still, ν = 0 so that the clamped top stops no contraction.
const BAR_CASE: &str = r#"kind = "scene"
name = "neo-Hookean bar hanging from its top"

[gravity]
acceleration = [0.0, -9.81]

[bodies.bar]
shape = "box"
width = 0.2
height = 1.0
nx = 2
ny = 10
centre = [0.0, 0.0]
density = 1000.0
material = "neo_hookean"
youngs_modulus = 1.0e7
poisson_ratio = 0.0

[drivers.top]
type = "move"
body = "bar"
nodes = "top"
velocity = [0.0, 0.0]

[friction]
mu_static = 0.0
mu_kinetic = 0.0
eps_v = 1.0e-3

[barrier]
dhat = 1.0e-3
kappa = 1.0

[time]
h = 0.05
duration = 3.0

[newton]
tol = 1.0e-6
max_iterations = 100
max_halvings = 60
"#;

fn write_case(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// The scene case kind builds the neo-Hookean bar with masses lumped from its triangles (their
/// sum the box's ρ w L), and it hangs by ρ g L²/(2E) (ν = 0, module comment).
#[test]
fn a_neo_hookean_bar_in_a_scene_file_hangs_by_rho_g_l_squared_over_2e() {
    let dir = tempfile::tempdir().unwrap();
    let case = write_case(dir.path(), "bar.toml", BAR_CASE);
    let scene = MultibodyScene::load(&case, &[]).unwrap();
    let body = &scene.bodies[0];
    assert!(matches!(body.material, Material::NeoHookean(_)));
    let mass: f64 = body.mesh.mass.iter().sum();
    assert!((mass - 1000.0 * 0.2 * 1.0).abs() < 1e-9);
    // Lumped from the triangles: an interior node carries a cell's mass, ρ w L/20 (six
    // triangles of half a cell, a third of each), which the even spread over the 33 nodes
    // (ρ w L/33 each) would not give.
    assert!(
        body.mesh
            .mass
            .iter()
            .any(|&m| (m - mass / 20.0).abs() < 1e-9)
    );
    let (system, layout) = scene.system();
    let mut sim = Simulation::new(system).unwrap();
    for _ in 0..scene.steps_for(scene.settings.duration) {
        sim.step().unwrap();
    }
    let nodes = layout.bodies[0].clone();
    let x: Vec<Vec2> = sim.x[nodes.clone()].to_vec();
    assert_eq!(body.mesh.inverted_triangles(&x), 0);
    let bottom: Vec<usize> = (0..body.local.len())
        .filter(|&i| body.local[i].y < -0.5 + 1e-9)
        .collect();
    let drop = bottom
        .iter()
        .map(|&i| body.mesh.x0[i].y - x[i].y)
        .sum::<f64>()
        / bottom.len() as f64;
    let held: f64 = scene.drivers[0]
        .nodes
        .iter()
        .map(|&i| sim.last_gradient()[nodes.start + i].y)
        .sum::<f64>()
        / (scene.settings.h * scene.settings.h);
    assert!((held / (mass * G) - 1.0).abs() < 1e-6, "at rest: {held} N");
    let delta = 1000.0 * G * 1.0 / (2.0 * 1e7);
    let rel = drop / delta - 1.0;
    eprintln!(
        "2D scene ν = 0: elongation {drop:.6e} m, ρgL²/2E = {delta:.6e} m, relative error {rel:.2e}"
    );
    assert!(rel.abs() < ELONGATION_REL_TOL, "{drop} vs {delta}");
}

fn run(case: &Path, out: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_stickslip"))
        .arg("run")
        .arg(case)
        .args(["--gpu", "off", "--out"])
        .arg(out)
        .output()
        .unwrap()
}

/// A body section's material and mesh keys broken one at a time: each run exits 2 with one
/// line naming the case file, the key and the rule (and, for a mesh file, that file and the
/// element by its tag), and writes nothing.
#[test]
fn bad_materials_and_mesh_files_exit_2_naming_file_key_and_rule() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    // disk.msh with triangle 18's first two nodes swapped (as in
    // crates/stickslip-sim/tests/scene/mesh_files.rs).
    let disk = std::fs::read_to_string(data.join("disk.msh")).unwrap();
    let line = disk
        .lines()
        .find(|l| l.starts_with("18 ") && l.split_whitespace().count() == 4)
        .unwrap();
    let n: Vec<&str> = line.split_whitespace().collect();
    std::fs::write(
        p.join("inverted.msh"),
        disk.replace(line, &format!("18 {} {} {} ", n[2], n[1], n[3])),
    )
    .unwrap();
    let as_mesh = |file: &str| {
        BAR_CASE.replace(
            "shape = \"box\"\nwidth = 0.2\nheight = 1.0\nnx = 2\nny = 10\n",
            &format!("shape = \"mesh\"\nfile = \"{file}\"\n"),
        )
    };
    let cases: Vec<(&str, String, Vec<&str>)> = vec![
        (
            "rubber.toml",
            BAR_CASE.replace("material = \"neo_hookean\"", "material = \"rubber\""),
            vec!["bodies.bar.material", "neo_hookean", "rubber"],
        ),
        (
            "no_modulus.toml",
            BAR_CASE.replace("youngs_modulus = 1.0e7\n", ""),
            vec!["bodies.bar.youngs_modulus", "missing"],
        ),
        (
            "negative_modulus.toml",
            BAR_CASE.replace("youngs_modulus = 1.0e7", "youngs_modulus = -1.0"),
            vec!["bodies.bar.youngs_modulus"],
        ),
        (
            "incompressible.toml",
            BAR_CASE.replace("poisson_ratio = 0.0", "poisson_ratio = 0.5"),
            vec!["bodies.bar.poisson_ratio", "(-1, 0.5)"],
        ),
        (
            "stiffness.toml",
            BAR_CASE.replace(
                "poisson_ratio = 0.0",
                "poisson_ratio = 0.0\nstiffness = 1.0e4",
            ),
            vec!["bodies.bar.stiffness", "neo_hookean"],
        ),
        (
            "spring_modulus.toml",
            BAR_CASE.replace("material = \"neo_hookean\"", "stiffness = 1.0e4"),
            vec!["bodies.bar.youngs_modulus", "mass_spring"],
        ),
        (
            "no_file.toml",
            as_mesh("x").replace("file = \"x\"\n", ""),
            vec!["bodies.bar.file", "missing"],
        ),
        (
            "missing_file.toml",
            as_mesh("nowhere.msh"),
            vec!["bodies.bar.file", "nowhere.msh", "cannot read"],
        ),
        (
            "inverted_file.toml",
            as_mesh("inverted.msh"),
            vec!["bodies.bar.file", "inverted.msh", "element 18 is inverted"],
        ),
        (
            "mesh_width.toml",
            as_mesh("inverted.msh").replace("file =", "width = 0.2\nfile ="),
            vec!["bodies.bar.width", "shape = \"mesh\""],
        ),
    ];
    for (name, text, needles) in cases {
        let case = write_case(p, name, &text);
        let out = p.join(format!("out_{name}"));
        let o = run(&case, &out);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{name}: {err}");
        let lines: Vec<&str> = err.lines().collect();
        assert_eq!(lines.len(), 1, "{name}: one line: {err}");
        assert!(lines[0].contains(name), "{name}: names the file: {err}");
        for n in needles {
            assert!(lines[0].contains(n), "{name}: names {n}: {err}");
        }
        assert!(!out.exists(), "{name} wrote {}", out.display());
    }
}

/// A Gmsh disk as a neo-Hookean body of a scene (its file relative to the case file), dropped
/// 5 mm onto a floor: placed with its area-weighted centroid at `centre`, its mass ρ times its
/// area, and after 0.5 s in contact with the floor (its lowest node inside d̂ and above the
/// floor) with no triangle inverted.
#[test]
fn a_gmsh_disk_in_a_scene_lands_on_a_floor() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    std::fs::copy(data.join("disk.msh"), p.join("disk.msh")).unwrap();
    let text = BAR_CASE
        .replace(
            "shape = \"box\"\nwidth = 0.2\nheight = 1.0\nnx = 2\nny = 10\ncentre = [0.0, 0.0]",
            "shape = \"mesh\"\nfile = \"disk.msh\"\ncentre = [0.3, 0.106]",
        )
        .replace(
            "[drivers.top]\ntype = \"move\"\nbody = \"bar\"\nnodes = \"top\"\nvelocity = [0.0, 0.0]\n",
            "[obstacles.floor]\ntype = \"half_space\"\nnormal = [0.0, 1.0]\npoint = [0.0, 0.0]\n",
        )
        .replace("youngs_modulus = 1.0e7", "youngs_modulus = 1.0e6")
        .replace("poisson_ratio = 0.0", "poisson_ratio = 0.3")
        .replace("kappa = 1.0", "kappa = 1.0e5")
        .replace("h = 0.05", "h = 0.005")
        .replace("duration = 3.0", "duration = 0.5");
    let case = write_case(p, "disk.toml", &text);
    let scene = MultibodyScene::load(&case, &[]).unwrap();
    let mesh = &scene.bodies[0].mesh;
    let area = mesh.area();
    assert!((mesh.mass.iter().sum::<f64>() - 1000.0 * area).abs() < 1e-9);
    let centroid = mesh
        .triangles
        .iter()
        .map(|&[a, b, c]| {
            (mesh.x0[a] + mesh.x0[b] + mesh.x0[c]) / 3.0
                * stickslip::energy::inversion::signed_area(&mesh.x0[a], &mesh.x0[b], &mesh.x0[c])
        })
        .sum::<Vec2>()
        / area;
    assert!(
        (centroid - Vec2::new(0.3, 0.106)).amax() < 1e-12,
        "{centroid}"
    );
    let (system, _) = scene.system();
    let mut sim = Simulation::new(system).unwrap();
    for _ in 0..scene.steps_for(scene.settings.duration) {
        sim.step().unwrap();
    }
    assert_eq!(mesh.inverted_triangles(&sim.x), 0);
    let lowest = sim.x.iter().map(|x| x.y).fold(f64::INFINITY, f64::min);
    assert!(
        lowest > 0.0 && lowest < scene.settings.barrier.dhat,
        "lowest node at {lowest} m"
    );
    let speed = sim.v.iter().map(|v| v.norm()).fold(0.0, f64::max);
    eprintln!("disk: lowest node {lowest:.3e} m, largest speed {speed:.2e} m/s after 0.5 s");
}
