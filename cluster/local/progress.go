package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
)

// watchedKinds are the managed-resource kinds the progress view shows in
// its first table; ClusterOps have a table of their own.
var watchedKinds = []string{"StorageCluster", "StorageNode", "StoragePool"}

const group, version = "simplyblock.m.crossplane.io", "v1alpha1"

// messageWidth is where the MESSAGE columns are cut.
const messageWidth = 90

type row struct {
	kind, name, ready, synced, status, externalName, message string
}

// An opRow is one ClusterOps in the progress view.
type opRow struct {
	name, opType, phase, reason, queue, progress, message string
}

// A view is what the progress display shows: the managed resources and the
// cluster operations of the demo namespace.
type view struct {
	resources  []row
	operations []opRow
}

func (v view) operation(name string) (opRow, bool) {
	for _, o := range v.operations {
		if o.name == name {
			return o, true
		}
	}
	return opRow{}, false
}

// A condition says whether a wait is over. It returns done, or what it
// still waits for, or an error that ends the wait (an operation failed).
type condition func(v view) (done bool, waitingFor string, err error)

// progress prints the view each time it changes, across the demo's waits.
type progress struct {
	kube      client.Client
	namespace string
	start     time.Time
	last      string
	current   view
}

func newProgress(kube client.Client, namespace string, start time.Time) *progress {
	return &progress{kube: kube, namespace: namespace, start: start}
}

// wait refreshes the view every half second, printing it when it changed,
// until cond is done, cond fails, timeout passes or ctx ends.
func (p *progress) wait(ctx context.Context, timeout time.Duration, cond condition) error {
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		v, err := listView(ctx, p.kube, p.namespace)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return err
		}
		p.current = v
		if table := render(v); table != p.last {
			fmt.Printf("\n[%6s]\n%s", p.elapsed(), table)
			p.last = table
		}
		done, waitingFor, err := cond(v)
		if err != nil || done {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out after %s; still waiting for %s", timeout, waitingFor)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

func (p *progress) elapsed() time.Duration { return time.Since(p.start).Round(time.Second) }

// operationsSucceeded waits until every named ClusterOps is Succeeded and
// fails as soon as one of them is Failed.
func operationsSucceeded(names ...string) condition {
	return func(v view) (bool, string, error) {
		for _, name := range names {
			o, ok := v.operation(name)
			switch {
			case !ok:
				return false, fmt.Sprintf("ClusterOps %s to appear", name), nil
			case o.phase == string(v1alpha1.OperationFailed):
				return false, "", operationFailed(o)
			case o.phase != string(v1alpha1.OperationSucceeded):
				return false, describeOp(o), nil
			}
		}
		return true, "", nil
	}
}

// everythingReady waits until every managed resource is Ready and every
// ClusterOps Succeeded; it fails as soon as a ClusterOps is Failed.
func everythingReady(v view) (bool, string, error) {
	if len(v.resources) == 0 {
		return false, "the managed resources to appear", nil
	}
	for _, o := range v.operations {
		if o.phase == string(v1alpha1.OperationFailed) {
			return false, "", operationFailed(o)
		}
	}
	for _, r := range v.resources {
		if r.ready != "True" {
			return false, fmt.Sprintf("%s %s to become Ready (%s)", r.kind, r.name, r.message), nil
		}
	}
	for _, o := range v.operations {
		if o.phase != string(v1alpha1.OperationSucceeded) {
			return false, describeOp(o), nil
		}
	}
	return true, "", nil
}

// An operationError is a ClusterOps that ended Failed.
type operationError struct{ op opRow }

func (e *operationError) Error() string {
	return fmt.Sprintf("ClusterOps %s (%s) Failed with reason %s: %s", e.op.name, e.op.opType, e.op.reason, e.op.message)
}

func operationFailed(o opRow) error { return &operationError{op: o} }

func describeOp(o opRow) string {
	phase := o.phase
	if phase == "" {
		phase = "not yet picked up by the provider"
	}
	s := fmt.Sprintf("ClusterOps %s to succeed; it is %s", o.name, phase)
	if o.reason != "" {
		s += " (" + o.reason + ")"
	}
	if o.message != "" {
		s += ": " + o.message
	}
	return s
}

func listView(ctx context.Context, kube client.Client, namespace string) (view, error) {
	var v view
	for _, kind := range watchedKinds {
		l := &unstructured.UnstructuredList{}
		l.SetGroupVersionKind(schema.GroupVersionKind{Group: group, Version: version, Kind: kind + "List"})
		if err := kube.List(ctx, l, client.InNamespace(namespace)); err != nil {
			return view{}, fmt.Errorf("cannot list %s: %w", kind, err)
		}
		for i := range l.Items {
			v.resources = append(v.resources, toRow(kind, &l.Items[i]))
		}
	}
	ops := &v1alpha1.ClusterOpsList{}
	if err := kube.List(ctx, ops, client.InNamespace(namespace)); err != nil {
		return view{}, fmt.Errorf("cannot list ClusterOps: %w", err)
	}
	for i := range ops.Items {
		v.operations = append(v.operations, toOpRow(&ops.Items[i]))
	}
	return v, nil
}

func toRow(kind string, u *unstructured.Unstructured) row {
	r := row{kind: kind, name: u.GetName(), ready: "-", synced: "-"}
	r.externalName = u.GetAnnotations()["crossplane.io/external-name"]
	r.status, _, _ = unstructured.NestedString(u.Object, "status", "atProvider", "status")
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		m, ok := c.(map[string]any)
		if !ok {
			continue
		}
		status, _ := m["status"].(string)
		msg, _ := m["message"].(string)
		reason, _ := m["reason"].(string)
		switch m["type"] {
		case "Ready":
			r.ready = status
			if status != "True" && msg == "" {
				msg = reason
			}
		case "Synced":
			r.synced = status
		}
		if status != "True" && msg != "" && r.message == "" {
			r.message = msg
		}
	}
	return r
}

