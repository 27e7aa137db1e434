//! A cylinder of tetrahedra, or a flat one, a puck (SPEC.md §7 bodies, §8's spinning disk;
//! issue 21).
//!
//! The cross-section is a disk of rings: a centre node and rings k = 1 … `rings` at radius
//! R k/rings with n_k = max(3, round(segments k/rings)) nodes (the rim has `segments`), node 0 of
//! every ring at angle 0. The centre is joined to ring 1 by a fan, and each pair of rings by a
//! zip that always advances along the ring whose next node comes first in angle, so the
//! triangles tile the rim's polygon and stay near-equilateral. The disk is repeated at
//! `layers` + 1 heights and every triangular prism between two of them is split into three
//! tetrahedra by the rule of the smallest index: with the triangle's disk nodes a < b < c and
//! primes for the layer above, (a, b, c, a′), (b, c, a′, b′), (c, a′, b′, c′). Each side face
//! of a prism is then cut along the diagonal from the smaller node's top to the larger node's
//! bottom, which depends only on the two nodes, so neighbouring prisms agree and the mesh is
//! conforming.

use std::f64::consts::TAU;

use nalgebra::Rotation3;

use super::TetMesh;
use super::mesh_rules::{DEGENERATE_RELATIVE, MeshError, MeshSize, tet_volume};
use crate::energy::{Vec2, Vec3};

/// The number of nodes of ring k ≥ 1 of `rings` with `segments` on the rim.
fn ring_nodes(segments: usize, rings: usize, k: usize) -> usize {
    ((segments * k) as f64 / rings as f64).round().max(3.0) as usize
}

/// The size of [`cylinder`]'s mesh, from its keys: the disk's nodes (a centre and the rings)
/// at `layers` + 1 heights, and three tetrahedra for each of its triangles (a fan of n₁ around
/// the centre, n_{k−1} + n_k between rings k − 1 and k) in each layer.
pub fn cylinder_size(segments: usize, rings: usize, layers: usize) -> MeshSize {
    let n = |k: usize| ring_nodes(segments, rings, k) as f64;
    let nodes = 1.0 + (1..=rings).map(n).sum::<f64>();
    let triangles = n(1) + (2..=rings).map(|k| n(k - 1) + n(k)).sum::<f64>();
    MeshSize {
        nodes: nodes * (layers as f64 + 1.0),
        elements: 3.0 * triangles * layers as f64,
    }
}

/// The disk's nodes (local, m) and counter-clockwise triangles (module comment), or the ring
/// k whose zip with ring k − 1 turns a triangle over: with many rings for the segments, ring
/// k − 1's polygon (of as many or fewer nodes, at a radius close to ring k's) pokes out of ring
/// k's, and the triangles between them would overlap.
fn disk(radius: f64, segments: usize, rings: usize) -> Result<(Vec<Vec2>, Vec<[usize; 3]>), usize> {
    let mut nodes = vec![Vec2::zeros()];
    let mut first = vec![0usize];
    let mut count = vec![1usize];
    for k in 1..=rings {
        let n = ring_nodes(segments, rings, k);
        first.push(nodes.len());
        count.push(n);
        let r = radius * k as f64 / rings as f64;
        for i in 0..n {
            let a = TAU * i as f64 / n as f64;
            nodes.push(Vec2::new(r * a.cos(), r * a.sin()));
        }
    }
    // Each triangle with the ring it reaches and whether, as written, it runs clockwise: two
    // nodes of the inner ring then one of the outer (the fan's and the others' run
    // counter-clockwise).
    let mut triangles = Vec::new();
    for k in 1..=rings {
        let (fa, na, fb, nb) = (first[k - 1], count[k - 1], first[k], count[k]);
        let a = |i: usize| fa + i % na;
        let b = |j: usize| fb + j % nb;
        if na == 1 {
            for j in 0..nb {
                triangles.push(([fa, b(j), b(j + 1)], k, false));
            }
            continue;
        }
        let (mut i, mut j) = (0, 0);
        while i < na || j < nb {
            let next_a = (i + 1) as f64 / na as f64;
            let next_b = (j + 1) as f64 / nb as f64;
            if j == nb || (i < na && next_a <= next_b) {
                triangles.push(([a(i), a(i + 1), b(j)], k, true));
                i += 1;
            } else {
                triangles.push(([a(i), b(j), b(j + 1)], k, false));
                j += 1;
            }
        }
    }
    let mut out = Vec::with_capacity(triangles.len());
    for (mut t, k, clockwise) in triangles {
        let (p, q, r) = (nodes[t[0]], nodes[t[1]], nodes[t[2]]);
        let area = 0.5 * (q - p).perp(&(r - p));
        let longest = (q - p).norm().max((r - q).norm()).max((p - r).norm());
        let signed = if clockwise { -area } else { area };
        if signed <= DEGENERATE_RELATIVE * longest * longest {
            return Err(k);
        }
        if clockwise {
            t.swap(1, 2);
        }
        out.push(t);
    }
    Ok((nodes, out))
}

