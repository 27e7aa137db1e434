//! A barrier against cells turning over (extends SPEC.md §6's refined meshes; case table
//! `[inversion]`, off unless the case states it).
//!
//! The mass-spring grid of SPEC.md §1 has no resistance to a cell flipping: a mirrored cell has
//! the same edge and diagonal lengths, hence zero spring energy, and a refined square folds when
//! it lands. This term sums, over the triangles of every cell split both ways (4 a cell, both
//! diagonals, so no direction is favoured), an IPC-style C² log barrier on the ratio
//! r = a/a₀ of the triangle's signed area a (m², counter-clockwise positive) to its rest area
//! a₀ (> 0, from the initial positions):
//!
//! b(r) = −κ_A a₀ (r − ŝ)² ln(r/ŝ) for 0 < r < ŝ, zero for r ≥ ŝ, +∞ for r ≤ 0   (J)
//!
//! with κ_A (J/m², `inversion.kappa`: energy per unit rest area, so a refined mesh has the same
//! barrier per unit of material) and ŝ (dimensionless, `inversion.ratio`, in (0, 1)) the ratio
//! below which it acts. Value, slope and curvature vanish at r = ŝ. With c = κ_A a₀:
//!
//! b′(r) = −c [2 (r − ŝ) ln(r/ŝ) + (r − ŝ)²/r] (J, ≤ 0),
//! b″(r) = c [−2 ln(r/ŝ) − 4 (r − ŝ)/r + (r − ŝ)²/r²] (J, ≥ 0);
//!
//! ∂b/∂x = b′(r)/a₀ ∇a (N), ∂²b/∂x² = b″(r)/a₀² ∇a∇aᵀ + b′(r)/a₀ ∇²a (N/m). The area is
//! quadratic in the triangle's three nodes: ∂a/∂xᵢ = ½ R (x_next − x_prev) with R the clockwise
//! quarter turn, and ∇²a is constant and indefinite (blocks ±½R), so the element Hessian is
//! indefinite wherever the barrier acts; [`Energy::hessian`] gives its PSD projection (each 6×6
//! block eigen-decomposed, negative eigenvalues clamped, SPEC.md §2's rule).
//!
//! The energy is +∞ at r ≤ 0, so backtracking never accepts an inverted triangle; but a long
//! Newton step could jump over the inverted states into the mirrored one, whose energy is finite
//! again. [`inversion_max_step`] is the filter against that, the analogue of the slope's
//! tunnelling filter: the area along a step is quadratic in α, and α is kept below its first
//! root for every triangle.

use nalgebra::{SMatrix, SVector, SymmetricEigen};
use serde::Serialize;

use super::term::{Elements, Energy, StepState};
use super::{Mat2, Vec2};

/// 6×6 element Hessian of a triangle (column-major, local dof 2j + c).
type Mat6 = SMatrix<f64, 6, 6>;
/// 6-vector of a triangle's three node vectors.
type Vec6 = SVector<f64, 6>;

/// The constants of the term (case table `[inversion]`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Inversion {
    /// κ_A, J/m² (energy per unit rest area), > 0.
    pub kappa: f64,
    /// ŝ, the area ratio below which the barrier acts, in (0, 1).
    pub ratio: f64,
}

/// The triangles of every cell of the square's n_seg × n_seg grid (SPEC.md §1 node order), the
/// cell split both ways: for corners a = (i, j), b = (i+1, j), c = (i+1, j+1), d = (i, j+1)
/// (counter-clockwise), the triangles abc, acd, abd and bcd, each counter-clockwise.
pub fn cell_triangles(n_seg: usize) -> Vec<[usize; 3]> {
    let m = n_seg + 1;
    let id = |i: usize, j: usize| i * m + j;
    let mut out = Vec::with_capacity(4 * n_seg * n_seg);
    for i in 0..n_seg {
        for j in 0..n_seg {
            let (a, b, c, d) = (id(i, j), id(i + 1, j), id(i + 1, j + 1), id(i, j + 1));
            out.extend([[a, b, c], [a, c, d], [a, b, d], [b, c, d]]);
        }
    }
    out
}

/// Signed area of the triangle (a, b, c), m²: positive when counter-clockwise.
#[inline]
pub fn signed_area(a: &Vec2, b: &Vec2, c: &Vec2) -> f64 {
    0.5 * (b - a).perp(&(c - a))
}

