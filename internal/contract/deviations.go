package contract

import (
	"maps"
	"net/http"
	"slices"
	"strconv"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/pkg/errors"
)

// Deviation is one place where the real backend deliberately differs from
// its published spec and the validator tolerates it. Nothing else is
// tolerated.
type Deviation struct {
	// ID names the deviation in failure messages and docs.
	ID string
	// Where is the affected operation or schema.
	Where string
	// Spec is what the published spec says.
	Spec string
	// Backend is what the backend does, and so what is tolerated.
	Backend string
}

// Deviation IDs.
const (
	DevPutCluster204      = "put-cluster-204"
	DevDeleteNode204      = "delete-node-204"
	DevUndeclaredErrors   = "undeclared-error-statuses"
	DevCreateBodies       = "create-response-bodies"
	DevClusterParamsExtra = "cluster-params-extra-fields"
	DevClusterInShrink    = "cluster-status-in-shrink"
	DevClusterSecret      = "cluster-secret-returned"
	DevPoolCapacityNull   = "pool-capacity-null"
)

// Deviations lists every tolerated deviation; the package doc mirrors it.
var Deviations = []Deviation{
	{DevPutCluster204, "PUT /clusters/{cluster_id}/", "200 with a JSON body", "204, no body"},
	{DevDeleteNode204, "DELETE /clusters/{cluster_id}/storage-nodes/{storage_node_id}/", "200 with a JSON body", "204, no body"},
	{DevUndeclaredErrors, "every operation",
		"only the listed statuses (mostly 2xx and 422)",
		"307 with Location (wrong trailing slash); 400, 401, 403, 404, 409 with {\"detail\": string} (400 may add \"error\"); " +
			"500 as plain text or {\"status\", \"detail\"} or {\"detail\"}; 503 with any body (ready probe: \"FDB not ready\")"},
	{DevCreateBodies, "POST operations with a response-format parameter",
		"201 with no content",
		"201 with a Location header and, per response-format, the DTO (full), the id as a JSON string (identifier) or no body (empty); " +
			"storage-nodes' full format returns a TaskDTO"},
	{DevClusterParamsExtra, "ClusterParams", "no max_subsys, spdk_vcpu_count, hugepages_mem",
		"max_subsys and spdk_vcpu_count (integers >= 0) are required; hugepages_mem (string or integer) is optional"},
	{DevClusterInShrink, "ClusterDTO.status", "enum without in_shrink",
		"in_shrink is accepted (the real backend answers 500 instead of returning it, a simulator may return it)"},
	{DevClusterSecret, "ClusterDTO.secret", "writeOnly", "returned in plain text in every ClusterDTO"},
	{DevPoolCapacityNull, "StoragePoolDTO.capacity", "CapacityStatDTO, not nullable", "null when no stats were collected yet"},
}

// extDeviation marks a response added by a deviation patch (or patched by
// an extra check, see ExtraChecks) with the deviation's (or check's) ID, so
// that its problems name it.
const extDeviation = "x-contract-deviation"

// deviationOf returns the deviation ID a response was added by, or "".
func deviationOf(r *openapi3.Response) string {
	id, _ := r.Extensions[extDeviation].(string)
	return id
}

// tag appends " (id)" to every message when id is set.
func tag(id string, msgs []string) []string {
	if id == "" {
		return msgs
	}
	for i := range msgs {
		msgs[i] += " (" + id + ")"
	}
	return msgs
}

// componentProperties returns the properties of component schema name.
func componentProperties(doc *openapi3.T, name string) (openapi3.Schemas, error) {
	ref := doc.Components.Schemas[name]
	if ref == nil || ref.Value == nil || len(ref.Value.Properties) == 0 {
		return nil, errors.Errorf("deviation patch: schema %s has no properties: review Deviations", name)
	}
	return ref.Value.Properties, nil
}

