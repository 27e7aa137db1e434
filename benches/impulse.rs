//! Contacts per second through the impulse law (SPEC.md §3) on 10⁶ random contacts: the GPU
//! kernel (one upload, dispatch, read-back a batch; the adapter is named in the benchmark id),
//! the CPU law on one thread, and the CPU law on rayon's pool.
//!
//! `cargo bench --bench impulse -- --warm-up-time 1 --measurement-time 3`
//! `STICKSLIP_GPU_BACKENDS` picks the GPU backends (default: the primary ones); without an
//! adapter the GPU benchmark is skipped with a notice.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use stickslip::cross_check::impulse_law::{ContactInput, CpuLaw, ImpulseBackend};
use stickslip::gpu::{self, GpuContext, GpuKernel};

const CONTACTS: usize = 1_000_000;

fn unit(rng: &mut ChaCha8Rng) -> [f32; 3] {
    loop {
        let v: [f32; 3] = [0; 3].map(|_| rng.random_range(-1.0..1.0));
        let r = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        if r > 1e-3 && r <= 1.0 {
            return v.map(|c| c / r);
        }
    }
}

/// Every tilt, half approaching, speeds log-uniform in [10⁻⁶, 10³] m/s, e and μ in [0, 1].
fn inputs() -> Vec<ContactInput> {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    (0..CONTACTS)
        .map(|_| {
            let n = unit(&mut rng);
            let speed = 10f32.powf(rng.random_range(-6.0..3.0));
            let v = unit(&mut rng).map(|c| c * speed);
            ContactInput::new(v, n, rng.random(), rng.random())
        })
        .collect()
}

fn bench_impulse(c: &mut Criterion) {
    let inputs = inputs();
    let mut out = Vec::with_capacity(CONTACTS);
    let mut group = c.benchmark_group("impulse_law_1e6");
    group.throughput(Throughput::Elements(CONTACTS as u64));
    group.sample_size(10);

    let mut backends: Vec<(String, Box<dyn ImpulseBackend>)> = vec![
        (
            "cpu_1_thread".to_owned(),
            Box::new(CpuLaw::single_threaded()),
        ),
        (
            format!("cpu_rayon_{}_threads", rayon::current_num_threads()),
            Box::new(CpuLaw::parallel()),
        ),
    ];
    let gpu = gpu::backends_from_env(wgpu::Backends::PRIMARY)
        .and_then(GpuContext::try_new)
        .and_then(|context| GpuKernel::try_new(&context));
    match gpu {
        Ok(kernel) => {
            println!("impulse bench: GPU kernel on {}", kernel.summary());
            let name = kernel.summary().name.clone();
            let words: Vec<_> = name
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '.'))
                .filter(|w| !w.is_empty())
                .collect();
            let id = format!("gpu_{}", words.join("_"));
            backends.push((id, Box::new(kernel)));
        }
        Err(error) => println!("impulse bench: GPU kernel skipped: {error}"),
    }

    for (id, backend) in &mut backends {
        group.bench_function(id.as_str(), |b| {
            b.iter(|| {
                backend
                    .apply(black_box(&inputs), &mut out)
                    .expect("the law runs");
                black_box(&out);
            });
        });
    }
    group.finish();
}

criterion_group!(benches, bench_impulse);
criterion_main!(benches);
