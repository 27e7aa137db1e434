"""stickslip: frictional contact by optimisation, cross-checked by an impulse law.

The Rust crate ``stickslip`` from Python: the same validation, the same solver and the same
numbers as the command line (a run's trajectory equals the CLI's ``trajectory.csv`` bit for bit).

>>> import stickslip
>>> case = stickslip.load("cases/slope_mu0.11.toml", set={"friction.mu": 0.2})
>>> result = case.run(duration=8.0)
>>> result.verdict
'stopped at t = 5.53 s'
>>> result.trajectory["downhill_distance_m"][-1]  # doctest: +SKIP
0.3036...

* :func:`load` reads and validates a case file of any kind that runs (``slope_square``,
  ``scene``, ``rigid_ellipsoid``), with ``--set`` overrides; :meth:`Case.run` runs it and gives a
  :class:`RunResult` (the trajectory as numpy arrays, the verdict, ``summary.json``'s content).
* :meth:`Case.simulate` gives a :class:`Simulation` of a scene to step from Python
  (``sim.step()``), reading its bodies, contacts and drivers between steps and changing a
  driver's anchor velocity, velocity or force.
* :func:`sweep` runs a sweep file's grid in memory on worker threads and gives the stick–slip
  map as columns (:class:`SweepMap`, ``map.csv``'s content).
* Bad input raises :class:`InputError` (a ``ValueError``) with the CLI's exit-2 message; a
  failed run raises :class:`RunError` (a ``RuntimeError``).

The GIL is released while a case steps, so Python threads run cases in parallel; Ctrl-C
interrupts a run or a sweep with ``KeyboardInterrupt`` and leaves the interpreter usable.
docs/python.md in the repository has the details.
"""

from __future__ import annotations

import csv
import io
import os
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence, Union

import numpy as np

from . import _native
from .errors import InputError, RunError

__all__ = [
    "Body",
    "Case",
    "Driver",
    "InputError",
    "RunError",
    "RunResult",
    "Simulation",
    "SweepMap",
    "load",
    "sweep",
]

__version__ = "0.1.0"

SetValue = Union[bool, int, float, str, Sequence[Union[bool, int, float, str]]]


@dataclass(frozen=True)
class RunResult:
    """One run's results.

    Attributes:
        kind: the case's kind (``"slope_square"``, ``"scene"``, ``"rigid_ellipsoid"``).
        trajectory: the columns of ``trajectory.csv``, by its header's names (units in the
            names: ``t_s``, ``downhill_distance_m``, …), each a read-only numpy array with one
            value per step plus t = 0; ``newton_iterations`` is ``int64``, the rest ``float64``.
        verdict: the verdict in words (``"stopped at t = 6.41 s"``, ``"sliding (0.466 m/s)"``);
            for a scene, a dict of each body's; for a rigid case, how the run ended.
        summary: ``summary.json``'s content as a dict (the verdict's state and rule, solver
            totals, the cross-check report, wall times).
        events: for a rigid case, the columns of ``events.csv`` (one row per impact); else None.
    """

    kind: str
    trajectory: dict[str, np.ndarray]
    verdict: Union[str, dict[str, str]]
    summary: dict[str, Any]
    events: Union[dict[str, Any], None] = None

    @property
    def solver(self) -> dict[str, Any]:
        """The solver's totals (``summary["solver"]``: Newton iterations, line-search halvings,
        factorisations, …); empty for a rigid case, which has no Newton solver."""
        return self.summary.get("solver", {})

    @property
    def physical(self) -> bool:
        """False when a scene's body turned inside out or penetrated (``summary["physical"]``,
        with ``summary["inverted"]`` and ``summary["penetrated"]`` naming the bodies, counts and
        times; docs/scenes.md). Such a run does not raise: its trajectory and summary are valid
        data, returned for inspection, where ``stickslip run`` writes them and exits 3. True
        otherwise, and for the slope's square (whose folding, a documented artefact of the
        book's mass-spring grid, is ``summary["solver"]["max_inverted_triangles"]``) and the
        rigid football."""
        return self.summary.get("physical", True)

    @property
    def cross_check(self) -> Union[dict[str, Any], None]:
        """The impulse-law cross-check report of a slope run or of a scene, 2D or 3D, over
        every contact record (SPEC.md §4, docs/impulse.md §7: ``summary["cross_check"]``);
        None for the rigid football."""
        return self.summary.get("cross_check")

    def __repr__(self) -> str:
        rows = len(next(iter(self.trajectory.values()))) if self.trajectory else 0
        return f"<stickslip.RunResult {self.kind}: {rows} rows, verdict {self.verdict!r}>"


