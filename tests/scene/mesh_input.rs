//! Issue 41, items 1–3: mesh input that refuses what the solver cannot honour. A mesh file's
//! node tags are honoured whatever their order and gaps, in ASCII and binary files; a duplicate
//! or undefined node tag, a duplicate element tag, an element listed twice, elements
//! overlapping elements, a body without a closed boundary and a non-manifold or inconsistently
//! oriented boundary are refused through the CLI with exit 2 and one line naming the mesh file,
//! the element or node (by its tag in the file) and the rule; a mesh `file` that is not a
//! regular file is refused before it is opened; generated meshes are sized from their keys
//! before anything is allocated (2D and 3D, each body and a scene's bodies together), and
//! every generator's accepted range builds a valid mesh.

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use nalgebra::Rotation3;
use stickslip::energy::Vec3;
use stickslip::scene::bodies::cuboid::cuboid;
use stickslip::scene::bodies::cylinder::cylinder;
use stickslip::scene::bodies::ellipsoid::ellipsoid;
use stickslip::scene::bodies::gmsh::{read_tet_mesh, read_triangle_mesh};

/// A 3D scene whose one body is the mesh file `body.msh` beside it, falling freely.
const SOLID: &str = r#"kind = "scene"
dimension = 3
name = "a mesh body"

[gravity]
acceleration = [0.0, 0.0, -9.81]

[bodies.b]
shape = "mesh"
file = "body.msh"
centre = [0.0, 0.0, 0.0]
density = 1000.0
material = "neo_hookean"
youngs_modulus = 1.0e7
poisson_ratio = 0.3

[friction]
mu_static = 0.2
mu_kinetic = 0.2
eps_v = 1.0e-4

[barrier]
dhat = 1.0e-3
kappa = 2.0e3

[time]
h = 0.01
duration = 0.02

[newton]
tol = 1.0e-6
max_iterations = 100
max_halvings = 60
"#;

/// The 2D twin of [`SOLID`].
fn flat() -> String {
    SOLID
        .replace("dimension = 3\n", "")
        .replace("[0.0, 0.0, -9.81]", "[0.0, -9.81]")
        .replace("centre = [0.0, 0.0, 0.0]", "centre = [0.0, 0.0]")
}

/// A MSH 4.1 ASCII file: node blocks of (tag, position), then one element block of Gmsh type
/// `kind` (2: 3-node triangle, 4: 4-node tetrahedron) of dimension `dim` whose elements have
/// tags 1, 2, … and the node tags given.
fn msh(
    dim: usize,
    blocks: &[Vec<(usize, [f64; 3])>],
    kind: usize,
    elements: &[Vec<usize>],
) -> String {
    let mut s = String::from("$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n");
    let tags: Vec<usize> = blocks.iter().flatten().map(|(t, _)| *t).collect();
    let (lo, hi) = (
        tags.iter().min().copied().unwrap_or(1),
        tags.iter().max().copied().unwrap_or(1),
    );
    s += &format!("{} {} {lo} {hi}\n", blocks.len(), tags.len());
    for (b, nodes) in blocks.iter().enumerate() {
        s += &format!("{dim} {} 0 {}\n", b + 1, nodes.len());
        for (t, _) in nodes {
            s += &format!("{t}\n");
        }
        for (_, p) in nodes {
            s += &format!("{} {} {}\n", p[0], p[1], p[2]);
        }
    }
    let m = elements.len();
    s += &format!("$EndNodes\n$Elements\n1 {m} 1 {m}\n{dim} 1 {kind} {m}\n");
    for (e, el) in elements.iter().enumerate() {
        let nodes: Vec<String> = el.iter().map(|n| n.to_string()).collect();
        s += &format!("{} {}\n", e + 1, nodes.join(" "));
    }
    s + "$EndElements\n"
}

/// Nodes tagged 1, 2, … in one block.
fn tagged(nodes: &[[f64; 3]]) -> Vec<Vec<(usize, [f64; 3])>> {
    vec![nodes.iter().enumerate().map(|(i, p)| (i + 1, *p)).collect()]
}

/// The unit cube's corners, node i + 1 at (i & 1, i >> 1 & 1, i >> 2 & 1).
fn cube() -> Vec<[f64; 3]> {
    (0..8)
        .map(|i| [(i & 1) as f64, (i >> 1 & 1) as f64, (i >> 2 & 1) as f64])
        .collect()
}

/// The unit cube as six tetrahedra around its diagonal 1–8 (node tags as [`cube`]).
fn cube_tets() -> Vec<Vec<usize>> {
    vec![
        vec![1, 2, 4, 8],
        vec![1, 4, 3, 8],
        vec![1, 3, 7, 8],
        vec![1, 7, 5, 8],
        vec![1, 5, 6, 8],
        vec![1, 6, 2, 8],
    ]
}

