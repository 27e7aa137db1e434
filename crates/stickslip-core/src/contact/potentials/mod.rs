//! The contact potentials (SPEC.md §2, §6, §7), each written once over
//! [`crate::contact::ContactPair`] and each an [`crate::energy::Energy`] the solver sums and
//! assembles like any other term:
//!
//! * [`barrier`]: Σ A_k b(d_k) over the candidates, with the book's C¹ kernel or IPC's C²
//!   ([`crate::contact::barrier`]); its elements are the collisions active at the last update;
//! * [`friction`]: Σ μλ_k f₀(‖u_k‖) over the tangential collisions, the static-to-kinetic blend
//!   and the line search's stick-zone filter;
//! * [`normal_damping`]: Σ β_c k_k s_k²/(2h), the barrier's stiffness-proportional damping along
//!   each pair's normal (case key `barrier.damping`; absent when β_c = 0).

pub mod barrier;
pub mod friction;
pub mod normal_damping;
