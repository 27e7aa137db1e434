//! The impulse law (SPEC.md §3) as a wgpu compute kernel: `shaders/contact.wgsl`, one
//! invocation per contact.
//!
//! A batch is one upload, one submission holding one dispatch (or as many as the per-dispatch
//! workgroup cap needs), and one read-back. Each dispatch reads its first index (`base`) from a
//! uniform bound at a dynamic offset, so the dispatches of a batch share one bind group and one
//! submission. A batch larger than one storage binding can hold is split into several such
//! submissions. Buffers are kept between batches and grown only when a batch needs more.

use std::sync::mpsc;

use bytemuck::{Pod, Zeroable};

use super::{AdapterSummary, GpuContext, GpuError};
use crate::cross_check::backend::BackendError;
use crate::cross_check::impulse_law::{ContactInput, ImpulseBackend};

/// Invocations per workgroup; must equal `WORKGROUP_SIZE` in `shaders/contact.wgsl`.
pub const WORKGROUP_SIZE: u32 = 64;

const SHADER: &str = include_str!("../../../../shaders/contact.wgsl");

/// One result slot: WGSL `vec4<f32>`, xyz the velocity after (m/s), w written 0.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
struct OutputSlot {
    velocity: [f32; 3],
    w: f32,
}

/// One dispatch's parameters: WGSL `struct Params { base: u32, count: u32, _pad0, _pad1 }`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
struct DispatchParams {
    /// Index of the dispatch's first contact in the submission.
    base: u32,
    /// Contacts in the submission (the shader's bounds check).
    count: u32,
    pad: [u32; 2],
}

const INPUT_SIZE: u64 = size_of::<ContactInput>() as u64;
const OUTPUT_SIZE: u64 = size_of::<OutputSlot>() as u64;
const PARAMS_SIZE: u64 = size_of::<DispatchParams>() as u64;

const _: () = {
    assert!(INPUT_SIZE == 32);
    assert!(OUTPUT_SIZE == 16);
    assert!(PARAMS_SIZE == 16);
};

/// Limits on how a batch is cut, injectable so tests reach the multi-dispatch and
/// multi-submission paths with small batches. `None` keeps the device's own limit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KernelOptions {
    /// Most workgroups in one dispatch; capped by the device's
    /// `max_compute_workgroups_per_dimension` (at least 1).
    pub max_workgroups_per_dispatch: Option<u32>,
    /// Most contacts in one submission (one upload, dispatches, one read-back); capped by what
    /// one storage binding and one buffer can hold, and by [`GpuKernel::DEFAULT_SUBMISSION`]
    /// to bound GPU memory (at least [`WORKGROUP_SIZE`]).
    pub max_records_per_submission: Option<usize>,
}

/// How the last batch ran, for tests and profiling.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BatchStats {
    /// Contacts in the batch.
    pub records: usize,
    /// Submissions (upload, dispatches, read-back) it took.
    pub submissions: usize,
    /// Compute dispatches it took, over all submissions.
    pub dispatches: usize,
}

struct Buffers {
    /// Contacts the input and output buffers hold.
    records: usize,
    /// Dispatch parameter slots the params buffer holds.
    dispatches: usize,
    input: wgpu::Buffer,
    output: wgpu::Buffer,
    readback: wgpu::Buffer,
    params: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
}

/// The impulse law on the GPU, built on an injected [`GpuContext`].
pub struct GpuKernel {
    device: wgpu::Device,
    queue: wgpu::Queue,
    summary: AdapterSummary,
    layout: wgpu::BindGroupLayout,
    pipeline: wgpu::ComputePipeline,
    buffers: Option<Buffers>,
    /// Bytes between dispatch parameter slots (the uniform dynamic-offset alignment).
    params_stride: u64,
    workgroups_per_dispatch: u32,
    records_per_submission: usize,
    poison: Option<u32>,
    last: BatchStats,
    params_bytes: Vec<u8>,
}

impl std::fmt::Debug for GpuKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuKernel")
            .field("adapter", &self.summary)
            .field("workgroups_per_dispatch", &self.workgroups_per_dispatch)
            .field("records_per_submission", &self.records_per_submission)
            .field("capacity", &self.buffers.as_ref().map(|b| b.records))
            .finish_non_exhaustive()
    }
}

/// Runs `f` inside validation and out-of-memory error scopes and turns a captured error into
/// [`GpuError::Device`].
fn scoped<T>(
    device: &wgpu::Device,
    stage: &'static str,
    f: impl FnOnce() -> T,
) -> Result<T, GpuError> {
    let memory = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
    let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let value = f();
    let validation = pollster::block_on(validation.pop());
    let memory = pollster::block_on(memory.pop());
    match validation.or(memory) {
        None => Ok(value),
        Some(error) => Err(GpuError::Device {
            stage,
            message: error.to_string(),
        }),
    }
}

