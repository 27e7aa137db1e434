//! The slope scene's state for the viewer: a [`Runner`] per loaded case, its per-step checks and
//! lamps, and what the drawing reads (node states, forces). Nothing here draws; the drawing code
//! only reads this state.

use std::sync::{Arc, Mutex};

use crate::app::runner::{RunError, RunOptions, Runner};
use crate::app::verdict::Verdict;
use crate::contact::cross_check::{Agreement, CrossCheck, CrossCheckConfig};
use crate::contact::impulse_law::{ContactInput, ImpulseBackend};
use crate::energy::Vec2;
use crate::gpu::{AdapterSummary, GpuError};
use crate::scene::Scene;
use crate::solver::StepStats;

use super::lamps::LampStrip;

/// The cross-check lamps judge the cumulative agreement only once this many approaching
/// contact-node-steps have been counted: the first records come from the landing, where SPEC §4
/// expects the disagreements to cluster, and a fraction of a few dozen records says nothing about
/// a 98 % floor (one disagreement in 20 is already 95 %). 400 records is about 80 steps of the
/// square's five bottom nodes in contact, i.e. 0.8 s after landing.
pub const AGREEMENT_MIN_RECORDS: u64 = 400;
/// SPEC §4: agreement on ≥ 98 % of the approaching contact-node-steps of a run.
pub const AGREEMENT_FLOOR: f64 = 0.98;
/// SPEC §4: agreement on ≥ 99 % of those from t = 1 s on.
pub const LATE_AGREEMENT_FLOOR: f64 = 0.99;

/// The lamps of the slope scene, in display order.
pub const SLOPE_LAMPS: [&str; 4] = [
    "no penetration (min distance > 0)",
    "step converged (Newton returned Ok)",
    "cross-check: agree >= 98 % so far",
    "cross-check: agree >= 99 % from 1 s",
];

/// One impulse-law backend shared by the cross-checks of every loaded case.
#[derive(Clone)]
pub struct SharedBackend(pub Arc<Mutex<Box<dyn ImpulseBackend>>>);

impl ImpulseBackend for SharedBackend {
    fn name(&self) -> String {
        self.0
            .lock()
            .map(|b| b.name())
            .unwrap_or_else(|_| "poisoned".into())
    }
    fn adapter(&self) -> Option<AdapterSummary> {
        self.0.lock().ok().and_then(|b| b.adapter())
    }
    fn apply(&mut self, inputs: &[ContactInput], out: &mut Vec<[f32; 3]>) -> Result<(), GpuError> {
        match self.0.lock() {
            Ok(mut b) => b.apply(inputs, out),
            Err(_) => Err(GpuError::ReadBack(
                "impulse backend poisoned by an earlier panic".into(),
            )),
        }
    }
}

/// What a node of the mesh is doing, for its colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeState {
    /// Not in the friction set (μλ = 0).
    Free,
    /// In the friction set, tangential speed < ε_v.
    Sticking,
    /// In the friction set, tangential speed ≥ ε_v.
    Sliding,
}

/// One loaded case in the viewer.
pub struct SlopeCase {
    /// The case as loaded (kept for reset).
    pub scene: Scene,
    /// The run.
    pub runner: Runner,
    /// The statistics of the last step taken, if any.
    pub last: Option<StepStats>,
    /// The error that stopped the run, if one did.
    pub error: Option<String>,
    /// The lamps ([`SLOPE_LAMPS`]).
    pub lamps: LampStrip,
    /// Cumulative stick/slide agreement over all approaching records so far.
    pub agreement: Agreement,
    /// The same from t = 1 s on.
    pub late_agreement: Agreement,
    check: CrossCheck,
    backend: SharedBackend,
    opts: RunOptions,
}

impl SlopeCase {
    /// A case at t = 0, its cross-check running the law through `backend`.
    pub fn new(
        scene: Scene,
        opts: &RunOptions,
        backend: SharedBackend,
    ) -> Result<SlopeCase, RunError> {
        let runner = Runner::new(scene.clone(), opts)?;
        let check = CrossCheck::new(
            Box::new(backend.clone()),
            CrossCheckConfig {
                eps_v: scene.eps_v,
                late_from_s: 1.0,
            },
        );
        Ok(SlopeCase {
            scene,
            runner,
            last: None,
            error: None,
            lamps: LampStrip::new(&SLOPE_LAMPS),
            agreement: Agreement::default(),
            late_agreement: Agreement::default(),
            check,
            backend,
            opts: opts.clone(),
        })
    }

