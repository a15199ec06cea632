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

// Package xpkg_test builds the Crossplane package the way `make xpkg` does (a
// static provider binary, the runtime image tarball from
// cluster/images/provider/imagetar, `crossplane xpkg build` with that image
// embedded) and opens the result as Crossplane would: the Provider meta with
// safe-start, every CRD of package/crds, every example, and a runtime image
// that runs the provider binary as a non-root user.
//
// The Crossplane CLI comes from $CROSSPLANE_TOOLS, the folder printed by
// hack/crossplane-tools.sh (`make test` sets it). Without it the test skips,
// unless CI is set.
package xpkg_test

import (
	"archive/tar"
	"bufio"
	"bytes"
	"debug/buildinfo"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	pkgmetav1 "github.com/crossplane/crossplane/apis/v2/pkg/meta/v1"
	"github.com/google/go-cmp/cmp"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

const (
	// testVersion is linked into the binary and recorded as the image's version label.
	testVersion = "v0.0.0-xpkgtest"
	// entrypoint is where imagetar puts the binary by default.
	entrypoint = "/usr/local/bin/provider"
	// fakeCA stands in for a CA bundle; imagetar copies it without parsing it.
	fakeCA = "-----BEGIN CERTIFICATE-----\nxpkg test\n-----END CERTIFICATE-----\n"

	// The xpkg format, as crossplane-runtime's pkg/xpkg writes it: a layer's
	// role is the config label "io.crossplane.xpkg:<layer digest>".
	labelPrefix       = "io.crossplane.xpkg:"
	roleRuntime       = "" // a layer of the runtime image: no label
	rolePackage       = "base"
	roleExamples      = "upbound"
	packageFile       = "package.yaml"
	examplesFile      = ".up/examples.yaml"
	maxPackageSize    = 200 << 20 // Crossplane refuses bigger packages.
	versionLDFlagName = "github.com/simplyblock/provider-simplyblock/internal/version.Version"
)

// built is a package built by buildPackage.
type built struct {
	root string   // the repository
	file string   // the .xpkg
	img  v1.Image // the .xpkg, opened
}

func TestPackage(t *testing.T) {
	b := buildPackage(t)
	cfg, err := b.img.ConfigFile()
	if err != nil {
		t.Fatalf("cannot read the package image config: %v", err)
	}
	layers := layersByRole(t, b.img, cfg)

	t.Run("Layers", func(t *testing.T) {
		got := make([]string, 0, len(layers))
		for _, l := range layers {
			got = append(got, l.role)
		}
		// The runtime image's one layer, then the package layer and the examples layer xpkg build appends.
		want := []string{roleRuntime, rolePackage, roleExamples}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("\nThe package must be the runtime image plus a package and an examples layer.\nlayer roles: -want, +got:\n%s", diff)
		}
		fi, err := os.Stat(b.file)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("package %s: %d bytes", filepath.Base(b.file), fi.Size())
		if fi.Size() > maxPackageSize {
			t.Errorf("the package is %d bytes; Crossplane refuses packages over %d", fi.Size(), maxPackageSize)
		}
	})

	t.Run("ProviderMeta", func(t *testing.T) {
		meta, _ := packageYAML(t, filesOf(t, layers, rolePackage)[packageFile])
		var want pkgmetav1.Provider
		readYAML(t, filepath.Join(b.root, "package", "crossplane.yaml"), &want)
		if diff := cmp.Diff(want, meta); diff != "" {
			t.Errorf("\nThe package's meta must be package/crossplane.yaml.\nProvider: -want, +got:\n%s", diff)
		}
		cases := map[string]struct {
			reason string
			ok     bool
		}{
			"SafeStart": {
				reason: "Crossplane grants the CRD watch the provider's safe-start needs only with this capability",
				ok:     pkgmetav1.CapabilitiesContainFuzzyMatch(meta.Spec.Capabilities, pkgmetav1.ProviderCapabilitySafeStart),
			},
			"CrossplaneV2": {
				reason: "namespaced managed resources in a .m. group need Crossplane v2",
				ok:     meta.Spec.Crossplane != nil && strings.HasPrefix(meta.Spec.Crossplane.Version, ">=v2"),
			},
			"Name": {
				reason: "the package is provider-simplyblock",
				ok:     meta.GetName() == "provider-simplyblock",
			},
		}
		crossplane := "<unset>"
		if meta.Spec.Crossplane != nil {
			crossplane = meta.Spec.Crossplane.Version
		}
		for name, tc := range cases {
			t.Run(name, func(t *testing.T) {
				if !tc.ok {
					t.Errorf("\n%s: got Provider %q, capabilities %q, crossplane version %q",
						tc.reason, meta.GetName(), meta.Spec.Capabilities, crossplane)
				}
			})
		}
	})

	t.Run("CRDs", func(t *testing.T) {
		_, got := packageYAML(t, filesOf(t, layers, rolePackage)[packageFile])
		want := map[string]apiextensionsv1.CustomResourceDefinition{}
		paths, err := filepath.Glob(filepath.Join(b.root, "package", "crds", "*.yaml"))
		if err != nil || len(paths) == 0 {
			t.Fatalf("no CRDs in package/crds (%v)", err)
		}
		for _, p := range paths {
			var crd apiextensionsv1.CustomResourceDefinition
			readYAML(t, p, &crd)
			want[crd.GetName()] = crd
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("\nThe package must hold every CRD of package/crds, unchanged.\nCRDs by name: -want, +got:\n%s", diff)
		}
	})

	t.Run("Examples", func(t *testing.T) {
		got := objectNames(t, bytes.NewReader(filesOf(t, layers, roleExamples)[examplesFile].content))
		var want []string
		err := filepath.WalkDir(filepath.Join(b.root, "examples"), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !(strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
				return err
			}
			f, err := os.Open(p) //nolint:gosec // test input from the repository.
			if err != nil {
				return err
			}
			defer f.Close() //nolint:errcheck // read only.
			want = append(want, objectNames(t, f)...)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(want) == 0 {
			t.Fatal("no objects in examples/")
		}
		slices.Sort(want)
		slices.Sort(got)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("\nThe package's examples must be every object of examples/.\nkind/namespace/name: -want, +got:\n%s", diff)
		}
	})

	t.Run("RuntimeConfig", func(t *testing.T) {
		user, _, _ := strings.Cut(cfg.Config.User, ":")
		cases := map[string]struct {
			reason string
			want   any
			got    any
		}{
			"NonRootUser": {
				reason: "the runtime runs as distroless's nonroot user (65532), never as root",
				want:   "65532:65532",
				got:    cfg.Config.User,
			},
			"UserIsNotRoot": {
				reason: "a user of 0 or root would fail runAsNonRoot",
				want:   false,
				got:    user == "" || user == "0" || user == "root",
			},
			"Entrypoint": {
				reason: "Crossplane runs the image's entrypoint with the DeploymentRuntimeConfig's args; its name, provider, makes the environment variables PROVIDER_POLL and so on, as the README says",
				want:   []string{entrypoint},
				got:    cfg.Config.Entrypoint,
			},
			"Platform": {
				reason: "the image is for linux on the architecture the binary was built for",
				want:   "linux/" + runtime.GOARCH,
				got:    cfg.OS + "/" + cfg.Architecture,
			},
			"VersionLabel": {
				reason: "the image records the provider version",
				want:   testVersion,
				got:    cfg.Config.Labels["org.opencontainers.image.version"],
			},
		}
		for name, tc := range cases {
			t.Run(name, func(t *testing.T) {
				if diff := cmp.Diff(tc.want, tc.got); diff != "" {
					t.Errorf("\n%s: -want, +got:\n%s", tc.reason, diff)
				}
			})
		}
	})

	t.Run("RuntimeFiles", func(t *testing.T) {
		files := filesOf(t, layers, roleRuntime)
		cases := map[string]struct {
			reason string
			path   string
			mode   int64
			check  func(content []byte) error
		}{
			"ProviderBinary": {
				reason: "the entrypoint is the statically linked provider, built with the version ldflags",
				path:   strings.TrimPrefix(entrypoint, "/"),
				mode:   0o755,
				check:  checkProviderBinary,
			},
			"CABundle": {
				reason: "--ca-certificates installs the bundle where Go looks for system roots",
				path:   "etc/ssl/certs/ca-certificates.crt",
				mode:   0o644,
				check:  equals(fakeCA),
			},
			"Passwd": {
				reason: "an empty base gets distroless's nonroot user",
				path:   "etc/passwd",
				mode:   0o644,
				check:  contains("nonroot:x:65532:65532:"),
			},
			"Tmp": {
				reason: "an empty base gets a world-writable /tmp",
				path:   "tmp/",
				mode:   0o1777,
			},
		}
		for name, tc := range cases {
			t.Run(name, func(t *testing.T) {
				f, ok := files[tc.path]
				if !ok {
					t.Fatalf("\n%s: %s is not in the runtime image", tc.reason, tc.path)
				}
				if diff := cmp.Diff(fmt.Sprintf("%#o", tc.mode), fmt.Sprintf("%#o", f.mode)); diff != "" {
					t.Errorf("\n%s: mode of %s: -want, +got:\n%s", tc.reason, tc.path, diff)
				}
				if tc.check != nil {
					if err := tc.check(f.content); err != nil {
						t.Errorf("\n%s: %s: %v", tc.reason, tc.path, err)
					}
				}
			})
		}
	})
}