/// The unit square's corners (tags 1–4 counter-clockwise from the origin).
fn square() -> Vec<[f64; 3]> {
    vec![
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [1.0, 1.0, 0.0],
        [0.0, 1.0, 0.0],
    ]
}

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_stickslip"))
}

/// Runs `case` (with `msh` as `body.msh` beside it, unless None) in a fresh directory.
fn run(case: &str, msh: Option<&str>) -> (Output, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    if let Some(m) = msh {
        std::fs::write(dir.path().join("body.msh"), m).unwrap();
    }
    let path = dir.path().join("case.toml");
    std::fs::write(&path, case).unwrap();
    let out = bin()
        .args(["run", path.to_str().unwrap(), "--gpu", "off", "--out"])
        .arg(dir.path().join("out"))
        .output()
        .unwrap();
    (out, dir)
}

/// The run of `case` with `msh` is refused: exit 2, one line on stderr naming the case file,
/// `bodies.b.file`, the mesh file and every one of `words`; no output directory. The line.
fn refused(case: &str, msh: &str, words: &[&str]) -> String {
    let (out, dir) = run(case, Some(msh));
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    for w in ["case.toml", "bodies.b.file", "body.msh"]
        .iter()
        .chain(words)
    {
        assert!(err.contains(w), "names {w:?}: {err}");
    }
    assert!(!dir.path().join("out").exists());
    err
}

