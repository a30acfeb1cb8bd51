# Trendy sync stack — the two commands are `make demo` and `make test`.
#
# Both install the system libraries SwiftPM needs when they are missing (Debian/Ubuntu, as root), or say
# what to install otherwise.

SHELL := /bin/bash
.SHELLFLAGS := -eo pipefail -c
SWIFT ?= swift
## Manifests are cached in each build folder: SwiftPM's shared cache misses here on every call, and compiling every
## package's manifest again costs each `swift build` or `swift test` 5–16 s even when nothing changed.
PM := --manifest-cache local
## A build's flags must come out the same every time: SwiftPM orders some dependencies' trait defines
## (`-DFullFoundation -DConfigurationSupport`) by a hash that is seeded anew in each process, and every other order
## rebuilt Hummingbird's modules (about 20 s) at the next build.
SWIFT_BUILD := SWIFT_DETERMINISTIC_HASHING=1 $(SWIFT) build $(PM)
SYSTEM_PACKAGES := libsqlite3-dev libcurl4-openssl-dev
SOURCES := Package.swift Modules Apps Benchmarks Tests

## What users run is what is tested (docs/reliability.md, "The build under test").
## The optimized build: release (-O, whole module), with testing enabled so that the suites can `@testable import`.
## Every suite, the proof and the benchmarks' in-process parts run from it; trendy-server ships from it unchanged,
## so the server the suites start is byte for byte the one `make install` installs.
## trendyctl ships release with the Swift runtime and Foundation linked in (--static-swift-stdlib: a process start
## without loading them, docs/performance.md), in its own build folder.
## `make shipped` puts both in $(SHIPPED_BIN); every suite that drives a binary runs those (TRENDY_BIN_DIR).
CLI_SCRATCH := .build-static
CLI_FLAGS := -c release --static-swift-stdlib --scratch-path $(CLI_SCRATCH)
SHIPPED_BIN := $(CURDIR)/.build-shipped
OPTIMIZED := -c release -Xswiftc -enable-testing

.PHONY: demo test test-fast test-postgres build build-optimized shipped shipped-cli chaos-short lint format deps bench bench-thresholds bench-servers bench-tables bench-user \
	bench-large bench-scale bench-compaction bench-digest bench-live bench-security bench-server wrk profile-cli proof chaos chaos-restore chaos-postgres fuzz-build schemathesis man install docs api-check \
	clean

## Build, start trendy-server on a temporary database, and walk through trendyctl on two devices.
demo: deps shipped
	TRENDY_BIN=$(SHIPPED_BIN) Apps/trendyctl/Demo/demo.sh

## Build the shipped binaries and the optimized suites (the static trendyctl beside the rest: the two builds share
## nothing, and together they fill both cores), run every test against them (the server's suites a second time on
## PostgreSQL), then check formatting and build the DocC catalogs (a warning fails). This is what CI runs.
test: deps
	$(SWIFT) package $(PM) resolve && $(SWIFT) package $(PM) --scratch-path $(CLI_SCRATCH) resolve
	$(MAKE) --no-print-directory -j2 shipped-cli build-optimized
	$(MAKE) --no-print-directory shipped
	TRENDY_BIN_DIR=$(SHIPPED_BIN) $(SWIFT) test $(PM) $(OPTIMIZED) --skip-build --skip ConcurrentFeedTests
	TRENDY_BIN_DIR=$(SHIPPED_BIN) $(MAKE) --no-print-directory test-postgres TEST_BUILD="$(OPTIMIZED)"
	$(MAKE) --no-print-directory chaos-short
	$(MAKE) --no-print-directory lint
	$(MAKE) --no-print-directory docs
	$(MAKE) --no-print-directory api-check

## The quick loop while working: a debug build, then every suite but the proofs, the concurrent-feed check and
## PostgreSQL (about 50 s of tests on two cores after an incremental build), against the debug binaries. It is no
## proof of what ships: CI runs `make test`.
test-fast: deps build
	$(SWIFT) test $(PM) --skip-build --skip ProofTests --skip ConcurrentFeedTests

