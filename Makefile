# Switchboard: build, run and test.
#   make serve   build everything and run the relay with the demo server on 127.0.0.1:8080
#   make test    vet, unit tests, headless-Chromium end-to-end tests and the MCP conformance suite,
#                at the same time, each part's output in e2e/out/test/PART.log (printed if it fails)
#   make build   bin/switchboard with the dashboard embedded
#   make bench   measure it side by side with MCP Inspector, mcp-hub and direct go-sdk calls; prints one table
#   make fuzz    run every fuzz target for FUZZTIME (30s) each, one after another

GO       ?= go
WASM     := static/dist/app.wasm
WASM_SUM := static/dist/app.wasm.sha256
BIN      := bin/switchboard
CHROMIUM ?= $(shell command -v chromium || command -v chromium-browser || command -v google-chrome || echo /usr/bin/chromium)
EVERYTHING_DIR    := e2e/everything
EVERYTHING_SERVER := $(EVERYTHING_DIR)/node_modules/@modelcontextprotocol/server-everything/dist/index.js
APPS_DIR          := e2e/apps
APPS_SERVER       := $(APPS_DIR)/node_modules/@modelcontextprotocol/server-basic-vanillajs/dist/index.js
GO_SRC   := $(shell find . -name '*.go' -not -path './e2e/*') go.mod go.sum
WASM_SRC := $(shell find web wasm shared -name '*.go') go.mod go.sum

.PHONY: all serve build wasm test test-deps test-compile vet unit e2e chromium postgresql bench bench-short soak fuzz clean

all: build

serve: build
	$(BIN) serve --demo

build: $(BIN)

