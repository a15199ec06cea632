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

package main

// defaultGCPercent is the garbage collector's target when GOGC is not set.
// The provider's heap is mostly its informer cache, and Go's default (100)
// lets the heap grow to twice what is live before it collects; 50 lets it
// grow by half (README, "Installing as a Crossplane package", for what
// that costs and saves).
const defaultGCPercent = 50

// gcPercent returns the GC percent to set given GOGC's value and whether it
// is set: defaultGCPercent when it is not, nothing (false) when it is.
func gcPercent(gogc string, isSet bool) (int, bool) {
	if isSet && gogc != "" {
		return 0, false
	}
	return defaultGCPercent, true
}