impl GpuKernel {
    /// Default and upper cap of contacts per submission: 2²² (4 Mi) contacts, 128 MiB of input,
    /// 64 MiB of output and 64 MiB of read-back.
    pub const DEFAULT_SUBMISSION: usize = 1 << 22;

    /// The kernel on `context`'s device with the device's own limits.
    ///
    /// # Errors
    /// [`GpuError::Device`] if the device rejects the shader or the pipeline.
    pub fn try_new(context: &GpuContext) -> Result<Self, GpuError> {
        Self::try_with_options(context, KernelOptions::default())
    }

    /// The kernel on `context`'s device, cut as `options` says.
    ///
    /// # Errors
    /// [`GpuError::Device`] if the device rejects the shader or the pipeline.
    pub fn try_with_options(
        context: &GpuContext,
        options: KernelOptions,
    ) -> Result<Self, GpuError> {
        let device = context.device().clone();
        let (layout, pipeline) = scoped(&device, "building the pipeline", || {
            let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some("contact.wgsl"),
                source: wgpu::ShaderSource::Wgsl(SHADER.into()),
            });
            let storage = |binding, read_only| wgpu::BindGroupLayoutEntry {
                binding,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Storage { read_only },
                    has_dynamic_offset: false,
                    min_binding_size: wgpu::BufferSize::new(if read_only {
                        INPUT_SIZE
                    } else {
                        OUTPUT_SIZE
                    }),
                },
                count: None,
            };
            let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some("contact bind group layout"),
                entries: &[
                    storage(0, true),
                    storage(1, false),
                    wgpu::BindGroupLayoutEntry {
                        binding: 2,
                        visibility: wgpu::ShaderStages::COMPUTE,
                        ty: wgpu::BindingType::Buffer {
                            ty: wgpu::BufferBindingType::Uniform,
                            has_dynamic_offset: true,
                            min_binding_size: wgpu::BufferSize::new(PARAMS_SIZE),
                        },
                        count: None,
                    },
                ],
            });
            let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("contact pipeline layout"),
                bind_group_layouts: &[Some(&layout)],
                immediate_size: 0,
            });
            let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some("contact pipeline"),
                layout: Some(&pipeline_layout),
                module: &module,
                entry_point: Some("main"),
                compilation_options: Default::default(),
                cache: None,
            });
            (layout, pipeline)
        })?;

        let limits = device.limits();
        let device_workgroups = limits.max_compute_workgroups_per_dimension.max(1);
        let workgroups_per_dispatch = options
            .max_workgroups_per_dispatch
            .map_or(device_workgroups, |cap| cap.clamp(1, device_workgroups));
        let binding_records = limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size)
            / INPUT_SIZE;
        let device_records = usize::try_from(binding_records)
            .unwrap_or(usize::MAX)
            .min(Self::DEFAULT_SUBMISSION);
        // Whole workgroups, so a submission's last dispatch never runs past the buffers.
        let workgroup = WORKGROUP_SIZE as usize;
        let records_per_submission = options
            .max_records_per_submission
            .map_or(device_records, |cap| cap.min(device_records))
            .max(workgroup)
            / workgroup
            * workgroup;
        let params_stride = u64::from(limits.min_uniform_buffer_offset_alignment).max(PARAMS_SIZE);

        Ok(Self {
            device,
            queue: context.queue().clone(),
            summary: context.summary().clone(),
            layout,
            pipeline,
            buffers: None,
            params_stride,
            workgroups_per_dispatch,
            records_per_submission,
            poison: None,
            last: BatchStats::default(),
            params_bytes: Vec::new(),
        })
    }

    /// The adapter the kernel runs on.
    pub fn summary(&self) -> &AdapterSummary {
        &self.summary
    }

    /// Workgroups per dispatch in use (the device limit or the injected cap).
    pub fn workgroups_per_dispatch(&self) -> u32 {
        self.workgroups_per_dispatch
    }

    /// Contacts per submission in use.
    pub fn records_per_submission(&self) -> usize {
        self.records_per_submission
    }

    /// Sets (or clears) the per-dispatch workgroup cap; see [`KernelOptions`].
    pub fn set_max_workgroups_per_dispatch(&mut self, cap: Option<u32>) {
        let device = self
            .device
            .limits()
            .max_compute_workgroups_per_dimension
            .max(1);
        self.workgroups_per_dispatch = cap.map_or(device, |c| c.clamp(1, device));
    }

    /// Test hook: with `Some(bits)`, every output slot a submission covers is filled with `bits`
    /// (e.g. a NaN payload) before the dispatches, so a slot the shader failed to write reads
    /// back as that pattern. `None` (the default) skips the fill.
    pub fn set_output_poison(&mut self, bits: Option<u32>) {
        self.poison = bits;
    }

    /// How the last batch ran.
    pub fn last_batch(&self) -> BatchStats {
        self.last
    }

    /// Test hook: the first `slots` output slots of the GPU output buffer as raw bits
    /// (x, y, z, w), e.g. to see that the slots past the record count were left alone (the
    /// bounds check). `slots` is cut to the buffer's capacity.
    ///
    /// # Errors
    /// As [`ImpulseBackend::apply`].
    pub fn read_output_slots(&mut self, slots: usize) -> Result<Vec<[u32; 4]>, GpuError> {
        let Some(buffers) = &self.buffers else {
            return Ok(Vec::new());
        };
        let slots = slots.min(buffers.records);
        if slots == 0 {
            return Ok(Vec::new());
        }
        let bytes = slots as u64 * OUTPUT_SIZE;
        let mut encoder = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("contact output inspection"),
            });
        encoder.copy_buffer_to_buffer(&buffers.output, 0, &buffers.readback, 0, bytes);
        scoped(&self.device, "inspecting the output buffer", || {
            self.queue.submit([encoder.finish()]);
        })?;
        let mut raw = Vec::with_capacity(slots);
        read_back(&self.device, &buffers.readback, bytes, |slot| {
            raw.push(bytemuck::cast(slot));
        })?;
        Ok(raw)
    }

    /// Makes sure the buffers hold `records` contacts and `dispatches` parameter slots, growing
    /// them (to at least double) only when they do not.
    fn reserve(&mut self, records: usize, dispatches: usize) {
        let (old_records, old_dispatches) = self
            .buffers
            .as_ref()
            .map_or((0, 0), |b| (b.records, b.dispatches));
        if records <= old_records && dispatches <= old_dispatches {
            return;
        }
        let grow = |need: usize, old: usize, cap: usize| {
            if need <= old {
                old
            } else {
                need.max(old.saturating_mul(2)).min(cap.max(need))
            }
        };
        // Whole workgroups, so the slots past the count that a last workgroup covers exist
        // (the shader's bounds check leaves them alone).
        let records = records.next_multiple_of(WORKGROUP_SIZE as usize).max(1);
        let records = grow(records, old_records, self.records_per_submission);
        let dispatches = grow(dispatches.max(1), old_dispatches, usize::MAX);
        let buffer = |label, size: u64, usage| {
            self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size,
                usage,
                mapped_at_creation: false,
            })
        };
        use wgpu::BufferUsages as U;
        let records64 = records as u64;
        let input = buffer(
            "contact inputs",
            records64 * INPUT_SIZE,
            U::STORAGE | U::COPY_DST,
        );
        let output = buffer(
            "contact outputs",
            records64 * OUTPUT_SIZE,
            U::STORAGE | U::COPY_SRC | U::COPY_DST,
        );
        let readback = buffer(
            "contact read-back",
            records64 * OUTPUT_SIZE,
            U::MAP_READ | U::COPY_DST,
        );
        let params = buffer(
            "contact dispatch params",
            dispatches as u64 * self.params_stride,
            U::UNIFORM | U::COPY_DST,
        );
        let bind_group = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("contact bind group"),
            layout: &self.layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: input.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: output.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer: &params,
                        offset: 0,
                        size: wgpu::BufferSize::new(PARAMS_SIZE),
                    }),
                },
            ],
        });
        self.buffers = Some(Buffers {
            records,
            dispatches,
            input,
            output,
            readback,
            params,
            bind_group,
        });
    }

    /// One submission: upload `inputs`, run the dispatches, read the results onto `out`.
    fn submit(
        &mut self,
        inputs: &[ContactInput],
        out: &mut Vec<[f32; 3]>,
    ) -> Result<usize, GpuError> {
        let count = inputs.len();
        let workgroups = count.div_ceil(WORKGROUP_SIZE as usize);
        let per_dispatch = self.workgroups_per_dispatch as usize;
        let dispatches = workgroups.div_ceil(per_dispatch);
        self.reserve(count, dispatches);

        // Parameters for every dispatch, each at its own aligned slot.
        let stride = self.params_stride as usize;
        self.params_bytes.clear();
        self.params_bytes.resize(dispatches * stride, 0);
        for d in 0..dispatches {
            let params = DispatchParams {
                base: (d * per_dispatch * WORKGROUP_SIZE as usize) as u32,
                count: count as u32,
                pad: [0; 2],
            };
            self.params_bytes[d * stride..d * stride + PARAMS_SIZE as usize]
                .copy_from_slice(bytemuck::bytes_of(&params));
        }

        let buffers = self.buffers.as_ref().ok_or(GpuError::Device {
            stage: "running a batch",
            message: "no buffers were made".to_owned(),
        })?;
        let out_bytes = count as u64 * OUTPUT_SIZE;
        scoped(&self.device, "running a batch", || {
            self.queue
                .write_buffer(&buffers.input, 0, bytemuck::cast_slice(inputs));
            self.queue
                .write_buffer(&buffers.params, 0, &self.params_bytes);
            if let Some(bits) = self.poison {
                let slots = workgroups * WORKGROUP_SIZE as usize;
                let fill = vec![bits; slots * 4];
                self.queue
                    .write_buffer(&buffers.output, 0, bytemuck::cast_slice(&fill));
            }
            let mut encoder = self
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("contact batch"),
                });
            {
                let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some("contact pass"),
                    timestamp_writes: None,
                });
                pass.set_pipeline(&self.pipeline);
                for d in 0..dispatches {
                    let offset = (d * stride) as wgpu::DynamicOffset;
                    pass.set_bind_group(0, &buffers.bind_group, &[offset]);
                    let groups = per_dispatch.min(workgroups - d * per_dispatch);
                    pass.dispatch_workgroups(groups as u32, 1, 1);
                }
            }
            encoder.copy_buffer_to_buffer(&buffers.output, 0, &buffers.readback, 0, out_bytes);
            self.queue.submit([encoder.finish()]);
        })?;
        read_back(&self.device, &buffers.readback, out_bytes, |slot| {
            out.push(slot.velocity);
        })?;
        Ok(dispatches)
    }
}

