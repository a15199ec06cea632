package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"reflect"
	"slices"
	"strings"

	"github.com/google/uuid"
	"github.com/sosodev/duration"

	sb "github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
)

// The DTO enums (sbcli simplyblock_web/api/v2/_dtos.py:30-56). A cluster
// in_shrink is not in ClusterStatus: the backend answers 500 instead of
// listing it.
var (
	clusterStatuses = []string{"active", "read_only", "inactive", "suspended", "degraded", "unready", "in_activation", "in_expansion"}
	nodeStatuses    = []string{"online", "offline", "suspended", "in_shutdown", "removed", "in_restart", "in_creation",
		"unreachable", "schedulable", "down"}
	poolStatuses = []string{"active", "inactive"}
	taskStatuses = []string{"new", "running", "suspended", "done"}
	// Every status a cluster's record can hold (models/cluster.py:20-33),
	// for the log's "Cluster status changed from X to Y".
	clusterModelStatuses = append(slices.Clone(clusterStatuses), "in_shrink")
)

// The fields the provider decides on: without them, or in another form,
// it would decide wrongly rather than fail.
var (
	clusterReadKeys = []string{"id", "status", "is_re_balancing"}
	nodeReadKeys    = []string{"id", "status", "uptime", "mgmt_ip"}
)

// findings are the differences of one response from what the provider
// reads. Fatal ones make the provider decide wrongly or not at all; strict
// ones differ from sbcli 754ff3e1 in what the provider does not decide on
// (a FAIL of the full check, a note of the provider's probe); notes never
// fail.
type findings struct {
	fatal, strict, notes []string
}

func (f *findings) addFatal(format string, args ...any) {
	f.fatal = appendUnique(f.fatal, fmt.Sprintf(format, args...))
}

func (f *findings) addStrict(format string, args ...any) {
	f.strict = appendUnique(f.strict, fmt.Sprintf(format, args...))
}

func (f *findings) addNote(format string, args ...any) {
	f.notes = appendUnique(f.notes, fmt.Sprintf(format, args...))
}

func appendUnique(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// failures returns what fails: the fatal findings, and the strict ones
// when strict.
func (f findings) failures(strict bool) []string {
	if strict {
		return append(slices.Clone(f.fatal), f.strict...)
	}
	return f.fatal
}

// remarks returns what is only reported: the notes, and the strict
// findings when not strict.
func (f findings) remarks(strict bool) []string {
	if strict {
		return f.notes
	}
	return append(slices.Clone(f.strict), f.notes...)
}

// jsonKeys returns the JSON keys of a DTO struct type.
func jsonKeys(v any) []string {
	t := reflect.TypeOf(v)
	keys := make([]string, 0, t.NumField())
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			keys = append(keys, name)
		}
	}
	return keys
}

// decodeObjects decodes a list of DTOs (list) or one DTO into out, a
// pointer to a []T or a T, and returns the JSON objects themselves, or
// records why it cannot.
func decodeObjects(body []byte, list bool, out any, dto string, f *findings) []map[string]any {
	var raw any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		f.addFatal("response body is not JSON")
		return nil
	}
	var items []any
	if list {
		arr, ok := raw.([]any)
		if !ok {
			f.addFatal("response body is %s, want a list of %s", jsonKind(raw), dto)
			return nil
		}
		items = arr
	} else {
		items = []any{raw}
	}
	objs := make([]map[string]any, 0, len(items))
	for i, it := range items {
		obj, ok := it.(map[string]any)
		if !ok {
			f.addFatal("%s is %s, want a %s object", at(list, i, ""), jsonKind(it), dto)
			return nil
		}
		objs = append(objs, obj)
	}
	if err := json.Unmarshal(body, out); err != nil {
		// encoding/json names the field and the Go type, never the value.
		f.addFatal("does not decode as %s: %s", dto, strings.TrimPrefix(err.Error(), "json: "))
	}
	return objs
}

