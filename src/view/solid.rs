//! A 3D scene case (`kind = "scene"`, `dimension = 3`, SPEC.md §7) for the viewer: a
//! [`SolidRunner`] stepped one step at a time, its lamps, and the boundary surface its painter
//! draws. Nothing here draws; the stepping is the runner's own ([`SolidRunner::step`]), the
//! checks its own figures, the contacts and regimes those of `contacts.csv`.

use crate::contact::ContactSurface;
use crate::energy::Vec3;
use crate::run::multibody::solid::SolidRunner;
use crate::run::multibody::{ContactState, SceneRunError};
use crate::scene::multibody::solid::SolidScene;
use crate::scene::multibody::solid_clearance::solid_boundary;

use super::lamps::LampStrip;
use super::multibody::{ContactCounts, contact_regimes, judge_run_lamps};

/// The lamps every 3D scene has, in display order: [`super::multibody::SCENE_LAMPS`]' checks,
/// with tetrahedra where a 2D scene has triangles.
pub const SOLID_LAMPS: [&str; 3] = [
    "no penetration (min distance > 0)",
    "step converged (Newton returned Ok)",
    "no tetrahedron turned over",
];

/// One 3D scene case in the viewer.
pub struct SolidCase {
    /// The case as loaded (kept for reset).
    pub scene: SolidScene,
    /// `--duration`, s, if given.
    pub duration: Option<f64>,
    /// The run.
    pub runner: SolidRunner,
    /// Every body's outward boundary triangles and every triangle mesh's, as node triples of
    /// the state vector, with their member's number (as `--obj` writes them).
    pub surface: ContactSurface,
    /// The error that stopped the run, if one did.
    pub error: Option<String>,
    /// The lamps ([`SOLID_LAMPS`]).
    pub lamps: LampStrip,
}

impl SolidCase {
    /// A case at t = 0, run for `duration` s (the case's when `None`).
    pub fn new(scene: SolidScene, duration: Option<f64>) -> Result<SolidCase, SceneRunError> {
        let runner = SolidRunner::new(scene.clone(), duration)?;
        let surface = solid_boundary(&scene.bodies, &scene.meshes, scene.first_mesh()).1;
        Ok(SolidCase {
            scene,
            duration,
            runner,
            surface,
            error: None,
            lamps: LampStrip::new(&SOLID_LAMPS),
        })
    }

    /// Back to t = 0 (lamps too).
    pub fn reset(&mut self) -> Result<(), SceneRunError> {
        *self = SolidCase::new(self.scene.clone(), self.duration)?;
        Ok(())
    }

    /// Whether the case can take another step (not at its end, not stopped by an error).
    pub fn can_step(&self) -> bool {
        self.error.is_none() && !self.runner.done()
    }

    /// Simulated time, s.
    pub fn time(&self) -> f64 {
        self.runner.sim.time()
    }

    /// Takes one step ([`SolidRunner::step`]) and judges the lamps on it. A failed step turns
    /// the convergence lamp red and stops the case.
    pub fn step(&mut self) {
        if !self.can_step() {
            return;
        }
        let step = self.runner.sim.step + 1;
        let outcome = self.runner.step().map_err(|e| e.to_string());
        judge_run_lamps(
            &mut self.lamps,
            step,
            &outcome,
            &self.runner.totals,
            "tetrahedra",
        );
        if let Err(text) = outcome {
            self.error = Some(text);
        }
    }

    /// Every contact pair within d̂ now with a positive normal force, its point (m) and regime:
    /// the pairs and rule of `contacts.csv` ([`contact_regimes`]).
    pub fn contact_points(&self) -> Vec<(Vec3, ContactState)> {
        contact_regimes(&self.runner.sim, self.scene.barrier.dhat, self.scene.eps_v)
    }

    /// How many of [`SolidCase::contact_points`] are in each regime.
    pub fn contact_counts(&self) -> ContactCounts {
        ContactCounts::of(self.contact_points().iter().map(|(_, s)| *s))
    }

    /// Every body's nodes now, m (what the camera frames).
    pub fn body_points(&self) -> Vec<Vec3> {
        let x = &self.runner.sim.x;
        self.runner
            .bodies
            .iter()
            .flat_map(|r| x[r.clone()].iter().copied())
            .collect()
    }

    /// The camera on the bodies now ([`super::solid_layout::solid_camera`]).
    pub fn camera(&self) -> super::solid_layout::SolidCamera {
        super::solid_layout::solid_camera(&self.body_points(), &self.scene.gravity)
    }
}
