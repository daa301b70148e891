"""The markdown table of docs/real-kafka.md from compare.sh's JSON files.

    python3 conformance/real_kafka/compare_table.py DIR SCENARIO...

One row per scenario: for the simulator (`sim`), regroup serve driven in real time (`serve`) and
Apache Kafka 4.4.0 driven (`kafka`): the verdict, each group's final epoch (streams, consumer) or generation
(classic) with its member count, and when the groups converged (scenario ms); then the faults drive
skipped and the first violation, if any.
"""

import json
import sys
from pathlib import Path


def load(path):
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def cell(v):
    if v is None:
        return "not run"
    groups = ", ".join(
        f"{g['groupId']} {'g' if g['type'] == 'classic' else 'e'}{g['epoch']}/{len(g['members'])}"
        for g in v.get("groups", [])
    )
    converged = v.get("convergedAtMs")
    at = f" @{converged / 1000:.1f}s" if converged is not None else ""
    return f"{v['verdict']}: {groups}{at}"


def notes(*runs):
    out = []
    for name, v in runs:
        if v is None:
            continue
        for s in v.get("drive", {}).get("faultsSkipped", []):
            out.append(f"{name} skipped {s['fault']}: {s['reason']}")
        for x in v.get("violations", []):
            out.append(f"{name}: {x['invariant']}: {x['detail'][:160]}")
    return "; ".join(out)


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    d = Path(sys.argv[1])
    print("| scenario | simulator | regroup serve, driven | Kafka 4.4.0, driven | notes |")
    print("|---|---|---|---|---|")
    for s in sys.argv[2:]:
        sim, serve, kafka = (load(d / f"{s}.{k}.json") for k in ("sim", "serve", "kafka"))
        print(
            f"| {s} | {cell(sim)} | {cell(serve)} | {cell(kafka)} | "
            f"{notes(('serve', serve), ('kafka', kafka))} |"
        )


if __name__ == "__main__":
    main()