## The server's HTTP suites, the NetworkClient contract and the end-to-end tests again, and the short convergence
## proof on two instances, with trendy-server on a throwaway PostgreSQL (scripts/with-postgres installs and starts it). Without PostgreSQL they are skipped and say
## why, unless TRENDY_REQUIRE_POSTGRES is set (CI sets it). The concurrent-writer feed tests (SQLite and PostgreSQL)
## run last and alone: their load beside other suites slows those past their timeouts.
## A run takes under a minute; one past POSTGRES_TIMEOUT seconds is stopped and fails (no retry): the hang that once
## needed one was found and fixed (docs/history/reliability.md, "The PostgreSQL suites hung").
POSTGRES_SUITES := TrendyServerTests|NetworkingTests|EndToEndTests|MultiInstanceProofTests|restoreAndGiveBackOnPostgres|offlineDeviceCatchesUpOnPostgres
POSTGRES_TIMEOUT ?= 240
POSTGRES_TEST_PROCESS := $(CURDIR)/.build/[^ ]*/[t]rendy-syncPackageTests.xctest
## The build the suites run from: empty for the debug build, `$(OPTIMIZED)` from `make test`.
TEST_BUILD ?=
POSTGRES_RUN := TRENDY_TEST_SERVER_STORAGE=postgres timeout --kill-after=10 $(POSTGRES_TIMEOUT) $(SWIFT) test $(PM) \
	$(TEST_BUILD) --skip-build --filter "$(POSTGRES_SUITES)" --skip ConcurrentFeedTests
test-postgres:
	@scripts/with-postgres bash -c 'if [ -n "$${TRENDY_TEST_POSTGRES_SKIPPED:-}" ]; then \
		echo "PostgreSQL tests skipped: $$TRENDY_TEST_POSTGRES_SKIPPED"; [ -z "$${TRENDY_REQUIRE_POSTGRES:-}" ]; \
	else status=0; started=$$(date +%s); $(POSTGRES_RUN) || status=$$?; elapsed=$$(( $$(date +%s) - started )); \
		if [ $$status -eq 124 ] || [ $$status -eq 137 ]; then pkill -KILL -f "$(POSTGRES_TEST_PROCESS)" || true; \
			if [ $$elapsed -ge $(POSTGRES_TIMEOUT) ]; then \
				echo "error: the PostgreSQL suites did not finish within $(POSTGRES_TIMEOUT) s (a hang: docs/history/reliability.md)"; \
			else echo "error: the PostgreSQL test process was killed after $$elapsed s (status $$status), before the timeout"; fi; \
		elif [ $$status -ne 0 ]; then echo "error: the PostgreSQL suites ended with status $$status after $$elapsed s"; fi; \
		[ $$status -eq 0 ] && $(SWIFT) test $(PM) $(TEST_BUILD) --skip-build --filter ConcurrentFeedTests; fi'

## Build all targets and test targets (debug), failing on any compiler warning in this repository.
build: deps
	@$(SWIFT_BUILD) --build-tests 2>&1 | tee .build-output.log
	@! grep -E "^/.*/(Modules|Apps|Benchmarks|Tests)/.*: warning:" .build-output.log || \
		(echo "error: the build has warnings (see above); the project builds warning-free" && exit 1)
	@rm -f .build-output.log

## The same, optimized ($(OPTIMIZED)): the build `make test` runs the suites from.
build-optimized: deps
	@$(SWIFT_BUILD) $(OPTIMIZED) --build-tests 2>&1 | tee .build-output.log
	@! grep -E "^/.*/(Modules|Apps|Benchmarks|Tests)/.*: warning:" .build-output.log || \
		(echo "error: the build has warnings (see above); the project builds warning-free" && exit 1)
	@rm -f .build-output.log

