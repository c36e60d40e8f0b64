# Every target works on a fresh machine with Go installed; tools the tests
# need are built or installed by the targets that use them.
SHELL := /bin/bash
GO ?= go
BIN := bin/glance-hooks
CACHE_BIN := $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/glance-hooks/bin
HELM_VERSION := v3.19.0
HELM := $(CACHE_BIN)/helm-$(HELM_VERSION)
# staticcheck reads the code with the go/types of the Go it was built with,
# so each toolchain gets its own build (hack/go-install.sh).
STATICCHECK_VERSION := v0.8.2
STATICCHECK := $(CACHE_BIN)/staticcheck-$(STATICCHECK_VERSION)-$(shell $(GO) env GOVERSION)
GOLANGCI_LINT_VERSION := v2.15.0
GOLANGCI_LINT := $(CACHE_BIN)/golangci-lint-$(GOLANGCI_LINT_VERSION)-$(shell $(GO) env GOVERSION)
CHART := charts/glance-hooks
IMAGE_REPOSITORY ?= ghcr.io/c5c3/glance-hooks

.PHONY: fuzz all build render test quick unit integration kube-bins fixtures fixtures-check vet fmt-check lint staticcheck run golangci-lint \
	datapath-deps services-deps stops helm crd-schemas controlplane-projection chart-crds metacontroller chart-lint image push image-ref chart-package set-version podrun-twice release-notes bench catalogs request-path

all: build

# The version and commit stamped into the binary (glance-hooks version, the
# serving log line, glance_hooks_build_info); hack/build.sh builds it the
# same way for the image and the tests. The VERSION file is the one place a
# release is set (docs/release.md): at its tag v$(RELEASE) the version is
# $(RELEASE), elsewhere $(RELEASE)-dev.g<commit> (hack/version.sh).
RELEASE := $(shell hack/version.sh --release)
VERSION ?= $(shell hack/version.sh)
COMMIT ?= $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
# The image's tag is the version `glance-hooks version` prints: the chart's
# appVersion for a release, and never a release's tag for a development
# build.
IMAGE_TAG ?= $(VERSION)

build:
	VERSION=$(VERSION) RELEASE=$(RELEASE) COMMIT=$(COMMIT) hack/build.sh $(BIN)

# The whole test suite, as CI runs it, on a fresh machine too: it installs
# the real components first (glance-api, MariaDB, memcached, Keystone and
# uWSGI from Debian's packages need root or sudo; kube-apiserver, etcd,
# versitygw and helm are built into the cache dir), so the tests that run
# them must run rather than skip.
test: datapath-deps services-deps kube-bins helm staticcheck golangci-lint
	REQUIRE_SERVICES=1 $(MAKE) --no-print-directory vet fmt-check lint unit fixtures-check integration

# The quick loop while developing: Go tests only; the data-path and chart
# tests skip (saying why) when their components are missing.
quick: vet fmt-check lint
	$(GO) test -count=1 ./...

# What the data-path test runs: Debian's glance-api and python3-boto3 (apt,
# needs root or sudo), the oslo.middleware of 2026.1 beside Debian's for the
# 2026.1 pods, a Debian unstable system with the newest Glance packages and
# a Debian 13 one with 2025.1's (mmdebstrap, about 800 MB each), and
# versitygw built into the user cache dir,
# where the test finds it (or set VERSITYGW_BIN). Every step is a no-op
# when done.
datapath-deps:
	hack/install-glance.sh
	hack/install-oslo-middleware.sh
	hack/install-glance-debian.sh unstable
	hack/install-glance-debian.sh trixie
	hack/install-versitygw.sh >/dev/null

# What test/services starts: MariaDB, memcached, Keystone and uWSGI with its
# Python 3 plugin, the openstack and glance CLIs (apt, needs root or sudo),
# and versitygw. No-ops when done.
services-deps:
	hack/install-services.sh
	hack/install-versitygw.sh >/dev/null

# The data-path tests take about 11 minutes alone on two idle cores and
# twice that beside other work; the timeout only catches a hang.
unit: helm
	HELM=$(HELM) $(GO) test -count=1 -timeout 40m ./...

# The real kube-apiserver, etcd and kubectl the integration tests use, built once
# from the pinned module in test/kube into a cache directory (a cold build
# takes several minutes; afterwards this only prints the directory).
kube-bins:
	bash hack/build-kube.sh

# Test files tagged `integration` run against a real kube-apiserver; here its
# absence is a failure, not a skip.
INTEGRATION_PKGS = $(sort $(dir $(filter-out ./test/kube/%,$(shell grep -rl --include='*_test.go' --exclude-dir=.git '^//go:build integration' .))))
integration: kube-bins helm
	HELM=$(HELM) KUBETEST_REQUIRE=1 $(GO) test -count=1 -tags integration -timeout 20m $(INTEGRATION_PKGS)

