#!/usr/bin/env python3
"""Keeps only the gated metrics (instructions, allocations) in the threshold files that `swift package benchmark
thresholds update` wrote: timings vary with the machine's load and are reported, never checked in."""
import json, pathlib, sys

GATED = ("instructions", "mallocCountTotal")
for path in sorted(pathlib.Path(sys.argv[1]).glob("*.json")):
    kept = {metric: value for metric, value in json.loads(path.read_text()).items() if metric in GATED}
    path.write_text(json.dumps(kept, indent=2, sort_keys=True) + "\n")
    print(f"{path.name}: {kept}")
