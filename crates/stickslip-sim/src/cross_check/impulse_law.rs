//! The impulse contact law of SPEC.md §3 (seeds 000 and 001) on the CPU.
//!
//! Given a velocity v (m/s), the unit normal n out of the surface, the restitution e and the
//! friction coefficient μ (both dimensionless):
//!
//! ```text
//! v_n = v·n
//! if v_n ≥ 0: return v                      (leaving the surface: untouched, exactly)
//! v_t = v − v_n n;  j_n = −(1 + e) v_n;  s = ‖v_t‖
//! if s ≤ μ j_n: return −e v_n n              (the slide stopped, never reversed)
//! else:         return v_t (s − μ j_n)/s − e v_n n
//! ```
//!
//! [`contact_f32`] is the reference the GPU kernel (`shaders/contact.wgsl`) is held to: binary32,
//! v·n and ‖v_t‖ written component by component, every operation in the seed's order, so that a
//! GPU that neither fuses nor reorders gives the same bits. [`contact_f64`] is the same law in
//! binary64, for analysis.
//!
//! [`ImpulseBackend`] is what the cross-check (SPEC.md §4) runs the law through: [`CpuLaw`] here,
//! or the GPU kernel in [`crate::gpu`].

use bytemuck::{Pod, Zeroable};
use nalgebra::RealField;
use rayon::prelude::*;

use std::sync::{Arc, Mutex};

pub use crate::cross_check::backend::{AdapterSummary, BackendError};

/// The impulse contact law (SPEC.md §3), written once for binary32 and binary64: every
/// operation in seed 000's kernel order, v·n and ‖v_t‖ component by component, so that
/// [`contact_f32`] gives the same bits as a GPU that neither fuses nor reorders.
///
/// * `v`: velocity before the contact, m/s.
/// * `n`: unit normal out of the surface (dimensionless; not renormalised here).
/// * `restitution`: e ∈ [0, 1], dimensionless.
/// * `friction`: μ ≥ 0, dimensionless.
///
/// Returns the velocity after the contact, m/s. A velocity leaving the surface (v·n ≥ 0) is
/// returned bit for bit unchanged. The comparison `vn >= 0 * vn` is the seed's: it is `vn >= 0`
/// for every finite `vn`, and sends an infinite or NaN `vn` down the contact branch.
///
/// Pure: no I/O, no allocation.
#[inline]
pub fn contact<T: RealField + Copy>(v: [T; 3], n: [T; 3], restitution: T, friction: T) -> [T; 3] {
    let vn = v[0] * n[0] + v[1] * n[1] + v[2] * n[2];
    // The seed's `0.0 * vn` (not `0.0`), kept for its NaN/∞ behaviour.
    if vn >= T::zero() * vn {
        v
    } else {
        let vt = [v[0] - vn * n[0], v[1] - vn * n[1], v[2] - vn * n[2]];
        let jn = -(T::one() + restitution) * vn;
        let speed = (vt[0] * vt[0] + vt[1] * vt[1] + vt[2] * vt[2]).sqrt();
        if speed <= friction * jn {
            [
                -restitution * vn * n[0],
                -restitution * vn * n[1],
                -restitution * vn * n[2],
            ]
        } else {
            let scale = (speed - friction * jn) / speed;
            [
                vt[0] * scale - restitution * vn * n[0],
                vt[1] * scale - restitution * vn * n[1],
                vt[2] * scale - restitution * vn * n[2],
            ]
        }
    }
}

/// [`contact`] in binary32, as seed 000's kernel: the reference the GPU kernel
/// (`shaders/contact.wgsl`) is held to. Units as [`contact`].
#[inline]
pub fn contact_f32(v: [f32; 3], n: [f32; 3], restitution: f32, friction: f32) -> [f32; 3] {
    contact(v, n, restitution, friction)
}

/// [`contact`] in binary64, for analysis and for measuring the binary32 rounding. Units as
/// [`contact`].
#[inline]
pub fn contact_f64(v: [f64; 3], n: [f64; 3], restitution: f64, friction: f64) -> [f64; 3] {
    contact(v, n, restitution, friction)
}

/// One contact for the law, laid out for the GPU (SPEC.md §3).
///
/// `#[repr(C)]`, 32 bytes, matching WGSL's
/// `struct ContactInput { velocity: vec3<f32>, restitution: f32, normal: vec3<f32>, friction: f32 }`
/// (a `vec3<f32>` is 16-byte aligned and 12 bytes long, so each scalar fills the slot after its
/// vector; array stride 32). The layout is asserted at compile time below.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct ContactInput {
    /// Velocity before the contact, m/s.
    pub velocity: [f32; 3],
    /// Restitution e, dimensionless.
    pub restitution: f32,
    /// Unit normal out of the surface, dimensionless.
    pub normal: [f32; 3],
    /// Friction coefficient μ, dimensionless.
    pub friction: f32,
}

