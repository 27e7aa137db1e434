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

use super::mesh_rules::{MeshError, check_no_overlap_2d, check_no_overlap_3d, check_triangles};
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
    /// Not a regular file (a FIFO would block the read, a device never end it).
    #[error("{}: not a regular file: it is {what}; a mesh `file` must be a regular MSH 4.1 file", file.display())]
    NotAFile {
        /// The path.
        file: PathBuf,
        /// What it is instead.
        what: &'static str,
    },
    /// A node tag given to two nodes.
    #[error("{}: node {node} is defined more than once (a node tag names one node)", file.display())]
    DuplicateNode {
        /// The file.
        file: PathBuf,
        /// The tag.
        node: usize,
    },
    /// A node tag given to two nodes of one block (the parser keeps the later; the earlier is
    /// named by its place).
    #[error("{}: node block {block} gives a node tag more than once: its node {position} at ({x}, {y}, {z}) shares its tag with a later node of the block (a node tag names one node)", file.display())]
    DuplicateNodeInBlock {
        /// The file.
        file: PathBuf,
        /// The block, from 1.
        block: usize,
        /// The node's place in the block, from 1.
        position: usize,
        /// Its coordinates, m.
        x: f64,
        /// y, m.
        y: f64,
        /// z, m.
        z: f64,
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
    /// An element tag given to two elements.
    #[error("{}: element {element} is defined more than once (an element tag names one element)", file.display())]
    DuplicateElement {
        /// The file.
        file: PathBuf,
        /// The tag.
        element: usize,
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

/// What `file` is when it is not a regular file.
fn not_regular(meta: &std::fs::Metadata) -> Option<&'static str> {
    let ft = meta.file_type();
    if ft.is_file() {
        return None;
    }
    if ft.is_dir() {
        return Some("a directory");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_fifo() {
            return Some("a FIFO");
        }
        if ft.is_socket() {
            return Some("a socket");
        }
        if ft.is_char_device() || ft.is_block_device() {
            return Some("a device");
        }
    }
    Some("not a file")
}

/// The file's bytes with its `$Nodes` header's largest node tag raised to the largest size_t,
/// or None when it has no `$Nodes` section. mshio keeps a node block's tags only when the
/// header says they are sparse (largest − smallest ≥ count); otherwise it drops them, and
/// nodes listed out of tag order, or blocks out of order, could only be taken by position. The
/// raised header makes it keep every block's tags, which are what the elements name.
fn with_sparse_node_tags(bytes: &[u8], binary: bool, size_t: usize) -> Option<Vec<u8>> {
    let at = bytes
        .windows(8)
        .position(|w| w == b"\n$Nodes\n" || w == b"\n$Nodes\r")?;
    let header = at + 7 + bytes[at + 7..].iter().position(|&b| b == b'\n')? + 1;
    let mut out = bytes.to_vec();
    if binary {
        let last = header + 3 * size_t..header + 4 * size_t;
        out.get_mut(last)?.fill(0xff);
        return Some(out);
    }
    let end = header + bytes[header..].iter().position(|&b| b == b'\n')?;
    let line = std::str::from_utf8(&bytes[header..end]).ok()?;
    let tokens: Vec<&str> = line.split_whitespace().collect();
    if tokens.len() != 4 {
        return None;
    }
    let raised = format!("{} {} {} {}", tokens[0], tokens[1], tokens[2], u64::MAX);
    out.splice(header..end, raised.into_bytes());
    Some(out)
}

/// Reads `file` (a regular file) and gathers the nodes, by their tags, and the elements of
/// type `kind` (K nodes, dimension `dim`).
fn read<const K: usize>(
    file: &Path,
    kind: ElementType,
    dim: usize,
    wanted: &'static str,
) -> Result<Raw<K>, MeshFileError> {
    let unreadable = |e: std::io::Error| MeshFileError::Unreadable {
        file: file.to_path_buf(),
        reason: e.to_string(),
    };
    let meta = std::fs::metadata(file).map_err(unreadable)?;
    if let Some(what) = not_regular(&meta) {
        return Err(MeshFileError::NotAFile {
            file: file.to_path_buf(),
            what,
        });
    }
    let bytes = std::fs::read(file).map_err(unreadable)?;
    let format = |bytes: &[u8], e: &mshio::MshParserError<&[u8]>| MeshFileError::Format {
        file: file.to_path_buf(),
        reason: parse_reason(bytes, e),
    };
    let first = mshio::parse_msh_bytes(&bytes).map_err(|e| format(&bytes, &e))?;
    let sparse = with_sparse_node_tags(
        &bytes,
        first.header.file_type != 0,
        first.header.size_t_size,
    );
    let counts = |m: &mshio::MshFile<u64, i32, f64>| {
        m.data.nodes.as_ref().map(|s| {
            s.node_blocks
                .iter()
                .map(|b| b.nodes.len())
                .collect::<Vec<_>>()
        })
    };
    let first_counts = counts(&first);
    let msh = match &sparse {
        Some(b) => mshio::parse_msh_bytes(b).map_err(|e| format(b, &e))?,
        None => first,
    };
    if counts(&msh) != first_counts {
        return Err(MeshFileError::Format {
            file: file.to_path_buf(),
            reason: "its node blocks could not be read with their tags".into(),
        });
    }
    let mut nodes = Vec::new();
    let mut node_tags = Vec::new();
    let mut index: HashMap<usize, usize> = HashMap::new();
    if let Some(section) = &msh.data.nodes {
        for (b, block) in section.node_blocks.iter().enumerate() {
            let mut tags = vec![None; block.nodes.len()];
            if let Some(map) = &block.node_tags {
                for (&tag, &i) in map {
                    tags[i] = Some(tag as usize);
                }
            }
            for (i, (n, tag)) in block.nodes.iter().zip(tags).enumerate() {
                let Some(tag) = tag else {
                    return Err(MeshFileError::DuplicateNodeInBlock {
                        file: file.to_path_buf(),
                        block: b + 1,
                        position: i + 1,
                        x: n.x,
                        y: n.y,
                        z: n.z,
                    });
                };
                if index.insert(tag, nodes.len()).is_some() {
                    return Err(MeshFileError::DuplicateNode {
                        file: file.to_path_buf(),
                        node: tag,
                    });
                }
                nodes.push([n.x, n.y, n.z]);
                node_tags.push(tag);
            }
        }
    }
    let mut elements = Vec::new();
    let mut element_tags = Vec::new();
    if let Some(section) = &msh.data.elements {
        // Element tags name one element in the whole file, whatever its dimension; a body's
        // errors name its elements by tag.
        let mut seen = std::collections::HashSet::new();
        for e in section.element_blocks.iter().flat_map(|b| &b.elements) {
            if !seen.insert(e.element_tag) {
                return Err(MeshFileError::DuplicateElement {
                    file: file.to_path_buf(),
                    element: e.element_tag as usize,
                });
            }
        }
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
    check_triangles(&x0, &mut triangles)
        .and_then(|()| check_no_overlap_2d(&x0, &triangles))
        .map_err(|e| MeshFileError::Mesh {
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
    TetMesh::new(x0, raw.elements, density)
        .and_then(|m| check_no_overlap_3d(&m.x0, &m.tets).map(|()| m))
        .map_err(|e| MeshFileError::Mesh {
            file: file.to_path_buf(),
            source: e.renumbered(&raw.element_tags, &raw.node_tags),
        })
}