## trendyctl and trendy-server exactly as `make install` builds and installs them, copied into $(SHIPPED_BIN) so that
## a later build of another kind in .build cannot change what the suites run.
shipped: shipped-cli
	$(SWIFT_BUILD) $(OPTIMIZED) --product trendy-server
	@mkdir -p $(SHIPPED_BIN)
	install -m 0755 $(CLI_SCRATCH)/release/trendyctl .build/release/trendy-server $(SHIPPED_BIN)/

shipped-cli: deps
	$(SWIFT_BUILD) $(CLI_FLAGS) --product trendyctl

## `swift format lint --strict` over every Swift file (config: .swift-format).
lint:
	$(SWIFT) format lint --strict --recursive $(SOURCES)

## Rewrite Swift files in the project style.
format:
	$(SWIFT) format format --in-place --recursive $(SOURCES)

## The long proofs (docs/reliability.md), on the optimized build and the shipped binaries, one summary line at the
## end: 1000 seeds of randomized convergence with faults (each move it makes counted, every device compared with the
## server after each quiet pass), 200 seeds on two instances sharing a throwaway PostgreSQL, 50 kill -9 crash trials
## (5 000 events each), the seeded fuzzers (parsers and mutated requests), libFuzzer on the parsers, schemathesis
## against a live trendy-server, and 100 rounds of the concurrent-writer feed check on two instances sharing a
## throwaway PostgreSQL. `make test` runs short versions of the first three.
PROOF_SEEDS ?= 1000
PROOF_OPERATIONS ?= 150
PROOF_CRASH_TRIALS ?= 50
PROOF_FUZZ_ITERATIONS ?= 1000
PROOF_FUZZ_REQUESTS ?= 20000
PROOF_LIBFUZZER_SECONDS ?= 300
PROOF_FEED_ROUNDS ?= 100
PROOF_INSTANCE_SEEDS ?= 200
proof: deps shipped fuzz-build schemathesis
	$(SWIFT_BUILD) $(OPTIMIZED) --product trendy-proof
	TRENDY_BIN_DIR=$(SHIPPED_BIN) scripts/with-postgres .build/release/trendy-proof --seeds $(PROOF_SEEDS) \
		--operations $(PROOF_OPERATIONS) --crash-trials $(PROOF_CRASH_TRIALS) \
		--fuzz-iterations $(PROOF_FUZZ_ITERATIONS) --fuzz-requests $(PROOF_FUZZ_REQUESTS) \
		--libfuzzer-seconds $(PROOF_LIBFUZZER_SECONDS) --libfuzzer-binary .build-fuzz/release/trendy-fuzz \
		--feed-rounds $(PROOF_FEED_ROUNDS) --instance-seeds $(PROOF_INSTANCE_SEEDS)

## The black-box device chaos run (docs/reliability.md): trendyctl and trendy-server processes only, four devices with
## concurrent commands, live watchers, SIGKILLs and a faulty server that is killed too; one line per seed.
CHAOS_SEEDS ?= 5
CHAOS_FIRST_SEED ?= 1
CHAOS_SECONDS ?= 60
chaos: deps shipped
	@failed=0; for seed in $$(seq $(CHAOS_FIRST_SEED) $$(($(CHAOS_FIRST_SEED) + $(CHAOS_SEEDS) - 1))); do \
		scripts/device-chaos --seed $$seed --seconds $(CHAOS_SECONDS) --bin-dir $(SHIPPED_BIN) || failed=1; \
	done; exit $$failed

