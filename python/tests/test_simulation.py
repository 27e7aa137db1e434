"""The stepping API (issue 42): a scene stepped from Python, its state read and its drivers
changed between steps. What each test checks is derived in its docstring."""

from __future__ import annotations

import importlib.util
import math

import numpy as np
import pytest

import stickslip


def test_stepped_through_its_duration_a_scene_is_run_bit_for_bit(repo):
    """The stepping API runs the same validation, system and solver as Case.run, whose
    trajectory equals the CLI's: stepped in uneven chunks through the case's whole duration,
    every column equals run()'s bit for bit (2D and 3D)."""
    for name in ("cases/stacked_blocks.toml", "cases/pulled_block3d.toml"):
        case = stickslip.load(repo / name)
        steps = round(case.duration / case.h)
        sim = case.simulate()
        sim.step()
        sim.step(7)
        sim.step(steps - 8)
        assert sim.steps == steps
        assert sim.t == pytest.approx(case.duration, abs=case.h / 2)
        stepped = sim.trajectory
        ran = case.run().trajectory
        assert list(stepped) == list(ran), name
        for column in ran:
            assert np.array_equal(stepped[column], ran[column]), (name, column)


def test_a_prescribed_velocity_changed_mid_run_moves_on_from_where_the_nodes_are(repo, tmp_path):
    """A `move` driver on all of a body's nodes prescribes them x(t) = x0 + v1 t; changed to v2
    at t1 they follow x(t1) + v2 (t - t1): the body's mean position is piecewise linear in t,
    exactly but for rounding (the solver sets driven nodes, it does not solve for them)."""
    text = (repo / "cases/pulled_block.toml").read_text()
    text = text.replace(
        '[drivers.spring]\ntype = "spring"\nbody = "block"\nnodes = "bottom"                 # the pull acts at the height friction does: no torque\nstiffness = 20.0\nanchor = [0.0, 0.0005]            # m: at the bottom row\'s mean at t = 0\nanchor_velocity = [0.05, 0.0]    # m/s',
        '[drivers.carry]\ntype = "move"\nbody = "block"\nnodes = "all"\nvelocity = [0.05, 0.0]',
    )
    assert "drivers.carry" in text
    path = tmp_path / "carried.toml"
    path.write_text(text)
    sim = stickslip.load(path).simulate()
    x0 = sim.bodies["block"].positions.mean(axis=0)
    sim.step(100)
    t1 = sim.t
    x1 = sim.bodies["block"].positions.mean(axis=0)
    np.testing.assert_allclose(x1 - x0, [0.05 * t1, 0.0], atol=1e-12)
    sim.set_driver("carry", velocity=[-0.02, 0.01])
    sim.step(50)
    x2 = sim.bodies["block"].positions.mean(axis=0)
    np.testing.assert_allclose(x2 - x1, [-0.02 * (sim.t - t1), 0.01 * (sim.t - t1)], atol=1e-12)
    # The velocities are the step's (x - x_n)/h: the new velocity on every node.
    np.testing.assert_allclose(sim.bodies["block"].velocities, [[-0.02, 0.01]] * 6, atol=1e-9)


def test_a_spring_anchor_stopped_mid_run_holds_the_spring_where_it_is(repo):
    """pulled_block's spring (20 N/m, zero length) from a fixed anchor moving at 0.05 m/s pulls
    the block, which sticks while the pull is under mu_s N = 5.886 N (until about 5.9 s).
    Stopping the anchor at t1 = 1 s (pull 20 x 0.05 = 1 N) holds the pull: the block stays
    stuck, so the spring's force stays that of the anchor at 0.05 t1 and of the block where it
    stuck, 1 N to within the block's creep (smoothed friction: under eps_v = 1e-4 m/s, so at
    most 20 N/m x 1e-4 m/s x 1 s = 2 mN in the second after)."""
    sim = stickslip.load(repo / "cases/pulled_block.toml").simulate()
    sim.step(1000)
    before = sim.drivers["spring"].force.copy()
    assert before[0] == pytest.approx(1.0, abs=2e-3)
    sim.set_driver("spring", anchor_velocity=[0.0, 0.0])
    sim.step(1000)
    after = sim.drivers["spring"].force
    assert abs(after[0] - before[0]) < 20.0 * 1e-4 * 1.0, (before, after)


def test_a_constant_force_set_to_zero_on_a_frictionless_floor_leaves_the_speed(repo, tmp_path):
    """The breakaway case without friction (mu = 0): a force F on a 1 kg block gives its mean
    velocity F t / m (the internal springs' forces cancel in the sum over nodes, the floor's
    barrier has no horizontal part, and implicit Euler is exact for a constant force); set to
    zero at t1, the speed F t1 / m stays. Each step solves momentum to Newton's tolerance
    (newton.tol = 1e-6 m/s on ‖p‖∞/h), which bounds the drift per step."""
    text = (repo / "examples/breakaway_ramp.toml").read_text()
    text = text.replace("mu_static = 0.6\nmu_kinetic = 0.4", "mu = 0.0")
    assert "mu = 0.0" in text
    path = tmp_path / "frictionless.toml"
    path.write_text(text)
    sim = stickslip.load(path).simulate()
    sim.set_driver("push", force=[2.0, 0.0])
    sim.step(200)
    t1 = sim.t
    v1 = sim.trajectory["block.vx_m_per_s"][-1]
    assert v1 == pytest.approx(2.0 * t1 / 1.0, abs=200 * 1e-6)
    assert sim.drivers["push"].force[0] == 2.0
    sim.set_driver("push", force=[0.0, 0.0])
    sim.step(200)
    v2 = sim.trajectory["block.vx_m_per_s"][-1]
    assert v2 == pytest.approx(v1, abs=200 * 1e-6)


