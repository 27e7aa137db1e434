//! The squared distance along a normal, f = (a·n)²/(n·n) with n = u × v, with its gradient and
//! Hessian over (a, u, v) ∈ ℝ⁹ (SPEC.md §7). It is both 3D distances between bodies where the
//! closest points are interior: a point from a triangle's plane (a = p − t₀, u = t₁ − t₀,
//! v = t₂ − t₀) and two lines (a = a₀ − b₀, u = a₁ − a₀, v = b₁ − b₀).
//!
//! With s = a·n = a·(u × v) (the triple product) and q = n·n = ‖u‖²‖v‖² − (u·v)²:
//! ∇s = (u × v, v × a, a × u) over (a, u, v); its Hessian has zero diagonal blocks and
//! ∂²s/∂a∂u = −\[v\]ₓ, ∂²s/∂a∂v = \[u\]ₓ, ∂²s/∂u∂v = −\[a\]ₓ (\[w\]ₓ x = w × x; the lower blocks
//! their transposes). ∇q = (0, 2‖v‖² u − 2(u·v) v, 2‖u‖² v − 2(u·v) u), ∂²q/∂u² =
//! 2‖v‖² I − 2 v vᵀ, ∂²q/∂v² = 2‖u‖² I − 2 u uᵀ, ∂²q/∂u∂v = 4 u vᵀ − 2 v uᵀ − 2(u·v) I. Then
//! ∇f = (2s/q) ∇s − (s²/q²) ∇q and
//! ∇²f = (2/q) ∇s∇sᵀ + (2s/q) ∇²s − (2s/q²)(∇s∇qᵀ + ∇q∇sᵀ) + (2s²/q³) ∇q∇qᵀ − (s²/q²) ∇²q.

use nalgebra::{Matrix3, SMatrix, SVector, Vector3};

/// f, ∇f and ∇²f over (a, u, v).
pub struct SquaredDistance {
    /// f, m².
    pub value: f64,
    /// ∂f/∂(a, u, v), m.
    pub gradient: SVector<f64, 9>,
    /// ∂²f/∂(a, u, v)², dimensionless.
    pub hessian: SMatrix<f64, 9, 9>,
}

fn cross_matrix(w: &Vector3<f64>) -> Matrix3<f64> {
    w.cross_matrix()
}

fn put_block(m: &mut SMatrix<f64, 9, 9>, i: usize, j: usize, b: &Matrix3<f64>) {
    m.fixed_view_mut::<3, 3>(3 * i, 3 * j).copy_from(b);
}

fn put_vector(g: &mut SVector<f64, 9>, i: usize, b: &Vector3<f64>) {
    g.fixed_rows_mut::<3>(3 * i).copy_from(b);
}

/// q = ‖u × v‖², m⁴ (for edges), with its gradient and Hessian over (a, u, v) (zero over a).
pub fn cross_norm_squared(
    u: &Vector3<f64>,
    v: &Vector3<f64>,
) -> (f64, SVector<f64, 9>, SMatrix<f64, 9, 9>) {
    let (uu, vv, uv) = (u.norm_squared(), v.norm_squared(), u.dot(v));
    let id = Matrix3::identity();
    let mut g = SVector::<f64, 9>::zeros();
    put_vector(&mut g, 1, &(u * (2.0 * vv) - v * (2.0 * uv)));
    put_vector(&mut g, 2, &(v * (2.0 * uu) - u * (2.0 * uv)));
    let mut h = SMatrix::<f64, 9, 9>::zeros();
    let huv = u * v.transpose() * 4.0 - v * u.transpose() * 2.0 - id * (2.0 * uv);
    put_block(&mut h, 1, 1, &(id * (2.0 * vv) - v * v.transpose() * 2.0));
    put_block(&mut h, 2, 2, &(id * (2.0 * uu) - u * u.transpose() * 2.0));
    put_block(&mut h, 1, 2, &huv);
    put_block(&mut h, 2, 1, &huv.transpose());
    (uu * vv - uv * uv, g, h)
}

