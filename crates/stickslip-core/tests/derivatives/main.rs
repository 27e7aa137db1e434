//! Every term of E through the one [`Energy`] trait, by one harness, in D = 2 and D = 3: the
//! gradient it scatters against central finite differences of its value, and the Hessian its
//! element blocks sum to (unprojected) against central finite differences of that gradient
//! (SPEC.md §2, §7), at configurations that exercise every regime: springs stretched and
//! compressed, the book's and IPC's barrier inside and outside d̂ (node × half-space, and a
//! curved point–point pair written here to reach the barrier's general path), friction
//! sticking (below ε_v), in the static-to-kinetic transition and slipping. The same harness
//! checks that value, gradient and Hessian scale alike with the weight, and that the projected
//! Hessians the solver uses are PSD and equal the exact ones where those are PSD already. And
//! the gradient and Hessian a `Simulation` assembles for its linear solve (the sum of the terms,
//! over the free degrees of freedom), against finite differences of the E its line search uses:
//! the book's square on the slope in 2D, a tetrahedron on a plane with a driven node in 3D.
//!
//! One binary of the core crate (it links neither wgpu nor macroquad): `terms` (every term and
//! the 3D assembled system), `friction` (smoothed friction's static-to-kinetic blend), over the
//! one `harness`.

mod friction;
mod harness;
mod terms;
