"""A breakaway experiment driven from Python (docs/python.md, "Stepping a scene"): a force on a
block resting on a floor is ramped at RATE N/s, set before every step with
``Simulation.set_driver``, until the block slips; the force it slipped at is compared with
SPEC.md §8's breakaway force mu_s m g.

    python examples/breakaway_ramp.py          # from the repository's root, stickslip installed

The block "slips" once its mean velocity along the floor exceeds SLIP_FROM_EPS_V times the
friction's smoothing speed eps_v: below mu_s N smoothed friction lets it creep at
v* = eps_v (1 - sqrt(1 - F / (mu_s N))) < eps_v, above it the block accelerates away.
"""

from __future__ import annotations

import math
from pathlib import Path

import stickslip

CASE = Path(__file__).with_name("breakaway_ramp.toml")
RATE = 2.0  # N/s, the force's ramp
SLIP_FROM_EPS_V = 10.0  # the block slips once it moves faster than this many eps_v
MASS = 1.0  # kg: the case's 50 kg/m^2 x 0.2 m x 0.1 m
MU_STATIC, EPS_V, G = 0.6, 1.0e-4, 9.81  # the case's friction and gravity


def ramp_until_slip(rate: float = RATE) -> tuple[float, float]:
    """Ramps the push at `rate` N/s from zero; returns (the force the block slipped at, N, and
    the time, s)."""
    case = stickslip.load(CASE)
    sim, h = case.simulate(), case.h
    while True:
        force = rate * (sim.t + h)  # the force over the coming step
        sim.set_driver("push", force=[force, 0.0])
        sim.step()
        # The box's nodes have equal masses: their plain mean is its centre's velocity.
        vx = sim.bodies["block"].velocities[:, 0].mean()
        if vx > SLIP_FROM_EPS_V * EPS_V:
            return force, sim.t
        if sim.t > 10.0:
            raise RuntimeError("the block never slipped")


def main() -> None:
    force, t = ramp_until_slip()
    expected = MU_STATIC * MASS * G
    # Past mu_s N the block accelerates at least at (F - mu_s N)/m = rate (t - t0)/m, so its
    # speed passes SLIP_FROM_EPS_V eps_v at most sqrt(2 m (SLIP_FROM_EPS_V - 1) eps_v / rate)
    # after t0: the ramp's overshoot.
    overshoot = math.sqrt(2 * MASS * (SLIP_FROM_EPS_V - 1) * EPS_V * RATE)
    print(f"slipped at F = {force:.4f} N, t = {t:.3f} s")
    print(f"mu_s m g = {expected:.4f} N; the ramp overshoots it by at most {overshoot:.4f} N")


if __name__ == "__main__":
    main()