## The short device chaos of `make test`: one seed of each kind on the shipped binaries, 20 s of faults each (about
## a minute each with the checks); the first compacts the server's change log every 2-6 s too (api-v1 §6.8).
## `make chaos` explores further seeds.
CHAOS_SHORT_SEED ?= 1
## A seed whose 20 seconds include the server's restore, judged like every other (sync-engine R15).
CHAOS_SHORT_RESTORE_SEED ?= 5
chaos-short: deps shipped
	scripts/device-chaos --compact --seed $(CHAOS_SHORT_SEED) --seconds 20 --bin-dir $(SHIPPED_BIN)
	scripts/device-chaos --server-restore --seed $(CHAOS_SHORT_RESTORE_SEED) --seconds 20 --bin-dir $(SHIPPED_BIN)

## The same, with the server's database copied at one kill and put back at a later one (a restored backup).
chaos-restore: deps shipped
	@failed=0; for seed in $$(seq $(CHAOS_FIRST_SEED) $$(($(CHAOS_FIRST_SEED) + $(CHAOS_SEEDS) - 1))); do \
		scripts/device-chaos --server-restore --seed $$seed --seconds $(CHAOS_SECONDS) --bin-dir $(SHIPPED_BIN) \
			|| failed=1; \
	done; exit $$failed

## The same with the server as two instances on one PostgreSQL database behind a balancer (a fresh database a seed).
chaos-postgres: deps shipped
	@failed=0; for seed in $$(seq $(CHAOS_FIRST_SEED) $$(($(CHAOS_FIRST_SEED) + $(CHAOS_SEEDS) - 1))); do \
		scripts/with-postgres scripts/device-chaos --postgres --seed $$seed --seconds $(CHAOS_SECONDS) \
			--bin-dir $(SHIPPED_BIN) || failed=1; \
	done; exit $$failed

## The parsers' libFuzzer binary, optimized, in its own build folder (every module in it is instrumented).
fuzz-build:
	$(SWIFT_BUILD) -c release --product trendy-fuzz --scratch-path .build-fuzz -Xswiftc -sanitize=fuzzer \
		-Xswiftc -DFUZZING -Xswiftc -parse-as-library

## schemathesis from PyPI, when missing.
schemathesis:
	@command -v schemathesis >/dev/null 2>&1 || python3 -m pip install --quiet schemathesis || \
		{ echo "error: schemathesis is missing: python3 -m pip install schemathesis"; exit 1; }

## The benchmark package (Benchmarks/Package.swift, on ordo-one/benchmark): store, wire formats and whole syncs against
## a release trendy-server process. Fails when instructions or allocations grow more than 10 % at p90 over the
## thresholds checked in under Benchmarks/Thresholds; a run better than them passes and says so (record it with `make
## bench-thresholds`). Instructions need hardware counters, which this machine kind lacks (docs/performance.md).
## Then prints the user's-path table (`bench-user`: push, bootstrap, events add, installed sizes) and trendy-server's
## SQLite load figures (feed pages and batch inserts, wrk), and last the throughput rows against their targets
## (`Benchmarks/targets.py`) (docs/performance.md).
BENCH_PACKAGE := cd Benchmarks && TRENDY_BIN_DIR=$(SHIPPED_BIN) $(SWIFT) package $(PM) \
	--allow-writing-to-package-directory benchmark
