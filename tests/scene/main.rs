//! Tests of case files, case kinds and bodies (crates/stickslip-sim/src/scene/) that run the
//! `stickslip` command: settings, --set, 2D and 3D scene cases, contact between solids, mesh
//! input. The `[friction]` keys and Gmsh mesh files, which call only the library, are the
//! simulator crate's (crates/stickslip-sim/tests/scene/).
//!
//! One test binary a layer of the source tree (linking the crate once, not once a file); each
//! module is one file of tests, as its own binary was before.

mod case_settings;
mod exact_stick_scenes;
mod mesh_input;
mod overrides;
mod scene_cases;
mod scene_names;
mod solid_contact;
mod solid_scenes;
