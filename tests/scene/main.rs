//! Tests of case files, case kinds and bodies (crates/stickslip-sim/src/scene/): settings, friction keys, mesh files,
//! --set, 2D and 3D scene cases, contact between solids.
//!
//! One test binary a layer of the source tree (linking the crate once, not once a file); each
//! module is one file of tests, as its own binary was before.

mod case_settings;
mod exact_stick_scenes;
mod friction_keys;
mod mesh_files;
mod mesh_input;
mod overrides;
mod scene_cases;
mod scene_names;
mod solid_contact;
mod solid_scenes;
