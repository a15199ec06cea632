# provider-simplyblock
#
# The two commands a new user needs:
#   make demo   the provider on an embedded local control plane and the simulator
#   make test   every test tier CI runs (unit, contract, admission, envtest integration, crash, composition,
#               the live composite tier test/e2e)
#   make demo-xr the same demo through the composite API (Crossplane core and the composition functions)
#   make soak   the sequence soak over 50 seeds
#   make conformance SIMPLYBLOCK_ENDPOINT=... SIMPLYBLOCK_TOKEN=...   read-only check of a real control plane

SHELL := /usr/bin/env bash
GO ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X github.com/simplyblock/provider-simplyblock/internal/version.Version=$(VERSION)
BIN_DIR := _output/bin

.PHONY: all build generate check-generate test test-unit vet demo sim envtest-binaries clean

all: build

## build: compile the provider and the simulator into _output/bin
build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN_DIR)/provider ./cmd/provider
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN_DIR)/simplyblock-sim ./cmd/simplyblock-sim

## generate: regenerate deepcopy, managed-resource methods, reference resolvers and package/crds
generate:
	$(GO) generate ./apis/...

## check-generate: fail when `make generate` changes the tree (CI runs this)
check-generate: generate
	@if [ -n "$$(git status --porcelain -- apis package examples/composition)" ]; then \
		echo "make generate left a dirty tree; run it and commit the result:"; git status --porcelain -- apis package examples/composition; exit 1; fi

## envtest-binaries: fetch or build kube-apiserver and etcd (cached under ~/.cache/provider-simplyblock)
envtest-binaries:
	@bash hack/envtest-binaries.sh >/dev/null

## crossplane-tools: build the Crossplane CLI, core and function-patch-and-transform (cached under ~/.cache/provider-simplyblock)
.PHONY: crossplane-tools
crossplane-tools:
	@bash hack/crossplane-tools.sh >/dev/null

# The Crossplane package and its runtime image, built without a Docker engine. XPKG_ARCH picks the architecture
# (GOARCH=arm64 make xpkg works too; give each architecture its own XPKG_FILE to keep both). XPKG_BASE=<tarball of
# `docker save` of one image, e.g. gcr.io/distroless/static:nonroot> puts the binary on that base instead of an
# empty one. On the empty base the host's CA bundle (XPKG_CA_CERTIFICATES) is installed when present, as distroless
# would have it.
XPKG_DIR := _output/xpkg
XPKG_ARCH ?= $(shell $(GO) env GOARCH)
XPKG_BASE ?=
XPKG_CA_CERTIFICATES ?= /etc/ssl/certs/ca-certificates.crt
XPKG_RUNTIME := $(XPKG_DIR)/provider-simplyblock-runtime-$(VERSION)-linux-$(XPKG_ARCH).tar
XPKG_FILE ?= $(XPKG_DIR)/provider-simplyblock-$(VERSION).xpkg

## image-tarball: the provider's runtime image (static binary, user 65532) as an image tarball in _output/xpkg,
## built without a Docker engine by cluster/images/provider/imagetar (`docker load -i` reads it)
.PHONY: image-tarball
image-tarball:
	@mkdir -p $(XPKG_DIR)/linux_$(XPKG_ARCH)
	CGO_ENABLED=0 GOOS=linux GOARCH=$(XPKG_ARCH) $(GO) build -trimpath -ldflags "$(LDFLAGS) -s -w" \
		-o $(XPKG_DIR)/linux_$(XPKG_ARCH)/provider ./cmd/provider
	env -u GOOS -u GOARCH $(GO) run ./cluster/images/provider/imagetar \
		--binary=$(XPKG_DIR)/linux_$(XPKG_ARCH)/provider --arch=$(XPKG_ARCH) --version=$(VERSION) \
		--tag=provider-simplyblock-runtime:$(VERSION) --out=$(XPKG_RUNTIME) \
		$(if $(XPKG_BASE),--base=$(XPKG_BASE),$(if $(wildcard $(XPKG_CA_CERTIFICATES)),--ca-certificates=$(XPKG_CA_CERTIFICATES)))

## xpkg: build the Crossplane package _output/xpkg/provider-simplyblock-$(VERSION).xpkg offline: package/ (Provider
## meta and CRDs), examples/ and the embedded runtime image; push it with `crossplane xpkg push`
.PHONY: xpkg
xpkg: image-tarball
	@tools=$$(bash hack/crossplane-tools.sh) && \
	"$$tools/crossplane" xpkg build --package-root=package --examples-root=examples \
		--embed-runtime-image-tarball=$(XPKG_RUNTIME) --package-file=$(XPKG_FILE) && \
	echo "xpkg: $(XPKG_FILE) ($$(du -h $(XPKG_FILE) | cut -f1), linux/$(XPKG_ARCH))"

