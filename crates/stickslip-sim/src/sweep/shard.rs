//! Which cells a process runs: shard I of N takes the cells whose index is I modulo N
//! (round-robin, so that every shard gets cells from all over the grid and the costly ones
//! near μ = tan θ are spread evenly). The N shards are disjoint and cover every cell.
//!
//! Where I and N come from, first that applies:
//! 1. `--shard I/N` (0 ≤ I < N);
//! 2. a Slurm job array: I = `SLURM_ARRAY_TASK_ID` − `SLURM_ARRAY_TASK_MIN`,
//!    N = `SLURM_ARRAY_TASK_COUNT` (the array must be a contiguous range with step 1, e.g.
//!    `--array=0-3` or `1-4`);
//! 3. a Kubernetes Indexed Job: I = `JOB_COMPLETION_INDEX`, N = `--shard-count N`, else the
//!    environment variable [`SHARD_COUNT_ENV`] (set it to the Job's `completions`);
//! 4. otherwise 0/1: every cell.
//!
//! Settings that would be ignored are refused (exit 2) instead: `--shard-count` beside
//! `--shard`, and a job array's or Job's count (`SLURM_ARRAY_TASK_COUNT`, …,
//! [`SHARD_COUNT_ENV`]) without the task's id or index.

use super::SweepError;

/// The environment variable giving N under a Kubernetes Indexed Job (with `JOB_COMPLETION_INDEX`).
pub const SHARD_COUNT_ENV: &str = "STICKSLIP_SHARD_COUNT";

/// Shard `index` of `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// I, from 0.
    pub index: usize,
    /// N ≥ 1.
    pub count: usize,
}

impl Shard {
    /// Every cell.
    pub const ALL: Shard = Shard { index: 0, count: 1 };

    /// Whether the cell at `cell_index` belongs to this shard.
    pub fn owns(&self, cell_index: usize) -> bool {
        cell_index % self.count == self.index
    }

    /// `I/N` as `--shard` takes it.
    pub fn parse(option: &str, text: &str) -> Result<Shard, SweepError> {
        let bad = |rule: &str| SweepError::Option {
            option: option.into(),
            rule: rule.into(),
            value: text.into(),
        };
        let (i, n) = text
            .split_once('/')
            .ok_or_else(|| bad("expected I/N, e.g. 0/4 (shard I of N, I from 0)"))?;
        let i: usize = i
            .trim()
            .parse()
            .map_err(|_| bad("I must be a whole number >= 0"))?;
        let n: usize = n
            .trim()
            .parse()
            .map_err(|_| bad("N must be a whole number >= 1"))?;
        Shard::new(i, n).ok_or_else(|| bad("needs N >= 1 and 0 <= I < N"))
    }

    /// Shard `index` of `count`, when 0 ≤ index < count.
    pub fn new(index: usize, count: usize) -> Option<Shard> {
        (count >= 1 && index < count).then_some(Shard { index, count })
    }

