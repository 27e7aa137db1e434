"""`stickslip run CASE --vtk` read back by readers that are not stickslip's: the collection by
Python's own XML parser, the frames by meshio. What they hold is checked against the run's other
outputs and against the definitions of the arrays (docs/looking_at_a_run.md): the frames' times
are trajectory.csv's, the points are summary.json's nodes, a body's mass-weighted centroid and
velocity are trajectory.csv's, its net contact force is its pairs' sum in contacts.csv, J is
det F of each element from the points and x − displacement, and a half-space's drawn patch lies
in the plane the contact pairs with it measure their distances to."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import meshio
import numpy as np
import pytest

from conftest import read_csv_columns, run_cli


def collection(pvd: Path) -> list[tuple[float, str, str]]:
    """Every data set of the collection: (time, part, file)."""
    root = ET.parse(pvd).getroot()
    assert root.get("type") == "Collection"
    return [(float(d.get("timestep")), d.get("part"), d.get("file")) for d in root.iter("DataSet")]


def contacts_at(path: Path, t: float) -> list[dict[str, str]]:
    columns = read_csv_columns(path)
    rows = [dict(zip(columns, values)) for values in zip(*columns.values())]
    return [r for r in rows if float(r["t_s"]) == t]


@pytest.mark.parametrize(
    "case, dim, obstacle",
    [("cases/pulled_block.toml", 2, "floor"), ("cases/box_on_box3d.toml", 3, "incline")],
)
def test_frames_read_by_meshio_equal_the_runs_other_outputs(cli, tmp_path, case, dim, obstacle):
    out = tmp_path / "run"
    done = run_cli(
        cli, "run", case, "--gpu", "off", "--duration", "0.04", "--out", str(out), "--vtk", "--contacts"
    )
    assert done.returncode == 0, done.stderr
    trajectory = read_csv_columns(out / "trajectory.csv")
    summary = json.loads((out / "summary.json").read_text())
    sets = collection(out / "vtk" / "run.pvd")
    frames = [(t, f) for t, part, f in sets if part == "0"]
    assert [t for t, _ in frames] == [float(t) for t in trajectory["t_s"]]
    # The obstacles' file is listed with every frame.
    assert [t for t, part, _ in sets if part == "1"] == [t for t, _ in frames]
    obstacles = meshio.read(out / "vtk" / "obstacles.vtu")
    axes = "xyz"[:dim]
    checked_pairs = 0
    for k in (0, len(frames) // 2, len(frames) - 1):
        t, file = frames[k]
        mesh = meshio.read(out / "vtk" / file)
        x = mesh.points
        assert len(x) == sum(b["nodes"] for b in summary["bodies"])
        if dim == 2:
            assert np.all(x[:, 2] == 0.0)
        kind = "triangle" if dim == 2 else "tetra"
        # meshio gives UInt64 connectivity back as float64; the values are exact.
        cells = mesh.cells_dict[kind].astype(np.int64)
        body = mesh.cell_data_dict["body"][kind].ravel()
        mass = mesh.point_data["mass"].ravel()
        v = mesh.point_data["velocity"]
        force = mesh.point_data["contact_force"]
        # J = det F = det(D) / det(D₀) of each element's edge matrix, now (x) and at rest
        # (X = x − displacement).
        rest = x - mesh.point_data["displacement"]

        def edges(p: np.ndarray) -> np.ndarray:
            e = p[cells[:, 1:], :dim] - p[cells[:, :1], :dim]
            return np.linalg.det(np.transpose(e, (0, 2, 1)))

        j = edges(x) / edges(rest)
        np.testing.assert_allclose(mesh.cell_data_dict["J"][kind].ravel(), j, rtol=1e-9)
        pairs = contacts_at(out / "contacts.csv", t)
        for b, spec in enumerate(summary["bodies"]):
            name = spec["name"]
            mine = np.unique(cells[body == b])
            m = mass[mine].sum()
            assert m == pytest.approx(spec["mass_kg"], rel=1e-12)
            centroid = (mass[mine, None] * x[mine]).sum(axis=0) / m
            velocity = (mass[mine, None] * v[mine]).sum(axis=0) / m
            for a, axis in enumerate(axes):
                assert centroid[a] == pytest.approx(
                    float(trajectory[f"{name}.{axis}_m"][k]), rel=1e-12, abs=1e-12
                )
                assert velocity[a] == pytest.approx(
                    float(trajectory[f"{name}.v{axis}_m_per_s"][k]), rel=1e-12, abs=1e-12
                )
            # Each pair pushes its first member along its normal and its second against it.
            want = np.zeros(3)
            scale = 0.0
            for r in pairs:
                f = float(r["normal_force_N"])
                n = np.array([float(r[f"n{axis}"]) for axis in axes] + [0.0] * (3 - dim))
                want += f * n * ((r["first"] == name) - (r["second"] == name))
                scale += abs(f)
            np.testing.assert_allclose(force[mine].sum(axis=0), want, atol=1e-9 * (scale + 1.0))
        # The half-space's patch lies in its boundary: a node's distance to it in contacts.csv
        # is its height over every vertex of the patch along the pair's normal.
        for r in pairs:
            if r["type"] == "node-half_space" and r["second"] == obstacle:
                node = int(r["nodes"])
                n = np.array([float(r[f"n{axis}"]) for axis in axes] + [0.0] * (3 - dim))
                heights = (x[node] - obstacles.points) @ n
                np.testing.assert_allclose(heights, float(r["distance_m"]), atol=1e-12)
                checked_pairs += 1
    assert checked_pairs > 0


def test_a_bad_stride_is_refused_and_nothing_written(cli, tmp_path):
    out = tmp_path / "run"
    done = run_cli(
        cli, "run", "cases/pulled_block.toml", "--duration", "0.01", "--out", str(out),
        "--vtk", "--vtk-stride", "0",
    )
    assert done.returncode == 2
    assert "--vtk-stride" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_a_polyline_is_its_segments(cli, tmp_path, repo):
    import tomllib

    out = tmp_path / "run"
    case = repo / "cases" / "pile_in_trough.toml"
    done = run_cli(cli, "run", str(case), "--gpu", "off", "--duration", "0.02", "--out", str(out), "--vtk")
    assert done.returncode == 0, done.stderr
    points = tomllib.loads(case.read_text())["obstacles"]["trough"]["points"]
    obstacles = meshio.read(out / "vtk" / "obstacles.vtu")
    lines = obstacles.cells_dict["line"].astype(np.int64)
    segments = [[list(obstacles.points[i, :2]) for i in line] for line in lines]
    assert segments == [[points[k], points[k + 1]] for k in range(len(points) - 1)]
    assert np.all(obstacles.points[:, 2] == 0.0)
