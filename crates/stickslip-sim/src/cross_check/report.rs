//! The cross-check of the optimiser against the impulse law (SPEC.md §4).
//!
//! For every contact record (a node in the friction set at one step) the law is given the
//! node's contact-free velocity (a 3-vector; a 2D run's lifted with z = 0) rounded to
//! binary32, with e the record's restitution (0 in the reference runs) and μ its friction:
//! v_law = contact(v_free, n, e, μ) (SPEC.md §3). Only **approaching** records count
//! (v_free·n < 0, in binary64); with u_T = u − (u·n̂) n̂ a velocity's part in the surface's
//! tangent plane (in 2D the slope tangent's line, the z axis carrying nothing),
//!
//! * the **law sticks** when the tangential part of its answer is zero to binary32 rounding,
//!   ‖v_law,T‖ ≤ [`LAW_STICK_ROUNDING`]·‖v_law‖: the stick branch, exactly zero when e = 0;
//! * the **optimiser sticks** when ‖v_opt,T‖ < ε_v;
//! * they **agree** when both stick or both slide, counted overall and from a time on;
//! * the **tangential gap** is ‖v_law,T − v_opt,T‖ (m/s): in 2D |v_law·t − v_opt·t|.
//!
//! Records arrive in batches ([`CrossCheck::push_batch`], e.g. every 10 000 steps); memory stays
//! bounded by the largest batch plus **one f64 per approaching record** (its gap), from which
//! [`CrossCheck::report`] takes the exact median and 95th percentile.

use std::fmt;

use super::impulse_law::{ContactInput, ImpulseBackend};
use super::records::ContactRecord;
use crate::cross_check::backend::{AdapterSummary, BackendError};

/// The law sticks when |v_law·t| ≤ this × ‖v_law‖. The stick branch returns −e v_n n, whose
/// tangential part is zero up to the rounding of three binary32 products and of the f64 dot
/// with t (≈ 2 ε₃₂‖v_law‖); 8 ε₃₂ leaves room for a GPU's 2.5-ulp operations. A slide shorter
/// than this is inside the law's own rounding and counts as a stick. With e = 0 the stick
/// branch gives exact zeros, so the test is exact there.
pub const LAW_STICK_ROUNDING: f64 = 8.0 * f32::EPSILON as f64;

/// What the cross-check compares with (SPEC.md §1, §4).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct CrossCheckConfig {
    /// The optimiser sticks when its tangential speed is under this, m/s (SPEC.md §1:
    /// ε_v = 10⁻³ m/s).
    pub eps_v: f64,
    /// Agreement is also counted over the records with `time` ≥ this, s (SPEC.md §4: 1 s).
    pub late_from_s: f64,
}

impl Default for CrossCheckConfig {
    /// SPEC.md's values: ε_v = 10⁻³ m/s, from t = 1 s.
    fn default() -> Self {
        Self {
            eps_v: 1e-3,
            late_from_s: 1.0,
        }
    }
}

/// Stick/slide agreement over a set of approaching records.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct Agreement {
    /// Records where law and optimiser agree.
    pub agree: u64,
    /// Approaching records in the set.
    pub total: u64,
    /// `agree / total`; `None` when `total` is 0.
    pub fraction: Option<f64>,
}

impl Agreement {
    /// `agree` of `total` records, with the fraction (`None` when `total` is 0).
    pub fn from_counts(agree: u64, total: u64) -> Self {
        Self {
            agree,
            total,
            fraction: (total > 0).then(|| agree as f64 / total as f64),
        }
    }
}

impl fmt::Display for Agreement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.fraction {
            Some(fraction) => write!(
                f,
                "{:.2} % ({}/{})",
                100.0 * fraction,
                self.agree,
                self.total
            ),
            None => write!(f, "n/a (0 records)"),
        }
    }
}

