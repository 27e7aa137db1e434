"""The book figure and the stick-slip map from Python, with matplotlib.

    pip install ./python matplotlib
    python examples/python_figures.py --out out/python_figures      # about a minute on 2 cores

writes into a new directory (refusing one that exists, so nothing of yours is replaced):

* ``slopes.png``: downhill distance and speed against time for the three slope cases
  (Figure 10.2.1 of the book; ``stickslip plot`` draws the same data);
* ``stick_slip_map.png``: the verdict of every cell of ``sweeps/stick_slip.toml`` over tan(theta)
  and mu, with Coulomb's line mu = tan(theta) (``stickslip sweep`` + ``collect`` give the same
  map.csv).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import stickslip  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
CASES = ["cases/slope_mu0.10.toml", "cases/slope_mu0.11.toml", "cases/slope_mu0.20.toml"]
VERDICT_COLOURS = {
    "stopped": "tab:blue",
    "sliding": "tab:red",
    "moving": "tab:orange",
    "tumbling": "tab:purple",
    "airborne": "tab:grey",
}


def book_figure(path: Path) -> None:
    fig, (top, bottom) = plt.subplots(2, 1, sharex=True, figsize=(8, 6))
    for case in CASES:
        result = stickslip.load(REPO / case).run()
        t = result.trajectory["t_s"]
        label = f"{stickslip.load(REPO / case).name}: {result.verdict}"
        top.plot(t, result.trajectory["downhill_distance_m"], label=label)
        bottom.plot(t, result.trajectory["downhill_speed_m_per_s"])
    top.set_ylabel("downhill distance (m)")
    bottom.set_ylabel("downhill speed (m/s)")
    bottom.set_xlabel("t (s)")
    top.legend(fontsize="small")
    top.set_title("the square on the slope (SPEC.md §1)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def stick_slip_map(path: Path, jobs: int | None) -> stickslip.SweepMap:
    m = stickslip.sweep(REPO / "sweeps/stick_slip.toml", jobs=jobs)
    c = m.columns
    tan, mu, verdict = c["slope.tan_theta"], c["friction.mu"], c["verdict"]
    fig, ax = plt.subplots(figsize=(7.5, 5))
    for state, colour in VERDICT_COLOURS.items():
        here = verdict == state
        if here.any():
            ax.scatter(tan[here], mu[here], c=colour, s=60, marker="s", label=state)
    line = np.linspace(tan.min(), tan.max(), 2)
    ax.plot(line, line, "k--", label="mu = tan(theta)")
    ax.set_xlabel("tan(theta)")
    ax.set_ylabel("mu")
    ax.set_title(f"stick-slip map ({len(verdict)} cells)")
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1.0))
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return m


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("out/python_figures"))
    parser.add_argument("--jobs", type=int, default=None, help="sweep threads (default: all CPUs)")
    args = parser.parse_args()
    if args.out.exists():
        parser.error(f"{args.out} exists; give a new directory (nothing was written)")
    args.out.mkdir(parents=True)
    book_figure(args.out / "slopes.png")
    m = stick_slip_map(args.out / "stick_slip_map.png", args.jobs)
    print(m.report, end="")
    print(f"wrote {args.out / 'slopes.png'} and {args.out / 'stick_slip_map.png'}")


if __name__ == "__main__":
    main()
