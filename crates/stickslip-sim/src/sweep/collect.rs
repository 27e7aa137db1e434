//! `stickslip sweep collect DIR`: the cell files merged into `map.csv`, one row per cell in
//! index order, and the missing, corrupt and failed cells named.
//!
//! Columns: `cell` (the id), one column per axis (headed by its key, the value as given),
//! `status` (`done`, `failed`, `missing`, `corrupt`), then the sweep's `record` columns of
//! [`super::file::RESULT_COLUMNS`]. Every column is deterministic: the same sweep gives the same
//! file byte for byte however it was sharded, run or resumed (wall times are only in the cell
//! files). Empty fields: no value (no creep speed for a cell that is not stopped, no agreement
//! without contact records, no results for a failed cell).

use super::dir::{
    CellRecord, CellState, MAP_CSV, Manifest, Outcome, SceneCellResult, SweepDir, csv_field,
    write_atomic,
};
use super::file::BODY_VERDICT_SUFFIX;
use super::{SweepError, some_ids};

/// One cell as collected.
#[derive(Clone, Debug, PartialEq)]
pub struct CollectedCell {
    /// The cell's id.
    pub id: String,
    /// Its axis values.
    pub inputs: Vec<serde_json::Value>,
    /// What its file holds.
    pub state: CellState,
}

/// The merged sweep.
#[derive(Clone, Debug)]
pub struct Collected {
    /// The manifest.
    pub manifest: Manifest,
    /// Every cell, in index order.
    pub cells: Vec<CollectedCell>,
}

impl Collected {
    /// Reads every cell file of `dir`.
    pub fn read(dir: &SweepDir, manifest: Manifest) -> Collected {
        let cells = manifest
            .cells
            .iter()
            .map(|c| CollectedCell {
                id: c.id.clone(),
                inputs: c.inputs.clone(),
                state: dir.cell_state(&c.id, &manifest.hash, &c.inputs),
            })
            .collect();
        Collected { manifest, cells }
    }

    /// Ids of the cells in a state.
    pub fn ids(&self, pick: impl Fn(&CellState) -> bool) -> Vec<String> {
        self.cells
            .iter()
            .filter(|c| pick(&c.state))
            .map(|c| c.id.clone())
            .collect()
    }

    /// The finished records.
    pub fn records(&self) -> impl Iterator<Item = &CellRecord> {
        self.cells.iter().filter_map(|c| match &c.state {
            CellState::Finished(r) => Some(r.as_ref()),
            _ => None,
        })
    }

    /// `map.csv`'s text (module docs).
    pub fn csv(&self) -> String {
        let m = &self.manifest;
        let mut out = m.csv_header();
        out.push('\n');
        for c in &self.cells {
            let mut row = vec![c.id.clone()];
            row.extend(c.inputs.iter().map(json_field));
            let (status, result, scene, error) = match &c.state {
                CellState::Missing => ("missing", None, None, None),
                CellState::Corrupt(_) => ("corrupt", None, None, None),
                CellState::Finished(r) => match &r.outcome {
                    Outcome::Done(res) => ("done", Some(res), None, None),
                    Outcome::DoneScene(res) => ("done", None, Some(res), None),
                    Outcome::Failed { error } => ("failed", None, None, Some(error.as_str())),
                },
            };
            row.push(status.into());
            for col in &m.record {
                row.push(match scene {
                    Some(res) => scene_field(col, res),
                    None => result_field(col, result, error),
                });
            }
            out.push_str(&row.join(","));
            out.push('\n');
        }
        out
    }

    /// Writes `map.csv` into `dir` atomically.
    pub fn write_csv(&self, dir: &SweepDir) -> Result<(), SweepError> {
        write_atomic(&dir.path.join(MAP_CSV), self.csv().as_bytes())
    }