    /// Back to t = 0 (lamps too).
    pub fn reset(&mut self) -> Result<(), RunError> {
        *self = SlopeCase::new(self.scene.clone(), &self.opts, self.backend.clone())?;
        Ok(())
    }

    /// Whether the case can take another step (not at its end, not stopped by an error).
    pub fn can_step(&self) -> bool {
        self.error.is_none() && !self.runner.done()
    }

    /// Takes one step and judges the lamps on it. A failed step turns the convergence lamp red
    /// and stops the case; a failed cross-check (GPU error) turns the cross-check lamps red.
    pub fn step(&mut self) {
        if !self.can_step() {
            return;
        }
        let step = self.runner.sim.step + 1;
        match self.runner.step() {
            Ok(stats) => {
                self.last = Some(stats);
                self.lamps.lamps[1].judge(step, Some(true), String::new);
                let d = stats.min_distance;
                self.lamps.lamps[0].judge(step, Some(d > 0.0), || {
                    format!("step {step}: min distance {d:.3e} m")
                });
            }
            Err(e) => {
                let text = e.to_string();
                self.lamps.lamps[1].judge(step, Some(false), || text.clone());
                self.error = Some(text);
                return;
            }
        }
        // The cross-check on this step's records (the runner keeps only this step's: they are
        // flushed every step).
        if let Err(e) = self.runner.flush_records(&mut self.check) {
            let text = e.to_string();
            for lamp in &mut self.lamps.lamps[2..] {
                lamp.judge(step, Some(false), || text.clone());
            }
            return;
        }
        let report = self.check.report();
        self.agreement = report.overall;
        self.late_agreement = report.late;
        judge_agreement(
            &mut self.lamps.lamps[2],
            step,
            &self.agreement,
            AGREEMENT_FLOOR,
        );
        judge_agreement(
            &mut self.lamps.lamps[3],
            step,
            &self.late_agreement,
            LATE_AGREEMENT_FLOOR,
        );
    }

    /// The verdict so far.
    pub fn verdict(&self) -> Verdict {
        self.runner.verdict()
    }

    /// The state of every node after the last step.
    pub fn node_states(&self) -> Vec<NodeState> {
        let sim = &self.runner.sim;
        let t = self.runner.tangent();
        sim.mu_lambda
            .iter()
            .zip(&sim.v)
            .map(|(&ml, v)| {
                if ml <= 0.0 {
                    NodeState::Free
                } else if v.dot(&t).abs() < sim.scene.eps_v {
                    NodeState::Sticking
                } else {
                    NodeState::Sliding
                }
            })
            .collect()
    }

    /// The barrier force and the friction force on every node at the current positions, N
    /// (friction with the lagged μλ of the last step; zero for nodes outside the friction set).
    pub fn node_forces(&self) -> Vec<(Vec2, Vec2)> {
        let sim = &self.runner.sim;
        let bar = sim.barrier();
        let fr = sim.friction();
        let h = sim.scene.h;
        let x_n = sim.previous_positions();
        sim.x
            .iter()
            .enumerate()
            .map(|(i, x)| {
                let f_barrier = bar.normal * (-bar.node_dbdd(bar.distance(x), sim.mesh.contact_area[i]));
                let ml = sim.mu_lambda[i];
                let f_friction = if ml > 0.0 && sim.step > 0 {
                    -fr.node_gradient(&((x - x_n[i]) / h), ml)
                } else {
                    Vec2::zeros()
                };
                (f_barrier, f_friction)
            })
            .collect()
    }

    /// The centroid of the nodes, m.
    pub fn centroid(&self) -> Vec2 {
        let x = &self.runner.sim.x;
        x.iter().sum::<Vec2>() / x.len().max(1) as f64
    }
}

fn judge_agreement(lamp: &mut super::lamps::Lamp, step: usize, a: &Agreement, floor: f64) {
    if a.total < AGREEMENT_MIN_RECORDS {
        return;
    }
    let fraction = a.fraction.unwrap_or(1.0);
    lamp.judge(step, Some(fraction >= floor), || {
        format!(
            "step {step}: {:.2} % ({}/{}) < {:.0} %",
            100.0 * fraction,
            a.agree,
            a.total,
            100.0 * floor
        )
    });
}
