//! One headless wgpu adapter, device and queue (no window, no surface), made once and shared by
//! the kernels built on it.

use super::GpuError;
use crate::cross_check::backend::AdapterSummary;

/// A headless GPU: adapter, device and queue. Make it once ([`GpuContext::try_new`]) and build
/// kernels on it ([`super::GpuKernel::try_new`]); the device and queue are reference-counted
/// handles, so kernels keep them alive.
#[derive(Debug)]
pub struct GpuContext {
    adapter: wgpu::Adapter,
    device: wgpu::Device,
    queue: wgpu::Queue,
    summary: AdapterSummary,
}

impl GpuContext {
    /// The best adapter (high-performance preference) among `backends`, and a device on it
    /// with the adapter's own limits (so large batches fit in one binding). Blocks.
    ///
    /// # Errors
    /// [`GpuError::NoAdapter`] when the mask finds nothing (always for an empty mask);
    /// [`GpuError::RequestDevice`] when the adapter refuses a device.
    pub fn try_new(backends: wgpu::Backends) -> Result<Self, GpuError> {
        pollster::block_on(Self::try_new_async(backends))
    }

    /// [`GpuContext::try_new`] as a future.
    ///
    /// # Errors
    /// As [`GpuContext::try_new`].
    pub async fn try_new_async(backends: wgpu::Backends) -> Result<Self, GpuError> {
        if backends.is_empty() {
            return Err(GpuError::NoAdapter {
                backends,
                reason: "the backend mask is empty".to_owned(),
            });
        }
        let mut descriptor = wgpu::InstanceDescriptor::new_without_display_handle();
        descriptor.backends = backends;
        let instance = wgpu::Instance::new(descriptor);
        let adapter = instance
            .request_adapter(&wgpu::RequestAdapterOptions {
                power_preference: wgpu::PowerPreference::HighPerformance,
                force_fallback_adapter: false,
                compatible_surface: None,
                apply_limit_buckets: false,
            })
            .await
            .map_err(|e| GpuError::NoAdapter {
                backends,
                reason: e.to_string(),
            })?;
        let summary = summary_of(&adapter.get_info());
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("stickslip device"),
                required_features: wgpu::Features::empty(),
                required_limits: adapter.limits(),
                experimental_features: wgpu::ExperimentalFeatures::disabled(),
                memory_hints: wgpu::MemoryHints::Performance,
                trace: wgpu::Trace::Off,
            })
            .await
            .map_err(|source| GpuError::RequestDevice {
                adapter: summary.to_string(),
                source,
            })?;
        Ok(Self {
            adapter,
            device,
            queue,
            summary,
        })
    }

    /// The adapter, for what the device can do.
    pub fn adapter(&self) -> &wgpu::Adapter {
        &self.adapter
    }

    /// The device.
    pub fn device(&self) -> &wgpu::Device {
        &self.device
    }

    /// The queue.
    pub fn queue(&self) -> &wgpu::Queue {
        &self.queue
    }

    /// Adapter name, backend and type, for the run summary.
    pub fn summary(&self) -> &AdapterSummary {
        &self.summary
    }
}

/// The [`AdapterSummary`] of a wgpu adapter.
fn summary_of(info: &wgpu::AdapterInfo) -> AdapterSummary {
    let driver = match (info.driver.is_empty(), info.driver_info.is_empty()) {
        (false, false) => format!("{} {}", info.driver, info.driver_info),
        (false, true) => info.driver.clone(),
        (true, _) => info.driver_info.clone(),
    };
    AdapterSummary {
        name: info.name.clone(),
        backend: info.backend.to_str().to_owned(),
        device_type: format!("{:?}", info.device_type).to_lowercase(),
        driver,
    }
}
