package main

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	kerrors "k8s.io/apimachinery/pkg/api/errors"
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

// A compositeRow is the XR in the progress view (composite mode): its
// conditions and the status fields `kubectl get` prints for it.
type compositeRow struct {
	kind, name, ready, synced, cluster, nodesReady, operation, last, message string
}

// A view is what the progress display shows: the XR (composite mode), the
// managed resources and the cluster operations of the demo namespace.
type view struct {
	composite  *compositeRow
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
	// composite is the XR shown above the tables; nil outside composite
	// mode.
	composite *unstructured.Unstructured
	start     time.Time
	last      string
	current   view
}

func newProgress(kube client.Client, namespace string, start time.Time) *progress {
	return &progress{kube: kube, namespace: namespace, start: start}
}

// showComposite adds a line for the XR (its apiVersion, kind, namespace
// and name are read from xr) above the tables.
func (p *progress) showComposite(xr *unstructured.Unstructured) *progress {
	p.composite = xr
	return p
}

// wait refreshes the view every half second, printing it when it changed,
// until cond is done, cond fails, timeout passes or ctx ends.
func (p *progress) wait(ctx context.Context, timeout time.Duration, cond condition) error {
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		v, err := p.list(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return err
		}
		p.current = v
		if table := render(v); table != p.last {
			out.Table(fmt.Sprintf("\n[%6s]\n%s", p.elapsed(), table))
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

// allOf is done once every one of conds is; it fails as soon as one fails.
func allOf(conds ...condition) condition {
	return func(v view) (bool, string, error) {
		for _, cond := range conds {
			done, waitingFor, err := cond(v)
			if err != nil || !done {
				return false, waitingFor, err
			}
		}
		return true, "", nil
	}
}

// compositeReady waits until the XR is Ready with the given number of
// ready nodes in its status.
func compositeReady(nodes int) condition {
	return func(v view) (bool, string, error) {
		x := v.composite
		switch {
		case x == nil:
			return false, "the composite resource to appear", nil
		case x.ready != "True":
			return false, fmt.Sprintf("%s %s to become Ready (%s)", x.kind, x.name, x.message), nil
		case x.nodesReady != strconv.Itoa(nodes):
			return false, fmt.Sprintf("%s %s to report %d ready nodes (it reports %s)", x.kind, x.name, nodes, x.nodesReady), nil
		}
		return true, "", nil
	}
}

// operationComposed waits until a ClusterOps whose name starts with prefix
// exists and then until it Succeeded (see operationsSucceeded): the name of
// a composed Expand ends in a hash of the nodes it expands.
func operationComposed(prefix string) condition {
	return func(v view) (bool, string, error) {
		i := slices.IndexFunc(v.operations, func(o opRow) bool { return strings.HasPrefix(o.name, prefix) })
		if i < 0 {
			return false, fmt.Sprintf("a ClusterOps %s... to be composed", prefix), nil
		}
		return operationsSucceeded(v.operations[i].name)(v)
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
		if strings.HasPrefix(r.status, "in_") {
			// A status read while the backend was still busy (an automatic
			// expansion, say) is refreshed at the resource's next poll.
			return false, fmt.Sprintf("%s %s to settle (%s)", r.kind, r.name, r.status), nil
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

// list reads the view: the XR (when shown), every watched kind and the
// ClusterOps of the namespace.
func (p *progress) list(ctx context.Context) (view, error) {
	var v view
	if p.composite != nil {
		x := &unstructured.Unstructured{}
		x.SetGroupVersionKind(p.composite.GroupVersionKind())
		err := p.kube.Get(ctx, client.ObjectKeyFromObject(p.composite), x)
		switch {
		case err == nil:
			v.composite = toCompositeRow(x)
		case !kerrors.IsNotFound(err):
			return view{}, fmt.Errorf("cannot get %s %s: %w", p.composite.GetKind(), p.composite.GetName(), err)
		}
	}
	for _, kind := range watchedKinds {
		l := &unstructured.UnstructuredList{}
		l.SetGroupVersionKind(schema.GroupVersionKind{Group: group, Version: version, Kind: kind + "List"})
		if err := p.kube.List(ctx, l, client.InNamespace(p.namespace)); err != nil {
			return view{}, fmt.Errorf("cannot list %s: %w", kind, err)
		}
		for i := range l.Items {
			v.resources = append(v.resources, toRow(kind, &l.Items[i]))
		}
	}
	ops := &v1alpha1.ClusterOpsList{}
	if err := p.kube.List(ctx, ops, client.InNamespace(p.namespace)); err != nil {
		return view{}, fmt.Errorf("cannot list ClusterOps: %w", err)
	}
	for i := range ops.Items {
		v.operations = append(v.operations, toOpRow(&ops.Items[i]))
	}
	v.nameNodes()
	return v, nil
}

// nameNodes replaces the backend UUIDs of the StorageNodes (their external
// names) by the StorageNodes' names in the messages and progress of the
// view: "node demo-node-2 is online" rather than "node 3f2a... is online".
func (v *view) nameNodes() {
	var pairs []string
	for _, r := range v.resources {
		if r.kind == "StorageNode" && r.externalName != "" {
			pairs = append(pairs, r.externalName, r.name)
		}
	}
	if len(pairs) == 0 {
		return
	}
	names := strings.NewReplacer(pairs...)
	if v.composite != nil {
		v.composite.message = names.Replace(v.composite.message)
	}
	for i := range v.resources {
		v.resources[i].message = names.Replace(v.resources[i].message)
	}
	for i := range v.operations {
		v.operations[i].message = names.Replace(v.operations[i].message)
		v.operations[i].progress = names.Replace(v.operations[i].progress)
	}
}

func toRow(kind string, u *unstructured.Unstructured) row {
	r := row{kind: kind, name: u.GetName()}
	r.externalName = u.GetAnnotations()["crossplane.io/external-name"]
	r.status, _, _ = unstructured.NestedString(u.Object, "status", "atProvider", "status")
	r.ready, r.synced, r.message = conditions(u)
	return r
}

func toCompositeRow(u *unstructured.Unstructured) *compositeRow {
	x := &compositeRow{kind: u.GetKind(), name: u.GetName()}
	x.ready, x.synced, x.message = conditions(u)
	str := func(path ...string) string {
		v, ok, _ := unstructured.NestedFieldNoCopy(u.Object, path...)
		if !ok || v == nil || v == "" {
			return "-"
		}
		return fmt.Sprint(v)
	}
	x.cluster = str("status", "cluster", "status")
	x.nodesReady = str("status", "nodes", "ready")
	x.operation = str("status", "activeOperation", "name")
	x.last = str("status", "lastOperation", "phase")
	return x
}

// conditions returns the status of an object's Ready and Synced conditions
// ("-" when it has none) and the first message of a condition that is not
// True (the reason of a Ready condition without a message).
func conditions(u *unstructured.Unstructured) (ready, synced, message string) {
	ready, synced = "-", "-"
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
			ready = status
			if status != "True" && msg == "" {
				msg = reason
			}
		case "Synced":
			synced = status
		}
		if status != "True" && msg != "" && message == "" {
			message = msg
		}
	}
	return ready, synced, message
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
	if x := v.composite; x != nil {
		w := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, strings.ToUpper(x.kind)+"\tREADY\tSYNCED\tCLUSTER\tNODES\tOPERATION\tLAST\tMESSAGE")
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", x.name, x.ready, x.synced, x.cluster, x.nodesReady, x.operation, x.last, truncate(x.message, messageWidth))
		_ = w.Flush()
		b.WriteString("\n")
	}
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
