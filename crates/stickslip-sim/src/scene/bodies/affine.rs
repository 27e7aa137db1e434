//! An affine body (ABD, Lan et al. 2022, on the core of SPEC.md §7): a tetrahedral mesh whose
//! every point moves with one affine map x = p + A (X − c), twelve degrees of freedom in all,
//! for a body stiff enough to be taken as rigid.
//!
//! The twelve degrees of freedom are four *control nodes* of the state vector, the corners of
//! a control tetrahedron about the centroid c: a point X of the body sits at Σⱼ wⱼ(X) xⱼ with
//! its affine coordinates w(X) in that tetrahedron (summing to 1, of either sign). The mesh's
//! own nodes are not in the state vector: its boundary nodes are contact vertices embedded in
//! the control nodes (`contact::candidates::embedded_plane_vertex`), and the rest of the code
//! places them with [`AffineBody::place`].
//!
//! *Inertia, exactly.* The kinetic energy of an affine motion, ½ ∫ ρ |ṗ + Ȧ (X − c)|² dV =
//! ½ m |ṗ|² + ½ tr(Ȧ J Ȧᵀ), depends on the body only through its mass m and its second moment
//! J = ∫ ρ (X − c)(X − c)ᵀ dV about the centroid. Four lumped masses m/4 at the corners of a
//! regular tetrahedron (circumradius 1, corners Yᵢ with Σ Yᵢ = 0 and Σ Yᵢ Yᵢᵀ = 4/3 I) mapped
//! by Q diag(√(3 jₖ/m)), J = Q diag(jₖ) Qᵀ, have exactly that mass, centroid and second moment:
//! Σ (m/4) Q S Yᵢ Yᵢᵀ S Qᵀ = (m/3) Q S² Qᵀ = J. So the core's lumped inertia and gravity over
//! the four control nodes are the body's exact ones, and m and J are integrated exactly over
//! the mesh's tetrahedra (∫_T X Xᵀ dV = V/20 (Σᵢ xᵢxᵢᵀ + s sᵀ), s = Σᵢ xᵢ).
//!
//! *Elasticity.* A = the control tetrahedron's deformation gradient, the same for every point;
//! the body's elastic energy is ABD's orthogonality potential κ V ‖AᵀA − I‖²_F
//! (`energy::orthogonality`, one element standing for the body's volume V): zero for every
//! rotation, growing with any strain, so a stiff κ keeps A a rotation.

use std::ops::Range;

use nalgebra::{Matrix3, Rotation3, SymmetricEigen};

use super::tet_mesh::TetMesh;
use crate::contact::EmbeddedVertices;
use crate::energy::orthogonality::Orthogonality;
use crate::energy::{Projection, Vec3};
use crate::solver::SystemBuilder;

/// A regular tetrahedron of circumradius 1 about the origin, in positive order.
const REGULAR: [[f64; 3]; 4] = [
    [0.942_809_041_582_063_4, 0.0, -1.0 / 3.0],
    [-0.471_404_520_791_031_7, 0.816_496_580_927_726, -1.0 / 3.0],
    [-0.471_404_520_791_031_7, -0.816_496_580_927_726, -1.0 / 3.0],
    [0.0, 0.0, 1.0],
];

/// A tetrahedral mesh taken as an affine body.
#[derive(Clone, Debug)]
pub struct AffineBody {
    /// The control nodes at t = 0, m, in positive order.
    pub control: [Vec3; 4],
    /// The body's mass m, kg (a quarter on each control node).
    pub mass: f64,
    /// Its volume V, m³.
    pub volume: f64,
    /// Its centroid c at t = 0, m.
    pub centroid: Vec3,
    /// Its second moment J about c, kg m².
    pub second_moment: Matrix3<f64>,
    /// The weights of every mesh node over the control nodes (dimensionless, summing to 1).
    pub weights: Vec<[f64; 4]>,
}

impl AffineBody {
    /// `mesh` (at its position at t = 0, with its lumped masses: a uniform density) as an
    /// affine body. A checked mesh has positive volume, so J is positive definite.
    pub fn new(mesh: &TetMesh) -> AffineBody {
        let mass: f64 = mesh.mass.iter().sum();
        let volume = mesh.volume();
        let density = mass / volume;
        let centroid = super::tet_mesh::centroid(mesh);
        let mut second_moment = Matrix3::zeros();
        for t in &mesh.tets {
            let x: Vec<Vec3> = t.iter().map(|&n| mesh.x0[n] - centroid).collect();
            let v = super::mesh_rules::tet_volume(&mesh.x0, t);
            let s: Vec3 = x.iter().sum();
            let mut m = s * s.transpose();
            for xi in &x {
                m += xi * xi.transpose();
            }
            second_moment += m * (density * v / 20.0);
        }
        Self::with_moments(mesh, mass, volume, centroid, second_moment)
    }

