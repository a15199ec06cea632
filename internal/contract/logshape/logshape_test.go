package logshape

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestUnreadable covers which differences from the real log keep the
// provider from placing or classifying an entry (internal/ops/eventlog.go
// reads Date, NodeId, Event and Message) and which it reads past.
func TestUnreadable(t *testing.T) {
	const ok = `{"Date":"2026-08-22 20:00:00.001","NodeId":"None","Event":"STATUS_CHANGE","Level":"Info",` +
		`"Message":"Cluster status changed from unready to active","Storage_ID":"None","VUID":"None","Status":"None"`
	cases := map[string]struct {
		reason string
		body   string
		want   []bool // Unreadable() of each problem, in order
	}{
		"Real": {
			reason: "The real entry has no problem.",
			body:   `[` + ok + `}]`,
		},
		"ExtraKey": {
			reason: "A key the provider does not read changes nothing it decides.",
			body:   `[` + ok + `,"Domain":"cluster"}]`,
			want:   []bool{false},
		},
		"MissingUnreadKey": {
			reason: "A missing VUID changes nothing it decides.",
			body: `[{"Date":"2026-08-22 20:00:00.001","NodeId":"None","Event":"STATUS_CHANGE","Level":"Info",` +
				`"Message":"m","Storage_ID":"None","Status":"None"}]`,
			want: []bool{false},
		},
		"MissingMessage": {
			reason: "Without Message the provider cannot classify the entry.",
			body: `[{"Date":"2026-08-22 20:00:00.001","NodeId":"None","Event":"STATUS_CHANGE","Level":"Info",` +
				`"Storage_ID":"None","VUID":"None","Status":"None"}]`,
			want: []bool{true},
		},
		"NumericStorageID": {
			reason: "A number where the provider reads nothing is no obstacle.",
			body: `[{"Date":"2026-08-22 20:00:00.001","NodeId":"None","Event":"STATUS_CHANGE","Level":"Info",` +
				`"Message":"m","Storage_ID":3,"VUID":"None","Status":"None"}]`,
			want: []bool{false},
		},
		"NullNodeID": {
			reason: "A null NodeId is not the provider's \"None\".",
			body: `[{"Date":"2026-08-22 20:00:00.001","NodeId":null,"Event":"STATUS_CHANGE","Level":"Info",` +
				`"Message":"m","Storage_ID":"None","VUID":"None","Status":"None"}]`,
			want: []bool{true},
		},
		"ISODate": {
			reason: "A Date in another format cannot be placed.",
			body: `[{"Date":"2026-08-22T20:00:00Z","NodeId":"None","Event":"STATUS_CHANGE","Level":"Info",` +
				`"Message":"m","Storage_ID":"None","VUID":"None","Status":"None"}]`,
			want: []bool{true},
		},
		"LowerCaseLevel": {
			reason: "The provider does not read Level.",
			body: `[{"Date":"2026-08-22 20:00:00.001","NodeId":"None","Event":"STATUS_CHANGE","Level":"info",` +
				`"Message":"m","Storage_ID":"None","VUID":"None","Status":"None"}]`,
			want: []bool{false},
		},
		"EmptyArray": {
			reason: "200 [] is read as an empty log.",
			body:   `[]`,
			want:   []bool{false},
		},
		"Object": {
			reason: "An object is no log.",
			body:   `{}`,
			want:   []bool{true},
		},
		"NotJSON": {
			reason: "Text is no log.",
			body:   `Internal Server Error`,
			want:   []bool{true},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got []bool
			for _, p := range Check([]byte(tc.body)) {
				got = append(got, p.Unreadable())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("\n%s\nCheck(...) Unreadable: -want, +got:\n%s\nproblems: %s", tc.reason, diff, Render(Check([]byte(tc.body))))
			}
		})
	}
}