class Case:
    """A validated case file; made by :func:`load`.

    Attributes (read-only): ``path``, ``kind``, ``name``, ``h`` (s), ``duration`` (s), and
    ``overrides`` (the ``KEY=VALUE`` settings applied).
    """

    __slots__ = ("_native",)

    def __init__(self, native: Any) -> None:
        self._native = native

    path = property(lambda self: self._native.path, doc="The case file's path, as given.")
    kind = property(
        lambda self: self._native.kind,
        doc='"slope_square", "scene" or "rigid_ellipsoid".',
    )
    name = property(lambda self: self._native.name, doc="The case's name.")
    h = property(lambda self: self._native.h, doc="The time step, s.")
    duration = property(lambda self: self._native.duration, doc="time.duration, s.")
    overrides = property(
        lambda self: self._native.overrides,
        doc="The overrides applied, as KEY=VALUE strings.",
    )

    def run(
        self,
        duration: Union[float, None] = None,
        *,
        tol: Union[float, None] = None,
        gpu: str = "off",
        progress: Union[bool, None] = None,
    ) -> RunResult:
        """Runs the case, as ``stickslip run CASE`` does, and returns its results.

        Args:
            duration: simulated seconds (default: the case's ``time.duration``); the CLI's
                ``--duration`` rules apply.
            tol: Newton tolerance on ‖p‖∞/h, m/s (slope cases only; the CLI's ``--tol``).
            gpu: where the impulse law of a slope case's cross-check runs: ``"off"`` (the CPU
                law, the default here), ``"auto"`` (a GPU adapter if there is one, as the CLI's
                default) or ``"on"`` (a GPU or an error). It changes the cross-check report
                only, never the trajectory.
            progress: a progress bar on standard error: None (default) shows one for runs
                longer than a second when standard error is a terminal (never in a notebook);
                True always; False never.

        Raises:
            InputError: an option breaks a rule (the CLI's exit 2).
            RunError: the solver failed (the CLI's exit 1).
            KeyboardInterrupt: Ctrl-C; the interpreter stays usable.
        """
        raw = self._native.run(duration, tol=tol, gpu=gpu, progress=progress)
        for column in raw["trajectory"].values():
            column.flags.writeable = False
        return RunResult(
            kind=raw["kind"],
            trajectory=raw["trajectory"],
            verdict=raw["verdict"],
            summary=raw["summary"],
            events=raw["events"],
        )

    def simulate(self) -> "Simulation":
        """A scene (``kind = "scene"``, 2D or 3D) at t = 0, to step from Python.

        Stepped through its whole duration (``sim.step(n)`` with n the case's steps), its
        :attr:`Simulation.trajectory` equals :meth:`Case.run`'s bit for bit: the same
        validation, system and solver. The cross-check of :meth:`Case.run` is not run.

        Raises:
            InputError: the case is not a scene (a slope or rigid case runs with
                :meth:`Case.run`), or its system is too large for the solver.
        """
        return Simulation(self._native.simulate())

    def __repr__(self) -> str:
        return f"<stickslip.Case {self.name!r} ({self.kind}) from {self.path!r}>"


@dataclass(frozen=True)
class Body:
    """A body of a :class:`Simulation` now.

    Attributes:
        positions: its mesh's nodes, m: an (n, D) read-only numpy array (an affine body's mesh
            as its control nodes place it).
        velocities: their velocities, m/s, (n, D).
    """

    positions: np.ndarray = field(repr=False)
    velocities: np.ndarray = field(repr=False)

    @property
    def centroid(self) -> np.ndarray:
        """The nodes' plain mean position, m (a scene's trajectory has the mass-weighted one)."""
        return self.positions.mean(axis=0)