/// Where a gap was found.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct GapAt {
    /// |v_law·t − v_opt·t|, m/s.
    pub gap: f64,
    /// The record's step.
    pub step: u32,
    /// The record's node (a pair's: its stencil's first node).
    pub node: u32,
    /// The record's time, s.
    pub time: f64,
    /// Whether the record is a pair ([`ContactRecord::pair`]).
    pub pair: bool,
    /// The record's contact type ([`ContactRecord::kind`]).
    pub kind: &'static str,
}

/// Stick/slide agreement over the approaching records of one contact type.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct KindAgreement {
    /// The contact type ([`ContactRecord::kind`]).
    pub kind: &'static str,
    /// Its records' agreement.
    pub agreement: Agreement,
}

/// The cross-check's result (SPEC.md §4), serialisable into the run's JSON.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct CrossCheckReport {
    /// What ran the law ([`ImpulseBackend::name`]).
    pub backend: String,
    /// The GPU adapter, `None` when the law ran on the CPU.
    pub adapter: Option<AdapterSummary>,
    /// The comparison's parameters.
    pub config: CrossCheckConfig,
    /// Records pushed.
    pub records: u64,
    /// Records approaching the surface (v_free·n < 0): the ones counted below.
    pub approaching: u64,
    /// Agreement over every approaching record.
    pub overall: Agreement,
    /// Agreement over the approaching records with time ≥ `config.late_from_s`.
    pub late: Agreement,
    /// Agreement over the approaching records of pairs (between bodies, or with a triangle
    /// mesh; [`ContactRecord::pair`]), counted in `overall` too.
    pub pairs: Agreement,
    /// Agreement by contact type, in the order the types were first met.
    pub by_kind: Vec<KindAgreement>,
    /// Approaching records where the optimiser sticks (its tangential speed under ε_v).
    pub optimiser_sticks: u64,
    /// Approaching records where the law sticks.
    pub law_sticks: u64,
    /// Disagreements where the law sticks and the optimiser slides.
    pub law_sticks_optimiser_slides: u64,
    /// Disagreements where the law slides and the optimiser sticks.
    pub law_slides_optimiser_sticks: u64,
    /// Median tangential gap over the approaching records, m/s (linear interpolation between
    /// order statistics); `None` without approaching records.
    pub gap_median: Option<f64>,
    /// 95th percentile of the tangential gap, m/s (same interpolation).
    pub gap_p95: Option<f64>,
    /// The largest tangential gap and where it was.
    pub gap_max: Option<GapAt>,
}

/// The q-quantile (0 ≤ q ≤ 1) of sorted data, interpolating linearly between order statistics
/// at position q·(n − 1) (numpy's default).
fn quantile(sorted: &[f64], q: f64) -> Option<f64> {
    let last = sorted.len().checked_sub(1)?;
    let position = q.clamp(0.0, 1.0) * last as f64;
    let below = position.floor() as usize;
    let above = (below + 1).min(last);
    let weight = position - below as f64;
    Some(sorted[below] + weight * (sorted[above] - sorted[below]))
}

/// The cross-check as an accumulator: push batches of records, then [`CrossCheck::report`] or
/// [`CrossCheck::finish`].
pub struct CrossCheck {
    backend: Box<dyn ImpulseBackend>,
    config: CrossCheckConfig,
    records: u64,
    overall_agree: u64,
    late_agree: u64,
    late_total: u64,
    pairs_agree: u64,
    pairs_total: u64,
    /// (type, agree, total) of every contact type met.
    kinds: Vec<(&'static str, u64, u64)>,
    optimiser_sticks: u64,
    law_sticks: u64,
    law_sticks_optimiser_slides: u64,
    law_slides_optimiser_sticks: u64,
    /// One gap per approaching record, m/s.
    gaps: Vec<f64>,
    gap_max: Option<GapAt>,
    // Scratch reused between batches.
    approaching: Vec<usize>,
    inputs: Vec<ContactInput>,
    outputs: Vec<[f32; 3]>,
}

impl fmt::Debug for CrossCheck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CrossCheck")
            .field("backend", &self.backend.name())
            .field("config", &self.config)
            .field("records", &self.records)
            .field("approaching", &self.gaps.len())
            .finish_non_exhaustive()
    }
}