# The stop proof of docs/stopping.md: a serving glance-api pod of each
# launch mode stopped as the kubelet stops it, STOP_REPEATS times in a row
# beside two CPU hogs, each time with an upload in flight; every stop must
# end within the rendered grace period with the upload active and intact.
# Not part of test: at 50 it takes about half an hour. STOP_RELEASE picks
# one launch mode by its stack's release: 2026.1 (uWSGI) or 2025.2
# (eventlet); unset, both run at once.
STOP_REPEATS ?= 50
STOP_RELEASE ?=
stops: datapath-deps services-deps
	REQUIRE_SERVICES=1 GLANCE_STOP_REPEATS=$(STOP_REPEATS) $(GO) test -count=1 -v -timeout 3h ./test/datapath/ \
	  -run 'TestGlanceServes/day_two/staged_on_one_pod_and_imported_through_another_$(STOP_RELEASE)/serving_pods_stopped_beside_CPU_hogs'

# The pod-runner tests twice at once, as two `make test` runs on one
# machine would run them: both must pass and leave /etc/glance and
# /var/lib/glance of the machine as they were (hack/podrun-twice.sh).
podrun-twice: services-deps
	GO=$(GO) hack/podrun-twice.sh

vet:
	$(GO) vet ./...
	$(GO) vet -tags integration ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# Explores inputs beyond the seed corpora (make test runs the seeds): every
# Fuzz target in the module, FUZZTIME each, and a table of how many inputs
# each one tried (hack/fuzz.sh says why FUZZMINIMIZE bounds minimising).
FUZZTIME ?= 1m
FUZZMINIMIZE ?= 20x
fuzz:
	GO=$(GO) FUZZTIME=$(FUZZTIME) FUZZMINIMIZE=$(FUZZMINIMIZE) hack/fuzz.sh

# The option catalogs of glance-api per release (hooks/contract/optioncatalog)
# and the Debian 12 one the cross-check in test/catalogs compares with
# oslo-config-generator, read from git clones of the OpenStack projects in
# OPENSTACK_SOURCES (docs/catalogs.md says which and how to get them).
catalogs:
	@test -n "$(OPENSTACK_SOURCES)" || { echo "make catalogs needs OPENSTACK_SOURCES: a directory of git clones of openstack/requirements, glance, glance_store, keystonemiddleware, keystoneauth, castellan, os-brick, osprofiler and the oslo libraries (docs/catalogs.md)"; exit 2; }
	python3 -B hack/optioncatalog/generate.py --sources "$(OPENSTACK_SOURCES)" --releases hack/optioncatalog/releases.json --out hooks/contract/optioncatalog/catalogs
	python3 -B hack/optioncatalog/generate.py --sources "$(OPENSTACK_SOURCES)" --releases hack/optioncatalog/debian-12.json --out test/catalogs/testdata
	python3 -B hack/optioncatalog/paste_factories.py --sources "$(OPENSTACK_SOURCES)" --catalogs hooks/contract/optioncatalog/catalogs --out hooks/glance/testdata/paste-factories

# Rewrite every fixture's response.json from what the service answers now,
# docs/performance.md's table of the API writes the guide's walk costs, and
# the field reference of docs/reference from the CRDs.
fixtures:
	UPDATE_FIXTURES=1 $(GO) test -count=1 -run 'TestCaptureGlanceFixtures' ./test/
	UPDATE_FIXTURES=1 $(GO) test -count=1 -run 'TestFixtures' ./test/
	UPDATE_FIXTURES=1 $(GO) test -count=1 -run 'TestWritesTableInDocs' ./test/perf/
	$(GO) run ./hack/crdref

# Regenerating the fixtures must change nothing.
fixtures-check:
	@tmp=$$(mktemp -d) && cp -r test/fixtures $$tmp/ && cp docs/performance.md $$tmp/ && cp -r docs/reference $$tmp/ && \
	  $(MAKE) --no-print-directory fixtures >/dev/null && \
	  if ! diff -r $$tmp/fixtures test/fixtures || ! diff $$tmp/performance.md docs/performance.md || ! diff -r $$tmp/reference docs/reference; then \
	    cp -r $$tmp/fixtures/. test/fixtures/; cp $$tmp/performance.md docs/performance.md; cp -r $$tmp/reference/. docs/reference/; rm -rf $$tmp; \
	    echo "regenerating the fixtures changed them"; exit 1; fi; rm -rf $$tmp

# What the hooks make of the guide's ControlPlane, without a cluster.
render: build
	$(BIN) render -f examples/controlplane.yaml

