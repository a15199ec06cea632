package contract

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// realLog is the example of backend-contract.md §4 (create, add one node,
// activate with a one-node outage), with the elided ids spelled out.
const realLog = `[
 {"Date":"2026-08-22 20:01:02.345","NodeId":"None","Event":"OBJ_CREATED","Level":"Info","Message":"Cluster created 6f1c2b8e-4b7a-4f3e-9d0a-1c2b3d4e5f60","Storage_ID":"None","VUID":"None","Status":"None"},
 {"Date":"2026-08-22 20:02:10","NodeId":"d4e5f6a7-0000-4000-8000-000000000001","Event":"OBJ_CREATED","Level":"Info","Message":"Task created","Storage_ID":"None","VUID":"None","Status":"new"},
 {"Date":"2026-08-22 20:07:40.101","NodeId":"e5f6a7b8-0000-4000-8000-000000000002","Event":"OBJ_CREATED","Level":"Info","Message":"Device created: e5f6a7b8-0000-4000-8000-000000000002","Storage_ID":"0","VUID":"None","Status":"None"},
 {"Date":"2026-08-22 20:07:41.778","NodeId":"0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d","Event":"STATUS_CHANGE","Level":"Info","Message":"Storage node status changed from: in_creation to: online","Storage_ID":"None","VUID":"None","Status":"None"},
 {"Date":"2026-08-22 20:09:00.004","NodeId":"None","Event":"STATUS_CHANGE","Level":"Info","Message":"Cluster status changed from unready to in_activation","Storage_ID":"None","VUID":"None","Status":"None"},
 {"Date":"2026-08-22 20:09:31.250","NodeId":"b2c3d4e5-0000-4000-8000-000000000003","Event":"device_status","Level":"Error","Message":"unavailable (2)","Storage_ID":"3","VUID":"None","Status":"processed"},
 {"Date":"2026-08-22 20:11:12.900","NodeId":"None","Event":"STATUS_CHANGE","Level":"Info","Message":"Cluster status changed from in_activation to active","Storage_ID":"None","VUID":"None","Status":"None"}
]`

// logEntry is one valid entry, to be broken by a test.
func logEntry(date, message string) map[string]any {
	return map[string]any{"Date": date, "NodeId": "None", "Event": "STATUS_CHANGE", "Level": "Info", "Message": message,
		"Storage_ID": "None", "VUID": "None", "Status": "None"}
}

// inventedEntry is the shape the simulator used to invent for a log entry.
func inventedEntry(id string) map[string]any {
	return map[string]any{"id": id, "date": 1755893734, "domain": "cluster", "event_level": "info", "object_name": "Cluster",
		"object_id": cid, "caused_by": "monitor", "message": "Cluster status changed from unready to active", "cluster_id": cid}
}