fn solid_ok(msh: &str) {
    let (out, _dir) = run(SOLID, Some(msh));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn temp_msh(text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("m.msh");
    std::fs::write(&p, text).unwrap();
    (dir, p)
}

/// The unit cube's six tetrahedra with its nodes' tags permuted (listed in the file in an
/// order that is not the tags'), with gaps in the tags, and split over two blocks that come in
/// the reverse order of their tags: each read gives the same body as the plain file (volume
/// 1 m³, every tetrahedron's nodes at the corners its tags name).
#[test]
fn node_tags_are_honoured_in_any_order_and_with_gaps() {
    let corners = cube();
    let plain = msh(3, &tagged(&corners), 4, &cube_tets());
    let (_d, p) = temp_msh(&plain);
    let reference = read_tet_mesh(&p, 1.0).unwrap();
    assert!((reference.volume() - 1.0).abs() < 1e-14);
    // The positions of each element's nodes, by element, as the file's tags say.
    let expected: Vec<Vec<[f64; 3]>> = cube_tets()
        .iter()
        .map(|t| t.iter().map(|&n| corners[n - 1]).collect())
        .collect();
    let check = |text: &str| {
        let (_d, p) = temp_msh(text);
        let m = read_tet_mesh(&p, 1.0).unwrap_or_else(|e| panic!("{e}"));
        assert!((m.volume() - 1.0).abs() < 1e-14, "{}", m.volume());
        assert_eq!(m.tets.len(), 6);
        for (t, want) in m.tets.iter().zip(&expected) {
            let mut got: Vec<[f64; 3]> = t.iter().map(|&i| m.x0[i].into()).collect();
            let mut want = want.clone();
            got.sort_by(|a, b| a.partial_cmp(b).unwrap());
            want.sort_by(|a, b| a.partial_cmp(b).unwrap());
            assert_eq!(got, want);
        }
    };
    // Tags 1–8 listed in the order 8, 3, 5, 1, 7, 2, 6, 4 (dense: no gaps).
    let order = [8, 3, 5, 1, 7, 2, 6, 4];
    let shuffled = vec![order.iter().map(|&t| (t, corners[t - 1])).collect()];
    check(&msh(3, &shuffled, 4, &cube_tets()));
    // Tags 10 t + 3, shuffled as above.
    let gapped = vec![
        order
            .iter()
            .map(|&t| (10 * t + 3, corners[t - 1]))
            .collect(),
    ];
    let gapped_tets: Vec<Vec<usize>> = cube_tets()
        .iter()
        .map(|t| t.iter().map(|&n| 10 * n + 3).collect())
        .collect();
    check(&msh(3, &gapped, 4, &gapped_tets));
    // Two blocks: tags 5–8 first, then 1–4.
    let split = vec![
        (5..=8).map(|t| (t, corners[t - 1])).collect(),
        (1..=4).map(|t| (t, corners[t - 1])).collect(),
    ];
    check(&msh(3, &split, 4, &cube_tets()));
    // The same in 2D: the unit square's two triangles, tags listed 3, 1, 4, 2.
    let sq = square();
    let flat_order = [3, 1, 4, 2];
    let text = msh(
        2,
        &[flat_order.iter().map(|&t| (t, sq[t - 1])).collect()],
        2,
        &[vec![1, 2, 3], vec![1, 3, 4]],
    );
    let (_d, p) = temp_msh(&text);
    let m = read_triangle_mesh(&p, 1.0, None).unwrap();
    assert!((m.area() - 1.0).abs() < 1e-15, "{}", m.area());
    for (t, want) in m.triangles.iter().zip([[1, 2, 3], [1, 3, 4]]) {
        let mut got: Vec<[f64; 2]> = t.iter().map(|&i| m.x0[i].into()).collect();
        let mut want: Vec<[f64; 2]> = want.iter().map(|&n| [sq[n - 1][0], sq[n - 1][1]]).collect();
        got.sort_by(|a, b| a.partial_cmp(b).unwrap());
        want.sort_by(|a, b| a.partial_cmp(b).unwrap());
        assert_eq!(got, want);
    }
    // And through the CLI, the shuffled cube runs.
    solid_ok(&msh(3, &shuffled, 4, &cube_tets()));
}

/// A node tag given twice (in one block: named by its place, as the parser keeps only the later
/// node of a tag; in two blocks: named by the tag), and an element naming a tag no node has:
/// refused.
#[test]
fn duplicate_and_undefined_node_tags_are_refused() {
    let corners = cube();
    let mut twice = tagged(&corners);
    twice[0][6].0 = 3; // tags 1 2 3 4 5 6 3 8
    refused(
        SOLID,
        &msh(3, &twice, 4, &cube_tets()),
        &["node block 1", "node 3 at (0, 1, 0)", "more than once"],
    );
    let two_blocks = vec![
        (1..=8).map(|t| (t, corners[t - 1])).collect(),
        vec![(5, [2.0, 2.0, 2.0])],
    ];
    refused(
        SOLID,
        &msh(3, &two_blocks, 4, &cube_tets()),
        &["node 5", "more than once"],
    );
    let mut undefined = cube_tets();
    undefined[2][1] = 99;
    refused(
        SOLID,
        &msh(3, &tagged(&corners), 4, &undefined),
        &["element 3", "node 99"],
    );
}

/// A tetrahedron (3D) or triangle (2D) listed twice, also with its nodes in another (even)
/// order: the mass would count it twice and, for a lone element, the body would have no
/// boundary; refused naming both elements.
#[test]
fn an_element_listed_twice_is_refused() {
    let corners = cube();
    let mut tets = cube_tets();
    tets.push(vec![1, 4, 3, 8]);
    refused(
        SOLID,
        &msh(3, &tagged(&corners), 4, &tets),
        &["element 7", "element 2", "twice"],
    );
    let mut tets = cube_tets();
    tets.push(vec![3, 8, 1, 4]);
    refused(
        SOLID,
        &msh(3, &tagged(&corners), 4, &tets),
        &["element 7", "element 2", "twice"],
    );
    // The issue's example: one tetrahedron, listed twice, has no boundary at all.
    let one = [
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, 0.0, 1.0],
    ];
    refused(
        SOLID,
        &msh(3, &tagged(&one), 4, &[vec![1, 2, 3, 4], vec![1, 2, 3, 4]]),
        &["element 2", "element 1", "twice"],
    );
    refused(
        &flat(),
        &msh(
            2,
            &tagged(&square()),
            2,
            &[vec![1, 2, 3], vec![1, 3, 4], vec![2, 3, 1]],
        ),
        &["element 3", "element 1", "twice"],
    );
    refused(
        &flat(),
        &msh(
            2,
            &tagged(&square()[..3]),
            2,
            &[vec![1, 2, 3], vec![1, 2, 3]],
        ),
        &["element 2", "element 1", "twice"],
    );
}

