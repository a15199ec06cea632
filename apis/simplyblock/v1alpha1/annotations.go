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

package v1alpha1

// AnnotationCreateOutcomeUnknown marks a managed resource whose last create
// call may have reached the backend without its answer arriving (a timeout,
// a dropped connection, a 502/504). Only then does the provider adopt a
// backend object with the resource's name; a definite refusal (such as a
// name already taken by someone else's cluster) never leads to adoption.
const AnnotationCreateOutcomeUnknown = "simplyblock.m.crossplane.io/create-outcome-unknown"

// AnnotationOperationIntent carries an operation's status as it was when
// the intent of its first backend call was recorded: that intent is written
// with the operation's finalizer, in one update, and the status shows it
// from the next status write on. A status with fewer attempts than the
// annotation is older than the intent and gives way to it.
const AnnotationOperationIntent = "simplyblock.m.crossplane.io/intent"
