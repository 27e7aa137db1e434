//! The contact surface of the bodies: the nodes that can touch, each with the area its barrier
//! is weighted by and the body it belongs to (SPEC.md §2, §6: a node's contact area A, a length
//! in 2D), the boundary edges (the edges other bodies' nodes touch in 2D; the edges of edge–edge
//! pairs in 3D) and the boundary triangles (3D: other bodies' nodes touch them), each with its
//! body (SPEC.md §7).

/// The contact vertices and boundary edges of every body (and of the obstacles made of nodes).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ContactSurface {
    /// Node of the state vector of every contact vertex.
    pub vertices: Vec<usize>,
    /// Its contact area A, m^(D−1) (m in 2D, m² in 3D).
    pub area: Vec<f64>,
    /// The body it belongs to (its number in the friction table).
    pub body: Vec<usize>,
    /// Boundary edges as node pairs of the state vector.
    pub edges: Vec<[usize; 2]>,
    /// The body each edge belongs to (its number in the friction table).
    pub edge_body: Vec<usize>,
    /// Boundary triangles (3D) as node triples of the state vector, counter-clockwise seen
    /// from outside.
    pub triangles: Vec<[usize; 3]>,
    /// The body each triangle belongs to (its number in the friction table).
    pub triangle_body: Vec<usize>,
}

impl ContactSurface {
    /// Adds contact vertex `node` of body `body` with contact area `area`.
    pub fn push(&mut self, node: usize, area: f64, body: usize) {
        self.vertices.push(node);
        self.area.push(area);
        self.body.push(body);
    }

    /// Adds boundary edge `edge` (two nodes) of body `body`.
    pub fn push_edge(&mut self, edge: [usize; 2], body: usize) {
        self.edges.push(edge);
        self.edge_body.push(body);
    }

    /// Adds boundary triangle `triangle` (three nodes, counter-clockwise seen from outside) of
    /// body `body`.
    pub fn push_triangle(&mut self, triangle: [usize; 3], body: usize) {
        self.triangles.push(triangle);
        self.triangle_body.push(body);
    }

    /// Number of contact vertices.
    pub fn len(&self) -> usize {
        self.vertices.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.vertices.is_empty()
    }
}

/// Contact vertices embedded in a body's control nodes (an affine body, SPEC.md §7 via ABD):
/// vertex k sits at Σⱼ wₖⱼ x_{nₖⱼ} over four nodes of the state vector, with fixed weights
/// (its affine coordinates in the control tetrahedron, summing to 1, of either sign).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EmbeddedVertices {
    /// The four control nodes of every vertex.
    pub nodes: Vec<[usize; 4]>,
    /// Its weights over them (dimensionless, summing to 1).
    pub weights: Vec<[f64; 4]>,
    /// Its contact area A, m².
    pub area: Vec<f64>,
    /// The body it belongs to (its number in the friction table).
    pub body: Vec<usize>,
}

impl EmbeddedVertices {
    /// Adds a vertex at Σ `weights`ⱼ x_{`nodes`ⱼ} of body `body` with contact area `area`, m².
    pub fn push(&mut self, nodes: [usize; 4], weights: [f64; 4], area: f64, body: usize) {
        self.nodes.push(nodes);
        self.weights.push(weights);
        self.area.push(area);
        self.body.push(body);
    }

    /// Number of vertices.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }
}