func TestLogEntryShape(t *testing.T) {
	spec := loadSpec(t)
	logs := func(status int, body []byte) Exchange {
		h := jsonType
		if status == 500 {
			h = textType
		}
		return Exchange{Method: "GET", Path: "/api/v2/clusters/" + cid + "/logs", Status: status, ResponseHeader: h, ResponseBody: body}
	}
	const allKeys = "Date, NodeId, Event, Level, Message, Storage_ID, VUID, Status"
	cases := map[string]struct {
		reason string
		ex     Exchange
		want   []string
	}{
		"RealExample": {
			reason: "The real log of backend-contract.md §4 passes: both Date spellings, a distrib event, task and device entries.",
			ex:     logs(200, []byte(realLog)),
		},
		"EqualDates": {
			reason: "Entries of the same millisecond keep their order: Date is non-decreasing, not increasing.",
			ex:     logs(200, js(t, []any{logEntry("2026-08-22 20:00:00.001", "a"), logEntry("2026-08-22 20:00:00.001", "b")})),
		},
		"WholeSecondBeforeMilliseconds": {
			reason: "A Date without milliseconds is the whole second, before any .mmm of that second.",
			ex:     logs(200, js(t, []any{logEntry("2026-08-22 20:00:00", "a"), logEntry("2026-08-22 20:00:00.001", "b")})),
		},
		"InventedShape": {
			reason: "The simulator's old invented entry fails, once for all entries, naming every missing and unexpected key.",
			ex:     logs(200, js(t, []any{inventedEntry("e1"), inventedEntry("e2"), inventedEntry("e3")})),
			want: []string{"response body at /0: not a log entry: missing " + allKeys +
				"; unexpected caused_by, cluster_id, date, domain, event_level, id, message, object_id, object_name" +
				" (want exactly the keys " + allKeys + ") (and 2 more entries) (log-entry-shape)"},
		},
		"MissingKey": {
			reason: "Every key is always present.",
			ex:     logs(200, js(t, []any{without(logEntry("2026-08-22 20:00:00.001", "a"), "VUID")})),
			want:   []string{"response body at /0: not a log entry: missing VUID (log-entry-shape)"},
		},
		"ExtraKey": {
			reason: "There is no id in the real log.",
			ex:     logs(200, js(t, []any{with(logEntry("2026-08-22 20:00:00.001", "a"), "id", "e1")})),
			want:   []string{"response body at /0: not a log entry: unexpected id (log-entry-shape)"},
		},
		"NonStringValue": {
			reason: "Every value is a string: Storage_ID and VUID are str()'d numbers.",
			ex:     logs(200, js(t, []any{with(logEntry("2026-08-22 20:00:00.001", "a"), "Storage_ID", 3)})),
			want:   []string{"response body at /0/Storage_ID: got number, want string (every log value is a string) (log-entry-shape)"},
		},
		"NullValue": {
			reason: "A missing value is the string \"None\", never null.",
			ex:     logs(200, js(t, []any{with(logEntry("2026-08-22 20:00:00.001", "a"), "NodeId", nil)})),
			want:   []string{`response body at /0/NodeId: got null, want string (a missing value is the string "None") (log-entry-shape)`},
		},
		"BadDate": {
			reason: "Date is str(datetime)[:23]: a space, no zone, milliseconds or none.",
			ex: logs(200, js(t, []any{logEntry("2026-08-22T20:00:00Z", "a"), logEntry("2026-08-22 20:00:00.123456", "b"),
				logEntry("2026-13-22 20:00:00", "c")})),
			want: []string{
				`response body at /0/Date: "2026-08-22T20:00:00Z" is not YYYY-MM-DD HH:MM:SS[.mmm] (str(datetime)[:23], no zone) (log-entry-shape)`,
				`response body at /1/Date: "2026-08-22 20:00:00.123456" is not YYYY-MM-DD HH:MM:SS[.mmm]`,
				`response body at /2/Date: "2026-13-22 20:00:00" is not YYYY-MM-DD HH:MM:SS[.mmm]`,
			},
		},
		"OutOfOrder": {
			reason: "The log is oldest first.",
			ex: logs(200, js(t, []any{logEntry("2026-08-22 20:00:01", "a"), logEntry("2026-08-22 20:00:00.999", "b"),
				logEntry("2026-08-22 20:00:02", "c")})),
			want: []string{`response body at /1/Date: "2026-08-22 20:00:00.999" is older than entry 0's "2026-08-22 20:00:01": the log is oldest first (log-entry-shape)`},
		},
		"BadLevel": {
			reason: "Levels are capitalized.",
			ex:     logs(200, js(t, []any{with(logEntry("2026-08-22 20:00:00.001", "a"), "Level", "info")})),
			want:   []string{`response body at /0/Level: "info" is not one of Info, Warning, Error, Critical, Debug (log-entry-shape)`},
		},
		"BadEvent": {
			reason: "Event is an event constant or a lower-case distrib type, never an object name.",
			ex:     logs(200, js(t, []any{with(logEntry("2026-08-22 20:00:00.001", "a"), "Event", "Cluster")})),
			want: []string{`response body at /0/Event: "Cluster" is neither one of STATUS_CHANGE, OBJ_CREATED, OBJ_DELETED, CAPACITY ` +
				`nor a lower-case distrib event type (log-entry-shape)`},
		},
		"EmptyArray": {
			reason: "The backend answers an empty log with a plain-text 500, never 200 [].",
			ex:     logs(200, []byte(`[]`)),
			want:   []string{"response body is an empty array: the backend answers an empty log with a plain-text 500, never 200 [] (log-entry-shape)"},
		},
		"NotAnArray": {
			reason: "The log is an array.",
			ex:     logs(200, []byte(`{"Date":"2026-08-22 20:00:00"}`)),
			want:   []string{"response body: got object, want an array of log entries (log-entry-shape)"},
		},
		"EntryNotObject": {
			reason: "Each entry is an object.",
			ex:     logs(200, []byte(`["Cluster created"]`)),
			want:   []string{"response body at /0: got string, want a log entry object (log-entry-shape)"},
		},
		"Empty500": {
			reason: "The empty log's plain-text 500 is the tolerated error, not a log.",
			ex:     logs(500, []byte("Internal Server Error")),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := spec.CheckResponse(tc.ex); !matchAll(tc.want, got) {
				t.Errorf("\n%s\nCheckResponse(...):\nwant messages containing %q\ngot  %q", tc.reason, tc.want, got)
			}
		})
	}
}

func TestDocListsEveryExtraCheck(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range ExtraChecks {
		if !strings.Contains(string(doc), c.ID) {
			t.Errorf("doc.go does not document extra check %q", c.ID)
		}
	}
}