    /// The shard by the rules of the module docs; `env` reads an environment variable;
    /// also says where it came from.
    pub fn resolve(
        flag: Option<&str>,
        shard_count_flag: Option<usize>,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<(Shard, &'static str), SweepError> {
        if let Some(text) = flag {
            if let Some(n) = shard_count_flag {
                return Err(SweepError::Option {
                    option: "--shard-count".into(),
                    rule: "cannot be given with --shard I/N, which already says the count N".into(),
                    value: n.to_string(),
                });
            }
            return Ok((Shard::parse("--shard", text)?, "--shard"));
        }
        let number = |name: &str| -> Result<Option<usize>, SweepError> {
            match env(name) {
                None => Ok(None),
                Some(v) => v
                    .trim()
                    .parse::<usize>()
                    .map(Some)
                    .map_err(|_| SweepError::Option {
                        option: format!("environment variable {name}"),
                        rule: "must be a whole number >= 0".into(),
                        value: v,
                    }),
            }
        };
        if let Some(id) = number("SLURM_ARRAY_TASK_ID")? {
            let min = number("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
            let count = number("SLURM_ARRAY_TASK_COUNT")?;
            let bad = |rule: &str| SweepError::Option {
                option: "Slurm job array".into(),
                rule: rule.into(),
                value: format!(
                    "SLURM_ARRAY_TASK_ID={id}, SLURM_ARRAY_TASK_MIN={min}, SLURM_ARRAY_TASK_COUNT={}",
                    count.map_or("(unset)".into(), |c| c.to_string())
                ),
            };
            let count = count.ok_or_else(|| bad("SLURM_ARRAY_TASK_COUNT must be set"))?;
            // A stepped or sparse array (--array=0-6:2, --array=1,5) numbers its tasks with gaps:
            // id − min would skip shards and overlap none of the missing ones.
            let step = number("SLURM_ARRAY_TASK_STEP")?.unwrap_or(1);
            let max = number("SLURM_ARRAY_TASK_MAX")?;
            if step != 1
                || max.is_some_and(|max| max.checked_sub(min).map(|d| d + 1) != Some(count))
            {
                return Err(bad(
                    "the array must be a contiguous range with step 1 (e.g. --array=0-3): SLURM_ARRAY_TASK_STEP must be 1 and MAX - MIN + 1 the count",
                ));
            }
            let index = id
                .checked_sub(min)
                .ok_or_else(|| bad("the task id must be >= SLURM_ARRAY_TASK_MIN"))?;
            let shard = Shard::new(index, count).ok_or_else(|| {
                bad("the array must be a contiguous range with step 1 (--array=0-3): id - min must be below the count")
            })?;
            return Ok((shard, "Slurm job array"));
        }
        // A job array's count without the task's id (or a Job's count without its index) is
        // a broken environment: running every cell there would repeat the other tasks' work.
        let slurm_array = [
            "SLURM_ARRAY_TASK_COUNT",
            "SLURM_ARRAY_TASK_MIN",
            "SLURM_ARRAY_TASK_MAX",
            "SLURM_ARRAY_TASK_STEP",
        ];
        if let Some(name) = slurm_array.into_iter().find(|n| env(n).is_some()) {
            return Err(SweepError::Option {
                option: "Slurm job array".into(),
                rule: format!(
                    "{name} is set but SLURM_ARRAY_TASK_ID is not: this task cannot tell which shard is its own; give --shard I/N"
                ),
                value: format!("{name}={}", env(name).unwrap_or_default()),
            });
        }
        if let Some(index) = number("JOB_COMPLETION_INDEX")? {
            let (count, from) = match (shard_count_flag, number(SHARD_COUNT_ENV)?) {
                (Some(n), _) => (n, "--shard-count"),
                (None, Some(n)) => (n, SHARD_COUNT_ENV),
                (None, None) => {
                    return Err(SweepError::Option {
                        option: "Kubernetes Indexed Job".into(),
                        rule: format!(
                            "JOB_COMPLETION_INDEX is set but the number of shards is not: give --shard-count N or set {SHARD_COUNT_ENV} (the Job's completions)"
                        ),
                        value: format!("JOB_COMPLETION_INDEX={index}"),
                    });
                }
            };
            let shard = Shard::new(index, count).ok_or_else(|| SweepError::Option {
                option: "Kubernetes Indexed Job".into(),
                rule: format!("JOB_COMPLETION_INDEX must be below the shard count (from {from})"),
                value: format!("JOB_COMPLETION_INDEX={index}, count {count}"),
            })?;
            return Ok((shard, "Kubernetes Indexed Job"));
        }
        if let Some(v) = env(SHARD_COUNT_ENV) {
            return Err(SweepError::Option {
                option: format!("environment variable {SHARD_COUNT_ENV}"),
                rule: "is for a Kubernetes Indexed Job, but JOB_COMPLETION_INDEX is not set: this process cannot tell which shard is its own; give --shard I/N".into(),
                value: v,
            });
        }
        if let Some(n) = shard_count_flag {
            return Err(SweepError::Option {
                option: "--shard-count".into(),
                rule: "is for a Kubernetes Indexed Job (JOB_COMPLETION_INDEX); elsewhere give --shard I/N".into(),
                value: n.to_string(),
            });
        }
        Ok((Shard::ALL, "default (every cell)"))
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn slurm_ids_are_taken_from_the_arrays_minimum() {
        let vars = [
            ("SLURM_ARRAY_TASK_ID", "3"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ];
        let (s, _) = Shard::resolve(None, None, env(&vars)).unwrap();
        assert_eq!(s, Shard { index: 2, count: 4 });
        // --shard wins over the environment.
        let (s, from) = Shard::resolve(Some("0/2"), None, env(&vars)).unwrap();
        assert_eq!((s, from), (Shard { index: 0, count: 2 }, "--shard"));
    }

    #[test]
    fn kubernetes_needs_a_count_and_a_step_array_is_refused() {
        let k8s = [("JOB_COMPLETION_INDEX", "2")];
        assert!(Shard::resolve(None, None, env(&k8s)).is_err());
        let (s, _) = Shard::resolve(None, Some(3), env(&k8s)).unwrap();
        assert_eq!(s, Shard { index: 2, count: 3 });
        let with_env = [("JOB_COMPLETION_INDEX", "2"), (SHARD_COUNT_ENV, "2")];
        assert!(Shard::resolve(None, None, env(&with_env)).is_err());
        // --array=0-6:2 has ids 0, 2, 4, 6 and count 4.
        let stepped = [
            ("SLURM_ARRAY_TASK_ID", "2"),
            ("SLURM_ARRAY_TASK_MIN", "0"),
            ("SLURM_ARRAY_TASK_MAX", "6"),
            ("SLURM_ARRAY_TASK_STEP", "2"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ];
        assert!(Shard::resolve(None, None, env(&stepped)).is_err());
        // --array=1,5: no step variable, but MAX - MIN + 1 = 5 is not the count 2.
        let sparse = [
            ("SLURM_ARRAY_TASK_ID", "1"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_MAX", "5"),
            ("SLURM_ARRAY_TASK_COUNT", "2"),
        ];
        assert!(Shard::resolve(None, None, env(&sparse)).is_err());
        let step = [
            ("SLURM_ARRAY_TASK_ID", "6"),
            ("SLURM_ARRAY_TASK_MIN", "0"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ];
        assert!(Shard::resolve(None, None, env(&step)).is_err());
    }

    #[test]
    fn bad_shard_options_are_refused() {
        for bad in ["4/4", "1", "a/2", "0/0", "-1/2"] {
            assert!(Shard::parse("--shard", bad).is_err(), "{bad}");
        }
    }
}