/// A cylinder of radius `radius` and height `height` (m) about its local z axis, with
/// `segments` (≥ 3) nodes around its rim, `rings` (≥ 1) rings from the axis out and `layers`
/// (≥ 1) layers of tetrahedra up (module comment), centred at `centre` (m) and turned by
/// `rotation` about it, of density `density` (kg/m³). A puck is a flat one (height ≪ radius,
/// one or two layers). Node l·n_disk + i is disk node i at height −H/2 + l H/layers.
#[allow(clippy::too_many_arguments)]
pub fn cylinder(
    radius: f64,
    height: f64,
    segments: usize,
    rings: usize,
    layers: usize,
    centre: Vec3,
    rotation: &Rotation3<f64>,
    density: f64,
) -> Result<TetMesh, MeshError> {
    assert!(
        segments >= 3 && rings >= 1 && layers >= 1,
        "a cylinder has at least 3 segments, 1 ring and 1 layer"
    );
    let (disk_nodes, triangles) =
        disk(radius, segments, rings).map_err(|ring| MeshError::RingsOverlap {
            segments,
            rings,
            ring,
        })?;
    let n = disk_nodes.len();
    let mut local = Vec::with_capacity(n * (layers + 1));
    for l in 0..=layers {
        let z = -height / 2.0 + height * l as f64 / layers as f64;
        local.extend(disk_nodes.iter().map(|p| Vec3::new(p.x, p.y, z)));
    }
    let mut tets = Vec::with_capacity(3 * triangles.len() * layers);
    for l in 0..layers {
        for t in &triangles {
            let mut s = *t;
            s.sort_unstable();
            let [a, b, c] = s.map(|i| l * n + i);
            let [a1, b1, c1] = s.map(|i| (l + 1) * n + i);
            for mut tet in [[a, b, c, a1], [b, c, a1, b1], [c, a1, b1, c1]] {
                if tet_volume(&local, &tet) < 0.0 {
                    tet.swap(0, 1);
                }
                tets.push(tet);
            }
        }
    }
    let x0 = local.iter().map(|p| centre + rotation * p).collect();
    TetMesh::new(x0, tets, density)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A puck of radius 0.1 m and height 0.02 m, 16 segments, 3 rings, 2 layers: the disk's
    /// triangles tile the rim's 16-gon (area (16/2) R² sin(2π/16)), so the volume is that
    /// times H and the mass ρ times it; the boundary is closed (checked by `TetMesh::new`) with
    /// Euler characteristic 2, its contact areas sum to the prism's surface (two 16-gons and
    /// the rim's 16 rectangles), and the centroid of the masses is the centre.
    #[test]
    fn a_puck_tiles_its_polygon_with_a_closed_surface() {
        let (r, h, seg) = (0.1, 0.02, 16);
        let centre = Vec3::new(0.2, 0.0, 0.3);
        for rotation in [
            Rotation3::identity(),
            Rotation3::from_euler_angles(1.0, 0.2, -0.4),
        ] {
            let m = cylinder(r, h, seg, 3, 2, centre, &rotation, 1200.0).unwrap();
            let polygon = seg as f64 / 2.0 * r * r * (TAU / seg as f64).sin();
            assert!((m.volume() - polygon * h).abs() < 1e-15, "{}", m.volume());
            let mass: f64 = m.mass.iter().sum();
            assert!((mass - 1200.0 * polygon * h).abs() < 1e-12);
            assert_eq!(m.inverted_tets(&m.x0), 0);
            let side = seg as f64 * 2.0 * r * (TAU / seg as f64 / 2.0).sin() * h;
            let surface = 2.0 * polygon + side;
            assert!((m.contact_area.iter().sum::<f64>() - surface).abs() < 1e-14);
            let v = m.boundary_nodes().len() as i64;
            let e = m.boundary_edges().len() as i64;
            let f = m.boundary_triangles.len() as i64;
            assert_eq!(v - e + f, 2);
            let com: Vec3 = m.x0.iter().zip(&m.mass).map(|(p, w)| p * *w).sum::<Vec3>() / mass;
            assert!((com - centre).amax() < 1e-14, "{com}");
        }
    }

    /// The disk's rings: the rim has `segments` nodes, every triangle is counter-clockwise
    /// and the areas sum to the rim's polygon.
    #[test]
    fn the_disk_zips_rings_of_different_counts() {
        for (seg, rings) in [(3, 1), (12, 2), (20, 4), (7, 3)] {
            let (nodes, tris) = disk(1.0, seg, rings).unwrap();
            let rim = nodes.len()
                - (0..rings)
                    .map(|k| {
                        if k == 0 {
                            1
                        } else {
                            ((seg * k) as f64 / rings as f64).round().max(3.0) as usize
                        }
                    })
                    .sum::<usize>();
            assert_eq!(rim, seg);
            let area: f64 = tris
                .iter()
                .map(|t| 0.5 * (nodes[t[1]] - nodes[t[0]]).perp(&(nodes[t[2]] - nodes[t[0]])))
                .inspect(|&a| assert!(a > 0.0))
                .sum();
            let polygon = seg as f64 / 2.0 * (TAU / seg as f64).sin();
            assert!(
                (area - polygon).abs() < 1e-13,
                "{seg} {rings}: {area} vs {polygon}"
            );
        }
    }
}
