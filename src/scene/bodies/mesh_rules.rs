//! The rules a simplicial body mesh must follow (SPEC.md §7 bodies, issues 20 and 21's bad
//! input): elements of positive, non-zero area (2D) or volume (3D) in one orientation, every
//! node in an element, every edge (2D) or face (3D) in at most two elements, and in 3D a
//! boundary that is a closed, consistently oriented manifold surface. Node and element numbers
//! in the errors are indices into the arrays checked; a mesh file renumbers them to its own
//! tags ([`MeshError::renumbered`]).

use std::collections::{BTreeMap, HashMap};

use crate::energy::{Vec2, Vec3};

/// Relative size below which an element's measure counts as zero: |a| ≤ 1e-12 L² in 2D
/// (|V| ≤ 1e-12 L³ in 3D) with L its longest edge, about ten thousand roundings of the
/// cross products that make it.
pub const DEGENERATE_RELATIVE: f64 = 1e-12;

/// A mesh that breaks a rule.
#[derive(Clone, Debug, thiserror::Error, PartialEq)]
pub enum MeshError {
    /// No elements of the body's kind.
    #[error("has no {kind}")]
    Empty {
        /// "triangles" or "tetrahedra".
        kind: &'static str,
    },
    /// An element that names a node the mesh does not have.
    #[error("element {element} names node {node}, which the mesh does not have")]
    MissingNode {
        /// The element.
        element: usize,
        /// The node named.
        node: usize,
    },
    /// An element of zero area or volume (or with a repeated node).
    #[error("element {element} is degenerate: its {what} is {measure:e} (zero for its size)")]
    Degenerate {
        /// The element.
        element: usize,
        /// "area" (m²) or "volume" (m³).
        what: &'static str,
        /// Its signed area or volume.
        measure: f64,
    },
    /// An element turned over against the rest of the mesh.
    #[error(
        "element {element} is inverted: its orientation is opposite to the mesh's (signed {what} {measure:e})"
    )]
    Inverted {
        /// The element.
        element: usize,
        /// "area" or "volume".
        what: &'static str,
        /// Its signed area or volume, in the mesh's orientation.
        measure: f64,
    },
    /// A node no element uses.
    #[error("node {node} belongs to no element (unreferenced nodes have no mass)")]
    Unreferenced {
        /// The node.
        node: usize,
    },
    /// An edge (2D) or face (3D) in more than two elements.
    #[error("{what} {nodes:?} is shared by {count} elements (a manifold mesh has at most 2)")]
    NonManifold {
        /// "edge" or "face".
        what: &'static str,
        /// Its nodes.
        nodes: Vec<usize>,
        /// How many elements share it.
        count: usize,
    },
    /// A 3D boundary edge not shared by exactly two boundary triangles in opposite directions.
    #[error(
        "the boundary surface is not closed and manifold: edge {nodes:?} is on {count} boundary triangles ({detail})"
    )]
    OpenBoundary {
        /// The edge's nodes.
        nodes: Vec<usize>,
        /// Boundary triangles on it.
        count: usize,
        /// What is wrong.
        detail: &'static str,
    },
}

impl MeshError {
    /// The same error with element e renamed `elements[e]` and node n `nodes[n]` (a file's
    /// tags).
    pub fn renumbered(self, elements: &[usize], nodes: &[usize]) -> MeshError {
        let el = |e: usize| elements.get(e).copied().unwrap_or(e);
        let nd = |n: usize| nodes.get(n).copied().unwrap_or(n);
        match self {
            MeshError::MissingNode { element, node } => MeshError::MissingNode {
                element: el(element),
                node,
            },
            MeshError::Degenerate {
                element,
                what,
                measure,
            } => MeshError::Degenerate {
                element: el(element),
                what,
                measure,
            },
            MeshError::Inverted {
                element,
                what,
                measure,
            } => MeshError::Inverted {
                element: el(element),
                what,
                measure,
            },
            MeshError::Unreferenced { node } => MeshError::Unreferenced { node: nd(node) },
            MeshError::NonManifold { what, nodes, count } => MeshError::NonManifold {
                what,
                nodes: nodes.into_iter().map(nd).collect(),
                count,
            },
            MeshError::OpenBoundary {
                nodes,
                count,
                detail,
            } => MeshError::OpenBoundary {
                nodes: nodes.into_iter().map(nd).collect(),
                count,
                detail,
            },
            e @ MeshError::Empty { .. } => e,
        }
    }
}

/// Signed area of a triangle (counter-clockwise positive), m².
fn triangle_area(x: &[Vec2], t: &[usize; 3]) -> f64 {
    0.5 * (x[t[1]] - x[t[0]]).perp(&(x[t[2]] - x[t[0]]))
}

/// Signed volume of a tetrahedron ((x₁ − x₀)·((x₂ − x₀) × (x₃ − x₀))/6), m³.
pub fn tet_volume(x: &[Vec3], t: &[usize; 4]) -> f64 {
    let (a, b, c) = (x[t[1]] - x[t[0]], x[t[2]] - x[t[0]], x[t[3]] - x[t[0]]);
    a.dot(&b.cross(&c)) / 6.0
}

