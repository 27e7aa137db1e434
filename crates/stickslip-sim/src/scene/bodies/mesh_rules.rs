//! The rules a simplicial body mesh must follow (SPEC.md §7 bodies, issues 20 and 21's bad
//! input): elements of positive, non-zero area (2D) or volume (3D) in one orientation, every
//! node in an element, every edge (2D) or face (3D) in at most two elements, and in 3D a
//! boundary that is a closed, consistently oriented manifold surface. Node and element numbers
//! in the errors are indices into the arrays checked; a mesh file renumbers them to its own
//! tags ([`MeshError::renumbered`]).

use std::collections::{BTreeMap, HashMap, HashSet};

use crate::contact::broad_phase::Aabb;
use crate::energy::{Vec2, Vec3, Vector};
use crate::number_format::Short;
use crate::scene::limits::{MAX_ELEMENTS, MAX_NODES};

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
    /// An element whose nodes are another's (in any order): its mass would count twice.
    #[error(
        "element {element} has the nodes of element {first}: an element listed twice counts its mass twice"
    )]
    Duplicate {
        /// The later element.
        element: usize,
        /// The earlier one.
        first: usize,
    },
    /// Two elements whose interiors intersect (a shared edge or face with both on one side,
    /// or no separating axis: [`check_no_overlap_2d`], [`check_no_overlap_3d`]).
    #[error(
        "element {element} overlaps element {other}: elements may share nodes, edges and faces, not volume (its mass would count twice)"
    )]
    Overlap {
        /// The later element.
        element: usize,
        /// The earlier one.
        other: usize,
    },
    /// A mesh with no boundary at all.
    #[error("has no boundary: every {what} is in two elements, so nothing can touch the body")]
    NoBoundary {
        /// "edge" or "face".
        what: &'static str,
    },
    /// A boundary node where separate sheets (3D) or more than two boundary edges (2D) meet.
    #[error(
        "the boundary is not a manifold at node {node}: {sheets} separate {what} meet there (elements touching at a node only)"
    )]
    Pinched {
        /// The node.
        node: usize,
        /// How many sheets or edge pairs meet.
        sheets: usize,
        /// "fans of boundary triangles" or "pairs of boundary edges".
        what: &'static str,
    },
    /// A cylinder whose rings are too many for its segments (`cylinder::disk`).
    #[error("rings = {rings} is too many for segments = {segments}: ring {}'s polygon pokes out of ring {ring}'s, so the triangles between them would overlap; use fewer rings or more segments", ring - 1)]
    RingsOverlap {
        /// Nodes on the rim.
        segments: usize,
        /// Rings.
        rings: usize,
        /// The outer ring of the two.
        ring: usize,
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
            MeshError::Duplicate { element, first } => MeshError::Duplicate {
                element: el(element),
                first: el(first),
            },
            MeshError::Overlap { element, other } => MeshError::Overlap {
                element: el(element),
                other: el(other),
            },
            MeshError::Pinched { node, sheets, what } => MeshError::Pinched {
                node: nd(node),
                sheets,
                what,
            },
            e @ (MeshError::Empty { .. }
            | MeshError::NoBoundary { .. }
            | MeshError::RingsOverlap { .. }) => e,
        }
    }
}

/// How large a generated mesh will be, computed from its keys before it is built.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeshSize {
    /// Nodes.
    pub nodes: f64,
    /// Elements (tetrahedra).
    pub elements: f64,
}

impl MeshSize {
    /// The rule broken when a tetrahedral mesh would pass [`MAX_NODES`] nodes or
    /// [`MAX_ELEMENTS`] elements (limits.rs says why), as one line.
    pub fn over_limits(&self) -> Option<String> {
        self.over_limits_of("tetrahedra")
    }

