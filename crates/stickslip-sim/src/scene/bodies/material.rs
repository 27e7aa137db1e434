//! What a body is made of (SPEC.md §7 bodies): the book's mass-spring, the stable neo-Hookean
//! FEM over the body's triangles (2D) or tetrahedra (3D). (An affine body, `material =
//! "affine"`, is a body type of its own: `affine_solid::AffineSolid`.)

use crate::energy::neo_hookean::Elasticity;

/// A body's elasticity (case key `material`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Material {
    /// `"mass_spring"`: a spring of stiffness `stiffness` (N/m) along every edge of the mesh
    /// (SPEC.md §2); masses as the generator spreads them.
    MassSpring {
        /// Spring stiffness of every edge, N/m.
        stiffness: f64,
    },
    /// `"neo_hookean"`: the stable neo-Hookean energy over every element
    /// (`energy::neo_hookean`), with Young's modulus and Poisson's ratio; masses lumped from
    /// the element areas (volumes) × density.
    NeoHookean(Elasticity),
}