/// Puts every element in the mesh's orientation (the sign of the sum of the signed measures;
/// all are flipped, by swapping their first two nodes, when that is negative) and checks each
/// is non-degenerate and in that orientation; then that every node is used. `measure` is the
/// signed area or volume, `longest` the longest edge, `dim` the power of length of a measure.
fn orient<const K: usize, P>(
    x: &[P],
    elements: &mut [[usize; K]],
    what: &'static str,
    kind: &'static str,
    measure: impl Fn(&[P], &[usize; K]) -> f64,
    longest: impl Fn(&[P], &[usize; K]) -> f64,
    dim: i32,
) -> Result<(), MeshError> {
    if elements.is_empty() {
        return Err(MeshError::Empty { kind });
    }
    for (e, el) in elements.iter().enumerate() {
        if let Some(&node) = el.iter().find(|&&n| n >= x.len()) {
            return Err(MeshError::MissingNode { element: e, node });
        }
    }
    let measures: Vec<f64> = elements.iter().map(|el| measure(x, el)).collect();
    let sign = if measures.iter().sum::<f64>() < 0.0 {
        -1.0
    } else {
        1.0
    };
    for (e, (el, &m)) in elements.iter().zip(&measures).enumerate() {
        let m = m * sign;
        let l = longest(x, el);
        if m.abs() <= DEGENERATE_RELATIVE * l.powi(dim) || !m.is_finite() {
            return Err(MeshError::Degenerate {
                element: e,
                what,
                measure: m,
            });
        }
        if m < 0.0 {
            return Err(MeshError::Inverted {
                element: e,
                what,
                measure: m,
            });
        }
    }
    if sign < 0.0 {
        for el in elements.iter_mut() {
            el.swap(0, 1);
        }
    }
    let mut used = vec![false; x.len()];
    for el in elements.iter() {
        for &n in el {
            used[n] = true;
        }
    }
    if let Some(node) = used.iter().position(|u| !u) {
        return Err(MeshError::Unreferenced { node });
    }
    Ok(())
}

/// Longest edge of a simplex, m.
fn longest_edge<P, const K: usize>(x: &[P], el: &[usize; K], dist: impl Fn(&P, &P) -> f64) -> f64 {
    let mut l = 0.0f64;
    for i in 0..K {
        for j in i + 1..K {
            l = l.max(dist(&x[el[i]], &x[el[j]]));
        }
    }
    l
}

/// Checks a 2D triangle mesh and puts its triangles counter-clockwise (module comment): one
/// orientation, no zero-area triangle, every node used, every edge in at most two triangles.
pub fn check_triangles(x: &[Vec2], triangles: &mut [[usize; 3]]) -> Result<(), MeshError> {
    orient(
        x,
        triangles,
        "area",
        "triangles",
        triangle_area,
        |x, t| longest_edge(x, t, |a, b| (a - b).norm()),
        2,
    )?;
    let mut count = BTreeMap::<[usize; 2], usize>::new();
    for t in triangles.iter() {
        for (a, b) in [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])] {
            *count.entry([a.min(b), a.max(b)]).or_default() += 1;
        }
    }
    if let Some((e, &n)) = count.iter().find(|(_, n)| **n > 2) {
        return Err(MeshError::NonManifold {
            what: "edge",
            nodes: e.to_vec(),
            count: n,
        });
    }
    Ok(())
}

/// The outward faces of a positively oriented tetrahedron (a, b, c, d): each counter-clockwise
/// seen from outside.
pub fn outward_faces(t: &[usize; 4]) -> [[usize; 3]; 4] {
    let [a, b, c, d] = *t;
    [[a, c, b], [a, b, d], [a, d, c], [b, c, d]]
}

