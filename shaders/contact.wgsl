// The impulse contact law of SPEC.md §3 (seeds 000 and 001), one invocation per contact.
//
// `contact` below is `stickslip::contact::impulse_law::contact_f32` operation for operation: v·n
// and |v_t| component by component, `vn >= 0.0 * vn` for "leaving", and the seed's order of every
// product and sum. The host (src/gpu/kernel.rs) holds its result to the CPU law.
//
// Layout (asserted on the host with const asserts):
//   ContactInput: velocity vec3<f32> @0, restitution f32 @12, normal vec3<f32> @16,
//                 friction f32 @28; size 32, array stride 32.
//   outputs:      vec4<f32> per contact, xyz the velocity after (m/s), w written 0; stride 16.
//   Params:       base u32 @0, count u32 @4, two u32 of padding; size 16. One Params per
//                 dispatch, each at its own dynamic offset (a multiple of
//                 min_uniform_buffer_offset_alignment), so a batch larger than one dispatch's
//                 workgroup limit runs as several dispatches that each start at their `base`.

struct ContactInput {
    velocity: vec3<f32>,
    restitution: f32,
    normal: vec3<f32>,
    friction: f32,
}

struct Params {
    // Index of this dispatch's first contact in the batch.
    base: u32,
    // Number of contacts in the batch (the bounds check).
    count: u32,
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<storage, read> inputs: array<ContactInput>;
@group(0) @binding(1) var<storage, read_write> outputs: array<vec4<f32>>;
@group(0) @binding(2) var<uniform> params: Params;

// Must equal WORKGROUP_SIZE in src/gpu/kernel.rs.
const WORKGROUP_SIZE: u32 = 64u;

// Velocity after a contact (m/s), given the velocity before (m/s), the unit normal out of the
// surface, the restitution e and the friction coefficient mu.
fn contact(velocity: vec3<f32>, normal: vec3<f32>, restitution: f32, friction: f32) -> vec3<f32> {
    let vn = velocity.x * normal.x + velocity.y * normal.y + velocity.z * normal.z;
    if (vn >= 0.0 * vn) {
        return velocity;
    } else {
        let vt = velocity - vn * normal;
        let jn = -(1.0 + restitution) * vn;
        let speed = sqrt(vt.x * vt.x + vt.y * vt.y + vt.z * vt.z);
        if (speed <= friction * jn) {
            return -restitution * vn * normal;
        } else {
            return vt * ((speed - friction * jn) / speed) - restitution * vn * normal;
        }
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(workgroup_id) workgroup: vec3<u32>,
        @builtin(local_invocation_index) local: u32) {
    let i = params.base + workgroup.x * WORKGROUP_SIZE + local;
    if (i >= params.count) {
        return;
    }
    let c = inputs[i];
    outputs[i] = vec4<f32>(contact(c.velocity, c.normal, c.restitution, c.friction), 0.0);
}
