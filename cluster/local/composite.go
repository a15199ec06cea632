package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apisv1alpha1 "github.com/simplyblock/provider-simplyblock/apis/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/cluster/local/controlplane"
)

// compositeNamespace is where the XR of xr.yaml lives, with the
// ProviderConfig it names and everything composed for it.
const compositeNamespace = "storage"

// compositeAPIFiles make up the composite API of examples/composition, in
// the order they are applied: the Function objects, both XRDs and both
// Compositions.
var compositeAPIFiles = []string{"functions.yaml", "xrd.yaml", "xrd-legacy.yaml", "composition.yaml", "composition-legacy.yaml"}

// The XR of the composite mode, then the same XR with more nodes.
const xrFile, xrExpandedFile = "xr.yaml", "xr-expanded.yaml"

// coreLogs are the log files StartCrossplane and StartGarbageCollector
// append to, written anew by each demo.
var coreLogs = []string{"core", controlplane.FunctionPatchAndTransform, controlplane.FunctionStorageCluster, "kube-controller-manager"}

// compositeFiles are the files of the composite mode, read before anything
// starts.
type compositeFiles struct {
	api []manifest
	// xr is the XR of xrFile; nodes and moreNodes are the spec.nodes of
	// xrFile and xrExpandedFile.
	xr               *unstructured.Unstructured
	nodes, moreNodes []any
}

func loadCompositeFiles(dir string) (compositeFiles, error) {
	var f compositeFiles
	for _, name := range compositeAPIFiles {
		m, err := loadManifest(filepath.Join(dir, name))
		if err != nil {
			return f, err
		}
		f.api = append(f.api, m)
	}
	var err error
	if f.xr, f.nodes, err = loadNodes(filepath.Join(dir, xrFile)); err != nil {
		return f, err
	}
	_, f.moreNodes, err = loadNodes(filepath.Join(dir, xrExpandedFile))
	return f, err
}

// loadNodes reads a file holding one XR and returns it and its spec.nodes.
func loadNodes(file string) (*unstructured.Unstructured, []any, error) {
	xr, err := loadOne(file)
	if err != nil {
		return nil, nil, err
	}
	nodes, found, err := unstructured.NestedSlice(xr.Object, "spec", "nodes")
	if err != nil || !found {
		return nil, nil, fmt.Errorf("%s: no spec.nodes list (%v)", file, err)
	}
	return xr, nodes, nil
}