/// The clockwise quarter turn R: R (x, y) = (y, −x).
#[inline]
fn quarter_turn(v: &Vec2) -> Vec2 {
    Vec2::new(v.y, -v.x)
}

/// ∇a, the gradient of the signed area with respect to the three nodes, m:
/// ∂a/∂xᵢ = ½ R (x_next − x_prev).
#[inline]
pub fn area_gradient(p: &[Vec2; 3]) -> Vec6 {
    let mut g = Vec6::zeros();
    for i in 0..3 {
        let d = quarter_turn(&(p[(i + 1) % 3] - p[(i + 2) % 3])) * 0.5;
        g[2 * i] = d.x;
        g[2 * i + 1] = d.y;
    }
    g
}

/// ∇²a, the constant Hessian of the signed area (dimensionless): block (i, next) = ½R,
/// block (i, prev) = −½R, zero diagonal blocks. Symmetric, indefinite.
pub fn area_hessian() -> Mat6 {
    let r = Mat2::new(0.0, 1.0, -1.0, 0.0) * 0.5;
    let mut h = Mat6::zeros();
    for i in 0..3 {
        let (next, prev) = ((i + 1) % 3, (i + 2) % 3);
        h.fixed_view_mut::<2, 2>(2 * i, 2 * next).copy_from(&r);
        h.fixed_view_mut::<2, 2>(2 * i, 2 * prev).copy_from(&(-r));
    }
    h
}

/// b(r) per unit c = κ_A a₀ (dimensionless); +∞ at r ≤ 0, zero at r ≥ ŝ.
#[inline]
fn unit_value(r: f64, s: f64) -> f64 {
    if r >= s {
        0.0
    } else if r <= 0.0 {
        f64::INFINITY
    } else {
        -(r - s) * (r - s) * (r / s).ln()
    }
}

/// b′(r) per unit c, for 0 < r (zero at r ≥ ŝ).
#[inline]
fn unit_first(r: f64, s: f64) -> f64 {
    if r >= s {
        0.0
    } else {
        let e = r - s;
        -(2.0 * e * (r / s).ln() + e * e / r)
    }
}

/// b″(r) per unit c, for 0 < r (zero at r ≥ ŝ).
#[inline]
fn unit_second(r: f64, s: f64) -> f64 {
    if r >= s {
        0.0
    } else {
        let e = r - s;
        -2.0 * (r / s).ln() - 4.0 * e / r + e * e / (r * r)
    }
}

/// The largest α ≤ 1 with which no triangle's area, moving from `x` along `p`, covers more than
/// `fraction` of the way to its first zero: α = min(1, fraction · α*) with α* the smallest
/// positive root over the triangles of a(α) = a + α c₁ + α² c₂ (the signed area is quadratic
/// along a straight step); 1 when no area reaches zero for α > 0. For x with every area
/// positive, every area stays positive on [0, α].
pub fn inversion_max_step(x: &[Vec2], p: &[Vec2], triangles: &[[usize; 3]], fraction: f64) -> f64 {
    let mut root = f64::INFINITY;
    for t in triangles {
        let (e1, e2) = (x[t[1]] - x[t[0]], x[t[2]] - x[t[0]]);
        let (q1, q2) = (p[t[1]] - p[t[0]], p[t[2]] - p[t[0]]);
        // 2a(α) = e1×e2 + α (e1×q2 + q1×e2) + α² q1×q2.
        let c0 = e1.perp(&e2);
        let c1 = e1.perp(&q2) + q1.perp(&e2);
        let c2 = q1.perp(&q2);
        root = root.min(first_positive_root(c0, c1, c2));
    }
    (fraction * root).min(1.0)
}

/// The smallest α > 0 with c₀ + c₁ α + c₂ α² = 0 (+∞ if none), for c₀ > 0; computed with the
/// cancellation-free pair of formulas (q = −½(c₁ + sgn(c₁)√D), roots q/c₂ and c₀/q).
fn first_positive_root(c0: f64, c1: f64, c2: f64) -> f64 {
    if c2 == 0.0 {
        return if c1 < 0.0 { -c0 / c1 } else { f64::INFINITY };
    }
    let disc = c1 * c1 - 4.0 * c2 * c0;
    if disc < 0.0 {
        return f64::INFINITY;
    }
    let q = -0.5 * (c1 + disc.sqrt().copysign(c1));
    let mut best = f64::INFINITY;
    for r in [q / c2, c0 / q] {
        if r > 0.0 && r < best {
            best = r;
        }
    }
    best
}

