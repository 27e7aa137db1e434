//! The barrier function b(d) of one pair (SPEC.md §2, §6): its kinds and constants, value and
//! derivatives in the distance d (m). The potential that sums it over a pair type's collisions
//! is [`crate::contact::potentials::barrier`]; the collisions read it for the normal force λ.
//!
//! The book's form (C¹ at d̂), with s = d/d̂ and contact area A: b = A d̂ (κ/2)(s − 1) ln s (J);
//! ∂b/∂d = A d̂ (κ/2)(ln s/d̂ + (s − 1)/d) (N); ∂²b/∂d² = A d̂ κ (d + d̂)/(2 d² d̂) (N/m).
//! [`BarrierKind::Ipc`] takes IPC's C² form of [`ipc`] instead.

pub mod ipc;

use serde::{Deserialize, Serialize};

/// Which barrier function (case key `barrier.kind`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BarrierKind {
    /// The book's A d̂ (κ/2)(s − 1) ln s, C¹ at d̂ (SPEC.md §2).
    #[default]
    Book,
    /// IPC's −(Aκ/2d̂)(d − d̂)² ln(d/d̂), C² at d̂ (SPEC.md §6; [`ipc`]).
    Ipc,
}

/// The barrier's constants.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BarrierParams {
    /// Activation distance d̂, m.
    pub dhat: f64,
    /// Stiffness κ, N/m² per unit contact area (Pa).
    pub kappa: f64,
    /// The barrier function.
    pub kind: BarrierKind,
}

impl BarrierParams {
    /// b(d) for a pair of contact area `area`, J; +∞ at or past contact.
    #[inline]
    pub fn value(&self, d: f64, area: f64) -> f64 {
        if self.kind == BarrierKind::Ipc {
            ipc::value(d, self.dhat, self.kappa, area)
        } else if d >= self.dhat {
            0.0
        } else if d <= 0.0 {
            f64::INFINITY
        } else {
            let s = d / self.dhat;
            area * self.dhat * (self.kappa / 2.0) * (s - 1.0) * s.ln()
        }
    }

    /// ∂b/∂d, N (≤ 0 inside d̂; zero outside).
    #[inline]
    pub fn first(&self, d: f64, area: f64) -> f64 {
        if self.kind == BarrierKind::Ipc {
            ipc::first(d, self.dhat, self.kappa, area)
        } else if d >= self.dhat {
            0.0
        } else {
            let s = d / self.dhat;
            area * self.dhat * (self.kappa / 2.0) * (s.ln() / self.dhat + (s - 1.0) / d)
        }
    }

    /// ∂²b/∂d², N/m.
    #[inline]
    pub fn second(&self, d: f64, area: f64) -> f64 {
        if self.kind == BarrierKind::Ipc {
            ipc::second(d, self.dhat, self.kappa, area)
        } else if d >= self.dhat {
            0.0
        } else {
            area * self.dhat * self.kappa * (d + self.dhat) / (2.0 * d * d * self.dhat)
        }
    }
}
