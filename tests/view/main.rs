//! Tests of the viewer (src/view/): pictures of every scene, the rigid football (live keys are
//! their own binary, tests/viewer_keys.rs).
//!
//! One test binary a layer of the source tree (linking the crate once, not once a file); each
//! module is one file of tests, as its own binary was before.

#[path = "../support/picture.rs"]
mod picture;

mod rigid_view;
mod viewer;
mod viewer_scenes;
