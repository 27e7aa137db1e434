//! The one shape of every term of the incremental potential (SPEC.md §2, §7), in D = 2 or 3.
//!
//! E(x) = Σₖ wₖ Ψₖ(x): inertia with w = 1, every potential (springs, gravity, contact, ...)
//! with w = h². Each term implements [`Energy`]: `value`, `gradient` and `hessian` take the same
//! arguments (the positions, the [`StepState`] and the weight w) and all three give w times
//! their quantity. A term is a sum over *elements*, tuples of k nodes it couples (k = 1 for the
//! node terms, 2 for a spring, 3 for a triangle); `gradient` writes each element's k node
//! vectors and `hessian` each element's Dk × Dk block into flat buffers, and the solver scatters
//! them into the node gradient and the sparse matrix through maps it builds from the declared
//! elements ([`scatter_gradient`], `solver::assembly`).

use super::{Matrix, Vector};

/// What a step's E depends on besides x (SPEC.md §2), fixed through the Newton iterations of a
/// step.
#[derive(Clone, Copy, Debug)]
pub struct StepState<'a, const D: usize> {
    /// x̃ = xⁿ + h vⁿ, m.
    pub x_tilde: &'a [Vector<D>],
    /// xⁿ, the positions at the start of the step, m.
    pub x_n: &'a [Vector<D>],
    /// The time step h, s.
    pub h: f64,
    /// The time at the end of the step, t + h, s (for terms that depend on time).
    pub time: f64,
}

/// The elements of a term: which nodes each element couples.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Elements<'a> {
    /// One element per node, node i being element i (inertia, gravity).
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

    /// Length of the flat gradient buffer of these elements (k node vectors per element).
    pub fn gradient_len(&self) -> usize {
        self.len() * self.nodes_per_element()
    }

    /// Length of the flat Hessian buffer of these elements in dimension `dim`: (dim·k)² per
    /// element.
    pub fn hessian_len(&self, dim: usize) -> usize {
        let dofs = dim * self.nodes_per_element();
        self.len() * dofs * dofs
    }
}

/// How a term's Hessian blocks are made positive semi-definite (case key `newton.projection`
/// for the springs and friction).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Projection {
    /// Negative eigenvalues clamped to zero (SPEC.md §2, the book's).
    #[default]
    Clamp,
    /// No projection: the exact Hessian. The inertia term M keeps the sum positive definite
    /// unless springs are compressed hard; for an iteration whose Cholesky factorisation fails
    /// the solver uses H + τM (`solver::newton::MASS_SHIFTS`) and falls back to `Clamp` past
    /// the largest τ (docs/model.md).
    None,
}

/// One term of E (SPEC.md §2, §7) in dimension D. All three evaluations take the same
/// arguments and give the weight w times their quantity:
///
/// * `value`: w Ψ(x), J (the weight multiplies the term's sum over its elements);
/// * `gradient`: for every element e, w ∂Ψₑ/∂x of its k nodes into `out[k e .. k e + k]`, N;
/// * `hessian`: for every element, w times its Dk × Dk Hessian block (PSD-projected where the
///   term says so, see [`Energy::hessian_is_psd`]) into `out[(Dk)² e ..]`, column-major with
///   local degree of freedom D j + c for component c of the element's j-th node, N/m.
///
/// The buffers have the lengths [`Elements::gradient_len`] and [`Elements::hessian_len`] of
/// [`Energy::elements`] as it is when they are called, and every entry is overwritten (zeros
/// where the term is inactive), so no term allocates.
pub trait Energy<const D: usize>: Send + Sync {
    /// A short name for messages and tests.
    fn name(&self) -> &'static str;

    /// The elements this term sums over.
    fn elements(&self) -> Elements<'_>;

    /// Whether [`Energy::elements`] stays the same for the life of the term (true unless the
    /// term says otherwise). The contact potentials say false: their elements are the
    /// collisions active at the last update of the contact stage, and the solver then checks
    /// them at every assembly (`solver::assembly`).
    fn fixed_elements(&self) -> bool {
        true
    }

