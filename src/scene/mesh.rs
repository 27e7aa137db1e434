//! The square mass-spring mesh of SPEC.md §1.

use nalgebra::Vector2;

use super::Scene;
use crate::energy::inversion::signed_area;

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
}

impl Mesh {
    /// The square of SPEC.md §1: (n_seg+1)² nodes, node `i*(n_seg+1)+j` at
    /// `centre + (-side/2 + i*step, -side/2 + j*step)`; every grid edge and both diagonals of
    /// every cell; mass ρ·side² spread evenly.
    pub fn square(scene: &Scene) -> Mesh {
        let n = scene.n_seg;
        let m = n + 1;
        let step = scene.side / n as f64;
        let mut x0 = Vec::with_capacity(m * m);
        for i in 0..m {
            for j in 0..m {
                x0.push(
                    scene.centre
                        + Vector2::new(
                            -scene.side / 2.0 + i as f64 * step,
                            -scene.side / 2.0 + j as f64 * step,
                        ),
                );
            }
        }
        let id = |i: usize, j: usize| i * m + j;
        let mut edges = Vec::with_capacity(2 * n * m + 2 * n * n);
        // Horizontal and vertical edges.
        for i in 0..n {
            for j in 0..m {
                edges.push([id(i, j), id(i + 1, j)]);
                edges.push([id(j, i), id(j, i + 1)]);
            }
        }
        let mut triangles = Vec::with_capacity(2 * n * n);
        // Both diagonals of every cell.
        for i in 0..n {
            for j in 0..n {
                edges.push([id(i, j), id(i + 1, j + 1)]);
                edges.push([id(i + 1, j), id(i, j + 1)]);
                triangles.push([id(i, j), id(i + 1, j), id(i + 1, j + 1)]);
                triangles.push([id(i, j), id(i + 1, j + 1), id(i, j + 1)]);
            }
        }
        let rest_l2 = edges
            .iter()
            .map(|&[a, b]| (x0[a] - x0[b]).norm_squared())
            .collect();
        let node_mass = scene.density * scene.side * scene.side / (m * m) as f64;
        Mesh {
            mass: vec![node_mass; m * m],
            contact_area: vec![scene.contact_area; m * m],
            x0,
            edges,
            rest_l2,
            triangles,
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

    /// How many of [`Mesh::triangles`] are inverted at positions `x`: their signed area is zero
    /// or of the opposite sign to their area at rest. A mass-spring grid has no energy against
    /// this (a mirrored cell keeps every edge and diagonal length), so a hard landing can fold a
    /// refined square (docs/refinement.md); the run reports it.
    pub fn inverted_triangles(&self, x: &[Vector2<f64>]) -> usize {
        let area = |p: &[Vector2<f64>], [a, b, c]: [usize; 3]| signed_area(&p[a], &p[b], &p[c]);
        self.triangles
            .iter()
            .filter(|&&t| area(x, t) * area(&self.x0, t) <= 0.0)
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::Scene;

    /// The rest state has no inverted triangle. The bottom-left corner (node 0) folded over its
    /// cell, to 1.5 cell steps along the cell's diagonal, flips both triangles of cell (0, 0)
    /// (the only two that contain it, by the hand computation below) and no other.
    #[test]
    fn counts_a_folded_corner() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("cases/slope_mu0.11.toml");
        let scene = Scene::load(&path).expect("shipped case");
        let mesh = Mesh::square(&scene);
        assert_eq!(mesh.inverted_triangles(&mesh.x0), 0);
        let step = scene.side / scene.n_seg as f64;
        let mut x = mesh.x0.clone();
        x[0] += Vector2::new(1.5 * step, 1.5 * step);
        // Relative to node 0's rest position, in cell steps: triangle (0, n+1, n+2) has its
        // nodes at (1.5, 1.5), (1, 0), (1, 1): cross product of the edges from node 0 is
        // (−0.5)(−0.5) − (−1.5)(−0.5) = −0.5, against +1 at rest; triangle (0, n+2, 1) at
        // (1.5, 1.5), (1, 1), (0, 1): 0.25 − 0.75 = −0.5, against +1.
        assert_eq!(mesh.triangles.iter().filter(|t| t.contains(&0)).count(), 2);
        assert_eq!(mesh.inverted_triangles(&x), 2);
    }
}
