//! Body meshes from Gmsh `.msh` files (SPEC.md §7 bodies), read with the `mshio` crate (MSH
//! format 4.1, ASCII or binary) and checked by `mesh_rules`: a 2D body takes the file's
//! 3-node triangles (its nodes in one plane z = const), a 3D body its 4-node tetrahedra.
//! Elements of lower dimension (points, lines, and in 3D the surface triangles Gmsh writes for
//! physical groups) are ignored; any other element of the body's dimension (quadrangles,
//! second-order elements) is refused. Errors name the file, and the element or node by its
//! tag in the file.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use mshio::mshfile::ElementType;

use super::mesh_rules::{MeshError, check_triangles};
use super::{Mesh, TetMesh};
use crate::energy::{Vec2, Vec3};

/// A mesh file that cannot be a body.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum MeshFileError {
    /// The file cannot be read.
    #[error("{}: cannot read the mesh file: {reason}", file.display())]
    Unreadable {
        /// The file.
        file: PathBuf,
        /// The system's reason.
        reason: String,
    },
    /// Not a mesh file mshio can parse.
    #[error("{}: not a Gmsh MSH 4.1 mesh: {reason}", file.display())]
    Format {
        /// The file.
        file: PathBuf,
        /// The parser's reason.
        reason: String,
    },
    /// An element of the body's dimension of a kind the body cannot take.
    #[error("{}: element {element} is a {kind:?}: a {dim}D body takes only {wanted} (3- or 4-node, first-order)", file.display())]
    ElementKind {
        /// The file.
        file: PathBuf,
        /// Its tag.
        element: usize,
        /// Its Gmsh type.
        kind: ElementType,
        /// The body's dimension.
        dim: usize,
        /// "triangles" or "tetrahedra".
        wanted: &'static str,
    },
    /// A node of a 2D mesh off the plane of the others.
    #[error("{}: node {node} is at z = {z}, the first at z = {z0}: a 2D mesh lies in one plane z = const", file.display())]
    OffPlane {
        /// The file.
        file: PathBuf,
        /// Its tag.
        node: usize,
        /// Its z, m.
        z: f64,
        /// The first node's z, m.
        z0: f64,
    },
    /// An element that names a node tag the file does not define.
    #[error("{}: element {element} names node {node}, which the file does not define", file.display())]
    MissingNode {
        /// The file.
        file: PathBuf,
        /// Its tag.
        element: usize,
        /// The node tag named.
        node: usize,
    },
    /// A rule of `mesh_rules` broken (element and node numbers are the file's tags).
    #[error("{}: {source}", file.display())]
    Mesh {
        /// The file.
        file: PathBuf,
        /// The rule.
        source: MeshError,
    },
}

/// What a file holds for a body: node positions (m) and the elements of the body's kind, each
/// with its tag, as node indices; and the nodes' tags.
struct Raw<const K: usize> {
    nodes: Vec<[f64; 3]>,
    node_tags: Vec<usize>,
    elements: Vec<[usize; K]>,
    element_tags: Vec<usize>,
}

