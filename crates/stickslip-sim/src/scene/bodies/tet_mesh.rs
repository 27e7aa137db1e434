//! A 3D tetrahedral body (SPEC.md §7): nodes at rest, tetrahedra in positive order, masses
//! lumped from the tetrahedra's volumes, the outward boundary surface with each boundary
//! node's contact area; and how it joins a system with its [`Material`].

use std::collections::BTreeSet;
use std::ops::Range;

use super::material::Material;
use super::mesh_rules::{MeshError, check_tets, tet_volume};
use crate::contact::ContactSurface;
use crate::energy::neo_hookean::{Elasticity, NeoHookean};
use crate::energy::spring::SpringEnergy;
use crate::energy::stiffness_damping::StiffnessDamping;
use crate::energy::{Projection, Vec3};
use crate::solver::SystemBuilder;

/// A tetrahedral mesh.
#[derive(Clone, Debug)]
pub struct TetMesh {
    /// Node positions at t = 0, m.
    pub x0: Vec<Vec3>,
    /// Tetrahedra, four nodes each, in positive order ((x₁ − x₀)·((x₂ − x₀) × (x₃ − x₀)) > 0 at
    /// rest).
    pub tets: Vec<[usize; 4]>,
    /// Lumped mass of every node, kg: a quarter of each of its tetrahedra's volume × density.
    pub mass: Vec<f64>,
    /// The boundary: the faces of exactly one tetrahedron, counter-clockwise seen from outside
    /// (outward normal (x₁ − x₀) × (x₂ − x₀)); a closed manifold surface.
    pub boundary_triangles: Vec<[usize; 3]>,
    /// Contact area of every node, m²: a third of the area of each boundary triangle it is
    /// on (zero inside the body).
    pub contact_area: Vec<f64>,
    /// Every edge of every tetrahedron once (the springs of a mass-spring body), smaller node
    /// first, in order.
    pub edges: Vec<[usize; 2]>,
    /// Squared rest length of every edge, m².
    pub rest_l2: Vec<f64>,
}

impl TetMesh {
    /// The mesh of nodes `x0` (m) and tetrahedra `tets` of density `density` (kg/m³),
    /// checked by the rules of `mesh_rules::check_tets` (one orientation, which is made
    /// positive; no zero-volume tetrahedron; every node used; a closed manifold boundary).
    pub fn new(
        x0: Vec<Vec3>,
        mut tets: Vec<[usize; 4]>,
        density: f64,
    ) -> Result<TetMesh, MeshError> {
        let boundary_triangles = check_tets(&x0, &mut tets)?;
        let mut mass = vec![0.0; x0.len()];
        for t in &tets {
            let share = density * tet_volume(&x0, t) / 4.0;
            for &n in t {
                mass[n] += share;
            }
        }
        let mut contact_area = vec![0.0; x0.len()];
        for f in &boundary_triangles {
            let area = 0.5 * (x0[f[1]] - x0[f[0]]).cross(&(x0[f[2]] - x0[f[0]])).norm();
            for &n in f {
                contact_area[n] += area / 3.0;
            }
        }
        let mut edges = BTreeSet::new();
        for t in &tets {
            for i in 0..4 {
                for j in i + 1..4 {
                    edges.insert([t[i].min(t[j]), t[i].max(t[j])]);
                }
            }
        }
        let edges: Vec<[usize; 2]> = edges.into_iter().collect();
        let rest_l2 = edges
            .iter()
            .map(|&[a, b]| (x0[a] - x0[b]).norm_squared())
            .collect();
        Ok(TetMesh {
            x0,
            tets,
            mass,
            boundary_triangles,
            contact_area,
            edges,
            rest_l2,
        })
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.x0.len()
    }

    /// Whether the mesh has no nodes.
    pub fn is_empty(&self) -> bool {
        self.x0.is_empty()
    }

    /// The volume at rest, m³.
    pub fn volume(&self) -> f64 {
        self.tets.iter().map(|t| tet_volume(&self.x0, t)).sum()
    }

    /// The edges of the boundary surface, each once, smaller node first, in order (for
    /// edge–edge contact).
    pub fn boundary_edges(&self) -> Vec<[usize; 2]> {
        let mut edges = BTreeSet::new();
        for f in &self.boundary_triangles {
            for (a, b) in [(f[0], f[1]), (f[1], f[2]), (f[2], f[0])] {
                edges.insert([a.min(b), a.max(b)]);
            }
        }
        edges.into_iter().collect()
    }

    /// The nodes on the boundary surface, in order.
    pub fn boundary_nodes(&self) -> Vec<usize> {
        (0..self.len())
            .filter(|&i| self.contact_area[i] > 0.0)
            .collect()
    }

