//! Mass-spring elasticity (SPEC.md §2): per edge (a, b) with d = x_a − x_b and squared rest
//! length l², ψ = ½ k l² (‖d‖²/l² − 1)² (J, k in N/m).
//!
//! The 2D × 2D element Hessian is [[H_d, −H_d], [−H_d, H_d]] = [[1, −1], [−1, 1]] ⊗ H_d, whose
//! eigenvalues are 0 and 2·eig(H_d); so its PSD projection is [[1, −1], [−1, 1]] ⊗ PSD(H_d), and
//! H_d = (2k/l²)(2 d dᵀ + (‖d‖² − l²) I) has the eigenpairs (2k/l²)(3‖d‖² − l²) along d and
//! (2k/l²)(‖d‖² − l²) across it. The projection is done in that closed form (an exact eigen
//! decomposition; the test below checks it against the general eigensolver on the 4×4 element).
//! In D dimensions the same holds with D − 1 eigenpairs across d. As a term of E
//! ([`SpringEnergy`]) every edge is an element of two nodes.

pub use super::term::Projection;
use super::term::{DifferenceEnergy, Elements, Energy, StepState};
use super::{Matrix, Vector};
use crate::parallel;

/// Meshes with at least this many edges are evaluated in parallel (rayon); below it the thread
/// hand-off costs more than it saves (the 72-edge reference square takes < 1 µs per pass).
pub const PARALLEL_EDGES: usize = 8192;
/// Edges per parallel work item; fixed so that parallel sums are deterministic.
pub const CHUNK: usize = 4096;

/// ψ of one edge, J.
#[inline]
pub fn element_value<const D: usize>(d: &Vector<D>, l2: f64, k: f64) -> f64 {
    let r = d.norm_squared() / l2 - 1.0;
    0.5 * k * l2 * r * r
}

/// ∂ψ/∂x_a = 2k(‖d‖²/l² − 1) d, N (∂ψ/∂x_b is its negative).
#[inline]
pub fn element_gradient<const D: usize>(d: &Vector<D>, l2: f64, k: f64) -> Vector<D> {
    d * (2.0 * k * (d.norm_squared() / l2 - 1.0))
}

/// H_d = (2k/l²)(2 d dᵀ + (‖d‖² − l²) I), N/m, unprojected.
#[inline]
pub fn element_hessian_block<const D: usize>(d: &Vector<D>, l2: f64, k: f64) -> Matrix<D> {
    hessian_block_with(d, l2, 2.0 * k / l2)
}

/// [`element_hessian_block`] with c = 2k/l² (N/m³) given: the term keeps it per edge.
#[inline]
fn hessian_block_with<const D: usize>(d: &Vector<D>, l2: f64, c: f64) -> Matrix<D> {
    (d * d.transpose() * 2.0 + Matrix::<D>::identity() * (d.norm_squared() - l2)) * c
}

/// PSD(H_d) in closed form (see the module comment), N/m.
#[inline]
pub fn element_hessian_block_psd<const D: usize>(d: &Vector<D>, l2: f64, k: f64) -> Matrix<D> {
    psd_block_with(d, l2, 2.0 * k / l2)
}

/// [`element_hessian_block_psd`] with c = 2k/l² (N/m³) given.
#[inline]
fn psd_block_with<const D: usize>(d: &Vector<D>, l2: f64, c: f64) -> Matrix<D> {
    let n2 = d.norm_squared();
    let along = (c * (3.0 * n2 - l2)).max(0.0);
    let across = (c * (n2 - l2)).max(0.0);
    if n2 == 0.0 {
        return Matrix::<D>::identity() * along.min(across);
    }
    let ddt = d * d.transpose() / n2;
    ddt * along + (Matrix::<D>::identity() - ddt) * across
}

/// Mass-spring elasticity as a term of E: Σ ψ over the edges, each edge an element of two nodes.
#[derive(Clone, Debug)]
pub struct SpringEnergy {
    /// Edge endpoints.
    edges: Vec<[usize; 2]>,
    /// Squared rest length of every edge, m².
    rest_l2: Vec<f64>,
    /// Stiffness k, N/m.
    k: f64,
    /// 2k/l² of every edge, N/m³ (the Hessian's factor; one division per edge saved at every
    /// assembly, with the same rounding as computing it there).
    curvature: Vec<f64>,
    /// How the edge Hessian is made PSD.
    projection: Projection,
}

