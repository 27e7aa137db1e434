//! The impulse contact law's three proofs (SPEC.md §3; seeds 000 and 001), each held on the CPU
//! binary32 law and on the GPU shader.
//!
//! * **Curve**: balls dropped from 2 m on a floor of normal +z with e = 0.5, 0.7, 0.9; free flight
//!   worked out exactly in binary64 (hit at −√(2 g h), climb to v²/2g), the bounce the law's;
//!   after k bounces the height is 2·e^{2k} (e rounded to binary32) within a relative 64 ε₃₂, for
//!   8 bounces, and each bounce leaves x = y = 0 and z > 0.
//! * **Invariant**: 200 random contacts (seed 2) on surfaces of every tilt, each velocity into its
//!   surface, e and μ uniform in [0, 1]: normal part after = −e × before within 16 ε₃₂‖v‖;
//!   tangential speed after ≤ before (+ that scale); tangential direction never reversed; and
//!   three contacts already leaving returned bit for bit. Repeated on 100 000 contacts.
//! * **Limits** on a floor, exact in binary32 unless said.
//!
//! The GPU halves need an adapter: with none they fail, unless `STICKSLIP_ALLOW_SKIP=1` asks to
//! skip them knowingly (then they print a notice and return).

use crate::common;

use common::{EPS32, dot, f32x3, f64x3, norm};
use rand::RngExt;
use stickslip_sim::cross_check::impulse_law::{ContactInput, CpuLaw, ImpulseBackend};
use stickslip_sim::gpu::KernelOptions;

/// Standard gravity, m/s²: seed 000's `lusine.kernels._si.G0`, seed 001's `gravity = 9.80665`.
/// (The slope scene's 9.81 of SPEC.md §1 is another constant.)
const G0: f64 = 9.80665;

/// The curve's relative tolerance, the seed's `rtol = 64 * EPS`: each bounce rounds the impact
/// speed to binary32 and the product −e·v_n once more, ≈ 1 ulp in the speed and 2 in the height
/// a bounce, ≈ 16 ulps after 8 bounces; 64 leaves a factor 4.
const CURVE_RTOL: f64 = 64.0 * EPS32;

/// The invariant's scale factor, the seed's `16 * EPS * |v|`: v·n, v − v_n n, ‖v_t‖ and the
/// answer each round a few times at magnitude ‖v‖, a handful of ulps in all (more on a GPU
/// whose sqrt and division are 2.5-ulp operations); 16 leaves room without hiding a wrong law,
/// whose errors are O(‖v‖).
const INVARIANT_SCALE: f64 = 16.0 * EPS32;

/// The slowed slide's tolerance on x (SPEC.md §3: within 4 ε₃₂·3): 2.4 is not a binary32
/// number, and (3 − 0.6)·… rounds a couple of times at magnitude 3.
const SLOWED_TOL: f64 = 4.0 * EPS32 * 3.0;

const UP: [f32; 3] = [0.0, 0.0, 1.0];

fn run(backend: &mut dyn ImpulseBackend, inputs: &[ContactInput]) -> Vec<[f32; 3]> {
    let mut out = Vec::new();
    backend.apply(inputs, &mut out).expect("the law runs");
    assert_eq!(
        out.len(),
        inputs.len(),
        "{}: one answer per contact",
        backend.name()
    );
    out
}