    /// `mesh`, generated for an ellipsoid of semi-axes `axes` (m, its local x, y, z) turned by
    /// `rotation` about `centre` (m), as an affine body of the ellipsoid's own mass
    /// m = ρ 4/3 π abc (ρ = `density`, kg/m³) and second moment R (m/5) diag(a², b², c²) Rᵀ
    /// about its centre (the mesh's faceted surface holds less).
    pub fn ellipsoid(
        mesh: &TetMesh,
        axes: Vec3,
        density: f64,
        centre: Vec3,
        rotation: &Rotation3<f64>,
    ) -> AffineBody {
        let volume = 4.0 / 3.0 * std::f64::consts::PI * axes.x * axes.y * axes.z;
        let mass = density * volume;
        let local = Matrix3::from_diagonal(&axes.component_mul(&axes)) * (mass / 5.0);
        let r = rotation.matrix();
        Self::with_moments(mesh, mass, volume, centre, r * local * r.transpose())
    }

    /// `mesh` as an affine body of the given mass (kg), volume (m³), centroid (m) and second
    /// moment about it (kg m²) instead of its tetrahedra's: for a shape whose mesh only
    /// approximates it (an ellipsoid's faceted mesh holds less than the ellipsoid), the shape's
    /// own, so that the body tumbles as the shape does; the mesh then gives only the contact
    /// vertices. `second_moment` must be positive definite.
    pub fn with_moments(
        mesh: &TetMesh,
        mass: f64,
        volume: f64,
        centroid: Vec3,
        second_moment: Matrix3<f64>,
    ) -> AffineBody {
        let eigen = SymmetricEigen::new(second_moment);
        let stretch = eigen.eigenvalues.map(|j| (3.0 * j.max(0.0) / mass).sqrt());
        let mut control =
            REGULAR.map(|y| centroid + eigen.eigenvectors * Vec3::from(y).component_mul(&stretch));
        if orient(&control) < 0.0 {
            control.swap(1, 2);
        }
        let dm = Matrix3::from_columns(&[
            control[1] - control[0],
            control[2] - control[0],
            control[3] - control[0],
        ]);
        let inverse = dm
            .try_inverse()
            .expect("a body of positive volume has a control tetrahedron of positive volume");
        let weights = mesh
            .x0
            .iter()
            .map(|x| {
                let w = inverse * (x - control[0]);
                [1.0 - w.sum(), w.x, w.y, w.z]
            })
            .collect();
        AffineBody {
            control,
            mass,
            volume,
            centroid,
            second_moment,
            weights,
        }
    }

    /// The mesh's nodes placed by the control nodes `control` (m) into `out` (cleared first).
    pub fn place(&self, control: &[Vec3], out: &mut Vec<Vec3>) {
        out.clear();
        out.extend(self.weights.iter().map(|w| {
            control[0] * w[0] + control[1] * w[1] + control[2] * w[2] + control[3] * w[3]
        }));
    }

    /// Adds the body to `builder`: its four control nodes (mass m/4 each) moving with velocity
    /// `velocity` (m/s) and angular velocity `spin` (rad/s) about the centroid, its
    /// orthogonality potential of stiffness `stiffness` (κ, Pa) with Hessian `projection`, and
    /// `mesh`'s boundary nodes with their contact areas (m²) as vertices of body `body`
    /// embedded in the control nodes. Returns the control nodes' indices in the state vector.
    #[allow(clippy::too_many_arguments)]
    pub fn add_to(
        &self,
        mesh: &TetMesh,
        builder: &mut SystemBuilder<3>,
        velocity: Vec3,
        spin: Vec3,
        stiffness: f64,
        projection: Projection,
        body: usize,
        vertices: &mut EmbeddedVertices,
    ) -> Range<usize> {
        let velocities = self
            .control
            .map(|x| velocity + spin.cross(&(x - self.centroid)));
        let nodes = builder.add_nodes(&self.control, &velocities, &[self.mass / 4.0; 4]);
        let offset = nodes.start;
        let control = [offset, offset + 1, offset + 2, offset + 3];
        let term = Orthogonality::<3>::new(
            control.to_vec(),
            builder.positions(),
            vec![stiffness * self.volume],
            projection,
        )
        .expect("the control tetrahedron is positive");
        builder.add_potential(Box::new(term));
        for (i, &area) in mesh.contact_area.iter().enumerate() {
            if area > 0.0 {
                vertices.push(control, self.weights[i], area, body);
            }
        }
        nodes
    }
}

impl AffineBody {
    /// Whether the control nodes `control` (m) are inverted or flat: then so is every
    /// tetrahedron of the mesh, which shares their one map.
    pub fn inverted(&self, control: &[Vec3]) -> bool {
        orient(&[control[0], control[1], control[2], control[3]]) <= 0.0
    }
}