def test_the_breakaway_example_finds_mu_s_m_g(repo):
    """examples/breakaway_ramp.py ramps the push at 2 N/s, set before every step, until the
    block moves faster than 10 eps_v. Below mu_s N smoothed friction lets it creep under eps_v,
    so it cannot slip before mu_s m g = 5.886 N (less one ramp increment, 2 N/s x 1 ms); past
    it, it accelerates at least at (F - mu_s N)/m, so it passes 10 eps_v by at most
    sqrt(2 m 9 eps_v rate) = 0.06 N later (the script's own bound)."""
    spec = importlib.util.spec_from_file_location("breakaway_ramp", repo / "examples/breakaway_ramp.py")
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    force, _ = example.ramp_until_slip()
    expected = 0.6 * 1.0 * 9.81
    overshoot = math.sqrt(2 * 1.0 * 9 * 1e-4 * 2.0)
    assert expected - 2.0 * 1e-3 <= force <= expected + overshoot, force


def test_contacts_are_the_pairs_within_dhat_with_their_forces(repo):
    """The upper block of stacked_blocks (1 kg) touches only the lower one: by Newton's second
    law the forces of the pairs between them (each pair's barrier force along its normal and
    its friction force, signed towards the upper block) sum to m2 (v - v_prev)/h, its momentum
    change over the step read off the trajectory, in both components (gravity -9.81 N added
    in y). The step solves momentum to Newton's tolerance; 1 mN (1e-4 of the weight) bounds
    it with room. The floor under the lower block is frictionless: its friction forces are 0."""
    sim = stickslip.load(repo / "cases/stacked_blocks.toml").simulate()
    sim.step(500)
    c = sim.contacts()
    n = len(c["type"])
    assert n > 0 and all(len(c[k]) == n for k in c)
    assert set(c["state"]) <= {"stick", "transition", "slide"}
    floor = np.array([s == "floor" for s in c["second"]])
    between = np.array([{a, b} == {"upper", "lower"} for a, b in zip(c["first"], c["second"])])
    assert floor.any() and between.any()
    assert np.all(c["friction_force"][floor] == 0.0)
    assert np.all(c["distance"] > 0.0)
    towards_upper = np.where(np.array(c["first"]) == "upper", 1.0, -1.0)[between]
    force = (
        towards_upper[:, None]
        * (c["normal_force"][between][:, None] * c["normal"][between] + c["friction_force"][between])
    ).sum(axis=0)
    force[1] -= 1.0 * 9.81
    tr = sim.trajectory
    h = stickslip.load(repo / "cases/stacked_blocks.toml").h
    momentum_change = [
        1.0 * (tr[f"upper.v{a}_m_per_s"][-1] - tr[f"upper.v{a}_m_per_s"][-2]) / h for a in "xy"
    ]
    np.testing.assert_allclose(force, momentum_change, atol=1e-3)
    # The friction carries it at about the stack's 2 m/s^2 (SPEC.md §8): not a zero force.
    assert force[0] > 1.0


def test_bad_changes_and_steps_are_refused_and_change_nothing(repo):
    case = stickslip.load(repo / "cases/stacked_blocks.toml")
    sim = case.simulate()
    sim.step(3)
    before = {k: v.copy() for k, v in sim.trajectory.items()}
    forces = sim.drivers["pull"].force.copy()
    for call, words in [
        (lambda: sim.step(0), "n: must be at least 1"),
        (lambda: sim.step(-2), "n: must be at least 1"),
        (lambda: sim.set_driver("nope", force=[1.0, 0.0]), "no driver `nope`"),
        (lambda: sim.set_driver("pull", velocity=[1.0, 0.0]), "takes a change of its force only"),
        (lambda: sim.set_driver("pull", force=[1.0, 0.0, 0.0]), "exactly 2 finite numbers"),
        (lambda: sim.set_driver("pull", force=[math.nan, 0.0]), "exactly 2 finite numbers"),
        (lambda: sim.set_driver("pull", force="left"), "exactly 2 numbers"),
        (lambda: sim.set_driver("pull"), "exactly one of"),
        (lambda: sim.set_driver("pull", force=[1.0, 0.0], velocity=[0.0, 0.0]), "exactly one of"),
    ]:
        with pytest.raises(stickslip.InputError, match=words.replace("`", ".")):
            call()
    assert sim.steps == 3
    assert np.array_equal(sim.drivers["pull"].force, forces)
    after = sim.trajectory
    assert all(np.array_equal(before[k], after[k]) for k in before)


def test_only_a_scene_is_stepped(repo):
    for name in ("cases/slope_mu0.11.toml", "cases/football.toml"):
        with pytest.raises(stickslip.InputError, match="Case.simulate"):
            stickslip.load(repo / name).simulate()


def test_the_state_is_read_only_and_three_dimensional_in_3d(repo):
    sim = stickslip.load(repo / "cases/pulled_block3d.toml").simulate()
    sim.step(2)
    assert sim.dimension == 3
    body = sim.bodies["block"]
    assert body.positions.shape[1] == 3 and body.velocities.shape == body.positions.shape
    with pytest.raises(ValueError):
        body.positions[0, 0] = 1.0
    assert sim.contacts()["normal"].shape[1] == 3
