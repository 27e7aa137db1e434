"""Type stubs of stickslip._native, the Rust half of the package (python/src/lib.rs).

Use the package (``import stickslip``): its functions wrap these and give typed results.
"""

from typing import Any, Mapping, Sequence, Union

_SetValue = Union[bool, int, float, str, Sequence[Union[bool, int, float, str]]]

class Case:
    """A loaded, validated case file."""

    @property
    def path(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def h(self) -> float: ...
    @property
    def duration(self) -> float: ...
    @property
    def overrides(self) -> list[str]: ...
    def run(
        self,
        duration: Union[float, None] = None,
        *,
        tol: Union[float, None] = None,
        gpu: str = "off",
        progress: Union[bool, None] = None,
    ) -> dict[str, Any]:
        """Runs the case; a dict with ``kind``, ``trajectory`` (column name -> numpy array),
        ``events`` (rigid cases: column name -> array or list of str; else None), ``summary``
        (summary.json's content) and ``verdict`` (str, or body name -> str for a scene)."""
        ...
    def simulate(self) -> Simulation:
        """A scene at t = 0 to step (stickslip.Simulation wraps it)."""
        ...

class Simulation:
    """A scene being stepped."""

    def step(self, n: int = 1) -> None: ...
    @property
    def t(self) -> float: ...
    @property
    def steps(self) -> int: ...
    @property
    def dimension(self) -> int: ...
    def bodies(self) -> dict[str, dict[str, Any]]:
        """Body name -> {"positions": (n, D) array, "velocities": (n, D) array}."""
        ...
    def drivers(self) -> dict[str, dict[str, Any]]:
        """Driver name -> {"type": str, "body": str, "force": (D,) array}."""
        ...
    def contacts(self) -> dict[str, Any]:
        """Column name -> array or list of str, one entry per pair within d-hat."""
        ...
    def set_driver(self, name: str, key: str, value: Sequence[float]) -> None: ...
    def trajectory(self) -> dict[str, Any]:
        """Column name -> numpy array, the rows so far."""
        ...

def load(path: str, set: Union[Mapping[str, _SetValue], None] = None) -> Case:
    """Reads and validates a case file; raises stickslip.InputError on bad input."""
    ...

def sweep(
    path: str, jobs: Union[int, None] = None, progress: Union[bool, None] = None
) -> tuple[str, str]:
    """Runs a sweep file's cells in memory; returns (map.csv's text, the collect report)."""
    ...
