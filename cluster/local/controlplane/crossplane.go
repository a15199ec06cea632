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

package controlplane

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	pkgv1 "github.com/crossplane/crossplane/apis/v2/pkg/v1"
)

// The composition functions the Compositions of examples/composition use,
// and the operation function of examples/scheduled.
const (
	FunctionPatchAndTransform = "function-patch-and-transform"
	FunctionStorageCluster    = "function-storagecluster"
	FunctionScheduledOps      = "function-scheduled-ops"
)

// functionCapabilities are the capabilities a function's package declares,
// where they are not composition (the default of a package that declares
// none).
var functionCapabilities = map[string][]string{
	FunctionScheduledOps: {"operation"},
}

const (
	// systemNamespace is the namespace Crossplane core works in.
	systemNamespace = "crossplane-system"
	// startTimeout bounds how long a process may take to listen.
	startTimeout = 60 * time.Second
	// revisionSuffix names the FunctionRevision standing in for a package.
	revisionSuffix = "-local"
)

// CrossplaneOptions say where Crossplane's parts are and where they work.
type CrossplaneOptions struct {
	// Tools is the folder hack/crossplane-tools.sh prints: crossplane-core,
	// function-patch-and-transform and crossplane-crds/.
	Tools string
	// FunctionStorageCluster is the binary of cmd/function-storagecluster.
	FunctionStorageCluster string
	// FunctionScheduledOps is the binary of cmd/function-scheduled-ops;
	// when empty it is not started. Core runs it only with
	// --enable-operations in CoreArgs.
	FunctionScheduledOps string
	// Kubeconfig is the kubeconfig file core uses.
	Kubeconfig string
	// WorkDir holds the certificates, core's package cache and the logs
	// (core.log, function-*.log).
	WorkDir string
	// CoreArgs are extra flags of `crossplane core start`.
	CoreArgs []string
	// Registries are the registries of the Function objects' packages (e.g.
	// xpkg.crossplane.io/): an ImageConfig sends the package manager's pulls
	// from them to a loopback address where nothing listens, so that it
	// fails at once and nothing leaves the machine.
	Registries []string
}

// unreachableRegistry is where the package manager's pulls go: a loopback
// address (the discard port) with nothing listening.
const unreachableRegistry = "127.0.0.1:9/"

// Crossplane is Crossplane core and the composition functions, each a local
// process.
type Crossplane struct {
	opts        CrossplaneOptions
	kube        client.Client
	clientCerts string
	serverCerts string

	// Core is the running core process; StartCore replaces it.
	Core *Process
	// Functions are the function processes by function name.
	Functions map[string]*Process
}

// StartCrossplane installs Crossplane's CRDs and namespace, starts the
// functions serving mTLS on free ports and registers them (see
// RegisterFunction), then starts core.
func StartCrossplane(ctx context.Context, cfg *rest.Config, opts CrossplaneOptions) (*Crossplane, error) {
	if err := os.MkdirAll(opts.WorkDir, 0o750); err != nil {
		return nil, err
	}
	if _, err := envtest.InstallCRDs(cfg, envtest.CRDInstallOptions{
		Paths: []string{filepath.Join(opts.Tools, "crossplane-crds")}, ErrorIfPathMissing: true,
	}); err != nil {
		return nil, fmt.Errorf("cannot install Crossplane's CRDs: %w", err)
	}
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, err
	}
	if err := pkgv1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	kube, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, err
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: systemNamespace}}
	if err := kube.Create(ctx, ns); err != nil && !kerrors.IsAlreadyExists(err) {
		return nil, fmt.Errorf("cannot create namespace %s: %w", systemNamespace, err)
	}
	if err := createImageConfig(ctx, kube, opts.Registries); err != nil {
		return nil, err
	}
	c := &Crossplane{opts: opts, kube: kube, Functions: map[string]*Process{}}
	if c.clientCerts, c.serverCerts, err = writeMTLSCertificates(filepath.Join(opts.WorkDir, "certs")); err != nil {
		return nil, fmt.Errorf("cannot write mTLS certificates: %w", err)
	}
	functions := map[string]string{
		FunctionPatchAndTransform: filepath.Join(opts.Tools, "function-patch-and-transform"),
		FunctionStorageCluster:    opts.FunctionStorageCluster,
	}
	if opts.FunctionScheduledOps != "" {
		functions[FunctionScheduledOps] = opts.FunctionScheduledOps
	}
	for name, binary := range functions {
		if err := c.startFunction(ctx, name, binary); err != nil {
			c.Stop()
			return nil, err
		}
	}
	if err := c.StartCore(); err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

// PackageRegistries returns the registries (e.g. "xpkg.crossplane.io/") of
// the packages of the Function objects among objs, for
// CrossplaneOptions.Registries.
func PackageRegistries(objs []*unstructured.Unstructured) []string {
	var out []string
	for _, u := range objs {
		if u.GetKind() != "Function" {
			continue
		}
		pkg, _, _ := unstructured.NestedString(u.Object, "spec", "package")
		if host, _, ok := strings.Cut(pkg, "/"); ok && !slices.Contains(out, host+"/") {
			out = append(out, host+"/")
		}
	}
	return out
}