impl SpringEnergy {
    /// The term over `edges` with squared rest lengths `rest_l2` (m²), stiffness `k` (N/m)
    /// and the Hessian `projection`.
    pub fn new(edges: Vec<[usize; 2]>, rest_l2: Vec<f64>, k: f64, projection: Projection) -> Self {
        let curvature = rest_l2.iter().map(|&l2| 2.0 * k / l2).collect();
        SpringEnergy {
            edges,
            rest_l2,
            k,
            curvature,
            projection,
        }
    }

    /// Every edge's [[B, −B], [−B, B]] with B = w · `block`(d, l², 2k/l²), column-major 2D × 2D.
    /// Generic over `block` (not a function pointer) so that it is inlined into the loop.
    fn blocks<const D: usize, B>(&self, x: &[Vector<D>], weight: f64, out: &mut [f64], block: B)
    where
        B: Fn(&Vector<D>, f64, f64) -> Matrix<D> + Sync,
    {
        self.each_edge(x, weight, out, 4 * D * D, block, write_pair_block);
    }

    /// Every edge's B = w · `block`(d, l², 2k/l²), column-major D × D (the difference form of
    /// [`SpringEnergy::blocks`]: the same B, without its four copies).
    fn difference_blocks<const D: usize, B>(
        &self,
        x: &[Vector<D>],
        weight: f64,
        out: &mut [f64],
        block: B,
    ) where
        B: Fn(&Vector<D>, f64, f64) -> Matrix<D> + Sync,
    {
        self.each_edge(x, weight, out, D * D, block, |b, out| {
            out.copy_from_slice(b.as_slice())
        });
    }

    /// For every edge, B = w · `block`(d, l², 2k/l²) written by `write` into the edge's `len`
    /// entries of `out`; meshes of [`PARALLEL_EDGES`] edges or more in parallel.
    fn each_edge<const D: usize, B, W>(
        &self,
        x: &[Vector<D>],
        weight: f64,
        out: &mut [f64],
        len: usize,
        block: B,
        write: W,
    ) where
        B: Fn(&Vector<D>, f64, f64) -> Matrix<D> + Sync,
        W: Fn(&Matrix<D>, &mut [f64]) + Sync,
    {
        let f = |(out, (e, (l2, c))): BlockItem<'_>| {
            write(&(block(&(x[e[0]] - x[e[1]]), *l2, *c) * weight), out)
        };
        let elements = self
            .edges
            .iter()
            .zip(self.rest_l2.iter().zip(&self.curvature));
        if self.edges.len() < PARALLEL_EDGES {
            out.chunks_exact_mut(len).zip(elements).for_each(f);
        } else {
            parallel::for_each_chunk(&mut out[..len * self.edges.len()], len, CHUNK, |e, out| {
                f((
                    out,
                    (&self.edges[e], (&self.rest_l2[e], &self.curvature[e])),
                ))
            });
        }
    }
}

/// One edge's share of [`SpringEnergy::each_edge`]: its outputs, its nodes, l² and 2k/l².
type BlockItem<'a> = (&'a mut [f64], (&'a [usize; 2], (&'a f64, &'a f64)));

/// Writes the two-node element block [[B, −B], [−B, B]] column-major into `out` (4D²
/// entries).
#[inline]
fn write_pair_block<const D: usize>(b: &Matrix<D>, out: &mut [f64]) {
    let n = 2 * D;
    for c in 0..D {
        for r in 0..D {
            let v = b[(r, c)];
            out[n * c + r] = v;
            out[n * (c + D) + r + D] = v;
            out[n * (c + D) + r] = -v;
            out[n * c + r + D] = -v;
        }
    }
}

impl<const D: usize> Energy<D> for SpringEnergy {
    fn name(&self) -> &'static str {
        "spring"
    }

    fn elements(&self) -> Elements<'_> {
        Elements::Tuples {
            k: 2,
            nodes: self.edges.as_flattened(),
        }
    }

    /// w Σ ψ, J; meshes of [`PARALLEL_EDGES`] edges or more are summed in parallel in fixed
    /// chunks of [`CHUNK`] edges (deterministic), with the partial sums on the stack up to 128
    /// chunks (524 288 edges).
    fn value(&self, x: &[Vector<D>], _step: &StepState<D>, weight: f64) -> f64 {
        let k = self.k;
        let f = |(e, l2): (&[usize; 2], &f64)| element_value(&(x[e[0]] - x[e[1]]), *l2, k);
        if self.edges.len() < PARALLEL_EDGES {
            return weight * self.edges.iter().zip(&self.rest_l2).map(f).sum::<f64>();
        }
        weight
            * parallel::chunked_sum(self.edges.len(), CHUNK, |r| {
                self.edges[r.clone()]
                    .iter()
                    .zip(&self.rest_l2[r])
                    .map(f)
                    .sum::<f64>()
            })
    }

    /// [w ∂ψ/∂x_a, −w ∂ψ/∂x_a] per edge, N: the difference form's g, spread out in place.
    fn gradient(&self, x: &[Vector<D>], step: &StepState<D>, weight: f64, out: &mut [Vector<D>]) {
        let n = self.edges.len();
        self.difference_gradient(x, step, weight, &mut out[..n]);
        // From the last edge down, so that no g is overwritten before it is read (2e ≥ e).
        for e in (0..n).rev() {
            let g = out[e];
            out[2 * e] = g;
            out[2 * e + 1] = -g;
        }
    }

    /// w [[H_d, −H_d], [−H_d, H_d]] per edge, H_d projected as configured, N/m.
    fn hessian(&self, x: &[Vector<D>], _step: &StepState<D>, weight: f64, out: &mut [f64]) {
        match self.projection {
            Projection::Clamp => self.blocks(x, weight, out, psd_block_with),
            Projection::None => self.blocks(x, weight, out, hessian_block_with),
        }
    }

    fn hessian_is_psd(&self) -> bool {
        self.projection == Projection::Clamp
    }

    fn psd_hessian(&self, x: &[Vector<D>], _step: &StepState<D>, weight: f64, out: &mut [f64]) {
        self.blocks(x, weight, out, psd_block_with);
    }

    fn as_difference(&self) -> Option<&dyn DifferenceEnergy<D>> {
        Some(self)
    }

    fn depends_on_step(&self) -> bool {
        false
    }
}

