//! Body meshes from Gmsh `.msh` files (SPEC.md §7 bodies; issues 20 and 21's bad input): the
//! meshes in tests/data/ (made by Gmsh 4.8 from the `.geo` files beside them; Gmsh is not needed
//! to run anything) read into a 2D triangle body and a 3D tetrahedral body whose measures match
//! the geometry computed independently, and every rule a mesh file can break refused with a
//! one-line message that names the file and the element or node by its tag in the file.

use std::path::{Path, PathBuf};

use stickslip_sim::scene::bodies::gmsh::{MeshFileError, read_tet_mesh, read_triangle_mesh};
use stickslip_sim::scene::bodies::mesh_rules::MeshError;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data")
        .join(name)
}

/// A temporary file holding `text`.
fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> PathBuf {
    let p = dir.path().join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// A minimal MSH 4.1 ASCII file: `nodes` (tags 1 …) in one block of dimension `dim`, and one
/// element block of Gmsh type `kind` with `elements` (tags 1 …, node tags).
fn msh(dim: usize, nodes: &[[f64; 3]], kind: usize, elements: &[Vec<usize>]) -> String {
    let mut s = String::from("$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n");
    let n = nodes.len();
    s += &format!("1 {n} 1 {n}\n{dim} 1 0 {n}\n");
    for i in 1..=n {
        s += &format!("{i}\n");
    }
    for p in nodes {
        s += &format!("{} {} {}\n", p[0], p[1], p[2]);
    }
    let m = elements.len();
    s += &format!("$EndNodes\n$Elements\n1 {m} 1 {m}\n{dim} 1 {kind} {m}\n");
    for (e, el) in elements.iter().enumerate() {
        let nodes: Vec<String> = el.iter().map(|n| n.to_string()).collect();
        s += &format!("{} {}\n", e + 1, nodes.join(" "));
    }
    s + "$EndElements\n"
}

/// The disk of radius 0.1 m: every triangle counter-clockwise, every boundary node on the
/// circle, the boundary one closed loop (each boundary node on two boundary edges), and the
/// mesh's area and mass equal to the area its boundary polygon encloses (shoelace formula over
/// the boundary edges, oriented by the triangles) × density.
#[test]
fn a_gmsh_disk_is_a_2d_body() {
    let density = 50.0;
    let mesh = read_triangle_mesh(&data("disk.msh"), density, None).unwrap();
    assert!(mesh.triangles.len() > 20, "{}", mesh.triangles.len());
    assert_eq!(mesh.inverted_triangles(&mesh.x0), 0);
    let boundary = mesh.boundary_edges();
    let mut degree = vec![0; mesh.len()];
    for &[a, b] in &boundary {
        degree[a] += 1;
        degree[b] += 1;
        for n in [a, b] {
            assert!(
                (mesh.x0[n].norm() - 0.1).abs() < 1e-9,
                "node {n} on the circle"
            );
        }
    }
    assert!(degree.iter().all(|&d| d == 0 || d == 2));
    // Each boundary edge as its triangle runs it (counter-clockwise around the body).
    let mut enclosed = 0.0;
    for t in &mesh.triangles {
        for (a, b) in [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])] {
            if boundary.contains(&[a.min(b), a.max(b)]) {
                enclosed += 0.5 * mesh.x0[a].perp(&mesh.x0[b]);
            }
        }
    }
    assert!(
        (mesh.area() - enclosed).abs() < 1e-15,
        "{} vs {enclosed}",
        mesh.area()
    );
    // An inscribed polygon of ≥ 12 sides covers over 95 % of the circle.
    assert!(
        enclosed < std::f64::consts::PI * 0.01 && enclosed > 0.95 * std::f64::consts::PI * 0.01
    );
    let mass: f64 = mesh.mass.iter().sum();
    assert!((mass - density * enclosed).abs() < 1e-12);
    // The default contact area: the mean boundary edge length.
    let mean = boundary
        .iter()
        .map(|&[a, b]| (mesh.x0[a] - mesh.x0[b]).norm())
        .sum::<f64>()
        / boundary.len() as f64;
    assert!(mesh.contact_area.iter().all(|&a| a == mean));
}