@dataclass(frozen=True)
class Driver:
    """A driver of a :class:`Simulation` at the last step.

    Attributes:
        type: ``"spring"``, ``"move"`` or ``"force"``.
        body: the body it acts on.
        force: its force on the body at the last step, N (a spring's pull, a prescribed
            motion's reaction, a constant force), D numbers.
    """

    type: str
    body: str
    force: np.ndarray


def _read_only(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


class Simulation:
    """A scene being stepped; made by :meth:`Case.simulate`.

    >>> sim = stickslip.load("cases/stacked_blocks.toml").simulate()
    >>> sim.step(100)                       # 100 steps of h
    >>> sim.t, sim.bodies["upper"].velocities.mean(axis=0)   # doctest: +SKIP
    >>> sim.set_driver("pull", force=[0.0, 0.0])           # from the next step on
    >>> sim.contacts()["state"][:3]                        # doctest: +SKIP

    Every method holds the simulation's lock; :meth:`step` releases the GIL while it steps, so
    simulations on other threads step in parallel, and Ctrl-C stops it between two steps with
    ``KeyboardInterrupt`` (the steps taken stay taken).
    """

    __slots__ = ("_native",)

    def __init__(self, native: Any) -> None:
        self._native = native

    def step(self, n: int = 1) -> None:
        """Takes ``n`` time steps (n >= 1).

        Raises:
            InputError: n < 1 (nothing is stepped).
            RunError: a step failed (the CLI's exit 1); the steps before it stay taken.
            KeyboardInterrupt: Ctrl-C, between two steps.
        """
        self._native.step(n)

    @property
    def t(self) -> float:
        """The simulated time, s."""
        return self._native.t

    @property
    def steps(self) -> int:
        """The steps taken."""
        return self._native.steps

    @property
    def dimension(self) -> int:
        """The scene's dimension, 2 or 3."""
        return self._native.dimension

    @property
    def bodies(self) -> dict[str, Body]:
        """Every body now, by name (positions and velocities, copies)."""
        return {
            name: Body(
                positions=_read_only(b["positions"]),
                velocities=_read_only(b["velocities"]),
            )
            for name, b in self._native.bodies().items()
        }

    @property
    def drivers(self) -> dict[str, Driver]:
        """Every driver at the last step, by name."""
        return {
            name: Driver(type=d["type"], body=d["body"], force=_read_only(d["force"]))
            for name, d in self._native.drivers().items()
        }

    def contacts(self) -> dict[str, Any]:
        """The contact pairs within d̂ now, as ``contacts.csv`` has them, one entry per pair:

        ``type`` (list of str: ``node-half_space``, ``point-edge``, …), ``first`` and
        ``second`` (the body or obstacle names), ``distance`` (m), ``normal_force`` (the
        barrier's, N), ``normal`` ((n, D), unit, from the second towards the first),
        ``friction_force`` ((n, D), N, from the friction set of the step that ended here; zero
        for a pair not in it), ``slip`` ((n, D), the tangential relative velocity, m/s) and
        ``state`` (list of str: ``stick``, ``transition`` or ``slide``, the slip against ε_v).
        """
        out = dict(self._native.contacts())
        for key, value in out.items():
            if isinstance(value, np.ndarray):
                out[key] = _read_only(value)
        return out

    def set_driver(
        self,
        name: str,
        *,
        anchor_velocity: Union[Sequence[float], None] = None,
        velocity: Union[Sequence[float], None] = None,
        force: Union[Sequence[float], None] = None,
    ) -> None:
        """Changes driver ``name`` from the next step on, continuing from where it is now:
        a spring's ``anchor_velocity`` (m/s), a prescribed motion's ``velocity`` (m/s) or a
        constant force's ``force`` (N), D numbers; exactly one, the one its type takes.

        Raises:
            InputError: no such driver, a change its type does not take, not exactly one
                change, or not D finite numbers; nothing is changed.
        """
        given = {
            key: value
            for key, value in (
                ("anchor_velocity", anchor_velocity),
                ("velocity", velocity),
                ("force", force),
            )
            if value is not None
        }
        if len(given) != 1:
            raise InputError(
                "set_driver: give exactly one of anchor_velocity, velocity, force "
                f"(got {sorted(given) or 'none'})",
                key="set_driver",
                rule="exactly one of anchor_velocity, velocity, force",
            )
        ((key, value),) = given.items()
        if isinstance(value, np.ndarray):
            value = value.tolist()
        self._native.set_driver(name, key, value)

    @property
    def trajectory(self) -> dict[str, np.ndarray]:
        """The rows so far (t = 0 and one per step), as :attr:`RunResult.trajectory`."""
        columns = self._native.trajectory()
        for column in columns.values():
            column.flags.writeable = False
        return columns

    def __repr__(self) -> str:
        return f"<stickslip.Simulation {self.dimension}D scene at t = {self.t:g} s, {self.steps} steps>"


def load(
    path: Union[str, "os.PathLike[str]"],
    set: Union[Mapping[str, SetValue], None] = None,
) -> Case:
    """Reads and validates a case file, as ``stickslip run`` does.

    Args:
        path: the case file (TOML; its ``kind`` key picks the system, ``slope_square`` when
            absent).
        set: overrides of case keys, applied before validation like the CLI's
            ``--set KEY=VALUE``: ``{"friction.mu": 0.2, "square.n_seg": 16}``. A ``str`` value is
            read as the command line reads VALUE (``"[0.2, 1]"`` is an array, ``"ipc"`` a
            string); numbers, booleans and lists are passed as TOML values. A rigid case takes
            none.

    Raises:
        InputError: the file, a key or an override breaks a rule; the message is the CLI's.
    """
    return Case(_native.load(os.fspath(path), set))


@dataclass(frozen=True)
class SweepMap:
    """A sweep's stick–slip map: ``map.csv`` of ``stickslip sweep collect``.

    Attributes:
        columns: one entry per column of ``map.csv``, in its order: ``cell`` (ids), one per axis
            (headed by its key), ``status``, then the result columns (``verdict``,
            ``stop_time_s``, ``downhill_distance_m``, …). A column whose every field is a number
            is a numpy array (``int64`` if all are integers, else ``float64`` with NaN for an
            empty field); any other is a numpy array of ``str``.
        csv: ``map.csv``'s text, byte for byte what ``stickslip sweep`` + ``collect`` write.
        report: the collect report (cells done, failed, missing).
    """

    columns: dict[str, np.ndarray] = field(repr=False)
    csv: str = field(repr=False)
    report: str

    def __repr__(self) -> str:
        return f"<stickslip.SweepMap {self.report.strip()}>"


def _column(fields: list[str]) -> np.ndarray:
    def number(text: str) -> Union[float, None]:
        try:
            return float(text) if text else float("nan")
        except ValueError:
            return None

    if fields and all(f and f.lstrip("-").isdigit() for f in fields):
        return np.array([int(f) for f in fields], dtype=np.int64)
    values = [number(f) for f in fields]
    if fields and any(f for f in fields) and all(v is not None for v in values):
        return np.array(values, dtype=np.float64)
    return np.array(fields, dtype=str)


def sweep(
    path: Union[str, "os.PathLike[str]"],
    jobs: Union[int, None] = None,
    progress: Union[bool, None] = None,
) -> SweepMap:
    """Runs every cell of a sweep file in memory and returns the map.

    The cells run as ``stickslip sweep`` runs them (each the case with its overrides, the
    cross-check on the CPU), on ``jobs`` threads (default: the CPUs this process may use), with
    no sweep directory: nothing is written. Ctrl-C stops starting cells and raises
    ``KeyboardInterrupt`` once the running ones end.

    Raises:
        InputError: the sweep file or a cell's case breaks a rule (the CLI's exit 2).
    """
    text, report = _native.sweep(os.fspath(path), jobs, progress)
    rows = list(csv.reader(io.StringIO(text)))
    header, body = rows[0], rows[1:]
    columns = {name: _column([row[k] for row in body]) for k, name in enumerate(header)}
    return SweepMap(columns=columns, csv=text, report=report)
