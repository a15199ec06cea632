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
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// WaitEstablished waits until Crossplane core serves the XR of a
// CompositeResourceDefinition: the XRD is Established and, when it offers a
// claim, Offered. It gives up when timeout passes or ctx ends.
func WaitEstablished(ctx context.Context, kube client.Client, xrd *unstructured.Unstructured, timeout time.Duration) error {
	want := []string{"Established"}
	if _, claim, _ := unstructured.NestedMap(xrd.Object, "spec", "claimNames"); claim {
		want = append(want, "Offered")
	}
	deadline := time.Now().Add(timeout)
	for {
		x := &unstructured.Unstructured{}
		x.SetGroupVersionKind(xrd.GroupVersionKind())
		if err := kube.Get(ctx, client.ObjectKeyFromObject(xrd), x); err != nil {
			return fmt.Errorf("cannot get %s %s: %w", xrd.GetKind(), xrd.GetName(), err)
		}
		missing := ""
		for _, ct := range want {
			if status, msg := condition(x, ct); status != "True" {
				missing = fmt.Sprintf("%s=%q %s", ct, status, msg)
				break
			}
		}
		if missing == "" {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s %s not served after %s: %s", xrd.GetKind(), xrd.GetName(), timeout, missing)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// condition returns the status and message of an object's condition.
func condition(u *unstructured.Unstructured, ct string) (status, message string) {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] == ct {
			status, _ = m["status"].(string)
			message, _ = m["message"].(string)
			return status, message
		}
	}
	return "", ""
}