fn curve(backend: &mut dyn ImpulseBackend) {
    let e = [0.5_f32, 0.7, 0.9];
    let mut h = [2.0_f64; 3];
    let mut heights = vec![h];
    for bounce in 0..8 {
        let inputs: Vec<_> = (0..3)
            .map(|i| {
                let v = -(2.0 * G0 * h[i]).sqrt();
                ContactInput::new([0.0, 0.0, v as f32], UP, e[i], 0.0)
            })
            .collect();
        let after = run(backend, &inputs);
        for (i, a) in after.iter().enumerate() {
            assert!(
                a[0] == 0.0 && a[1] == 0.0 && a[2] > 0.0,
                "{}: bounce {bounce}, e = {}: {a:?}",
                backend.name(),
                e[i]
            );
            h[i] = f64::from(a[2]).powi(2) / (2.0 * G0);
        }
        heights.push(h);
    }
    for (k, row) in heights.iter().enumerate() {
        for i in 0..3 {
            let want = 2.0 * f64::from(e[i]).powi(2 * k as i32);
            let got = row[i];
            assert!(
                (got - want).abs() <= CURVE_RTOL * want,
                "{}: e = {}, bounce {k}: height {got} m, want {want} m (rel. {:.2e} > {:.2e})",
                backend.name(),
                e[i],
                (got - want).abs() / want,
                CURVE_RTOL
            );
        }
    }
}

/// Random contacts as the seed makes them: n uniform on the sphere, v ~ 3·N(0, I) reflected into
/// its surface, e and μ uniform in [0, 1]. Returns the binary32 inputs.
fn random_contacts(seed: u64, count: usize) -> Vec<ContactInput> {
    let mut rng = common::rng(seed);
    (0..count)
        .map(|_| {
            let n = common::unit(&mut rng);
            let mut v = [0.0; 3].map(|_: f64| 3.0 * common::normal(&mut rng));
            let vn = dot(v, n);
            if vn > 0.0 {
                for k in 0..3 {
                    v[k] -= 2.0 * vn * n[k];
                }
            }
            let e: f64 = rng.random();
            let mu: f64 = rng.random();
            ContactInput::new(f32x3(v), f32x3(n), e as f32, mu as f32)
        })
        .collect()
}

fn invariant(backend: &mut dyn ImpulseBackend, seed: u64, count: usize) {
    let inputs = random_contacts(seed, count);
    let after = run(backend, &inputs);
    let mut slid = 0;
    let mut stopped = 0;
    for (c, a) in inputs.iter().zip(&after) {
        let (v, n, e) = (f64x3(c.velocity), f64x3(c.normal), f64::from(c.restitution));
        let a = f64x3(*a);
        let (vn, an) = (dot(v, n), dot(a, n));
        let vt = [0, 1, 2].map(|k| v[k] - vn * n[k]);
        let at = [0, 1, 2].map(|k| a[k] - an * n[k]);
        let scale = INVARIANT_SCALE * norm(v);
        let name = backend.name();
        assert!(vn < 0.0, "every generated contact approaches: {c:?}");
        assert!(
            (an + e * vn).abs() <= scale,
            "{name}: normal part after {an}, want −e·{vn} = {} within {scale:e}: {c:?}",
            -e * vn
        );
        assert!(
            norm(at) <= norm(vt) + scale,
            "{name}: slide after {} faster than before {}: {c:?}",
            norm(at),
            norm(vt)
        );
        assert!(
            dot(at, vt) >= -scale * norm(vt),
            "{name}: slide reversed: {c:?} → {a:?}"
        );
        if norm(at) > scale {
            slid += 1;
        } else {
            stopped += 1;
        }
    }
    // The sample must reach both branches, or the checks above prove little.
    assert!(
        slid > count / 10 && stopped > count / 10,
        "slid {slid}, stopped {stopped}"
    );

    let leave = [[1.0, 0.0, 2.0], [0.5, -3.0, 0.0], [-1.0, 2.0, 0.25]];
    let inputs: Vec<_> = leave
        .iter()
        .map(|v| ContactInput::new(*v, UP, 0.5, 0.5))
        .collect();
    let same = run(backend, &inputs);
    for (v, s) in leave.iter().zip(&same) {
        assert_eq!(
            s.map(f32::to_bits),
            v.map(f32::to_bits),
            "{}: a contact leaving must come back bit for bit",
            backend.name()
        );
    }
}