// runComposite is the demo with -composite: Crossplane core and the two
// composition functions run next to the provider, and an XStorageCluster is
// created with three nodes and then grown to five.
func runComposite(ctx context.Context, o options, stops *cleanup) error {
	if o.crossplaneTools == "" {
		return errors.New("-composite needs -crossplane-tools, the folder printed by bash hack/crossplane-tools.sh")
	}
	if _, err := os.Stat(filepath.Join(o.crossplaneTools, "crossplane-core")); err != nil {
		return fmt.Errorf("-crossplane-tools: %w (it is the folder printed by bash hack/crossplane-tools.sh)", err)
	}
	files, err := loadCompositeFiles(o.compositionDir)
	if err != nil {
		return err
	}
	function := filepath.Join(o.workDir, controlplane.FunctionStorageCluster)
	step("Building %s", controlplane.FunctionStorageCluster)
	if err := goBuild(ctx, function, "./cmd/function-storagecluster"); err != nil {
		return err
	}

	d, err := startDemo(o, stops)
	if err != nil {
		return err
	}
	var apiObjects []*unstructured.Unstructured
	for _, m := range files.api {
		apiObjects = append(apiObjects, m.objs...)
	}
	logs, err := startCrossplane(ctx, d, function, controlplane.PackageRegistries(apiObjects), stops)
	if err != nil {
		return err
	}
	if err := applyCompositeAPI(ctx, d.kube, files.api, o.timeout); err != nil {
		return fmt.Errorf("%w (logs: %s)", err, strings.Join(logs, ", "))
	}
	step("Installing the namespace %s, credentials Secret and ProviderConfig default", compositeNamespace)
	if err := installNamespacedProviderConfig(ctx, d.kube, compositeNamespace, d.sim.URL()); err != nil {
		return err
	}

	xr := files.xr
	xr.SetNamespace(compositeNamespace)
	step("Creating %s %s/%s (%s, %d nodes)", xr.GetKind(), compositeNamespace, xr.GetName(), xrFile, len(files.nodes))
	if err := createComposite(ctx, d.kube, xr, o.timeout); err != nil {
		return err
	}
	view := newProgress(d.kube, compositeNamespace, d.start).showComposite(xr)
	activate := xr.GetName() + "-activate"
	step("Waiting for %s %s to be Ready and ClusterOps %s to succeed", xr.GetKind(), xr.GetName(), activate)
	if err := view.wait(ctx, o.timeout, allOf(compositeReady(len(files.nodes)), operationsSucceeded(activate))); err != nil {
		return waitFailed(err, d.providerLog, logs)
	}
	out.Printf("\n%s %s is Ready and ClusterOps %s succeeded after %s.\n", xr.GetKind(), xr.GetName(), activate, view.elapsed())

	step("Updating %s %s: spec.nodes of %s (%d nodes)", xr.GetKind(), xr.GetName(), xrExpandedFile, len(files.moreNodes))
	if err := setNodes(ctx, d.kube, xr, files.moreNodes); err != nil {
		return err
	}
	expand := xr.GetName() + "-expand-"
	step("Waiting for the composed Expand (ClusterOps %s...) to succeed and %s %s to be Ready with %d nodes",
		expand, xr.GetKind(), xr.GetName(), len(files.moreNodes))
	grown := allOf(operationComposed(expand), compositeReady(len(files.moreNodes)), everythingReady)
	if err := view.wait(ctx, o.timeout, grown); err != nil {
		return waitFailed(err, d.providerLog, logs)
	}

	summary := fmt.Sprintf("%s %s is Ready with %d nodes and every operation Succeeded", xr.GetKind(), xr.GetName(), len(files.moreNodes))
	return d.ready(ctx, summary, []string{
		"kubectl get xstorageclusters -n " + compositeNamespace,
		"kubectl get managed -n " + compositeNamespace,
		"kubectl get clusterops -n " + compositeNamespace + " -o wide",
	}, logs)
}

// startCrossplane starts the garbage collector, the provider, Crossplane
// core and the functions (pulls from registries go nowhere), adding their
// stops to stops, and returns the paths of every log.
func startCrossplane(ctx context.Context, d *demo, function string, registries []string, stops *cleanup) ([]string, error) {
	for _, name := range coreLogs {
		if err := os.Remove(filepath.Join(d.opts.workDir, name+".log")); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
	}
	logs := []string{d.providerLog, filepath.Join(d.opts.workDir, "simulator.log")}
	if gc := startGarbageCollector(d, stops); gc != nil {
		logs = append(logs, gc.Log)
	}
	if err := d.startProvider(stops); err != nil {
		return nil, err
	}
	step("Starting Crossplane core and the composition functions (from %s)", d.opts.crossplaneTools)
	xp, err := controlplane.StartCrossplane(ctx, d.cfg, controlplane.CrossplaneOptions{
		Tools:                  d.opts.crossplaneTools,
		FunctionStorageCluster: function,
		Kubeconfig:             d.kubeconfig,
		WorkDir:                d.opts.workDir,
		Registries:             registries,
	})
	if err != nil {
		return nil, fmt.Errorf("cannot start Crossplane: %w", err)
	}
	stops.add(func() { step("Stopping Crossplane core and the composition functions"); xp.Stop() })
	return append(logs, xp.Logs()...), nil
}

// applyCompositeAPI creates the objects of the composite API's files as
// they are and waits for their XRDs to be Established.
func applyCompositeAPI(ctx context.Context, kube client.Client, api []manifest, timeout time.Duration) error {
	step("Applying the composite API (%s)", strings.Join(compositeAPIFiles, ", "))
	var xrds []*unstructured.Unstructured
	for _, m := range api {
		if err := createManifest(ctx, kube, m); err != nil {
			return err
		}
		for _, u := range m.objs {
			if u.GetKind() == "CompositeResourceDefinition" {
				xrds = append(xrds, u)
			}
		}
	}
	step("Waiting for the CompositeResourceDefinitions to be Established")
	for _, x := range xrds {
		if err := controlplane.WaitEstablished(ctx, kube, x, timeout); err != nil {
			return err
		}
		out.Printf("    %s is Established\n", x.GetName())
	}
	return nil
}

