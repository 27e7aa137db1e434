//! What a body rests on (SPEC.md §8's references are relative to it): the body or obstacle
//! whose contacts press on it hardest, with the contact's mean normal and the tangent along it.

use crate::contact::{ContactPoint, PairDistance};
use crate::energy::{Vec2, Vector};
use crate::run::runner::downhill_tangent;
use crate::scene::multibody::MultibodyScene;

/// A body's support.
#[derive(Clone, Debug, PartialEq)]
pub struct Support {
    /// The body or obstacle, as the friction table numbers them (bodies, then obstacles).
    pub member: usize,
    /// The unit normal of the contact, from the support towards the body.
    pub normal: Vec2,
    /// The unit tangent along it: downhill, or the normal turned clockwise on a level support.
    pub tangent: Vec2,
    /// The support surface's own speed along the tangent (a belt), m/s.
    pub surface_speed: f64,
}

impl Support {
    /// Body `k`'s support with its nodes at `x` (m) from the contact stage's `pairs` there: the
    /// member pressing on it with the largest total normal force, its normal the force-weighted
    /// mean of those pairs' normals; with no force at all, the nearest half-space, if any.
    pub fn of(
        scene: &MultibodyScene,
        x: &[Vec2],
        pairs: &[PairDistance<2>],
        k: usize,
    ) -> Option<Support> {
        let members = scene.bodies.len() + scene.obstacles.len();
        let pressing = pressing(pairs, k, members);
        let gravity = &scene.gravity;
        if let Some((m, normal)) = pressing {
            let n = normal.normalize();
            let tangent = downhill_tangent(&n, gravity);
            let surface_speed = match m.checked_sub(scene.bodies.len()) {
                Some(o) => scene.obstacles[o].surface_velocity().dot(&tangent),
                None => 0.0,
            };
            return Some(Support {
                member: m,
                normal: n,
                tangent,
                surface_speed,
            });
        }
        scene
            .obstacles
            .iter()
            .enumerate()
            .filter_map(|(o, ob)| {
                let h = ob.half_space()?;
                let d = x
                    .iter()
                    .map(|p| h.distance(p))
                    .fold(f64::INFINITY, f64::min);
                Some((o, h, d))
            })
            .min_by(|a, b| a.2.total_cmp(&b.2))
            .map(|(o, h, _)| {
                let tangent = downhill_tangent(&h.normal, gravity);
                Support {
                    member: scene.bodies.len() + o,
                    normal: h.normal,
                    tangent,
                    surface_speed: h.velocity.dot(&tangent),
                }
            })
    }

    /// The support's body index, if it is a body.
    pub fn body(&self, scene: &MultibodyScene) -> Option<usize> {
        (self.member < scene.bodies.len()).then_some(self.member)
    }
}

/// The member (body or obstacle, as the friction table numbers them, of `members` in all)
/// pressing on body `k` with the largest total normal force in `pairs`, with the force-weighted
/// sum of those pairs' normals (pointing towards `k`), if any presses at all.
pub fn pressing<const D: usize>(
    pairs: &[PairDistance<D>],
    k: usize,
    members: usize,
) -> Option<(usize, Vector<D>)> {
    let mut force = vec![0.0; members];
    let mut normal = vec![Vector::<D>::zeros(); members];
    for p in pairs.iter().filter(|p| p.normal_force > 0.0) {
        let (other, n) = match p.bodies {
            (a, b) if a == k => (b, p.normal),
            (a, b) if b == k => (a, -p.normal),
            _ => continue,
        };
        force[other] += p.normal_force;
        normal[other] += n * p.normal_force;
    }
    (0..members)
        .filter(|&m| force[m] > 0.0)
        .max_by(|&a, &b| force[a].total_cmp(&force[b]))
        .map(|m| (m, normal[m]))
}

/// Body `k`'s smallest distance in a state, m: `to_half_spaces` (its nodes' to the half-spaces)
/// or a pair's within d̂ that it is in, whichever is smaller.
pub fn nearest_distance<const D: usize>(
    pairs: &[PairDistance<D>],
    k: usize,
    to_half_spaces: f64,
) -> f64 {
    pairs
        .iter()
        .filter(|p| p.bodies.0 == k || p.bodies.1 == k)
        .map(|p| p.distance)
        .fold(to_half_spaces, f64::min)
}

/// Body `k`'s slip over member `on` (what presses on it hardest), m/s: its contacts' with `on`
/// tangential speeds weighted by their normal forces; 0 without such a contact.
pub fn slip_over<const D: usize>(contacts: &[ContactPoint<D>], k: usize, on: Option<usize>) -> f64 {
    let (mut weighted, mut total) = (0.0, 0.0);
    for p in contacts.iter().filter(|p| {
        let other = on.unwrap_or(usize::MAX);
        p.bodies == (k, other) || p.bodies == (other, k)
    }) {
        weighted += p.normal_force * p.slip.norm();
        total += p.normal_force;
    }
    if total > 0.0 { weighted / total } else { 0.0 }
}