// buildPackage builds the provider, its runtime image tarball and the package
// into a temporary folder, as `make xpkg` does, and opens the package.
func buildPackage(t *testing.T) built {
	t.Helper()
	tools := os.Getenv("CROSSPLANE_TOOLS")
	if tools == "" {
		msg := "CROSSPLANE_TOOLS is unset: the package test needs the Crossplane CLI. Run `make test`, or " +
			"CROSSPLANE_TOOLS=$(bash hack/crossplane-tools.sh) go test ./test/xpkg/"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	cli := filepath.Join(tools, "crossplane")
	if _, err := os.Stat(cli); err != nil {
		t.Fatalf("CROSSPLANE_TOOLS=%s has no crossplane binary (run bash hack/crossplane-tools.sh): %v", tools, err)
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	b := built{root: root, file: filepath.Join(tmp, "provider-simplyblock.xpkg")}
	bin, imagetar, runtimeTar, ca := filepath.Join(tmp, "provider"), filepath.Join(tmp, "imagetar"),
		filepath.Join(tmp, "runtime.tar"), filepath.Join(tmp, "ca.crt")
	if err := os.WriteFile(ca, []byte(fakeCA), 0o600); err != nil {
		t.Fatal(err)
	}

	// The flags of `make image-tarball`, with a test version.
	run(t, root, []string{"CGO_ENABLED=0", "GOOS=linux", "GOARCH=" + runtime.GOARCH},
		"go", "build", "-trimpath", "-ldflags", "-s -w -X "+versionLDFlagName+"="+testVersion, "-o", bin, "./cmd/provider")
	run(t, root, nil, "go", "build", "-o", imagetar, "./cluster/images/provider/imagetar")
	run(t, root, nil, imagetar, "--binary="+bin, "--arch="+runtime.GOARCH, "--version="+testVersion,
		"--tag=provider-simplyblock-runtime:test", "--ca-certificates="+ca, "--out="+runtimeTar)
	// The flags of `make xpkg`.
	run(t, root, nil, cli, "xpkg", "build", "--package-root=package", "--examples-root=examples",
		"--embed-runtime-image-tarball="+runtimeTar, "--package-file="+b.file)

	if b.img, err = tarball.ImageFromPath(b.file, nil); err != nil {
		t.Fatalf("cannot open the package %s as an image tarball: %v", b.file, err)
	}
	return b
}

// run runs name with args in dir, with env added to the environment, and
// fails the test with the command's output when it fails.
func run(t *testing.T, dir string, env []string, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...) //nolint:gosec // fixed commands of this test.
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, out)
	}
}

