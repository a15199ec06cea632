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

package ops

import "time"

// Settings are the engine's tunables, set from provider flags.
type Settings struct {
	// EvidenceGrace is how long the engine looks for evidence that an
	// accepted or ambiguous call took effect.
	EvidenceGrace time.Duration
	// ObserveMaxAge is how old a shared backend observation may be.
	ObserveMaxAge time.Duration
	// Poll are the poll intervals of non-terminal operations.
	Poll PollIntervals
}

// DefaultSettings see a finished backend action within about a second and
// give the backend 30 s to show that it acted on a call.
var DefaultSettings = Settings{
	EvidenceGrace: 30 * time.Second,
	ObserveMaxAge: 200 * time.Millisecond,
	Poll:          DefaultPollIntervals,
}