/// Elements whose interiors overlap (criterion: two elements overlap when no separating axis
/// of the two simplices (their edge normals in 2D; their face normals and the cross products
/// of their edges in 3D) leaves a gap of more than 1e-9 of their longest edge the wrong way):
/// a second, separate element inside the body (its own nodes), and an element folded over its
/// neighbour (on the same side of their shared edge or face). Refused naming both elements.
#[test]
fn overlapping_elements_are_refused() {
    // 3D: the cube and a small tetrahedron of four new nodes inside it.
    let mut nodes = cube();
    nodes.extend([
        [0.4, 0.4, 0.4],
        [0.6, 0.4, 0.4],
        [0.4, 0.6, 0.4],
        [0.4, 0.4, 0.6],
    ]);
    let mut tets = cube_tets();
    tets.push(vec![9, 10, 11, 12]);
    refused(
        SOLID,
        &msh(3, &tagged(&nodes), 4, &tets),
        &["element 7", "overlap"],
    );
    // 3D: the cube shifted by half a side, as a second component over the first.
    let mut nodes = cube();
    nodes.extend(cube().iter().map(|p| [p[0] + 0.5, p[1], p[2]]));
    let mut tets = cube_tets();
    tets.extend(
        cube_tets()
            .iter()
            .map(|t| t.iter().map(|n| n + 8).collect::<Vec<_>>()),
    );
    refused(SOLID, &msh(3, &tagged(&nodes), 4, &tets), &["overlap"]);
    // 2D: the square and a small triangle inside it.
    let mut nodes = square();
    nodes.extend([[0.2, 0.2, 0.0], [0.4, 0.2, 0.0], [0.2, 0.4, 0.0]]);
    refused(
        &flat(),
        &msh(
            2,
            &tagged(&nodes),
            2,
            &[vec![1, 2, 3], vec![1, 3, 4], vec![5, 6, 7]],
        ),
        &["element 3", "overlap"],
    );
    // 2D: a triangle folded back over its neighbour across the boundary edge 1–2.
    let mut nodes = square();
    nodes.push([0.5, 0.3, 0.0]);
    refused(
        &flat(),
        &msh(
            2,
            &tagged(&nodes),
            2,
            &[vec![1, 2, 3], vec![1, 3, 4], vec![1, 2, 5]],
        ),
        &["element 3 overlaps element 1"],
    );
    // 3D: a tetrahedron on the cube's bottom face 1–2–4, its apex inside the cube.
    let mut nodes = cube();
    nodes.push([0.7, 0.3, 0.5]);
    let mut tets = cube_tets();
    tets.push(vec![1, 2, 4, 9]);
    refused(
        SOLID,
        &msh(3, &tagged(&nodes), 4, &tets),
        &["element 7 overlaps element 1"],
    );
    // 2D: the unit square as 10 × 10 cells of two triangles, and a separate triangle many
    // times their size over all of them (its box covers too many cells of the broad phase's
    // grid, so it is tested against every other element).
    let mut nodes = Vec::new();
    for j in 0..=10 {
        for i in 0..=10 {
            nodes.push([i as f64 / 10.0, j as f64 / 10.0, 0.0]);
        }
    }
    let id = |i: usize, j: usize| j * 11 + i + 1;
    let mut triangles = Vec::new();
    for j in 0..10 {
        for i in 0..10 {
            let (a, b, c, d) = (id(i, j), id(i + 1, j), id(i + 1, j + 1), id(i, j + 1));
            triangles.push(vec![a, b, c]);
            triangles.push(vec![a, c, d]);
        }
    }
    nodes.extend([[-1.0, -1.0, 0.0], [3.0, -1.0, 0.0], [-1.0, 3.0, 0.0]]);
    triangles.push(vec![122, 123, 124]);
    refused(
        &flat(),
        &msh(2, &tagged(&nodes), 2, &triangles),
        &["element 201 overlaps element 1"],
    );
    // Two squares side by side sharing an edge, and two cubes sharing a face, are fine.
    let mut nodes = square();
    nodes.extend([[2.0, 0.0, 0.0], [2.0, 1.0, 0.0]]);
    let (out, _d) = run(
        &flat(),
        Some(&msh(
            2,
            &tagged(&nodes),
            2,
            &[vec![1, 2, 3], vec![1, 3, 4], vec![2, 5, 6], vec![2, 6, 3]],
        )),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    solid_ok(&msh(3, &tagged(&cube()), 4, &cube_tets()));
}

/// Two cubes touching at one corner only: the boundary is closed edge by edge, but not a
/// manifold at that node; two squares touching at a corner likewise in 2D. Refused naming the
/// node.
#[test]
fn boundaries_pinched_at_a_node_are_refused() {
    let mut nodes = cube();
    nodes.extend(
        cube()
            .iter()
            .skip(1)
            .map(|p| [p[0] + 1.0, p[1] + 1.0, p[2] + 1.0]),
    );
    // Node 8 (1, 1, 1) is the second cube's corner 0; its other corners get tags 9–15.
    let second = |n: usize| if n == 1 { 8 } else { n + 7 };
    let mut tets = cube_tets();
    tets.extend(
        cube_tets()
            .iter()
            .map(|t| t.iter().map(|&n| second(n)).collect::<Vec<_>>()),
    );
    refused(
        SOLID,
        &msh(3, &tagged(&nodes), 4, &tets),
        &["node 8", "manifold"],
    );
    let mut nodes = square();
    nodes.extend([[2.0, 1.0, 0.0], [2.0, 2.0, 0.0], [1.0, 2.0, 0.0]]);
    refused(
        &flat(),
        &msh(
            2,
            &tagged(&nodes),
            2,
            &[vec![1, 2, 3], vec![1, 3, 4], vec![3, 5, 6], vec![3, 6, 7]],
        ),
        &["node 3", "manifold"],
    );
}

/// A mesh `file` that is a FIFO, a device (/dev/zero) or a directory is refused before it is
/// opened (exit 2, within seconds, naming the key and the path), not read until memory runs
/// out or hung on.
#[test]
fn a_mesh_file_must_be_a_regular_file() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo.msh");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    std::fs::create_dir(dir.path().join("folder.msh")).unwrap();
    for (file, what) in [
        (fifo.to_str().unwrap(), "FIFO"),
        ("/dev/zero", "device"),
        ("folder.msh", "directory"),
    ] {
        for case in [SOLID.to_string(), flat()] {
            let case = case.replace("file = \"body.msh\"", &format!("file = {file:?}"));
            let path = dir.path().join("case.toml");
            std::fs::write(&path, &case).unwrap();
            let mut child = bin()
                .args(["run", path.to_str().unwrap(), "--gpu", "off", "--out"])
                .arg(dir.path().join("out"))
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            let start = Instant::now();
            let status = loop {
                if let Some(s) = child.try_wait().unwrap() {
                    break s;
                }
                if start.elapsed() > Duration::from_secs(20) {
                    child.kill().unwrap();
                    child.wait().unwrap();
                    panic!("{file}: still running after 20 s");
                }
                std::thread::sleep(Duration::from_millis(20));
            };
            let mut err = String::new();
            std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
            assert_eq!(status.code(), Some(2), "{file}: {err}");
            assert_eq!(err.trim_end().lines().count(), 1, "{err}");
            for w in ["bodies.b.file", file, what, "regular file"] {
                assert!(err.contains(w), "{file}: names {w:?}: {err}");
            }
        }
    }
}

