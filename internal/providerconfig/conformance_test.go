package providerconfig

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock/fake"
	"github.com/simplyblock/provider-simplyblock/internal/conformance"
)

// TestClientCacheVerdict covers when the cache checks a control plane and
// what it hands out for each verdict.
func TestClientCacheVerdict(t *testing.T) {
	cfg := simplyblock.Config{BaseURL: endpoint, Token: token}
	conformant := conformance.Verdict{State: conformance.Conformant, Complete: true}
	incomplete := conformance.Verdict{State: conformance.Conformant, Reason: "no cluster yet"}
	unchecked := conformance.Verdict{State: conformance.Unchecked, Reason: "connection refused"}
	nonconformant := conformance.Verdict{State: conformance.Nonconformant, Complete: true, Results: []conformance.Result{
		{ID: conformance.CheckLogShape, Status: conformance.Fail, Detail: "response body at /0: not a log entry"}}}

	// A step is one Get, after the clock advanced.
	type step struct {
		after   time.Duration
		refused bool
	}
	cases := map[string]struct {
		reason   string
		verdicts []conformance.Verdict // what successive checks find
		warnOnly bool
		steps    []step
		checks   int
	}{
		"ConformantCheckedOnce": {
			reason:   "A complete conformant verdict is kept with the client: the control plane is checked once.",
			verdicts: []conformance.Verdict{conformant},
			steps:    []step{{}, {after: time.Hour}, {after: 24 * time.Hour}},
			checks:   1,
		},
		"NonconformantRefused": {
			reason:   "A nonconformant control plane gets no client, and is not checked again before RecheckNonconformant.",
			verdicts: []conformance.Verdict{nonconformant},
			steps:    []step{{refused: true}, {after: time.Minute, refused: true}},
			checks:   1,
		},
		"NonconformantFixed": {
			reason:   "A control plane fixed or upgraded is used again once a later check finds it conformant.",
			verdicts: []conformance.Verdict{nonconformant, conformant},
			steps:    []step{{refused: true}, {after: RecheckNonconformant}, {after: time.Hour}},
			checks:   2,
		},
		"WarnOnly": {
			reason:   "With --backend-conformance=warn a nonconformant control plane gets its client all the same.",
			verdicts: []conformance.Verdict{nonconformant},
			warnOnly: true,
			steps:    []step{{}},
			checks:   1,
		},
		"UncheckedNotRefused": {
			reason:   "An unreachable control plane is no verdict: the client is handed out, and the check repeated after RecheckUnchecked.",
			verdicts: []conformance.Verdict{unchecked, conformant},
			steps:    []step{{}, {after: RecheckUnchecked / 2}, {after: RecheckUnchecked}, {after: time.Hour}},
			checks:   2,
		},
		"IncompleteRechecked": {
			reason:   "A verdict without a cluster's log is checked again after RecheckIncomplete.",
			verdicts: []conformance.Verdict{incomplete, conformant},
			steps:    []step{{}, {after: RecheckIncomplete}, {after: time.Hour}},
			checks:   2,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			now := time.Date(2026, 8, 22, 20, 0, 0, 0, time.UTC)
			checks := 0
			api := &fake.MockClient{}
			c := &ClientCache{
				NewClient: func(simplyblock.Config) (simplyblock.API, error) { return api, nil },
				Verify: func(context.Context, simplyblock.API, simplyblock.Config) conformance.Verdict {
					v := tc.verdicts[min(checks, len(tc.verdicts)-1)]
					checks++
					return v
				},
				WarnOnly: tc.warnOnly,
				Now:      func() time.Time { return now },
			}
			for i, s := range tc.steps {
				now = now.Add(s.after)
				got, err := c.Client(cfg)
				switch {
				case s.refused && (err == nil || !IsNonconformant(err)):
					t.Errorf("\n%s\nstep %d: Client(...): got %v, %v, want a NonconformantError", tc.reason, i, got, err)
				case !s.refused && (err != nil || got != api):
					t.Errorf("\n%s\nstep %d: Client(...): got %v, %v, want the client", tc.reason, i, got, err)
				}
				if err != nil && strings.Contains(err.Error(), token) {
					t.Errorf("\n%s\nstep %d: Client(...): the error holds the token: %v", tc.reason, i, err)
				}
			}
			if checks != tc.checks {
				t.Errorf("\n%s\nClient(...): checked the control plane %d times, want %d", tc.reason, checks, tc.checks)
			}
		})
	}
}

