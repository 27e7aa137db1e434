//! Shared helpers of the impulse-law tests: the GPU (or a loud reason why not), random contacts,
//! and the named tolerances.
#![allow(dead_code)] // each test binary uses a different part

use std::sync::{Mutex, MutexGuard, OnceLock};

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use stickslip::gpu::{self, GpuContext, GpuError, GpuKernel, KernelOptions};

/// Machine epsilon of binary32, ε₃₂ = 2⁻²³ (the seed's `EPS`).
pub const EPS32: f64 = f32::EPSILON as f64;

/// Set to 1 (as CI does) to make a missing GPU adapter fail the GPU tests instead of skipping.
pub const REQUIRE_GPU_ENV: &str = "STICKSLIP_REQUIRE_GPU";

fn require_gpu() -> bool {
    std::env::var(REQUIRE_GPU_ENV).is_ok_and(|v| v.trim() == "1")
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

/// The GPU kernel for `test`, or `None` after a loud notice when there is no adapter. With
/// `STICKSLIP_REQUIRE_GPU=1` a missing adapter panics: never a silent skip in CI.
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
        Err(reason) if require_gpu() => {
            panic!("{test}: {REQUIRE_GPU_ENV}=1 but there is no GPU adapter: {reason}")
        }
        Err(reason) => {
            eprintln!(
                "\n!!!!!!!! {test}: GPU PART NOT RUN: no GPU adapter ({reason}).\n\
                 !!!!!!!! Set {REQUIRE_GPU_ENV}=1 to make this a failure.\n"
            );
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