/// The 3D scene with its body generated by `keys` (after `shape = `).
fn generated(keys: &str) -> String {
    SOLID.replace(
        "shape = \"mesh\"\nfile = \"body.msh\"\n",
        &format!("shape = {keys}\n"),
    )
}

/// Generated meshes too large to build are refused from their keys, at once (no allocation
/// of gigabytes, no abort), naming the key and the bound; the ellipsoid's `cells = 1000` of
/// the issue among them.
#[test]
fn generated_meshes_are_sized_before_they_are_built() {
    for (keys, key) in [
        (
            "\"ellipsoid\"\nsemi_axes = [0.1, 0.1, 0.1]\ncells = 1000",
            "bodies.b.cells",
        ),
        (
            "\"ellipsoid\"\nsemi_axes = [0.1, 0.1, 0.1]\ncells = 100",
            "bodies.b.cells",
        ),
        (
            "\"cuboid\"\nwidth = 1.0\ndepth = 1.0\nheight = 1.0\nnx = 1000\nny = 1000\nnz = 1000",
            "bodies.b.nx",
        ),
        (
            "\"cylinder\"\nradius = 1.0\nheight = 1.0\nsegments = 1000\nrings = 1000\nlayers = 1000",
            "bodies.b.segments",
        ),
    ] {
        let start = Instant::now();
        let (out, dir) = run(&generated(keys), None);
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert_eq!(out.status.code(), Some(2), "{keys}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains(key) && err.contains("nodes"), "{keys}: {err}");
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "{keys}: {:?}",
            start.elapsed()
        );
        assert!(!dir.path().join("out").exists());
    }
}

/// The mesh is valid in the sense of the rules (`TetMesh::new` builds it), its volume is the
/// solid's (a prism's for the cylinder), and its boundary a closed surface of genus 0.
fn valid(m: &stickslip::scene::bodies::TetMesh, volume: f64, what: &str) {
    assert!(
        (m.volume() - volume).abs() <= 1e-10 * volume,
        "{what}: {} vs {volume}",
        m.volume()
    );
    let (v, e, f) = (
        m.boundary_nodes().len() as i64,
        m.boundary_edges().len() as i64,
        m.boundary_triangles.len() as i64,
    );
    assert_eq!(v - e + f, 2, "{what}");
}

