# modelcontext-polyfill — build, test and demo entry points.
#
#   make demo        install deps, build dist/, serve the repo on http://localhost:8787/examples/
#   make test        everything CI runs (see .ci/run)
#
#   make deps        scripts/install-deps.sh (idempotent; ~0.2 s when all is present)
#   make build       dist/: ESM + classic-script builds (scripts/build.mjs)
#   make build-dev   same, debug wasm, no wasm-opt, names kept, scripts not minified (fast, for debugging)
#   make size        raw, gzip and brotli sizes of dist/, the front (bytes before document.modelContext)
#   make bench       this polyfill beside @mcp-b/global in headless Chromium (not in make test;
#                    ROUNDS=N for more rounds; ENGINE=firefox or webkit to run in that engine
#                    instead; scripts/bench.mjs)
#   make bench-breakdown  where bench's time goes: a round trip by segment, the start by phase,
#                    the wasm compiled on first call, what the core's cut and others weigh
#                    (scripts/bench-breakdown.mjs)
#   make split-list  polyfill/build/core-first.txt from what a page's everyday use runs: the
#                    functions the core's first module keeps; core-calls.txt, those its call
#                    module has of the rest (then `make build` again)
#   make soak        100,000 calls, register/abort cycles, hostile input, slow calls beside
#                    @mcp-b/global (not in make test; SOAK_SCALE=0.1 for a tenth; scripts/soak.mjs)
#   make wpt WPT=<dir>  the web-platform-tests of WebMCP (<dir>/webmcp/ of a wpt checkout) against
#                    this polyfill and native Chromium, side by side (not in make test; scripts/wpt.mjs)
#   make imports     the import graph of src/ from the code: folder edges, circles, largest files
#   make package     stage the npm package in target/npm/modelcontext-polyfill and `npm pack` it
#   make test-rust   fmt, no import circle (scripts/imports.mjs), clippy (native + wasm32), cargo test, wasm32 build
#   make test-wasm   wasm-bindgen-test in headless Chromium, when the crate has wasm tests
#   make test-page   the page tests (node --test tests/page/*.test.mjs)
#   make test-interop  the official TypeScript client and the inspector CLI against the stdio example
#   make conformance the conformance page (3 implementations), JSON Schema browser vs native, the
#                    page bridge, and the official MCP conformance suite through the bridge
#   make clean       remove dist/ and the staged build outputs (keeps cargo's target/ cache)
#   make distclean   clean + cargo clean + node_modules

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
NODE ?= node
CHROMEDRIVER ?= /usr/bin/chromedriver
PORT ?= 8787
export PORT

.PHONY: all deps build build-dev size bench bench-breakdown split-list soak wpt imports package test test-rust test-wasm test-page test-interop demo clean distclean

all: build

deps:
	@bash scripts/install-deps.sh

build: deps
	$(NODE) scripts/build.mjs

build-dev: deps
	$(NODE) scripts/build.mjs --dev

size:
	@$(NODE) scripts/size.mjs

bench: build
	@$(NODE) scripts/bench.mjs $(if $(ENGINE),--engine $(ENGINE))

bench-breakdown: build
	@$(NODE) scripts/bench-breakdown.mjs

split-list: build
	@$(NODE) scripts/bench-breakdown.mjs --write-split-list

wpt: build
	@test -n "$(WPT)" || { echo "usage: make wpt WPT=<a web-platform-tests checkout>"; exit 2; }
	@$(NODE) scripts/wpt.mjs "$(WPT)"

# Reliability under a long run beside @mcp-b/global (not in make test; SOAK_SCALE=0.1 for a
# quick look; scripts/soak.mjs).
soak: build
	@$(NODE) scripts/soak.mjs

imports:
	@$(NODE) scripts/imports.mjs

package: build
	$(NODE) scripts/package.mjs

test: deps
	@$(MAKE) --no-print-directory test-rust
	@$(MAKE) --no-print-directory test-wasm
	@$(MAKE) --no-print-directory build
	@$(MAKE) --no-print-directory test-page
	@$(MAKE) --no-print-directory test-interop
	@$(MAKE) --no-print-directory conformance-official
	@echo "make test: OK — fmt, clippy, cargo test, rustdoc, wasm32 build, wasm tests, dist build, page tests, real-client interop, official MCP conformance all passed"

# Real MCP clients (the official TypeScript client, the inspector CLI) against the stdio example.
test-interop:
	bash tests/interop/run.sh

test-rust:
	cargo fmt --all -- --check
	$(NODE) scripts/imports.mjs
	cargo clippy --all-targets -- -D warnings
	cargo clippy --target wasm32-unknown-unknown --lib --test web -- -D warnings
	cargo clippy --target wasm32-unknown-unknown --lib --no-default-features --features browser -- -D warnings
	cargo clippy --target wasm32-unknown-unknown --lib --no-default-features --features web-server -- -D warnings
	cargo clippy --target wasm32-unknown-unknown --lib --no-default-features --features web-client -- -D warnings
	cargo clippy --target wasm32-unknown-unknown --lib --no-default-features --features validator,validator-module -- -D warnings
	cargo test
	cargo build --target wasm32-unknown-unknown --lib
	RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --lib
	RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --lib --target wasm32-unknown-unknown

# wasm-bindgen-test, in headless Chromium through chromedriver (runner: .cargo/config.toml,
# browser flags: webdriver.json). Runs the lib's wasm tests if src/ has any, and each tests/*.rs
# that uses wasm_bindgen_test; skipped when there are none. Native-only integration tests are not
# compiled for wasm32.
test-wasm:
	@sel=""; \
	if grep -rqsE 'wasm_bindgen_test' src --include='*.rs'; then sel="--lib"; fi; \
	for f in $$(grep -lsE 'wasm_bindgen_test' tests/*.rs 2>/dev/null); do sel="$$sel --test $$(basename $$f .rs)"; done; \
	if [ -n "$$sel" ]; then \
	  echo "CHROMEDRIVER=$(CHROMEDRIVER) cargo test --target wasm32-unknown-unknown $$sel"; \
	  CHROMEDRIVER=$(CHROMEDRIVER) cargo test --target wasm32-unknown-unknown $$sel; \
	else \
	  echo "test-wasm: no wasm-bindgen-test tests in src/ or tests/*.rs; skipped"; \
	fi

test-page:
	$(NODE) --test tests/page/*.test.mjs

demo: build
	$(NODE) scripts/demo.mjs

clean:
	rm -rf dist target/bindgen target/npm

distclean: clean
	cargo clean
	rm -rf node_modules

# Conformance (conformance/README.md): the WebMCP conformance page against this polyfill, native
# Chromium and @mcp-b/global side by side (fails only when this polyfill fails a case); the
# JSON-Schema-Test-Suite in Chromium beside the crate's native counts (fails when they differ);
# the page bridge with the official TypeScript client; and the official MCP conformance suite
# through the bridge at --requirements 2025-11-25 and 2026-07-28 (conformance/official.sh
# takes Node 24 from scripts/modern-node.sh and installs the suite into conformance/.tools/;
# fails on a failure that conformance/expected-failures.txt does not list). The page tests
# already run the first three against this polyfill, so `make test` needs only
# conformance-official on top.
.PHONY: conformance conformance-official
conformance: build
	$(NODE) conformance/run.mjs --compare
	$(NODE) conformance/schema_suite.mjs
	$(NODE) --test tests/page/conformance_bridge.test.mjs
	@$(MAKE) --no-print-directory conformance-official

conformance-official: build
	bash conformance/official.sh
