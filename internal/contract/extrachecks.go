package contract

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/pkg/errors"

	"github.com/simplyblock/provider-simplyblock/internal/contract/logshape"
)

// ExtraCheck is a check of a response whose schema the published spec
// lacks (it types the response as {}), derived from the backend's source.
// Unlike a Deviation it tolerates nothing: it makes the validator stricter.
type ExtraCheck struct {
	// ID names the check in failure messages and docs.
	ID string
	// Where is the checked operation and status.
	Where string
	// Spec is what the published spec says.
	Spec string
	// Check is what the response must be.
	Check string
}

// Extra check IDs.
const (
	CheckLogEntryShape = "log-entry-shape"
	CheckNodeDetailDTO = "node-detail-dto"
)

// The operations the extra checks apply to.
const (
	logsTemplate       = "/api/v2/clusters/{cluster_id}/logs"
	nodeDetailTemplate = "/api/v2/clusters/{cluster_id}/storage-nodes/{storage_node_id}/"
)

// ExtraChecks lists every extra check; the package doc mirrors it.
var ExtraChecks = []ExtraCheck{
	{CheckLogEntryShape, "GET " + logsTemplate + " 200", "{} (any JSON)",
		"a non-empty JSON array, oldest entry first (Date non-decreasing), of objects with exactly the keys " +
			strings.Join(logshape.Keys, ", ") + ", every value a string; Date is str(datetime)[:23] " +
			"(" + logshape.DateFormat + ", no zone), Level one of " + strings.Join(logshape.Levels, ", ") +
			", Event one of " + strings.Join(logshape.Events, ", ") + " or a lower-case distrib event type. " +
			"An empty log is a plain-text 500 on the backend, never 200 [] " +
			"(sbcli cluster_ops.py:2380-2413, simplyblock_web/api/v2/cluster/__init__.py:201-206)"},
	{CheckNodeDetailDTO, "GET " + nodeDetailTemplate + " 200", "{} (any JSON)",
		"a StorageNodeDTO, as each item of the node list: the route returns StorageNodeDTO.from_model without declaring it " +
			"(sbcli api/v2/cluster/storage_node/__init__.py:106-112)"},
}

// applyExtraChecks patches the schemas the extra checks supply into the
// loaded document (CheckNodeDetailDTO; CheckLogEntryShape is checked in
// code, see extraChecks). It fails when the spec now declares a schema
// where an extra check supplies one, so that a spec update forces a
// review of ExtraChecks.
func applyExtraChecks(doc *openapi3.T) error {
	// CheckLogEntryShape
	if _, err := untypedJSON(doc, CheckLogEntryShape, logsTemplate); err != nil {
		return err
	}

	// CheckNodeDetailDTO
	mt, err := untypedJSON(doc, CheckNodeDetailDTO, nodeDetailTemplate)
	if err != nil {
		return err
	}
	dto := doc.Components.Schemas["StorageNodeDTO"]
	if dto == nil || dto.Value == nil {
		return errors.Errorf("extra check %s: schema StorageNodeDTO is gone: review ExtraChecks", CheckNodeDetailDTO)
	}
	mt.Schema = &openapi3.SchemaRef{Ref: "#/components/schemas/StorageNodeDTO", Value: dto.Value}
	r := operation(doc, http.MethodGet, nodeDetailTemplate).Responses.Status(http.StatusOK).Value
	r.Extensions = map[string]any{extDeviation: CheckNodeDetailDTO}
	return nil
}

// untypedJSON returns the application/json content of GET template's 200,
// the only content there, or fails when it is gone or no longer {}.
func untypedJSON(doc *openapi3.T, check, template string) (*openapi3.MediaType, error) {
	op := operation(doc, http.MethodGet, template)
	if op == nil || op.Responses.Status(http.StatusOK) == nil {
		return nil, errors.Errorf("extra check %s: GET %s 200 is gone: review ExtraChecks", check, template)
	}
	content := op.Responses.Status(http.StatusOK).Value.Content
	mt := content.Get("application/json")
	if len(content) != 1 || mt == nil || !untyped(mt.Schema) {
		return nil, errors.Errorf("extra check %s: GET %s 200 is no longer typed {}: review ExtraChecks", check, template)
	}
	return mt, nil
}

// untyped reports whether ref is the empty schema {}.
func untyped(ref *openapi3.SchemaRef) bool {
	if ref == nil || ref.Value == nil {
		return ref == nil || ref.Ref == ""
	}
	if ref.Ref != "" {
		return false
	}
	got, err := json.Marshal(ref.Value)
	return err == nil && string(got) == "{}"
}

// extraChecks runs the extra checks done in code that apply to ex, whose
// route template is template.
func extraChecks(template string, ex Exchange) []string {
	if ex.Method == http.MethodGet && template == logsTemplate && ex.Status == http.StatusOK {
		return tag(CheckLogEntryShape, checkLogEntries(ex.ResponseBody))
	}
	return nil
}

// checkLogEntries checks a /logs 200 body against the real entry shape
// (CheckLogEntryShape) with package logshape, which the provider and the
// conformance check (internal/conformance) share. A body that is not JSON
// is left to kin-openapi.
func checkLogEntries(body []byte) []string {
	problems := logshape.Check(body)
	if len(problems) == 1 && problems[0].Kind == logshape.KindNotJSON {
		return nil
	}
	return logshape.Render(problems)
}
