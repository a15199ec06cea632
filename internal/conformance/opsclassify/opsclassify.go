// Package opsclassify adapts the provider's reading of a log entry
// (internal/ops.ParseLogEntry) to a conformance.Classifier. It is its own
// package because internal/ops imports internal/providerconfig, which
// imports internal/conformance.
package opsclassify

import (
	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/conformance"
	"github.com/simplyblock/provider-simplyblock/internal/ops"
)

var _ conformance.Classifier = Classify

// Classify returns what the provider reads e as: a status change of the
// cluster or of node NodeId, from and to which status, or "" for anything
// else.
func Classify(e sb.ClusterLogEntry) (subject, from, to string) {
	ev, ok := ops.ParseLogEntry(e)
	if !ok {
		return "", "", ""
	}
	switch ev.Subject {
	case ops.SubjectCluster:
		return conformance.SubjectCluster, ev.From, ev.To
	case ops.SubjectNode:
		return conformance.SubjectNode, ev.From, ev.To
	}
	return "", "", ""
}
