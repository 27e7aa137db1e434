"""Bad input raises stickslip.InputError (a ValueError) whose message is the command line's
exit-2 message word for word, naming the file, the key and the rule; nothing runs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import stickslip
from conftest import run_cli

PREFIX = "stickslip: error: "


def cli_message(cli: Path, *args: str) -> str:
    done = run_cli(cli, *args)
    assert done.returncode == 2, (done.returncode, done.stderr)
    line = done.stderr.strip().splitlines()[-1]
    assert line.startswith(PREFIX), line
    return line[len(PREFIX):]


def bad_case(tmp_path: Path, repo: Path, old: str, new: str) -> Path:
    text = (repo / "cases/slope_mu0.11.toml").read_text()
    assert text.count(old) == 1
    path = tmp_path / "bad.toml"
    path.write_text(text.replace(old, new))
    return path


@pytest.mark.parametrize(
    "old, new, key",
    [
        ("\nmu = 0.11\n", "\nmu = -0.1\n", "friction.mu"),  # a rule of the model
        ("\nmu = 0.11\n", "\nmu = 0.11\nfudge = 1\n", "friction.fudge"),  # an unknown key
        ("\nmu = 0.11\n", '\nmu = "high"\n', "friction.mu"),  # a wrong type
    ],
)
def test_a_bad_case_file_raises_the_cli_message(cli, tmp_path, repo, old, new, key):
    path = bad_case(tmp_path, repo, old, new)
    expected = cli_message(cli, "run", str(path), "--out", str(tmp_path / "out"))

    with pytest.raises(stickslip.InputError) as caught:
        stickslip.load(path)

    assert str(caught.value) == expected
    assert isinstance(caught.value, ValueError)
    assert caught.value.file == str(path)
    assert caught.value.key == key
    assert caught.value.rule and caught.value.rule in expected
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "setting, value",
    [
        ("friction.mu", -0.1),
        ("square.n_seg", 0),
        ("slope.normal", [0.1]),
        ("barrier.kind", "nonsense"),
        ("newton.nonsense", 1),
    ],
)
def test_a_bad_override_raises_the_cli_message(cli, tmp_path, repo, setting, value):
    cli_value = "[" + ", ".join(map(str, value)) + "]" if isinstance(value, list) else str(value)
    case = "cases/slope_mu0.11.toml"
    expected = cli_message(cli, "run", case, "--set", f"{setting}={cli_value}", "--out", str(tmp_path / "o"))

    with pytest.raises(stickslip.InputError) as caught:
        stickslip.load(repo / case, set={setting: value})

    # The CLI names the file as given (relative); here it was given absolute.
    assert str(caught.value) == expected.replace(case, str(repo / case), 1)
    assert caught.value.key == setting
    assert "[the value came from --set" in str(caught.value)


@pytest.mark.parametrize(
    "kwargs, args",
    [
        ({"duration": -1.0}, ["--duration=-1"]),
        ({"duration": 1e9}, ["--duration=1e9"]),
        ({"tol": 0.5}, ["--tol=0.5"]),  # tol >= |g| h would freeze a falling body
    ],
)
def test_a_bad_option_raises_the_cli_message(cli, tmp_path, repo, kwargs, args):
    case = "cases/slope_mu0.11.toml"
    expected = cli_message(cli, "run", case, *args, "--out", str(tmp_path / "o"))
    duration = kwargs.pop("duration", None)

    with pytest.raises(stickslip.InputError) as caught:
        stickslip.load(repo / case).run(duration, **kwargs)

    assert str(caught.value) == expected.replace(case, str(repo / case))
    assert caught.value.key == args[0].split("=")[0]


def test_options_of_other_kinds_are_refused_as_the_cli_refuses_them(cli, tmp_path, repo):
    for case, args, kwargs in [
        ("cases/belt_stick_slip.toml", ["--tol", "0.001"], {"tol": 0.001}),
        ("cases/football.toml", ["--tol", "0.001"], {"tol": 0.001}),
        ("cases/football.toml", ["--duration", "0"], {"duration": 0.0}),
    ]:
        expected = cli_message(cli, "run", case, *args, "--out", str(tmp_path / "o"))
        duration = kwargs.pop("duration", None)
        with pytest.raises(stickslip.InputError) as caught:
            stickslip.load(repo / case).run(duration, **kwargs)
        assert str(caught.value) == expected


def test_a_file_that_is_not_a_case_raises_the_cli_message(cli, tmp_path, repo):
    for path in [tmp_path / "absent.toml", tmp_path, repo / "cases/bounce.toml"]:
        expected = cli_message(cli, "run", str(path), "--out", str(tmp_path / "o"))
        with pytest.raises(stickslip.InputError) as caught:
            stickslip.load(path)
        assert str(caught.value) == expected


def test_an_unknown_gpu_mode_and_an_unknown_rigid_key_are_bad_input(cli, tmp_path, repo):
    with pytest.raises(stickslip.InputError, match="option `--gpu`: must be one of auto, on, off"):
        stickslip.load(repo / "cases/slope_mu0.10.toml").run(gpu="maybe")
    football = repo / "cases/football.toml"
    stickslip.load(football, set={"impact.mu": 0.0})
    expected = cli_message(
        cli, "run", str(football), "--set", "impact.colour=1", "--out", str(tmp_path / "o")
    )
    with pytest.raises(stickslip.InputError) as caught:
        stickslip.load(football, set={"impact.colour": 1})
    assert str(caught.value) == expected
    with pytest.raises(TypeError):
        stickslip.load(repo / "cases/slope_mu0.10.toml", set={"friction.mu": object()})


def test_an_oversized_generated_mesh_raises_before_anything_is_built(cli, tmp_path, repo):
    # Issue 41: the ellipsoid's cells = 1000 would be ~6·10⁹ tetrahedra; it is refused from its
    # keys before anything is allocated, from Python as from the command line (before, the
    # allocation aborted the interpreter).
    case = repo / "cases/football3d.toml"
    expected = cli_message(
        cli, "run", str(case), "--set", "bodies.football.cells=1000", "--out", str(tmp_path / "out")
    )
    with pytest.raises(stickslip.InputError) as caught:
        stickslip.load(case, set={"bodies.football.cells": 1000})
    assert str(caught.value) == expected
    assert "bodies.football.cells" in expected


def test_two_friction_pairs_for_the_same_members_raise(cli, tmp_path, repo):
    # Issue 41: a second [friction.pairs.*] entry for the same two members (here in the other
    # order) is refused; before, the one whose name sorts first silently won.
    text = (repo / "cases/box_on_box3d.toml").read_text()
    extra = '\n[friction.pairs.again]\nbetween = ["incline", "lower"]\nmu_static = 0.9\nmu_kinetic = 0.9\n'
    path = tmp_path / "twice.toml"
    path.write_text(text + extra)
    expected = cli_message(cli, "run", str(path), "--out", str(tmp_path / "out"))
    with pytest.raises(stickslip.InputError) as caught:
        stickslip.load(path)
    assert str(caught.value) == expected
    assert "friction.pairs" in expected


# Issue 41 items 1 and 5: the mesh-input rules hold from Python as from the command line.

RECT = [(0.0, 0.0), (0.2, 0.0), (0.2, 0.1), (0.0, 0.1)]  # a 0.2 m x 0.1 m block, tags 1-4


def msh(
    nodes: list[tuple[int, tuple[float, float]]], triangles: list[tuple[int, list[int]]]
) -> str:
    """A 2D MSH 4.1 ASCII file: one node block of (tag, (x, y)), one block of (tag, nodes)."""
    tags = [t for t, _ in nodes]
    text = f"$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 {len(nodes)} {min(tags)} {max(tags)}\n"
    text += f"2 1 0 {len(nodes)}\n" + "".join(f"{t}\n" for t in tags)
    text += "".join(f"{x} {y} 0\n" for _, (x, y) in nodes)
    etags = [t for t, _ in triangles]
    text += f"$EndNodes\n$Elements\n1 {len(triangles)} {min(etags)} {max(etags)}\n"
    text += f"2 1 2 {len(triangles)}\n"
    text += "".join(f"{t} {' '.join(map(str, el))}\n" for t, el in triangles)
    return text + "$EndElements\n"


def mesh_case(tmp_path: Path, repo: Path, mesh: str | None) -> Path:
    """cases/pulled_block.toml with its block read from body.msh (`mesh`, unless None) beside it."""
    text = (repo / "cases/pulled_block.toml").read_text()
    old = 'shape = "box"\nwidth = 0.2\nheight = 0.1\nnx = 2\nny = 1\n'
    assert text.count(old) == 1
    path = tmp_path / "case.toml"
    path.write_text(text.replace(old, 'shape = "mesh"\nfile = "body.msh"\n'))
    if mesh is not None:
        (tmp_path / "body.msh").write_text(mesh)
    return path


def raises_the_cli_message(cli: Path, tmp_path: Path, path: Path, *words: str) -> None:
    expected = cli_message(cli, "run", str(path), "--out", str(tmp_path / "out"))
    with pytest.raises(stickslip.InputError) as caught:
        stickslip.load(path)
    assert str(caught.value) == expected
    for w in words:
        assert w in expected, (w, expected)


def test_mesh_node_tags_in_any_order_load_and_bad_tags_raise(cli, tmp_path, repo):
    two = [(1, [1, 2, 3]), (2, [1, 3, 4])]
    # Tags listed 3, 1, 4, 2: found by tag, the block loads (taken by position, triangle 1 would
    # be clockwise and triangle 2 counter-clockwise, and the mesh refused).
    order = [3, 1, 4, 2]
    stickslip.load(mesh_case(tmp_path, repo, msh([(t, RECT[t - 1]) for t in order], two)))
    nodes = list(enumerate(RECT, start=1))
    # A node tag given twice.
    twice = nodes[:3] + [(2, RECT[3])]
    path = mesh_case(tmp_path, repo, msh(twice, two))
    raises_the_cli_message(cli, tmp_path, path, "bodies.block.file", "body.msh", "more than once")
    # An element naming a tag no node has.
    path = mesh_case(tmp_path, repo, msh(nodes, [(1, [1, 2, 3]), (2, [1, 3, 9])]))
    raises_the_cli_message(cli, tmp_path, path, "body.msh", "element 2", "node 9")
    # An element tag given twice.
    path = mesh_case(tmp_path, repo, msh(nodes, [(1, [1, 2, 3]), (1, [1, 3, 4])]))
    raises_the_cli_message(cli, tmp_path, path, "body.msh", "element 1", "more than once")


def test_a_mesh_element_listed_twice_raises(cli, tmp_path, repo):
    nodes = list(enumerate(RECT, start=1))
    path = mesh_case(tmp_path, repo, msh(nodes, [(1, [1, 2, 3]), (2, [1, 3, 4]), (3, [3, 4, 1])]))
    raises_the_cli_message(cli, tmp_path, path, "bodies.block.file", "body.msh")


def test_a_mesh_file_that_is_a_fifo_raises_without_hanging(cli, tmp_path, repo):
    # Reading a FIFO would block for ever: refused before it is opened. In a child interpreter,
    # so that a regression fails on the timeout rather than hanging the suite.
    path = mesh_case(tmp_path, repo, None)
    os.mkfifo(tmp_path / "body.msh")
    expected = cli_message(cli, "run", str(path), "--out", str(tmp_path / "out"))
    code = (
        "import sys, stickslip\n"
        "try:\n    stickslip.load(sys.argv[1])\n"
        "except stickslip.InputError as e:\n    print(e)\n    sys.exit(0)\n"
        "sys.exit(1)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == expected
    assert "FIFO" in expected and "body.msh" in expected


def test_oversized_2d_generated_bodies_raise_before_anything_is_built(cli, tmp_path, repo):
    # A box of 1000 x 1000 cells (1001² > 10⁶ nodes) is refused from its keys, naming `nx`;
    # two 710 x 710 boxes (each within the bound, 1.01·10⁶ nodes together) as a scene.
    case = repo / "cases/pulled_block.toml"
    sets = ["bodies.block.nx=1000", "bodies.block.ny=1000"]
    expected = cli_message(
        cli, "run", str(case), "--set", sets[0], "--set", sets[1], "--out", str(tmp_path / "o")
    )
    with pytest.raises(stickslip.InputError) as caught:
        stickslip.load(case, set={"bodies.block.nx": 1000, "bodies.block.ny": 1000})
    assert str(caught.value) == expected
    assert "bodies.block.nx" in expected and "nodes" in expected
    text = case.read_text().replace("nx = 2\nny = 1\n", "nx = 710\nny = 710\n")
    other = '\n[bodies.other]\nshape = "box"\nwidth = 0.2\nheight = 0.1\nnx = 710\nny = 710\n'
    other += "centre = [5.0, 0.0505]\ndensity = 50.0\nstiffness = 1.0e6\n"
    path = tmp_path / "two.toml"
    path.write_text(text.replace("\n[obstacles.floor]", other + "\n[obstacles.floor]"))
    raises_the_cli_message(cli, tmp_path, path, "key `bodies`", "in all")
