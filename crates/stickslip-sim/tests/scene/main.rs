//! Tests of case files and bodies (src/scene/) that call only the library: the `[friction]`
//! keys, Gmsh mesh files. The scene tests that run the `stickslip` command are the root
//! package's `tests/scene/`.
//!
//! One test binary a layer of the source tree; each module is one file of tests. A test binary
//! of the simulator crate, so it links neither macroquad nor plotters. Files are read from the
//! workspace's `cases/` and `tests/data/` (`CARGO_MANIFEST_DIR/../..`).

mod friction_keys;
mod mesh_files;