/// The inversion barrier as a term of E: Σ b(aₜ/a₀ₜ) over the triangles, each an element of
/// three nodes.
#[derive(Clone, Debug)]
pub struct InversionEnergy {
    /// The triangles (counter-clockwise at rest).
    triangles: Vec<[usize; 3]>,
    /// Rest area a₀ of every triangle, m² (> 0).
    rest_area: Vec<f64>,
    /// κ_A and ŝ.
    inversion: Inversion,
    /// ∇²a, constant.
    area_hessian: Mat6,
}

impl InversionEnergy {
    /// The term over `triangles`, with rest areas from the positions `x0` (m).
    ///
    /// # Panics
    /// If a triangle is not counter-clockwise at rest (a₀ ≤ 0): the triangles are built by
    /// [`cell_triangles`] from a validated square, so this is a programming error.
    pub fn new(triangles: Vec<[usize; 3]>, x0: &[Vec2], inversion: Inversion) -> Self {
        let rest_area: Vec<f64> = triangles
            .iter()
            .map(|t| signed_area(&x0[t[0]], &x0[t[1]], &x0[t[2]]))
            .collect();
        assert!(
            rest_area.iter().all(|&a| a > 0.0),
            "every triangle must be counter-clockwise at rest"
        );
        InversionEnergy {
            triangles,
            rest_area,
            inversion,
            area_hessian: area_hessian(),
        }
    }

    /// The triangles, three nodes each.
    pub fn triangles(&self) -> &[[usize; 3]] {
        &self.triangles
    }

    /// The three nodes of triangle `t` at `x`.
    #[inline]
    fn corners(x: &[Vec2], t: &[usize; 3]) -> [Vec2; 3] {
        [x[t[0]], x[t[1]], x[t[2]]]
    }

    /// w ∂²b/∂x² of every triangle, exact (indefinite where the barrier acts), N/m, in
    /// [`Energy::hessian`]'s layout: for the finite-difference tests; the solver uses the
    /// projection, [`Energy::hessian`].
    pub fn exact_hessian(&self, x: &[Vec2], weight: f64, out: &mut [f64]) {
        self.blocks(x, weight, out, false);
    }

    /// Every triangle's 6×6 block, w-scaled, PSD-projected when `project`; zero where r ≥ ŝ.
    fn blocks(&self, x: &[Vec2], weight: f64, out: &mut [f64], project: bool) {
        let Inversion { kappa, ratio } = self.inversion;
        for ((out, t), a0) in out
            .chunks_exact_mut(36)
            .zip(&self.triangles)
            .zip(&self.rest_area)
        {
            let p = Self::corners(x, t);
            let r = signed_area(&p[0], &p[1], &p[2]) / a0;
            if r >= ratio {
                out.fill(0.0);
                continue;
            }
            let c = kappa * a0 * weight;
            let g = area_gradient(&p);
            let mut h = g * g.transpose() * (c * unit_second(r, ratio) / (a0 * a0))
                + self.area_hessian * (c * unit_first(r, ratio) / a0);
            if project {
                h = project_psd(h);
            }
            out.copy_from_slice(h.as_slice());
        }
    }
}

/// PSD projection of a symmetric 6×6 matrix (SPEC.md §2): eigen-decompose, clamp negative
/// eigenvalues to zero, recompose; fixed-size, no allocation.
fn project_psd(h: Mat6) -> Mat6 {
    let eig = SymmetricEigen::new(h);
    let mut out = Mat6::zeros();
    for (k, &l) in eig.eigenvalues.iter().enumerate() {
        if l > 0.0 {
            let q = eig.eigenvectors.column(k);
            out += q * q.transpose() * l;
        }
    }
    out
}

