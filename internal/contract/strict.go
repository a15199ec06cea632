package contract

import (
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/pkg/errors"
)

// This file holds what makes the validator stricter than kin-openapi out of
// the box, and the repair of a defect of the published spec. None of it is
// a backend deviation.

// formatValidators checks every string format the spec uses, the way the
// backend (pydantic) parses it. kin-openapi only checks a few formats by
// default; lintSchemas refuses any format missing here, so none goes
// unchecked.
var formatValidators = map[string]openapi3.StringFormatValidator{
	// pydantic accepts any UUID version, as does the backend.
	"uuid":     openapi3.NewRegexpFormatValidator(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`),
	"ipv4":     openapi3.NewIPValidator(true),
	"duration": openapi3.NewCallbackValidator(validateDuration),
	"date-time": openapi3.NewCallbackValidator(func(s string) error {
		// pydantic emits naive datetimes without a zone offset.
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999"} {
			if _, err := time.Parse(layout, s); err == nil {
				return nil
			}
		}
		return errors.New("not an RFC 3339 date-time")
	}),
	"uri": openapi3.NewCallbackValidator(func(s string) error {
		if u, err := url.Parse(s); err != nil || u.Scheme == "" {
			return errors.New("not an absolute URI")
		}
		return nil
	}),
	// password is only an annotation (hide the value in UIs).
	"password": openapi3.NewCallbackValidator(func(string) error { return nil }),
}

var durationRE = regexp.MustCompile(`^-?P(\d+Y)?(\d+M)?(\d+W)?(\d+D)?(T(\d+H)?(\d+M)?(\d+(\.\d+)?S)?)?$`)

// validateDuration accepts an ISO 8601 duration such as P1DT2H.
func validateDuration(s string) error {
	if !durationRE.MatchString(s) || s == "P" || s == "-P" || strings.HasSuffix(s, "T") {
		return errors.New("not an ISO 8601 duration")
	}
	return nil
}

// schemaOptions are passed to every kin-openapi schema validation.
var schemaOptions = []openapi3.SchemaValidationOption{openapi3.WithStringFormatValidators(formatValidators)}

// lintSchemas fails on a schema keyword kin-openapi does not know (it would
// keep it as an extension and ignore it) and on a format without a
// validator.
func lintSchemas(doc *openapi3.T) error {
	return doc.WalkSchemas(func(at string, ref *openapi3.SchemaRef) error {
		sch := ref.Value
		for _, k := range slices.Sorted(maps.Keys(sch.Extensions)) {
			if !strings.HasPrefix(k, "x-") {
				return errors.Errorf("%s: unsupported schema keyword %q", at, k)
			}
		}
		if sch.Format == "" {
			return nil
		}
		if _, ok := formatValidators[sch.Format]; !ok || !slices.Contains(sch.Type.Slice(), openapi3.TypeString) {
			return errors.Errorf("%s: unsupported format %q", at, sch.Format)
		}
		return nil
	})
}

// lintAccessModes fails on a writeOnly property a response can carry and on
// a readOnly property a request body can carry. kin-openapi's JSON Schema
// 2020-12 validator does not enforce either keyword (its 3.0 validator,
// which it falls back to for some schemas, does), so such a property would
// go unchecked. Run it after the deviation patches.
func lintAccessModes(doc *openapi3.T) error {
	check := func(where string, content openapi3.Content, bad func(*openapi3.Schema) bool, keyword string) error {
		for _, mt := range content {
			if mt == nil || mt.Schema == nil {
				continue
			}
			err := mt.Schema.WalkSubtree(func(at string, ref *openapi3.SchemaRef) error {
				if bad(ref.Value) {
					return errors.Errorf("%s%s: %s is not enforced by kin-openapi's JSON Schema 2020-12 validator: review Deviations", where, at, keyword)
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		return nil
	}
	for template, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			where := operationKey(method, template)
			if op.RequestBody != nil && op.RequestBody.Value != nil {
				if err := check(where+" request body", op.RequestBody.Value.Content, func(s *openapi3.Schema) bool { return s.ReadOnly }, "readOnly"); err != nil {
					return err
				}
			}
			for status, r := range op.Responses.Map() {
				if err := check(where+" response "+status, r.Value.Content, func(s *openapi3.Schema) bool { return s.WriteOnly }, "writeOnly"); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// closeObjectSchemas makes every object schema that lists its properties
// and says nothing about others closed (additionalProperties: false). The
// backend silently drops unknown request fields, and FastAPI response
// models never emit extra ones, so an unknown field is always a mistake.
func closeObjectSchemas(doc *openapi3.T) {
	_ = doc.WalkSchemas(func(_ string, ref *openapi3.SchemaRef) error {
		sch := ref.Value
		ap := sch.AdditionalProperties
		if len(sch.Properties) > 0 && ap.Has == nil && ap.Schema == nil {
			closed := false
			sch.AdditionalProperties.Has = &closed
		}
		return nil
	})
}

// repairSpec fixes defects that make kin-openapi refuse the published spec.
// Each repair fails loudly once the spec no longer has the defect.
func repairSpec(doc *openapi3.T) error {
	// GET .../volumes/{volume_id}/migrations/ does not declare its pool_id
	// and volume_id path parameters; the POST of the same path does.
	const migrations = "/api/v2/clusters/{cluster_id}/storage-pools/{pool_id}/volumes/{volume_id}/migrations/"
	item := doc.Paths.Value(migrations)
	if item == nil || item.Get == nil || item.Post == nil {
		return errors.Errorf("spec repair: %s changed: review repairSpec", migrations)
	}
	for _, name := range []string{"pool_id", "volume_id"} {
		if item.Get.Parameters.GetByInAndName(openapi3.ParameterInPath, name) != nil {
			return errors.Errorf("spec repair: GET %s now declares %s: remove the repair", migrations, name)
		}
		p := item.Post.Parameters.GetByInAndName(openapi3.ParameterInPath, name)
		if p == nil {
			return errors.Errorf("spec repair: POST %s lacks %s: review repairSpec", migrations, name)
		}
		item.Get.Parameters = append(item.Get.Parameters, &openapi3.ParameterRef{Value: p})
	}
	allowNullInUntypedProperties(doc)
	return nil
}

// allowNullInUntypedProperties makes component-schema properties that declare
// no type accept null, as JSON Schema 2020-12 (OpenAPI 3.1) says they do.
// kin-openapi applies OpenAPI 3.0's nullable rule to them instead; the
// backend's 422 bodies carry "input": null (ValidationError.input).
func allowNullInUntypedProperties(doc *openapi3.T) {
	for _, ref := range doc.Components.Schemas {
		if ref == nil || ref.Value == nil {
			continue
		}
		for _, prop := range ref.Value.Properties {
			if prop != nil && prop.Ref == "" && prop.Value != nil && (prop.Value.Type == nil || len(*prop.Value.Type) == 0) &&
				len(prop.Value.AnyOf) == 0 && len(prop.Value.OneOf) == 0 && len(prop.Value.AllOf) == 0 {
				// Spelled out: kin-openapi's 2020-12 mode still reads null
				// acceptance from the type list of an untyped schema.
				prop.Value.Type = &openapi3.Types{"null", "boolean", "object", "array", "number", "string"}
			}
		}
	}
}

// undeclaredQuery lists the query parameters op does not declare; the
// backend silently ignores them, so sending one is a mistake.
// kin-openapi does not check this.
func undeclaredQuery(op *openapi3.Operation, query url.Values) []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(query)) {
		if op.Parameters.GetByInAndName(openapi3.ParameterInQuery, name) == nil {
			out = append(out, fmt.Sprintf("query parameter %q is not declared", name))
		}
	}
	return out
}