impl<const D: usize> DifferenceEnergy<D> for SpringEnergy {
    /// g = w ∂ψ/∂x_a per edge; meshes of [`PARALLEL_EDGES`] edges or more in parallel.
    fn difference_gradient(
        &self,
        x: &[Vector<D>],
        _step: &StepState<D>,
        weight: f64,
        out: &mut [Vector<D>],
    ) {
        let k = self.k;
        let g = |(out, (e, l2)): (&mut Vector<D>, (&[usize; 2], &f64))| {
            *out = element_gradient(&(x[e[0]] - x[e[1]]), *l2, k) * weight
        };
        if self.edges.len() < PARALLEL_EDGES {
            out.iter_mut()
                .zip(self.edges.iter().zip(&self.rest_l2))
                .for_each(g);
        } else {
            parallel::for_each_chunk(&mut out[..self.edges.len()], CHUNK, 1, |c, out| {
                let first = c * CHUNK;
                for (j, o) in out.iter_mut().enumerate() {
                    g((o, (&self.edges[first + j], &self.rest_l2[first + j])));
                }
            });
        }
    }

    fn difference_hessian(
        &self,
        x: &[Vector<D>],
        _step: &StepState<D>,
        weight: f64,
        out: &mut [f64],
    ) {
        match self.projection {
            Projection::Clamp => self.difference_blocks(x, weight, out, psd_block_with),
            Projection::None => self.difference_blocks(x, weight, out, hessian_block_with),
        }
    }

