//! The contact surface of the bodies: the nodes that can touch, each with the area its barrier
//! is weighted by and the body it belongs to (SPEC.md §2, §6: a node's contact area A, a length
//! in 2D), and the boundary edges (2D) other bodies' nodes touch (SPEC.md §7), each with its
//! body. Faces (3D) go here too.

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

    /// Number of contact vertices.
    pub fn len(&self) -> usize {
        self.vertices.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.vertices.is_empty()
    }
}
