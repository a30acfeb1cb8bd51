#!/usr/bin/env bash
# `make demo`: trendy-server on a temporary SQLite file, and trendyctl on two client databases, "laptop" and
# "phone", walking through the main job. Every command is printed before its output. Exits 0 only when both
# devices end with the same data.
set -euo pipefail

bin="${TRENDY_BIN:-.build-shipped}"
work="$(mktemp -d "${TMPDIR:-/tmp}/trendy-demo.XXXXXX")"
server_pid=""
cleanup() {
    if [[ -n "$server_pid" ]] && kill -0 "$server_pid" 2>/dev/null; then
        kill -TERM "$server_pid" && wait "$server_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT

bold=$'\e[1m'
plain=$'\e[0m'
if [[ -n "${NO_COLOR:-}" || ! -t 1 ]]; then bold="" plain=""; fi
step() { printf '\n%s== %s%s\n' "$bold" "$*" "$plain"; }

"$bin/trendy-server" --port 0 --db "$work/server.sqlite" --dev --log-level warning >"$work/server.out" 2>"$work/server.log" &
server_pid=$!
for _ in $(seq 100); do
    grep -q "listening on" "$work/server.out" 2>/dev/null && break
    sleep 0.1
done
url="$(sed -n 's/^trendy-server listening on //p' "$work/server.out")"
[[ -n "$url" ]] || { echo "trendy-server did not start:"; cat "$work/server.log"; exit 1; }
step "trendy-server is listening on $url (SQLite file in $work)"

# Both devices share one config and one token file here; each has its own database.
export TRENDY_CONFIG="$work/config.toml" TRENDY_TOKEN_FILE="$work/token" NO_COLOR="${NO_COLOR:-}"
unset TRENDY_TOKEN TRENDY_SERVER TRENDY_DB
# An argument as a user would type it: bare when safe, else in double quotes.
quote() {
    if [[ "$1" =~ ^[A-Za-z0-9_./:=@%+,-]+$ ]]; then
        printf '%s' "$1"
    else
        local escaped="${1//\\/\\\\}"
        escaped="${escaped//\"/\\\"}"
        escaped="${escaped//\$/\\\$}"
        printf '"%s"' "$escaped"
    fi
}
device() {
    local name="$1"
    shift
    local shown="" argument
    for argument in "$@"; do shown+=" $(quote "$argument")"; done
    printf '%s$ trendyctl --db %s.sqlite%s%s\n' "$bold" "$name" "$shown" "$plain"
    "$bin/trendyctl" --db "$work/$name.sqlite" "$@"
}
quietly() { local name="$1"; shift; "$bin/trendyctl" --db "$work/$name.sqlite" --quiet "$@"; }

step "Log in once (the token is read from stdin and stored with mode 0600)"
printf '%s$ echo dev-token | trendyctl login --server %s --with-token%s\n' "$bold" "$url" "$plain"
echo dev-token | "$bin/trendyctl" login --server "$url" --with-token

step "On the laptop, offline: event types, a property, events"
device laptop types add Coffee --color "#8B4513" --icon cup.and.saucer
device laptop types add Run --color "#34C759" --icon figure.run
device laptop props add Run km --label Distance --kind number
device laptop events add Coffee --at "2026-11-20 08:00" --notes "flat white"
device laptop events add Coffee --at "2026-11-21 08:05" --notes "espresso"
device laptop events add Run --at "2026-11-21 07:00" --prop km=5.2 --notes "river loop"
device laptop events list
device laptop status

step "Sync the laptop: its changes go to the server"
device laptop sync

step "The phone syncs and sees everything"
device phone sync
device phone events list

step "On the phone: edit one event, delete another, add a third"
espresso="$(quietly phone events list --type Coffee --limit 1 | awk 'NR == 2 { print $1 }')"
run="$(quietly phone events list --type Run | awk 'NR == 2 { print $1 }')"
device phone events edit "$espresso" --notes "double espresso"
device phone events rm "$run"
device phone events add Run --at "2026-11-21 18:30" --prop km=8 --notes "evening"
device phone sync

step "The laptop syncs again"
device laptop sync
device laptop events list

step "Both devices edit the same event offline, different fields: both edits stay (field-level merge)"
morning="$(quietly laptop events list --type Coffee | awk 'NR == 3 { print $1 }')"
device laptop events edit "$morning" --notes "flat white, oat milk"
device phone events edit "$morning" --at "2026-11-20 08:15"
device phone sync
device laptop sync
device phone sync
device laptop events show "$morning"
device phone events show "$morning"

step "Prove that each device holds exactly what the server holds"
device laptop sync --verify
device phone sync --verify --json

step "Status and history on both"
device laptop status
device phone status
device laptop history
device phone history

step "Do the laptop and the phone agree?"
agree=true
for what in "types list" "events list" "props list Run"; do
    # shellcheck disable=SC2086
    if ! diff <(quietly laptop $what --json) <(quietly phone $what --json) >/dev/null; then
        echo "they differ on: trendyctl $what"
        agree=false
    fi
done
if [[ "$agree" == true ]]; then
    echo "yes: event types, events and properties are identical on both devices"
else
    exit 1
fi