// applySchemaDeviations patches the component schemas in memory. It fails
// when the spec no longer has the shape a deviation expects, so a spec
// update forces a review of this table.
func applySchemaDeviations(doc *openapi3.T) error {
	// DevClusterParamsExtra
	p, err := componentProperties(doc, "ClusterParams")
	if err != nil {
		return err
	}
	for _, name := range []string{"max_subsys", "spdk_vcpu_count", "hugepages_mem"} {
		if _, exists := p[name]; exists {
			return errors.Errorf("deviation %s: spec now declares %s: review Deviations", DevClusterParamsExtra, name)
		}
	}
	p["max_subsys"] = openapi3.NewSchemaRef("", openapi3.NewIntegerSchema().WithMin(0))
	p["spdk_vcpu_count"] = openapi3.NewSchemaRef("", openapi3.NewIntegerSchema().WithMin(0))
	p["hugepages_mem"] = openapi3.NewSchemaRef("", openapi3.NewAnyOfSchema(openapi3.NewStringSchema(), openapi3.NewIntegerSchema().WithMin(0)))
	cp := doc.Components.Schemas["ClusterParams"].Value
	cp.Required = append(cp.Required, "max_subsys", "spdk_vcpu_count")

	// DevClusterInShrink and DevClusterSecret
	if p, err = componentProperties(doc, "ClusterDTO"); err != nil {
		return err
	}
	status := p["status"]
	if status == nil || status.Ref != "" || len(status.Value.Enum) == 0 || slices.Contains(status.Value.Enum, any("in_shrink")) {
		return errors.Errorf("deviation %s: ClusterDTO.status changed: review Deviations", DevClusterInShrink)
	}
	status.Value.Enum = append(status.Value.Enum, "in_shrink")
	secret := p["secret"]
	if secret == nil || secret.Ref != "" || !secret.Value.WriteOnly {
		return errors.Errorf("deviation %s: ClusterDTO.secret is no longer writeOnly: review Deviations", DevClusterSecret)
	}
	secret.Value.WriteOnly = false

	// DevPoolCapacityNull
	if p, err = componentProperties(doc, "StoragePoolDTO"); err != nil {
		return err
	}
	capacity := p["capacity"]
	if capacity == nil || capacity.Ref == "" {
		return errors.Errorf("deviation %s: StoragePoolDTO.capacity changed: review Deviations", DevPoolCapacityNull)
	}
	p["capacity"] = openapi3.NewSchemaRef("", &openapi3.Schema{AnyOf: openapi3.SchemaRefs{
		capacity, openapi3.NewSchemaRef("", &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeNull}}),
	}})
	return nil
}

// substituteStatus lists the operations that answer 204 instead of their
// declared 200 (DevPutCluster204, DevDeleteNode204).
var substituteStatus = []struct{ method, template, id string }{
	{http.MethodPut, "/api/v2/clusters/{cluster_id}/", DevPutCluster204},
	{http.MethodDelete, "/api/v2/clusters/{cluster_id}/storage-nodes/{storage_node_id}/", DevDeleteNode204},
}

// applyResponseDeviations adds the responses the backend gives but the
// spec does not declare: the substitute 204s and, on every operation, the
// tolerated error statuses it does not declare itself.
func applyResponseDeviations(doc *openapi3.T) error {
	for _, sub := range substituteStatus {
		op := operation(doc, sub.method, sub.template)
		if op == nil || op.Responses.Status(http.StatusOK) == nil || op.Responses.Status(http.StatusNoContent) != nil {
			return errors.Errorf("deviation %s: %s changed: review Deviations", sub.id, operationKey(sub.method, sub.template))
		}
		op.Responses.Set("204", &openapi3.ResponseRef{Value: deviationResponse(sub.id, "No Content")})
	}
	errs := toleratedErrors()
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			for _, status := range slices.Sorted(maps.Keys(errs)) {
				if op.Responses.Status(status) == nil {
					op.Responses.Set(strconv.Itoa(status), errs[status])
				}
			}
		}
	}
	return nil
}

// toleratedErrors are the undeclared error answers every operation may give
// (DevUndeclaredErrors). A 307 is checked before routing (see
// checkRedirect): kin-openapi does not validate redirects.
func toleratedErrors() map[int]*openapi3.ResponseRef {
	detail := jsonContent(detailSchema())
	out := map[int]*openapi3.ResponseRef{}
	for _, status := range []int{http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound, http.StatusConflict} {
		r := deviationResponse(DevUndeclaredErrors, http.StatusText(status))
		r.Content = detail
		out[status] = &openapi3.ResponseRef{Value: r}
	}
	internal := deviationResponse(DevUndeclaredErrors, "Internal Server Error")
	internal.Content = openapi3.Content{
		"application/json": openapi3.NewMediaType().WithSchema(runtimeErrorSchema()),
		"text/plain":       openapi3.NewMediaType().WithSchema(openapi3.NewStringSchema().WithMinLength(1)),
	}
	out[http.StatusInternalServerError] = &openapi3.ResponseRef{Value: internal}
	unavailable := deviationResponse(DevUndeclaredErrors, "Service Unavailable")
	unavailable.Content = openapi3.Content{"*/*": openapi3.NewMediaType()} // any body
	out[http.StatusServiceUnavailable] = &openapi3.ResponseRef{Value: unavailable}
	return out
}