/// f = (a·(u × v))²/‖u × v‖² with its derivatives; u × v must not vanish.
pub fn squared(a: &Vector3<f64>, u: &Vector3<f64>, v: &Vector3<f64>) -> SquaredDistance {
    let n = u.cross(v);
    let s = a.dot(&n);
    let (q, gq, hq) = cross_norm_squared(u, v);
    let mut gs = SVector::<f64, 9>::zeros();
    put_vector(&mut gs, 0, &n);
    put_vector(&mut gs, 1, &v.cross(a));
    put_vector(&mut gs, 2, &a.cross(u));
    let mut hs = SMatrix::<f64, 9, 9>::zeros();
    let (cu, cv, ca) = (cross_matrix(u), cross_matrix(v), cross_matrix(a));
    put_block(&mut hs, 0, 1, &(-cv));
    put_block(&mut hs, 1, 0, &(-cv).transpose());
    put_block(&mut hs, 0, 2, &cu);
    put_block(&mut hs, 2, 0, &cu.transpose());
    put_block(&mut hs, 1, 2, &(-ca));
    put_block(&mut hs, 2, 1, &(-ca).transpose());
    let gradient = gs * (2.0 * s / q) - gq * (s * s / (q * q));
    let cross_terms = gs * gq.transpose() + gq * gs.transpose();
    let hessian = gs * gs.transpose() * (2.0 / q) + hs * (2.0 * s / q)
        - cross_terms * (2.0 * s / (q * q))
        + gq * gq.transpose() * (2.0 * s * s / (q * q * q))
        - hq * (s * s / (q * q));
    SquaredDistance {
        value: s * s / q,
        gradient,
        hessian,
    }
}

/// Carries derivatives over (a, u, v) to four nodes: `map[k][i]` is node i's coefficient in
/// variable k (a, u, v are each a signed sum of nodes). Returns ∇ over the nodes and the
/// Hessian, 12 × 12.
pub fn to_nodes(
    map: &[[f64; 4]; 3],
    gradient: &SVector<f64, 9>,
    hessian: &SMatrix<f64, 9, 9>,
) -> ([Vector3<f64>; 4], SMatrix<f64, 12, 12>) {
    let mut j = SMatrix::<f64, 9, 12>::zeros();
    for (k, row) in map.iter().enumerate() {
        for (i, &c) in row.iter().enumerate() {
            if c != 0.0 {
                j.fixed_view_mut::<3, 3>(3 * k, 3 * i)
                    .copy_from(&(Matrix3::identity() * c));
            }
        }
    }
    let g = j.transpose() * gradient;
    let h = j.transpose() * hessian * j;
    let nodes = std::array::from_fn(|i| g.fixed_rows::<3>(3 * i).into_owned());
    (nodes, h)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(x: &SVector<f64, 9>) -> SquaredDistance {
        let a = x.fixed_rows::<3>(0).into_owned();
        let u = x.fixed_rows::<3>(3).into_owned();
        let v = x.fixed_rows::<3>(6).into_owned();
        squared(&a, &u, &v)
    }

    /// The gradient and Hessian against central differences of f and of the gradient, at a
    /// generic point; and f against the distance of a from the plane spanned by u and v.
    #[test]
    fn derivatives_match_finite_differences() {
        let x = SVector::<f64, 9>::from_column_slice(&[
            0.3, -0.2, 0.7, 1.1, 0.2, -0.1, 0.15, 0.9, 0.25,
        ]);
        let f = at(&x);
        let (a, u, v) = (
            x.fixed_rows::<3>(0).into_owned(),
            x.fixed_rows::<3>(3).into_owned(),
            x.fixed_rows::<3>(6).into_owned(),
        );
        let n = u.cross(&v).normalize();
        assert!((f.value - a.dot(&n).powi(2)).abs() < 1e-15);
        let h = 1e-6;
        for i in 0..9 {
            let mut xp = x;
            let mut xm = x;
            xp[i] += h;
            xm[i] -= h;
            let (fp, fm) = (at(&xp), at(&xm));
            let dg = (fp.value - fm.value) / (2.0 * h);
            assert!(
                (dg - f.gradient[i]).abs() < 1e-8,
                "df/dx{i}: {dg} vs {}",
                f.gradient[i]
            );
            for j in 0..9 {
                let dh = (fp.gradient[j] - fm.gradient[j]) / (2.0 * h);
                assert!(
                    (dh - f.hessian[(j, i)]).abs() < 1e-7,
                    "d2f/dx{j}dx{i}: {dh} vs {}",
                    f.hessian[(j, i)]
                );
            }
        }
    }
}
