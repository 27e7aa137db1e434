//! A slope case's run (SPEC.md §1–§2): [`runner`] steps a [`crate::solver::Simulation`] for a
//! duration and keeps the trajectory, the solver totals and the contact records for the
//! cross-check; [`verdict`] says from the trajectory whether the square stopped, slid, tumbled or
//! never landed; [`multibody`] runs a scene of bodies (SPEC.md §7–8), and [`physical`] says whether its bodies
//! stayed physical (no element inverted, no penetration). The CLI (`stickslip::app`), the viewer (`stickslip::view`), both in the front-end crate, and the tests drive it.

pub mod multibody;
pub mod physical;
pub mod runner;
pub mod verdict;