// loadOne reads a YAML file holding one object.
func loadOne(file string) (*unstructured.Unstructured, error) {
	m, err := loadManifest(file)
	if err != nil {
		return nil, err
	}
	if len(m.objs) != 1 {
		return nil, fmt.Errorf("%s holds %d objects, want 1", file, len(m.objs))
	}
	return m.objs[0], nil
}

// goBuild builds a package of this repository into out.
func goBuild(ctx context.Context, out, pkg string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, pkg) //nolint:gosec // fixed packages of this repository
	var b bytes.Buffer
	cmd.Stdout, cmd.Stderr = &b, &b
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("cannot build %s: %w\n%s", pkg, err, b.String())
	}
	return nil
}

// startGarbageCollector runs kube-controller-manager's garbage collector,
// which deletes what an XR composed once the XR is deleted. Without the
// binary (hack/envtest-binaries.sh provides it) the demo goes on without
// it and returns nil.
func startGarbageCollector(d *demo, stops *cleanup) *controlplane.Process {
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	if _, err := os.Stat(filepath.Join(assets, "kube-controller-manager")); err != nil {
		out.Printf("    no kube-controller-manager in KUBEBUILDER_ASSETS (%s): what a deleted XR composed is not deleted\n", assets)
		return nil
	}
	step("Starting kube-controller-manager's garbage collector")
	gc, err := controlplane.StartGarbageCollector(assets, d.kubeconfig, d.opts.workDir)
	if err != nil {
		out.Printf("    %v: what a deleted XR composed is not deleted\n", err)
		return nil
	}
	stops.add(gc.Stop)
	return gc
}

// createComposite creates the XR. Right after its XRD is Established the
// API server may not serve the XR's kind yet (or the client's discovery
// has not seen it): such a create is retried until timeout.
func createComposite(ctx context.Context, kube client.Client, xr *unstructured.Unstructured, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		err := kube.Create(ctx, xr.DeepCopy())
		if err == nil {
			return nil
		}
		notServedYet := meta.IsNoMatchError(err) || kerrors.IsNotFound(err)
		if !notServedYet || time.Now().After(deadline) {
			return fmt.Errorf("cannot create %s %s: %w", xr.GetKind(), xr.GetName(), err)
		}
		if err := sleep(ctx, time.Second); err != nil {
			return err
		}
	}
}

// setNodes replaces the spec.nodes of the existing XR, as a user editing
// it would (Crossplane writes to the XR too: a conflict is retried).
func setNodes(ctx context.Context, kube client.Client, xr *unstructured.Unstructured, nodes []any) error {
	err := retry.RetryOnConflict(retry.DefaultBackoff, func() error {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(xr.GroupVersionKind())
		if err := kube.Get(ctx, client.ObjectKeyFromObject(xr), u); err != nil {
			return err
		}
		if err := unstructured.SetNestedSlice(u.Object, nodes, "spec", "nodes"); err != nil {
			return err
		}
		return kube.Update(ctx, u)
	})
	if err != nil {
		return fmt.Errorf("cannot update %s %s: %w", xr.GetKind(), xr.GetName(), err)
	}
	return nil
}

// installNamespacedProviderConfig creates the namespace, the credentials
// Secret and the namespaced ProviderConfig named default, which reads the
// Secret from its own namespace.
func installNamespacedProviderConfig(ctx context.Context, kube client.Client, namespace, endpoint string) error {
	if err := createCredentials(ctx, kube, namespace); err != nil {
		return err
	}
	pc := &apisv1alpha1.ProviderConfig{
		ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: namespace},
		Spec:       providerConfigSpec(endpoint, ""),
	}
	if err := kube.Create(ctx, pc); err != nil {
		return fmt.Errorf("cannot create ProviderConfig: %w", err)
	}
	return nil
}

// sleep waits for d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