BENCH_CHECK_LOG := $(CURDIR)/Benchmarks/.build/thresholds-check.log
BENCH_FIGURES := $(CURDIR)/Benchmarks/.build/throughput-figures.jsonl
bench: deps bench-servers
	$(BENCH_PACKAGE) baseline update current --no-progress $(BENCH_FLAGS)
	$(BENCH_PACKAGE) baseline read current --no-progress $(BENCH_FLAGS) 2>&1 | grep -Ev "CMakeLists|distributed-tracing"
	@set +e; $(BENCH_PACKAGE) thresholds check current --no-progress $(BENCH_FLAGS) >$(BENCH_CHECK_LOG) 2>&1; \
	status=$$?; grep -Ev "CMakeLists|distributed-tracing|^\[" $(BENCH_CHECK_LOG) | tail -n 60; \
	if [ $$status -eq 0 ]; then exit 0; fi; \
	if grep -q "is BETTER than the defined thresholds" $(BENCH_CHECK_LOG) && \
		! grep -q "Deviations worse than threshold" $(BENCH_CHECK_LOG); then \
		echo "make bench: better than the thresholds; record them with make bench-thresholds"; else \
		echo "make bench: a regression over Benchmarks/Thresholds (above)"; exit 1; fi
	@mkdir -p $(dir $(BENCH_FIGURES)) && rm -f $(BENCH_FIGURES)
	@echo "The user's path (docs/performance.md, \"The user's path\"):"
	@$(MAKE) --no-print-directory bench-user USER_PATH_FIGURES=$(BENCH_FIGURES)
	@echo "trendy-server under load, SQLite (docs/performance.md, \"Server\"):"
	@$(MAKE) --no-print-directory wrk
	TRENDY_BENCH_FIGURES=$(BENCH_FIGURES) TRENDY_SERVER_BIN=$(SHIPPED_BIN)/trendy-server \
		Benchmarks/server/run.sh $(or $(BENCH_SECONDS),5)
	@echo "Throughput against its targets (docs/performance.md, \"Today's figures\"):"
	@python3 Benchmarks/targets.py $(BENCH_FIGURES)

## Runs the benchmark package and records its p90 instructions and allocations as the new thresholds (the timings it
## also measures are left out: they are reported, never gated).
bench-thresholds: deps bench-servers
	$(BENCH_PACKAGE) baseline update current --no-progress $(BENCH_FLAGS)
	$(BENCH_PACKAGE) thresholds update current --no-progress $(BENCH_FLAGS)
	python3 Benchmarks/gated-metrics.py Benchmarks/Thresholds

## The servers and trendyctl the benchmarks start as processes: the shipped build.
bench-servers: shipped

## The wall-clock tables of docs/performance.md: store, in-process sync scenarios (ours vs the original constants),
## events add.
bench-tables: deps bench-servers
	cd Benchmarks && $(SWIFT_BUILD) -c release --product trendy-bench
	cd Benchmarks && TRENDY_BIN_DIR=$(SHIPPED_BIN) .build/release/trendy-bench store
	cd Benchmarks && TRENDY_BIN_DIR=$(SHIPPED_BIN) .build/release/trendy-bench sync
	cd Benchmarks && TRENDY_BIN_DIR=$(SHIPPED_BIN) .build/release/trendy-bench cli

## Whole-process figures as a user meets them: release trendyctl processes against a release trendy-server
## --in-memory (bootstrap, push, no-op sync, events add); prints the table for docs/performance.md. With
## USER_PATH_FIGURES=FILE it also writes the push's and `events add`'s figures there (`make bench` reads them).
bench-user: deps shipped
	python3 Benchmarks/user-path/userpath.py --runs $(or $(BENCH_RUNS),3) --server-bin $(SHIPPED_BIN) \
		--cli-bin $(SHIPPED_BIN) $(if $(USER_PATH_FIGURES),--figures $(USER_PATH_FIGURES))

## Instruction counts of the installed trendyctl's start and of `events add` (valgrind's callgrind, repeatable where
## wall time is not), with the functions that take them.
profile-cli: deps shipped
	Benchmarks/profiles/callgrind-cli.sh $(SHIPPED_BIN)/trendyctl

## How bootstrap time, push time and the local database grow with the account: 10k, 100k and 1M events through the
## user's path (one run each; about 15 minutes). Prints the scaling table of docs/performance.md.
bench-large: deps shipped
	python3 Benchmarks/user-path/scaling.py --sizes $(or $(BENCH_SIZES),10000 100000 1000000) \
		--server-bin $(SHIPPED_BIN) --cli-bin $(SHIPPED_BIN)

