// Package conformance checks, read-only, that a live simplyblock control
// plane answers the way the provider reads it: every response shape and
// behaviour the provider decides on, as sbcli 754ff3e1 has them
// (/work/shared/reference/backend-contract.md, docs/backend.md).
//
// Run is the full check, behind `make conformance` (cmd/simplyblock-conformance):
// one Result per check, PASS, FAIL or SKIP, with the reason and the sbcli
// file:line or the document section it comes from. Probe is the cheap
// subset the provider runs once per ProviderConfig when it connects
// (internal/providerconfig): the cluster list and one cluster's event log.
//
// Both only ever send GETs (simplyblock.Client.GetRaw), never retried and
// never redirected, so they change nothing on the backend. Neither ever
// puts the token or a cluster secret in a result: every Detail is scrubbed
// of both.
//
// # Checks
//
//	| ID                   | Request                                   | Passes when                                                       |
//	|----------------------|-------------------------------------------|-------------------------------------------------------------------|
//	| health               | GET /_meta/health, no token               | 204                                                               |
//	| auth-invalid-token   | GET /clusters/ with an invalid token      | 401 {"detail":"Invalid token"}                                    |
//	| clusters-list        | GET /clusters/                            | 200, a list of ClusterDTO: every key, status in the DTO enum,     |
//	|                      |                                           | id a UUID, is_re_balancing a boolean, secret a non-empty string   |
//	| cluster-detail       | GET /clusters/{id}/                       | 200, the ClusterDTO of that id                                    |
//	| trailing-slash-307   | GET /clusters, /clusters/{id},            | 307, absolute Location of the other spelling                      |
//	|                      | /clusters/{id}/logs/                      |                                                                   |
//	| cluster-not-found    | GET /clusters/{random uuid}/              | 404 {"detail":"'Cluster <id> not found'"} (quoted); 401 Invalid   |
//	|                      |                                           | token when the token is a cluster secret                          |
//	| storage-nodes-list   | GET /clusters/{id}/storage-nodes/         | 200, a list of StorageNodeDTO: status in the enum, mgmt_ip IPv4,  |
//	|                      |                                           | uptime an ISO 8601 duration (sosodev/duration) when online        |
//	| storage-node-detail  | GET /clusters/{id}/storage-nodes/{nid}/   | 200, the StorageNodeDTO of that id                                |
//	| storage-pools-list   | GET /clusters/{id}/storage-pools/         | 200, a list of StoragePoolDTO, status active or inactive          |
//	| tasks-list           | GET /clusters/{id}/tasks/                 | 200 list of TaskDTO, or the plain-text 500 while a task outside   |
//	|                      |                                           | the function_name enum exists (reported as such)                  |
//	| logs-entry-shape     | GET /clusters/{id}/logs?limit=N           | 200 passing internal/contract's log-entry-shape check, or the     |
//	|                      |                                           | plain-text 500 of an empty log                                    |
//	| logs-limit           | GET …/logs?limit=0 and ?limit=<more>      | limit=N is the newest N of limit=0, oldest first; limit=0 is the  |
//	|                      |                                           | whole log (as a read asking for more than it holds)               |
//	| logs-classification  | (the limit=0 read)                        | every "Cluster status changed …" and "Storage node status changed |
//	|                      |                                           | …" STATUS_CHANGE is the provider's cluster or node status change  |
//	|                      |                                           | (internal/ops/eventlog.go), between statuses it knows; no other   |
//	|                      |                                           | entry is                                                          |
//
// The command adds vendor-spec: every exchange validated against the vendor
// OpenAPI spec with the documented deviations (internal/contract), when the
// spec is found.
package conformance
