# provider-simplyblock
#
# The two commands a new user needs:
#   make demo   the provider on an embedded local control plane and the simulator
#   make test   every test tier CI runs (unit, contract, envtest integration, admission)

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
	@if [ -n "$$(git status --porcelain -- apis package)" ]; then \
		echo "make generate left a dirty tree; run it and commit the result:"; git status --porcelain -- apis package; exit 1; fi

## envtest-binaries: fetch or build kube-apiserver and etcd (cached under ~/.cache/provider-simplyblock)
envtest-binaries:
	@bash hack/envtest-binaries.sh >/dev/null

vet:
	$(GO) vet ./...

## test: all test tiers; kube-apiserver and etcd are provided by hack/envtest-binaries.sh
test: vet
	@mkdir -p _output && rm -f _output/crash-matrix.txt
	@assets=$$(bash hack/envtest-binaries.sh) && \
	KUBEBUILDER_ASSETS="$$assets" CRASH_SUMMARY_FILE=$(CURDIR)/_output/crash-matrix.txt \
	$(GO) test -count=1 -race -timeout 30m ./...
	@if [ -f _output/crash-matrix.txt ]; then echo; echo "Crash matrix (test/crash):"; cat _output/crash-matrix.txt; fi

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

## sim: run the simulator standalone with one seeded 3-node cluster
sim:
	$(GO) run ./cmd/simplyblock-sim --seed-clusters=1 --seed-nodes=3 --token=demo-admin-token

clean:
	rm -rf _output