## A million-event account: bootstrap, every keyset page first to deepest, export, events list,
## the digest and sync --verify, release builds as the user runs them (BENCH_EVENTS, 1 000 000 by default; about
## 10 minutes). Prints the table of docs/performance.md, "A million-event account".
bench-scale: deps shipped
	python3 Benchmarks/user-path/scale.py --events $(or $(BENCH_EVENTS),1000000) \
		--server-bin $(SHIPPED_BIN) --cli-bin $(SHIPPED_BIN)
	$(MAKE) --no-print-directory bench-compaction

## Compaction of the change log (api-v1 §6.8): 10 000 events edited 100 times each, two devices offline through it,
## one catching up before `trendy-server compact` and one after, and a bootstrap beside them. Prints the table of
## docs/performance.md, "Compaction".
bench-compaction: deps shipped
	python3 Benchmarks/user-path/compaction.py --events $(or $(BENCH_COMPACTION_EVENTS),10000) \
		--edits $(or $(BENCH_COMPACTION_EDITS),100) --server-bin $(SHIPPED_BIN) --cli-bin $(SHIPPED_BIN)

## The sync digest of a 100 000-event account: the server's endpoint, and what `trendyctl sync --verify`
## adds to a sync, release builds as the user runs them. Prints the table of docs/performance.md, "The sync digest".
bench-digest: deps shipped
	python3 Benchmarks/user-path/digest.py --events $(or $(BENCH_EVENTS),100000) --runs $(or $(BENCH_RUNS),5) \
		--server-bin $(SHIPPED_BIN) --cli-bin $(SHIPPED_BIN)

## Live sync: A's write → B's observation in process (two live engines; one server, then two PostgreSQL
## instances), then as a user meets it with the installed trendyctl: `events add` → the other watcher's line, a burst
## of 10 000 events, and 5000 idle streams on one server (docs/performance.md, "Live sync").
bench-live: deps shipped
	cd Benchmarks && $(SWIFT_BUILD) -c release --product trendy-bench
	cd Benchmarks && .build/release/trendy-bench live --writes $(or $(BENCH_WRITES),1000)
	scripts/with-postgres bash -c 'cd Benchmarks && .build/release/trendy-bench live --postgres \
		--writes $(or $(BENCH_WRITES),1000)'
	python3 Benchmarks/user-path/live.py --server-bin $(SHIPPED_BIN) --cli-bin $(SHIPPED_BIN)

## Hostile and heavy clients: server RSS with 1000 slow bodies (without a token, then
## with one), /health latency while 3000 clients trickle request heads, and another user's latency while four clients
## read the largest pages (docs/performance.md, "Slow clients", "Large answers").
bench-security: deps shipped
	python3 Benchmarks/user-path/slow-clients.py --server-bin $(SHIPPED_BIN)
	python3 Benchmarks/user-path/large-answers.py --server-bin $(SHIPPED_BIN)

## Loopback load test of trendy-server with wrk (installed with apt when missing and possible): SQLite, then one and
## two instances on a throwaway PostgreSQL (scripts/with-postgres).
bench-server: deps wrk shipped
	TRENDY_SERVER_BIN=$(SHIPPED_BIN)/trendy-server scripts/with-postgres Benchmarks/server/run.sh $(BENCH_SECONDS)

## wrk, installed with apt when missing and possible.
wrk:
	@command -v wrk >/dev/null 2>&1 || { [ "$$(id -u)" = "0" ] && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends wrk >/dev/null; } || \
		{ echo "error: wrk is missing: sudo apt-get install wrk"; exit 1; }

## Man pages from the commands' own help (swift-argument-parser's generate-manual): .build/man/*.1 (a blank line
## of a help text becomes an mdoc paragraph break).
MAN_DATE ?= $(shell git log -1 --format=%cs 2>/dev/null || date +%F)
man: deps shipped
	$(SWIFT_BUILD) --product generate-manual
	@mkdir -p .build/man
	@for tool in trendyctl trendy-server; do \
		.build/debug/generate-manual $(SHIPPED_BIN)/$$tool --output-directory .build/man --date $(MAN_DATE) \
			--authors "the Trendy sync authors" >/dev/null; \
		sed -i 's/^$$/.Pp/' .build/man/$$tool.1; \
	done
	@echo "man pages: $$(ls .build/man)"

