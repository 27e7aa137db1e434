//! The wgpu context and the impulse-law compute kernel (SPEC.md §3, run for §4's cross-check).
//!
//! * [`GpuContext`]: one headless adapter, device and queue, made once.
//! * [`GpuKernel`]: the compute pipeline of `shaders/contact.wgsl` on an injected context, with
//!   its buffers kept and grown only when a batch needs more; an [`ImpulseBackend`].
//! * [`GpuMode`] and [`select_impulse_backend`]: the `--gpu auto|on|off` choice between the
//!   kernel and the CPU law ([`CpuLaw`]).
//!
//! # Choosing the backends
//!
//! Every constructor takes a [`wgpu::Backends`] mask. [`backends_from_env`] reads it from the
//! environment variable [`BACKENDS_ENV`] (`STICKSLIP_GPU_BACKENDS`): a comma list of `vulkan`
//! (`vk`), `gl` (`gles`, `opengl`), `metal` (`mtl`), `dx12` (`d3d12`), `webgpu`, `primary`,
//! `secondary`, or one of `all` and `none`; case and spaces ignored. `none` (or an empty value)
//! finds no adapter, which is how a machine without a GPU is simulated. Unset, the caller's
//! default applies. wgpu's own `WGPU_BACKEND` is not read.

mod context;
mod kernel;

use std::fmt;

pub use crate::cross_check::backend::AdapterSummary;
pub use context::GpuContext;
pub use kernel::{BatchStats, GpuKernel, KernelOptions, WORKGROUP_SIZE};

use crate::cross_check::impulse_law::{CpuLaw, ImpulseBackend};

/// The environment variable that overrides the backend mask: see the [module docs](self).
pub const BACKENDS_ENV: &str = "STICKSLIP_GPU_BACKENDS";

/// Errors at the GPU edge: finding an adapter, making the device and the kernel, running a batch.
#[derive(Debug, thiserror::Error)]
pub enum GpuError {
    /// No adapter matched the backend mask.
    #[error(
        "no GPU adapter found for backends [{}]{}: install a GPU driver (on Debian, \
         mesa-vulkan-drivers gives a software Vulkan adapter), choose other backends with \
         {BACKENDS_ENV}=vulkan|gl|all, or run the impulse law on the CPU (--gpu off)",
        backends_label(*.backends),
        reason_suffix(.reason)
    )]
    NoAdapter {
        /// The mask that was searched.
        backends: wgpu::Backends,
        /// What wgpu said, if it said anything.
        reason: String,
    },
    /// The adapter exists but refused to make a device.
    #[error("the GPU adapter {adapter} could not make a device: {source}")]
    RequestDevice {
        /// Adapter name and backend.
        adapter: String,
        /// wgpu's error.
        #[source]
        source: wgpu::RequestDeviceError,
    },
    /// wgpu rejected an operation (shader, pipeline, buffer, dispatch): a bug or a device limit.
    #[error("the GPU rejected the impulse kernel while {stage}: {message}")]
    Device {
        /// What was being done, e.g. "building the pipeline".
        stage: &'static str,
        /// wgpu's message.
        message: String,
    },
    /// Waiting for the GPU to finish failed.
    #[error("waiting for the GPU failed: {0}")]
    Poll(#[from] wgpu::PollError),
    /// Mapping the read-back buffer failed.
    #[error("reading the impulse kernel's results back from the GPU failed: {0}")]
    ReadBack(String),
    /// [`BACKENDS_ENV`] names no backend this crate knows.
    #[error(
        "{BACKENDS_ENV}={value:?} is not a backend list: use a comma list of vulkan, gl, metal, \
         dx12, webgpu, primary, secondary, or one of all, none"
    )]
    BadBackends {
        /// The variable's value.
        value: String,
    },
}

impl From<GpuError> for crate::cross_check::backend::BackendError {
    /// A GPU failure, as the neutral error of an impulse-law backend.
    fn from(e: GpuError) -> Self {
        crate::cross_check::backend::BackendError::Device(Box::new(e))
    }
}

fn reason_suffix(reason: &str) -> String {
    if reason.is_empty() {
        String::new()
    } else {
        format!(" ({reason})")
    }
}