/// The parser's reason in one line: its error kinds from the outermost context in, and the
/// line of the file where it stopped.
fn parse_reason(bytes: &[u8], e: &mshio::MshParserError<&[u8]>) -> String {
    let kinds: Vec<String> = e
        .filter_msh_errors()
        .map(|(_, k)| k.to_string())
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    let line = e.backtrace.first().map(|(rest, _)| {
        bytes[..bytes.len() - rest.len()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1
    });
    let what = if kinds.is_empty() {
        "unrecognised content".to_string()
    } else {
        kinds.join(": ")
    };
    match line {
        Some(l) => format!("{what} (line {l})"),
        None => what,
    }
}

/// Reads `file` and gathers the nodes and the elements of type `kind` (K nodes, dimension
/// `dim`).
fn read<const K: usize>(
    file: &Path,
    kind: ElementType,
    dim: usize,
    wanted: &'static str,
) -> Result<Raw<K>, MeshFileError> {
    let bytes = std::fs::read(file).map_err(|e| MeshFileError::Unreadable {
        file: file.to_path_buf(),
        reason: e.to_string(),
    })?;
    let msh = mshio::parse_msh_bytes(&bytes).map_err(|e| MeshFileError::Format {
        file: file.to_path_buf(),
        reason: parse_reason(&bytes, &e),
    })?;
    let mut nodes = Vec::new();
    let mut node_tags = Vec::new();
    if let Some(section) = &msh.data.nodes {
        let mut next = section.min_node_tag as usize;
        for block in &section.node_blocks {
            // mshio keeps a block's tags only where the file's are sparse; otherwise they run
            // on from the smallest, in file order.
            let mut tags = vec![0usize; block.nodes.len()];
            match &block.node_tags {
                Some(map) => {
                    for (&tag, &i) in map {
                        tags[i] = tag as usize;
                    }
                }
                None => {
                    for t in tags.iter_mut() {
                        *t = next;
                        next += 1;
                    }
                }
            }
            for (n, tag) in block.nodes.iter().zip(tags) {
                nodes.push([n.x, n.y, n.z]);
                node_tags.push(tag);
            }
        }
    }
    let index: HashMap<usize, usize> = node_tags.iter().enumerate().map(|(i, &t)| (t, i)).collect();
    let mut elements = Vec::new();
    let mut element_tags = Vec::new();
    if let Some(section) = &msh.data.elements {
        for block in &section.element_blocks {
            let block_dim = block.entity_dim as usize;
            if block_dim < dim {
                continue;
            }
            let first = block.elements.first().map_or(0, |e| e.element_tag as usize);
            if block.element_type != kind || block_dim > dim {
                return Err(MeshFileError::ElementKind {
                    file: file.to_path_buf(),
                    element: first,
                    kind: block.element_type,
                    dim,
                    wanted,
                });
            }
            for e in &block.elements {
                let tag = e.element_tag as usize;
                let mut el = [0usize; K];
                for (slot, &n) in el.iter_mut().zip(&e.nodes) {
                    *slot = *index.get(&(n as usize)).ok_or(MeshFileError::MissingNode {
                        file: file.to_path_buf(),
                        element: tag,
                        node: n as usize,
                    })?;
                }
                elements.push(el);
                element_tags.push(tag);
            }
        }
    }
    Ok(Raw {
        nodes,
        node_tags,
        elements,
        element_tags,
    })
}

/// A 2D triangle-mesh body from the Gmsh file `file`: its 3-node triangles (any orientation,
/// one for all: put counter-clockwise), nodes in one plane z = const, every node in a
/// triangle, no zero-area or inverted triangle, no edge in three (`mesh_rules`); springs along
/// the triangle edges, masses lumped from the areas × `density` (kg/m²), every node of contact
/// area `contact_area` (m; default the mean boundary edge length, [`Mesh::from_triangles`]).
/// The positions are the file's, m.
pub fn read_triangle_mesh(
    file: &Path,
    density: f64,
    contact_area: Option<f64>,
) -> Result<Mesh, MeshFileError> {
    let raw = read::<3>(file, ElementType::Tri3, 2, "triangles")?;
    if let Some(z0) = raw.nodes.first().map(|p| p[2]) {
        let extent = raw.nodes.iter().fold(0.0f64, |m, p| {
            m.max(p[0].abs()).max(p[1].abs()).max(p[2].abs())
        });
        if let Some(i) = raw
            .nodes
            .iter()
            .position(|p| (p[2] - z0).abs() > 1e-12 * extent)
        {
            return Err(MeshFileError::OffPlane {
                file: file.to_path_buf(),
                node: raw.node_tags[i],
                z: raw.nodes[i][2],
                z0,
            });
        }
    }
    let x0: Vec<Vec2> = raw.nodes.iter().map(|p| Vec2::new(p[0], p[1])).collect();
    let mut triangles = raw.elements;
    check_triangles(&x0, &mut triangles).map_err(|e| MeshFileError::Mesh {
        file: file.to_path_buf(),
        source: e.renumbered(&raw.element_tags, &raw.node_tags),
    })?;
    Ok(Mesh::from_triangles(x0, triangles, density, contact_area))
}

/// A 3D tetrahedral body from the Gmsh file `file`: its 4-node tetrahedra (one orientation for
/// all, put positive), every node in a tetrahedron, none of zero volume or inverted, a closed
/// manifold boundary ([`TetMesh::new`]); masses lumped from the volumes × `density` (kg/m³).
/// The positions are the file's, m.
pub fn read_tet_mesh(file: &Path, density: f64) -> Result<TetMesh, MeshFileError> {
    let raw = read::<4>(file, ElementType::Tet4, 3, "tetrahedra")?;
    let x0: Vec<Vec3> = raw
        .nodes
        .iter()
        .map(|p| Vec3::new(p[0], p[1], p[2]))
        .collect();
    TetMesh::new(x0, raw.elements, density).map_err(|e| MeshFileError::Mesh {
        file: file.to_path_buf(),
        source: e.renumbered(&raw.element_tags, &raw.node_tags),
    })
}
