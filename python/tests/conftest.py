"""Shared fixtures: the repository's case files and the command-line binary the package is
compared with (STICKSLIP_BIN, default target/release/stickslip, which `cargo test --release`
and `cargo build --release` build)."""

from __future__ import annotations

import csv
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session")
def cli() -> Path:
    path = Path(os.environ.get("STICKSLIP_BIN", REPO / "target" / "release" / "stickslip"))
    if not path.is_file():
        pytest.fail(f"no stickslip binary at {path}: run `cargo build --release` (or set STICKSLIP_BIN)")
    return path


def run_cli(cli: Path, *args: str, cwd: Path = REPO) -> subprocess.CompletedProcess:
    """The command line with `args`, its output captured (no terminal: no progress bar)."""
    return subprocess.run(
        [str(cli), *args], cwd=cwd, capture_output=True, text=True, timeout=600
    )


def read_csv_columns(path: Path) -> dict[str, list[str]]:
    """A CSV file's columns as the text of each field."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    return {name: [row[k] for row in body] for k, name in enumerate(header)}


def same_bits(array: np.ndarray, fields: list[str]) -> bool:
    """Whether `array` holds exactly the numbers the CSV fields spell. The CLI writes each f64
    with Rust's shortest round-trip formatting, so parsing a field gives back the very bits that
    were written: comparing bit patterns (not values) also tells -0.0 from 0.0 and NaN from NaN."""
    if array.dtype.kind == "i":
        return array.tolist() == [int(f) for f in fields]
    expected = np.array([float(f) for f in fields], dtype=np.float64)
    return array.shape == expected.shape and bool(
        np.all(array.view(np.uint64) == expected.view(np.uint64))
    )