/// Checks a tetrahedral mesh and puts its tetrahedra in positive order (module comment), and
/// returns its boundary: the faces of exactly one tetrahedron, outward (counter-clockwise seen
/// from outside), which must form a closed, consistently oriented manifold surface (every
/// boundary edge on exactly two boundary triangles, once in each direction).
pub fn check_tets(x: &[Vec3], tets: &mut [[usize; 4]]) -> Result<Vec<[usize; 3]>, MeshError> {
    orient(
        x,
        tets,
        "volume",
        "tetrahedra",
        tet_volume,
        |x, t| longest_edge(x, t, |a, b| (a - b).norm()),
        3,
    )?;
    let mut faces = HashMap::<[usize; 3], (usize, [usize; 3])>::new();
    for t in tets.iter() {
        for f in outward_faces(t) {
            let mut key = f;
            key.sort_unstable();
            let entry = faces.entry(key).or_insert((0, f));
            entry.0 += 1;
        }
    }
    let mut boundary: Vec<[usize; 3]> = Vec::new();
    let mut sorted: Vec<_> = faces.into_iter().collect();
    sorted.sort_unstable();
    for (key, (count, face)) in sorted {
        if count > 2 {
            return Err(MeshError::NonManifold {
                what: "face",
                nodes: key.to_vec(),
                count,
            });
        }
        if count == 1 {
            boundary.push(face);
        }
    }
    let mut directed = BTreeMap::<[usize; 2], (usize, usize)>::new();
    for f in &boundary {
        for (a, b) in [(f[0], f[1]), (f[1], f[2]), (f[2], f[0])] {
            let e = directed.entry([a.min(b), a.max(b)]).or_default();
            if a < b {
                e.0 += 1;
            } else {
                e.1 += 1;
            }
        }
    }
    for (edge, (forward, backward)) in directed {
        if forward + backward != 2 {
            return Err(MeshError::OpenBoundary {
                nodes: edge.to_vec(),
                count: forward + backward,
                detail: "a closed manifold surface has 2",
            });
        }
        if forward != 1 {
            return Err(MeshError::OpenBoundary {
                nodes: edge.to_vec(),
                count: 2,
                detail: "both run the same way: the surface is not consistently oriented",
            });
        }
    }
    Ok(boundary)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square() -> Vec<Vec2> {
        vec![
            Vec2::new(0.0, 0.0),
            Vec2::new(1.0, 0.0),
            Vec2::new(1.0, 1.0),
            Vec2::new(0.0, 1.0),
        ]
    }

    #[test]
    fn triangles_are_oriented_and_each_rule_named() {
        let x = square();
        // Clockwise throughout: flipped, accepted.
        let mut t = vec![[0, 2, 1], [0, 3, 2]];
        check_triangles(&x, &mut t).unwrap();
        assert!(t.iter().all(|t| triangle_area(&x, t) > 0.0));
        // One of two turned against the other.
        let mut t = vec![[0, 1, 2], [0, 2, 3], [1, 3, 2]];
        assert!(matches!(
            check_triangles(&x, &mut t),
            Err(MeshError::Inverted { element: 2, .. })
        ));
        // Zero area.
        let mut x3 = x.clone();
        x3.push(Vec2::new(2.0, 0.0));
        let mut t = vec![[0, 1, 2], [0, 2, 3], [0, 1, 4]];
        assert!(matches!(
            check_triangles(&x3, &mut t),
            Err(MeshError::Degenerate { element: 2, .. })
        ));
        // Node 4 unused.
        let mut t = vec![[0, 1, 2], [0, 2, 3]];
        assert_eq!(
            check_triangles(&x3, &mut t),
            Err(MeshError::Unreferenced { node: 4 })
        );
        // A third triangle on edge 0–2.
        let mut x5 = x.clone();
        x5.push(Vec2::new(-1.0, 2.0));
        let mut t = vec![[0, 1, 2], [0, 2, 3], [0, 2, 4]];
        assert_eq!(
            check_triangles(&x5, &mut t),
            Err(MeshError::NonManifold {
                what: "edge",
                nodes: vec![0, 2],
                count: 3
            })
        );
        assert_eq!(
            check_triangles(&x, &mut []),
            Err(MeshError::Empty { kind: "triangles" })
        );
        assert_eq!(
            MeshError::Unreferenced { node: 4 }.renumbered(&[], &[10, 11, 12, 13, 99]),
            MeshError::Unreferenced { node: 99 }
        );
    }

    #[test]
    fn tets_have_a_closed_outward_boundary() {
        // Two tetrahedra sharing face 1-2-3.
        let x = vec![
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(0.0, 1.0, 0.0),
            Vec3::new(0.0, 0.0, 1.0),
            Vec3::new(1.0, 1.0, 1.0),
        ];
        let mut tets = vec![[0, 1, 2, 3], [1, 2, 3, 4]];
        let boundary = check_tets(&x, &mut tets).unwrap();
        assert_eq!(boundary.len(), 6);
        assert!(tets.iter().all(|t| tet_volume(&x, t) > 0.0));
        // Divergence theorem: the boundary's cone volumes from the origin sum to the volume.
        let enclosed: f64 = boundary
            .iter()
            .map(|f| x[f[0]].dot(&x[f[1]].cross(&x[f[2]])) / 6.0)
            .sum();
        let volume: f64 = tets.iter().map(|t| tet_volume(&x, t)).sum();
        assert!((enclosed - volume).abs() < 1e-15, "{enclosed} vs {volume}");
        // Two tetrahedra touching along an edge only: edge 0-1 on four boundary triangles.
        let mut x2 = x[..4].to_vec();
        x2.push(Vec3::new(0.5, -1.0, -1.0));
        x2.push(Vec3::new(0.5, -1.0, 1.0));
        let mut tets = vec![[0, 1, 2, 3], [1, 0, 4, 5]];
        assert!(matches!(
            check_tets(&x2, &mut tets),
            Err(MeshError::OpenBoundary { count: 4, .. })
        ));
    }
}