// at names item i of a list (or the object), and a key of it.
func at(list bool, i int, key string) string {
	p := ""
	if list {
		p = fmt.Sprintf("/%d", i)
	}
	if key != "" {
		p += "/" + key
	}
	if p == "" {
		return "the object"
	}
	return p
}

// checkKeys records the keys of obj that a DTO with keys lacks (fatal
// when the provider reads them) and those it does not have (notes).
func checkKeys(f *findings, list bool, i int, obj map[string]any, keys, read []string) {
	var missing, extra []string
	for _, k := range keys {
		if _, ok := obj[k]; !ok {
			missing = append(missing, k)
		}
	}
	for k := range obj {
		if !slices.Contains(keys, k) {
			extra = append(extra, k)
		}
	}
	slices.Sort(extra)
	for _, k := range missing {
		if slices.Contains(read, k) {
			f.addFatal("%s: missing (the provider reads it)", at(list, i, k))
		} else {
			f.addStrict("%s: missing", at(list, i, k))
		}
	}
	if len(extra) > 0 {
		f.addNote("keys the provider does not read: %s", strings.Join(extra, ", "))
	}
}

// stringField returns obj[key] when it is a string.
func stringField(obj map[string]any, key string) (string, bool) {
	s, ok := obj[key].(string)
	return s, ok
}

// A clusterInfo is what later checks need of a listed cluster.
type clusterInfo struct {
	id, status, secret string
}

// checkClusterDTOs checks a GET /clusters/ (list) or /clusters/{id}/ body
// against ClusterDTO (_dtos.py:111-164) and returns the clusters.
func checkClusterDTOs(body []byte, list bool) ([]clusterInfo, findings) {
	var f findings
	var out any = &[]sb.ClusterDTO{}
	if !list {
		out = &sb.ClusterDTO{}
	}
	objs := decodeObjects(body, list, out, "ClusterDTO", &f)
	keys := jsonKeys(sb.ClusterDTO{})
	infos := make([]clusterInfo, 0, len(objs))
	for i, obj := range objs {
		checkKeys(&f, list, i, obj, keys, clusterReadKeys)
		var c clusterInfo
		c.id, _ = stringField(obj, "id")
		if _, err := uuid.Parse(c.id); c.id != "" && err != nil {
			f.addStrict("%s: not a UUID", at(list, i, "id"))
		}
		if st, ok := stringField(obj, "status"); ok {
			c.status = st
			switch {
			case st == string(sb.ClusterInShrink):
				f.addStrict("%s: %q is outside the DTO enum: the backend answers 500 instead of listing a cluster in_shrink", at(list, i, "status"), st)
			case !slices.Contains(clusterStatuses, st):
				f.addFatal("%s: %q is not one of %s", at(list, i, "status"), st, strings.Join(clusterStatuses, ", "))
			}
		}
		if v, ok := obj["is_re_balancing"]; ok {
			if _, isBool := v.(bool); !isBool {
				f.addFatal("%s: %s, want a boolean", at(list, i, "is_re_balancing"), jsonKind(v))
			}
		}
		if v, ok := obj["secret"]; ok {
			s, isString := v.(string)
			switch {
			case !isString:
				f.addStrict("%s: %s, want a string", at(list, i, "secret"), jsonKind(v))
			case strings.TrimSpace(s) == "":
				f.addStrict("%s: empty", at(list, i, "secret"))
			default:
				c.secret = s
			}
		}
		infos = append(infos, c)
	}
	return infos, f
}

// A nodeInfo is what later checks need of a listed node.
type nodeInfo struct {
	id, status string
	uptime     *string
}