    /// The report's lines: counts, and the ids of missing, corrupt and failed cells.
    pub fn report(&self) -> String {
        let missing = self.ids(|s| matches!(s, CellState::Missing));
        let corrupt = self.ids(|s| matches!(s, CellState::Corrupt(_)));
        let failed: Vec<&CellRecord> = self
            .records()
            .filter(|r| matches!(r.outcome, Outcome::Failed { .. }))
            .collect();
        let done = self.records().count() - failed.len();
        let mut s = format!(
            "{} cells: {done} done, {} failed, {} missing, {} corrupt\n",
            self.cells.len(),
            failed.len(),
            missing.len(),
            corrupt.len()
        );
        if let Some(tally) = self.slide_or_tip_tally() {
            s.push_str(&tally);
        }
        if !missing.is_empty() {
            s.push_str(&format!("missing: {}\n", some_ids(&missing, 20)));
        }
        for c in &self.cells {
            if let CellState::Corrupt(why) = &c.state {
                s.push_str(&format!(
                    "corrupt: {} ({why}); it will be run again\n",
                    c.id
                ));
            }
        }
        for r in failed {
            if let Outcome::Failed { error } = &r.outcome {
                s.push_str(&format!("failed: {}: {error}\n", r.id));
            }
        }
        s
    }
}

impl Collected {
    /// The scene cells' slide-or-tip outcomes against the closed form, if any cell has one:
    /// how many agree, and how many of the cells farther than [`SLIDE_OR_TIP_MARGIN`] (in
    /// tan θ and μ) from every line of the rule (tan θ = μ_s, tan θ = w/b, μ_k = w/b) agree,
    /// with the ids of those that do not.
    pub fn slide_or_tip_tally(&self) -> Option<String> {
        let cells: Vec<(&str, &SceneCellResult)> = self
            .records()
            .filter_map(|r| match &r.outcome {
                Outcome::DoneScene(res) if res.slide_or_tip.is_some() => {
                    Some((r.id.as_str(), &**res))
                }
                _ => None,
            })
            .collect();
        if cells.is_empty() {
            return None;
        }
        let right = |r: &SceneCellResult| r.slide_or_tip == r.slide_or_tip_analytic;
        let clear: Vec<&(&str, &SceneCellResult)> = cells
            .iter()
            .filter(|(_, r)| slide_or_tip_margin(r).is_some_and(|m| m > SLIDE_OR_TIP_MARGIN))
            .collect();
        let wrong: Vec<String> = clear
            .iter()
            .filter(|(_, r)| !right(r))
            .map(|(id, _)| id.to_string())
            .collect();
        let mut s = format!(
            "slide or tip: {} of {} cells as the closed form; of the {} cells farther than {SLIDE_OR_TIP_MARGIN} from every line, {} right and {} wrong\n",
            cells.iter().filter(|(_, r)| right(r)).count(),
            cells.len(),
            clear.len(),
            clear.len() - wrong.len(),
            wrong.len(),
        );
        if !wrong.is_empty() {
            s.push_str(&format!("slide or tip wrong: {}\n", some_ids(&wrong, 20)));
        }
        Some(s)
    }
}

/// The margin, in tan θ and μ, outside which a slide-or-tip cell must land on the right side
/// of the rule's lines (issue 20).
pub const SLIDE_OR_TIP_MARGIN: f64 = 0.02;

/// A slide-or-tip cell's distance from the nearest line of the rule: |tan θ − μ_s|,
/// |tan θ − w/b| and |μ_k − w/b| (each where it bounds a region: the last only beyond both
/// thresholds), `None` without the inputs.
pub fn slide_or_tip_margin(r: &SceneCellResult) -> Option<f64> {
    let (t, wb) = (r.tan_theta?, r.w_over_b?);
    let (mu_s, mu_k) = (r.mu_static?, r.mu_kinetic?);
    let mut m = (t - mu_s).abs().min((t - wb).abs());
    if t > mu_s {
        m = m.min((mu_k - wb).abs());
    }
    Some(m)
}

fn json_field(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => csv_field(s),
        other => csv_field(&other.to_string()),
    }
}

fn number(x: Option<f64>) -> String {
    x.map_or(String::new(), |v| v.to_string())
}