/// The corners of each generator's accepted range (every count at its least and, one at a
/// time, at its most) build a valid mesh, of the size computed from the keys; for the
/// cylinder every combination of up to 24 segments and rings too, where many rings for the
/// segments (the issue: rings ≳ segments built an overlapping mesh) are refused by the
/// generator, naming `rings`, rather than built.
#[test]
fn the_corners_of_every_generators_range_build_valid_meshes() {
    use stickslip::scene::bodies::cuboid::cuboid_size;
    use stickslip::scene::bodies::cylinder::cylinder_size;
    use stickslip::scene::bodies::ellipsoid::ellipsoid_size;
    use stickslip::scene::bodies::mesh_rules::MeshError;
    let (c, r) = (Vec3::zeros(), Rotation3::identity());
    let size = |m: &stickslip::scene::bodies::TetMesh| (m.x0.len() as f64, m.tets.len() as f64);
    for cells in [
        [1, 1, 1],
        [1000, 1, 1],
        [1, 1000, 1],
        [1, 1, 1000],
        [20, 30, 40],
    ] {
        let m = cuboid(Vec3::new(1.0, 2.0, 3.0), cells, c, &r, 1.0)
            .unwrap_or_else(|e| panic!("{cells:?}: {e}"));
        valid(&m, 6.0, &format!("cuboid {cells:?}"));
        let s = cuboid_size(cells);
        assert_eq!((s.nodes, s.elements), size(&m));
    }
    for cells in [2, 3, 50] {
        let m = ellipsoid(Vec3::new(1.0, 2.0, 3.0), cells, c, &r, 1.0)
            .unwrap_or_else(|e| panic!("{cells}: {e}"));
        let v: f64 = m.mass.iter().sum();
        valid(&m, v, &format!("ellipsoid {cells}"));
        let s = ellipsoid_size(cells);
        assert_eq!((s.nodes, s.elements), size(&m));
    }
    let polygon = |seg: usize| seg as f64 / 2.0 * (std::f64::consts::TAU / seg as f64).sin();
    let mut corners = vec![
        (3, 1, 1),
        (1000, 1, 1),
        (1000, 1, 1000),
        (24, 4, 1),
        (1000, 100, 1),
    ];
    for seg in 3usize..=24 {
        for rings in 1..=24 {
            corners.push((seg, rings, 2));
        }
    }
    let mut refused = 0;
    for (seg, rings, layers) in corners {
        let what = format!("cylinder {seg} {rings} {layers}");
        match cylinder(1.0, 0.5, seg, rings, layers, c, &r, 1.0) {
            Ok(m) => {
                valid(&m, polygon(seg) * 0.5, &what);
                let s = cylinder_size(seg, rings, layers);
                assert_eq!((s.nodes, s.elements), size(&m), "{what}");
            }
            Err(e @ MeshError::RingsOverlap { .. }) => {
                assert!(rings > 2, "{what}: {e}");
                refused += 1;
            }
            Err(e) => panic!("{what}: {e}"),
        }
    }
    assert!(refused > 0);
    // Through the CLI, such a cylinder is refused naming `rings`.
    let (out, _d) = run(
        &generated(
            "\"cylinder\"\nradius = 0.1\nheight = 0.05\nsegments = 4\nrings = 4\nlayers = 1",
        ),
        None,
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("bodies.b.rings") && err.contains("overlap"),
        "{err}"
    );
}

/// The 2D scene with its body generated by `keys` (after `shape = `).
fn generated_flat(keys: &str) -> String {
    flat().replace(
        "shape = \"mesh\"\nfile = \"body.msh\"\n",
        &format!("shape = {keys}\n"),
    )
}

/// The run of `case` is refused from its keys: exit 2 within seconds, one line naming
/// `words`, nothing written. The line.
fn refused_quickly(case: &str, words: &[&str]) -> String {
    let start = Instant::now();
    let (out, dir) = run(case, None);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    for w in words {
        assert!(err.contains(w), "names {w:?}: {err}");
    }
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "{:?}",
        start.elapsed()
    );
    assert!(!dir.path().join("out").exists());
    err
}

/// 2D generated bodies (a square of n_seg², a box of nx × ny cells) too large are refused
/// from their keys before they are built, naming the key and the bound, as the 3D ones are:
/// n_seg = 1000 and nx = ny = 1000, each 1001² > 10⁶ nodes, are in the counts' own ranges.
#[test]
fn generated_2d_meshes_are_sized_before_they_are_built() {
    for (keys, key) in [
        ("\"square\"\nside = 1.0\nn_seg = 1000", "bodies.b.n_seg"),
        (
            "\"box\"\nwidth = 1.0\nheight = 1.0\nnx = 1000\nny = 1000",
            "bodies.b.nx",
        ),
    ] {
        refused_quickly(
            &generated_flat(keys),
            &[key, "nodes", "at most 1e6 nodes", "triangles a body"],
        );
    }
}