/// Maps the first `bytes` of `readback`, hands every slot to `each`, unmaps.
fn read_back(
    device: &wgpu::Device,
    readback: &wgpu::Buffer,
    bytes: u64,
    mut each: impl FnMut(OutputSlot),
) -> Result<(), GpuError> {
    let slice = readback.slice(..bytes);
    let (sender, receiver) = mpsc::channel();
    slice.map_async(wgpu::MapMode::Read, move |result| {
        // The receiver outlives the poll below; a failed send only means it was dropped.
        let _ = sender.send(result);
    });
    device.poll(wgpu::PollType::wait_indefinitely())?;
    receiver
        .recv()
        .map_err(|_| GpuError::ReadBack("the map callback never ran".to_owned()))?
        .map_err(|e| GpuError::ReadBack(e.to_string()))?;
    {
        let view = slice
            .get_mapped_range()
            .map_err(|e| GpuError::ReadBack(e.to_string()))?;
        for chunk in view.chunks_exact(OUTPUT_SIZE as usize) {
            each(bytemuck::pod_read_unaligned(chunk));
        }
    }
    readback.unmap();
    Ok(())
}

impl ImpulseBackend for GpuKernel {
    fn name(&self) -> String {
        format!("gpu: {}", self.summary)
    }

    fn adapter(&self) -> Option<AdapterSummary> {
        Some(self.summary.clone())
    }