// detailSchema is the body of the tolerated 400/401/403/404/409 answers.
// "error" appears on PreconditionError 400s.
func detailSchema() *openapi3.Schema {
	return closedObject(openapi3.Schemas{
		"detail": openapi3.NewStringSchema().NewRef(),
		"error":  openapi3.NewStringSchema().NewRef(),
	}, "detail")
}

// runtimeErrorSchema is the JSON shape of a tolerated 500.
func runtimeErrorSchema() *openapi3.Schema {
	return closedObject(openapi3.Schemas{
		"detail": openapi3.NewStringSchema().NewRef(),
		"status": openapi3.NewStringSchema().NewRef(),
	}, "detail")
}

// createDTO names the DTO a response-format=full create returns
// (DevCreateBodies). Other creates are checked as "any JSON object".
var createDTO = map[string]string{
	"POST /api/v2/clusters/":                            "ClusterDTO",
	"POST /api/v2/clusters/{cluster_id}/storage-pools/": "StoragePoolDTO",
	"POST /api/v2/clusters/{cluster_id}/storage-nodes/": "TaskDTO",
}

// createVariants builds, for every operation with a response-format query
// parameter, one operation per format whose only response is the 201 that
// format gets (DevCreateBodies): Location is required, and the body is the
// DTO (full), a UUID string (identifier) or nothing (empty).
func createVariants(doc *openapi3.T) (map[*openapi3.Operation]map[string]*openapi3.Operation, error) {
	out := map[*openapi3.Operation]map[string]*openapi3.Operation{}
	for template, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			p := op.Parameters.GetByInAndName(openapi3.ParameterInQuery, "response-format")
			if p == nil {
				continue
			}
			key := operationKey(method, template)
			created := op.Responses.Status(http.StatusCreated)
			if created == nil || len(created.Value.Content) != 0 || p.Schema == nil ||
				!slices.Equal(p.Schema.Value.Enum, []any{"empty", "full", "identifier"}) {
				return nil, errors.Errorf("deviation %s: %s changed: review Deviations", DevCreateBodies, key)
			}
			full := openapi3.NewObjectSchema().NewRef()
			if dto, ok := createDTO[key]; ok {
				if doc.Components.Schemas[dto] == nil {
					return nil, errors.Errorf("deviation %s: schema %s is gone: review Deviations", DevCreateBodies, dto)
				}
				full = &openapi3.SchemaRef{Ref: "#/components/schemas/" + dto, Value: doc.Components.Schemas[dto].Value}
			}
			bodies := map[string]openapi3.Content{
				"full":       openapi3.NewContentWithJSONSchemaRef(full),
				"identifier": jsonContent(openapi3.NewUUIDSchema()),
				"empty":      nil,
			}
			out[op] = map[string]*openapi3.Operation{}
			for format, content := range bodies {
				r := deviationResponse(DevCreateBodies, "Created")
				r.Content = content
				r.Headers = openapi3.Headers{"Location": {Value: &openapi3.Header{Parameter: openapi3.Parameter{
					Required: true, Schema: openapi3.NewStringSchema().WithMinLength(1).NewRef(),
				}}}}
				variant := *op
				variant.Responses = openapi3.NewResponses(openapi3.WithStatus(http.StatusCreated, &openapi3.ResponseRef{Value: r}))
				out[op][format] = &variant
			}
		}
	}
	return out, nil
}

// operation returns the operation method template, or nil.
func operation(doc *openapi3.T, method, template string) *openapi3.Operation {
	item := doc.Paths.Value(template)
	if item == nil {
		return nil
	}
	return item.GetOperation(method)
}

func deviationResponse(id, description string) *openapi3.Response {
	r := openapi3.NewResponse().WithDescription(description)
	r.Extensions = map[string]any{extDeviation: id}
	return r
}

func jsonContent(s *openapi3.Schema) openapi3.Content { return openapi3.NewContentWithJSONSchema(s) }

func closedObject(props openapi3.Schemas, required ...string) *openapi3.Schema {
	s := openapi3.NewObjectSchema()
	s.Properties = props
	s.Required = required
	closed := false
	s.AdditionalProperties.Has = &closed
	return s
}
