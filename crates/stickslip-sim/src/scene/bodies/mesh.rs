//! A 2D triangle-mesh body (SPEC.md §2, §7): nodes at rest, edges with rest lengths, lumped
//! masses, the contact area of every node and its triangles; and how it joins a system with
//! its [`Material`]: springs along the edges (the book's mass-spring) or the stable
//! neo-Hookean over the triangles.

use std::ops::Range;

use nalgebra::Vector2;

use super::material::Material;
use crate::contact::ContactSurface;
use crate::energy::inversion::signed_area;
use crate::energy::neo_hookean::NeoHookean;
use crate::energy::spring::SpringEnergy;
use crate::energy::{Projection, Vec2};
use crate::solver::SystemBuilder;

/// A 2D triangle mesh: node positions at rest, edges with rest lengths (the springs of a
/// mass-spring body), triangles (the elements of a neo-Hookean one), lumped masses.
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
    /// Triangles (two per cell for the generators): the elements of a neo-Hookean body, and
    /// OBJ output and drawing.
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

    /// The mesh of nodes `x0` (m) and counter-clockwise `triangles` (a mesh file's, checked
    /// by `mesh_rules::check_triangles`): the springs along every triangle edge, each node's
    /// mass lumped from its triangles' areas × `density` (kg/m²), and every node of contact
    /// area `contact_area` (m; by default the mean length of the boundary edges, as the
    /// generators' default is a cell's width).
    pub fn from_triangles(
        x0: Vec<Vector2<f64>>,
        triangles: Vec<[usize; 3]>,
        density: f64,
        contact_area: Option<f64>,
    ) -> Mesh {
        let mut edges = std::collections::BTreeSet::new();
        for t in &triangles {
            for (a, b) in [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])] {
                edges.insert([a.min(b), a.max(b)]);
            }
        }
        let n = x0.len();
        let mut mesh = Mesh::new(
            x0,
            edges.into_iter().collect(),
            triangles,
            vec![0.0; n],
            vec![0.0; n],
        );
        mesh.mass = mesh.area_lumped_masses(density);
        let area = contact_area.unwrap_or_else(|| {
            let boundary = mesh.boundary_edges();
            boundary
                .iter()
                .map(|&[a, b]| (mesh.x0[a] - mesh.x0[b]).norm())
                .sum::<f64>()
                / boundary.len() as f64
        });
        mesh.contact_area = vec![area; n];
        mesh
    }

    /// Every node's mass lumped from its triangles: a third of each one's rest area ×
    /// `density` (kg/m²), kg. The total is the mesh's area × density.
    pub fn area_lumped_masses(&self, density: f64) -> Vec<f64> {
        let mut mass = vec![0.0; self.len()];
        for &[a, b, c] in &self.triangles {
            let share = density * signed_area(&self.x0[a], &self.x0[b], &self.x0[c]).abs() / 3.0;
            for n in [a, b, c] {
                mass[n] += share;
            }
        }
        mass
    }

    /// The mesh with its masses lumped from its triangles ([`Mesh::area_lumped_masses`]), as
    /// a neo-Hookean body's are.
    pub fn with_area_lumped_masses(mut self, density: f64) -> Mesh {
        self.mass = self.area_lumped_masses(density);
        self
    }

    /// The area of the mesh at rest, m².
    pub fn area(&self) -> f64 {
        self.triangles
            .iter()
            .map(|&[a, b, c]| signed_area(&self.x0[a], &self.x0[b], &self.x0[c]).abs())
            .sum()
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
    /// `velocity` (m/s), its elastic term of `material` with the Hessian `projection` (springs
    /// along [`Mesh::edges`], or the neo-Hookean over [`Mesh::triangles`]), and every node as
    /// a contact vertex with its contact area into `surface`. Returns the nodes' indices in
    /// the state vector.
    ///
    /// # Panics
    /// For a neo-Hookean body with a triangle that is not counter-clockwise at rest: the
    /// generators make them so and mesh files are checked (`mesh_rules`), so this is a
    /// programming error.
    pub fn add_to(
        &self,
        builder: &mut SystemBuilder<2>,
        velocity: Vec2,
        material: &Material,
        projection: Projection,
        body: usize,
        surface: &mut ContactSurface,
    ) -> Range<usize> {
        let nodes = builder.add_nodes(&self.x0, &vec![velocity; self.len()], &self.mass);
        let offset = nodes.start;
        match *material {
            Material::MassSpring { stiffness } => {
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
            }
            Material::NeoHookean(elasticity) => {
                let elements: Vec<usize> = self
                    .triangles
                    .iter()
                    .flatten()
                    .map(|&n| n + offset)
                    .collect();
                let term = NeoHookean::<2>::new(
                    elements,
                    builder.positions(),
                    elasticity,
                    projection,
                )
                .expect("a body's triangles are counter-clockwise at rest and its material valid");
                builder.add_potential(Box::new(term));
            }
        }
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