    fn apply(
        &mut self,
        inputs: &[ContactInput],
        out: &mut Vec<[f32; 3]>,
    ) -> Result<(), BackendError> {
        out.clear();
        out.reserve(inputs.len());
        let mut stats = BatchStats {
            records: inputs.len(),
            ..BatchStats::default()
        };
        for chunk in inputs.chunks(self.records_per_submission) {
            stats.dispatches += self.submit(chunk, out)?;
            stats.submissions += 1;
        }
        self.last = stats;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shader_workgroup_size_matches() {
        let line = format!("const WORKGROUP_SIZE: u32 = {WORKGROUP_SIZE}u;");
        assert!(
            SHADER.contains(&line),
            "shaders/contact.wgsl must say `{line}`"
        );
    }

    #[test]
    fn shader_layout_matches_host_structs() {
        // The host structs' layout is asserted at compile time; here, that the shader declares
        // the fields in the same order (a reordering would compile and silently mismatch).
        let order = [
            "velocity: vec3<f32>",
            "restitution: f32",
            "normal: vec3<f32>",
            "friction: f32",
        ];
        let mut at = 0;
        for field in order {
            let found = SHADER[at..].find(field).map(|i| i + at);
            at = found.unwrap_or_else(|| panic!("{field} missing or out of order"));
        }
        assert!(SHADER.contains("array<vec4<f32>>"));
    }
}