/// The backends of a mask as a lower-case comma list, `none` for the empty mask.
pub fn backends_label(backends: wgpu::Backends) -> String {
    if backends.is_empty() {
        return "none".to_owned();
    }
    backends
        .iter_names()
        .map(|(name, _)| name.to_lowercase())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Parses a backend list in [`BACKENDS_ENV`]'s syntax (see the [module docs](self)).
///
/// # Errors
/// [`GpuError::BadBackends`] for a name it does not know.
pub fn parse_backends(value: &str) -> Result<wgpu::Backends, GpuError> {
    let mut backends = wgpu::Backends::empty();
    for word in value.split(',').map(|w| w.trim().to_lowercase()) {
        backends |= match word.as_str() {
            "" | "none" => wgpu::Backends::empty(),
            "all" => wgpu::Backends::all(),
            "primary" => wgpu::Backends::PRIMARY,
            "secondary" => wgpu::Backends::SECONDARY,
            "vulkan" | "vk" => wgpu::Backends::VULKAN,
            "gl" | "gles" | "opengl" => wgpu::Backends::GL,
            "metal" | "mtl" => wgpu::Backends::METAL,
            "dx12" | "d3d12" => wgpu::Backends::DX12,
            "webgpu" => wgpu::Backends::BROWSER_WEBGPU,
            _ => {
                return Err(GpuError::BadBackends {
                    value: value.to_owned(),
                });
            }
        };
    }
    Ok(backends)
}

/// The backend mask: [`BACKENDS_ENV`] if set, else `default`.
///
/// # Errors
/// [`GpuError::BadBackends`] when the variable is set to something [`parse_backends`] rejects.
pub fn backends_from_env(default: wgpu::Backends) -> Result<wgpu::Backends, GpuError> {
    match std::env::var(BACKENDS_ENV) {
        Ok(value) => parse_backends(&value),
        Err(_) => Ok(default),
    }
}

/// Keeps Mesa's Vulkan device-selection layer from printing `error: XDG_RUNTIME_DIR is invalid
/// or not set in the environment.` (twice) on a headless machine.
///
/// The source: wgpu enables every window-system instance extension the driver offers,
/// `VK_KHR_wayland_surface` among them, even for a headless instance. Mesa's implicit layer
/// `VK_LAYER_MESA_device_select` sees that extension and, to order the GPUs by the one driving
/// the Wayland compositor, calls `wl_display_connect` when the adapters are enumerated;
/// libwayland prints that line when `XDG_RUNTIME_DIR` is unusable. Without a usable
/// `XDG_RUNTIME_DIR` there is no compositor to connect to and the layer has nothing to select
/// by, so this sets Mesa's documented switch `NODEVICE_SELECT=1`, which skips the layer: only
/// then, and only when the user has not set it. wgpu then orders the adapters itself.
///
/// # Safety
/// Sets an environment variable: call it while the process has a single thread (first thing
/// in `main`).
pub unsafe fn quiet_headless_vulkan_probe() {
    let runtime_dir_usable = std::env::var_os("XDG_RUNTIME_DIR").is_some_and(|d| {
        std::path::Path::new(&d).is_absolute() && std::path::Path::new(&d).is_dir()
    });
    if !runtime_dir_usable && std::env::var_os("NODEVICE_SELECT").is_none() {
        // SAFETY: the caller guarantees no other thread reads or writes the environment.
        unsafe { std::env::set_var("NODEVICE_SELECT", "1") };
    }
}

/// Where the impulse law runs (the `--gpu` option).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum GpuMode {
    /// The GPU kernel if an adapter exists, else the CPU law with a one-line notice on stderr.
    #[default]
    Auto,
    /// The GPU kernel; no adapter is an error.
    On,
    /// The CPU law.
    Off,
}

impl fmt::Display for GpuMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Auto => "auto",
            Self::On => "on",
            Self::Off => "off",
        })
    }
}

/// The impulse-law backend for a [`GpuMode`] and a backend mask.
///
/// * `Off`: the CPU law ([`CpuLaw::parallel`]).
/// * `On`: a [`GpuKernel`] on a new [`GpuContext`]; its errors are returned.
/// * `Auto`: as `On`, but any [`GpuError`] (no adapter, no device) gives the CPU law and one line
///   on stderr saying why.
///
/// The returned backend's [`ImpulseBackend::name`] and [`ImpulseBackend::adapter`] say which was
/// chosen, for the run summary. The mask is used as given: apply [`backends_from_env`] first to
/// honour [`BACKENDS_ENV`].
///
/// # Errors
/// In `On` mode, [`GpuError::NoAdapter`] when the mask finds no adapter, or the error that
/// stopped the device or the kernel.
pub fn select_impulse_backend(
    mode: GpuMode,
    backends: wgpu::Backends,
) -> Result<Box<dyn ImpulseBackend>, GpuError> {
    let gpu = || -> Result<Box<dyn ImpulseBackend>, GpuError> {
        let context = GpuContext::try_new(backends)?;
        Ok(Box::new(GpuKernel::try_new(&context)?))
    };
    match mode {
        GpuMode::Off => Ok(Box::new(CpuLaw::parallel())),
        GpuMode::On => gpu(),
        GpuMode::Auto => match gpu() {
            Ok(kernel) => Ok(kernel),
            Err(error) => {
                eprintln!("stickslip: impulse law on the CPU (--gpu auto): {error}");
                Ok(Box::new(CpuLaw::parallel()))
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backend_lists_parse() {
        use wgpu::Backends as B;
        assert_eq!(parse_backends("vulkan").unwrap(), B::VULKAN);
        assert_eq!(parse_backends(" Vulkan , GL ").unwrap(), B::VULKAN | B::GL);
        assert_eq!(parse_backends("all").unwrap(), B::all());
        assert_eq!(parse_backends("none").unwrap(), B::empty());
        assert_eq!(parse_backends("").unwrap(), B::empty());
        let err = parse_backends("vulkan,cuda").unwrap_err();
        assert!(matches!(err, GpuError::BadBackends { .. }));
        assert!(
            err.to_string()
                .contains("STICKSLIP_GPU_BACKENDS=\"vulkan,cuda\"")
        );
    }

    #[test]
    fn no_adapter_message_names_the_mask_and_the_ways_out() {
        let err = GpuError::NoAdapter {
            backends: wgpu::Backends::VULKAN | wgpu::Backends::GL,
            reason: String::new(),
        };
        let text = err.to_string();
        assert!(text.contains("[vulkan, gl]"), "{text}");
        assert!(text.contains("--gpu off"), "{text}");
        assert!(text.contains(BACKENDS_ENV), "{text}");
        assert_eq!(backends_label(wgpu::Backends::empty()), "none");
    }

    #[test]
    fn off_is_the_cpu_law() {
        let backend = select_impulse_backend(GpuMode::Off, wgpu::Backends::all()).unwrap();
        assert!(backend.name().starts_with("cpu"));
        assert!(backend.adapter().is_none());
    }
}
