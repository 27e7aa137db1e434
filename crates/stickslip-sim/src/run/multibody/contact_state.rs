//! Whether a contact pair sticks, slides or is in between, by its tangential speed against the
//! smoothed friction's ε_v (SPEC.md §2): the one rule behind `contacts.csv`'s `state` column and
//! the viewer's contact colours.

use crate::contact::potentials::friction::KINETIC_FROM_EPS_V;

/// A contact pair's friction regime.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ContactState {
    /// Tangential speed at most ε_v: the static coefficient applies.
    Stick,
    /// Between ε_v and [`KINETIC_FROM_EPS_V`] ε_v: the blend from static to kinetic.
    Transition,
    /// From [`KINETIC_FROM_EPS_V`] ε_v: the kinetic coefficient applies.
    Slide,
}

impl ContactState {
    /// The regime of a pair slipping at `slip` m/s under smoothing speed `eps_v` m/s
    /// (`contact::potentials::friction`).
    pub fn of_slip(slip: f64, eps_v: f64) -> ContactState {
        if slip <= eps_v {
            ContactState::Stick
        } else if slip >= KINETIC_FROM_EPS_V * eps_v {
            ContactState::Slide
        } else {
            ContactState::Transition
        }
    }

    /// Its name in `contacts.csv`: `stick`, `transition` or `slide`.
    pub fn name(self) -> &'static str {
        match self {
            ContactState::Stick => "stick",
            ContactState::Transition => "transition",
            ContactState::Slide => "slide",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ContactState;

    #[test]
    fn the_bounds_of_the_blend_split_the_regimes() {
        let eps_v = 1e-4;
        assert_eq!(ContactState::of_slip(0.0, eps_v), ContactState::Stick);
        assert_eq!(ContactState::of_slip(eps_v, eps_v), ContactState::Stick);
        assert_eq!(
            ContactState::of_slip(1.5 * eps_v, eps_v),
            ContactState::Transition
        );
        assert_eq!(
            ContactState::of_slip(2.0 * eps_v, eps_v),
            ContactState::Slide
        );
        assert_eq!(ContactState::Slide.name(), "slide");
    }
}