func toOpRow(cr *v1alpha1.ClusterOps) opRow {
	st := cr.Status.AtProvider.OperationStatus
	o := opRow{
		name: cr.GetName(), opType: string(cr.Spec.ForProvider.Type),
		phase: string(st.Phase), reason: st.Reason, message: st.Message,
		queue: "-", progress: "-",
	}
	if st.QueuePosition != nil {
		o.queue = strconv.FormatInt(*st.QueuePosition, 10)
	}
	if p := st.Progress; p != nil {
		o.progress = fmt.Sprintf("%d/%d", p.Done, p.Total)
		if p.Current != "" {
			o.progress += " " + p.Current
		}
	}
	// Before the engine writes a phase (for example while the cluster
	// reference does not resolve yet) the Synced condition says why.
	if o.phase == "" {
		o.phase = "-"
		for _, c := range cr.Status.Conditions {
			if c.Status != "True" && c.Message != "" {
				o.reason, o.message = string(c.Reason), c.Message
				break
			}
		}
	}
	return o
}

func render(v view) string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "KIND\tNAME\tREADY\tSYNCED\tSTATUS\tEXTERNAL-NAME\tMESSAGE")
	for _, r := range v.resources {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.kind, r.name, r.ready, r.synced, r.status, r.externalName, truncate(r.message, messageWidth))
	}
	_ = w.Flush()
	if len(v.operations) > 0 {
		b.WriteString("\n")
		w = tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "CLUSTEROPS\tTYPE\tPHASE\tREASON\tQUEUE\tPROGRESS\tMESSAGE")
		for _, o := range v.operations {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", o.name, o.opType, o.phase, o.reason, o.queue, o.progress, truncate(o.message, messageWidth))
		}
		_ = w.Flush()
	}
	return b.String()
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