impl Energy<2> for InversionEnergy {
    fn name(&self) -> &'static str {
        "inversion"
    }

    fn elements(&self) -> Elements<'_> {
        Elements::Tuples {
            k: 3,
            nodes: self.triangles.as_flattened(),
        }
    }

    /// w Σ b(r), J; +∞ if any triangle is inverted or degenerate (r ≤ 0).
    fn value(&self, x: &[Vec2], _step: &StepState<2>, weight: f64) -> f64 {
        let s = self.inversion.ratio;
        let mut sum = 0.0;
        for (t, a0) in self.triangles.iter().zip(&self.rest_area) {
            let p = Self::corners(x, t);
            let r = signed_area(&p[0], &p[1], &p[2]) / a0;
            if r < s {
                sum += a0 * unit_value(r, s);
            }
        }
        weight * self.inversion.kappa * sum
    }

    /// w b′(r)/a₀ ∇a per triangle (zero where r ≥ ŝ), N. Defined for r > 0, the only states the
    /// line search accepts.
    fn gradient(&self, x: &[Vec2], _step: &StepState<2>, weight: f64, out: &mut [Vec2]) {
        let Inversion { kappa, ratio } = self.inversion;
        for ((out, t), a0) in out
            .chunks_exact_mut(3)
            .zip(&self.triangles)
            .zip(&self.rest_area)
        {
            let p = Self::corners(x, t);
            let r = signed_area(&p[0], &p[1], &p[2]) / a0;
            if r >= ratio {
                out.fill(Vec2::zeros());
                continue;
            }
            // c b′/a₀ with c = κ_A a₀: the a₀ cancels.
            let g = area_gradient(&p) * (weight * kappa * unit_first(r, ratio));
            for (j, o) in out.iter_mut().enumerate() {
                *o = Vec2::new(g[2 * j], g[2 * j + 1]);
            }
        }
    }

    /// w PSD(b″/a₀² ∇a∇aᵀ + b′/a₀ ∇²a) per triangle (zero where r ≥ ŝ), N/m.
    fn hessian(&self, x: &[Vec2], _step: &StepState<2>, weight: f64, out: &mut [f64]) {
        self.blocks(x, weight, out, true);
    }

    fn max_step(&self, x: &[Vec2], p: &[Vec2], _step: &StepState<2>, fraction: f64) -> f64 {
        inversion_max_step(x, p, &self.triangles, fraction)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: f64 = 0.3;

    /// Relative tolerance of a central difference with step δ = 1e-7 at r ≥ 0.05 (δ ≤ 2e-6 r):
    /// truncation ~δ²|b‴|/6 ≈ 1e-12 of b′, rounding ~ε|b|/δ ≈ 1e-9; 1e-6 leaves margin and still
    /// catches any wrong factor or sign.
    const FD_REL_TOL: f64 = 1e-6;

    #[test]
    fn derivatives_in_r_match_finite_differences_and_vanish_at_the_activation_ratio() {
        let delta = 1e-7;
        for r in [0.05, 0.1, 0.2, 0.25, 0.29] {
            let fd1 = (unit_value(r + delta, S) - unit_value(r - delta, S)) / (2.0 * delta);
            let fd2 = (unit_first(r + delta, S) - unit_first(r - delta, S)) / (2.0 * delta);
            let (b1, b2) = (unit_first(r, S), unit_second(r, S));
            assert!(
                (b1 - fd1).abs() <= FD_REL_TOL * b1.abs(),
                "r {r}: {b1} {fd1}"
            );
            assert!(
                (b2 - fd2).abs() <= FD_REL_TOL * b2.abs(),
                "r {r}: {b2} {fd2}"
            );
            assert!(b1 < 0.0 && b2 > 0.0, "r {r}: repels and is convex in r");
        }
        assert_eq!(
            (unit_value(S, S), unit_first(S, S), unit_second(S, S)),
            (0.0, 0.0, 0.0)
        );
        assert_eq!(unit_value(0.0, S), f64::INFINITY);
    }

    #[test]
    fn area_gradient_and_hessian_are_those_of_the_signed_area() {
        let p = [
            Vec2::new(0.1, -0.2),
            Vec2::new(1.3, 0.1),
            Vec2::new(0.4, 0.9),
        ];
        let g = area_gradient(&p);
        let h = area_hessian();
        let delta = 1e-6;
        for k in 0..6 {
            let shifted = |s: f64| {
                let mut q = p;
                q[k / 2][k % 2] += s;
                q
            };
            let (qp, qm) = (shifted(delta), shifted(-delta));
            let fd = (signed_area(&qp[0], &qp[1], &qp[2]) - signed_area(&qm[0], &qm[1], &qm[2]))
                / (2.0 * delta);
            // The area is quadratic: the central difference is exact up to rounding
            // (~ε·|a|/δ ≈ 1e-10).
            assert!((g[k] - fd).abs() < 1e-9, "dof {k}: {} vs {fd}", g[k]);
            let column = (area_gradient(&qp) - area_gradient(&qm)) / (2.0 * delta);
            assert!((h.column(k) - column).amax() < 1e-9, "column {k}");
        }
        assert_eq!(h, h.transpose());
    }

    #[test]
    fn the_filter_stops_short_of_the_first_zero_of_every_area() {
        let x = [
            Vec2::new(0.0, 0.0),
            Vec2::new(1.0, 0.0),
            Vec2::new(0.0, 1.0),
        ];
        let tri = [[0, 1, 2]];
        // Apex driven straight down through the base: area ½(1 − 2α), zero at α = ½.
        let p = [Vec2::zeros(), Vec2::zeros(), Vec2::new(0.0, -2.0)];
        let alpha = inversion_max_step(&x, &p, &tri, 0.9);
        assert!((alpha - 0.45).abs() < 1e-15, "{alpha}");
        // A quadratic path (both free nodes move): the area is ½[(1 − 1.5α)² − (α/2)²], zero
        // first at α = ½ (again at 1, past the mirrored state's start).
        let p = [Vec2::zeros(), Vec2::new(-1.5, 0.5), Vec2::new(0.5, -1.5)];
        let alpha = inversion_max_step(&x, &p, &tri, 0.9);
        assert!((alpha - 0.45).abs() < 1e-15, "{alpha}");
        let at = |a: f64| signed_area(&(x[0] + p[0] * a), &(x[1] + p[1] * a), &(x[2] + p[2] * a));
        assert!(at(alpha) > 0.0 && at(0.5).abs() < 1e-15);
        // Moving apart (area grows) leaves the step free.
        let p = [Vec2::zeros(), Vec2::new(1.0, 0.0), Vec2::new(0.0, 1.0)];
        assert_eq!(inversion_max_step(&x, &p, &tri, 0.9), 1.0);
    }

    #[test]
    fn cells_split_both_ways_are_counter_clockwise() {
        let n = 3;
        let x0: Vec<Vec2> = (0..=n)
            .flat_map(|i| (0..=n).map(move |j| Vec2::new(i as f64, j as f64)))
            .collect();
        let tris = cell_triangles(n);
        assert_eq!(tris.len(), 4 * n * n);
        for t in &tris {
            assert_eq!(signed_area(&x0[t[0]], &x0[t[1]], &x0[t[2]]), 0.5);
        }
    }

    #[test]
    fn projected_blocks_are_psd_and_inactive_ones_zero() {
        let x = vec![
            Vec2::new(0.0, 0.0),
            Vec2::new(1.0, 0.0),
            Vec2::new(0.0, 1.0),
        ];
        let term = InversionEnergy::new(
            vec![[0, 1, 2]],
            &x,
            Inversion {
                kappa: 1e4,
                ratio: S,
            },
        );
        let step = StepState {
            x_tilde: &x,
            x_n: &x,
            h: 0.01,
            time: 0.0,
        };
        let mut out = vec![1.0; 36];
        term.hessian(&x, &step, 1.0, &mut out);
        assert!(out.iter().all(|&v| v == 0.0), "r = 1 ≥ ŝ: inactive");
        // Squash the apex to r = 0.1.
        let squashed = vec![x[0], x[1], Vec2::new(0.3, 0.1)];
        let mut exact = vec![0.0; 36];
        term.exact_hessian(&squashed, 1.0, &mut exact);
        term.hessian(&squashed, &step, 1.0, &mut out);
        let exact = Mat6::from_column_slice(&exact);
        let projected = Mat6::from_column_slice(&out);
        let scale = exact.norm();
        assert!(SymmetricEigen::new(exact).eigenvalues.min() < -1e-3 * scale);
        assert!(SymmetricEigen::new(projected).eigenvalues.min() >= -1e-12 * scale);
    }
}
