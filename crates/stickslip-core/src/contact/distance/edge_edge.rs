//! The distance between two segments [a₀, a₁] and [b₀, b₁] in 3D (SPEC.md §7, edge–edge), with
//! its gradient and Hessian over (a₀, a₁, b₀, b₁), and the mollifier that fades the pair out as
//! the edges turn parallel (Li et al. 2020, IPC §4.3).
//!
//! With u = a₁ − a₀, v = b₁ − b₀ and a = a₀ − b₀, the closest points of the two lines are
//! a₀ + s u and b₀ + t v. When both lie inside their segments (0 < s, t < 1) d² is the squared
//! distance between the lines ([`super::plane_distance`]); otherwise the closest points of the
//! segments lie on the boundary of [0, 1]² (d² is convex in (s, t)), and d is the smallest of
//! the four distances from an end to the other segment ([`super::point_edge`]). Nearly
//! parallel edges (‖u × v‖² under 10⁻¹⁴ ‖u‖²‖v‖²) have no single closest pair of line points:
//! their ends are used.

use nalgebra::{SMatrix, Vector3};

use super::point_triangle::{scatter, write_sqrt_hessian};
use super::{plane_distance, point_edge};

/// Where the closest points lie.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Region {
    /// Inside both segments.
    Interior,
    /// A point–edge distance: the end `point` (a stencil index, 0–3) and the other segment's
    /// two nodes.
    End {
        /// The end (0 a₀, 1 a₁, 2 b₀, 3 b₁).
        point: usize,
        /// The other segment's nodes.
        edge: [usize; 2],
    },
}

/// The four end-to-segment stencils: (end, the other segment).
const ENDS: [(usize, [usize; 2]); 4] = [(0, [2, 3]), (1, [2, 3]), (2, [0, 1]), (3, [0, 1])];

/// The closest points' region.
pub fn region(x: &[Vector3<f64>; 4]) -> Region {
    let (u, v, a) = (x[1] - x[0], x[3] - x[2], x[0] - x[2]);
    let (uu, vv, uv) = (u.dot(&u), v.dot(&v), u.dot(&v));
    let det = uu * vv - uv * uv;
    if det > 1e-14 * uu * vv {
        let (au, av) = (a.dot(&u), a.dot(&v));
        let s = (uv * av - vv * au) / det;
        let t = (uu * av - uv * au) / det;
        if s > 0.0 && s < 1.0 && t > 0.0 && t < 1.0 {
            return Region::Interior;
        }
    }
    let d = |&(p, [i, j]): &(usize, [usize; 2])| point_edge::distance(&x[p], &x[i], &x[j]);
    let (point, edge) = *ENDS
        .iter()
        .min_by(|e, f| d(e).total_cmp(&d(f)))
        .expect("two segments have four ends");
    Region::End { point, edge }
}

/// The closest points as parameters (s, t): a₀ + s (a₁ − a₀) and b₀ + t (b₁ − b₀), each in
/// [0, 1].
pub fn closest(x: &[Vector3<f64>; 4]) -> (f64, f64) {
    match region(x) {
        Region::Interior => {
            let (u, v, a) = (x[1] - x[0], x[3] - x[2], x[0] - x[2]);
            let (uu, vv, uv) = (u.dot(&u), v.dot(&v), u.dot(&v));
            let det = uu * vv - uv * uv;
            let (au, av) = (a.dot(&u), a.dot(&v));
            ((uv * av - vv * au) / det, (uu * av - uv * au) / det)
        }
        Region::End { point, edge } => {
            let (on, _) = point_edge::closest(&x[point], &x[edge[0]], &x[edge[1]]);
            let end = if point % 2 == 0 { 0.0 } else { 1.0 };
            if point < 2 { (end, on) } else { (on, end) }
        }
    }
}

/// The interior case's variables over (a₀, a₁, b₀, b₁): a = a₀ − b₀, u = a₁ − a₀, v = b₁ − b₀.
const LINE_MAP: [[f64; 4]; 3] = [
    [1.0, 0.0, -1.0, 0.0],
    [-1.0, 1.0, 0.0, 0.0],
    [0.0, 0.0, -1.0, 1.0],
];

