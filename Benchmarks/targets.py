#!/usr/bin/env python3
"""The throughput figures of `make bench` against their targets (docs/performance.md, "Today's figures").

    python3 Benchmarks/targets.py FIGURES

FIGURES holds JSON lines written by `Benchmarks/user-path/userpath.py --figures` (the push of 10 000 offline events,
`trendyctl events add`'s p50) and by `Benchmarks/server/run.sh` with TRENDY_BENCH_FIGURES (wrk's requests per second
of each scenario). Prints one Markdown table; a figure missing from FIGURES is shown as not measured. Exits 0 either
way: timings follow the machine's load and are reported, never gated.
"""
import json
import sys

# (label, where the figure comes from, how to show it, the target, True when a larger figure is better)
TARGETS = [
    ("Batch ingest, wrk, SQLite (batches of 500)", ("SQLite, 1 instance: batch (500 events)", "requests_per_second"),
     lambda rps: rps * 500, "{:,.0f} events/s", 40_000, True),
    ("Feed page of 100 rows, wrk, SQLite", ("SQLite, 1 instance: feed page (100 rows)", "requests_per_second"),
     lambda rps: rps, "{:,.0f} req/s", 15_000, True),
    ("Push of 10 000 offline events, `trendyctl sync`", ("push", "seconds"), lambda seconds: seconds, "{:.2f} s",
     1.0, False),
    ("`trendyctl events add` p50, process start included", ("events_add_p50", "seconds"),
     lambda seconds: seconds * 1000, "{:.1f} ms", 12, False),
]


def main():
    figures = {}
    with open(sys.argv[1]) as file:
        for line in file:
            if line.strip():
                record = json.loads(line)
                figures[record["measure"]] = record
    print("| Measure | Measured | Target | Met |")
    print("|---|---|---|---|")
    for label, (measure, key), convert, shown, target, larger in TARGETS:
        record = figures.get(measure)
        if record is None:
            print(f"| {label} | not measured | {shown.format(target)} | – |")
            continue
        value = convert(record[key])
        met = value >= target if larger else value <= target
        print(f"| {label} | {shown.format(value)} | {shown.format(target)} | {'yes' if met else 'no'} |")


if __name__ == "__main__":
    main()