// createImageConfig rewrites packages from the given registries to
// unreachableRegistry.
func createImageConfig(ctx context.Context, kube client.Client, registries []string) error {
	if len(registries) == 0 {
		return nil
	}
	match := make([]any, 0, len(registries))
	for _, r := range registries {
		match = append(match, map[string]any{"prefix": r})
	}
	ic := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "pkg.crossplane.io/v1beta1", "kind": "ImageConfig",
		"metadata": map[string]any{"name": "local-no-registry"},
		"spec": map[string]any{
			"matchImages":  match,
			"rewriteImage": map[string]any{"prefix": unreachableRegistry},
		},
	}}
	if err := kube.Create(ctx, ic); err != nil && !kerrors.IsAlreadyExists(err) {
		return fmt.Errorf("cannot create ImageConfig %s: %w", ic.GetName(), err)
	}
	return nil
}

// startFunction runs one function on a free port and registers it.
func (c *Crossplane) startFunction(ctx context.Context, name, binary string) error {
	port, err := FreePort()
	if err != nil {
		return err
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	// Every function reads its certificates' folder from this variable
	// (their flags for it are named differently).
	p, err := StartProcess(name, c.opts.WorkDir, binary, []string{"--address=" + addr},
		[]string{"TLS_SERVER_CERTS_DIR=" + c.serverCerts})
	if err != nil {
		return err
	}
	c.Functions[name] = p
	if err := waitListening(p, addr, startTimeout); err != nil {
		return err
	}
	return RegisterFunction(ctx, c.kube, name, addr, functionCapabilities[name]...)
}

// RegisterFunction stands in for the package manager: it creates (or
// updates) an active FunctionRevision of the named Function whose status
// carries endpoint, the address core calls, and the capabilities of the
// function's package (composition when none are given). The revision is
// paused, so the package manager leaves it alone; the Function object itself
// is the user's (examples/composition/functions.yaml,
// examples/scheduled/function.yaml).
func RegisterFunction(ctx context.Context, kube client.Client, name, endpoint string, capabilities ...string) error {
	rev := &pkgv1.FunctionRevision{ObjectMeta: metav1.ObjectMeta{Name: name + revisionSuffix}}
	err := kube.Get(ctx, client.ObjectKeyFromObject(rev), rev)
	switch {
	case kerrors.IsNotFound(err):
		rev = &pkgv1.FunctionRevision{
			ObjectMeta: metav1.ObjectMeta{
				Name:        name + revisionSuffix,
				Labels:      map[string]string{pkgv1.LabelParentPackage: name},
				Annotations: map[string]string{"crossplane.io/paused": "true"},
			},
			Spec: pkgv1.FunctionRevisionSpec{PackageRevisionSpec: pkgv1.PackageRevisionSpec{
				DesiredState: pkgv1.PackageRevisionActive,
				Package:      "local/" + name,
				Revision:     1,
			}},
		}
		if err := kube.Create(ctx, rev); err != nil {
			return fmt.Errorf("cannot create FunctionRevision %s: %w", rev.GetName(), err)
		}
	case err != nil:
		return fmt.Errorf("cannot get FunctionRevision %s: %w", rev.GetName(), err)
	}
	rev.Status.Endpoint = endpoint
	if len(capabilities) == 0 {
		capabilities = []string{"composition"}
	}
	rev.Status.Capabilities = capabilities
	if err := kube.Status().Update(ctx, rev); err != nil {
		return fmt.Errorf("cannot set the endpoint of FunctionRevision %s: %w", rev.GetName(), err)
	}
	return nil
}

// StartCore starts Crossplane core (again, after KillCore or StopCore): out
// of cluster with the given kubeconfig, mTLS client certificates for the
// functions, webhooks off (the Usage webhook needs serving certificates) and
// its metrics and health ports moved off 8080/8081, which the provider uses.
// It returns once core serves its health endpoint.
func (c *Crossplane) StartCore() error {
	metrics, err := FreePort()
	if err != nil {
		return err
	}
	health, err := FreePort()
	if err != nil {
		return err
	}
	args := append([]string{"core", "start", "--cache-dir=" + filepath.Join(c.opts.WorkDir, "xpkg-cache")}, c.opts.CoreArgs...)
	p, err := StartProcess("core", c.opts.WorkDir, filepath.Join(c.opts.Tools, "crossplane-core"), args, []string{
		"KUBECONFIG=" + c.opts.Kubeconfig,
		"TLS_CLIENT_CERTS_DIR=" + c.clientCerts,
		"ENABLE_WEBHOOKS=false",
		"METRICS_PORT=" + strconv.Itoa(metrics),
		"HEALTH_PROBE_PORT=" + strconv.Itoa(health),
	})
	if err != nil {
		return err
	}
	c.Core = p
	return waitListening(p, "127.0.0.1:"+strconv.Itoa(health), startTimeout)
}

// KillCore SIGKILLs core, as a crash would.
func (c *Crossplane) KillCore() {
	if c.Core != nil {
		c.Core.Kill()
	}
}

// StopCore stops core gracefully.
func (c *Crossplane) StopCore() {
	if c.Core != nil {
		c.Core.Stop()
	}
}

// Stop stops core and the functions.
func (c *Crossplane) Stop() {
	c.StopCore()
	for _, p := range c.Functions {
		p.Stop()
	}
}

// Logs lists the log files of core and the functions.
func (c *Crossplane) Logs() []string {
	var out []string
	if c.Core != nil {
		out = append(out, c.Core.Log)
	}
	for _, p := range c.Functions {
		out = append(out, p.Log)
	}
	return out
}
