#!/usr/bin/env bash
# Provides the Crossplane tools the composition tests and `make xpkg` need, cached outside the repo:
#   crossplane                       the Crossplane CLI (composition render, resource validate, xpkg build)
#   crossplane-core                  the Crossplane core binary, whose composition engine `render` runs
#   function-patch-and-transform     the composition function, run locally by `render`
#   crossplane-crds/                 Crossplane's own CRDs (core's cluster/crds), which the e2e tier and
#                                    `make demo-xr` install before they start core out of cluster
#
# Prints the folder holding the three binaries on stdout (progress goes to stderr). Each tool is built from the Go
# module proxy in its own scratch module, because their crossplane-runtime versions differ from ours and from each
# other's (2 to 7 minutes each, cold, on 2 cores). Versions are pinned: the proxy here serves exact versions only.
set -euo pipefail

CLI_VERSION="${CROSSPLANE_CLI_VERSION:-2.5.0}"
CORE_VERSION="${CROSSPLANE_CORE_VERSION:-2.4.0}"
PAT_VERSION="${FUNCTION_PAT_VERSION:-0.10.7}"
CACHE_ROOT="${XDG_CACHE_HOME:-$HOME/.cache}/provider-simplyblock"
DEST="$CACHE_ROOT/crossplane-tools/cli-${CLI_VERSION}-core-${CORE_VERSION}-pat-${PAT_VERSION}"

log() { echo "crossplane-tools: $*" >&2; }

# build_tool NAME MODULE@VERSION PACKAGE [EXTRA-REQUIRE...] builds PACKAGE into $DEST/NAME in a scratch module.
build_tool() {
  local name=$1 module=$2 pkg=$3; shift 3
  [ -x "$DEST/$name" ] && return 0
  local work; work=$(mktemp -d)
  trap 'rm -rf "$work"' RETURN
  log "building $name ($module) from the Go module proxy..."
  (
    cd "$work"
    go mod init "scratch/$name" >/dev/null 2>&1
    go mod edit -require "$module"
    for extra in "$@"; do go mod edit -require "$extra"; done
    printf '//go:build tools\n\npackage tools\n\nimport _ "%s"\n' "$pkg" > tools.go
    GOFLAGS=-mod=mod go mod tidy >&2
    CGO_ENABLED=0 GOFLAGS=-mod=mod go build -o "$DEST/$name.tmp" "$pkg"
    mv "$DEST/$name.tmp" "$DEST/$name"
  )
  log "$name ready"
}

mkdir -p "$DEST"
build_tool function-patch-and-transform \
  "github.com/crossplane-contrib/function-patch-and-transform@v${PAT_VERSION}" \
  github.com/crossplane-contrib/function-patch-and-transform
build_tool crossplane-core \
  "github.com/crossplane/crossplane/v2@v${CORE_VERSION}" \
  github.com/crossplane/crossplane/v2/cmd/crossplane \
  "github.com/crossplane/crossplane/apis/v2@v${CORE_VERSION}"
build_tool crossplane \
  "github.com/crossplane/cli/v2@v${CLI_VERSION}" \
  github.com/crossplane/cli/v2/cmd/crossplane

# Crossplane's own CRDs, from the core module the build above downloaded: core installs them itself only in
# a cluster (`core init`); out of cluster the e2e tier and the demo install them.
if [ ! -d "$DEST/crossplane-crds" ]; then
  core_dir=$(cd / && GOFLAGS=-mod=mod go mod download -json "github.com/crossplane/crossplane/v2@v${CORE_VERSION}" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
  [ -d "$core_dir/cluster/crds" ] || { log "no cluster/crds in $core_dir"; exit 1; }
  rm -rf "$DEST/crossplane-crds.tmp" && cp -r "$core_dir/cluster/crds" "$DEST/crossplane-crds.tmp"
  chmod -R u+w "$DEST/crossplane-crds.tmp" && mv "$DEST/crossplane-crds.tmp" "$DEST/crossplane-crds"
  log "crossplane-crds ready"
fi

echo "$DEST"