/// The block of 0.2 × 0.1 × 0.1 m: every tetrahedron positive; volume, mass and boundary area
/// those of the box (the box's faces are planes, so the mesh is exact); a closed genus-0
/// boundary (V − E + F = 2) whose outward cones from the origin sum to the volume.
#[test]
fn a_gmsh_block_is_a_3d_body() {
    let density = 700.0;
    let mesh = read_tet_mesh(&data("block.msh"), density).unwrap();
    assert!(mesh.tets.len() > 20, "{}", mesh.tets.len());
    assert_eq!(mesh.inverted_tets(&mesh.x0), 0);
    let volume = 0.2 * 0.1 * 0.1;
    assert!((mesh.volume() - volume).abs() < 1e-15, "{}", mesh.volume());
    let mass: f64 = mesh.mass.iter().sum();
    assert!((mass - density * volume).abs() < 1e-12);
    let surface = 2.0 * (0.2 * 0.1 + 0.2 * 0.1 + 0.1 * 0.1);
    assert!((mesh.contact_area.iter().sum::<f64>() - surface).abs() < 1e-14);
    let enclosed: f64 = mesh
        .boundary_triangles
        .iter()
        .map(|f| mesh.x0[f[0]].dot(&mesh.x0[f[1]].cross(&mesh.x0[f[2]])) / 6.0)
        .sum();
    assert!((enclosed - volume).abs() < 1e-15);
    let (v, e, f) = (
        mesh.boundary_nodes().len() as i64,
        mesh.boundary_edges().len() as i64,
        mesh.boundary_triangles.len() as i64,
    );
    assert_eq!(v - e + f, 2);
}

/// The message of an error: one line naming the file.
fn message(e: &MeshFileError, file: &Path) -> String {
    let m = e.to_string();
    assert!(!m.contains('\n'), "one line: {m}");
    assert!(
        m.contains(&file.display().to_string()),
        "names the file: {m}"
    );
    m
}

#[test]
fn missing_unreadable_and_foreign_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nothing.msh");
    let e = read_triangle_mesh(&missing, 1.0, None).unwrap_err();
    assert!(matches!(e, MeshFileError::Unreadable { .. }));
    message(&e, &missing);
    let toml = data("book_figures.toml");
    let e = read_triangle_mesh(&toml, 1.0, None).unwrap_err();
    assert!(matches!(e, MeshFileError::Format { .. }), "{e}");
    message(&e, &toml);
    let old = write(
        &dir,
        "old.msh",
        "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n0\n$EndNodes\n",
    );
    let e = read_tet_mesh(&old, 1.0).unwrap_err();
    let m = message(&e, &old);
    assert!(m.contains("4.1"), "says which version is read: {m}");
}

/// The built-in kernel's circle centre: a node of the file no triangle uses, named by its tag
/// (1, the first point of disk_centre_point.geo).
#[test]
fn an_unreferenced_node_is_named() {
    let file = data("disk_centre_point.msh");
    let e = read_triangle_mesh(&file, 1.0, None).unwrap_err();
    assert_eq!(
        e,
        MeshFileError::Mesh {
            file: file.clone(),
            source: MeshError::Unreferenced { node: 1 }
        }
    );
    let m = message(&e, &file);
    assert!(m.contains("node 1 belongs to no element"), "{m}");
}

/// An inverted triangle and a zero-area one, made from disk.msh by editing one element line
/// (tag 18: its first two nodes swapped; then its third node replaced by its first), each
/// named by its tag.
#[test]
fn inverted_and_zero_area_triangles_are_named() {
    let text = std::fs::read_to_string(data("disk.msh")).unwrap();
    let line = text
        .lines()
        .find(|l| l.starts_with("18 ") && l.split_whitespace().count() == 4)
        .unwrap()
        .to_string();
    let n: Vec<&str> = line.split_whitespace().collect();
    let dir = tempfile::tempdir().unwrap();
    let swapped = text.replace(&line, &format!("18 {} {} {} ", n[2], n[1], n[3]));
    let file = write(&dir, "inverted.msh", &swapped);
    let e = read_triangle_mesh(&file, 1.0, None).unwrap_err();
    assert!(
        matches!(
            e,
            MeshFileError::Mesh {
                source: MeshError::Inverted { element: 18, .. },
                ..
            }
        ),
        "{e}"
    );
    assert!(message(&e, &file).contains("element 18 is inverted"));
    let flat = text.replace(&line, &format!("18 {} {} {} ", n[1], n[2], n[1]));
    let file = write(&dir, "flat.msh", &flat);
    let e = read_triangle_mesh(&file, 1.0, None).unwrap_err();
    assert!(
        matches!(
            e,
            MeshFileError::Mesh {
                source: MeshError::Degenerate { element: 18, .. },
                ..
            }
        ),
        "{e}"
    );
    assert!(message(&e, &file).contains("element 18 is degenerate"));
}