/// The bodies of a scene are sized together before any is built: two 710 × 710 boxes (2 ·
/// 711² > 10⁶ nodes, each within the bound) and a one-cell box are refused as a whole, from
/// their keys, before the last body's density is checked (which built both boxes first and
/// then named that density); the same for three 70³ cuboids in 3D.
#[test]
fn a_scenes_bodies_are_sized_together_before_they_are_built() {
    let boxes = generated_flat("\"box\"\nwidth = 1.0\nheight = 1.0\nnx = 710\nny = 710");
    let (head, body) = boxes.split_at(boxes.find("[bodies.b]").unwrap());
    let end = body.find("\n\n").unwrap() + 2;
    let (body, tail) = body.split_at(end);
    let bad = body
        .replace("[bodies.b]", "[bodies.c]")
        .replace("nx = 710\nny = 710", "nx = 1\nny = 1")
        .replace("density = 1000.0", "density = -1.0");
    let case = format!(
        "{head}{body}{}{bad}{tail}",
        body.replace("[bodies.b]", "[bodies.a]")
            .replace("centre = [0.0, 0.0]", "centre = [5.0, 0.0]")
    );
    refused_quickly(&case, &["key `bodies`", "1e6 in all", "(got 1011046)"]);
    let cuboids =
        generated("\"cuboid\"\nwidth = 1.0\ndepth = 1.0\nheight = 1.0\nnx = 70\nny = 70\nnz = 70");
    let (head, body) = cuboids.split_at(cuboids.find("[bodies.b]").unwrap());
    let end = body.find("\n\n").unwrap() + 2;
    let (body, tail) = body.split_at(end);
    let bad = body
        .replace("[bodies.b]", "[bodies.z]")
        .replace("nx = 70\nny = 70\nnz = 70", "nx = 1\nny = 1\nnz = 1")
        .replace("density = 1000.0", "density = -1.0");
    let mut case = head.to_string();
    for (name, x) in [("a", 5.0), ("b", 0.0), ("c", -5.0)] {
        case += &body
            .replace("[bodies.b]", &format!("[bodies.{name}]"))
            .replace(
                "centre = [0.0, 0.0, 0.0]",
                &format!("centre = [{x}, 0.0, 0.0]"),
            );
    }
    case += &bad;
    case += tail;
    refused_quickly(&case, &["key `bodies`", "1e6 in all", "(got 1073741)"]);
}

/// The corners of the 2D generators' ranges within the node bound build valid meshes of the
/// size computed from the keys: counter-clockwise triangles, none inverted, the area the box's.
#[test]
fn the_corners_of_the_2d_generators_ranges_build_valid_meshes() {
    use stickslip::energy::Vec2;
    use stickslip::scene::bodies::rectangle::{rectangle, rectangle_size};
    use stickslip::scene::bodies::square::square;
    for (nx, ny) in [
        (1, 1),
        (1000, 1),
        (1, 1000),
        (1000, 998),
        (998, 1000),
        (999, 999),
    ] {
        let m = rectangle(2.0, 3.0, nx, ny, Vec2::zeros(), 0.3, 1.0, 0.1);
        let s = rectangle_size(nx, ny);
        assert!(s.over_limits_of("triangles").is_none(), "{nx} {ny}");
        assert_eq!(
            (s.nodes, s.elements),
            (m.len() as f64, m.triangles.len() as f64)
        );
        assert!(m.rest_orientation.iter().all(|&a| a > 0.0), "{nx} {ny}");
        assert!((m.area() - 6.0).abs() < 1e-9, "{nx} {ny}: {}", m.area());
    }
    for n in [1, 999] {
        let m = square(1.0, n, Vec2::zeros(), 1.0, 0.1);
        let s = rectangle_size(n, n);
        assert!(s.over_limits_of("triangles").is_none());
        assert_eq!(
            (s.nodes, s.elements),
            (m.len() as f64, m.triangles.len() as f64)
        );
        assert!((m.area() - 1.0).abs() < 1e-9, "{n}: {}", m.area());
    }
    assert!(
        rectangle_size(1000, 1000)
            .over_limits_of("triangles")
            .is_some()
    );
}

