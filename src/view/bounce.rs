//! The bounce scene of seed 001, as a case file of `kind = "bounce"` states it
//! ([`BounceCase`]; `cases/bounce.toml`: three balls dropped from 2 m on a floor (normal +z)
//! with restitutions 0.5, 0.7 and 0.9, twenty steps a flight). At each flight's start every ball
//! bounces through the impulse law (SPEC.md §3), the flight between is exact (the ball meets the
//! floor at √(2 g h) and climbs to v²/(2 g)), so each bounce reaches e² of the last. After
//! `bounces` bounces the balls are dropped again. Each step also holds one contact on a surface of another
//! tilt, and the floor limits, to the law's proofs; the five checks light the lamps.
//!
//! Everything is binary32, as the seed's GPU program; every contact of a step goes through the
//! [`ImpulseBackend`] in one batch (the GPU kernel when an adapter exists). Nothing here draws.

use crate::cross_check::backend::BackendError;
use crate::cross_check::impulse_law::{ContactInput, ImpulseBackend};
use crate::scene::bounce::BounceCase;

use super::lamps::LampStrip;

/// Seed 001's tolerance on every bounce: the height within 0.0008 % of e^(2n) of the drop
/// (about 67 ε₃₂, the rounding of eight bounces of binary32 arithmetic).
pub const BOUNCE_REL_TOL: f64 = 0.000008;
/// Seed 001's tolerance on the tilted contact's laws: 2·10⁻⁶ × ‖v‖ ("16 roundings", 16 ε₃₂).
pub const TILTED_TOL: f32 = 0.000002;
/// Seed 001's tolerance on the slowed slide of the limits, m/s (about 4 ε₃₂ × 3 m/s).
pub const SLOWED_TOL: f32 = 0.0000005 * 3.0;

/// The lamps of the bounce scene, in display order (seed 001's checks).
pub const BOUNCE_LAMPS: [&str; 5] = [
    "each bounce e^2 of the last",
    "Newton's restitution",
    "friction never reverses",
    "a body leaving untouched",
    "the limits",
];

/// A tilted surface's contact of one step.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Tilted {
    /// The turn angle, rad.
    pub turn: f32,
    /// Unit normal.
    pub normal: [f32; 3],
    /// Velocity into the surface, m/s.
    pub velocity: [f32; 3],
    /// Restitution.
    pub restitution: f32,
    /// Friction coefficient.
    pub friction: f32,
    /// Velocity after, m/s.
    pub after: [f32; 3],
}

fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
fn sub(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn scale(s: f32, a: [f32; 3]) -> [f32; 3] {
    [s * a[0], s * a[1], s * a[2]]
}
fn length(a: [f32; 3]) -> f32 {
    dot(a, a).sqrt()
}

impl Tilted {
    /// Normal speed in, m/s (negative: into the surface).
    pub fn normal_before(&self) -> f32 {
        dot(self.velocity, self.normal)
    }
    /// Normal speed out, m/s.
    pub fn normal_after(&self) -> f32 {
        dot(self.after, self.normal)
    }
    /// Tangential part before, m/s.
    pub fn slide_before_vec(&self) -> [f32; 3] {
        sub(self.velocity, scale(self.normal_before(), self.normal))
    }
    /// Tangential part after, m/s.
    pub fn slide_after_vec(&self) -> [f32; 3] {
        sub(self.after, scale(self.normal_after(), self.normal))
    }
}

/// The bounce scene.
pub struct Bounce {
    /// The case it runs.
    pub case: BounceCase,
    /// Bounce the balls are at, 0 ..= `case.bounces`.
    pub bounce: u32,
    /// Point of the flight, 0 .. `case.steps_per_flight`.
    pub point: u32,
    /// Steps taken.
    pub step: usize,
    /// Each ball's height at the top of this flight, m.
    pub top: [f32; 3],
    /// Each ball's height now, m.
    pub now: [f32; 3],
    /// This step's tilted contact.
    pub tilted: Tilted,
    /// The lamps ([`BOUNCE_LAMPS`]).
    pub lamps: LampStrip,
    /// (bounces as a number, heights now) since the last drop, for the chart: at most one drop,
    /// (`bounces` + 1) flights.
    pub history: Vec<(f32, [f32; 3])>,
    /// Largest relative error of a top against e^(2n) of the drop so far.
    pub worst_bounce_error: f64,
    inputs: Vec<ContactInput>,
    outputs: Vec<[f32; 3]>,
}

const UP: [f32; 3] = [0.0, 0.0, 1.0];

impl Bounce {
    /// Before the first step (the seed's initial state: the step after it drops the balls).
    pub fn new(case: &BounceCase) -> Bounce {
        Bounce {
            case: case.clone(),
            bounce: case.bounces,
            point: case.steps_per_flight - 1,
            step: 0,
            top: [case.drop; 3],
            now: [0.0; 3],
            tilted: Tilted::default(),
            lamps: LampStrip::new(&BOUNCE_LAMPS),
            history: Vec::new(),
            worst_bounce_error: 0.0,
            inputs: Vec::new(),
            outputs: Vec::new(),
        }
    }

    /// The closed form: drop · e^(2n), m (binary64).
    pub fn closed(&self, restitution: f32, bounce: u32) -> f64 {
        self.case.drop as f64 * (restitution as f64).powi(2 * bounce as i32)
    }

    /// A ball's height at point `point` of a flight topping at `top`: top · 4f(1 − f),
    /// f = point / steps a flight.
    pub fn flying(&self, top: f32, point: u32) -> f32 {
        let f = point as f32 / self.case.steps_per_flight as f32;
        top * 4.0 * f * (1.0 - f)
    }

    /// Steps of chart history kept: one drop, (`bounces` + 1) flights (the seed's 180).
    pub fn history_len(&self) -> usize {
        (self.case.bounces as usize + 1) * self.case.steps_per_flight as usize
    }

    /// Simulated time, s, on the viewer's clock (`steps_per_second` steps a second).
    pub fn time(&self) -> f64 {
        self.step as f64 / self.case.steps_per_second
    }

    /// Bounces as a number: bounce + point/20.
    pub fn bounces(&self) -> f32 {
        self.bounce as f32 + self.point as f32 / self.case.steps_per_flight as f32
    }

    /// One step of seed 001's `main`, every contact through `backend` in one batch.
    ///
    /// # Errors
    /// The backend's error (a GPU failure); the state is then unchanged.
    pub fn step(&mut self, backend: &mut dyn ImpulseBackend) -> Result<(), BackendError> {
        let (gravity, drop) = (self.case.gravity, self.case.drop);
        let restitutions = self.case.restitutions;
        let flight_start = self.point + 1 >= self.case.steps_per_flight;
        let bounce = if flight_start {
            if self.bounce >= self.case.bounces {
                0
            } else {
                self.bounce + 1
            }
        } else {
            self.bounce
        };
        let turn = self.tilted.turn + 0.73;
        let normal = {
            let n = [turn.cos(), (1.3 * turn).sin(), 0.2 + (0.7 * turn).cos()];
            scale(1.0 / length(n), n)
        };
        let mut velocity = [3.0 * (2.1 * turn).sin(), 2.0 * (0.4 * turn).cos(), 1.0];
        velocity = sub(velocity, scale(dot(velocity, normal) + 2.0, normal));
        let restitution = 0.5 + 0.5 * (0.9 * turn).sin();
        let friction = 0.5 + 0.5 * (1.7 * turn).cos();
        let away = sub(velocity, scale(2.0 * dot(velocity, normal), normal));

        // The batch: three bounces, the tilted contact, the leaving one, the five limits.
        self.inputs.clear();
        for (i, &e) in restitutions.iter().enumerate() {
            let falling = [0.0, 0.0, -(2.0 * gravity * self.top[i]).sqrt()];
            self.inputs.push(ContactInput::new(falling, UP, e, 0.0));
        }
        self.inputs
            .push(ContactInput::new(velocity, normal, restitution, friction));
        self.inputs.push(ContactInput::new(away, normal, 0.5, 0.5));
        for (slide, e, mu) in [
            (1.5, 1.0, 0.0),
            (1.5, 0.0, 0.0),
            (1.5, 0.4, 0.0),
            (3.0, 0.5, 0.2),
            (0.5, 0.5, 0.5),
        ] {
            self.inputs
                .push(ContactInput::new([slide, 0.0, -2.0], UP, e, mu));
        }
        backend.apply(&self.inputs, &mut self.outputs)?;
        if self.outputs.len() != self.inputs.len() {
            return Err(BackendError::WrongCount {
                expected: self.inputs.len(),
                got: self.outputs.len(),
            });
        }
        let out = &self.outputs;

        self.step += 1;
        let step = self.step;
        if flight_start {
            for (top, after) in self.top.iter_mut().zip(out) {
                *top = if bounce == 0 {
                    drop
                } else {
                    let rising = after[2];
                    rising * rising / (2.0 * gravity)
                };
            }
            if bounce == 0 {
                self.history.clear();
            }
        }
        self.bounce = bounce;
        self.point = if flight_start { 0 } else { self.point + 1 };
        for i in 0..3 {
            self.now[i] = self.flying(self.top[i], self.point);
        }
        self.history.push((self.bounces(), self.now));
        if self.history.len() > self.history_len() {
            self.history.remove(0);
        }

        // Check 1: every ball's top within the seed's tolerance of e^(2n) of the drop.
        let mut worst = (0.0f64, 0usize);
        for (i, &e) in restitutions.iter().enumerate() {
            let want = self.closed(e, bounce);
            let rel = (self.top[i] as f64 - want).abs() / want;
            if rel > worst.0 {
                worst = (rel, i);
            }
        }
        self.worst_bounce_error = self.worst_bounce_error.max(worst.0);
        let (rel, ball) = worst;
        let want = self.closed(restitutions[ball], bounce);
        let top = self.top[ball];
        self.lamps.lamps[0].judge(step, Some(rel <= BOUNCE_REL_TOL), || {
            format!(
                "bounce {bounce}, e = {}: height {top:.7} m vs {want:.7} m ({rel:.1e} relative)",
                restitutions[ball],
            )
        });

        // Checks 2 and 3 on the tilted contact.
        self.tilted = Tilted {
            turn,
            normal,
            velocity,
            restitution,
            friction,
            after: out[3],
        };
        let t = self.tilted;
        let speed = length(velocity);
        let nb = t.normal_before();
        let na = t.normal_after();
        let restitution_holds = (na + restitution * nb).abs() <= TILTED_TOL * speed;
        self.lamps.lamps[1].judge(step, Some(restitution_holds), || {
            format!("normal out {na:.7} vs -e x in {:.7}", -restitution * nb)
        });
        let (sb, sa) = (t.slide_before_vec(), t.slide_after_vec());
        let friction_holds = length(sa) <= length(sb) + TILTED_TOL * speed
            && dot(sa, sb) >= -TILTED_TOL * speed * length(sb);
        self.lamps.lamps[2].judge(step, Some(friction_holds), || {
            format!("slide in {:.7} m/s, out {:.7} m/s", length(sb), length(sa))
        });
        // Check 4: a body leaving the surface comes back bit for bit.
        let leaving = out[4].map(f32::to_bits) == away.map(f32::to_bits);
        self.lamps.lamps[3].judge(step, Some(leaving), || {
            format!("{away:?} came back as {:?}", out[4])
        });
        // Check 5: the limits, exact but the slowed slide.
        let [elastic, plastic, smooth, slowed, stopped] = [out[5], out[6], out[7], out[8], out[9]];
        let limits = elastic == [1.5, 0.0, 2.0]
            && plastic == [1.5, 0.0, 0.0]
            && smooth[0] == 1.5
            && smooth[1] == 0.0
            && (slowed[0] - 2.4).abs() <= SLOWED_TOL
            && slowed[2] == 1.0
            && stopped[0] == 0.0
            && stopped[2] == 1.0;
        self.lamps.lamps[4].judge(step, Some(limits), || {
            format!("elastic {elastic:?}, plastic {plastic:?}, smooth {smooth:?}, slowed {slowed:?}, stopped {stopped:?}")
        });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cross_check::impulse_law::CpuLaw;

    #[test]
    fn the_cpu_law_keeps_every_lamp_green_over_three_drops() {
        let mut b = Bounce::new(&BounceCase::builtin());
        let mut law = CpuLaw::single_threaded();
        for _ in 0..3 * b.history_len() {
            b.step(&mut law).unwrap();
        }
        assert!(b.lamps.all_hold(), "{:?}", b.lamps.first_red());
        assert!(b.worst_bounce_error <= BOUNCE_REL_TOL);
    }

    #[test]
    fn the_first_steps_follow_the_seed() {
        let mut b = Bounce::new(&BounceCase::builtin());
        let mut law = CpuLaw::single_threaded();
        b.step(&mut law).unwrap();
        assert_eq!((b.bounce, b.point), (0, 0));
        assert_eq!(b.now, [0.0; 3]);
        for _ in 0..10 {
            b.step(&mut law).unwrap();
        }
        // Mid-flight of the drop: 4 f (1 − f) = 1 at f = 1/2.
        assert_eq!(b.point, 10);
        assert_eq!(b.now, [2.0; 3]);
        for _ in 0..10 {
            b.step(&mut law).unwrap();
        }
        assert_eq!((b.bounce, b.point), (1, 0));
        for (i, &e) in [0.5, 0.7, 0.9].iter().enumerate() {
            let rel = (b.top[i] as f64 - b.closed(e, 1)).abs() / b.closed(e, 1);
            assert!(rel <= BOUNCE_REL_TOL, "ball {i}: {rel}");
        }
    }

    /// A backend that breaks the law (restitution ignored) must turn the bounce lamp red.
    struct Broken;
    impl ImpulseBackend for Broken {
        fn name(&self) -> String {
            "broken".into()
        }
        fn apply(
            &mut self,
            inputs: &[ContactInput],
            out: &mut Vec<[f32; 3]>,
        ) -> Result<(), BackendError> {
            out.clear();
            out.extend(inputs.iter().map(|c| {
                let mut v = c.resolve();
                v[2] *= 1.001;
                v
            }));
            Ok(())
        }
    }

    #[test]
    fn a_wrong_law_turns_the_lamps_red() {
        let mut b = Bounce::new(&BounceCase::builtin());
        for _ in 0..2 * b.case.steps_per_flight {
            b.step(&mut Broken).unwrap();
        }
        assert!(b.lamps.lamps[0].is_red());
        assert!(b.lamps.lamps[4].is_red());
    }
}
