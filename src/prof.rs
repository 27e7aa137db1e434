//! throwaway phase timers
use std::sync::atomic::{AtomicU64, Ordering};
pub static T: [AtomicU64; 40] = [const { AtomicU64::new(0) }; 40];
pub static N: [AtomicU64; 40] = [const { AtomicU64::new(0) }; 40];
#[inline(always)]
pub fn now() -> u64 { unsafe { core::arch::x86_64::_rdtsc() } }
#[inline(always)]
pub fn add(i: usize, t0: u64) { T[i].fetch_add(now() - t0, Ordering::Relaxed); N[i].fetch_add(1, Ordering::Relaxed); }
pub fn dump() {
    let names = ["step_total","begin_step","energy0","assemble_grad","assemble_hess","system_assemble","factorize","solve","line_search","post","runner_rest","records","","","","","","","","","","","","","","","","","","","","","","","","","","","",""];
    for i in 0..40 { let n = N[i].load(Ordering::Relaxed); if n > 0 { eprintln!("{:16} {:8} calls {:10.1} cycles/call {:12} total", names[i], n, T[i].load(Ordering::Relaxed) as f64 / n as f64, T[i].load(Ordering::Relaxed)); } }
}