    /// Every node's contact area against a plane of outward normal `plane_normal` (unit), m²:
    /// a third of the area of each boundary triangle it is on, times how squarely the triangle
    /// faces the plane (−n_f·n, its outward normal n_f against the plane's; the area it projects
    /// onto the plane), at least `floor` (a fraction, e.g. 10⁻³) of the full share so that
    /// every boundary node keeps a barrier. A flat face resting on the plane then carries a
    /// uniform pressure: with the full share ([`TetMesh::contact_area`]) a rim node of a flat
    /// face would also carry its share of the side faces meeting there (SPEC.md §7 contact
    /// weights; docs/scenes.md).
    pub fn facing_contact_area(&self, plane_normal: &Vec3, floor: f64) -> Vec<f64> {
        let mut area = vec![0.0; self.len()];
        for f in &self.boundary_triangles {
            let normal = (self.x0[f[1]] - self.x0[f[0]]).cross(&(self.x0[f[2]] - self.x0[f[0]]));
            let a = 0.5 * normal.norm();
            let facing = (-normal.normalize().dot(plane_normal)).max(floor);
            for &n in f {
                area[n] += facing * a / 3.0;
            }
        }
        area
    }

    /// Adds the mesh's boundary to `surface` as body number `body`, its node `i` at node
    /// `offset + i` of the state vector: every boundary node with its contact area
    /// ([`TetMesh::contact_area`], m²), every boundary edge and every boundary triangle (the
    /// primitives of body–body contact, SPEC.md §7).
    pub fn push_boundary(&self, offset: usize, body: usize, surface: &mut ContactSurface) {
        for (i, &area) in self.contact_area.iter().enumerate() {
            if area > 0.0 {
                surface.push(offset + i, area, body);
            }
        }
        for [a, b] in self.boundary_edges() {
            surface.push_edge([offset + a, offset + b], body);
        }
        for t in &self.boundary_triangles {
            surface.push_triangle(t.map(|n| offset + n), body);
        }
    }

    /// How many tetrahedra are inverted or flat at positions `x` (the mesh's own nodes):
    /// signed volume ≤ 0.
    pub fn inverted_tets(&self, x: &[Vec3]) -> usize {
        self.tets.iter().filter(|t| tet_volume(x, t) <= 0.0).count()
    }

    /// Adds the mesh to `builder` as body number `body`: its nodes, every one moving at
    /// `velocity` (m/s), its elastic term of `material` with the Hessian `projection` (springs
    /// along [`TetMesh::edges`], or the neo-Hookean over the tetrahedra), and every boundary
    /// node as a contact vertex with its contact area (m²) into `surface`. Returns the nodes'
    /// indices in the state vector.
    ///
    /// # Panics
    /// If the material's constants are out of range (a validated case has them in range).
    pub fn add_to(
        &self,
        builder: &mut SystemBuilder<3>,
        velocity: Vec3,
        material: &Material,
        projection: Projection,
        body: usize,
        surface: &mut ContactSurface,
    ) -> Range<usize> {
        let velocities = vec![velocity; self.len()];
        self.add_moving(builder, &velocities, material, projection, body, surface)
    }

    /// [`TetMesh::add_to`] with every node's own initial velocity, m/s (a spinning body).
    ///
    /// # Panics
    /// If `velocities` is not one a node, or the material's constants are out of range.
    pub fn add_moving(
        &self,
        builder: &mut SystemBuilder<3>,
        velocities: &[Vec3],
        material: &Material,
        projection: Projection,
        body: usize,
        surface: &mut ContactSurface,
    ) -> Range<usize> {
        assert_eq!(velocities.len(), self.len(), "one velocity a node");
        let nodes = builder.add_nodes(&self.x0, velocities, &self.mass);
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
                let elements: Vec<usize> =
                    self.tets.iter().flatten().map(|&n| n + offset).collect();
                let term =
                    NeoHookean::<3>::new(elements, builder.positions(), elasticity, projection)
                        .expect("a checked mesh's tetrahedra are positive and its material valid");
                builder.add_potential(Box::new(term));
            }
        }
        for (i, &area) in self.contact_area.iter().enumerate() {
            if area > 0.0 {
                surface.push(offset + i, area, body);
            }
        }
        nodes
    }

    /// Stiffness-proportional damping (`energy::stiffness_damping`, damping time `beta` > 0, s)
    /// of this mesh's neo-Hookean term of `elasticity`, its nodes in the system from `offset`
    /// on (as [`TetMesh::add_moving`] returned them).
    ///
    /// # Panics
    /// If the material's constants are out of range (a validated scene's are not).
    pub fn add_damping(
        &self,
        builder: &mut SystemBuilder<3>,
        offset: usize,
        elasticity: Elasticity,
        projection: Projection,
        beta: f64,
    ) {
        let elements: Vec<usize> = self.tets.iter().flatten().map(|&n| n + offset).collect();
        let elastic = NeoHookean::<3>::new(elements, builder.positions(), elasticity, projection)
            .expect("a checked mesh's tetrahedra are positive and its material valid");
        builder.add_potential(Box::new(StiffnessDamping::new(elastic, beta)));
    }
}

/// The mass-weighted centroid of `mesh`, m.
pub fn centroid(mesh: &TetMesh) -> Vec3 {
    let m: f64 = mesh.mass.iter().sum();
    mesh.x0
        .iter()
        .zip(&mesh.mass)
        .map(|(x, mi)| x * *mi)
        .sum::<Vec3>()
        / m
}
