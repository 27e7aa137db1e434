//! Mass-spring elasticity (SPEC.md §2): per edge (a, b) with d = x_a − x_b and squared rest
//! length l², ψ = ½ k l² (‖d‖²/l² − 1)² (J, k in N/m).
//!
//! The 4×4 element Hessian is [[H_d, −H_d], [−H_d, H_d]] = [[1, −1], [−1, 1]] ⊗ H_d, whose
//! eigenvalues are 0 and 2·eig(H_d); so its PSD projection is [[1, −1], [−1, 1]] ⊗ PSD(H_d), and
//! H_d = (2k/l²)(2 d dᵀ + (‖d‖² − l²) I) has the eigenpairs (2k/l²)(3‖d‖² − l²) along d and
//! (2k/l²)(‖d‖² − l²) across it. The projection is done in that closed form (an exact eigen
//! decomposition; the test below checks it against the general eigensolver on the 4×4 element).

use rayon::prelude::*;

use super::{Mat2, Vec2};

/// Meshes with at least this many edges are evaluated in parallel (rayon); below it the thread
/// hand-off costs more than it saves (the 72-edge reference square takes < 1 µs per pass).
pub const PARALLEL_EDGES: usize = 8192;
/// Edges per parallel work item; fixed so that parallel sums are deterministic.
pub const CHUNK: usize = 4096;

/// ψ of one edge, J.
#[inline]
pub fn element_value(d: &Vec2, l2: f64, k: f64) -> f64 {
    let r = d.norm_squared() / l2 - 1.0;
    0.5 * k * l2 * r * r
}

/// ∂ψ/∂x_a = 2k(‖d‖²/l² − 1) d, N (∂ψ/∂x_b is its negative).
#[inline]
pub fn element_gradient(d: &Vec2, l2: f64, k: f64) -> Vec2 {
    d * (2.0 * k * (d.norm_squared() / l2 - 1.0))
}

/// H_d = (2k/l²)(2 d dᵀ + (‖d‖² − l²) I), N/m, unprojected.
#[inline]
pub fn element_hessian_block(d: &Vec2, l2: f64, k: f64) -> Mat2 {
    (d * d.transpose() * 2.0 + Mat2::identity() * (d.norm_squared() - l2)) * (2.0 * k / l2)
}

/// PSD(H_d) in closed form (see the module comment), N/m.
#[inline]
pub fn element_hessian_block_psd(d: &Vec2, l2: f64, k: f64) -> Mat2 {
    let n2 = d.norm_squared();
    let c = 2.0 * k / l2;
    let along = (c * (3.0 * n2 - l2)).max(0.0);
    let across = (c * (n2 - l2)).max(0.0);
    if n2 == 0.0 {
        return Mat2::identity() * along.min(across);
    }
    let ddt = d * d.transpose() / n2;
    ddt * along + (Mat2::identity() - ddt) * across
}

/// How the edge Hessian is made positive semi-definite.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Projection {
    /// Negative eigenvalues clamped to zero (SPEC.md §2, the book's).
    #[default]
    Clamp,
    /// No projection: the exact edge Hessian ([`element_hessian_block`]). The inertia term
    /// M keeps the sum positive definite unless springs are compressed hard, and the solver
    /// falls back to `Clamp` for an iteration whose Cholesky factorisation fails. Clamping
    /// raises the model's curvature across every compressed spring, so the Newton step is too
    /// short and convergence linear while the refined square is squashed on landing
    /// (docs/refinement.md).
    None,
}

/// Σ ψ over all edges, J.
pub fn value(
    x: &[Vec2],
    edges: &[[usize; 2]],
    rest_l2: &[f64],
    k: f64,
    partials: &mut [f64],
) -> f64 {
    let f = |(e, l2): (&[usize; 2], &f64)| element_value(&(x[e[0]] - x[e[1]]), *l2, k);
    if edges.len() < PARALLEL_EDGES {
        return edges.iter().zip(rest_l2).map(f).sum();
    }
    partials
        .par_iter_mut()
        .zip(edges.par_chunks(CHUNK).zip(rest_l2.par_chunks(CHUNK)))
        .for_each(|(p, (e, l))| *p = e.iter().zip(l).map(f).sum());
    partials[..edges.len().div_ceil(CHUNK)].iter().sum()
}

