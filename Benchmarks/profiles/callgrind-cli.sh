#!/usr/bin/env bash
# Instruction counts of trendyctl's start (docs/performance.md, `events add`): callgrind counts the same instructions
# on every run, where wall-clock time on this VM moves by ±20 %.
#
#   Benchmarks/profiles/callgrind-cli.sh [trendyctl binary]    (make profile-cli builds the installed binary first)
#
# Prints the total of `--version` and of `events add` on a fresh database, then the functions with the largest
# inclusive share of the add. The binary is copied without its debug sections: valgrind 3.19 cannot read the DWARF 5
# that Swift 6.3 writes, and the symbol table is enough for function names.
set -euo pipefail
binary=${1:-.build-shipped/trendyctl}
command -v valgrind >/dev/null || { echo "error: valgrind is missing: sudo apt-get install valgrind" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
objcopy --strip-debug "$binary" "$work/trendyctl"
export TRENDY_DB=$work/db.sqlite TRENDY_CONFIG=$work/config.toml TRENDY_TOKEN_FILE=$work/token
export TRENDY_SERVER=http://127.0.0.1:9
"$work/trendyctl" types add Bench -q >/dev/null
"$work/trendyctl" events add Bench -q >/dev/null  # the database exists and is migrated, as on a user's machine
total() { valgrind --tool=callgrind --callgrind-out-file="$work/$1.out" "${@:2}" 2>&1 | sed -n 's/.*Collected : //p'; }
echo "trendyctl --version: $(total version "$work/trendyctl" --version) instructions"
echo "trendyctl events add: $(total add "$work/trendyctl" events add Bench -q) instructions"
set +o pipefail  # head closes the pipe early
callgrind_annotate --inclusive=yes "$work/add.out" 2>/dev/null | grep -E '^ *[0-9,]+ \(' | grep -vE \
    'dispatch|start_thread|swift_job_run|runJobInEstablishedExecutorContext|jobInvoke|__swift_run_job|PROGRAM TOTALS' |
    head -${CALLGRIND_LINES:-25} | cut -c1-160
