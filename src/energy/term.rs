//! The one shape of every term of the incremental potential (SPEC.md §2).
//!
//! E(x) = Σₖ wₖ Ψₖ(x): inertia with w = 1, every potential (springs, gravity, barrier,
//! friction) with w = h². Each term implements [`Energy`]: `value`, `gradient` and `hessian`
//! take the same arguments (the positions, the [`StepState`] and the weight w) and all three
//! give w times their quantity. A term is a sum over *elements*, tuples of k nodes it couples
//! (k = 1 for the node terms, 2 for a spring); `gradient` writes each element's 2k-vector and
//! `hessian` each element's 2k × 2k block into flat buffers, and the solver scatters them into
//! the node gradient and the sparse matrix through maps built once ([`scatter_gradient`],
//! `solver::assembly`).

use super::Vec2;

/// What a step's E depends on besides x (SPEC.md §2), fixed through the Newton iterations of a
/// step (implicit lagging replaces the μλ between solves).
#[derive(Clone, Copy, Debug)]
pub struct StepState<'a> {
    /// x̃ = xⁿ + h vⁿ, m.
    pub x_tilde: &'a [Vec2],
    /// xⁿ, the positions at the start of the step, m.
    pub x_n: &'a [Vec2],
    /// μ_kλᵢ, the lagged kinetic friction bound of every node, N.
    pub mu_lambda_kinetic: &'a [f64],
    /// μ_sλᵢ, the lagged static friction bound (equal to the kinetic one for a single μ), N.
    pub mu_lambda_static: &'a [f64],
}

/// The elements of a term: which nodes each element couples.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Elements<'a> {
    /// One element per node, node i being element i (inertia, gravity, barrier, friction).
    EachNode(usize),
    /// Elements of `k` nodes each, `nodes[k e + j]` the j-th node of element e.
    Tuples {
        /// Nodes per element.
        k: usize,
        /// The nodes, k per element.
        nodes: &'a [usize],
    },
}

impl Elements<'_> {
    /// No elements (a term without a Hessian contributes none to the matrix).
    pub const NONE: Elements<'static> = Elements::Tuples { k: 1, nodes: &[] };

    /// Nodes per element, k.
    pub fn nodes_per_element(&self) -> usize {
        match self {
            Elements::EachNode(_) => 1,
            Elements::Tuples { k, .. } => *k,
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        match self {
            Elements::EachNode(n) => *n,
            Elements::Tuples { k, nodes } => nodes.len() / k,
        }
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The j-th node of element e.
    #[inline]
    pub fn node(&self, e: usize, j: usize) -> usize {
        match self {
            Elements::EachNode(_) => e,
            Elements::Tuples { k, nodes } => nodes[k * e + j],
        }
    }

    /// Length of the flat gradient buffer of these elements (k per element).
    pub fn gradient_len(&self) -> usize {
        self.len() * self.nodes_per_element()
    }

    /// Length of the flat Hessian buffer of these elements ((2k)² per element).
    pub fn hessian_len(&self) -> usize {
        let dofs = 2 * self.nodes_per_element();
        self.len() * dofs * dofs
    }
}

/// How a term's Hessian blocks are made positive semi-definite (case key `newton.projection`
/// for the springs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Projection {
    /// Negative eigenvalues clamped to zero (SPEC.md §2, the book's).
    #[default]
    Clamp,
    /// No projection: the exact Hessian. For the springs the inertia term M keeps the sum
    /// positive definite unless springs are compressed hard; for an iteration whose Cholesky
    /// factorisation fails the solver uses H + τM (`solver::newton::MASS_SHIFTS`) and falls
    /// back to `Clamp` past the largest τ. Clamping raises the model's
    /// curvature across every compressed spring, so the Newton step is too short and
    /// convergence linear while the refined square is squashed on landing
    /// (docs/refinement.md).
    None,
}

/// One term of E (SPEC.md §2). All three evaluations take the same arguments and give the
/// weight w times their quantity:
///
/// * `value`: w Ψ(x), J (the weight multiplies the term's sum over its elements);
/// * `gradient`: for every element e, w ∂Ψₑ/∂x of its k nodes into `out[k e .. k e + k]`, N;
/// * `hessian`: for every element, w times its 2k × 2k Hessian block (PSD-projected where the
///   term says so, see [`Energy::hessian_is_psd`]) into `out[(2k)² e ..]`, column-major with
///   local degree of freedom 2j + c for component c of the element's j-th node, N/m.
///
/// The buffers have the lengths [`Elements::gradient_len`] and [`Elements::hessian_len`] and
/// every entry is overwritten (zeros where the term is inactive), so no term allocates.
pub trait Energy: Send + Sync {
    /// A short name for messages and tests.
    fn name(&self) -> &'static str;

    /// The elements this term sums over.
    fn elements(&self) -> Elements<'_>;

    /// w Ψ(x), J; +∞ where Ψ is (a barrier at or below the slope).
    fn value(&self, x: &[Vec2], step: &StepState, weight: f64) -> f64;

    /// w ∂Ψₑ/∂x of every element, N.
    fn gradient(&self, x: &[Vec2], step: &StepState, weight: f64, out: &mut [Vec2]);

    /// w ∂²Ψₑ/∂x² of every element (projected as the term is configured), N/m.
    fn hessian(&self, x: &[Vec2], step: &StepState, weight: f64, out: &mut [f64]);

    /// Whether [`Energy::hessian`]'s blocks are positive semi-definite at every x (SPEC.md §2's
    /// projection or a convex term). A term that can be configured without projection says
    /// false and gives its projected blocks in [`Energy::psd_hessian`].
    fn hessian_is_psd(&self) -> bool {
        true
    }

