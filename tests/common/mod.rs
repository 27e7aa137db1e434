//! Shared helpers of the impulse-law tests: the GPU (or a loud reason why not), random contacts,
//! and the named tolerances.
#![allow(dead_code)] // each test binary uses a different part

use std::sync::{Mutex, MutexGuard, OnceLock};

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use stickslip_sim::gpu::{self, GpuContext, GpuError, GpuKernel, KernelOptions};

/// Machine epsilon of binary32, ε₃₂ = 2⁻²³ (the seed's `EPS`).
pub const EPS32: f64 = f32::EPSILON as f64;

/// A GPU or window test that cannot run fails, so that cargo's summary shows it. Setting this
/// variable to 1 is the one way to skip such tests knowingly (with a notice on stderr); CI
/// (`.ci/run`) refuses to run with it set.
pub const ALLOW_SKIP_ENV: &str = "STICKSLIP_ALLOW_SKIP";

/// Whether the person running the tests has asked for tests without an adapter or display to
/// be skipped ([`ALLOW_SKIP_ENV`]`=1`).
pub fn skip_allowed() -> bool {
    std::env::var(ALLOW_SKIP_ENV).is_ok_and(|v| v.trim() == "1")
}

/// One context per test binary, made on first use; `Err` keeps the reason there is none.
fn context() -> &'static Result<GpuContext, String> {
    static CONTEXT: OnceLock<Result<GpuContext, String>> = OnceLock::new();
    CONTEXT.get_or_init(|| {
        let backends =
            gpu::backends_from_env(wgpu::Backends::PRIMARY).map_err(|e| e.to_string())?;
        GpuContext::try_new(backends).map_err(|e: GpuError| e.to_string())
    })
}

/// Holds the GPU for one test: llvmpipe runs on the same few cores as the tests, so GPU tests
/// take turns rather than thrash.
pub struct Gpu {
    pub kernel: GpuKernel,
    _turn: MutexGuard<'static, ()>,
}

/// The GPU kernel for `test`. A missing adapter fails the test (cargo's summary shows it),
/// unless `STICKSLIP_ALLOW_SKIP=1` asks for a skip: then `None` after a notice on stderr.
pub fn gpu(test: &str, options: KernelOptions) -> Option<Gpu> {
    static TURN: Mutex<()> = Mutex::new(());
    let turn = TURN.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    match context() {
        Ok(context) => {
            let kernel = GpuKernel::try_with_options(context, options)
                .unwrap_or_else(|e| panic!("{test}: the GPU kernel failed to build: {e}"));
            eprintln!("{test}: GPU kernel on {}", context.summary());
            Some(Gpu {
                kernel,
                _turn: turn,
            })
        }
        Err(reason) if !skip_allowed() => panic!(
            "{test}: no GPU adapter ({reason}): install one (Debian: mesa-vulkan-drivers gives \
             llvmpipe), or set {ALLOW_SKIP_ENV}=1 to skip the GPU tests knowingly"
        ),
        Err(reason) => {
            let notice = format!(
                "\n!!!!!!!! {test}: GPU PART SKIPPED ({ALLOW_SKIP_ENV}=1): no GPU adapter ({reason}).\n"
            );
            let _ = std::io::Write::write_all(&mut std::io::stderr(), notice.as_bytes());
            None
        }
    }
}

/// A standard normal deviate (Box–Muller; rand 0.10 has no normal distribution without
/// rand_distr).
pub fn normal(rng: &mut ChaCha8Rng) -> f64 {
    let u1 = 1.0 - rng.random::<f64>(); // (0, 1]
    let u2 = rng.random::<f64>();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// A unit vector uniform on the sphere: surfaces of every tilt.
pub fn unit(rng: &mut ChaCha8Rng) -> [f64; 3] {
    loop {
        let v = [normal(rng), normal(rng), normal(rng)];
        let norm = norm(v);
        if norm > 1e-6 {
            return v.map(|c| c / norm);
        }
    }
}

pub fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

pub fn norm(a: [f64; 3]) -> f64 {
    dot(a, a).sqrt()
}

pub fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

pub fn f64x3(v: [f32; 3]) -> [f64; 3] {
    v.map(f64::from)
}

pub fn f32x3(v: [f64; 3]) -> [f32; 3] {
    v.map(|c| c as f32)
}
