// Package simulator is an in-process fake of the simplyblock control-plane
// REST API v2 (the part the provider uses), faithful to the backend's
// behaviour including its faults: cluster actions that answer 202 before
// checking anything and fail silently afterwards, refusals answered with a
// plain-text 500, the DTO-enum 500s (in_shrink, cluster_expand and
// node_removal tasks), the 307 trailing-slash redirects, the auth order
// (422 before 401), and the monitor that derives cluster statuses.
//
// # Time
//
// Every backend duration (activation passes, node restarts, task runner
// polls, the 3 s monitor tick, the 30 s "online for" rule, watchdogs) runs
// Options.Speed times faster than real time. Model timestamps are virtual.
// Injected response delays (FaultDelay) are wall-clock, since they target
// client timeouts.
//
// # Files
//
//	server.go           routing, 307 redirects, 404/405, auth and path validation
//	errors.go           error body shapes; validate.go: 422 details
//	clusters.go         clusters CRUD, logs, capacity
//	events.go           the event log: entries, writers, devices, distrib rows, retention
//	cluster_actions.go  activate, expand, shutdown, start, update, rebalance, addreplication
//	nodes.go            nodes read/create/delete, node_add, cluster_expand and node_removal runners
//	node_actions.go     suspend, resume, shutdown, restart/start, promote, node_restart runner
//	pools.go, tasks.go  pools (PUT quirks); tasks and migration runners
//	monitor.go          the 3 s monitor: status derivation (get_next_cluster_status), watchdog,
//	                    auto-activation gate, auto-restart re-queue; the cap monitor's read_only
//	faults.go           fault injection; journal.go: call journal; admin.go: admin endpoint
//	seed.go, tls.go, clock.go, model.go, simulator.go
//
// # Event log
//
// GET /clusters/{id}/logs?limit=N answers what sbcli's get_logs builds
// (cluster_ops.py:2380-2413 at 754ff3e1; backend-contract.md §3): the
// newest N events (default 50; 0 or negative = all), oldest first, each
//
//	{"Date":"2026-08-22 20:15:34.123","NodeId":"<id>|None","Event":"STATUS_CHANGE|OBJ_CREATED|OBJ_DELETED|CAPACITY|device_status",
//	 "Level":"Info|Warning|Critical|Error","Message":"...","Storage_ID":"<n>|None","VUID":"None","Status":"<task status>|new|<verdict>|None"}
//
// with every value a string, no id, Status a task event's task status or a
// distrib row's processing state, Date in UTC to the millisecond (no
// fraction when the milliseconds are 0). An empty log is a plain-text 500;
// the monitor deletes events older than 30 days. events.go lists the
// writers: cluster, node, task, pool, device, capacity and distrib events,
// with the sbcli lines each follows. Distrib rows (Event device_status,
// Level Error, NodeId = the reporting peer, Message "error_read (<count>)",
// one per peer) are written on the monitor tick after a node stops serving
// and rewritten two ticks later: Status goes from new to the collector's
// verdict and the count changes. The admin /state and Simulator.Events give the rendered Message
// strings only; Simulator.Log gives the entries.
//
// # Admin endpoint
//
// Start serves a separate, unauthenticated admin listener (AdminURL):
//
//	GET    /journal      200 [{"method","path","query","status","time","duration_ns","dropped"}]
//	DELETE /journal      204
//	GET    /faults       200 [Fault]
//	POST   /faults       Fault JSON -> 201 Fault (with "id"; "secret" for rotate_secret); 400 {"detail"}
//	DELETE /faults       204 (disarm all)
//	DELETE /faults/{id}  204, or 404
//	GET    /state        200 {"clusters":[{"cluster":ClusterDTO,"nodes":[..],"tasks":[.. incl. hidden],
//	                          "pools":[..],"activated_node_ids":[..]|null,"events":["<Message>"]}]}
//	POST   /seed         {"name","nodes","status":"unready|active","node_status","node_address_prefix","params"}
//	                     -> 201 {"cluster_id","secret","node_ids":[..]}
//
// A Fault is a JSON object:
//
//	{"kind": "<FaultKind>",            required, see the FaultKind constants
//	 "method": "POST",                 request selector (empty = any)
//	 "path": "/clusters/*/activate",   path.Match pattern, full path or below /api/v2 (empty = any)
//	 "count": 1,                       uses before it disarms (0 = until removed)
//	 "status": 503, "body": "...", "content_type": "...",   fail / random
//	 "probability": 0.2,               random
//	 "delay": "35s", "before": false,  delay (wall clock; after applying unless before)
//	 "cluster_id": "..", "node_id": "..", "node_address": "10.0.0.20:5000", "pool_id": "..",
//	 "node_index": 2,                  start_abort (1-based, DB order)
//	 "after": "90s",                   activation_failure (time into the run), node_outage (duration); backend time
//	 "node_status": "unreachable",     node_outage
//	 "target": "cluster"|"tasks",      dto_enum_500
//	 "utilization": 95}                utilization
//
// Examples: {"kind":"fail","method":"POST","path":"/clusters/*/activate","count":2,"status":503};
// {"kind":"drop","method":"POST","path":"/clusters/*/start","count":1};
// {"kind":"start_abort","cluster_id":"…","node_index":2};
// {"kind":"node_outage","node_id":"…","node_status":"offline","after":"120s"}.
package simulator
