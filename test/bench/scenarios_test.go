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

package bench_test

import "testing"

// The scenarios run in this order, each with its own simulator and
// provider process; the sizes are in sizes_test.go. Rest runs last: its
// objects take the longest to clean up.

// TestBurst: clusters × 5 operations created at once.
func TestBurst(t *testing.T) { runBurst(t) }

// TestRollingRestart: one cluster's NodeRollingRestart.
func TestRollingRestart(t *testing.T) { runRolling(t) }

// TestRest: many StorageClusters and finished operations, held.
func TestRest(t *testing.T) { runRest(t) }
