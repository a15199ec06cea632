/*
Copyright 2026 The provider-simplyblock Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// Command imagetar builds the provider's runtime image as an image tarball
// (the `docker save` format, which `docker load` and
// `crossplane xpkg build --embed-runtime-image-tarball` read) without a Docker
// engine. It is the engine-free twin of cluster/images/provider/Dockerfile and
// is what `make xpkg` uses.
//
// The image is the base (empty by default, or an image tarball given with
// --base, for example a saved gcr.io/distroless/static:nonroot) plus one layer
// holding the statically linked provider binary. On an empty base that layer
// also carries what distroless would: /etc/passwd and /etc/group naming the
// nonroot user 65532, a world-writable /tmp and, with --ca-certificates, a CA
// bundle at /etc/ssl/certs/ca-certificates.crt. The config runs the binary as
// 65532:65532 on linux/--arch. File times are fixed, so the same inputs give the
// same image digest.
package main

import (
	"archive/tar"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"runtime"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

const (
	// nonRoot is the uid and gid of distroless's nonroot user.
	nonRoot = "65532"
	// caBundlePath is where Go's crypto/x509 looks first for system roots on Linux.
	caBundlePath = "/etc/ssl/certs/ca-certificates.crt"
)

// epoch is the modification time of every file in the layer and the image's
// creation time, so that builds are reproducible.
var epoch = time.Unix(0, 0).UTC()

// options are the command-line flags.
type options struct {
	binary        string
	out           string
	base          string
	tag           string
	arch          string
	entrypoint    string
	version       string
	caCertificate string
}

func main() {
	o := options{}
	flag.StringVar(&o.binary, "binary", "", "The statically linked provider binary (linux, CGO_ENABLED=0). Required.")
	flag.StringVar(&o.out, "out", "", "The image tarball to write. Required.")
	flag.StringVar(&o.base, "base", "", "An image `tarball` to use as the base, for example the output of 'docker save gcr.io/distroless/static:nonroot'; empty for an empty base.")
	flag.StringVar(&o.tag, "tag", "provider-simplyblock:dev", "The image name and tag recorded in the tarball.")
	flag.StringVar(&o.arch, "arch", defaultArch(), "The image's CPU architecture; must match the binary's. Defaults to $GOARCH, else this machine's.")
	flag.StringVar(&o.entrypoint, "entrypoint", "/usr/local/bin/provider", "Where the binary goes in the image; the image's entrypoint. Its base name is the prefix of the provider's environment variables (PROVIDER_POLL, ...).")
	flag.StringVar(&o.version, "version", "dev", "The provider version, recorded as the org.opencontainers.image.version label.")
	flag.StringVar(&o.caCertificate, "ca-certificates", "", "A PEM CA bundle to install at "+caBundlePath+"; empty for none.")
	flag.Parse()

	if err := run(o); err != nil {
		fmt.Fprintf(os.Stderr, "imagetar: %v\n", err)
		os.Exit(1)
	}
}

// defaultArch is $GOARCH when set (as `GOARCH=arm64 make xpkg` sets it for the
// binary too), else the architecture of this machine.
func defaultArch() string {
	if a := os.Getenv("GOARCH"); a != "" {
		return a
	}
	return runtime.GOARCH
}

// run builds the image o describes and writes it to o.out.
func run(o options) error {
	if o.binary == "" || o.out == "" {
		return fmt.Errorf("--binary and --out are required")
	}
	if !path.IsAbs(o.entrypoint) {
		return fmt.Errorf("--entrypoint %q must be an absolute path", o.entrypoint)
	}
	tag, err := name.NewTag(o.tag)
	if err != nil {
		return fmt.Errorf("cannot parse --tag: %w", err)
	}

	base := empty.Image
	if o.base != "" {
		if base, err = tarball.ImageFromPath(o.base, nil); err != nil {
			return fmt.Errorf("cannot read the base image tarball %s: %w", o.base, err)
		}
	}
	baseCfg, err := base.ConfigFile()
	if err != nil {
		return fmt.Errorf("cannot read the base image config: %w", err)
	}
	if o.base != "" && (baseCfg.OS != "linux" || baseCfg.Architecture != o.arch) {
		return fmt.Errorf("the base image is %s/%s, not linux/%s", baseCfg.OS, baseCfg.Architecture, o.arch)
	}

	files, err := layerFiles(o)
	if err != nil {
		return err
	}
	layerTar, err := tarFiles(files)
	if err != nil {
		return err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerTar)), nil
	})
	if err != nil {
		return fmt.Errorf("cannot create the provider layer: %w", err)
	}
	img, err := mutate.Append(base, mutate.Addendum{
		Layer:   layer,
		History: v1.History{Created: v1.Time{Time: epoch}, CreatedBy: "imagetar: provider binary at " + o.entrypoint},
	})
	if err != nil {
		return fmt.Errorf("cannot add the provider layer: %w", err)
	}

	cfg, err := img.ConfigFile()
	if err != nil {
		return fmt.Errorf("cannot read the image config: %w", err)
	}
	cfg = cfg.DeepCopy()
	cfg.OS, cfg.Architecture, cfg.Created = "linux", o.arch, v1.Time{Time: epoch}
	cfg.Config.User = nonRoot + ":" + nonRoot
	cfg.Config.Entrypoint = []string{o.entrypoint}
	cfg.Config.Cmd = nil
	cfg.Config.WorkingDir = "/"
	if len(cfg.Config.Env) == 0 {
		cfg.Config.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
	}
	if cfg.Config.Labels == nil {
		cfg.Config.Labels = map[string]string{}
	}
	for k, v := range labels(o.version) {
		cfg.Config.Labels[k] = v
	}
	if img, err = mutate.ConfigFile(img, cfg); err != nil {
		return fmt.Errorf("cannot set the image config: %w", err)
	}

	if err := tarball.WriteToFile(o.out, tag, img); err != nil {
		return fmt.Errorf("cannot write %s: %w", o.out, err)
	}
	digest, err := img.Digest()
	if err != nil {
		return fmt.Errorf("cannot compute the image digest: %w", err)
	}
	fmt.Fprintf(os.Stderr, "imagetar: wrote %s (%s, linux/%s, %s)\n", o.out, tag, o.arch, digest)
	return nil
}

// labels are the OCI annotations set on the image config.
func labels(version string) map[string]string {
	return map[string]string{
		"org.opencontainers.image.title":       "provider-simplyblock",
		"org.opencontainers.image.description": "Crossplane provider for simplyblock storage clusters",
		"org.opencontainers.image.source":      "https://github.com/simplyblock/provider-simplyblock",
		"org.opencontainers.image.licenses":    "Apache-2.0",
		"org.opencontainers.image.version":     version,
	}
}

// file is one entry of the provider layer.
type file struct {
	name    string // absolute path in the image
	mode    int64
	dir     bool
	owner   int // uid and gid
	content []byte
}

// layerFiles lists the provider layer: the rootfs basics when the base is
// empty, the optional CA bundle and the binary, each with its parent
// directories.
func layerFiles(o options) ([]file, error) {
	var files []file
	if o.base == "" {
		files = append(files,
			file{name: "/etc", mode: 0o755, dir: true},
			file{name: "/etc/passwd", mode: 0o644, content: []byte("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:" + nonRoot + ":" + nonRoot + ":nonroot:/home/nonroot:/sbin/nologin\n")},
			file{name: "/etc/group", mode: 0o644, content: []byte("root:x:0:\nnonroot:x:" + nonRoot + ":\n")},
			file{name: "/home", mode: 0o755, dir: true},
			file{name: "/home/nonroot", mode: 0o700, dir: true, owner: 65532},
			file{name: "/tmp", mode: 0o1777, dir: true},
		)
	}
	if o.caCertificate != "" {
		ca, err := os.ReadFile(o.caCertificate)
		if err != nil {
			return nil, fmt.Errorf("cannot read --ca-certificates: %w", err)
		}
		files = append(files, withParents(file{name: caBundlePath, mode: 0o644, content: ca})...)
	}
	bin, err := os.ReadFile(o.binary)
	if err != nil {
		return nil, fmt.Errorf("cannot read --binary: %w", err)
	}
	return append(files, withParents(file{name: o.entrypoint, mode: 0o755, content: bin})...), nil
}

// withParents returns f preceded by its parent directories, outermost first.
func withParents(f file) []file {
	var dirs []file
	for d := path.Dir(f.name); d != "/"; d = path.Dir(d) {
		dirs = append([]file{{name: d, mode: 0o755, dir: true}}, dirs...)
	}
	return append(dirs, f)
}

// tarFiles writes files as an uncompressed tar, skipping
// directories already written.
func tarFiles(files []file) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	seen := map[string]bool{}
	for _, f := range files {
		if seen[f.name] {
			continue
		}
		seen[f.name] = true
		h := &tar.Header{Name: f.name[1:], Mode: f.mode, Uid: f.owner, Gid: f.owner, ModTime: epoch, Typeflag: tar.TypeReg, Size: int64(len(f.content))}
		if f.dir {
			h.Name, h.Typeflag, h.Size = h.Name+"/", tar.TypeDir, 0
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, fmt.Errorf("cannot write %s to the layer: %w", f.name, err)
		}
		if _, err := tw.Write(f.content); err != nil {
			return nil, fmt.Errorf("cannot write %s to the layer: %w", f.name, err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("cannot finish the layer: %w", err)
	}
	return buf.Bytes(), nil
}
