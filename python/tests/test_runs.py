"""A run from Python is the command line's run: the same trajectory, bit for bit, and the same
summary (solver totals, verdict, cross-check), for each case kind."""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pytest

import stickslip
from conftest import read_csv_columns, run_cli, same_bits

# summary.json's fields that measure the machine, not the run.
WALL_CLOCK_KEYS = {"wall_seconds", "post_pass_seconds"}


def without_wall_clock(summary: dict) -> dict:
    return {k: v for k, v in summary.items() if k not in WALL_CLOCK_KEYS}


def cli_run(cli: Path, tmp_path: Path, case: str, *args: str) -> tuple[dict, dict]:
    out = tmp_path / "cli"
    done = run_cli(cli, "run", case, "--out", str(out), *args)
    assert done.returncode == 0, done.stderr
    summary = json.loads((out / "summary.json").read_text())
    return read_csv_columns(out / "trajectory.csv"), summary


@pytest.mark.parametrize(
    "case, overrides, duration",
    [
        # The book's three cases, one through an override of another's file.
        ("cases/slope_mu0.10.toml", {}, None),
        ("cases/slope_mu0.11.toml", {}, None),
        ("cases/slope_mu0.11.toml", {"friction.mu": 0.2}, None),
        # A refined square with the options that keep it from folding, shortened.
        ("cases/refined_mu0.20.toml", {"square.n_seg": 8}, 2.5),
    ],
)
def test_slope_run_equals_the_cli_bit_for_bit(cli, tmp_path, repo, case, overrides, duration):
    args = [f"--set={k}={v}" for k, v in overrides.items()] + ["--gpu", "off"]
    if duration is not None:
        args += ["--duration", str(duration)]
    columns, summary = cli_run(cli, tmp_path, case, *args)

    result = stickslip.load(repo / case, set=overrides).run(duration)

    assert result.kind == "slope_square"
    assert list(result.trajectory) == list(columns)
    for name, fields in columns.items():
        assert same_bits(result.trajectory[name], fields), name
    assert result.trajectory["newton_iterations"].dtype == np.int64
    # The whole summary, but for the case path's spelling (absolute here) and the wall clock.
    ours, theirs = without_wall_clock(result.summary), without_wall_clock(summary)
    assert ours.pop("source").endswith(case) and theirs.pop("source") == case
    assert ours == theirs
    assert result.solver == summary["solver"]
    assert result.cross_check == summary["cross_check"]
    assert result.cross_check["backend"].startswith("cpu")
    assert isinstance(result.verdict, str) and result.verdict == summary_verdict_text(result)


def summary_verdict_text(result: stickslip.RunResult) -> str:
    """The verdict's words rebuilt from summary.json's state (verdict.rs's Display)."""
    v = result.summary["verdict"]
    if v["state"] == "stopped":
        return f"stopped at t = {v['since']:.2f} s"
    if v["state"] == "sliding":
        return f"sliding ({v['mean_speed']:.3f} m/s)"
    return result.verdict


def test_the_book_case_stops_where_the_readme_says(repo):
    # README's table: mu = 0.11 stops at t = 6.41 s after 1.4043 m downhill, 1234 iterations.
    result = stickslip.load(repo / "cases/slope_mu0.11.toml").run()
    assert result.verdict == "stopped at t = 6.41 s"
    assert round(float(result.trajectory["downhill_distance_m"][-1]), 4) == 1.4043
    assert result.solver["newton_iterations"] == 1234
    assert not result.trajectory["t_s"].flags.writeable


def test_scene_run_equals_the_cli_bit_for_bit(cli, tmp_path, repo):
    case = "cases/belt_stick_slip.toml"
    columns, summary = cli_run(cli, tmp_path, case, "--duration", "3", "--gpu", "off")

    result = stickslip.load(repo / case).run(3.0)

    assert result.kind == "scene"
    assert list(result.trajectory) == list(columns)
    for name, fields in columns.items():
        assert same_bits(result.trajectory[name], fields), name
    ours, theirs = without_wall_clock(result.summary), without_wall_clock(summary)
    assert ours.pop("source").endswith(case) and theirs.pop("source") == case
    # The impulse law's cross-check over every contact too, on the same CPU law.
    assert ours == theirs
    assert result.verdict == {b["name"]: result.verdict[b["name"]] for b in summary["bodies"]}
    assert result.cross_check == summary["cross_check"]
    assert result.cross_check["backend"].startswith("cpu") and result.cross_check["records"] > 0


