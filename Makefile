# Switchboard: build, run and test.
#   make serve   build everything and run the relay with the demo server on 127.0.0.1:8080
#   make test    vet, unit tests and headless-Chromium end-to-end tests
#   make build   bin/switchboard with the dashboard embedded

GO       ?= go
WASM     := static/dist/app.wasm
BIN      := bin/switchboard
CHROMIUM ?= $(shell command -v chromium || command -v chromium-browser || command -v google-chrome || echo /usr/bin/chromium)
GO_SRC   := $(shell find . -name '*.go' -not -path './e2e/*') go.mod go.sum
WASM_SRC := $(shell find web wasm shared -name '*.go') go.mod go.sum

.PHONY: all serve build wasm test vet unit e2e chromium bench clean

all: build

serve: build
	$(BIN) serve --demo

build: $(BIN)

$(BIN): $(WASM) $(GO_SRC) $(wildcard static/*.css static/icons/*)
	$(GO) build -trimpath -o $(BIN) ./relay/cmd/switchboard

wasm: $(WASM)

$(WASM): $(WASM_SRC)
	GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags="-s -w" -o $(WASM) ./wasm
	$(GO) run ./static/internal/compress $(WASM)

test: vet unit e2e

vet:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	GOOS=js GOARCH=wasm $(GO) vet ./wasm/... ./web/... ./shared/...

unit: $(WASM)
	$(GO) test -count=1 $$($(GO) list ./... | grep -v /e2e)

e2e: $(WASM) chromium
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

bench: $(WASM)
	$(GO) test -run '^$$' -bench . -benchmem ./relay/... ./shared/...

clean:
	rm -rf bin static/dist/app.wasm static/dist/app.wasm.br static/dist/app.wasm.gz