fn result_field(
    column: &str,
    result: Option<&super::dir::CellResult>,
    error: Option<&str>,
) -> String {
    if column == "error" {
        return error.map_or(String::new(), csv_field);
    }
    let Some(r) = result else {
        return String::new();
    };
    match column {
        "verdict" => r.verdict.clone(),
        "stop_time_s" => number(r.stop_time_s),
        "downhill_distance_m" => number(Some(r.downhill_distance_m)),
        "final_speed_m_per_s" => number(r.final_speed_m_per_s),
        "creep_speed_m_per_s" => number(r.creep_speed_m_per_s),
        "newton_iterations" => r.newton_iterations.to_string(),
        "max_iterations_in_step" => r.max_iterations_in_step.to_string(),
        "agreement" => number(r.agreement),
        "late_agreement" => number(r.late_agreement),
        "gap_median_m_per_s" => number(r.gap_median_m_per_s),
        _ => String::new(),
    }
}

/// A scene cell's field of `column` (docs/sweeps.md).
fn scene_field(column: &str, r: &SceneCellResult) -> String {
    if let Some(body) = column.strip_suffix(BODY_VERDICT_SUFFIX) {
        return r
            .bodies
            .iter()
            .find(|b| b.name == body)
            .map_or(String::new(), |b| b.verdict.clone());
    }
    let cycle = |analytic: bool, pick: fn(&super::dir::CycleValues) -> f64| {
        let c = if analytic {
            r.cycle_analytic.as_ref()
        } else {
            r.cycle.as_ref()
        };
        number(c.map(pick))
    };
    match column {
        "slide_or_tip" => r.slide_or_tip.clone().unwrap_or_default(),
        "slide_or_tip_analytic" => r.slide_or_tip_analytic.clone().unwrap_or_default(),
        "tan_theta" => number(r.tan_theta),
        "w_over_b" => number(r.w_over_b),
        "max_rotation_deg" => number(r.max_rotation_deg),
        "displacement_m" => number(r.displacement_m),
        "f_max_N" => cycle(false, |c| c.f_max_n),
        "f_max_N_analytic" => cycle(true, |c| c.f_max_n),
        "f_min_N" => cycle(false, |c| c.f_min_n),
        "f_min_N_analytic" => cycle(true, |c| c.f_min_n),
        "t_stick_s" => cycle(false, |c| c.t_stick_s),
        "t_stick_s_analytic" => cycle(true, |c| c.t_stick_s),
        "t_slip_s" => cycle(false, |c| c.t_slip_s),
        "t_slip_s_analytic" => cycle(true, |c| c.t_slip_s),
        "period_s" => cycle(false, |c| c.period_s),
        "period_s_analytic" => cycle(true, |c| c.period_s),
        "cycles" => r
            .cycle
            .as_ref()
            .and_then(|c| c.cycles)
            .map_or(String::new(), |n| n.to_string()),
        "slide_stop_s" => number(r.slide_stop_s),
        "slide_stop_s_analytic" => number(r.slide_stop_s_analytic),
        "spin_stop_s" => number(r.spin_stop_s),
        "spin_stop_s_analytic" => number(r.spin_stop_s_analytic),
        "spin_slide_ratio" => number(r.spin_slide_ratio),
        "spin_slide_ratio_analytic" => number(r.spin_slide_ratio_analytic),
        "launch_ratio" => number(r.launch_ratio),
        "agreement" => number(r.agreement),
        "late_agreement" => number(r.late_agreement),
        "gap_median_m_per_s" => number(r.gap_median_m_per_s),
        "newton_iterations" => r.newton_iterations.to_string(),
        "max_iterations_in_step" => r.max_iterations_in_step.to_string(),
        "steps" => r.steps.to_string(),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_fields_are_quoted_only_when_needed() {
        assert_eq!(csv_field("stopped"), "stopped");
        assert_eq!(csv_field("a, \"b\""), "\"a, \"\"b\"\"\"");
    }
}