# Start the service on 127.0.0.1:8080, plain HTTP, to try the hooks with curl.
run: build
	$(BIN) serve --listen 127.0.0.1:8080 --insecure-plain-http

# staticcheck with its default checks and golangci-lint, on the code as
# built with and without the integration tag; they must find nothing. Two
# checkouts linted at once on one machine share golangci-lint's lock: the
# second waits for the first rather than failing.
lint: staticcheck golangci-lint
	$(STATICCHECK) ./...
	$(STATICCHECK) -tags integration ./...
	$(GOLANGCI_LINT) run --allow-serial-runners ./...
	$(GOLANGCI_LINT) run --allow-serial-runners --build-tags integration ./...

# golangci-lint (.golangci.yml), built from the Go module proxy into the
# cache dir when missing, like staticcheck.
golangci-lint: $(GOLANGCI_LINT)
$(GOLANGCI_LINT):
	GOLANGCI_LINT_VERSION=$(GOLANGCI_LINT_VERSION) GOLANGCI_LINT_BIN_DIR=$(CACHE_BIN) bash hack/install-golangci-lint.sh >/dev/null

# staticcheck, built from the Go module proxy into the cache dir when missing.
staticcheck: $(STATICCHECK)
$(STATICCHECK):
	STATICCHECK_VERSION=$(STATICCHECK_VERSION) STATICCHECK_BIN_DIR=$(CACHE_BIN) bash hack/install-staticcheck.sh >/dev/null

# helm, built from the Go module proxy into the cache dir when missing.
helm: $(HELM)
$(HELM):
	HELM_VERSION=$(HELM_VERSION) HELM_BIN_DIR=$(CACHE_BIN) bash hack/install-helm.sh >/dev/null

# Where a CRD field is a Kubernetes type (a Deployment's strategy, a spread
# constraint, a NetworkPolicy egress rule) or a type of this API whose spec
# part generates its CRD lines (spec.autoscaling), its schema is the one
# controller-gen generates for that type, from the k8s.io/api go.mod pins
# and this checkout's hooks/contract/api, by the nested module
# hack/kubeschema; this writes it between the type's
# comments in schemas/, then the chart's copy and the field reference.
# TestKubeTypeSchemas fails while a CRD differs from the generated schema.
crd-schemas:
	UPDATE_SCHEMAS=1 $(GO) test -count=1 -run 'TestKubeTypeSchemas' ./schemas
	$(MAKE) --no-print-directory chart-crds
	$(GO) run ./hack/crdref

# What services.glance shares with a Glance's spec by name, JSON name and
# type, copied onto the ControlPlane's Glance (hooks/contract/api/projection.go):
# written from the types; TestSharedSpecIsGenerated fails while it is stale.
controlplane-projection:
	rm -f hooks/contract/api/projection_gen.go
	UPDATE_PROJECTION=1 $(GO) test -count=1 -run 'TestSharedSpecIsGenerated' ./hooks/contract/api