// checkNodeDTOs checks a node list or detail body against StorageNodeDTO
// (_dtos.py:310-370). uptime is now - online_since while online, else
// null (models/storage_node.py:956-961); the provider parses it with
// github.com/sosodev/duration to prove a restart after its call.
func checkNodeDTOs(body []byte, list bool) ([]nodeInfo, findings) {
	var f findings
	var out any = &[]sb.StorageNodeDTO{}
	if !list {
		out = &sb.StorageNodeDTO{}
	}
	objs := decodeObjects(body, list, out, "StorageNodeDTO", &f)
	keys := jsonKeys(sb.StorageNodeDTO{})
	infos := make([]nodeInfo, 0, len(objs))
	for i, obj := range objs {
		checkKeys(&f, list, i, obj, keys, nodeReadKeys)
		var n nodeInfo
		n.id, _ = stringField(obj, "id")
		if st, ok := stringField(obj, "status"); ok {
			n.status = st
			if !slices.Contains(nodeStatuses, st) {
				f.addFatal("%s: %q is not one of %s", at(list, i, "status"), st, strings.Join(nodeStatuses, ", "))
			}
		}
		if ip, ok := stringField(obj, "mgmt_ip"); ok {
			if p := net.ParseIP(ip); p == nil || p.To4() == nil {
				f.addFatal("%s: %q is not an IPv4 address", at(list, i, "mgmt_ip"), ip)
			}
		}
		if up, ok := stringField(obj, "uptime"); ok {
			n.uptime = &up
			d, err := duration.Parse(up)
			switch {
			case err != nil:
				f.addFatal("%s: %q is not an ISO 8601 duration github.com/sosodev/duration parses: %v", at(list, i, "uptime"), up, err)
			case d.ToTimeDuration() < 0:
				f.addFatal("%s: %q is negative", at(list, i, "uptime"), up)
			case n.status != string(sb.NodeOnline):
				f.addNote("%s: set while %s (the backend sets it only while online)", at(list, i, "uptime"), n.status)
			}
		} else if n.status == string(sb.NodeOnline) {
			f.addFatal("%s: null while online: the provider cannot prove a restart", at(list, i, "uptime"))
		}
		infos = append(infos, n)
	}
	return infos, f
}

// checkPoolDTOs checks a pool list against StoragePoolDTO (_dtos.py:230-261).
func checkPoolDTOs(body []byte) (int, findings) {
	var f findings
	objs := decodeObjects(body, true, &[]sb.StoragePoolDTO{}, "StoragePoolDTO", &f)
	keys := jsonKeys(sb.StoragePoolDTO{})
	for i, obj := range objs {
		checkKeys(&f, true, i, obj, keys, []string{"id", "name", "status", "max_size", "volume_max_size"})
		if st, ok := stringField(obj, "status"); ok && !slices.Contains(poolStatuses, st) {
			f.addFatal("%s: %q is not one of %s", at(true, i, "status"), st, strings.Join(poolStatuses, ", "))
		}
	}
	return len(objs), f
}

// checkTaskDTOs checks a task list against TaskDTO (_dtos.py:373-402) and
// returns the function names it holds.
func checkTaskDTOs(body []byte) ([]string, findings) {
	var f findings
	objs := decodeObjects(body, true, &[]sb.TaskDTO{}, "TaskDTO", &f)
	keys := jsonKeys(sb.TaskDTO{})
	var fns []string
	for i, obj := range objs {
		checkKeys(&f, true, i, obj, keys, []string{"id", "status", "canceled", "function_name", "storage_node_id", "function_result"})
		if st, ok := stringField(obj, "status"); ok && !slices.Contains(taskStatuses, st) {
			f.addFatal("%s: %q is not one of %s", at(true, i, "status"), st, strings.Join(taskStatuses, ", "))
		}
		if fn, ok := stringField(obj, "function_name"); ok {
			fns = appendUnique(fns, fn)
		}
	}
	return fns, f
}

// jsonKind names the JSON type of a decoded value.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number, float64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// summarize joins at most max items, counting the others.
func summarize(items []string, max int) string {
	if len(items) <= max {
		return strings.Join(items, "; ")
	}
	return fmt.Sprintf("%s; and %d more", strings.Join(items[:max], "; "), len(items)-max)
}
