#!/usr/bin/env bash
# Provides kube-apiserver and etcd for envtest and `make demo`, and kube-controller-manager, whose garbage
# collector deletes what a composite resource composed (the e2e tier and `make demo-xr` run it; Crossplane leaves
# composed resources to it), cached outside the repo.
#
# Prints the folder holding the binaries on stdout (progress goes to stderr). Order of attempts:
#   1. the cache ($XDG_CACHE_HOME or ~/.cache)/provider-simplyblock/envtest/<versions>;
#   2. setup-envtest's download of kube-apiserver and etcd, when the internet is reachable;
#   3. a build from the Go module proxy (kube-apiserver ~8 min, kube-controller-manager ~4 min more, etcd ~2 min
#      cold on 2 cores).
set -euo pipefail

KUBE_VERSION="${KUBE_VERSION:-1.35.4}"
ETCD_VERSION="${ETCD_VERSION:-3.6.16}"
SETUP_ENVTEST_VERSION="${SETUP_ENVTEST_VERSION:-release-0.24}"
CACHE_ROOT="${XDG_CACHE_HOME:-$HOME/.cache}/provider-simplyblock"
DEST="$CACHE_ROOT/envtest/k8s-${KUBE_VERSION}-etcd-${ETCD_VERSION}"

log() { echo "envtest-binaries: $*" >&2; }

have_binaries() { [ -x "$1/kube-apiserver" ] && [ -x "$1/etcd" ] && [ -x "$1/kube-controller-manager" ]; }

if have_binaries "$DEST"; then
  echo "$DEST"
  exit 0
fi
mkdir -p "$DEST"

# 2. setup-envtest download (works on a laptop with internet access).
try_download() {
  if ! curl -fsS --max-time 5 -o /dev/null https://raw.githubusercontent.com/kubernetes-sigs/controller-tools/HEAD/envtest-releases.yaml 2>/dev/null; then
    log "internet not reachable; building from the Go module proxy instead"
    return 1
  fi
  log "downloading envtest binaries for Kubernetes ${KUBE_VERSION} with setup-envtest"
  local dir
  dir=$(GOFLAGS= go run "sigs.k8s.io/controller-runtime/tools/setup-envtest@${SETUP_ENVTEST_VERSION}" use "${KUBE_VERSION}" \
        --bin-dir "$CACHE_ROOT/setup-envtest" -p path 2>/dev/null) || return 1
  cp "$dir/kube-apiserver" "$dir/etcd" "$DEST/" && log "downloaded into $DEST"
}

# 3. Build from source through the module proxy, in scratch modules.
# build_kubernetes CMD... builds k8s.io/kubernetes/cmd/CMD for each CMD in one scratch module.
build_kubernetes() {
  local work; work=$(mktemp -d)
  trap 'rm -rf "$work"' RETURN
  log "building $* v${KUBE_VERSION} from the Go module proxy (about 8 minutes cold for kube-apiserver)..."
  cd "$work"
  go mod init scratch/kubernetes >/dev/null 2>&1
  local modjson gomod
  modjson=$(go mod download -json "k8s.io/kubernetes@v${KUBE_VERSION}")
  gomod=$(echo "$modjson" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
  # Every k8s.io/* staging module kubernetes replaces with ./staging/... gets the matching v0.x release.
  local staging_version="v0.${KUBE_VERSION#1.}"
  grep -E '^\s*k8s\.io/[^ ]+ => \./staging/' "$gomod" | awk '{print $1}' | while read -r m; do
    go mod edit -replace "${m}=${m}@${staging_version}"
  done
  go mod edit -require "k8s.io/kubernetes@v${KUBE_VERSION}"
  {
    printf '//go:build tools\n\npackage tools\n\nimport (\n'
    for cmd in "$@"; do printf '\t_ "k8s.io/kubernetes/cmd/%s"\n' "$cmd"; done
    printf ')\n'
  } > tools.go
  log "resolving dependencies..."
  go mod tidy >&2
  for cmd in "$@"; do
    log "compiling $cmd..."
    go build -o "$DEST/$cmd.tmp" "k8s.io/kubernetes/cmd/$cmd"
    mv "$DEST/$cmd.tmp" "$DEST/$cmd"
    log "$cmd ready"
  done
}

build_etcd() {
  local work; work=$(mktemp -d)
  trap 'rm -rf "$work"' RETURN
  log "building etcd v${ETCD_VERSION} from the Go module proxy (about 2 minutes cold)..."
  cd "$work"
  go mod init scratch/etcd >/dev/null 2>&1
  go mod edit -require "go.etcd.io/etcd/server/v3@v${ETCD_VERSION}"
  cat > tools.go <<'GO'
//go:build tools

package tools

import _ "go.etcd.io/etcd/server/v3"
GO
  go mod tidy >&2
  go build -o "$DEST/etcd" go.etcd.io/etcd/server/v3
  log "etcd ready"
}

if ! { [ -x "$DEST/kube-apiserver" ] && [ -x "$DEST/etcd" ]; } && ! try_download; then
  [ -x "$DEST/etcd" ] || build_etcd
fi
missing=()
for cmd in kube-apiserver kube-controller-manager; do [ -x "$DEST/$cmd" ] || missing+=("$cmd"); done
[ ${#missing[@]} -eq 0 ] || build_kubernetes "${missing[@]}"

have_binaries "$DEST" || { log "failed to provide kube-apiserver, kube-controller-manager and etcd in $DEST"; exit 1; }
echo "$DEST"
