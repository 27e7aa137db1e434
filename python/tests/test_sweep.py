"""stickslip.sweep runs a sweep's cells as `stickslip sweep` runs them and gives map.csv's
content, byte for byte, as columns."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import stickslip
from conftest import run_cli


def write_sweep(tmp_path: Path, repo: Path, axes: str) -> Path:
    path = tmp_path / "small.toml"
    path.write_text(
        f'''name = "small map"
case = "{repo / 'cases/slope_mu0.11.toml'}"
set = ["time.duration=8"]
{axes}'''
    )
    return path


AXES = '''
[[axis]]
key = "slope.tan_theta"
values = [0.1, 0.3]

[[axis]]
key = "friction.mu"
values = [0.05, 0.5]
'''


def test_the_map_equals_the_clis_map_csv(cli, tmp_path, repo):
    sweep_file = write_sweep(tmp_path, repo, AXES)
    out = tmp_path / "dir"
    assert run_cli(cli, "sweep", str(sweep_file), "--out", str(out), "--jobs", "2").returncode == 0
    collected = run_cli(cli, "sweep", "collect", str(out))
    assert collected.returncode == 0, collected.stderr

    result = stickslip.sweep(sweep_file, jobs=2)

    # The CLI's map went through the cell files (JSON) and back; the floats survive exactly.
    assert result.csv == (out / "map.csv").read_text()
    assert result.report == collected.stdout.split("wrote ")[0]
    c = result.columns
    assert list(c) == (out / "map.csv").read_text().splitlines()[0].split(",")
    assert len(c["cell"]) == 4 and c["cell"].dtype.kind == "U"
    assert c["friction.mu"].dtype == np.float64 and c["friction.mu"].tolist() == [0.05, 0.5, 0.05, 0.5]
    assert c["status"].tolist() == ["done"] * 4
    assert c["newton_iterations"].dtype == np.int64
    # Coulomb's rule far from mu = tan(theta): mu = 0.05 on tan = 0.3 slides, mu = 0.5 on
    # tan = 0.1 stops (docs/sweeps.md's band is +-0.02).
    verdict = dict(zip(zip(c["slope.tan_theta"].tolist(), c["friction.mu"].tolist()), c["verdict"].tolist()))
    assert verdict[(0.3, 0.05)] == "sliding"
    assert verdict[(0.1, 0.5)] == "stopped"
    assert np.isnan(c["stop_time_s"][c["verdict"] == "sliding"]).all()


def test_one_job_gives_the_same_map(tmp_path, repo):
    sweep_file = write_sweep(tmp_path, repo, AXES)
    assert stickslip.sweep(sweep_file, jobs=1).csv == stickslip.sweep(sweep_file, jobs=3).csv


def test_a_bad_sweep_raises_the_cli_message(cli, tmp_path, repo):
    sweep_file = write_sweep(tmp_path, repo, AXES.replace("[0.05, 0.5]", "[0.05, -0.5]"))
    done = run_cli(cli, "sweep", str(sweep_file), "--out", str(tmp_path / "dir"))
    assert done.returncode == 2
    expected = done.stderr.strip().splitlines()[-1].removeprefix("stickslip: error: ")

    with pytest.raises(stickslip.InputError) as caught:
        stickslip.sweep(sweep_file)

    assert str(caught.value) == expected
    assert caught.value.key == "friction.mu"
    with pytest.raises(stickslip.InputError, match="option `--jobs`|--jobs: must be at least 1"):
        stickslip.sweep(write_sweep(tmp_path, repo, AXES), jobs=0)


def test_a_3d_scene_is_swept_as_the_cli_sweeps_it(cli, tmp_path, repo):
    # The tetrahedral tall box (w/b = 0.5, mu_s = mu_k = mu) with its gravity turned by
    # gravity.tan_theta, SPEC.md §8's rule (docs/scenes.md): stay if tan <= min(mu, w/b), else
    # slide if mu < w/b, else tip; every cell at least 0.1 from the rule's lines.
    path = tmp_path / "box3d.toml"
    path.write_text(
        f'''name = "3D box"
case = "{repo / 'cases/slide_or_tip3d.toml'}"

[[axis]]
key = "gravity.tan_theta"
values = [0.2, 0.7]

[[axis]]
key = "friction.mu"
values = [0.8, 0.3]
'''
    )
    out = tmp_path / "dir"
    assert run_cli(cli, "sweep", str(path), "--out", str(out), "--jobs", "2").returncode == 0
    assert run_cli(cli, "sweep", "collect", str(out)).returncode == 0

    result = stickslip.sweep(path, jobs=2)

    assert result.csv == (out / "map.csv").read_text()
    c = result.columns
    cells = list(zip(c["gravity.tan_theta"].tolist(), c["friction.mu"].tolist()))
    outcome = dict(zip(cells, c["slide_or_tip"].tolist()))
    assert outcome == {(0.2, 0.8): "stay", (0.2, 0.3): "stay", (0.7, 0.8): "tip", (0.7, 0.3): "slide"}
    assert dict(zip(cells, c["box.verdict"].tolist()))[(0.2, 0.8)] == "stopped"
