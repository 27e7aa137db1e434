//! The distance from a point p to a triangle (t₀, t₁, t₂) in 3D (SPEC.md §7, point–triangle),
//! with its gradient and Hessian over (p, t₀, t₁, t₂).
//!
//! When p projects inside the triangle (every barycentric coordinate of its projection
//! positive) the closest point is that projection and d² is the squared distance from the
//! triangle's plane ([`super::plane_distance`]); otherwise the closest point lies on the
//! triangle's boundary (d² is convex in the closest point's position and its unconstrained
//! minimum lies outside), and d is the smallest of the three point–edge distances
//! ([`super::point_edge`], which covers the vertices as the edges' ends). A degenerate
//! triangle (zero area) has no plane: its edges are used. d² is C¹ across the regions, as
//! ipc-toolkit's is; its Hessian jumps there.

use nalgebra::{SMatrix, Vector3};

use super::{plane_distance, point_edge};

/// Where the closest point of the triangle lies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Region {
    /// Inside the triangle (the projection on its plane).
    Face,
    /// On edge k, from tₖ to tₖ₊₁ (indices mod 3), its ends included.
    Edge(usize),
}

/// The two triangle nodes of edge `k` (1-based in the stencil: p is node 0).
fn edge_nodes(k: usize) -> [usize; 2] {
    [1 + k, 1 + (k + 1) % 3]
}

/// The closest point's region.
pub fn region(p: &Vector3<f64>, t: &[Vector3<f64>; 3]) -> Region {
    let (e0, e1, w) = (t[1] - t[0], t[2] - t[0], p - t[0]);
    let (a, b, c) = (e0.dot(&e0), e0.dot(&e1), e1.dot(&e1));
    let det = a * c - b * b;
    if det > 1e-14 * a * c {
        let (r0, r1) = (w.dot(&e0), w.dot(&e1));
        let b1 = (c * r0 - b * r1) / det;
        let b2 = (a * r1 - b * r0) / det;
        if b1 > 0.0 && b2 > 0.0 && 1.0 - b1 - b2 > 0.0 {
            return Region::Face;
        }
    }
    let d = |k: usize| point_edge::distance(p, &t[k], &t[(k + 1) % 3]);
    let k = (0..3)
        .min_by(|&i, &j| d(i).total_cmp(&d(j)))
        .expect("a triangle has three edges");
    Region::Edge(k)
}

/// The closest point of the triangle to p as the weights (w₀, w₁, w₂) of (t₀, t₁, t₂), each in
/// [0, 1], summing to 1.
pub fn closest(p: &Vector3<f64>, t: &[Vector3<f64>; 3]) -> [f64; 3] {
    match region(p, t) {
        Region::Face => {
            let (e0, e1, w) = (t[1] - t[0], t[2] - t[0], p - t[0]);
            let (a, b, c) = (e0.dot(&e0), e0.dot(&e1), e1.dot(&e1));
            let det = a * c - b * b;
            let (r0, r1) = (w.dot(&e0), w.dot(&e1));
            let b1 = (c * r0 - b * r1) / det;
            let b2 = (a * r1 - b * r0) / det;
            [1.0 - b1 - b2, b1, b2]
        }
        Region::Edge(k) => {
            let (s, _) = point_edge::closest(p, &t[k], &t[(k + 1) % 3]);
            let mut w = [0.0; 3];
            w[k] = 1.0 - s;
            w[(k + 1) % 3] = s;
            w
        }
    }
}

/// The face case's variables over the nodes (p, t₀, t₁, t₂): a = p − t₀, u = t₁ − t₀,
/// v = t₂ − t₀.
const FACE_MAP: [[f64; 4]; 3] = [
    [1.0, -1.0, 0.0, 0.0],
    [0.0, -1.0, 1.0, 0.0],
    [0.0, -1.0, 0.0, 1.0],
];

/// d, m.
pub fn distance(p: &Vector3<f64>, t: &[Vector3<f64>; 3]) -> f64 {
    match region(p, t) {
        Region::Face => plane_distance::squared(&(p - t[0]), &(t[1] - t[0]), &(t[2] - t[0]))
            .value
            .sqrt(),
        Region::Edge(k) => point_edge::distance(p, &t[k], &t[(k + 1) % 3]),
    }
}

/// ∂d/∂(p, t₀, t₁, t₂), dimensionless; d must be positive.
pub fn gradient(p: &Vector3<f64>, t: &[Vector3<f64>; 3]) -> [Vector3<f64>; 4] {
    match region(p, t) {
        Region::Face => {
            let f = plane_distance::squared(&(p - t[0]), &(t[1] - t[0]), &(t[2] - t[0]));
            let (g, _) = plane_distance::to_nodes(&FACE_MAP, &f.gradient, &f.hessian);
            let d = f.value.sqrt();
            g.map(|gi| gi / (2.0 * d))
        }
        Region::Edge(k) => {
            let [i, j] = edge_nodes(k);
            let g = point_edge::gradient(p, &t[i - 1], &t[j - 1]);
            let mut out = [Vector3::zeros(); 4];
            out[0] = g[0];
            out[i] = g[1];
            out[j] = g[2];
            out
        }
    }
}