// layer is one layer of the package image and its xpkg role.
type layer struct {
	role  string
	layer v1.Layer
}

// layersByRole returns the image's layers in order, each with the role its
// config label gives it.
func layersByRole(t *testing.T, img v1.Image, cfg *v1.ConfigFile) []layer {
	t.Helper()
	ls, err := img.Layers()
	if err != nil {
		t.Fatalf("cannot list the package's layers: %v", err)
	}
	out := make([]layer, 0, len(ls))
	for _, l := range ls {
		d, err := l.Digest()
		if err != nil {
			t.Fatalf("cannot get a layer digest: %v", err)
		}
		out = append(out, layer{role: cfg.Config.Labels[labelPrefix+d.String()], layer: l})
	}
	return out
}

// file is one entry of a layer.
type file struct {
	mode    int64
	content []byte
}

// filesOf reads the entries of every layer with the given role, later layers
// overwriting earlier ones.
func filesOf(t *testing.T, layers []layer, role string) map[string]file {
	t.Helper()
	files := map[string]file{}
	for _, l := range layers {
		if l.role != role {
			continue
		}
		rc, err := l.layer.Uncompressed()
		if err != nil {
			t.Fatalf("cannot read a layer: %v", err)
		}
		tr := tar.NewReader(rc)
		for {
			h, err := tr.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("cannot read a layer: %v", err)
			}
			content, err := io.ReadAll(tr)
			if err != nil {
				t.Fatalf("cannot read %s: %v", h.Name, err)
			}
			files[h.Name] = file{mode: h.Mode, content: content}
		}
		_ = rc.Close()
	}
	return files
}

