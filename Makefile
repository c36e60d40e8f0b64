# Every target works on a fresh machine with Go installed; tools the tests
# need are built or installed by the targets that use them.
SHELL := /bin/bash
GO ?= go
BIN := bin/glance-hooks

.PHONY: all build test unit fixtures fixtures-check vet fmt-check run datapath-deps

all: build

build:
	CGO_ENABLED=0 $(GO) build -trimpath -o $(BIN) ./cmd/glance-hooks

# The whole test suite, as CI runs it. test/datapath runs a real glance-api
# and versitygw when they are installed (see datapath-deps) and skips saying
# which is missing otherwise; REQUIRE_DATAPATH=1 makes a missing one fail.
test: vet fmt-check unit fixtures-check

# What the data-path test runs: Debian's glance-api and python3-boto3 (apt,
# needs root or sudo) and versitygw built into the user cache dir, where the
# test finds it (or set VERSITYGW_BIN). Both steps are no-ops when done.
datapath-deps:
	hack/install-glance.sh
	hack/install-versitygw.sh >/dev/null

unit:
	$(GO) test -count=1 ./...

vet:
	$(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# Rewrite every fixture's response.json from what the service answers now.
fixtures:
	UPDATE_FIXTURES=1 $(GO) test -count=1 -run 'TestCaptureGlanceFixtures' ./test/
	UPDATE_FIXTURES=1 $(GO) test -count=1 -run 'TestFixtures' ./test/

# Regenerating the fixtures must change nothing.
fixtures-check:
	@tmp=$$(mktemp -d) && cp -r test/fixtures $$tmp/ && \
	  $(MAKE) --no-print-directory fixtures >/dev/null && \
	  if ! diff -r $$tmp/fixtures test/fixtures; then cp -r $$tmp/fixtures/. test/fixtures/; rm -rf $$tmp; \
	    echo "regenerating the fixtures changed them"; exit 1; fi; rm -rf $$tmp

# Start the service on :8080 (the README's main job).
run: build
	$(BIN) serve --listen 127.0.0.1:8080