/// ∂²d/∂(p, t₀, t₁, t₂)², 12 × 12 entries column-major into `out[..144]`, 1/m; d must be
/// positive.
pub fn hessian(p: &Vector3<f64>, t: &[Vector3<f64>; 3], out: &mut [f64]) {
    let out = &mut out[..144];
    out.fill(0.0);
    match region(p, t) {
        Region::Face => {
            let f = plane_distance::squared(&(p - t[0]), &(t[1] - t[0]), &(t[2] - t[0]));
            let (g2, h2) = plane_distance::to_nodes(&FACE_MAP, &f.gradient, &f.hessian);
            write_sqrt_hessian(f.value, &g2, &h2, out);
        }
        Region::Edge(k) => {
            let [i, j] = edge_nodes(k);
            let mut h = [0.0; 81];
            point_edge::hessian(p, &t[i - 1], &t[j - 1], &mut h);
            scatter(&h, &[0, i, j], out);
        }
    }
}

/// ∇²d = (∇²d² − 2 ∇d ∇dᵀ)/(2d) with ∇d = ∇d²/(2d), from d² = `d2` and its derivatives over
/// four nodes, column-major into `out[..144]`.
pub(super) fn write_sqrt_hessian(
    d2: f64,
    g2: &[Vector3<f64>; 4],
    h2: &SMatrix<f64, 12, 12>,
    out: &mut [f64],
) {
    let d = d2.sqrt();
    let gd = |r: usize| g2[r / 3][r % 3] / (2.0 * d);
    for c in 0..12 {
        for r in 0..12 {
            out[12 * c + r] = (h2[(r, c)] - 2.0 * gd(r) * gd(c)) / (2.0 * d);
        }
    }
}

/// Adds a 3-node Hessian (9 × 9, column-major) into a 4-node one (12 × 12) at `nodes`.
pub(super) fn scatter(h: &[f64; 81], nodes: &[usize; 3], out: &mut [f64]) {
    for (bc, &nc) in nodes.iter().enumerate() {
        for (br, &nr) in nodes.iter().enumerate() {
            for c in 0..3 {
                for r in 0..3 {
                    out[12 * (3 * nc + c) + 3 * nr + r] += h[9 * (3 * bc + c) + 3 * br + r];
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn triangle() -> [Vector3<f64>; 3] {
        [
            Vector3::new(0.0, 0.0, 0.0),
            Vector3::new(1.0, 0.1, 0.05),
            Vector3::new(0.2, 0.9, -0.1),
        ]
    }

    /// The nearest of a fine barycentric sampling of the triangle agrees with [`distance`],
    /// for a point over the face, beside an edge, and beyond a vertex.
    #[test]
    fn distance_is_the_nearest_sample_of_the_triangle() {
        let t = triangle();
        for (p, expected) in [
            (Vector3::new(0.3, 0.3, 0.4), Region::Face),
            (Vector3::new(0.5, -0.4, 0.2), Region::Edge(0)),
            (Vector3::new(1.5, 0.1, 0.3), Region::Edge(0)),
            (Vector3::new(-0.3, 0.5, -0.2), Region::Edge(2)),
        ] {
            assert_eq!(region(&p, &t), expected, "{p:?}");
            let n = 600;
            let mut best = f64::INFINITY;
            for i in 0..=n {
                for j in 0..=(n - i) {
                    let (b1, b2) = (i as f64 / n as f64, j as f64 / n as f64);
                    let q = t[0] + (t[1] - t[0]) * b1 + (t[2] - t[0]) * b2;
                    best = best.min((p - q).norm());
                }
            }
            let d = distance(&p, &t);
            // The sampling's spacing is about 1/600 of an edge: its nearest sample is within
            // half a spacing's diagonal of the closest point, so at most ≈ 2e-3 m farther
            // (first order) and in practice far less, since d is stationary there.
            assert!(d <= best + 1e-12 && best - d < 2e-5, "{p:?}: {d} vs {best}");
        }
    }

    /// Gradient and Hessian against central differences, in the face and edge regions (points
    /// away from the regions' boundaries, where the Hessian jumps).
    #[test]
    fn derivatives_match_finite_differences() {
        let t = triangle();
        for p in [
            Vector3::new(0.3, 0.3, 0.4),
            Vector3::new(0.5, -0.4, 0.2),
            Vector3::new(1.5, 0.1, 0.3),
        ] {
            let nodes = [p, t[0], t[1], t[2]];
            let eval = |x: &[Vector3<f64>; 4]| {
                let tt = [x[1], x[2], x[3]];
                (distance(&x[0], &tt), gradient(&x[0], &tt))
            };
            let g = gradient(&p, &t);
            let mut hess = [0.0; 144];
            hessian(&p, &t, &mut hess);
            let h = 1e-6;
            for col in 0..12 {
                let mut xp = nodes;
                let mut xm = nodes;
                xp[col / 3][col % 3] += h;
                xm[col / 3][col % 3] -= h;
                let (fp, gp) = eval(&xp);
                let (fm, gm) = eval(&xm);
                let fd = (fp - fm) / (2.0 * h);
                assert!((fd - g[col / 3][col % 3]).abs() < 1e-8, "{p:?} dd/dx{col}");
                for row in 0..12 {
                    let fd = (gp[row / 3][row % 3] - gm[row / 3][row % 3]) / (2.0 * h);
                    assert!(
                        (fd - hess[12 * col + row]).abs() < 1e-6,
                        "{p:?} d2d/dx{row}dx{col}: {fd} vs {}",
                        hess[12 * col + row]
                    );
                }
            }
        }
    }
}