impl CrossCheck {
    /// An empty cross-check running the law through `backend`.
    pub fn new(backend: Box<dyn ImpulseBackend>, config: CrossCheckConfig) -> Self {
        Self {
            backend,
            config,
            records: 0,
            overall_agree: 0,
            late_agree: 0,
            late_total: 0,
            pairs_agree: 0,
            pairs_total: 0,
            kinds: Vec::new(),
            optimiser_sticks: 0,
            law_sticks: 0,
            law_sticks_optimiser_slides: 0,
            law_slides_optimiser_sticks: 0,
            gaps: Vec::new(),
            gap_max: None,
            approaching: Vec::new(),
            inputs: Vec::new(),
            outputs: Vec::new(),
        }
    }

    /// Runs the law on the approaching records of `records` (one backend call) and adds them to
    /// the counts.
    ///
    /// # Errors
    /// The backend's [`BackendError`]; the counts are then unchanged.
    pub fn push_batch(&mut self, records: &[ContactRecord]) -> Result<(), BackendError> {
        self.approaching.clear();
        self.inputs.clear();
        for (i, r) in records.iter().enumerate() {
            if dot(&r.v_free, &r.normal) < 0.0 {
                self.approaching.push(i);
                self.inputs.push(ContactInput::new(
                    r.v_free.map(|c| c as f32),
                    r.normal.map(|c| c as f32),
                    r.restitution as f32,
                    r.friction as f32,
                ));
            }
        }
        self.backend.apply(&self.inputs, &mut self.outputs)?;
        if self.outputs.len() != self.inputs.len() {
            return Err(BackendError::WrongCount {
                expected: self.inputs.len(),
                got: self.outputs.len(),
            });
        }

        self.records += records.len() as u64;
        self.gaps.reserve(self.approaching.len());
        for (&i, law) in self.approaching.iter().zip(&self.outputs) {
            let r = &records[i];
            let norm = dot(&r.normal, &r.normal).sqrt();
            let n = r.normal.map(|c| c / norm);
            let tangential = |u: &[f64; 3]| {
                let un = dot(u, &n);
                [u[0] - un * n[0], u[1] - un * n[1], u[2] - un * n[2]]
            };
            let law = law.map(f64::from);
            let law_t = tangential(&law);
            let law_sticks =
                dot(&law_t, &law_t).sqrt() <= LAW_STICK_ROUNDING * dot(&law, &law).sqrt();
            let opt_t = tangential(&r.v_opt);
            let optimiser_sticks = dot(&opt_t, &opt_t).sqrt() < self.config.eps_v;

            let agree = law_sticks == optimiser_sticks;
            self.overall_agree += u64::from(agree);
            self.optimiser_sticks += u64::from(optimiser_sticks);
            self.law_sticks += u64::from(law_sticks);
            if r.time >= self.config.late_from_s {
                self.late_total += 1;
                self.late_agree += u64::from(agree);
            }
            if r.pair {
                self.pairs_total += 1;
                self.pairs_agree += u64::from(agree);
            }
            let k = match self.kinds.iter().position(|(kind, ..)| *kind == r.kind) {
                Some(k) => k,
                None => {
                    self.kinds.push((r.kind, 0, 0));
                    self.kinds.len() - 1
                }
            };
            self.kinds[k].1 += u64::from(agree);
            self.kinds[k].2 += 1;
            if !agree {
                if law_sticks {
                    self.law_sticks_optimiser_slides += 1;
                } else {
                    self.law_slides_optimiser_sticks += 1;
                }
            }

            let d = [
                law_t[0] - opt_t[0],
                law_t[1] - opt_t[1],
                law_t[2] - opt_t[2],
            ];
            let gap = dot(&d, &d).sqrt();
            self.gaps.push(gap);
            if self.gap_max.is_none_or(|m| gap > m.gap) {
                self.gap_max = Some(GapAt {
                    gap,
                    step: r.step,
                    node: r.node,
                    time: r.time,
                    pair: r.pair,
                    kind: r.kind,
                });
            }
        }
        Ok(())
    }