$(BIN): $(WASM_SUM) $(GO_SRC) $(wildcard static/*.css static/icons/*)
	$(GO) build -trimpath -o $(BIN) ./relay/cmd/switchboard

wasm: $(WASM_SUM)

$(WASM): $(WASM_SRC)
	GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags="-s -w" -o $(WASM) ./wasm

# The compressed copies (.br, .gz) and the checksum that vouches for them.
$(WASM_SUM): $(WASM)
	$(GO) run ./static/internal/compress $(WASM)

# The parts of make test. They share nothing but what test-deps builds, and
# scripts/parts.sh runs them at once: on two cores the end-to-end tests and
# the conformance suites mostly wait (on Chromium, on timers, on node), so
# the others fill the time they leave. bench-short only checks that make
# bench still runs; it starts when unit ends (+, see scripts/parts.sh), so
# that its browsers, Inspector and mcp-hub meet only the end of the browser
# tests, whose timings load upsets.
# The browser tests are split over E2E_SHARDS test processes (e2e-1of3,
# e2e-2of3, ...; scripts/e2e-shard.sh), each with its own Chromium, and the
# conformance server scenarios over CONFORMANCE_SHARDS runs, each with its
# own relay: every shard gets about as many tests as the others.
E2E_SHARDS         := 3
CONFORMANCE_SHARDS := 2
shards = $(foreach k,$(shell seq $(2)),$(1)-$(k)of$(2))
TEST_PARTS := vet unit+bench-short $(call shards,e2e,$(E2E_SHARDS)) conformance-client \
	$(call shards,conformance-server,$(CONFORMANCE_SHARDS))

test: test-deps
	@MAKE="$(MAKE)" bash scripts/parts.sh $(TEST_PARTS)

# test-deps builds, once and before the parts start, what more than one part
# needs: the dashboard, the binaries, the npm suites, Chromium, PostgreSQL
# (unit, the browser tests and bench-short), and the packages of every test binary (so that
# parts do not compile them twice). PostgreSQL comes first, alone, so that
# two apt-get installs (its and Chromium's) never run at once.
test-deps:
	@$(MAKE) --no-print-directory postgresql
	@$(MAKE) --no-print-directory -j3 $(BIN) chromium $(EVERYTHING_SERVER) $(APPS_SERVER) $(CONFORMANCE_SUITE) $(EVERYTHING) $(BEARERPROXY) $(INSPECTOR) $(PEER) test-compile

# test-compile compiles every test binary without running it. A package that
# does not compile is reported by its part, with the error in its log.
test-compile: $(WASM_SUM)
	@$(GO) test -run '^$$' -exec true ./... >/dev/null 2>&1 || true

vet:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	GOOS=js GOARCH=wasm $(GO) vet ./wasm/... ./web/... ./shared/...

# unit runs every package's tests but the browser tests (the fixtures' own
# tests are here: they need no browser); the store's run on SQLite, then on
# PostgreSQL, and e2e/replicas runs three relay processes on PostgreSQL.
unit: $(WASM_SUM) postgresql
	$(GO) test -count=1 $$($(GO) list ./... | grep -v '/e2e$$')

# fuzz runs every fuzz target (func FuzzX) of the module for FUZZTIME each,
# one after another; make test runs only their seed corpora (testdata/fuzz).
# FUZZ_PKGS narrows it to some packages (FUZZ_PKGS=./shared/...).
FUZZTIME  ?= 30s
FUZZ_PKGS ?= ./...

fuzz:
	GO=$(GO) FUZZTIME=$(FUZZTIME) bash scripts/fuzz.sh $(FUZZ_PKGS)

e2e: $(WASM_SUM) chromium postgresql $(EVERYTHING_SERVER) $(APPS_SERVER)
	CHROMIUM=$(CHROMIUM) $(GO) test -count=1 -timeout 20m ./e2e/...

# e2e-KofN runs shard K of N of the browser tests.
e2e-%: $(WASM_SUM) chromium postgresql $(EVERYTHING_SERVER) $(APPS_SERVER)
	CHROMIUM=$(CHROMIUM) GO=$(GO) sh scripts/e2e-shard.sh $(subst of, ,$*) -timeout 20m

# chromium installs Chromium with apt-get when it is missing and we are root.
chromium:
	@if [ -x "$(CHROMIUM)" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "installing chromium with apt-get"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	else \
		echo "Chromium is needed for the end-to-end tests: install it (Debian/Ubuntu: sudo apt-get install chromium)"; \
		echo "or point CHROMIUM=/path/to/chrome at a Chromium or Chrome binary."; exit 1; \
	fi

# postgresql installs PostgreSQL with apt-get when it is missing and we are
# root: the store's tests start a server of their own (relay/store/pgtest).
postgresql:
	@if command -v initdb >/dev/null || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "installing postgresql with apt-get"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; \
	else \
		echo "PostgreSQL is needed for the store's tests: install it (Debian/Ubuntu: sudo apt-get install postgresql)"; \
		echo "or set SWITCHBOARD_TEST_POSTGRES=off to skip them."; exit 1; \
	fi

# bench runs every measurement (package bench) and prints one table; the
# first-render and click comparisons run MCP Inspector from bench/inspector's
# lock file and the peer figure mcp-hub from bench/peer's (Node.js and npm
# needed), and the replicas figure a PostgreSQL server of its own
# (relay/store/pgtest). bench-short runs each figure once at small sizes, to
# check that the harness still runs; its numbers mean nothing.
INSPECTOR_DIR := bench/inspector
INSPECTOR     := $(INSPECTOR_DIR)/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js
PEER_DIR      := bench/peer
PEER          := $(PEER_DIR)/node_modules/mcp-hub/dist/cli.js

bench: $(WASM_SUM) chromium postgresql $(INSPECTOR) $(PEER)
	CHROMIUM=$(CHROMIUM) $(GO) run ./bench -inspector $(INSPECTOR) -peer $(PEER)

# soak runs the relay under a steady load for SOAKTIME (default 10m): 1,000
# dashboards, 100 servers, dashboard and agent tool calls, questions the
# person answers, a server restarting now and then; it prints lost and
# duplicated results and the memory and goroutine slopes, and fails when
# anything was lost. Not part of make test.
SOAKTIME ?= 10m
soak: $(WASM_SUM)
	$(GO) run ./bench -soak $(SOAKTIME)

bench-short: $(WASM_SUM) chromium postgresql $(INSPECTOR) $(PEER)
	CHROMIUM=$(CHROMIUM) $(GO) run ./bench -short -inspector $(INSPECTOR) -peer $(PEER)

$(INSPECTOR): $(INSPECTOR_DIR)/package.json $(INSPECTOR_DIR)/package-lock.json
	npm ci --prefix $(INSPECTOR_DIR) --no-audit --no-fund
	touch $@

$(PEER): $(PEER_DIR)/package.json $(PEER_DIR)/package-lock.json
	npm ci --prefix $(PEER_DIR) --no-audit --no-fund
	touch $@

clean:
	rm -rf bin static/dist/app.wasm*

# conformance runs the client scenarios of the official MCP conformance suite
# against bin/switchboard, one at a time (conformance-client), then its
# server scenarios against the go-sdk's conformance server directly and
# through the agent endpoint (conformance-server; make -k conformance runs
# it even when the first fails). Node.js and npm needed; the suite is
# installed from the lock file into e2e/conformance/node_modules. They share
# no port or log, so make test runs the client scenarios beside the server
# scenarios' shards.
CONFORMANCE_DIR   := e2e/conformance
CONFORMANCE_SUITE := $(CONFORMANCE_DIR)/node_modules/.bin/conformance
EVERYTHING        := bin/everything-server
BEARERPROXY       := bin/bearerproxy

.PHONY: conformance conformance-client conformance-server
conformance: conformance-client conformance-server

conformance-client: $(BIN) $(CONFORMANCE_SUITE)
	SWITCHBOARD_BIN=$(abspath $(BIN)) sh $(CONFORMANCE_DIR)/run.sh

CONFORMANCE_SERVER_RUN := EVERYTHING_SERVER=$(abspath $(EVERYTHING)) SWITCHBOARD_BIN=$(abspath $(BIN)) \
	BEARERPROXY=$(abspath $(BEARERPROXY)) sh $(CONFORMANCE_DIR)/run-server.sh

conformance-server: $(BIN) $(CONFORMANCE_SUITE) $(EVERYTHING) $(BEARERPROXY)
	$(CONFORMANCE_SERVER_RUN)

# conformance-server-KofN runs shard K of N of the server scenarios, with a
# relay and a conformance server of its own, logs in e2e/out/conformance-server-KofN.
conformance-server-%: $(BIN) $(CONFORMANCE_SUITE) $(EVERYTHING) $(BEARERPROXY)
	CONFORMANCE_SHARD=$(subst of,/,$*) CONFORMANCE_LOGS=$(abspath e2e/out/conformance-server-$*) $(CONFORMANCE_SERVER_RUN)

$(EVERYTHING): go.mod go.sum
	$(GO) build -o $@ github.com/modelcontextprotocol/go-sdk/conformance/everything-server

$(BEARERPROXY): $(wildcard $(CONFORMANCE_DIR)/bearerproxy/*.go)
	$(GO) build -o $@ ./$(CONFORMANCE_DIR)/bearerproxy

$(CONFORMANCE_SUITE): $(CONFORMANCE_DIR)/package.json $(CONFORMANCE_DIR)/package-lock.json
	npm ci --prefix $(CONFORMANCE_DIR) --no-audit --no-fund
	touch $@

# everything runs the harness that drives the relay through every tool,
# prompt, resource and template of the MCP reference server
# @modelcontextprotocol/server-everything, over Streamable HTTP and SSE, and
# prints a table of what succeeded (Node.js and npm needed; the server is
# installed from the lock file into e2e/everything/node_modules and bound to
# 127.0.0.1 by e2e/everything/loopback.cjs).
.PHONY: everything everything-server
everything: $(WASM_SUM) $(EVERYTHING_SERVER)
	$(GO) test -count=1 -run 'TestEverythingServer' -v ./e2e/

everything-server: $(EVERYTHING_SERVER)

$(EVERYTHING_SERVER): $(EVERYTHING_DIR)/package.json $(EVERYTHING_DIR)/package-lock.json
	npm ci --prefix $(EVERYTHING_DIR) --no-audit --no-fund
	touch $@

# apps-server installs the official MCP Apps example server
# @modelcontextprotocol/server-basic-vanillajs from the lock file into
# e2e/apps/node_modules, for the Apps browser tests (Node.js and npm needed;
# the tests bind it to 127.0.0.1 with e2e/everything/loopback.cjs).
.PHONY: apps-server
apps-server: $(APPS_SERVER)

$(APPS_SERVER): $(APPS_DIR)/package.json $(APPS_DIR)/package-lock.json
	npm ci --prefix $(APPS_DIR) --no-audit --no-fund
	touch $@
