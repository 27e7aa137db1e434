//! The bounds and defaults every kind of case shares: how many steps, nodes, Newton iterations
//! and halvings a run may take, how far a body must start from what it rests on, and the
//! implicit lagging's defaults. Each kind's validation refuses a value past them (exit 2).

/// At most this many time steps a run (duration / h). A step of the book's 25-node square takes
/// about 20 µs, so 10⁷ steps are minutes of work and 800 MB of trajectory rows; far more is a
/// typing error (`h = 1e-12`), which would otherwise try to allocate the whole trajectory and
/// abort, or loop for centuries (`h = 1e-300`).
pub const MAX_STEPS: f64 = 1e7;

/// At most this many nodes, (n_seg + 1)², i.e. n_seg ≤ 999: a 2·10⁶-unknown sparse Cholesky
/// per Newton iteration, hours per simulated second; more is beyond what this solver is for.
pub const MAX_NODES: f64 = 1e6;

/// At most this many elements (tetrahedra or triangles) in one generated body mesh: the six
/// tetrahedra a cell of a [`MAX_NODES`]-node cuboid or ellipsoid has. With the node bound it
/// caps what a generator allocates, checked from the keys before it runs
/// (`mesh_rules::MeshSize`): about 32 B per tetrahedron and 250 B per node in the mesh, and
/// some 80 B per face while its rules are checked, under 2.5 GB at both bounds.
pub const MAX_ELEMENTS: f64 = 6e6;

/// The starting clearance every node must have from the slope, as a fraction of d̂.
///
/// Why: the barrier's curvature is A κ (d + d̂) / (2 d² d̂), growing as 1/d². At d = 10⁻³ d̂ it is
/// about 10⁶ times its value at d̂/2, which double precision still factorises next to the mass
/// term; at the d ≈ 10⁻¹⁷ m of a node placed exactly on the slope it is 10³⁰ times larger, the
/// Cholesky factorisation fails ("Hessian not positive definite") or the node is glued in
/// place. A body resting on the slope sits at a sizeable fraction of d̂ (the book's square at
/// ≈ 0.3 d̂), so no meaningful start is refused.
pub const MIN_START_CLEARANCE_OF_DHAT: f64 = 1e-3;

/// At most this many Newton iterations a step (`newton.max_iterations`): far above what any
/// case needs (SPEC.md §6: 175 in the worst step at n_seg = 16), so a larger bound only turns
/// a failing step into a hang.
pub const MAX_NEWTON_ITERATIONS: usize = 100_000;

/// At most this many line-search halvings (`newton.max_halvings`): α = 2⁻¹⁰⁷⁴ is the smallest
/// positive double, so further halvings only repeat α = 0.
pub const MAX_HALVINGS: usize = 1074;

/// Default of `friction.lagging_tol`: 1e-6 of the largest normal force.
pub const DEFAULT_LAGGING_TOL: f64 = 1e-6;
/// Default of `friction.max_lagging`.
pub const DEFAULT_MAX_LAGGING: usize = 20;
