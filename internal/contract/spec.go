package contract

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/pkg/errors"
)

// SpecFile is the vendor spec's file name.
const SpecFile = "simplyblock-api-v2.openapi.json"

// apiPrefix: only paths below it are validated.
const apiPrefix = "/api/v2/"

// SpecPath returns ../shared/reference/simplyblock-api-v2.openapi.json
// relative to the repository root, the nearest directory above the working
// directory that holds go.mod. The spec is not vendored into the repo.
func SpecPath() string {
	dir, err := os.Getwd()
	if err != nil {
		return filepath.Join("..", "shared", "reference", SpecFile)
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return filepath.Join(d, "..", "shared", "reference", SpecFile)
		}
		if filepath.Dir(d) == d {
			return filepath.Join(dir, "..", "shared", "reference", SpecFile)
		}
	}
}

// Spec is the loaded vendor spec, with the documented deviations and the
// tightenings applied to the kin-openapi document in memory. It is
// immutable after ParseSpec and safe for concurrent use.
type Spec struct {
	doc    *openapi3.T
	router routers.Router
	// creates holds, per create operation (one with a response-format query
	// parameter), the operation to check a 201 against for each format
	// (DevCreateBodies).
	creates map[*openapi3.Operation]map[string]*openapi3.Operation
}

// LoadSpec reads and compiles the spec at path.
func LoadSpec(path string) (*Spec, error) {
	raw, err := os.ReadFile(path) //nolint:gosec // test helper reading a known file
	if err != nil {
		return nil, errors.Wrap(err, "cannot read OpenAPI spec")
	}
	return ParseSpec(raw)
}

// ParseSpec loads an OpenAPI 3.1 document with kin-openapi, repairs and
// tightens it, applies the tolerated Deviations and builds its router. It
// fails when the document is not OpenAPI 3.1, uses a schema keyword or
// format that would go unchecked, or no longer has the shape a patch or
// an extra check expects.
func ParseSpec(raw []byte) (*Spec, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(raw)
	if err != nil {
		return nil, errors.Wrap(err, "cannot load OpenAPI spec")
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.1") {
		return nil, errors.Errorf("unsupported OpenAPI version %q, want 3.1.x", doc.OpenAPI)
	}
	if err := lintSchemas(doc); err != nil {
		return nil, err
	}
	if err := repairSpec(doc); err != nil {
		return nil, err
	}
	if err := applyExtraChecks(doc); err != nil {
		return nil, err
	}
	if err := applySchemaDeviations(doc); err != nil {
		return nil, err
	}
	if err := applyResponseDeviations(doc); err != nil {
		return nil, err
	}
	if err := lintAccessModes(doc); err != nil {
		return nil, err
	}
	creates, err := createVariants(doc)
	if err != nil {
		return nil, err
	}
	closeObjectSchemas(doc)
	if err := doc.Validate(context.Background()); err != nil {
		return nil, errors.Wrap(err, "invalid OpenAPI spec")
	}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, errors.Wrap(err, "cannot route OpenAPI spec")
	}
	return &Spec{doc: doc, router: router, creates: creates}, nil
}

// findRoute returns the operation for method and path. pathKnown reports
// whether some operation matches path with another method.
func (s *Spec) findRoute(method, path string) (route *routers.Route, params map[string]string, pathKnown bool) {
	route, params, err := s.router.FindRoute(newRequest(method, path, nil, nil, nil))
	if err == nil {
		return route, params, true
	}
	return nil, nil, s.template(path) != ""
}

// template returns the path template matching path with any method, or "".
func (s *Spec) template(path string) string {
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch} {
		if route, _, err := s.router.FindRoute(newRequest(m, path, nil, nil, nil)); err == nil {
			return route.Path
		}
	}
	return ""
}

// slashHint explains a path that only differs by its trailing slash.
func (s *Spec) slashHint(path string) string {
	alt := strings.TrimSuffix(path, "/")
	if alt == path {
		alt = path + "/"
	}
	if t := s.template(alt); t != "" {
		return " (the spec has " + t + ": wrong trailing slash, the backend answers 307)"
	}
	return ""
}

// operationKey names an operation like "PUT /api/v2/clusters/{cluster_id}/".
func operationKey(method, template string) string { return method + " " + template }