const _: () = {
    assert!(size_of::<ContactInput>() == 32);
    assert!(align_of::<ContactInput>() == 4);
    assert!(std::mem::offset_of!(ContactInput, velocity) == 0);
    assert!(std::mem::offset_of!(ContactInput, restitution) == 12);
    assert!(std::mem::offset_of!(ContactInput, normal) == 16);
    assert!(std::mem::offset_of!(ContactInput, friction) == 28);
};

impl ContactInput {
    /// A contact from its velocity (m/s), unit normal, restitution and friction coefficient.
    pub fn new(velocity: [f32; 3], normal: [f32; 3], restitution: f32, friction: f32) -> Self {
        Self {
            velocity,
            restitution,
            normal,
            friction,
        }
    }

    /// The velocity after the contact by [`contact_f32`], m/s.
    #[inline]
    pub fn resolve(&self) -> [f32; 3] {
        contact_f32(self.velocity, self.normal, self.restitution, self.friction)
    }
}

/// Something that applies the impulse law (SPEC.md §3) to a batch of contacts: the CPU law
/// ([`CpuLaw`]) or the GPU kernel ([`crate::gpu::GpuKernel`]).
///
/// `Send`, so a runner may move it to a worker thread.
pub trait ImpulseBackend: Send {
    /// What runs the law, for the run summary: e.g. `"cpu (f32 law, 1 thread)"` or
    /// `"gpu: llvmpipe (LLVM 19.1.7, 256 bits) [vulkan, cpu]"`.
    fn name(&self) -> String;

    /// The GPU adapter the law runs on, `None` on the CPU.
    fn adapter(&self) -> Option<AdapterSummary> {
        None
    }

    /// Applies the law to every input; on success `out` holds exactly `inputs.len()` velocities
    /// (m/s), `out[i]` the answer for `inputs[i]`. `out` is cleared first and its allocation
    /// reused.
    ///
    /// # Errors
    /// A GPU backend returns [`BackendError::Device`] when the device fails (validation,
    /// mapping, device lost); the CPU law never fails.
    fn apply(
        &mut self,
        inputs: &[ContactInput],
        out: &mut Vec<[f32; 3]>,
    ) -> Result<(), BackendError>;
}

/// The CPU law as an [`ImpulseBackend`]: [`contact_f32`] on every input, on one thread or spread
/// over rayon's pool. Both give the same bits (the law is per contact).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CpuLaw {
    /// Spread the batch over rayon's thread pool.
    pub parallel: bool,
}

impl CpuLaw {
    /// Batches at or below this many contacts run on one thread even when `parallel` is set:
    /// below it rayon's hand-off costs more than the law (≈ a few ns a contact).
    pub const PARALLEL_MIN: usize = 4096;

    /// The law on the calling thread only.
    pub fn single_threaded() -> Self {
        Self { parallel: false }
    }

    /// The law on rayon's thread pool.
    pub fn parallel() -> Self {
        Self { parallel: true }
    }
}

impl ImpulseBackend for CpuLaw {
    fn name(&self) -> String {
        if self.parallel {
            format!(
                "cpu (f32 law, rayon, {} threads)",
                rayon::current_num_threads()
            )
        } else {
            "cpu (f32 law, 1 thread)".to_owned()
        }
    }