    fn difference_psd_hessian(
        &self,
        x: &[Vector<D>],
        _step: &StepState<D>,
        weight: f64,
        out: &mut [f64],
    ) {
        self.difference_blocks(x, weight, out, psd_block_with);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::energy::psd;
    use nalgebra::{DMatrix, SymmetricEigen};

    /// The full 2D × 2D element [[B, −B], [−B, B]] of a D × D block B.
    fn element<const D: usize>(b: &Matrix<D>) -> DMatrix<f64> {
        let mut m = DMatrix::zeros(2 * D, 2 * D);
        for (r0, c0, sign) in [(0, 0, 1.0), (D, D, 1.0), (0, D, -1.0), (D, 0, -1.0)] {
            for c in 0..D {
                for r in 0..D {
                    m[(r0 + r, c0 + c)] = sign * b[(r, c)];
                }
            }
        }
        m
    }

    /// A unit vector in D dimensions at "angle" `a` (in 3D off every coordinate plane).
    fn direction<const D: usize>(a: f64) -> Vector<D> {
        Vector::<D>::from_fn(|i, _| (a + 1.3 * i as f64).cos() + 0.2).normalize()
    }

    fn closed_form_matches_the_eigen_projection<const D: usize>() {
        let k = 2e4;
        let l2: f64 = 0.0625;
        for (i, s) in [0.2, 0.5, 0.577, 0.8, 1.0, 1.3, 2.0].iter().enumerate() {
            let d = direction::<D>(i as f64 * 0.7) * (s * l2.sqrt());
            let unprojected = element(&element_hessian_block(&d, l2, k));
            let general = psd::project(&unprojected);
            let closed = element(&element_hessian_block_psd(&d, l2, k));
            let scale = unprojected.norm();
            assert!(
                (general - &closed).norm() <= 1e-12 * scale,
                "D = {D}, stretch {s}"
            );
            let min = SymmetricEigen::new(closed).eigenvalues.min();
            assert!(min >= -1e-12 * scale);
        }
    }

    #[test]
    fn closed_form_projection_matches_eigen_projection_of_the_element() {
        closed_form_matches_the_eigen_projection::<2>();
        closed_form_matches_the_eigen_projection::<3>();
    }

    /// The difference form gives the full form's values bit for bit: the node gradient of
    /// `difference_gradient` through `scatter_difference_gradient` equals `gradient` through
    /// `scatter_gradient`, and each B equals the top-left D × D of the element block, with −B
    /// and B in the other three (both projections and the PSD fallback). On a chain of
    /// stretched and compressed edges in every direction, below and above [`PARALLEL_EDGES`]
    /// (the parallel path), in 2D and 3D.
    fn difference_form_matches_the_full_form<const D: usize>() {
        for n_edges in [7, PARALLEL_EDGES + 5] {
            let n = n_edges + 1;
            let x: Vec<Vector<D>> = (0..n)
                .map(|i| {
                    let t = i as f64;
                    Vector::<D>::from_fn(|c, _| {
                        0.3 * t * (c == 0) as u8 as f64
                            + 0.05 * (1.7 * t + c as f64).sin()
                            + 0.2 * (0.9 * t * (c + 1) as f64).cos()
                    })
                })
                .collect();
            let edges: Vec<[usize; 2]> = (0..n_edges)
                .map(|e| if e % 2 == 0 { [e, e + 1] } else { [e + 1, e] })
                .collect();
            let rest_l2: Vec<f64> = (0..n_edges)
                .map(|e| 0.09 * (0.5 + (e % 5) as f64 / 4.0))
                .collect();
            let empty: [Vector<D>; 0] = [];
            let step = StepState {
                x_tilde: &empty,
                x_n: &empty,
                h: 0.01,
                time: 0.0,
            };
            let w = 1e-4 / 3.0;
            let (dd, nn) = (D * D, 4 * D * D);
            for projection in [Projection::Clamp, Projection::None] {
                let term = SpringEnergy::new(edges.clone(), rest_l2.clone(), 2e4, projection);
                let energy: &dyn Energy<D> = &term;
                let diff = energy
                    .as_difference()
                    .expect("springs have the difference form");
                let mut element = vec![Vector::<D>::zeros(); 2 * n_edges];
                energy.gradient(&x, &step, w, &mut element);
                let fill = Vector::<D>::from_fn(|c, _| (c as f64 + 1.0) / 3.0);
                let mut full = vec![fill; n];
                super::super::term::scatter_gradient(energy.elements(), &element, &mut full);
                let mut compact = vec![fill; n];
                let mut g = vec![Vector::<D>::zeros(); n_edges];
                diff.difference_gradient(&x, &step, w, &mut g);
                super::super::term::scatter_difference_gradient(
                    energy.elements(),
                    &g,
                    &mut compact,
                );
                assert_eq!(full, compact, "D = {D}, {n_edges} edges, {projection:?}");
                let mut blocks = vec![0.0; nn * n_edges];
                let mut bs = vec![0.0; dd * n_edges];
                for psd in [false, true] {
                    if psd {
                        energy.psd_hessian(&x, &step, w, &mut blocks);
                        diff.difference_psd_hessian(&x, &step, w, &mut bs);
                    } else {
                        energy.hessian(&x, &step, w, &mut blocks);
                        diff.difference_hessian(&x, &step, w, &mut bs);
                    }
                    let n2 = 2 * D;
                    for (e, (block, b)) in blocks.chunks(nn).zip(bs.chunks(dd)).enumerate() {
                        for c in 0..D {
                            for r in 0..D {
                                let v = b[D * c + r];
                                let got = [
                                    block[n2 * c + r],
                                    block[n2 * (c + D) + r + D],
                                    -block[n2 * (c + D) + r],
                                    -block[n2 * c + r + D],
                                ];
                                assert!(
                                    got.iter().all(|g| g.to_bits() == v.to_bits()),
                                    "D = {D}, {n_edges} edges, {projection:?}, psd {psd}, edge {e}"
                                );
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn difference_form_matches_the_full_form_exactly() {
        difference_form_matches_the_full_form::<2>();
        difference_form_matches_the_full_form::<3>();
    }
}
