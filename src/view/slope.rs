//! The slope scene's state for the viewer: a [`Runner`] per loaded case, its per-step checks and
//! lamps, and what the drawing reads (node states, forces). Nothing here draws; the drawing code
//! only reads this state.

use crate::cross_check::impulse_law::SharedBackend;
use crate::cross_check::{Agreement, CrossCheck, CrossCheckConfig};
use crate::energy::Vec2;
use crate::run::runner::{RunError, RunOptions, Runner};
use crate::run::verdict::Verdict;
use crate::scene::Scene;
use crate::solver::StepStats;

use super::lamps::LampStrip;

/// SPEC §4: agreement on ≥ 98 % of the approaching contact-node-steps of a run.
pub const AGREEMENT_FLOOR: f64 = 0.98;
/// SPEC §4: agreement on ≥ 99 % of those from t = 1 s on.
pub const LATE_AGREEMENT_FLOOR: f64 = 0.99;

/// The lamps of the slope scene, in display order.
pub const SLOPE_LAMPS: [&str; 4] = [
    "no penetration (min distance > 0)",
    "step converged (Newton returned Ok)",
    "cross-check: 98 % floor within reach",
    "cross-check: 99 % floor from 1 s within reach",
];

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
    /// The most approaching records any one step has had so far (the projection's rate).
    pub max_step_records: u64,
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
                late_from_s: scene.cross_check_late_from,
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
            max_step_records: 0,
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
        self.max_step_records = self
            .max_step_records
            .max(report.overall.total - self.agreement.total);
        let step_records = self.max_step_records;
        let remaining = self
            .runner
            .total_steps()
            .saturating_sub(self.runner.sim.step) as u64;
        let h = self.scene.h;
        let late_from = 1.0;
        let now = self.runner.sim.time();
        // Remaining steps whose end time is ≥ 1 s: step k ends at k h.
        let remaining_late = (1..=remaining)
            .filter(|j| now + *j as f64 * h >= late_from - 1e-9 * h)
            .count() as u64;
        self.agreement = report.overall;
        self.late_agreement = report.late;
        judge_agreement(
            &mut self.lamps.lamps[2],
            step,
            &self.agreement,
            remaining * step_records,
            AGREEMENT_FLOOR,
        );
        judge_agreement(
            &mut self.lamps.lamps[3],
            step,
            &self.late_agreement,
            remaining_late * step_records,
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
        let mut states = vec![NodeState::Free; sim.x.len()];
        let mut contacts = Vec::new();
        sim.contacts(&mut contacts);
        let eps_v = self.runner.scene.eps_v;
        for c in &contacts {
            let state = if c.slip.norm() < eps_v {
                NodeState::Sticking
            } else {
                NodeState::Sliding
            };
            for &node in &c.nodes[..c.len] {
                states[node] = state;
            }
        }
        states
    }

    /// The barrier force and the friction force on every node at the current positions, N
    /// (friction with the lagged normal force of the last step, static/kinetic blend included;
    /// zero for nodes outside the friction set and before the first step).
    pub fn node_forces(&self) -> Vec<(Vec2, Vec2)> {
        let sim = &self.runner.sim;
        let n = sim.x.len();
        let (mut barrier, mut friction) = (vec![Vec2::zeros(); n], vec![Vec2::zeros(); n]);
        sim.contact_forces(&mut barrier, &mut friction, &mut Vec::new());
        barrier.into_iter().zip(friction).collect()
    }

    /// The centroid of the nodes, m.
    pub fn centroid(&self) -> Vec2 {
        let x = &self.runner.sim.x;
        x.iter().sum::<Vec2>() / x.len().max(1) as f64
    }
}

/// The per-step rule of the cross-check lamps. SPEC §4's floors are about a whole run, and the
/// agreement of a correct run starts low (the landing, where the disagreements cluster) and rises:
/// on the reference cases the cumulative agreement after 400 records is 93.8–98.0 % and ends at
/// 98.9–99.8 %. So a lamp does not compare the fraction so far with the floor; it turns red at the
/// first step at which the floor is out of reach: the disagreements so far exceed (1 − floor) of
/// the records *projected* for the whole run, the records so far plus `more` (each remaining step
/// with as many approaching records as the most any step has had so far: the square's face in
/// contact; a projection, not a bound, since the square may leave the slope). At the last step the projection is the count
/// itself, so the lamp ends exactly on SPEC §4's criterion. Pending while nothing is projected.
fn judge_agreement(
    lamp: &mut super::lamps::Lamp,
    step: usize,
    a: &Agreement,
    more: u64,
    floor: f64,
) {
    let projected = a.total + more;
    if projected == 0 {
        return;
    }
    let disagree = a.total - a.agree;
    let best = (projected - disagree) as f64 / projected as f64;
    lamp.judge(step, Some(best >= floor), || {
        format!(
            "step {step}: {disagree} disagreements of {} so far; at best {:.2} % of the {projected} projected < {:.0} %",
            a.total,
            100.0 * best,
            100.0 * floor
        )
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::lamps::{Lamp, LampState};

    fn agreement(agree: u64, total: u64) -> Agreement {
        Agreement::from_counts(agree, total)
    }

    #[test]
    fn a_low_start_with_room_left_stays_green_and_a_lost_floor_turns_red() {
        let mut lamp = Lamp::new("x");
        judge_agreement(&mut lamp, 1, &agreement(0, 0), 0, 0.98);
        assert_eq!(lamp.state, LampState::Pending);
        // 90 % so far, but 3 000 records to come: at best 99.7 %.
        judge_agreement(&mut lamp, 2, &agreement(90, 100), 3000, 0.98);
        assert_eq!(lamp.state, LampState::Green);
        // 70 disagreements: at best 1 − 70/3 100 = 97.7 % < 98 %.
        judge_agreement(&mut lamp, 3, &agreement(130, 200), 2900, 0.98);
        assert!(lamp.is_red());
        // At the end the rule is the fraction itself.
        let mut end = Lamp::new("y");
        judge_agreement(&mut end, 4, &agreement(979, 1000), 0, 0.98);
        assert!(end.is_red());
        let mut end = Lamp::new("z");
        judge_agreement(&mut end, 4, &agreement(980, 1000), 0, 0.98);
        assert_eq!(end.state, LampState::Green);
    }
}