func TestBackendConformant(t *testing.T) {
	pass := conformance.Result{ID: conformance.CheckClusters, Status: conformance.Pass, Detail: "GET /api/v2/clusters/: 1 ClusterDTO"}
	fail := conformance.Result{ID: conformance.CheckLogShape, Status: conformance.Fail, Detail: "response body at /0: not a log entry"}
	type want struct {
		status   corev1.ConditionStatus
		reason   xpv2.ConditionReason
		contains []string
	}
	cases := map[string]struct {
		reason   string
		v        conformance.Verdict
		enforced bool
		want     want
	}{
		"Conformant": {
			reason:   "A conformant control plane is True, with what was checked.",
			v:        conformance.Verdict{State: conformance.Conformant, Complete: true, Results: []conformance.Result{pass}},
			enforced: true,
			want:     want{status: corev1.ConditionTrue, reason: ReasonConformant, contains: []string{"clusters-list: GET /api/v2/clusters/"}},
		},
		"ConformantIncomplete": {
			reason:   "A verdict without a log says what is still to check, and when.",
			v:        conformance.Verdict{State: conformance.Conformant, Reason: "no cluster yet", Results: []conformance.Result{pass}},
			enforced: true,
			want:     want{status: corev1.ConditionTrue, reason: ReasonConformant, contains: []string{"Not checked yet: no cluster yet", "every 10m0s"}},
		},
		"NonconformantEnforced": {
			reason:   "A nonconformant control plane is False, names the failing checks and says the provider does not act on it.",
			v:        conformance.Verdict{State: conformance.Nonconformant, Complete: true, Results: []conformance.Result{pass, fail}},
			enforced: true,
			want: want{status: corev1.ConditionFalse, reason: ReasonNonconformant,
				contains: []string{"does not act on it", "logs-entry-shape: response body at /0: not a log entry", "make conformance"}},
		},
		"NonconformantWarned": {
			reason: "With --backend-conformance=warn the condition says the provider acts on it all the same.",
			v:      conformance.Verdict{State: conformance.Nonconformant, Complete: true, Results: []conformance.Result{fail}},
			want:   want{status: corev1.ConditionFalse, reason: ReasonNonconformant, contains: []string{"acts on it all the same"}},
		},
		"Unchecked": {
			reason:   "A control plane that could not be checked is Unknown, with why.",
			v:        conformance.Verdict{State: conformance.Unchecked, Reason: "GET /api/v2/clusters/: connection refused"},
			enforced: true,
			want:     want{status: corev1.ConditionUnknown, reason: ReasonUnchecked, contains: []string{"connection refused", "every 1m0s"}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := BackendConformant(tc.v, tc.enforced)
			got := want{status: c.Status, reason: c.Reason, contains: tc.want.contains}
			for _, s := range tc.want.contains {
				if !strings.Contains(c.Message, s) {
					got.contains = append(got.contains[:0:0], c.Message)
				}
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("\n%s\nBackendConformant(...): -want, +got:\n%s", tc.reason, diff)
			}
			if c.Type != TypeBackendConformant {
				t.Errorf("\n%s\nBackendConformant(...): type %q", tc.reason, c.Type)
			}
		})
	}
}

// backendWithLog is a control plane with one cluster whose log holds
// entries.
func backendWithLog(t *testing.T, secret string, entries []map[string]any) *httptest.Server {
	t.Helper()
	cid := "6f1c2d3e-0000-4000-8000-000000000001"
	cluster := map[string]any{"id": cid, "name": "prod", "nqn": "nqn.2023-02.io.simplyblock:" + cid, "status": "active",
		"is_re_balancing": false, "block_size": 512, "distr_ndcs": 1, "distr_npcs": 1, "ha": true, "utilization_critical": 90,
		"utilization_warning": 80, "provisioned_capacity_critical": 190, "provisioned_capacity_warning": 180, "node_affinity": false,
		"anti_affinity": false, "enable_failure_domain": false, "secret": secret, "tls_enabled": false, "max_fault_tolerance": 1,
		"backup_enabled": false, "capacity": map[string]any{"date": 0, "size_total": 0, "size_prov": 0, "size_used": 0, "size_free": 0, "size_util": 0}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			t.Errorf("the check sent a %s", r.Method)
		}
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/api/v2/clusters/":
			_ = json.NewEncoder(w).Encode([]any{cluster})
		case "/api/v2/clusters/" + cid + "/logs":
			_ = json.NewEncoder(w).Encode(entries)
		default:
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"detail":"Not Found"}`))
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestVerifierAgainstBackends checks a control plane the way the provider
// does when it connects, from the client to the condition.
func TestVerifierAgainstBackends(t *testing.T) {
	const secret = "AbCdEfGhIjKlMnOpQrSt"
	real := []map[string]any{{"Date": "2026-08-22 20:09:00.004", "NodeId": "None", "Event": "STATUS_CHANGE", "Level": "Info",
		"Message": "Cluster status changed from unready to in_activation", "Storage_ID": "None", "VUID": "None", "Status": "None"}}
	invented := []map[string]any{{"id": "e1", "date": 1755893734, "domain": "cluster", "event_level": "info", "object_name": "Cluster",
		"object_id": "c", "caused_by": "monitor", "message": "Cluster status changed from unready to active", "cluster_id": "c"}}
	cases := map[string]struct {
		reason  string
		entries []map[string]any
		refused bool
		status  corev1.ConditionStatus
	}{
		"RealLog": {
			reason:  "A control plane with the real log is conformant: the client is handed out and the condition is True.",
			entries: real,
			status:  corev1.ConditionTrue,
		},
		"InventedLog": {
			reason:  "A control plane with the old invented log is refused, and the condition says why.",
			entries: invented,
			refused: true,
			status:  corev1.ConditionFalse,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			srv := backendWithLog(t, secret, tc.entries)
			cfg := simplyblock.Config{BaseURL: srv.URL, Token: token, Timeout: 5 * time.Second}
			c := &ClientCache{NewClient: NewClient, Verify: Verifier(nil)}
			_, err := c.Client(cfg)
			if got := err != nil && IsNonconformant(err); got != tc.refused {
				t.Errorf("\n%s\nClient(...): refused %t (%v), want %t", tc.reason, got, err, tc.refused)
			}
			v, _, err := c.Verdict(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			cond := BackendConformant(v, true)
			if cond.Status != tc.status {
				t.Errorf("\n%s\nBackendConformant(...): status %s, want %s: %s", tc.reason, cond.Status, tc.status, cond.Message)
			}
			if strings.Contains(cond.Message, secret) || strings.Contains(cond.Message, token) {
				t.Errorf("\n%s\nBackendConformant(...): the message holds the token or a secret: %s", tc.reason, cond.Message)
			}
		})
	}
}
