package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// watchedKinds are the managed-resource kinds the progress view shows.
var watchedKinds = []string{"StorageCluster", "StorageNode", "StoragePool"}

const group, version = "simplyblock.m.crossplane.io", "v1alpha1"

type row struct {
	kind, name, ready, synced, status, externalName, message string
}

// watchUntilReady prints a table of the managed resources each time it
// changes, until every one is Ready=True.
func watchUntilReady(ctx context.Context, kube client.Client, namespace string) error {
	start := time.Now()
	last := ""
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		rows, err := listRows(ctx, kube, namespace)
		if err != nil {
			return err
		}
		table := render(rows)
		if table != last {
			fmt.Printf("\n[%6s]\n%s", time.Since(start).Round(time.Second), table)
			last = table
		}
		if allReady(rows) {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

func listRows(ctx context.Context, kube client.Client, namespace string) ([]row, error) {
	var rows []row
	for _, kind := range watchedKinds {
		l := &unstructured.UnstructuredList{}
		l.SetGroupVersionKind(schema.GroupVersionKind{Group: group, Version: version, Kind: kind + "List"})
		if err := kube.List(ctx, l, client.InNamespace(namespace)); err != nil {
			return nil, fmt.Errorf("cannot list %s: %w", kind, err)
		}
		for i := range l.Items {
			rows = append(rows, toRow(kind, &l.Items[i]))
		}
	}
	return rows, nil
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

func render(rows []row) string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "KIND\tNAME\tREADY\tSYNCED\tSTATUS\tEXTERNAL-NAME\tMESSAGE")
	for _, r := range rows {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.kind, r.name, r.ready, r.synced, r.status, r.externalName, truncate(r.message, 80))
	}
	_ = w.Flush()
	return b.String()
}

func allReady(rows []row) bool {
	if len(rows) == 0 {
		return false
	}
	for _, r := range rows {
		if r.ready != "True" {
			return false
		}
	}
	return true
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}