## function-xpkg: build the package of function-storagecluster (the composition function of examples/composition)
## offline, like xpkg: _output/xpkg/function-storagecluster-$(VERSION).xpkg. FUNCTION=function-scheduled-ops builds
## the operation function of examples/scheduled instead (cmd/$(FUNCTION), cluster/images/$(FUNCTION)/package).
FUNCTION ?= function-storagecluster
FUNCTION_XPKG_RUNTIME := $(XPKG_DIR)/$(FUNCTION)-runtime-$(VERSION)-linux-$(XPKG_ARCH).tar
FUNCTION_XPKG_FILE ?= $(XPKG_DIR)/$(FUNCTION)-$(VERSION).xpkg
.PHONY: function-xpkg
function-xpkg:
	@mkdir -p $(XPKG_DIR)/linux_$(XPKG_ARCH)
	CGO_ENABLED=0 GOOS=linux GOARCH=$(XPKG_ARCH) $(GO) build -trimpath -ldflags "$(LDFLAGS) -s -w" \
		-o $(XPKG_DIR)/linux_$(XPKG_ARCH)/$(FUNCTION) ./cmd/$(FUNCTION)
	env -u GOOS -u GOARCH $(GO) run ./cluster/images/provider/imagetar \
		--binary=$(XPKG_DIR)/linux_$(XPKG_ARCH)/$(FUNCTION) --arch=$(XPKG_ARCH) --version=$(VERSION) \
		--entrypoint=/usr/local/bin/$(FUNCTION) \
		--tag=$(FUNCTION)-runtime:$(VERSION) --out=$(FUNCTION_XPKG_RUNTIME)
	@tools=$$(bash hack/crossplane-tools.sh) && \
	"$$tools/crossplane" xpkg build --package-root=cluster/images/$(FUNCTION)/package \
		--embed-runtime-image-tarball=$(FUNCTION_XPKG_RUNTIME) --package-file=$(FUNCTION_XPKG_FILE) && \
	echo "function-xpkg: $(FUNCTION_XPKG_FILE) ($$(du -h $(FUNCTION_XPKG_FILE) | cut -f1), linux/$(XPKG_ARCH))"

vet:
	$(GO) vet ./...

## test: all test tiers; kube-apiserver, etcd and kube-controller-manager are provided by hack/envtest-binaries.sh,
## the Crossplane CLI, core, function-patch-and-transform and Crossplane's CRDs (composition render tests, xpkg,
## test/e2e) by hack/crossplane-tools.sh
test: vet
	@mkdir -p _output && rm -f _output/crash-matrix.txt
	@assets=$$(bash hack/envtest-binaries.sh) && tools=$$(bash hack/crossplane-tools.sh) && \
	KUBEBUILDER_ASSETS="$$assets" CROSSPLANE_TOOLS="$$tools" CRASH_SUMMARY_FILE=$(CURDIR)/_output/crash-matrix.txt \
	$(GO) test -count=1 -race -timeout 30m ./...
	@if [ -f _output/crash-matrix.txt ]; then echo; echo "Crash matrix (test/crash):"; cat _output/crash-matrix.txt; fi

## soak: the sequence soak (test/crash TestSequenceSoak) over SOAK_SEEDS seeds (default 50) from SOAK_SEED (default:
## from the clock): random sequences of cluster and node operations on three clusters, the provider SIGKILLed at random
## moments; each seed is logged for a replay (make soak SOAK_SEED=<seed> SOAK_SEEDS=1). make test runs one seed.
.PHONY: soak
SOAK_SEEDS ?= 50
soak:
	@assets=$$(bash hack/envtest-binaries.sh) && \
	KUBEBUILDER_ASSETS="$$assets" SOAK_SEEDS=$(SOAK_SEEDS) $(if $(SOAK_SEED),SOAK_SEED=$(SOAK_SEED)) \
	$(GO) test -count=1 -timeout 180m -run TestSequenceSoak -v ./test/crash/ | grep -E '^\s*(---|ok|FAIL|panic)|soak_test.go|harness_test.go'; \
	exit $${PIPESTATUS[0]}

## bench: operations at scale (burst, rest, rolling restart) with the provider as a process; prints one table per
## scenario and writes the figures as JSON to _output/bench/ (or $BENCH_OUT). Sizes: test/bench/sizes_test.go.
.PHONY: bench
bench:
	@mkdir -p _output/bench
	@assets=$$(bash hack/envtest-binaries.sh) && \
	out=$${BENCH_OUT:-$(CURDIR)/_output/bench/bench-$$(date +%Y%m%d-%H%M%S).json} && \
	KUBEBUILDER_ASSETS="$$assets" BENCH_FULL=1 BENCH_OUT="$$out" \
	$(GO) test -count=1 -timeout 60m -run . -v ./test/bench/; rc=$$?; \
	echo; echo "Bench results (JSON): $$out"; exit $$rc

## demo: the embedded default: local control plane + simulator + provider + quickstart
demo:
	@assets=$$(bash hack/envtest-binaries.sh) && \
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN_DIR)/provider ./cmd/provider && \
	KUBEBUILDER_ASSETS="$$assets" $(GO) run ./cluster/local --provider-binary=$(BIN_DIR)/provider

## demo-xr: the demo through the composite API: Crossplane core and both functions, an XStorageCluster grown 3 -> 5 nodes
.PHONY: demo-xr
demo-xr:
	@assets=$$(bash hack/envtest-binaries.sh) && tools=$$(bash hack/crossplane-tools.sh) && \
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN_DIR)/provider ./cmd/provider && \
	KUBEBUILDER_ASSETS="$$assets" $(GO) run ./cluster/local --provider-binary=$(BIN_DIR)/provider --composite --crossplane-tools="$$tools"

## conformance: read-only check that a live control plane answers the way the provider reads it (GETs only):
##   make conformance SIMPLYBLOCK_ENDPOINT=https://sb-api:5000 SIMPLYBLOCK_TOKEN=... [SIMPLYBLOCK_CA_FILE=ca.crt] [SIMPLYBLOCK_CLUSTER=<uuid>]
## Make passes variables set on its command line to the command's environment; the token is never printed.
.PHONY: conformance
conformance:
	@$(GO) run ./cmd/simplyblock-conformance

## sim: run the simulator standalone with one seeded 3-node cluster
sim:
	$(GO) run ./cmd/simplyblock-sim --seed-clusters=1 --seed-nodes=3 --token=demo-admin-token

clean:
	rm -rf _output