    /// The report so far (sorts a copy of the gaps).
    pub fn report(&self) -> CrossCheckReport {
        let mut sorted = self.gaps.clone();
        sorted.sort_unstable_by(f64::total_cmp);
        let approaching = self.gaps.len() as u64;
        CrossCheckReport {
            backend: self.backend.name(),
            adapter: self.backend.adapter(),
            config: self.config,
            records: self.records,
            approaching,
            overall: Agreement::from_counts(self.overall_agree, approaching),
            late: Agreement::from_counts(self.late_agree, self.late_total),
            pairs: Agreement::from_counts(self.pairs_agree, self.pairs_total),
            by_kind: self
                .kinds
                .iter()
                .map(|&(kind, agree, total)| KindAgreement {
                    kind,
                    agreement: Agreement::from_counts(agree, total),
                })
                .collect(),
            optimiser_sticks: self.optimiser_sticks,
            law_sticks: self.law_sticks,
            law_sticks_optimiser_slides: self.law_sticks_optimiser_slides,
            law_slides_optimiser_sticks: self.law_slides_optimiser_sticks,
            gap_median: quantile(&sorted, 0.5),
            gap_p95: quantile(&sorted, 0.95),
            gap_max: self.gap_max,
        }
    }

    /// The final report.
    pub fn finish(self) -> CrossCheckReport {
        self.report()
    }
}