fn lines(x: &[Vector3<f64>; 4]) -> plane_distance::SquaredDistance {
    plane_distance::squared(&(x[0] - x[2]), &(x[1] - x[0]), &(x[3] - x[2]))
}

/// d, m.
pub fn distance(x: &[Vector3<f64>; 4]) -> f64 {
    match region(x) {
        Region::Interior => lines(x).value.sqrt(),
        Region::End { point, edge } => point_edge::distance(&x[point], &x[edge[0]], &x[edge[1]]),
    }
}

/// ∂d/∂(a₀, a₁, b₀, b₁), dimensionless; d must be positive.
pub fn gradient(x: &[Vector3<f64>; 4]) -> [Vector3<f64>; 4] {
    match region(x) {
        Region::Interior => {
            let f = lines(x);
            let (g, _) = plane_distance::to_nodes(&LINE_MAP, &f.gradient, &f.hessian);
            let d = f.value.sqrt();
            g.map(|gi| gi / (2.0 * d))
        }
        Region::End { point, edge } => {
            let g = point_edge::gradient(&x[point], &x[edge[0]], &x[edge[1]]);
            let mut out = [Vector3::zeros(); 4];
            out[point] = g[0];
            out[edge[0]] = g[1];
            out[edge[1]] = g[2];
            out
        }
    }
}

/// ∂²d/∂(a₀, a₁, b₀, b₁)², 12 × 12 entries column-major into `out[..144]`, 1/m; d must be
/// positive.
pub fn hessian(x: &[Vector3<f64>; 4], out: &mut [f64]) {
    let out = &mut out[..144];
    out.fill(0.0);
    match region(x) {
        Region::Interior => {
            let f = lines(x);
            let (g2, h2) = plane_distance::to_nodes(&LINE_MAP, &f.gradient, &f.hessian);
            write_sqrt_hessian(f.value, &g2, &h2, out);
        }
        Region::End { point, edge } => {
            let mut h = [0.0; 81];
            point_edge::hessian(&x[point], &x[edge[0]], &x[edge[1]], &mut h);
            scatter(&h, &[point, edge[0], edge[1]], out);
        }
    }
}

/// The mollifier's threshold ε_× = 10⁻³ ‖u₀‖²‖v₀‖² from the edges at rest, m⁴ (ipc-toolkit's
/// choice).
pub fn mollifier_threshold(rest: &[Vector3<f64>; 4]) -> f64 {
    1e-3 * (rest[1] - rest[0]).norm_squared() * (rest[3] - rest[2]).norm_squared()
}