/// Adds `scale` · ∂Ψ/∂x to `grad`; `edge_buf` (one entry per edge) holds per-edge gradients
/// when the mesh is evaluated in parallel.
pub fn gradient(
    x: &[Vec2],
    edges: &[[usize; 2]],
    rest_l2: &[f64],
    k: f64,
    scale: f64,
    edge_buf: &mut [Vec2],
    grad: &mut [Vec2],
) {
    if edges.len() < PARALLEL_EDGES {
        for (e, l2) in edges.iter().zip(rest_l2) {
            let g = element_gradient(&(x[e[0]] - x[e[1]]), *l2, k) * scale;
            grad[e[0]] += g;
            grad[e[1]] -= g;
        }
        return;
    }
    edge_buf
        .par_iter_mut()
        .zip(edges.par_iter().zip(rest_l2.par_iter()))
        .with_min_len(CHUNK)
        .for_each(|(out, (e, l2))| *out = element_gradient(&(x[e[0]] - x[e[1]]), *l2, k) * scale);
    for (e, g) in edges.iter().zip(edge_buf.iter()) {
        grad[e[0]] += g;
        grad[e[1]] -= g;
    }
}

/// Writes `scale` · PSD(H_d) of every edge into `blocks` (one per edge); the assembler expands
/// each into the element Hessian [[B, −B], [−B, B]].
pub fn hessian(
    x: &[Vec2],
    edges: &[[usize; 2]],
    rest_l2: &[f64],
    k: f64,
    scale: f64,
    blocks: &mut [Mat2],
) {
    hessian_projected(x, edges, rest_l2, k, scale, Projection::Clamp, blocks)
}

/// [`hessian`] with the projection chosen.
pub fn hessian_projected(
    x: &[Vec2],
    edges: &[[usize; 2]],
    rest_l2: &[f64],
    k: f64,
    scale: f64,
    projection: Projection,
    blocks: &mut [Mat2],
) {
    let block = match projection {
        Projection::Clamp => element_hessian_block_psd,
        Projection::None => element_hessian_block,
    };
    let f = |(out, (e, l2)): (&mut Mat2, (&[usize; 2], &f64))| {
        *out = block(&(x[e[0]] - x[e[1]]), *l2, k) * scale
    };
    if edges.len() < PARALLEL_EDGES {
        blocks.iter_mut().zip(edges.iter().zip(rest_l2)).for_each(f);
    } else {
        blocks
            .par_iter_mut()
            .zip(edges.par_iter().zip(rest_l2.par_iter()))
            .with_min_len(CHUNK)
            .for_each(f);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::energy::psd;
    use nalgebra::{Matrix4, SymmetricEigen};

    fn element4(b: &Mat2) -> Matrix4<f64> {
        let mut m = Matrix4::zeros();
        m.fixed_view_mut::<2, 2>(0, 0).copy_from(b);
        m.fixed_view_mut::<2, 2>(2, 2).copy_from(b);
        m.fixed_view_mut::<2, 2>(0, 2).copy_from(&(-b));
        m.fixed_view_mut::<2, 2>(2, 0).copy_from(&(-b));
        m
    }

    #[test]
    fn closed_form_projection_matches_eigen_projection_of_the_element() {
        let k = 2e4;
        let l2: f64 = 0.0625;
        for (i, s) in [0.2, 0.5, 0.577, 0.8, 1.0, 1.3, 2.0].iter().enumerate() {
            let ang = i as f64 * 0.7;
            let d = Vec2::new(ang.cos(), ang.sin()) * (s * l2.sqrt());
            let unprojected = element4(&element_hessian_block(&d, l2, k));
            let general = psd::project(&nalgebra::DMatrix::from_column_slice(
                4,
                4,
                unprojected.as_slice(),
            ));
            let general = Matrix4::from_column_slice(general.as_slice());
            let closed = element4(&element_hessian_block_psd(&d, l2, k));
            let scale = unprojected.norm();
            assert!((general - closed).norm() <= 1e-12 * scale, "stretch {s}");
            let min = SymmetricEigen::new(closed).eigenvalues.min();
            assert!(min >= -1e-12 * scale);
        }
    }
}