// packageYAML splits a package.yaml stream into its Provider meta and its
// CRDs, failing on anything else.
func packageYAML(t *testing.T, f file) (pkgmetav1.Provider, map[string]apiextensionsv1.CustomResourceDefinition) {
	t.Helper()
	var meta pkgmetav1.Provider
	crds := map[string]apiextensionsv1.CustomResourceDefinition{}
	metas := 0
	for _, doc := range yamlDocs(t, bytes.NewReader(f.content)) {
		var u unstructured.Unstructured
		if err := yaml.Unmarshal(doc, &u.Object); err != nil {
			t.Fatalf("cannot parse %s: %v", packageFile, err)
		}
		switch u.GroupVersionKind().GroupKind().String() {
		case "Provider.meta.pkg.crossplane.io":
			metas++
			mustUnmarshal(t, doc, &meta)
		case "CustomResourceDefinition.apiextensions.k8s.io":
			var crd apiextensionsv1.CustomResourceDefinition
			mustUnmarshal(t, doc, &crd)
			crds[crd.GetName()] = crd
		default:
			t.Errorf("%s holds an unexpected %s %s", packageFile, u.GroupVersionKind(), u.GetName())
		}
	}
	if metas != 1 {
		t.Fatalf("%s holds %d Provider metas, want 1", packageFile, metas)
	}
	return meta, crds
}

// objectNames returns kind/namespace/name of every object in a YAML stream.
func objectNames(t *testing.T, r io.Reader) []string {
	t.Helper()
	var names []string
	for _, doc := range yamlDocs(t, r) {
		var u unstructured.Unstructured
		if err := yaml.Unmarshal(doc, &u.Object); err != nil {
			t.Fatalf("cannot parse an example: %v", err)
		}
		if len(u.Object) == 0 {
			continue
		}
		names = append(names, u.GroupVersionKind().Kind+"/"+u.GetNamespace()+"/"+u.GetName())
	}
	return names
}

// yamlDocs splits a YAML stream into its non-empty documents.
func yamlDocs(t *testing.T, r io.Reader) [][]byte {
	t.Helper()
	yr := utilyaml.NewYAMLReader(bufio.NewReader(r))
	var docs [][]byte
	for {
		doc, err := yr.Read()
		if errors.Is(err, io.EOF) {
			return docs
		}
		if err != nil {
			t.Fatalf("cannot split a YAML stream: %v", err)
		}
		if len(bytes.TrimSpace(doc)) > 0 {
			docs = append(docs, doc)
		}
	}
}

// readYAML reads the one object in path into out.
func readYAML(t *testing.T, path string, out any) {
	t.Helper()
	data, err := os.ReadFile(path) //nolint:gosec // test input from the repository.
	if err != nil {
		t.Fatal(err)
	}
	mustUnmarshal(t, data, out)
}

func mustUnmarshal(t *testing.T, data []byte, out any) {
	t.Helper()
	if err := yaml.UnmarshalStrict(data, out); err != nil {
		t.Fatalf("cannot decode %T: %v", out, err)
	}
}

// checkProviderBinary checks that content is a statically linked linux
// executable of this module's provider, built without cgo and with the
// version ldflags.
func checkProviderBinary(content []byte) error {
	bi, err := buildinfo.Read(bytes.NewReader(content))
	if err != nil {
		return fmt.Errorf("not a Go binary: %w", err)
	}
	if bi.Path != "github.com/simplyblock/provider-simplyblock/cmd/provider" {
		return fmt.Errorf("the binary is %s, not cmd/provider", bi.Path)
	}
	settings := map[string]string{}
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	if settings["CGO_ENABLED"] != "0" || settings["GOOS"] != "linux" {
		return fmt.Errorf("built with CGO_ENABLED=%q GOOS=%q, want 0 and linux", settings["CGO_ENABLED"], settings["GOOS"])
	}
	if settings["-trimpath"] != "true" {
		return errors.New("built without -trimpath")
	}
	// -trimpath keeps -ldflags out of the build info: look for the version itself.
	if !bytes.Contains(content, []byte(testVersion)) {
		return fmt.Errorf("the binary does not contain the version %s set with -ldflags -X %s", testVersion, versionLDFlagName)
	}
	ef, err := elf.NewFile(bytes.NewReader(content))
	if err != nil {
		return fmt.Errorf("not an ELF binary: %w", err)
	}
	for _, p := range ef.Progs {
		if p.Type == elf.PT_INTERP {
			return errors.New("dynamically linked (it has an ELF interpreter); distroless/static and an empty base have no libc")
		}
	}
	return nil
}

// equals checks that content is want.
func equals(want string) func([]byte) error {
	return func(content []byte) error {
		if diff := cmp.Diff(want, string(content)); diff != "" {
			return fmt.Errorf("content: -want, +got:\n%s", diff)
		}
		return nil
	}
}

// contains checks that content contains want.
func contains(want string) func([]byte) error {
	return func(content []byte) error {
		if !bytes.Contains(content, []byte(want)) {
			return fmt.Errorf("content %q does not contain %q", content, want)
		}
		return nil
	}
}
