//! A 2D mass-spring mesh (SPEC.md §2): nodes at rest, spring edges with rest lengths, lumped
//! masses, the contact area of every node and its triangles; and how it joins a system.

use std::ops::Range;

use nalgebra::Vector2;

use crate::contact::ContactSurface;
use crate::energy::inversion::signed_area;
use crate::energy::spring::SpringEnergy;
use crate::energy::{Projection, Vec2};
use crate::solver::SystemBuilder;

/// A 2D mass-spring mesh: node positions at rest, edges with rest lengths, lumped masses.
#[derive(Clone, Debug)]
pub struct Mesh {
    /// Node positions at t = 0, m.
    pub x0: Vec<Vector2<f64>>,
    /// Spring edges as node pairs.
    pub edges: Vec<[usize; 2]>,
    /// Squared rest length of every edge, m².
    pub rest_l2: Vec<f64>,
    /// Lumped mass of every node, kg.
    pub mass: Vec<f64>,
    /// Contact area of every node, m.
    pub contact_area: Vec<f64>,
    /// Triangles (two per cell) for OBJ output and drawing.
    pub triangles: Vec<[usize; 3]>,
    /// The sign of every triangle's signed area at rest (+1 counter-clockwise, −1 clockwise,
    /// 0 degenerate), for [`Mesh::inverted_triangles`].
    pub rest_orientation: Vec<f64>,
}

impl Mesh {
    /// The mesh of nodes `x0` (m), springs `edges` and `triangles`, with lumped masses `mass`
    /// (kg) and contact areas `contact_area` (m); the rest lengths and orientations from `x0`.
    pub fn new(
        x0: Vec<Vector2<f64>>,
        edges: Vec<[usize; 2]>,
        triangles: Vec<[usize; 3]>,
        mass: Vec<f64>,
        contact_area: Vec<f64>,
    ) -> Mesh {
        let rest_l2 = edges
            .iter()
            .map(|&[a, b]| (x0[a] - x0[b]).norm_squared())
            .collect();
        let rest_orientation = triangles
            .iter()
            .map(|&[a, b, c]| signed_area(&x0[a], &x0[b], &x0[c]).signum())
            .collect();
        Mesh {
            x0,
            edges,
            rest_l2,
            mass,
            contact_area,
            triangles,
            rest_orientation,
        }
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.x0.len()
    }

    /// Whether the mesh has no nodes.
    pub fn is_empty(&self) -> bool {
        self.x0.is_empty()
    }

    /// Adds the mesh to `builder` as body number `body`: its nodes, every one moving at
    /// `velocity` (m/s), its springs of stiffness `stiffness` (N/m) with the Hessian
    /// `projection`, and every node as a contact vertex with its contact area into `surface`.
    /// Returns the nodes' indices in the state vector.
    pub fn add_to(
        &self,
        builder: &mut SystemBuilder<2>,
        velocity: Vec2,
        stiffness: f64,
        projection: Projection,
        body: usize,
        surface: &mut ContactSurface,
    ) -> Range<usize> {
        let nodes = builder.add_nodes(&self.x0, &vec![velocity; self.len()], &self.mass);
        let offset = nodes.start;
        let edges = self
            .edges
            .iter()
            .map(|&[a, b]| [a + offset, b + offset])
            .collect();
        builder.add_potential(Box::new(SpringEnergy::new(
            edges,
            self.rest_l2.clone(),
            stiffness,
            projection,
        )));
        for (i, &area) in self.contact_area.iter().enumerate() {
            surface.push(offset + i, area, body);
        }
        nodes
    }

    /// The boundary of the mesh: the edges that belong to exactly one triangle (as node pairs,
    /// smaller node first, in order).
    pub fn boundary_edges(&self) -> Vec<[usize; 2]> {
        let mut count = std::collections::BTreeMap::<[usize; 2], u32>::new();
        for t in &self.triangles {
            for (a, b) in [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])] {
                *count.entry([a.min(b), a.max(b)]).or_default() += 1;
            }
        }
        count
            .into_iter()
            .filter_map(|(e, n)| (n == 1).then_some(e))
            .collect()
    }

    /// Whether `p` (m) is inside the mesh's outline at rest (its boundary edges, by the crossing
    /// rule) or within `margin` (m) of it.
    pub fn contains_or_near(&self, boundary: &[[usize; 2]], p: &Vector2<f64>, margin: f64) -> bool {
        let mut inside = false;
        for &[a, b] in boundary {
            let (pa, pb) = (self.x0[a], self.x0[b]);
            // Distance to the segment.
            let ab = pb - pa;
            let s = ((p - pa).dot(&ab) / ab.norm_squared()).clamp(0.0, 1.0);
            if (pa + ab * s - p).norm() < margin {
                return true;
            }
            if (pa.y > p.y) != (pb.y > p.y) {
                let x = pa.x + (p.y - pa.y) / (pb.y - pa.y) * (pb.x - pa.x);
                if x > p.x {
                    inside = !inside;
                }
            }
        }
        inside
    }

    /// How many of [`Mesh::triangles`] are inverted at positions `x` (the mesh's own nodes):
    /// their signed area is zero or of the opposite sign to their area at rest. A mass-spring
    /// grid has no energy against this (a mirrored cell keeps every edge and diagonal length),
    /// so a hard landing can fold a refined square (docs/refinement.md); the run reports it.
    pub fn inverted_triangles(&self, x: &[Vector2<f64>]) -> usize {
        let area = |p: &[Vector2<f64>], [a, b, c]: [usize; 3]| signed_area(&p[a], &p[b], &p[c]);
        self.triangles
            .iter()
            .zip(&self.rest_orientation)
            .filter(|&(&t, &rest)| area(x, t) * rest <= 0.0)
            .count()
    }
}