fn dot(a: &[f64; 3], b: &[f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn metres_per_second(value: Option<f64>) -> String {
    value.map_or_else(|| "n/a".to_owned(), |v| format!("{v:.3e} m/s"))
}

impl fmt::Display for CrossCheckReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "cross-check against the impulse law ({}), eps_v = {} m/s",
            self.backend, self.config.eps_v
        )?;
        writeln!(
            f,
            "  records {}, approaching {}",
            self.records, self.approaching
        )?;
        writeln!(
            f,
            "  stick/slide agreement {} overall, {} from t = {} s",
            self.overall, self.late, self.config.late_from_s
        )?;
        if self.pairs.total > 0 {
            writeln!(
                f,
                "  of which pairs between bodies or with an obstacle mesh: {}",
                self.pairs
            )?;
        }
        if self.by_kind.len() > 1 {
            let kinds: Vec<String> = self
                .by_kind
                .iter()
                .map(|k| format!("{} {}", k.kind, k.agreement))
                .collect();
            writeln!(f, "  by contact type: {}", kinds.join(", "))?;
        }
        writeln!(
            f,
            "  sticking: the optimiser on {}, the law on {} of the approaching records",
            self.optimiser_sticks, self.law_sticks
        )?;
        writeln!(
            f,
            "  disagreements: law sticks/optimiser slides {}, law slides/optimiser sticks {}",
            self.law_sticks_optimiser_slides, self.law_slides_optimiser_sticks
        )?;
        write!(
            f,
            "  tangential gap: median {}, p95 {}",
            metres_per_second(self.gap_median),
            metres_per_second(self.gap_p95)
        )?;
        if let Some(m) = self.gap_max {
            let at = if m.pair {
                format!("the {} pair at node {}", m.kind, m.node)
            } else {
                format!("node {}", m.node)
            };
            write!(
                f,
                ", max {:.3e} m/s at step {} (t = {:.2} s), {at}",
                m.gap, m.step, m.time
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cross_check::impulse_law::CpuLaw;

    /// The slope of SPEC.md §1: n = (0.1, 1)/‖(0.1, 1)‖, downhill tangent t = (1, −0.1)/‖·‖.
    fn slope() -> ([f64; 2], [f64; 2]) {
        let k = 1.01_f64.sqrt();
        ([0.1 / k, 1.0 / k], [1.0 / k, -0.1 / k])
    }

    fn record(
        step: u32,
        time: f64,
        vt_free: f64,
        vn_free: f64,
        vt_opt: f64,
        mu: f64,
    ) -> ContactRecord {
        let (n, t) = slope();
        ContactRecord {
            step,
            node: step % 25,
            time,
            v_free: [
                vt_free * t[0] + vn_free * n[0],
                vt_free * t[1] + vn_free * n[1],
                0.0,
            ],
            normal: [n[0], n[1], 0.0],
            restitution: 0.0,
            friction: mu,
            v_opt: [vt_opt * t[0], vt_opt * t[1], 0.0],
            pair: false,
            kind: "node-half_space",
        }
    }

    fn check(records: &[ContactRecord]) -> CrossCheckReport {
        let mut cc = CrossCheck::new(
            Box::new(CpuLaw::single_threaded()),
            CrossCheckConfig::default(),
        );
        cc.push_batch(records).unwrap();
        cc.finish()
    }

    #[test]
    fn counts_only_approaching_and_classifies_stick_and_slide() {
        let records = [
            // Law sticks (0.05 ≤ 0.2·0.5), optimiser sticks: agree.
            record(0, 0.5, 0.05, -0.5, 0.0, 0.2),
            // Law slides to 1 − 0.1 = 0.9, optimiser slides at 0.9: agree, gap ≈ 0.
            record(1, 0.5, 1.0, -0.5, 0.9, 0.2),
            // Law slides, optimiser sticks: disagree (late), gap 0.9.
            record(2, 1.5, 1.0, -0.5, 0.0, 0.2),
            // Law sticks, optimiser slides at 0.3: disagree (late), gap 0.3.
            record(3, 2.0, 0.05, -0.5, 0.3, 0.2),
            // Leaving the surface: not counted.
            record(4, 2.0, 1.0, 0.5, 1.0, 0.2),
        ];
        let report = check(&records);
        assert_eq!(report.records, 5);
        assert_eq!(report.approaching, 4);
        assert_eq!((report.overall.agree, report.overall.total), (2, 4));
        assert_eq!((report.late.agree, report.late.total), (0, 2));
        assert_eq!(report.law_slides_optimiser_sticks, 1);
        assert_eq!(report.law_sticks_optimiser_slides, 1);
        // Sticking: the optimiser in records 0 and 2, the law in 0 and 3.
        assert_eq!((report.optimiser_sticks, report.law_sticks), (2, 2));
        let max = report.gap_max.unwrap();
        assert_eq!((max.step, max.node), (2, 2));
        assert!((max.gap - 0.9).abs() < 1e-6, "{max:?}");
        // Gaps ≈ {0, 0, 0.9, 0.3}: median 0.15, p95 0.3 + 0.85·0.6 = 0.81.
        assert!((report.gap_median.unwrap() - 0.15).abs() < 1e-6);
        assert!((report.gap_p95.unwrap() - 0.81).abs() < 1e-6);
        let text = report.to_string();
        assert!(text.contains("50.00 % (2/4) overall"), "{text}");
        assert!(text.contains("at step 2"), "{text}");
    }

    /// 3D records on a level floor, n = (0, 0, 1), sliding in a direction of the plane that is
    /// not an axis: v_free = (0.3, 0.4, −0.5), μ = 0.2. By hand: the law removes μ|v_n| = 0.1
    /// of the 0.5 m/s tangential speed along (0.6, 0.8), leaving (0.24, 0.32, 0); with
    /// (0.03, 0.04, −0.5) (0.05 ≤ 0.1) it sticks. An optimiser at (0.24, 0.32, 0) agrees
    /// (gap 0); one at (0, 0.4, 0) slides too (agree) with gap ‖(0.24, −0.08)‖ = 0.25298; one at
    /// rest disagrees with the slide (gap 0.4).
    #[test]
    fn three_dimensional_records_compare_in_the_tangent_plane() {
        let rec = |v_free: [f64; 3], v_opt: [f64; 3]| ContactRecord {
            step: 0,
            node: 0,
            time: 0.0,
            v_free,
            normal: [0.0, 0.0, 1.0],
            restitution: 0.0,
            friction: 0.2,
            v_opt,
            pair: false,
            kind: "node-half_space",
        };
        let report = check(&[
            rec([0.3, 0.4, -0.5], [0.24, 0.32, 0.0]),
            rec([0.03, 0.04, -0.5], [0.0, 0.0, 0.0]),
            rec([0.3, 0.4, -0.5], [0.0, 0.4, 0.0]),
            rec([0.3, 0.4, -0.5], [0.0, 0.0, 0.0]),
        ]);
        assert_eq!((report.overall.agree, report.overall.total), (3, 4));
        assert_eq!(report.law_slides_optimiser_sticks, 1);
        let max = report.gap_max.unwrap();
        assert!((max.gap - 0.4).abs() < 1e-6, "{max:?}");
        // Gaps ≈ {0, 0, 0.25298, 0.4}: median (0 + 0.25298)/2.
        assert!((report.gap_median.unwrap() - 0.5 * 0.08f64.hypot(0.24)).abs() < 1e-6);
    }

    /// Agreement by contact type, in the order the types are met, and pairs apart: two
    /// half-space records (one agreeing), then three pair records of two types (the
    /// point-triangle one agreeing, the edge-edge ones one of two).
    #[test]
    fn agreement_is_counted_by_contact_type() {
        let kinded = |r: ContactRecord, kind: &'static str| ContactRecord {
            pair: kind != "node-half_space",
            kind,
            ..r
        };
        let records = [
            kinded(record(0, 0.5, 0.05, -0.5, 0.0, 0.2), "node-half_space"),
            kinded(record(1, 0.5, 1.0, -0.5, 0.0, 0.2), "node-half_space"),
            kinded(record(2, 0.5, 0.05, -0.5, 0.0, 0.2), "point-triangle"),
            kinded(record(3, 0.5, 1.0, -0.5, 0.9, 0.2), "edge-edge"),
            kinded(record(4, 0.5, 0.05, -0.5, 0.3, 0.2), "edge-edge"),
        ];
        let report = check(&records);
        let kinds: Vec<(&str, u64, u64)> = report
            .by_kind
            .iter()
            .map(|k| (k.kind, k.agreement.agree, k.agreement.total))
            .collect();
        assert_eq!(
            kinds,
            [
                ("node-half_space", 1, 2),
                ("point-triangle", 1, 1),
                ("edge-edge", 1, 2)
            ]
        );
        assert_eq!((report.pairs.agree, report.pairs.total), (2, 3));
        let text = report.to_string();
        assert!(
            text.contains("by contact type: node-half_space 50.00 % (1/2), point-triangle"),
            "{text}"
        );
    }

    #[test]
    fn batches_add_up_to_one_batch() {
        let records: Vec<_> = (0..1000)
            .map(|i| {
                let x = f64::from(i) * 0.37;
                record(
                    i,
                    f64::from(i) * 0.01,
                    x.sin(),
                    -x.cos().abs() - 0.01,
                    0.5 * x.sin(),
                    0.11,
                )
            })
            .collect();
        let whole = check(&records);
        let mut cc = CrossCheck::new(Box::new(CpuLaw::parallel()), CrossCheckConfig::default());
        for batch in records.chunks(77) {
            cc.push_batch(batch).unwrap();
        }
        let split = cc.finish();
        assert_eq!(whole.overall, split.overall);
        assert_eq!(whole.late, split.late);
        assert_eq!(whole.gap_median, split.gap_median);
        assert_eq!(whole.gap_p95, split.gap_p95);
        assert_eq!(whole.gap_max, split.gap_max);
    }

    #[test]
    fn empty_report_has_no_fractions() {
        let report = check(&[]);
        assert_eq!(report.overall.fraction, None);
        assert_eq!(report.gap_median, None);
        assert!(report.to_string().contains("n/a"));
        serde_json::to_string(&report).unwrap();
    }

    #[test]
    fn quantiles_interpolate() {
        assert_eq!(quantile(&[], 0.5), None);
        assert_eq!(quantile(&[2.0], 0.95), Some(2.0));
        assert_eq!(quantile(&[0.0, 1.0, 2.0, 3.0], 0.5), Some(1.5));
        assert_eq!(quantile(&[0.0, 10.0], 0.95), Some(9.5));
    }
}