/// An element tag given to two elements (in 3D and in 2D) is refused naming the tag: the
/// errors name elements by tag, and a tag names one element.
#[test]
fn duplicate_element_tags_are_refused() {
    // The last element's line (before `$EndElements`) retagged 1.
    let retag = |text: String| {
        let end = text.rfind("\n$EndElements").unwrap();
        let start = text[..end].rfind('\n').unwrap() + 1;
        let rest = text[start..end].split_once(' ').unwrap().1.to_string();
        format!("{}1 {rest}{}", &text[..start], &text[end..])
    };
    let text = retag(msh(3, &tagged(&cube()), 4, &cube_tets()));
    assert!(
        text.contains("\n1 1 2 4 8\n") && text.contains("\n1 1 6 2 8\n"),
        "{text}"
    );
    refused(SOLID, &text, &["element 1", "defined more than once"]);
    let text = retag(msh(
        2,
        &tagged(&square()),
        2,
        &[vec![1, 2, 3], vec![1, 3, 4]],
    ));
    assert!(text.contains("\n1 1 2 3\n1 1 3 4\n"), "{text}");
    refused(&flat(), &text, &["element 1", "defined more than once"]);
}

/// [`msh`] in the MSH 4.1 binary form (little-endian, 8-byte size_t), as Gmsh writes it.
fn msh_binary(
    dim: usize,
    blocks: &[Vec<(usize, [f64; 3])>],
    kind: usize,
    elements: &[Vec<usize>],
) -> Vec<u8> {
    let mut b = b"$MeshFormat\n4.1 1 8\n".to_vec();
    b.extend(1i32.to_le_bytes());
    b.extend(b"\n$EndMeshFormat\n$Nodes\n");
    let size = |b: &mut Vec<u8>, n: usize| b.extend((n as u64).to_le_bytes());
    let int = |b: &mut Vec<u8>, n: usize| b.extend((n as i32).to_le_bytes());
    let tags: Vec<usize> = blocks.iter().flatten().map(|(t, _)| *t).collect();
    for n in [
        blocks.len(),
        tags.len(),
        *tags.iter().min().unwrap(),
        *tags.iter().max().unwrap(),
    ] {
        size(&mut b, n);
    }
    for (k, nodes) in blocks.iter().enumerate() {
        for n in [dim, k + 1, 0] {
            int(&mut b, n);
        }
        size(&mut b, nodes.len());
        for (t, _) in nodes {
            size(&mut b, *t);
        }
        for (_, p) in nodes {
            for c in p {
                b.extend(c.to_le_bytes());
            }
        }
    }
    b.extend(b"\n$EndNodes\n$Elements\n");
    for n in [1, elements.len(), 1, elements.len()] {
        size(&mut b, n);
    }
    for n in [dim, 1, kind] {
        int(&mut b, n);
    }
    size(&mut b, elements.len());
    for (e, el) in elements.iter().enumerate() {
        size(&mut b, e + 1);
        for &n in el {
            size(&mut b, n);
        }
    }
    b.extend(b"\n$EndElements\n");
    b
}

/// A binary MSH 4.1 file is read as its ASCII twin is: the same nodes, elements and volume,
/// with its node tags honoured when they are listed out of order (the binary path of the
/// sparse-tag header); and it runs through the CLI.
#[test]
fn binary_msh_files_are_read_as_the_ascii_ones() {
    let corners = cube();
    let order = [8, 3, 5, 1, 7, 2, 6, 4];
    let shuffled = vec![
        order
            .iter()
            .map(|&t| (t, corners[t - 1]))
            .collect::<Vec<_>>(),
    ];
    for blocks in [tagged(&corners), shuffled] {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.msh"), dir.path().join("b.msh"));
        std::fs::write(&a, msh(3, &blocks, 4, &cube_tets())).unwrap();
        std::fs::write(&b, msh_binary(3, &blocks, 4, &cube_tets())).unwrap();
        let (ascii, binary) = (
            read_tet_mesh(&a, 1.0).unwrap(),
            read_tet_mesh(&b, 1.0).unwrap_or_else(|e| panic!("{e}")),
        );
        assert_eq!(ascii.x0, binary.x0);
        assert_eq!(ascii.tets, binary.tets);
        assert!((binary.volume() - 1.0).abs() < 1e-14);
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("body.msh"),
        msh_binary(3, &tagged(&corners), 4, &cube_tets()),
    )
    .unwrap();
    let path = dir.path().join("case.toml");
    std::fs::write(&path, SOLID).unwrap();
    let out = bin()
        .args(["run", path.to_str().unwrap(), "--gpu", "off", "--out"])
        .arg(dir.path().join("out"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A 2D binary file too.
    let sq = square();
    let p = dir.path().join("flat.msh");
    std::fs::write(
        &p,
        msh_binary(2, &tagged(&sq), 2, &[vec![1, 2, 3], vec![1, 3, 4]]),
    )
    .unwrap();
    let m = read_triangle_mesh(&p, 1.0, None).unwrap_or_else(|e| panic!("{e}"));
    assert!((m.area() - 1.0).abs() < 1e-15, "{}", m.area());
}