/// Six times the signed volume of the tetrahedron `x`, m³.
fn orient(x: &[Vec3; 4]) -> f64 {
    (x[1] - x[0]).dot(&(x[2] - x[0]).cross(&(x[3] - x[0])))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A box 0.4 × 0.2 × 0.1 m of 2 × 2 × 1 cells, turned, of density 500 kg/m³.
    fn turned_box() -> TetMesh {
        let rotation = Rotation3::new(Vec3::new(0.3, -0.5, 0.9));
        crate::scene::bodies::cuboid::cuboid(
            Vec3::new(0.4, 0.2, 0.1),
            [2, 2, 1],
            Vec3::new(1.0, 2.0, 3.0),
            &rotation,
            500.0,
        )
        .unwrap()
    }

    /// The control nodes carry the box's mass, centroid and second moment exactly: checked
    /// against the cuboid's closed form m/12 (b² + c²) … turned, and the four lumped masses'
    /// own sums; the regular tetrahedron's constants are what the construction needs.
    #[test]
    fn the_control_nodes_carry_the_bodys_exact_inertia() {
        let mut s = Matrix3::zeros();
        let mut sum = Vec3::zeros();
        for y in REGULAR {
            let y = Vec3::from(y);
            assert!((y.norm() - 1.0).abs() < 1e-15);
            s += y * y.transpose();
            sum += y;
        }
        assert!((s - Matrix3::identity() * (4.0 / 3.0)).amax() < 1e-15);
        assert!(sum.amax() < 1e-15);
        let mesh = turned_box();
        let body = AffineBody::new(&mesh);
        let m = 500.0 * 0.4 * 0.2 * 0.1;
        assert!((body.mass - m).abs() < 1e-12 * m);
        let rotation = Rotation3::new(Vec3::new(0.3, -0.5, 0.9));
        let local = Matrix3::from_diagonal(&Vec3::new(0.16, 0.04, 0.01)) * (m / 12.0);
        let exact = rotation.matrix() * local * rotation.matrix().transpose();
        assert!((body.second_moment - exact).amax() < 1e-12 * exact.amax());
        let (mut c, mut j) = (Vec3::zeros(), Matrix3::zeros());
        for x in &body.control {
            c += x * (m / 4.0);
        }
        c /= m;
        for x in &body.control {
            let r = x - c;
            j += r * r.transpose() * (m / 4.0);
        }
        assert!((c - Vec3::new(1.0, 2.0, 3.0)).amax() < 1e-12);
        assert!((j - exact).amax() < 1e-12 * exact.amax());
        assert!(orient(&body.control) > 0.0);
    }

    /// The weights place every mesh node back at rest, and under a rigid motion of the control
    /// nodes move it rigidly (the distance between any two nodes kept).
    #[test]
    fn the_weights_place_the_mesh() {
        let mesh = turned_box();
        let body = AffineBody::new(&mesh);
        let mut placed = Vec::new();
        body.place(&body.control, &mut placed);
        for (a, b) in placed.iter().zip(&mesh.x0) {
            assert!((a - b).norm() < 1e-12);
        }
        for w in &body.weights {
            assert!((w.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        }
        let turn = Rotation3::new(Vec3::new(-1.0, 0.4, 2.0));
        let moved = body.control.map(|x| turn * x + Vec3::new(0.5, -1.0, 2.0));
        body.place(&moved, &mut placed);
        for i in 0..mesh.len() {
            for j in 0..mesh.len() {
                let (a, b) = (
                    (placed[i] - placed[j]).norm(),
                    (mesh.x0[i] - mesh.x0[j]).norm(),
                );
                assert!((a - b).abs() < 1e-12, "{i} {j}");
            }
        }
    }

    /// An ellipsoid's own second moment, turned, against its fine mesh's integrated over the
    /// tetrahedra (independently of the closed form): the mesh's faceted surface holds a
    /// fraction d of the volume less, all of it just inside the surface, where each (X − c)ₖ² is
    /// at most aₖ², five times its mean aₖ²/5 over the ellipsoid; so the moments differ by at
    /// most 5 d of the largest, and by far more if the turn were applied the wrong way (the
    /// axes' moments differ by up to a factor of 4).
    #[test]
    fn an_ellipsoid_carries_its_own_turned_second_moment() {
        let axes = Vec3::new(0.14, 0.085, 0.07);
        let rotation = Rotation3::new(Vec3::new(0.4, -0.9, 0.3));
        let centre = Vec3::new(1.0, -2.0, 0.5);
        let mesh =
            crate::scene::bodies::ellipsoid::ellipsoid(axes, 16, centre, &rotation, 96.76).unwrap();
        let exact = AffineBody::ellipsoid(&mesh, axes, 96.76, centre, &rotation);
        let meshed = AffineBody::new(&mesh);
        let deficit = 1.0 - meshed.volume / exact.volume;
        assert!(deficit > 0.0 && deficit < 0.02, "{deficit}");
        let err = (exact.second_moment - meshed.second_moment).amax();
        assert!(
            err <= 5.0 * deficit * exact.second_moment.amax(),
            "{err:e} against {:e} (deficit {deficit})",
            exact.second_moment.amax()
        );
        let unturned = Matrix3::from_diagonal(&axes.component_mul(&axes)) * (exact.mass / 5.0);
        assert!((unturned - meshed.second_moment).amax() > 10.0 * err);
        assert!((exact.centroid - meshed.centroid).norm() < 1e-12);
    }
}
