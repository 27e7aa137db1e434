//! The settings every scene shares whatever its dimension (SPEC.md §2, §6, §7): friction (the
//! default pair, per-pair entries, ε_v, the lagging), the barrier, time stepping and Newton, and
//! a body's material, validated once here for 2D ([`super::MultibodyScene`]) and 3D
//! ([`super::solid::SolidScene`]) scenes alike.

use super::schema::{BarrierSection, FrictionSection};
use crate::contact::potentials::friction::StickModel;
use crate::contact::{BarrierParams, Coefficients, ContactStage, FrictionParams, FrictionTable};
use crate::energy::Projection;
use crate::energy::neo_hookean::Elasticity;
use crate::scene::bodies::Material;
use crate::scene::case_file::{CaseError, NewtonSection, TimeSection, Validator};
use crate::scene::limits::{MAX_HALVINGS, MAX_NEWTON_ITERATIONS, MAX_STEPS};
use crate::solver::{InitialGuess, Lagging, SolverSettings};

/// The validated friction, barrier, time and Newton settings of a scene, 2D or 3D: the
/// `[friction]`, `[barrier]`, `[time]` and `[newton]` sections in SI units.
#[derive(Clone, Debug)]
pub struct SceneSettings {
    /// The default friction coefficients.
    pub friction: Coefficients,
    /// Per-pair coefficients (body or obstacle numbers, in the friction table's numbering).
    pub friction_pairs: Vec<(usize, usize, Coefficients)>,
    /// ε_v, m/s.
    pub eps_v: f64,
    /// Lagging of λ.
    pub lagging: Lagging,
    /// Implicit lagging's tolerance on λ's relative change.
    pub lagging_tol: f64,
    /// Implicit lagging's bound on re-solves a step.
    pub max_lagging: usize,
    /// How friction holds a sticking contact (`friction.stick`, `friction.eps_d`; SPEC.md §9).
    pub stick: StickModel,
    /// The barrier.
    pub barrier: BarrierParams,
    /// The barrier's normal damping β_c, s (zero: none; `contact::potentials::normal_damping`).
    pub contact_damping: f64,
    /// h, s.
    pub h: f64,
    /// Duration, s.
    pub duration: f64,
    /// Newton's tolerance, m/s.
    pub tol: f64,
    /// Newton's iteration bound.
    pub max_iterations: usize,
    /// Iterations every step takes before Newton may stop (`newton.min_iterations`).
    pub min_iterations: usize,
    /// The line search's halving bound.
    pub max_halvings: usize,
    /// The elastic terms' Hessian projection (springs and neo-Hookean).
    pub projection: Projection,
    /// The step filters' fraction.
    pub filter_fraction: f64,
    /// The stick-zone filter.
    pub stick_filter: bool,
    /// Where Newton starts a step.
    pub initial_guess: InitialGuess,
}

impl SceneSettings {
    /// The solver's settings.
    pub fn solver_settings(&self) -> SolverSettings {
        SolverSettings {
            h: self.h,
            tol: self.tol,
            max_iterations: self.max_iterations,
            min_iterations: self.min_iterations,
            max_halvings: self.max_halvings,
            filter_fraction: self.filter_fraction,
            lagging: self.lagging,
            lagging_tol: self.lagging_tol,
            max_lagging: self.max_lagging,
            initial_guess: self.initial_guess,
        }
    }

    /// Number of time steps for `duration` seconds (the nearest whole step).
    pub fn steps_for(&self, duration: f64) -> usize {
        (duration / self.h).round().max(0.0) as usize
    }

    /// The contact stage of a scene of `bodies` bodies with these settings, before any pair
    /// set is added: the barrier, the friction table (bodies numbered first), friction's
    /// parameters, the normal damping and the stick model.
    pub fn contact_stage<const D: usize>(&self, bodies: usize) -> ContactStage<D> {
        let table = FrictionTable {
            default: self.friction,
            entries: self.friction_pairs.clone(),
            bodies,
        };
        ContactStage::new(
            self.barrier,
            FrictionParams {
                eps_v: self.eps_v,
                projection: Projection::Clamp,
                stick_filter: self.stick_filter,
            },
            table,
        )
        .with_normal_damping(self.contact_damping)
        .with_stick(self.stick)
    }
}