# The chart ships the CRDs of schemas/ unchanged; a test fails when the copy is stale.
chart-crds:
	@test -d schemas || { echo "schemas/ does not exist: nothing to copy"; exit 1; }
	rm -f $(CHART)/files/crds/*.yaml
	cp schemas/*.yaml $(CHART)/files/crds/

# metacontroller/ is the chart's CompositeControllers rendered with the
# defaults; a test fails when it differs from the templates.
metacontroller: helm
	bash hack/render-metacontroller.sh $(HELM) metacontroller

chart-lint: helm
	$(HELM) lint --strict $(CHART)

# The image, without a container engine: the static linux binary on an
# empty base with a non-root user and the CA roots (internal/image), written
# as a `docker save` archive. Files and the image carry the commit time, so
# the same commit and CA bundle give the same image digest. Load it with
# `docker load -i` or `podman load -i`.
IMAGE_ARCH ?= $(shell $(GO) env GOARCH)
IMAGE_TAR ?= bin/glance-hooks-image-$(IMAGE_ARCH).tar
IMAGE_CREATED = $$(git log -1 --format=%ct 2>/dev/null || echo 0)
IMAGE_FLAGS = --ca-bundle $$(hack/ca-roots.sh) --version $(VERSION) --commit $(COMMIT) --created $(IMAGE_CREATED)
image:
	@mkdir -p bin
	GOOS=linux GOARCH=$(IMAGE_ARCH) VERSION=$(VERSION) RELEASE=$(RELEASE) COMMIT=$(COMMIT) hack/build.sh bin/glance-hooks-linux-$(IMAGE_ARCH)
	$(GO) run ./hack/image --binary $(IMAGE_ARCH)=bin/glance-hooks-linux-$(IMAGE_ARCH) $(IMAGE_FLAGS) \
	  --tag $(IMAGE_REPOSITORY):$(IMAGE_TAG) --out $(IMAGE_TAR)

# Publishes the image for every PUSH_ARCHES under one multi-arch tag,
# $(PUSH_REF), without a container engine: each binary cross-compiled (CGO
# off), then pushed with go-containerregistry using the credentials of
# docker login, podman login or crane auth login. It prints the index
# digest to pin. A release is `make push REGISTRY=ghcr.io/c5c3` at the tag
# v$(RELEASE): the chart's default image (test/release checks they agree).
PUSH_ARCHES ?= amd64 arm64
PUSH_REF = $(REGISTRY)/glance-hooks:$(IMAGE_TAG)
push:
	@test -n "$(REGISTRY)" || { echo "usage: make push REGISTRY=<registry>[/<path>]" >&2; exit 2; }
	@mkdir -p bin
	@for a in $(PUSH_ARCHES); do \
	  GOOS=linux GOARCH=$$a VERSION=$(VERSION) RELEASE=$(RELEASE) COMMIT=$(COMMIT) hack/build.sh bin/glance-hooks-linux-$$a || exit 1; done
	$(GO) run ./hack/image $(foreach a,$(PUSH_ARCHES),--binary $(a)=bin/glance-hooks-linux-$(a)) $(IMAGE_FLAGS) \
	  --push $(PUSH_REF)

# The reference `make push` pushes, without building or pushing anything.
image-ref:
	@test -n "$(REGISTRY)" || { echo "usage: make image-ref REGISTRY=<registry>[/<path>]" >&2; exit 2; }
	@echo $(PUSH_REF)

# The chart as a release publishes it, bin/glance-hooks-$(RELEASE).tgz; the
# chart's version and appVersion are the VERSION file's (set-version writes
# them, test/release checks them), so the package is the chart in git.
chart-package: helm
	@mkdir -p bin
	$(HELM) package $(CHART) --version $(RELEASE) --app-version $(RELEASE) --destination bin

# Starts a release: writes V to VERSION and to the copies that cannot read
# it (the chart's version and appVersion, the Dockerfile's default VERSION
# argument). CHANGELOG.md's "[V]" section is yours to write.
set-version:
	@test -n "$(V)" || { echo "usage: make set-version V=<major.minor.patch>" >&2; exit 2; }
	hack/set-version.sh $(V)

# The notes of a release: the tag's section of CHANGELOG.md (TAG defaults
# to the tag at HEAD); fails when the section is missing or empty, so a tag
# is not released without notes.
TAG ?=
release-notes:
	@hack/release-notes.sh $(TAG)

# Benchmarks of every hook against its floor (test/perf), then the load test
# against the service and its floor twin (test/load/floorserve), printed as one table
# with each target; docs/performance.md explains it. Not part of test (which
# only smoke-tests the load test): it takes about two minutes, and about one
# more the first time, to generate and cache the 1000-backend requests in
# .cache/perf. The raw benchmark output is kept in .cache/perf/bench.txt.
BENCHTIME ?= 300ms
BENCHCOUNT ?= 1
LOADFLAGS ?=
bench: build
	@mkdir -p .cache/perf
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) -count $(BENCHCOUNT) ./test/perf > .cache/perf/bench.txt
	$(GO) test -run '^$$' -bench '^BenchmarkRender100kConfigMaps$$' -benchmem -benchtime 1x ./simulate/render | grep '^Benchmark'
	$(GO) build -o bin/glance-hooks-floor ./test/load/floorserve
	$(GO) run ./test/load -bin $(BIN) -floor-bin bin/glance-hooks-floor -bench .cache/perf/bench.txt -large-backends 1000 $(LOADFLAGS)

# request-path counts the files one /sync/glance request enters (docs/hooks.md,
# "Inside the Glance hook"): the Go files of hooks/ the fixture case
# REQUEST_PATH_CASE runs a statement of, from the route to the answer, as a
# coverage profile shows, counted per directory, then those of hooks/glance
# and its stages split into the features' own files (every file directly in
# hooks/glance but the hook's own, REQUEST_PATH_HOOK_FILES) and the core
# path (the hook's own files and its stages'). hack/requestpath measures it;
# its test fails while docs/hooks.md quotes other figures.
REQUEST_PATH_CASE ?= sync-glance/two-stores-ready
# The files of hooks/glance that are no feature's; TestRequestPathKnowsEveryFile
# (hooks/glance/features_test.go) fails on a file that is neither listed here
# nor a feature's file in docs/hooks.md's list of features.
REQUEST_PATH_HOOK_FILES := conditions.go customize.go exports.go features.go observe.go sync.go
request-path:
	@$(GO) run ./hack/requestpath -case '$(REQUEST_PATH_CASE)' $(REQUEST_PATH_HOOK_FILES)
