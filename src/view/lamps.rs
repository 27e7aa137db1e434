//! The strip of lamps of seed 001: one lamp a check, green while it holds, red for good once it
//! fails, naming the failure.

/// The state of one lamp.
#[derive(Clone, Debug, PartialEq)]
pub enum LampState {
    /// Not judged yet (e.g. too few contact records for an agreement fraction to mean much).
    Pending,
    /// The check has held at every step so far.
    Green,
    /// The check failed; it stays red until the scene is reset.
    Red {
        /// The step at which it first failed.
        step: usize,
        /// What failed, in words.
        detail: String,
    },
}

/// One check and its lamp.
#[derive(Clone, Debug, PartialEq)]
pub struct Lamp {
    /// The check, in words (shown beside the lamp).
    pub name: &'static str,
    /// Its state.
    pub state: LampState,
}

impl Lamp {
    /// A lamp not yet judged.
    pub fn new(name: &'static str) -> Lamp {
        Lamp {
            name,
            state: LampState::Pending,
        }
    }

    /// Records this step's outcome: `Some(true)` holds, `Some(false)` fails (with `detail`),
    /// `None` not judged this step. Once red, a lamp stays red.
    pub fn judge(&mut self, step: usize, outcome: Option<bool>, detail: impl FnOnce() -> String) {
        if matches!(self.state, LampState::Red { .. }) {
            return;
        }
        match outcome {
            Some(true) => self.state = LampState::Green,
            Some(false) => {
                self.state = LampState::Red {
                    step,
                    detail: detail(),
                }
            }
            None => {}
        }
    }

    /// Whether the lamp is red.
    pub fn is_red(&self) -> bool {
        matches!(self.state, LampState::Red { .. })
    }
}

/// A strip of lamps.
#[derive(Clone, Debug, PartialEq)]
pub struct LampStrip {
    /// The lamps, in display order.
    pub lamps: Vec<Lamp>,
}

impl LampStrip {
    /// A strip with one pending lamp per name.
    pub fn new(names: &[&'static str]) -> LampStrip {
        LampStrip {
            lamps: names.iter().map(|&n| Lamp::new(n)).collect(),
        }
    }

    /// The first red lamp, if any.
    pub fn first_red(&self) -> Option<&Lamp> {
        self.lamps.iter().find(|l| l.is_red())
    }

    /// Whether no lamp is red.
    pub fn all_hold(&self) -> bool {
        self.first_red().is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_red_lamp_stays_red() {
        let mut l = Lamp::new("x");
        l.judge(1, None, String::new);
        assert_eq!(l.state, LampState::Pending);
        l.judge(2, Some(true), String::new);
        assert_eq!(l.state, LampState::Green);
        l.judge(3, Some(false), || "broke".into());
        l.judge(4, Some(true), String::new);
        assert_eq!(
            l.state,
            LampState::Red {
                step: 3,
                detail: "broke".into()
            }
        );
    }
}