impl Validator<'_> {
    /// The friction table's coefficients: μ_s ≥ μ_k ≥ 0.
    pub(super) fn coefficients(
        &self,
        key: &str,
        mu_s: f64,
        mu_k: f64,
    ) -> Result<Coefficients, CaseError> {
        self.non_negative(&format!("{key}.mu_static"), mu_s)?;
        self.non_negative(&format!("{key}.mu_kinetic"), mu_k)?;
        if mu_s < mu_k {
            return Err(self.invalid(
                &format!("{key}.mu_static"),
                &format!("must be >= {key}.mu_kinetic"),
                format!("{mu_s} < {mu_k}"),
            ));
        }
        Ok(Coefficients {
            mu_static: mu_s,
            mu_kinetic: mu_k,
        })
    }

    /// The friction, barrier, time and Newton sections of a scene whose bodies and obstacles
    /// are `names` (in the friction table's numbering), with `gravity_max` the largest
    /// component of gravity, m/s² (for the tolerance that freezes motion, SPEC.md §6).
    pub(super) fn scene_settings(
        &self,
        names: &[&str],
        fr: &FrictionSection,
        barrier: &BarrierSection,
        time: &TimeSection,
        n: &NewtonSection,
        gravity_max: f64,
    ) -> Result<SceneSettings, CaseError> {
        let number = |key: &str, name: &str| -> Result<usize, CaseError> {
            names.iter().position(|m| *m == name).ok_or_else(|| {
                self.invalid(
                    key,
                    &format!(
                        "must name a body or obstacle of the scene ({})",
                        names.join(", ")
                    ),
                    name,
                )
            })
        };
        let (mu_s, mu_k) = self.mu_pair(fr.mu, fr.mu_static, fr.mu_kinetic)?;
        let friction = self.coefficients("friction", mu_s, mu_k)?;
        self.positive("friction.eps_v", fr.eps_v)?;
        self.positive("friction.lagging_tol", fr.lagging_tol)?;
        self.max_lagging("friction.max_lagging", fr.max_lagging)?;
        let mut friction_pairs = Vec::new();
        // Each two members once: a second entry would otherwise be silently ignored.
        let mut seen = std::collections::HashMap::<[usize; 2], &str>::new();
        for (pair, p) in &fr.pairs {
            let key = format!("friction.pairs.{pair}");
            let a = number(&format!("{key}.between"), &p.between[0])?;
            let b = number(&format!("{key}.between"), &p.between[1])?;
            if a == b {
                return Err(self.invalid(
                    &format!("{key}.between"),
                    "must name two different bodies or obstacles",
                    format!("{:?}", p.between),
                ));
            }
            if let Some(first) = seen.insert([a.min(b), a.max(b)], pair) {
                return Err(self.invalid(
                    &format!("{key}.between"),
                    &format!(
                        "names the same two bodies or obstacles as friction.pairs.{first}: one entry a pair"
                    ),
                    format!("{:?}", p.between),
                ));
            }
            friction_pairs.push((a, b, self.coefficients(&key, p.mu_static, p.mu_kinetic)?));
        }
        self.positive("barrier.dhat", barrier.dhat)?;
        self.positive("barrier.kappa", barrier.kappa)?;
        self.non_negative("barrier.damping", barrier.damping)?;
        self.positive("time.h", time.h)?;
        self.positive("time.duration", time.duration)?;
        let steps = (time.duration / time.h).round();
        if !(1.0..=MAX_STEPS).contains(&steps) {
            return Err(self.invalid(
                "time.h",
                &format!("duration / h must give between 1 and {MAX_STEPS:e} steps"),
                format!("{} s / {} s", time.duration, time.h),
            ));
        }
        crate::scene::case_file::whole_steps(time.duration, time.h)
            .map_err(|rule| self.invalid("time.duration", &rule, format!("{} s", time.duration)))?;
        self.positive("newton.tol", n.tol)?;
        let stick = self.stick_model(
            fr.stick,
            fr.eps_d,
            fr.eps_v,
            time.h,
            barrier.dhat,
            n.stick_filter,
        )?;
        let freeze = gravity_max * time.h;
        if freeze > 0.0 && n.tol >= freeze {
            return Err(self.invalid(
                "newton.tol",
                &format!(
                    "must be below |g|h = {freeze:.4e} m/s, the first Newton residual of a body at rest (SPEC.md §6)"
                ),
                n.tol,
            ));
        }
        if !(1..=MAX_NEWTON_ITERATIONS).contains(&n.max_iterations) {
            return Err(self.invalid(
                "newton.max_iterations",
                &format!("must be at least 1 and at most {MAX_NEWTON_ITERATIONS}"),
                n.max_iterations,
            ));
        }
        if n.min_iterations() > n.max_iterations {
            return Err(self.invalid(
                "newton.min_iterations",
                "must be at most newton.max_iterations",
                format!("{} > {}", n.min_iterations(), n.max_iterations),
            ));
        }
        if !(1..=MAX_HALVINGS).contains(&n.max_halvings) {
            return Err(self.invalid(
                "newton.max_halvings",
                &format!("must be at least 1 and at most {MAX_HALVINGS}"),
                n.max_halvings,
            ));
        }
        if !(n.filter_fraction > 0.0 && n.filter_fraction < 1.0) {
            return Err(self.invalid(
                "newton.filter_fraction",
                "must be in (0, 1)",
                n.filter_fraction,
            ));
        }
        Ok(SceneSettings {
            friction,
            friction_pairs,
            eps_v: fr.eps_v,
            lagging: fr.lagging,
            lagging_tol: fr.lagging_tol,
            max_lagging: fr.max_lagging,
            stick,
            barrier: BarrierParams {
                dhat: barrier.dhat,
                kappa: barrier.kappa,
                kind: barrier.kind,
            },
            contact_damping: barrier.damping,
            h: time.h,
            duration: time.duration,
            tol: n.tol,
            max_iterations: n.max_iterations,
            min_iterations: n.min_iterations(),
            max_halvings: n.max_halvings,
            projection: n.projection,
            filter_fraction: n.filter_fraction,
            stick_filter: n.stick_filter,
            initial_guess: n.initial_guess.unwrap_or(InitialGuess::Inertial),
        })
    }

    /// Body `name`'s material: `"mass_spring"` with `stiffness` (N/m), or `"neo_hookean"` with
    /// `youngs_modulus` (Pa, > 0) and `poisson_ratio` in (−1, 0.5); a key of the other material
    /// refused.
    pub(super) fn material(
        &self,
        name: &str,
        material: &str,
        stiffness: Option<f64>,
        youngs_modulus: Option<f64>,
        poisson_ratio: Option<f64>,
    ) -> Result<Material, CaseError> {
        let key = |k: &str| format!("bodies.{name}.{k}");
        let unused = |k: &str, given: bool, what: &str| -> Result<(), CaseError> {
            if given {
                Err(self.invalid(&key(k), &format!("does not apply to {what}"), "given"))
            } else {
                Ok(())
            }
        };
        let need = |k: &str, x: Option<f64>| -> Result<f64, CaseError> {
            let x = x.ok_or_else(|| self.invalid(&key(k), "missing", "nothing"))?;
            self.positive(&key(k), x)?;
            Ok(x)
        };
        match material {
            "mass_spring" => {
                let what = "material = \"mass_spring\"";
                unused("youngs_modulus", youngs_modulus.is_some(), what)?;
                unused("poisson_ratio", poisson_ratio.is_some(), what)?;
                Ok(Material::MassSpring {
                    stiffness: need("stiffness", stiffness)?,
                })
            }
            "neo_hookean" => {
                unused(
                    "stiffness",
                    stiffness.is_some(),
                    "material = \"neo_hookean\"",
                )?;
                let youngs_modulus = need("youngs_modulus", youngs_modulus)?;
                let nu = poisson_ratio
                    .ok_or_else(|| self.invalid(&key("poisson_ratio"), "missing", "nothing"))?;
                if !(nu > -1.0 && nu < 0.5) {
                    return Err(self.invalid(
                        &key("poisson_ratio"),
                        "must be in (-1, 0.5) (0.5 is incompressible: the Lamé λ is infinite)",
                        nu,
                    ));
                }
                Ok(Material::NeoHookean(Elasticity {
                    youngs_modulus,
                    poisson_ratio: nu,
                }))
            }
            other => Err(self.invalid(
                &key("material"),
                "must be \"mass_spring\" or \"neo_hookean\"",
                other,
            )),
        }
    }
}