    /// Elements that are not among [`Energy::elements`] now but may soon be (a contact
    /// potential's candidates): the solver includes their couplings whenever it rebuilds the
    /// Hessian's pattern, so that it need not rebuild it again when they join. None unless the
    /// term says otherwise; of the same nodes per element as [`Energy::elements`].
    fn reserved_elements(&self) -> Elements<'_> {
        Elements::NONE
    }

    /// w Ψ(x), J; +∞ where Ψ is (a barrier at or past contact).
    fn value(&self, x: &[Vector<D>], step: &StepState<D>, weight: f64) -> f64;

    /// w ∂Ψₑ/∂x of every element, N.
    fn gradient(&self, x: &[Vector<D>], step: &StepState<D>, weight: f64, out: &mut [Vector<D>]);

    /// w ∂²Ψₑ/∂x² of every element (projected as the term is configured), N/m.
    fn hessian(&self, x: &[Vector<D>], step: &StepState<D>, weight: f64, out: &mut [f64]);

    /// Whether [`Energy::hessian`]'s blocks are positive semi-definite at every x (SPEC.md §2's
    /// projection or a convex term). A term that can be configured without projection says
    /// false and gives its projected blocks in [`Energy::psd_hessian`].
    fn hessian_is_psd(&self) -> bool {
        true
    }

    /// The blocks of [`Energy::hessian`] projected to PSD (the solver's fallback when the
    /// assembled matrix is not positive definite), N/m.
    fn psd_hessian(&self, x: &[Vector<D>], step: &StepState<D>, weight: f64, out: &mut [f64]) {
        self.hessian(x, step, weight, out);
    }

    /// Whether the solver may make this term's blocks one element at a time as it assembles
    /// them ([`Energy::element_block`]) rather than all of them into a buffer first; false
    /// unless the term says otherwise. For large meshes, whose buffer of blocks is larger
    /// than the caches (`solver::assembly`, docs/benchmarks.md).
    fn assembles_by_element(&self) -> bool {
        false
    }

    /// Element e's block of [`Energy::hessian`] into `out` (one block, its layout), bit for bit
    /// the one [`Energy::hessian`] gives, for a term whose [`Energy::assembles_by_element`] is
    /// true, N/m; the others leave `out` as it is.
    fn element_block(
        &self,
        _x: &[Vector<D>],
        _step: &StepState<D>,
        _weight: f64,
        _e: usize,
        _out: &mut [f64],
    ) {
    }

    /// Whether Ψ is linear in x (its Hessian is zero and never assembled).
    fn is_linear(&self) -> bool {
        false
    }

    /// Whether Ψ depends on anything but x: the [`StepState`] (x̃, xⁿ, h, the time) or a state
    /// of its own that changes between steps (a lagged force, a moving anchor). A term that
    /// says false is a function of x alone, so the solver may reuse its value, gradient and
    /// blocks where x has not changed since it computed them (each step starts at the x the
    /// last one ended at). True unless the term says otherwise: a term that depends on time
    /// and says false would be evaluated stale.
    fn depends_on_step(&self) -> bool {
        true
    }

    /// This term as [`std::any::Any`], for a caller that changes it between steps (a driver's
    /// spring or constant force, through `solver::Simulation::potential_mut`); None unless the
    /// term offers it.
    fn as_any_mut(&mut self) -> Option<&mut dyn std::any::Any> {
        None
    }

    /// The largest line-search step α this term lets the solver try from `x` along `p` without
    /// jumping over a region where Ψ is +∞ (a filter like the contact stage's CCD or the
    /// inversion filter, covering at most `fraction` of the way), or past a feature Newton must
    /// not step over (friction's stick zone); +∞ for a term that sets no bound.
    fn max_step(
        &self,
        _x: &[Vector<D>],
        _p: &[Vector<D>],
        _step: &StepState<D>,
        _fraction: f64,
    ) -> f64 {
        f64::INFINITY
    }

    /// The term in its difference form ([`DifferenceEnergy`]), if it has one: the solver then
    /// takes its gradient and Hessian in that form.
    fn as_difference(&self) -> Option<&dyn DifferenceEnergy<D>> {
        None
    }
}