fn limits(backend: &mut dyn ImpulseBackend) {
    let cases = [
        ([1.5, 0.0, -2.0], 1.0, 0.0),
        ([1.5, 0.0, -2.0], 0.0, 0.0),
        ([1.5, 0.0, -2.0], 0.4, 0.0),
        ([3.0, 0.0, -2.0], 0.5, 0.2),
        ([0.5, 0.0, -2.0], 0.5, 0.5),
    ];
    let inputs: Vec<_> = cases
        .iter()
        .map(|(v, e, mu)| ContactInput::new(*v, UP, *e, *mu))
        .collect();
    let a = run(backend, &inputs);
    let name = backend.name();
    assert_eq!(a[0], [1.5, 0.0, 2.0], "{name}: elastic");
    assert_eq!(a[1], [1.5, 0.0, 0.0], "{name}: plastic");
    assert_eq!((a[2][0], a[2][1]), (1.5, 0.0), "{name}: frictionless");
    assert!(
        (f64::from(a[3][0]) - (3.0 - 0.2 * 1.5 * 2.0)).abs() <= SLOWED_TOL,
        "{name}: slowed slide x = {}",
        a[3][0]
    );
    assert_eq!(a[3][2], 1.0, "{name}: slowed slide z");
    assert_eq!(
        (a[4][0], a[4][2]),
        (0.0, 1.0),
        "{name}: stopped, never reversed"
    );
}

#[test]
fn curve_cpu() {
    curve(&mut CpuLaw::single_threaded());
}

#[test]
fn invariant_cpu() {
    invariant(&mut CpuLaw::single_threaded(), 2, 200);
    invariant(&mut CpuLaw::parallel(), 3, 100_000);
}

#[test]
fn limits_cpu() {
    limits(&mut CpuLaw::single_threaded());
}

#[test]
fn curve_gpu() {
    if let Some(mut gpu) = common::gpu("curve_gpu", KernelOptions::default()) {
        curve(&mut gpu.kernel);
    }
}

#[test]
fn invariant_gpu() {
    if let Some(mut gpu) = common::gpu("invariant_gpu", KernelOptions::default()) {
        invariant(&mut gpu.kernel, 2, 200);
        invariant(&mut gpu.kernel, 3, 100_000);
    }
}

#[test]
fn limits_gpu() {
    if let Some(mut gpu) = common::gpu("limits_gpu", KernelOptions::default()) {
        limits(&mut gpu.kernel);
    }
}

/// The proofs can fail: a law that forgets the restitution's sign breaks the curve, and one that
/// lets friction overshoot breaks the invariant.
#[test]
fn proofs_reject_a_wrong_law() {
    struct Wrong(fn(ContactInput) -> [f32; 3]);
    impl ImpulseBackend for Wrong {
        fn name(&self) -> String {
            "wrong law".to_owned()
        }
        fn apply(
            &mut self,
            inputs: &[ContactInput],
            out: &mut Vec<[f32; 3]>,
        ) -> Result<(), stickslip_sim::cross_check::backend::BackendError> {
            out.clear();
            out.extend(inputs.iter().map(|c| (self.0)(*c)));
            Ok(())
        }
    }
    let bounce_too_high = |c: ContactInput| {
        let r = c.resolve();
        [r[0], r[1], r[2] * (1.0 + 1e-5)]
    };
    let overshoot = |c: ContactInput| {
        // Friction past zero: the slide reversed.
        let r = ContactInput {
            friction: c.friction * 4.0 + 1.0,
            ..c
        };
        let v = c.velocity;
        let n = c.normal;
        let vn = v[0] * n[0] + v[1] * n[1] + v[2] * n[2];
        let vt = [0, 1, 2].map(|k| v[k] - vn * n[k]);
        let stopped = r.resolve();
        [0, 1, 2].map(|k| stopped[k] - 0.5 * vt[k])
    };
    let curve_failed = std::panic::catch_unwind(|| curve(&mut Wrong(bounce_too_high))).is_err();
    let invariant_failed =
        std::panic::catch_unwind(|| invariant(&mut Wrong(overshoot), 2, 200)).is_err();
    assert!(
        curve_failed,
        "the curve must catch a 1e-5 error in the bounce"
    );
    assert!(
        invariant_failed,
        "the invariant must catch a reversed slide"
    );
}