    /// The blocks of [`Energy::hessian`] projected to PSD (the solver's fallback when the
    /// assembled matrix is not positive definite), N/m.
    fn psd_hessian(&self, x: &[Vec2], step: &StepState, weight: f64, out: &mut [f64]) {
        self.hessian(x, step, weight, out);
    }

    /// Whether Ψ is linear in x (its Hessian is zero and never assembled).
    fn is_linear(&self) -> bool {
        false
    }

    /// Whether Ψ depends on the [`StepState`] (x̃, xⁿ, μλ) and not on x alone. A term that
    /// says false is a function of x alone, so the solver may reuse its value, gradient and
    /// blocks where x has not changed since it computed them (each step starts at the x the
    /// last one ended at). True unless the term says otherwise.
    fn depends_on_step(&self) -> bool {
        true
    }

    /// The largest line-search step α this term lets the solver try from `x` along `p` without
    /// jumping over a region where Ψ is +∞ (a filter like the slope's tunnelling filter,
    /// covering at most `fraction` of the way); +∞ for a term that sets no bound.
    fn max_step(&self, _x: &[Vec2], _p: &[Vec2], _fraction: f64) -> f64 {
        f64::INFINITY
    }

    /// The term in its difference form ([`DifferenceEnergy`]), if it has one: the solver then
    /// takes its gradient and Hessian in that form.
    fn as_difference(&self) -> Option<&dyn DifferenceEnergy> {
        None
    }
}

/// How a term's Hessian reaches the solver (see [`Energy::as_difference`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockForm {
    /// The full 2k × 2k block of every element ([`Energy::hessian`]).
    Full,
    /// The 2 × 2 block B of every two-node element whose full block is [[B, −B], [−B, B]]
    /// ([`DifferenceEnergy::difference_hessian`]).
    Difference,
}

/// A term of two-node elements, each depending on its nodes only through d = x_a − x_b (a
/// spring): its element gradient is [g, −g] and its element block [[B, −B], [−B, B]] with B
/// symmetric, so g and B carry all of it. The solver takes such a term in this form: g is added
/// to the node gradient with its sign ([`scatter_difference_gradient`]), and only B's four
/// entries are written per element (instead of sixteen) and added into the matrix with their
/// signs (docs/benchmarks.md). Every value is
/// the one the full form gives, bit for bit: g and B are computed the same way, and adding −v
/// is subtracting v. Implementations test that against [`Energy::gradient`] and
/// [`Energy::hessian`]. The two nodes of an element must differ.
pub trait DifferenceEnergy: Energy {
    /// w ∂Ψₑ/∂x_a of every element into `out[e]` (∂Ψₑ/∂x_b is its negative), N.
    fn difference_gradient(&self, x: &[Vec2], step: &StepState, weight: f64, out: &mut [Vec2]);

    /// w B of every element, projected as [`Energy::hessian`] is configured, column-major
    /// into `out[4 e .. 4 e + 4]`, N/m.
    fn difference_hessian(&self, x: &[Vec2], step: &StepState, weight: f64, out: &mut [f64]);

    /// w B of every element projected to PSD (as [`Energy::psd_hessian`]), N/m.
    fn difference_psd_hessian(&self, x: &[Vec2], step: &StepState, weight: f64, out: &mut [f64]);
}

/// Adds every element's gradient (`element_gradients`, as [`Energy::gradient`] wrote them) to
/// the gradient of its nodes, element by element in order.
pub fn scatter_gradient(elements: Elements, element_gradients: &[Vec2], grad: &mut [Vec2]) {
    match elements {
        Elements::EachNode(n) => {
            for (g, e) in grad[..n].iter_mut().zip(element_gradients) {
                *g += e;
            }
        }
        Elements::Tuples { k, nodes } => {
            for (node, e) in nodes.iter().zip(&element_gradients[..nodes.len()]) {
                grad[*node] += e;
            }
            debug_assert_eq!(nodes.len() % k, 0);
        }
    }
}

/// Adds every element's g ([`DifferenceEnergy::difference_gradient`]) to the gradient of its
/// nodes, element by element in order, +g to x_a and −g to x_b: the same sums in the same
/// order as the element gradients [g, −g] through [`scatter_gradient`].
pub fn scatter_difference_gradient(elements: Elements, g: &[Vec2], grad: &mut [Vec2]) {
    let Elements::Tuples { k: 2, nodes } = elements else {
        panic!("a difference-form term has elements of two nodes");
    };
    for (pair, g) in nodes.chunks_exact(2).zip(g) {
        grad[pair[0]] += g;
        grad[pair[1]] += -g;
    }
}

/// Writes the 2 × 2 block `block` column-major into a single-node element's slot of a Hessian
/// buffer.
#[inline]
pub(crate) fn write_node_block(block: &super::Mat2, out: &mut [f64]) {
    out.copy_from_slice(block.as_slice());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tuples_scatter_each_entry_to_its_node() {
        let nodes = [2, 0, 1, 2];
        let elements = Elements::Tuples {
            k: 2,
            nodes: &nodes,
        };
        assert_eq!(elements.len(), 2);
        assert_eq!(elements.node(1, 0), 1);
        assert_eq!(elements.hessian_len(), 32);
        let e = [
            Vec2::new(1.0, 0.0),
            Vec2::new(0.0, 1.0),
            Vec2::new(10.0, 0.0),
            Vec2::new(0.0, 10.0),
        ];
        let mut grad = [Vec2::zeros(); 3];
        scatter_gradient(elements, &e, &mut grad);
        assert_eq!(
            grad,
            [
                Vec2::new(0.0, 1.0),
                Vec2::new(10.0, 0.0),
                Vec2::new(1.0, 10.0)
            ]
        );
    }
}
