// Package contract validates HTTP exchanges against the simplyblock vendor
// OpenAPI spec (simplyblock-api-v2.openapi.json, OpenAPI 3.1), for tests.
//
// The spec is not part of this repository: SpecPath finds it in
// ../shared/reference next to the repository root. Load skips the calling
// test loudly when it is missing, or fails it when CI is set.
//
// Use Validator.RoundTripper on the client side (every request the client
// sends must be valid) and Validator.Middleware on the server side (every
// response must be valid; an invalid request may only be refused). All
// violations fail the test at cleanup. Only paths below /api/v2/ are
// checked.
//
// # Implementation
//
// Validation is kin-openapi's (github.com/getkin/kin-openapi, v0.153.0 or
// later: the first to read OpenAPI 3.1): the openapi3 loader reads the
// spec, the gorillamux router finds the operation (it keeps trailing
// slashes significant, as FastAPI does), and openapi3filter.ValidateRequest
// and ValidateResponse check the exchange, with the JSON Schema 2020-12
// validator openapi3filter switches on for a 3.1 document. The package
// only adapts (spec.go, check.go), renders kin-openapi's errors as short
// lines (messages.go), patches the loaded document in memory
// (deviations.go, strict.go), checks what the spec leaves untyped
// (extrachecks.go) and records failures (validator.go).
//
// Loading fails on any schema keyword kin-openapi does not know, on any
// format without a validator (formats are checked the way pydantic parses
// them), on a writeOnly property a response can carry or a readOnly one a
// request body can carry (kin-openapi's 2020-12 validator ignores both),
// and whenever the spec no longer has the shape a patch expects. So no
// constraint is silently ignored, and a spec update forces a review of the
// patches. One defect of the published spec is repaired in memory: GET
// .../volumes/{volume_id}/migrations/ does not declare two of its path
// parameters, which kin-openapi refuses.
//
// It is stricter than plain JSON Schema in three places, because the
// backend silently ignores what it does not know: an object schema that
// lists properties is closed (additionalProperties: false is patched in,
// so unknown fields fail), undeclared query parameters fail, and a body
// sent to an operation without a requestBody fails.
//
// # Tolerated deviations
//
// The real backend deliberately differs from its published spec in the
// places below, which are tolerated explicitly (see Deviations) by
// patching the loaded document: the 204s, the tolerated error statuses
// and the schema changes become part of it, and responses added that way
// name their deviation in failure messages. Create responses depend on
// the response-format query parameter, which OpenAPI cannot express, so a
// 201 is checked against a per-format copy of the operation. Anything else
// is a failure. Undeclared statuses are still body-checked where a schema
// is known (a 422 against HTTPValidationError).
//
//	| ID                          | Where                                         | Spec says                        | Backend does (tolerated)                                   |
//	|-----------------------------|-----------------------------------------------|----------------------------------|------------------------------------------------------------|
//	| put-cluster-204             | PUT /clusters/{cluster_id}/                   | 200 with a JSON body             | 204, no body                                               |
//	| delete-node-204             | DELETE /clusters/{cid}/storage-nodes/{id}/    | 200 with a JSON body             | 204, no body                                               |
//	| undeclared-error-statuses   | every operation                               | mostly 2xx and 422 only          | 307 + Location; 400/401/403/404/409 {"detail": str};       |
//	|                             |                                               |                                  | 500 text/plain or {"status","detail"}; 503 any body        |
//	| create-response-bodies      | POST with a response-format parameter         | 201, no content                  | 201 + Location; DTO (full), id string (identifier), none   |
//	|                             |                                               |                                  | (empty); storage-nodes' full body is a TaskDTO             |
//	| cluster-params-extra-fields | ClusterParams                                 | no max_subsys, spdk_vcpu_count,  | max_subsys, spdk_vcpu_count required (int >= 0);           |
//	|                             |                                               | hugepages_mem                    | hugepages_mem optional (string or int)                     |
//	| cluster-status-in-shrink    | ClusterDTO.status                             | enum lacks in_shrink             | in_shrink accepted (the real backend answers 500 instead)  |
//	| cluster-secret-returned     | ClusterDTO.secret                             | writeOnly                        | returned in plain text                                     |
//	| pool-capacity-null          | StoragePoolDTO.capacity                       | CapacityStatDTO, not nullable    | null before stats are collected                            |
//
// # Extra checks
//
// Where the spec types a response the client reads as {} (any JSON), the
// validator checks the shape the backend's source gives it instead (see
// ExtraChecks; sbcli 754ff3e1, backend-contract.md §3.2 and §4): in code
// for the log, by patching the DTO into the loaded document for the node.
// These are not deviations: they tolerate nothing, only make the
// validator stricter, and their problems name the check. Loading fails
// once the spec types such a response itself, so that the check is
// reviewed.
//
//	| ID              | Where                           | Spec says | Response must be                                               |
//	|-----------------|---------------------------------|-----------|----------------------------------------------------------------|
//	| log-entry-shape | GET /clusters/{cluster_id}/logs | {}        | a non-empty JSON array, oldest first (Date non-decreasing), of |
//	|                 | 200                             |           | objects with exactly the keys Date, NodeId, Event, Level,      |
//	|                 |                                 |           | Message, Storage_ID, VUID, Status, every value a string; Date  |
//	|                 |                                 |           | "YYYY-MM-DD HH:MM:SS[.mmm]" (no zone); Level Info, Warning,    |
//	|                 |                                 |           | Error, Critical or Debug; Event STATUS_CHANGE, OBJ_CREATED,    |
//	|                 |                                 |           | OBJ_DELETED, CAPACITY or a lower-case distrib event type       |
//	|                 |                                 |           | ([a-z_]+). An empty log is a plain-text 500 on the backend     |
//	|                 |                                 |           | (cluster/__init__.py:203-206), so 200 [] fails.                |
//	| node-detail-dto | GET /clusters/{cluster_id}/     | {}        | a StorageNodeDTO, as each item of the node list (the route     |
//	|                 | storage-nodes/{storage_node_id} |           | returns one without declaring it,                              |
//	|                 | / 200                           |           | cluster/storage_node/__init__.py:106-112)                      |
//
// Not deviations: node create's 201 is declared; node shutdown's 409 and
// the 404/500s are covered by undeclared-error-statuses; TaskDTO
// function_name keeps the spec enum, because the backend answers 500 when
// a task outside it exists. Proxy statuses (502, 504) are not tolerated:
// inject them outside the Middleware.
package contract