    fn apply(
        &mut self,
        inputs: &[ContactInput],
        out: &mut Vec<[f32; 3]>,
    ) -> Result<(), BackendError> {
        out.clear();
        if self.parallel && inputs.len() > Self::PARALLEL_MIN {
            inputs
                .par_iter()
                .map(ContactInput::resolve)
                .collect_into_vec(out);
        } else {
            out.extend(inputs.iter().map(ContactInput::resolve));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const UP: [f32; 3] = [0.0, 0.0, 1.0];

    #[test]
    fn leaving_is_returned_bit_for_bit() {
        for v in [[1.0, 0.0, 2.0], [0.5, -3.0, 0.0], [-1.0, 2.0, 0.25]] {
            let after = contact_f32(v, UP, 0.5, 0.5);
            assert_eq!(after.map(f32::to_bits), v.map(f32::to_bits));
        }
        // v·n = −0.0 counts as leaving (−0 ≥ −0), and keeps its sign bits.
        let v = [-0.0, 1.0, -0.0];
        assert_eq!(
            contact_f32(v, UP, 1.0, 1.0).map(f32::to_bits),
            v.map(f32::to_bits)
        );
    }

    #[test]
    fn seed_limits_on_a_floor() {
        assert_eq!(contact_f32([1.5, 0.0, -2.0], UP, 1.0, 0.0), [1.5, 0.0, 2.0]);
        assert_eq!(contact_f32([1.5, 0.0, -2.0], UP, 0.0, 0.0), [1.5, 0.0, 0.0]);
        let smooth = contact_f32([1.5, 0.0, -2.0], UP, 0.4, 0.0);
        assert_eq!((smooth[0], smooth[1]), (1.5, 0.0));
        let slowed = contact_f32([3.0, 0.0, -2.0], UP, 0.5, 0.2);
        assert!((slowed[0] - 2.4).abs() <= 4.0 * f32::EPSILON * 3.0);
        assert_eq!(slowed[2], 1.0);
        let stopped = contact_f32([0.5, 0.0, -2.0], UP, 0.5, 0.5);
        assert_eq!((stopped[0], stopped[2]), (0.0, 1.0));
    }

    #[test]
    fn stick_with_zero_restitution_is_exactly_zero() {
        // The cross-check (SPEC.md §4) runs e = 0: the stick branch returns −0·v_n·n, a vector of
        // (signed) zeros, so "tangential part zero" is an exact test there.
        let n = [0.1_f32 / 1.01_f32.sqrt(), 1.0 / 1.01_f32.sqrt(), 0.0];
        let after = contact_f32([0.01, -0.5, 0.0], n, 0.0, 0.2);
        assert!(after.iter().all(|c| *c == 0.0), "{after:?}");
    }

    #[test]
    fn slide_reduced_by_mu_jn_never_reversed() {
        // Slide of 3 m/s, j_n = (1 + 0.5)·2 = 3, μ j_n = 0.3: 2.7 m/s left, same direction.
        let after = contact_f64([3.0, 0.0, -2.0], [0.0, 0.0, 1.0], 0.5, 0.1);
        assert!((after[0] - 2.7).abs() < 1e-15);
        assert_eq!(after[2], 1.0);
        // μ j_n larger than the slide: stopped at zero, not pushed back.
        let after = contact_f64([0.2, 0.0, -2.0], [0.0, 0.0, 1.0], 0.5, 0.1);
        assert_eq!(after[0], 0.0);
    }

    #[test]
    fn f32_and_f64_laws_agree_to_rounding() {
        // Tilted surface, both branches; binary32 result within a few roundings of binary64.
        let n = [0.6_f64, 0.0, 0.8];
        for (v, mu) in [([2.0, 1.0, -1.0], 0.1), ([0.1, 0.2, -3.0], 0.9)] {
            let a = contact_f64(v, n, 0.3, mu);
            let b = contact_f32(v.map(|c| c as f32), n.map(|c| c as f32), 0.3, mu as f32);
            let norm = v.iter().map(|c| c * c).sum::<f64>().sqrt();
            for k in 0..3 {
                assert!((a[k] - f64::from(b[k])).abs() <= 16.0 * f64::from(f32::EPSILON) * norm);
            }
        }
    }

    #[test]
    fn cpu_backends_agree_bit_for_bit() {
        let inputs: Vec<ContactInput> = (0..10_000)
            .map(|i| {
                let a = i as f32 * 0.37;
                ContactInput::new(
                    [a.sin() * 3.0, a.cos(), -(a * 1.3).sin().abs() - 0.1],
                    UP,
                    (a * 0.1).fract(),
                    (a * 0.7).fract(),
                )
            })
            .collect();
        let (mut one, mut many) = (Vec::new(), Vec::new());
        CpuLaw::single_threaded().apply(&inputs, &mut one).unwrap();
        CpuLaw::parallel().apply(&inputs, &mut many).unwrap();
        assert_eq!(one.len(), inputs.len());
        let bits = |v: &Vec<[f32; 3]>| v.iter().map(|c| c.map(f32::to_bits)).collect::<Vec<_>>();
        assert_eq!(bits(&one), bits(&many));
    }
}

/// One backend shared by several users, e.g. the cross-checks of every case of a process, so
/// that one GPU context serves them all. Cloning shares the same backend.
#[derive(Clone)]
pub struct SharedBackend(pub Arc<Mutex<Box<dyn ImpulseBackend>>>);

impl SharedBackend {
    /// Shares `backend`.
    pub fn new(backend: Box<dyn ImpulseBackend>) -> Self {
        Self(Arc::new(Mutex::new(backend)))
    }
}

impl ImpulseBackend for SharedBackend {
    fn name(&self) -> String {
        self.0
            .lock()
            .map(|b| b.name())
            .unwrap_or_else(|_| "poisoned".into())
    }
    fn adapter(&self) -> Option<AdapterSummary> {
        self.0.lock().ok().and_then(|b| b.adapter())
    }
    fn apply(
        &mut self,
        inputs: &[ContactInput],
        out: &mut Vec<[f32; 3]>,
    ) -> Result<(), BackendError> {
        match self.0.lock() {
            Ok(mut b) => b.apply(inputs, out),
            Err(_) => Err(BackendError::Poisoned),
        }
    }
}