def test_3d_scene_run_equals_the_cli_bit_for_bit(cli, tmp_path, repo):
    """A 3D scene (dimension = 3) runs from Python as `stickslip run` runs it: the same
    trajectory bit for bit and the same summary, the impulse law's cross-check included."""
    case = "cases/box3d_incline.toml"
    columns, summary = cli_run(cli, tmp_path, case, "--duration", "0.2", "--gpu", "off")

    loaded = stickslip.load(repo / case)
    result = loaded.run(0.2)

    assert loaded.kind == "scene"
    assert result.kind == "scene"
    assert list(result.trajectory) == list(columns)
    assert "box.z_m" in columns and "box.downhill_speed_m_per_s" in columns
    for name, fields in columns.items():
        assert same_bits(result.trajectory[name], fields), name
    assert result.trajectory["newton_iterations"].dtype == np.int64
    ours, theirs = without_wall_clock(result.summary), without_wall_clock(summary)
    assert ours.pop("source").endswith(case) and theirs.pop("source") == case
    assert ours == theirs
    # The box's 9 bottom nodes on the incline, every one of the 200 steps (docs/impulse.md).
    assert result.cross_check == summary["cross_check"]
    assert result.cross_check["records"] == 9 * 200
    assert result.verdict == {b["name"]: result.verdict[b["name"]] for b in summary["bodies"]}


def test_rigid_run_equals_the_cli_bit_for_bit(cli, tmp_path, repo):
    case = "cases/football.toml"
    columns, summary = cli_run(cli, tmp_path, case)
    events = read_csv_columns(tmp_path / "cli" / "events.csv")

    result = stickslip.load(repo / case).run()

    assert result.kind == "rigid_ellipsoid"
    assert list(result.trajectory) == list(columns)
    for name, fields in columns.items():
        assert same_bits(result.trajectory[name], fields), name
    assert list(result.events) == list(events)
    for name, fields in events.items():
        ours = result.events[name]
        if name == "mode":
            assert ours == fields
        elif name == "fallback":
            assert ours.tolist() == [f == "true" for f in fields]
        else:
            assert same_bits(ours, fields), name
    ours, theirs = without_wall_clock(result.summary), without_wall_clock(summary)
    assert ours.pop("case").endswith(case) and theirs.pop("case") == case
    assert ours == theirs
    # The shipped football's impacts accumulate while it still rolls (issue 23's honest ending).
    assert result.verdict.startswith(("settled", "duration reached", "impacts accumulate"))


def test_a_case_runs_again_with_the_same_numbers(repo):
    case = stickslip.load(repo / "cases/slope_mu0.10.toml")
    a, b = case.run(2.0), case.run(2.0)
    for name in a.trajectory:
        assert np.array_equal(a.trajectory[name], b.trajectory[name]), name


def test_case_attributes(repo):
    case = stickslip.load(repo / "cases/slope_mu0.11.toml", set={"square.n_seg": 8, "time.h": 0.005})
    assert case.kind == "slope_square"
    assert case.name == "slope, mu = 0.11"
    assert case.h == 0.005 and case.duration == 8.0
    assert case.overrides == ["square.n_seg=8", "time.h=0.005"]


def test_the_progress_bar_is_off_when_stderr_is_not_a_terminal(repo, capfd):
    # Under pytest's capture fd 2 is a file, not a terminal. The run must outlast the second
    # after which a bar would be drawn on a terminal, or the test shows nothing.
    started = time.perf_counter()
    stickslip.load(repo / "cases/refined_mu0.11.toml").run(1.5)
    assert time.perf_counter() - started > 1.0
    assert capfd.readouterr().err == ""


def test_an_unphysical_scene_returns_its_results_and_says_so(repo):
    # The affine box at kappa = 1e-3 Pa turns inside out (tests/data/unphysical/): the CLI exits
    # 3; Python returns the results for inspection, with the same verdict, and does not raise.
    result = stickslip.load(repo / "tests/data/unphysical/soft_affine_box.toml").run()
    assert result.physical is False
    assert result.summary["physical"] is False
    (inverted,) = result.summary["inverted"]
    assert (inverted["body"], inverted["elements"], inverted["of"]) == ("box", 24, 24)
    assert abs(inverted["first_time_s"] - 0.12) < 1e-9
    assert len(result.trajectory["t_s"]) == 201
    physical = stickslip.load(repo / "cases/pulled_block3d.toml").run(0.1)
    assert physical.physical is True and "physical" not in physical.summary
