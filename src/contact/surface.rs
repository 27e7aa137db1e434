//! The contact surface of the bodies: the nodes that can touch an obstacle, each with the area
//! its barrier is weighted by and the body it belongs to (SPEC.md §2, §6: a node's contact
//! area A, a length in 2D). Boundary edges (2D) and faces (3D) for body–body pairs go here too.

/// The contact vertices of every body.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ContactSurface {
    /// Node of the state vector of every contact vertex.
    pub vertices: Vec<usize>,
    /// Its contact area A, m^(D−1) (m in 2D, m² in 3D).
    pub area: Vec<f64>,
    /// The body it belongs to (an index into the system's bodies).
    pub body: Vec<usize>,
}

impl ContactSurface {
    /// Adds contact vertex `node` of body `body` with contact area `area`.
    pub fn push(&mut self, node: usize, area: f64, body: usize) {
        self.vertices.push(node);
        self.area.push(area);
        self.body.push(body);
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
