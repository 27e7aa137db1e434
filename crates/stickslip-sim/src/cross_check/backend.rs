//! What the impulse law runs on, seen from `contact/`: the description of a GPU adapter and
//! the error of a backend, neutral so that `contact/` does not depend on `gpu/` (which
//! implements [`crate::cross_check::impulse_law::ImpulseBackend`] and converts its own errors into
//! [`BackendError`]).

use std::fmt;

/// The adapter a context runs on, for the run summary (serialisable into the run's JSON).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct AdapterSummary {
    /// Adapter name as the driver reports it, e.g. `llvmpipe (LLVM 19.1.7, 256 bits)`.
    pub name: String,
    /// Backend, lower case: `vulkan`, `gl`, `metal`, `dx12`, ...
    pub backend: String,
    /// Device type, lower case: `discretegpu`, `integratedgpu`, `virtualgpu`, `cpu`, `other`.
    pub device_type: String,
    /// Driver name and version, as reported (may be empty).
    pub driver: String,
}

impl fmt::Display for AdapterSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} [{}, {}]", self.name, self.backend, self.device_type)
    }
}

/// An [`crate::cross_check::impulse_law::ImpulseBackend`] failed to apply the law.
#[derive(Debug, thiserror::Error)]
pub enum BackendError {
    /// The device running the law failed (for the GPU kernel: a `gpu::GpuError`, boxed so that
    /// `contact/` knows no GPU type).
    #[error(transparent)]
    Device(Box<dyn std::error::Error + Send + Sync>),
    /// A shared backend's lock was poisoned by a panic in another user.
    #[error("the impulse-law backend was poisoned by an earlier panic")]
    Poisoned,
    /// The backend returned another number of results than it was given contacts.
    #[error("the impulse-law backend returned {got} results for {expected} contacts")]
    WrongCount {
        /// Contacts given.
        expected: usize,
        /// Results returned.
        got: usize,
    },
}