    /// [`MeshSize::over_limits`] for a mesh of `elements` ("triangles", "tetrahedra").
    pub fn over_limits_of(&self, elements: &str) -> Option<String> {
        (self.nodes > MAX_NODES || self.elements > MAX_ELEMENTS).then(|| {
            format!(
                "the generated mesh would have {} nodes and {} {elements}; at most {MAX_NODES:e} nodes and {MAX_ELEMENTS:e} {elements} a body",
                Short(self.nodes),
                Short(self.elements)
            )
        })
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

/// The elements on one edge or face: how many, and the first two, each with how it runs it.
#[derive(Default)]
struct Sharing<T> {
    count: usize,
    first: (usize, T),
    second: (usize, T),
}

impl<T: Default> Sharing<T> {
    fn add(&mut self, element: usize, runs: T) {
        match self.count {
            0 => self.first = (element, runs),
            1 => self.second = (element, runs),
            _ => {}
        }
        self.count += 1;
    }
}

/// Refuses an element whose nodes are an earlier element's, in any order.
fn no_duplicates<const K: usize>(elements: &[[usize; K]]) -> Result<(), MeshError> {
    let mut seen = HashMap::with_capacity(elements.len());
    for (e, el) in elements.iter().enumerate() {
        let mut key = *el;
        key.sort_unstable();
        if let Some(&first) = seen.get(&key) {
            return Err(MeshError::Duplicate { element: e, first });
        }
        seen.insert(key, e);
    }
    Ok(())
}

/// Checks a 2D triangle mesh and puts its triangles counter-clockwise (module comment): no
/// triangle listed twice, one orientation, no zero-area triangle, every node used, every edge
/// in at most two triangles and, when in two, run in opposite directions by them (the same
/// direction puts both on one side of it: they overlap), and a boundary on which every node
/// has exactly two boundary edges.
pub fn check_triangles(x: &[Vec2], triangles: &mut [[usize; 3]]) -> Result<(), MeshError> {
    no_duplicates(triangles)?;
    orient(
        x,
        triangles,
        "area",
        "triangles",
        triangle_area,
        |x, t| longest_edge(x, t, |a, b| (a - b).norm()),
        2,
    )?;
    // Every edge: the triangles on it, each with whether it runs the edge from the smaller node.
    let mut edges = BTreeMap::<[usize; 2], Sharing<bool>>::new();
    for (e, t) in triangles.iter().enumerate() {
        for (a, b) in [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])] {
            edges.entry([a.min(b), a.max(b)]).or_default().add(e, a < b);
        }
    }
    if let Some((k, on)) = edges.iter().find(|(_, on)| on.count > 2) {
        return Err(MeshError::NonManifold {
            what: "edge",
            nodes: k.to_vec(),
            count: on.count,
        });
    }
    if let Some(on) = edges
        .values()
        .filter(|on| on.count == 2 && on.first.1 == on.second.1)
        .min_by_key(|on| on.second.0)
    {
        return Err(MeshError::Overlap {
            element: on.second.0,
            other: on.first.0,
        });
    }
    let mut degree = vec![0usize; x.len()];
    for (k, _) in edges.iter().filter(|(_, on)| on.count == 1) {
        degree[k[0]] += 1;
        degree[k[1]] += 1;
    }
    if degree.iter().all(|&d| d == 0) {
        return Err(MeshError::NoBoundary { what: "edge" });
    }
    if let Some(node) = degree.iter().position(|&d| d > 2) {
        return Err(MeshError::Pinched {
            node,
            sheets: degree[node] / 2,
            what: "pairs of boundary edges",
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

/// Whether `g` is `f` with its nodes rotated (the same cycle, not reversed).
fn same_cycle(f: &[usize; 3], g: &[usize; 3]) -> bool {
    *g == *f || *g == [f[1], f[2], f[0]] || *g == [f[2], f[0], f[1]]
}

/// Checks a tetrahedral mesh and puts its tetrahedra in positive order (module comment), and
/// returns its boundary: the faces of exactly one tetrahedron, outward (counter-clockwise seen
/// from outside), which must form a closed, consistently oriented manifold surface (every
/// boundary edge on exactly two boundary triangles, once in each direction; around every
/// boundary node one fan of boundary triangles). No tetrahedron may be listed twice, and a face
/// in two must have them on opposite sides (outward, they run it in opposite directions).
pub fn check_tets(x: &[Vec3], tets: &mut [[usize; 4]]) -> Result<Vec<[usize; 3]>, MeshError> {
    no_duplicates(tets)?;
    orient(
        x,
        tets,
        "volume",
        "tetrahedra",
        tet_volume,
        |x, t| longest_edge(x, t, |a, b| (a - b).norm()),
        3,
    )?;
    // Every face: the tetrahedra on it, each with the face as it runs it outward.
    let mut faces = HashMap::<[usize; 3], Sharing<[usize; 3]>>::new();
    for (e, t) in tets.iter().enumerate() {
        for f in outward_faces(t) {
            let mut key = f;
            key.sort_unstable();
            faces.entry(key).or_default().add(e, f);
        }
    }
    let mut boundary: Vec<[usize; 3]> = Vec::new();
    let mut sorted: Vec<_> = faces.into_iter().collect();
    sorted.sort_unstable_by_key(|(key, _)| *key);
    let mut folded: Option<(usize, usize)> = None;
    for (key, on) in sorted {
        if on.count > 2 {
            return Err(MeshError::NonManifold {
                what: "face",
                nodes: key.to_vec(),
                count: on.count,
            });
        }
        if on.count == 2 && same_cycle(&on.first.1, &on.second.1) {
            let pair = (on.second.0, on.first.0);
            folded = Some(folded.map_or(pair, |f| f.min(pair)));
        }
        if on.count == 1 {
            boundary.push(on.first.1);
        }
    }
    if let Some((element, other)) = folded {
        return Err(MeshError::Overlap { element, other });
    }
    if boundary.is_empty() {
        return Err(MeshError::NoBoundary { what: "face" });
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
    one_fan_per_node(&boundary)?;
    Ok(boundary)
}

/// Around every node of a closed, consistently oriented boundary (every edge on two
/// triangles, once each way), the triangles on the node must form one fan: the edges opposite
/// the node, a → b for each triangle (n, a, b), one cycle. Two cycles are two sheets of
/// surface meeting at the node only (two bodies touching at a corner).
fn one_fan_per_node(boundary: &[[usize; 3]]) -> Result<(), MeshError> {
    let mut link: Vec<(usize, usize, usize)> = boundary
        .iter()
        .flat_map(|f| [(f[0], f[1], f[2]), (f[1], f[2], f[0]), (f[2], f[0], f[1])])
        .collect();
    link.sort_unstable();
    for around in link.chunk_by(|p, q| p.0 == q.0) {
        let next: HashMap<usize, usize> = around.iter().map(|&(_, a, b)| (a, b)).collect();
        let mut seen = HashSet::with_capacity(around.len());
        let mut sheets = 0;
        for &(_, a, _) in around {
            if seen.contains(&a) {
                continue;
            }
            sheets += 1;
            let mut c = a;
            while seen.insert(c) {
                match next.get(&c) {
                    Some(&n) => c = n,
                    None => break,
                }
            }
        }
        if sheets > 1 {
            return Err(MeshError::Pinched {
                node: around[0].0,
                sheets,
                what: "fans of boundary triangles",
            });
        }
    }
    Ok(())
}

/// Relative depth to which two elements' projections on an axis may overlap and still count
/// as touching: 1e-9 of the longer of their longest edges (neighbours share nodes, so their
/// projections meet exactly; the margin is for nodes placed on another element's face).
pub const OVERLAP_RELATIVE: f64 = 1e-9;

/// Whether the simplices `a` and `b` are separated (interiors disjoint, touching allowed) by
/// one of `axes`: their projections on it overlap by at most `tol` × the axis's length.
fn separated<const D: usize>(
    a: &[Vector<D>],
    b: &[Vector<D>],
    axes: impl IntoIterator<Item = Vector<D>>,
    tol: f64,
) -> bool {
    let span = |p: &[Vector<D>], n: &Vector<D>| {
        p.iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), q| {
                let s = q.dot(n);
                (lo.min(s), hi.max(s))
            })
    };
    axes.into_iter().any(|n| {
        let norm = n.norm();
        if norm == 0.0 || !norm.is_finite() {
            return false;
        }
        let ((la, ha), (lb, hb)) = (span(a, &n), span(b, &n));
        ha.min(hb) - la.max(lb) <= tol * norm
    })
}

/// Most grid cells an element's box may cover before it is tested against every other box
/// instead (an element far larger than the mean).
const MAX_CELLS_PER_ELEMENT: usize = 64;

/// Refuses the first pair (later, earlier) of elements whose interiors overlap: of every pair
/// whose boxes overlap, the first by (later, earlier) for which `separated` finds no axis. The
/// pairs come from a uniform grid of cells twice the mean box size (each pair tested once, in
/// the cell holding the lower corner of the two boxes' intersection); a box covering more
/// than [`MAX_CELLS_PER_ELEMENT`] cells is tested against every other box. Linear in the
/// elements for a mesh of like-sized elements (a sort and sweep along one axis was not:
/// 50 s for 384 000 tetrahedra).
fn first_overlap<const D: usize, const K: usize>(
    x: &[Vector<D>],
    elements: &[[usize; K]],
    separated: impl Fn(&[Vector<D>; K], &[Vector<D>; K], f64) -> bool,
) -> Result<(), MeshError> {
    let points = |el: &[usize; K]| el.map(|n| x[n]);
    let boxes: Vec<Aabb<D>> = elements
        .iter()
        .map(|el| Aabb::around(&points(el), 0.0))
        .collect();
    let longest: Vec<f64> = elements
        .iter()
        .map(|el| longest_edge(x, el, |a, b| (a - b).norm()))
        .collect();
    let mut found: Option<(usize, usize)> = None;
    let mut test = |i: usize, j: usize| {
        let (i, j) = (i.min(j), i.max(j));
        if i == j || found.is_some_and(|f| f <= (j, i)) || !boxes[i].overlaps(&boxes[j]) {
            return;
        }
        let tol = OVERLAP_RELATIVE * longest[i].max(longest[j]);
        if !separated(&points(&elements[i]), &points(&elements[j]), tol) {
            found = Some((j, i));
        }
    };
    let n = boxes.len().max(1) as f64;
    let size = 2.0 * boxes.iter().map(|b| (b.hi - b.lo).max()).sum::<f64>() / n;
    let origin = boxes
        .iter()
        .fold(Vector::<D>::repeat(f64::INFINITY), |o, b| o.inf(&b.lo));
    let cell = |p: &Vector<D>| -> [i64; D] {
        std::array::from_fn(|c| ((p[c] - origin[c]) / size).floor() as i64)
    };
    let mut grid = HashMap::<[i64; D], Vec<usize>>::new();
    let mut large = Vec::new();
    for (e, b) in boxes.iter().enumerate() {
        let (lo, hi) = (cell(&b.lo), cell(&b.hi));
        let cells = (0..D).try_fold(1usize, |m, c| {
            usize::try_from(hi[c] - lo[c] + 1)
                .ok()
                .and_then(|k| m.checked_mul(k))
        });
        match cells {
            Some(m) if m <= MAX_CELLS_PER_ELEMENT && size.is_finite() && size > 0.0 => {
                for k in 0..m {
                    let mut rest = k;
                    let key: [i64; D] = std::array::from_fn(|c| {
                        let span = (hi[c] - lo[c] + 1) as usize;
                        let v = lo[c] + (rest % span) as i64;
                        rest /= span;
                        v
                    });
                    grid.entry(key).or_default().push(e);
                }
            }
            _ => large.push(e),
        }
    }
    for (key, members) in &grid {
        for (a, &i) in members.iter().enumerate() {
            for &j in &members[a + 1..] {
                let corner = boxes[i].lo.sup(&boxes[j].lo);
                if cell(&corner) == *key {
                    test(i, j);
                }
            }
        }
    }
    for (a, &i) in large.iter().enumerate() {
        for j in 0..boxes.len() {
            if large[..a].contains(&j) {
                continue;
            }
            test(i, j);
        }
    }
    match found {
        Some((element, other)) => Err(MeshError::Overlap { element, other }),
        None => Ok(()),
    }
}

/// Refuses two triangles whose interiors overlap, by separating axes: two triangles overlap
/// when none of their six edge normals separates them ([`OVERLAP_RELATIVE`]). Exact for
/// convex polygons, so it finds every overlap, folded neighbours and separate pieces alike.
pub fn check_no_overlap_2d(x: &[Vec2], triangles: &[[usize; 3]]) -> Result<(), MeshError> {
    first_overlap(x, triangles, |a, b, tol| {
        let normals = |p: &[Vec2; 3]| {
            let p = *p;
            (0..3).map(move |i| {
                let e = p[(i + 1) % 3] - p[i];
                Vec2::new(e.y, -e.x)
            })
        };
        separated(a, b, normals(a).chain(normals(b)), tol)
    })
}

/// Refuses two tetrahedra whose interiors overlap, by separating axes: two tetrahedra overlap
/// when none of their eight face normals and 36 cross products of an edge of each separates
/// them ([`OVERLAP_RELATIVE`]; a cross product of parallel edges is skipped).
pub fn check_no_overlap_3d(x: &[Vec3], tets: &[[usize; 4]]) -> Result<(), MeshError> {
    const EDGES: [(usize, usize); 6] = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)];
    first_overlap(x, tets, |a, b, tol| {
        let faces = |p: &[Vec3; 4]| {
            let p = *p;
            [(0, 1, 2), (0, 1, 3), (0, 2, 3), (1, 2, 3)]
                .into_iter()
                .map(move |(i, j, k)| (p[j] - p[i]).cross(&(p[k] - p[i])))
        };
        let crosses = EDGES.iter().flat_map(|&(i, j)| {
            EDGES
                .iter()
                .map(move |&(k, l)| (a[j] - a[i]).cross(&(b[l] - b[k])))
        });
        separated(a, b, faces(a).chain(faces(b)).chain(crosses), tol)
    })
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
