//! The friction coefficients of every pair of bodies and obstacles (SPEC.md §6, §7): a default
//! and entries for particular pairs. Bodies are numbered 0, 1, … in the order the system adds
//! them, obstacles after the bodies ([`FrictionTable::obstacle`]).

use serde::Serialize;

/// Static and kinetic friction coefficients μ_s ≥ μ_k ≥ 0 (dimensionless). μ_s holds up to
/// ε_v, μ_k from 2 ε_v (`contact::potentials::friction`); μ_s = μ_k is the book's single μ.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Coefficients {
    /// μ_s.
    pub mu_static: f64,
    /// μ_k.
    pub mu_kinetic: f64,
}

impl Coefficients {
    /// One coefficient μ for sticking and sliding.
    pub fn single(mu: f64) -> Self {
        Coefficients {
            mu_static: mu,
            mu_kinetic: mu,
        }
    }

    /// Whether both are zero (no friction at all).
    pub fn is_zero(&self) -> bool {
        self.mu_static == 0.0 && self.mu_kinetic == 0.0
    }
}

/// The coefficients of every pair: `default` unless an entry names the pair.
#[derive(Clone, Debug, PartialEq)]
pub struct FrictionTable {
    /// The coefficients of a pair no entry names.
    pub default: Coefficients,
    /// Entries (a, b, coefficients), unordered pairs of body or obstacle numbers.
    pub entries: Vec<(usize, usize, Coefficients)>,
    /// Number of bodies: obstacle i is number `bodies + i`.
    pub bodies: usize,
}

impl FrictionTable {
    /// A table of one coefficient pair for everything.
    pub fn uniform(coefficients: Coefficients) -> Self {
        FrictionTable {
            default: coefficients,
            entries: Vec::new(),
            bodies: 0,
        }
    }

    /// The number of obstacle `i`.
    pub fn obstacle(&self, i: usize) -> usize {
        self.bodies + i
    }

    /// The coefficients between bodies or obstacles `a` and `b`.
    pub fn get(&self, a: usize, b: usize) -> Coefficients {
        self.entries
            .iter()
            .find(|(p, q, _)| (*p == a && *q == b) || (*p == b && *q == a))
            .map_or(self.default, |e| e.2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_overrides_the_default_in_either_order() {
        let mut table = FrictionTable::uniform(Coefficients::single(0.3));
        table.bodies = 2;
        let belt = table.obstacle(0);
        table.entries.push((
            1,
            belt,
            Coefficients {
                mu_static: 0.5,
                mu_kinetic: 0.4,
            },
        ));
        assert_eq!(table.get(belt, 1).mu_static, 0.5);
        assert_eq!(table.get(1, belt).mu_kinetic, 0.4);
        assert_eq!(table.get(0, belt), Coefficients::single(0.3));
        assert_eq!(belt, 2);
    }
}