/// A 3D file where a 2D body is wanted (tetrahedra, not triangles), a 2D file where a 3D
/// body is wanted (no tetrahedra), quadrangles, a node off the plane of a 2D mesh, and an
/// element naming a node the file lacks.
#[test]
fn wrong_kinds_of_elements_and_nodes_are_refused() {
    let e = read_triangle_mesh(&data("block.msh"), 1.0, None).unwrap_err();
    assert!(
        matches!(e, MeshFileError::ElementKind { dim: 2, .. }),
        "{e}"
    );
    message(&e, &data("block.msh"));
    let e = read_tet_mesh(&data("disk.msh"), 1.0).unwrap_err();
    assert!(
        matches!(
            e,
            MeshFileError::Mesh {
                source: MeshError::Empty { kind: "tetrahedra" },
                ..
            }
        ),
        "{e}"
    );
    let dir = tempfile::tempdir().unwrap();
    let square = [
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [1.0, 1.0, 0.0],
        [0.0, 1.0, 0.0],
    ];
    let file = write(&dir, "quad.msh", &msh(2, &square, 3, &[vec![1, 2, 3, 4]]));
    let e = read_triangle_mesh(&file, 1.0, None).unwrap_err();
    assert!(
        matches!(e, MeshFileError::ElementKind { element: 1, .. }),
        "{e}"
    );
    assert!(message(&e, &file).contains("element 1 is a Qua4"));
    let mut tilted = square;
    tilted[2][2] = 0.5;
    let file = write(
        &dir,
        "tilted.msh",
        &msh(2, &tilted, 2, &[vec![1, 2, 3], vec![1, 3, 4]]),
    );
    let e = read_triangle_mesh(&file, 1.0, None).unwrap_err();
    assert!(matches!(e, MeshFileError::OffPlane { node: 3, .. }), "{e}");
    let file = write(
        &dir,
        "missing.msh",
        &msh(2, &square, 2, &[vec![1, 2, 3], vec![1, 3, 9]]),
    );
    let e = read_triangle_mesh(&file, 1.0, None).unwrap_err();
    assert!(
        matches!(
            e,
            MeshFileError::MissingNode {
                element: 2,
                node: 9,
                ..
            }
        ),
        "{e}"
    );
}

/// Two tetrahedra that share only an edge: their boundary is not a manifold surface (the edge
/// is on four boundary triangles); three sharing one face: the face is in three elements.
#[test]
fn non_manifold_tetrahedral_meshes_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let nodes = [
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, 0.0, 1.0],
        [0.5, -1.0, -1.0],
        [0.5, -1.0, 1.0],
    ];
    let file = write(
        &dir,
        "bowtie.msh",
        &msh(3, &nodes, 4, &[vec![1, 2, 3, 4], vec![2, 1, 5, 6]]),
    );
    let e = read_tet_mesh(&file, 1.0).unwrap_err();
    let m = message(&e, &file);
    assert!(
        matches!(
            e,
            MeshFileError::Mesh {
                source: MeshError::OpenBoundary { count: 4, ref nodes, .. },
                ..
            } if *nodes == vec![1, 2]
        ),
        "{m}"
    );
    assert!(m.contains("not closed and manifold"), "{m}");
    // Three tetrahedra on the face 1-2-3 (two of them overlapping, on the same side).
    let nodes = [
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.2, 0.2, 1.0],
        [0.2, 0.2, -1.0],
        [0.3, 0.3, 0.5],
    ];
    let file = write(
        &dir,
        "fan.msh",
        &msh(
            3,
            &nodes,
            4,
            &[vec![1, 2, 3, 4], vec![2, 1, 3, 5], vec![1, 2, 3, 6]],
        ),
    );
    let e = read_tet_mesh(&file, 1.0).unwrap_err();
    assert!(
        matches!(
            e,
            MeshFileError::Mesh {
                source: MeshError::NonManifold {
                    what: "face",
                    count: 3,
                    ..
                },
                ..
            }
        ),
        "{e}"
    );
}