/// The mollifier m(c) = (2 − c/ε_×) c/ε_× for c = ‖u × v‖² < ε_×, else 1, which multiplies the
/// edge–edge barrier so that it vanishes smoothly as the edges turn parallel (where the
/// distance's derivatives are not defined): its value, gradient over (a₀, a₁, b₀, b₁), 1/m,
/// and Hessian (12 × 12), 1/m².
pub fn mollifier(
    x: &[Vector3<f64>; 4],
    threshold: f64,
) -> (f64, [Vector3<f64>; 4], SMatrix<f64, 12, 12>) {
    let (c, gc, hc) = plane_distance::cross_norm_squared(&(x[1] - x[0]), &(x[3] - x[2]));
    if c >= threshold {
        return (1.0, [Vector3::zeros(); 4], SMatrix::zeros());
    }
    let r = c / threshold;
    let m = (2.0 - r) * r;
    let dm = (2.0 - 2.0 * r) / threshold;
    let ddm = -2.0 / (threshold * threshold);
    let g = gc * dm;
    let h = gc * gc.transpose() * ddm + hc * dm;
    let (g, h) = plane_distance::to_nodes(&LINE_MAP, &g, &h);
    (m, g, h)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn segments(b0: Vector3<f64>, b1: Vector3<f64>) -> [Vector3<f64>; 4] {
        [
            Vector3::new(0.0, 0.0, 0.0),
            Vector3::new(1.0, 0.1, 0.0),
            b0,
            b1,
        ]
    }

    fn cases() -> [([Vector3<f64>; 4], bool); 3] {
        [
            // Crossing over the middle: interior.
            (
                segments(Vector3::new(0.5, -0.5, 0.3), Vector3::new(0.4, 0.6, 0.35)),
                true,
            ),
            // Beyond a₁: the end a₁ against [b₀, b₁].
            (
                segments(Vector3::new(1.4, -0.5, 0.2), Vector3::new(1.5, 0.6, 0.25)),
                false,
            ),
            // b₀ above the middle of A, b pointing away: the end b₀ against A.
            (
                segments(Vector3::new(0.5, 0.05, 0.3), Vector3::new(0.6, 0.1, 1.3)),
                false,
            ),
        ]
    }

    /// The nearest of a fine sampling of both segments agrees with [`distance`].
    #[test]
    fn distance_is_the_nearest_pair_of_samples() {
        for (x, interior) in cases() {
            assert_eq!(region(&x) == Region::Interior, interior, "{x:?}");
            let n = 1500;
            let mut best = f64::INFINITY;
            for i in 0..=n {
                let p = x[0] + (x[1] - x[0]) * (i as f64 / n as f64);
                for j in 0..=n {
                    let q = x[2] + (x[3] - x[2]) * (j as f64 / n as f64);
                    best = best.min((p - q).norm());
                }
            }
            let d = distance(&x);
            // Sample spacing ≈ 1e-3 m; d is stationary at the closest pair, so the nearest
            // samples are within O(spacing²) of it where the closest points are interior, and
            // within O(spacing) on an end's side only along the segment's direction (also
            // second order, d being stationary along it too).
            assert!(d <= best + 1e-12 && best - d < 1e-5, "{x:?}: {d} vs {best}");
        }
    }

    fn check_fd(
        x: &[Vector3<f64>; 4],
        value: impl Fn(&[Vector3<f64>; 4]) -> f64,
        grad: impl Fn(&[Vector3<f64>; 4]) -> [Vector3<f64>; 4],
        hess: &[f64],
        tol: f64,
    ) {
        let g = grad(x);
        let h = 1e-6;
        for col in 0..12 {
            let mut xp = *x;
            let mut xm = *x;
            xp[col / 3][col % 3] += h;
            xm[col / 3][col % 3] -= h;
            let fd = (value(&xp) - value(&xm)) / (2.0 * h);
            let scale = 1.0 + g[col / 3][col % 3].abs();
            assert!(
                (fd - g[col / 3][col % 3]).abs() < tol * scale,
                "d/dx{col}: {fd} vs {}",
                g[col / 3][col % 3]
            );
            let (gp, gm) = (grad(&xp), grad(&xm));
            for row in 0..12 {
                let fd = (gp[row / 3][row % 3] - gm[row / 3][row % 3]) / (2.0 * h);
                let exact = hess[12 * col + row];
                assert!(
                    (fd - exact).abs() < 10.0 * tol * (1.0 + exact.abs()),
                    "d2/dx{row}dx{col}: {fd} vs {exact}"
                );
            }
        }
    }

    /// The distance's gradient and Hessian against central differences in each region.
    #[test]
    fn distance_derivatives_match_finite_differences() {
        for (x, _) in cases() {
            let mut h = [0.0; 144];
            hessian(&x, &mut h);
            check_fd(&x, distance, gradient, &h, 1e-7);
        }
    }

    /// The mollifier's gradient and Hessian against central differences, for edges within
    /// the threshold of parallel; and m = 1, flat, beyond it.
    #[test]
    fn mollifier_derivatives_match_finite_differences() {
        let x = segments(Vector3::new(0.2, 0.5, 0.3), Vector3::new(1.2, 0.62, 0.31));
        let threshold = mollifier_threshold(&x) * 10.0;
        let (m, _, h) = mollifier(&x, threshold);
        assert!(m > 0.0 && m < 1.0, "m = {m}");
        let hess: Vec<f64> = h.as_slice().to_vec();
        check_fd(
            &x,
            |y| mollifier(y, threshold).0,
            |y| mollifier(y, threshold).1,
            &hess,
            1e-6,
        );
        let crossing = cases()[0].0;
        let (m, g, _) = mollifier(&crossing, mollifier_threshold(&crossing));
        assert_eq!(m, 1.0);
        assert!(g.iter().all(|v| v.norm() == 0.0));
    }
}