## The shipped build of trendyctl and trendy-server (`shipped`) into $(PREFIX)/bin, stripped, their man pages into
## $(PREFIX)/share/man/man1 (then `man trendyctl`). PREFIX defaults to /usr/local; DESTDIR is honoured for packaging.
PREFIX ?= /usr/local
install: shipped man
	install -d "$(DESTDIR)$(PREFIX)/bin" "$(DESTDIR)$(PREFIX)/share/man/man1"
	install -s -m 0755 $(SHIPPED_BIN)/trendyctl $(SHIPPED_BIN)/trendy-server "$(DESTDIR)$(PREFIX)/bin/"
	install -m 0644 .build/man/trendyctl.1 .build/man/trendy-server.1 "$(DESTDIR)$(PREFIX)/share/man/man1/"
	@command -v mandb >/dev/null 2>&1 && [ -z "$(DESTDIR)" ] && mandb -q "$(PREFIX)/share/man" 2>/dev/null || true
	@echo "installed trendyctl and trendy-server in $(DESTDIR)$(PREFIX)/bin; try: man trendyctl"

## DocC archives of every library product, in one plugin run, warnings treated as errors: .build/docs/<Module>. Then
## every public declaration must have a doc comment (scripts/doc-coverage, on the symbol graphs DocC extracted). The
## symbol graphs come from the optimized build (`build-optimized`'s flags), so after it nothing is compiled again:
## a debug build of every library only for DocC took minutes of CI.
DOCC_MODULES := Models Protocols Persistence Networking Hashing Sync TestSupport TestSupportContracts
DOCC_OUTPUT := .build/plugins/Swift-DocC/outputs
docs: deps
	@rm -rf .build/docs $(DOCC_OUTPUT) && mkdir -p .build/docs
	@SWIFT_DETERMINISTIC_HASHING=1 $(SWIFT) package $(PM) $(OPTIMIZED) generate-documentation \
		$(foreach module,$(DOCC_MODULES),--target $(module)) \
		--warnings-as-errors 2>&1 | grep -Ev "^(\[|Building|Build of)" ; \
	for module in $(DOCC_MODULES); do \
		test -d $(DOCC_OUTPUT)/$$module.doccarchive || { echo "error: documentation of $$module failed"; exit 1; }; \
		mv $(DOCC_OUTPUT)/$$module.doccarchive .build/docs/$$module; \
	done
	@echo "documentation: $$(ls .build/docs)"
	@scripts/doc-coverage $(DOCC_MODULES)

## The library products' public API against the last release CHANGELOG.md names: the comparison of `swift package
## diagnose-api-breaking-changes` (swift-api-digester, run directly: the SwiftPM command cannot load a module of this
## package on Linux, scripts/api-check says why), on the optimized build, against the release's baselines kept in
## api/baselines. A break fails unless api/announced-breaks.txt lists it and the CHANGELOG announces a major release.
api-check: deps
	@scripts/api-check

## Install missing system packages with apt when possible; otherwise say what is missing.
deps:
	@missing=""; \
	if command -v dpkg-query >/dev/null 2>&1; then \
		for package in $(SYSTEM_PACKAGES); do \
			dpkg-query -W -f='$${Status}' $$package 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$package"; \
		done; \
	fi; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then \
			echo "installing$$missing"; \
			DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing >/dev/null 2>&1 || \
			{ apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing >/dev/null; } || \
			{ echo "error: could not install$$missing with apt-get"; exit 1; }; \
		else \
			echo "error: missing system packages:$$missing"; \
			echo "install them with: sudo apt-get install$$missing"; \
			exit 1; \
		fi; \
	fi

clean:
	rm -rf .build
