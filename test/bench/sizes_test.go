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

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// sizes are the scenario sizes. The tiny defaults run in `make test`;
// BENCH_FULL=1 (`make bench`) selects the sizes. Each figure can be
// overridden through the environment variable named in its comment.
type sizes struct {
	Full bool `json:"full"`

	// Burst: BENCH_CLUSTERS clusters × 5 operations, simulator speed
	// BENCH_SPEED (backend seconds per wall second).
	BurstClusters int     `json:"burstClusters"`
	BurstSpeed    float64 `json:"burstSpeed"`
	// BurstTimeout bounds the wait for every operation to finish
	// (BENCH_BURST_TIMEOUT).
	BurstTimeout time.Duration `json:"burstTimeoutNs"`

	// Rest: BENCH_REST_CLUSTERS StorageClusters and BENCH_REST_OPS finished
	// operations held for BENCH_REST_WINDOW; BENCH_REST_SETUP_TIMEOUT
	// bounds the time to get there.
	RestClusters     int           `json:"restClusters"`
	RestOps          int           `json:"restOps"`
	RestWindow       time.Duration `json:"restWindowNs"`
	RestSetupTimeout time.Duration `json:"restSetupTimeoutNs"`

	// Rolling restart: one cluster of BENCH_NODES nodes at speed
	// BENCH_ROLL_SPEED, bounded by BENCH_ROLL_TIMEOUT.
	RollNodes   int           `json:"rollNodes"`
	RollSpeed   float64       `json:"rollSpeed"`
	RollTimeout time.Duration `json:"rollTimeoutNs"`

	// ProviderArgs are extra provider flags for every scenario
	// (BENCH_PROVIDER_ARGS, space separated), e.g. --max-reconcile-rate=50.
	ProviderArgs []string `json:"providerArgs"`
	// ProviderEnv are extra environment variables of the provider process
	// (BENCH_PROVIDER_ENV, space separated K=V), e.g. GOMEMLIMIT=180MiB.
	ProviderEnv []string `json:"providerEnv,omitempty"`
	// Pprof serves the provider's pprof endpoint and saves a 30 s CPU
	// profile and a heap profile of each scenario, and of the burst a 30 s
	// CPU profile of the kube-apiserver and of the bench process itself
	// (BENCH_PPROF=1).
	Pprof bool `json:"pprof"`
}

// The speeds: a burst chain per cluster is Activate (~140 backend seconds),
// Expand (instant without new nodes), Rebalance (~340 s), Shutdown (~40 s)
// and Start (~370 s, including the re-activation): about 890 backend
// seconds for five actions, so speed 90 makes the average action take
// about 2 s of wall time.
func loadSizes() sizes {
	s := sizes{
		BurstClusters: 3, BurstSpeed: 150, BurstTimeout: 3 * time.Minute,
		RestClusters: 20, RestOps: 50, RestWindow: 20 * time.Second, RestSetupTimeout: 3 * time.Minute,
		RollNodes: 3, RollSpeed: 150, RollTimeout: 3 * time.Minute,
	}
	if os.Getenv("BENCH_FULL") == "1" {
		s = sizes{Full: true,
			BurstClusters: 100, BurstSpeed: 90, BurstTimeout: 20 * time.Minute,
			RestClusters: 1000, RestOps: 10000, RestWindow: 3 * time.Minute, RestSetupTimeout: 25 * time.Minute,
			RollNodes: 50, RollSpeed: 90, RollTimeout: 15 * time.Minute,
		}
	}
	envInt("BENCH_CLUSTERS", &s.BurstClusters)
	envFloat("BENCH_SPEED", &s.BurstSpeed)
	envDur("BENCH_BURST_TIMEOUT", &s.BurstTimeout)
	envInt("BENCH_REST_CLUSTERS", &s.RestClusters)
	envInt("BENCH_REST_OPS", &s.RestOps)
	envDur("BENCH_REST_WINDOW", &s.RestWindow)
	envDur("BENCH_REST_SETUP_TIMEOUT", &s.RestSetupTimeout)
	envInt("BENCH_NODES", &s.RollNodes)
	envFloat("BENCH_ROLL_SPEED", &s.RollSpeed)
	envDur("BENCH_ROLL_TIMEOUT", &s.RollTimeout)
	s.ProviderArgs = strings.Fields(os.Getenv("BENCH_PROVIDER_ARGS"))
	s.ProviderEnv = strings.Fields(os.Getenv("BENCH_PROVIDER_ENV"))
	s.Pprof = os.Getenv("BENCH_PPROF") == "1"
	return s
}

func (s sizes) String() string {
	mode := "tiny"
	if s.Full {
		mode = "full"
	}
	return fmt.Sprintf("%s: burst %d×5 at speed %g; rest %d clusters + %d ops for %s; rolling restart %d nodes at speed %g; provider args %v env %v",
		mode, s.BurstClusters, s.BurstSpeed, s.RestClusters, s.RestOps, s.RestWindow, s.RollNodes, s.RollSpeed, s.ProviderArgs, s.ProviderEnv)
}

func envInt(name string, into *int) {
	if v := os.Getenv(name); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			panic(fmt.Sprintf("%s=%q: want a positive integer", name, v))
		}
		*into = n
	}
}

func envFloat(name string, into *float64) {
	if v := os.Getenv(name); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f <= 0 {
			panic(fmt.Sprintf("%s=%q: want a positive number", name, v))
		}
		*into = f
	}
}

func envDur(name string, into *time.Duration) {
	if v := os.Getenv(name); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			panic(fmt.Sprintf("%s=%q: want a positive duration such as 90s", name, v))
		}
		*into = d
	}
}