// nodeDTO is a valid StorageNodeDTO (backend-contract.md §4).
func nodeDTO() map[string]any {
	return map[string]any{"id": nid, "cluster_id": cid, "secondary_node_id": nil, "status": "online", "uptime": "PT3723.456789S",
		"hostname": "worker-1_8080", "host_nqn": "nqn.2023-02.io.simplyblock:worker-1_8080", "cpu_total_count": 32, "cpu_spdk_count": 8,
		"cpu_poller_count": 4, "memory": 135000000000, "hugepage_memory": 17179869184, "spdk_mem": 12884901888, "lvols": 3, "lvols_max": 75,
		"snapshots_max": 500, "rpc_port": 8080, "lvol_subsys_port": 9090, "hublvol_port": 9030, "nvmf_port": 4420, "mgmt_ip": "10.0.0.10",
		"health_check": true, "device_count": 4, "online_device_count": 4, "failure_domain": -1, "capacity": capacity()}
}

func TestNodeDetailDTO(t *testing.T) {
	spec := loadSpec(t)
	node := func(body []byte) Exchange {
		return Exchange{Method: "GET", Path: "/api/v2/clusters/" + cid + "/storage-nodes/" + nid + "/", Status: 200,
			ResponseHeader: jsonType, ResponseBody: body}
	}
	cases := map[string]struct {
		reason string
		ex     Exchange
		want   []string
	}{
		"OK": {
			reason: "A StorageNodeDTO passes.",
			ex:     node(js(t, nodeDTO())),
		},
		"OfflineOK": {
			reason: "uptime and health_check are null off line.",
			ex:     node(js(t, with(with(with(nodeDTO(), "status", "offline"), "uptime", nil), "health_check", nil))),
		},
		"BadUptime": {
			reason: "uptime is an ISO 8601 duration.",
			ex:     node(js(t, with(nodeDTO(), "uptime", 3723))),
			want:   []string{"response body at /uptime: ", "(node-detail-dto)"},
		},
		"MissingField": {
			reason: "Every DTO field is required.",
			ex:     node(js(t, without(nodeDTO(), "mgmt_ip"))),
			want:   []string{`response body at /mgmt_ip: property "mgmt_ip" is missing (node-detail-dto)`},
		},
		"NotADTO": {
			reason: "The detail is the DTO, not a list of them.",
			ex:     node(js(t, []any{nodeDTO()})),
			want:   []string{"response body: ", "(node-detail-dto)"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := spec.CheckResponse(tc.ex)
			if len(tc.want) == 0 {
				if len(got) != 0 {
					t.Errorf("\n%s\nCheckResponse(...): want no messages, got %q", tc.reason, got)
				}
				return
			}
			// Every message names the check; the first wanted part is
			// the place, worded by kin-openapi.
			if len(got) == 0 || !strings.Contains(strings.Join(got, "\n"), tc.want[0]) {
				t.Errorf("\n%s\nCheckResponse(...): want a message containing %q, got %q", tc.reason, tc.want[0], got)
			}
			for _, g := range got {
				if !strings.HasSuffix(g, " ("+CheckNodeDetailDTO+")") {
					t.Errorf("\n%s\nCheckResponse(...): message %q does not name %s", tc.reason, g, CheckNodeDetailDTO)
				}
			}
		})
	}
}

func TestParseSpecFailsWhenExtraCheckTyped(t *testing.T) {
	raw, err := os.ReadFile(SpecPath())
	if err != nil {
		t.Skipf("spec not available: %v", err)
	}
	cases := map[string]struct {
		reason   string
		template string
		want     string
	}{
		"Logs": {
			reason:   "A spec that types the log forces a review of the extra check.",
			template: logsTemplate,
			want:     "extra check log-entry-shape: GET /api/v2/clusters/{cluster_id}/logs 200 is no longer typed {}: review ExtraChecks",
		},
		"NodeDetail": {
			reason:   "A spec that types the node detail forces a review of the extra check.",
			template: nodeDetailTemplate,
			want: "extra check node-detail-dto: GET /api/v2/clusters/{cluster_id}/storage-nodes/{storage_node_id}/ 200 " +
				"is no longer typed {}: review ExtraChecks",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var m map[string]any
			if err := json.Unmarshal(raw, &m); err != nil {
				t.Fatal(err)
			}
			obj(m, "paths", tc.template, "get", "responses", "200", "content", "application/json")["schema"] = map[string]any{"type": "object"}
			_, err := ParseSpec(js(t, m))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("\n%s\nParseSpec(...): want error containing %q, got %v", tc.reason, tc.want, err)
			}
		})
	}
}
