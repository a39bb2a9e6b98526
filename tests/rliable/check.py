"""Cross-checks bsuite-rs's statistics over seeds against the real rliable 1.2.0.

Run by `cargo xtask test` (xtask/src/rliable_check.rs) in the venv `.bsuite/rliable-venv`
(rliable==1.2.0, pandas<3: rliable's dependency arch 7.2 does not import under pandas 3):

    python check.py EXPORT.json SCORES.json COMPARE.json REPS

EXPORT.json is `score --export rliable`'s file for two agents A and B, SCORES.json
`score --json` of the same two (an object keyed by agent), COMPARE.json `compare A B
--json`. For every tag whose columns every seed scored: rliable's four aggregates must
equal ours to 1e-9 and its 95% intervals (its own stratified bootstrap, REPS replicates)
must match ours within sampling error; P(A > B) likewise, per tag.
"""

import json
import sys

import numpy as np
from rliable import library as rly
from rliable import metrics

AGGREGATES = {
    "mean": metrics.aggregate_mean,
    "median": metrics.aggregate_median,
    "iqm": metrics.aggregate_iqm,
    "optimality_gap": metrics.aggregate_optimality_gap,
}


def close_interval(ours, lo, hi, what):
    """Ours within sampling error of rliable's: each end within a tenth of the interval's
    width (the 2.5% quantile of 10,000 replicates moves about a hundredth of it)."""
    width = max(hi - lo, ours["hi"] - ours["lo"])
    slack = 0.1 * width + 1e-9
    assert abs(ours["lo"] - lo) <= slack and abs(ours["hi"] - hi) <= slack, (
        f"{what}: ours [{ours['lo']}, {ours['hi']}], rliable [{lo}, {hi}]"
    )


def main():
    export_path, scores_path, compare_path, reps = sys.argv[1:5]
    reps = int(reps)
    export = json.load(open(export_path))
    scores = json.load(open(scores_path))
    compare = json.load(open(compare_path))
    assert export["format"] == "bsuite-rs rliable export 1"
    columns = export["experiments"]
    arrays = {
        name: np.array(agent["scores"], dtype=float)
        for name, agent in export["agents"].items()
    }
    names = list(arrays)
    assert len(names) == 2, names
    checked = 0
    for tag, experiments in export["tags"].items():
        idx = [columns.index(e) for e in experiments]
        if not idx or any(np.isnan(arrays[n][:, idx]).any() for n in names):
            continue
        for name in names:
            x = arrays[name][:, idx]
            ours = scores[name]["intervals"]["tags"][tag]
            for key, func in AGGREGATES.items():
                point = func(x)
                assert abs(point - ours[key]["value"]) <= 1e-9, (
                    f"{name} {tag} {key}: ours {ours[key]['value']}, rliable {point}"
                )
                _, intervals = rly.get_interval_estimates(
                    {name: x}, lambda s: np.array([func(s)]), reps=reps,
                    random_state=np.random.RandomState(0),
                )
                lo, hi = np.ravel(intervals[name])
                close_interval(ours[key], lo, hi, f"{name} {tag} {key}")
        a, b = (arrays[n][:, idx] for n in names)
        ours = compare["tags"][tag]["p_improvement"]
        point = metrics.probability_of_improvement(a, b)
        assert abs(point - ours["value"]) <= 1e-9, f"P(A > B) {tag}: ours {ours}, rliable {point}"
        _, intervals = rly.get_interval_estimates(
            {"pair": (a, b)}, metrics.probability_of_improvement, reps=reps,
            random_state=np.random.RandomState(0),
        )
        lo, hi = np.ravel(intervals["pair"])
        close_interval(ours, lo, hi, f"P(A > B) {tag}")
        checked += 1
    assert checked >= 3, f"only {checked} tags had every column scored"
    print(f"rliable 1.2.0 agrees on {checked} tags: 4 aggregates per agent and P(A > B)")


if __name__ == "__main__":
    main()
