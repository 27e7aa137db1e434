//! Contact records: what the runner keeps of every node in the friction set at every step.

/// One contact-node-step, as SPEC.md §4 defines it. All velocities in m/s, 2D (the slope scene);
/// the impulse law lifts them to 3D with z = 0.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactRecord {
    /// Index of the time step (0 = the step from t = 0 to t = h).
    pub step: u32,
    /// Node index in the mesh.
    pub node: u32,
    /// Time at the end of the step, s.
    pub time: f64,
    /// Contact-free velocity v_free = v^{n+1} − h (f_barrier + f_friction)/m, m/s.
    pub v_free: [f64; 2],
    /// Unit normal of the slope, out of the surface.
    pub normal: [f64; 2],
    /// Restitution (0 for the cross-check).
    pub restitution: f64,
    /// Friction coefficient μ.
    pub friction: f64,
    /// The optimiser's velocity v^{n+1}, m/s.
    pub v_opt: [f64; 2],
}
