//! A rigid ellipsoid (an American football) on SE(3) with impacts on a ground plane
//! (SPEC.md §5, seed 004).
//!
//! * [`se3`]: hat, exp with its Taylor branch, ad, the rotation logarithm.
//! * [`cg4`]: the 5-stage 4th-order Crouch–Grossman integrator.
//! * [`body`]: pose, state, mass properties and the left-trivialised dynamics.
//! * [`ellipsoid`]: the lowest point and the signed distance to the ground.
//! * [`events`]: bisection on the step length for the impact time.
//! * [`impact`]: K, the seed's model, finite-μ stick/slide, and the energy-safe model.
//! * [`case`]: case files of `kind = "rigid_ellipsoid"`.
//! * [`run`]: the simulation loop and the output files.

pub mod body;
pub mod case;
pub mod cg4;
pub mod ellipsoid;
pub mod events;
pub mod impact;
pub mod run;
pub mod se3;
