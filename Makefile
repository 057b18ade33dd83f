# Switchboard: build, run and test.
#   make serve   build everything and run the relay with the demo server on 127.0.0.1:8080
#   make test    vet, unit tests, headless-Chromium end-to-end tests and the MCP conformance suite
#   make build   bin/switchboard with the dashboard embedded
#   make bench   measure it side by side with MCP Inspector and direct go-sdk calls; prints one table

GO       ?= go
WASM     := static/dist/app.wasm
WASM_SUM := static/dist/app.wasm.sha256
BIN      := bin/switchboard
CHROMIUM ?= $(shell command -v chromium || command -v chromium-browser || command -v google-chrome || echo /usr/bin/chromium)
EVERYTHING_DIR    := e2e/everything
EVERYTHING_SERVER := $(EVERYTHING_DIR)/node_modules/@modelcontextprotocol/server-everything/dist/index.js
GO_SRC   := $(shell find . -name '*.go' -not -path './e2e/*') go.mod go.sum
WASM_SRC := $(shell find web wasm shared -name '*.go') go.mod go.sum

.PHONY: all serve build wasm test vet unit e2e chromium bench bench-short clean

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

test: vet unit e2e conformance bench-short

vet:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	GOOS=js GOARCH=wasm $(GO) vet ./wasm/... ./web/... ./shared/...

unit: $(WASM_SUM)
	$(GO) test -count=1 $$($(GO) list ./... | grep -v /e2e)

e2e: $(WASM_SUM) chromium $(EVERYTHING_SERVER)
	CHROMIUM=$(CHROMIUM) $(GO) test -count=1 -timeout 20m ./e2e/...

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

# bench runs every measurement (package bench) and prints one table; the
# first-render comparison runs MCP Inspector from bench/inspector's lock file
# (Node.js and npm needed). bench-short runs each figure once at small sizes,
# to check that the harness still runs; its numbers mean nothing.
INSPECTOR_DIR := bench/inspector
INSPECTOR     := $(INSPECTOR_DIR)/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js

bench: $(WASM_SUM) chromium $(INSPECTOR)
	CHROMIUM=$(CHROMIUM) $(GO) run ./bench -inspector $(INSPECTOR)

bench-short: $(WASM_SUM) chromium $(INSPECTOR)
	CHROMIUM=$(CHROMIUM) $(GO) run ./bench -short -inspector $(INSPECTOR)

$(INSPECTOR): $(INSPECTOR_DIR)/package.json $(INSPECTOR_DIR)/package-lock.json
	npm ci --prefix $(INSPECTOR_DIR) --no-audit --no-fund
	touch $@

clean:
	rm -rf bin static/dist/app.wasm*

# conformance runs the client scenarios of the official MCP conformance suite
# against bin/switchboard, one at a time, then its server scenarios against
# the go-sdk's conformance server directly and through the agent endpoint
# (Node.js and npm needed; the suite is installed from the lock file into
# e2e/conformance/node_modules).
CONFORMANCE_DIR   := e2e/conformance
CONFORMANCE_SUITE := $(CONFORMANCE_DIR)/node_modules/.bin/conformance
EVERYTHING        := bin/everything-server
BEARERPROXY       := bin/bearerproxy

.PHONY: conformance
conformance: $(BIN) $(CONFORMANCE_SUITE) $(EVERYTHING) $(BEARERPROXY)
	SWITCHBOARD_BIN=$(abspath $(BIN)) sh $(CONFORMANCE_DIR)/run.sh; client=$$?; \
	EVERYTHING_SERVER=$(abspath $(EVERYTHING)) SWITCHBOARD_BIN=$(abspath $(BIN)) BEARERPROXY=$(abspath $(BEARERPROXY)) sh $(CONFORMANCE_DIR)/run-server.sh; server=$$?; \
	[ $$client = 0 ] && [ $$server = 0 ]

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