/// How a term's Hessian reaches the solver (see [`Energy::as_difference`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockForm {
    /// The full Dk × Dk block of every element ([`Energy::hessian`]).
    Full,
    /// The D × D block B of every two-node element whose full block is [[B, −B], [−B, B]]
    /// ([`DifferenceEnergy::difference_hessian`]).
    Difference,
}

/// A term of two-node elements, each depending on its nodes only through d = x_a − x_b (a
/// spring): its element gradient is [g, −g] and its element block [[B, −B], [−B, B]] with B
/// symmetric, so g and B carry all of it. The solver takes such a term in this form: g is added
/// to the node gradient with its sign ([`scatter_difference_gradient`]), and only B's D²
/// entries are written per element (instead of 4D²) and added into the matrix with their signs
/// (docs/benchmarks.md). Every value is the one the full form gives, bit for bit: g and B are
/// computed the same way, and adding −v is subtracting v. Implementations test that against
/// [`Energy::gradient`] and [`Energy::hessian`]. The two nodes of an element must differ.
pub trait DifferenceEnergy<const D: usize>: Energy<D> {
    /// w ∂Ψₑ/∂x_a of every element into `out[e]` (∂Ψₑ/∂x_b is its negative), N.
    fn difference_gradient(
        &self,
        x: &[Vector<D>],
        step: &StepState<D>,
        weight: f64,
        out: &mut [Vector<D>],
    );

    /// w B of every element, projected as [`Energy::hessian`] is configured, column-major
    /// into `out[D² e .. D² e + D²]`, N/m.
    fn difference_hessian(
        &self,
        x: &[Vector<D>],
        step: &StepState<D>,
        weight: f64,
        out: &mut [f64],
    );

    /// w B of every element projected to PSD (as [`Energy::psd_hessian`]), N/m.
    fn difference_psd_hessian(
        &self,
        x: &[Vector<D>],
        step: &StepState<D>,
        weight: f64,
        out: &mut [f64],
    );
}

/// Adds every element's gradient (`element_gradients`, as [`Energy::gradient`] wrote them) to
/// the gradient of its nodes, element by element in order.
pub fn scatter_gradient<const D: usize>(
    elements: Elements,
    element_gradients: &[Vector<D>],
    grad: &mut [Vector<D>],
) {
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
pub fn scatter_difference_gradient<const D: usize>(
    elements: Elements,
    g: &[Vector<D>],
    grad: &mut [Vector<D>],
) {
    let Elements::Tuples { k: 2, nodes } = elements else {
        panic!("a difference-form term has elements of two nodes");
    };
    for (pair, g) in nodes.chunks_exact(2).zip(g) {
        grad[pair[0]] += g;
        grad[pair[1]] += -g;
    }
}

/// Writes the D × D block `block` column-major into a single-node element's slot of a Hessian
/// buffer.
#[inline]
pub(crate) fn write_node_block<const D: usize>(block: &Matrix<D>, out: &mut [f64]) {
    out.copy_from_slice(block.as_slice());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::energy::Vec2;

    #[test]
    fn tuples_scatter_each_entry_to_its_node() {
        let nodes = [2, 0, 1, 2];
        let elements = Elements::Tuples {
            k: 2,
            nodes: &nodes,
        };
        assert_eq!(elements.len(), 2);
        assert_eq!(elements.node(1, 0), 1);
        assert_eq!(elements.hessian_len(2), 32);
        assert_eq!(elements.hessian_len(3), 72);
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
