package gateway_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// The specification's schema of each version (testdata/spec), to check
// what an agent of that version receives.

// resultOf names the schema definition of the result of each method.
var resultOf = map[string]string{
	"initialize":               "InitializeResult",
	"server/discover":          "DiscoverResult",
	"ping":                     "EmptyResult",
	"tools/list":               "ListToolsResult",
	"tools/call":               "CallToolResult",
	"prompts/list":             "ListPromptsResult",
	"prompts/get":              "GetPromptResult",
	"resources/list":           "ListResourcesResult",
	"resources/templates/list": "ListResourceTemplatesResult",
	"resources/read":           "ReadResourceResult",
	"completion/complete":      "CompleteResult",
	"logging/setLevel":         "EmptyResult",
	"resources/subscribe":      "EmptyResult",
	"resources/unsubscribe":    "EmptyResult",
	"tasks/get":                "GetTaskResult",
	"tasks/list":               "ListTasksResult",
	"tasks/cancel":             "CancelTaskResult",
}

// notificationOf names the schema definition of each notification.
var notificationOf = map[string]string{
	"notifications/progress":                   "ProgressNotification",
	"notifications/message":                    "LoggingMessageNotification",
	"notifications/tools/list_changed":         "ToolListChangedNotification",
	"notifications/prompts/list_changed":       "PromptListChangedNotification",
	"notifications/resources/list_changed":     "ResourceListChangedNotification",
	"notifications/resources/updated":          "ResourceUpdatedNotification",
	"notifications/subscriptions/acknowledged": "SubscriptionsAcknowledgedNotification",
	"notifications/elicitation/complete":       "ElicitationCompleteNotification",
	"notifications/cancelled":                  "CancelledNotification",
	"notifications/tasks/status":               "TaskStatusNotification",
}

var (
	specMu      sync.Mutex
	specSchemas = map[string]*jsonschema.Resolved{} // by version and definition
)

// specSchema is definition def of version's schema.
func specSchema(t *testing.T, version, def string) *jsonschema.Resolved {
	t.Helper()
	specMu.Lock()
	defer specMu.Unlock()
	if rs, ok := specSchemas[version+"#"+def]; ok {
		return rs
	}
	b, err := os.ReadFile(filepath.Join("testdata", "spec", version+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	defs := "$defs"
	if _, ok := doc["definitions"]; ok {
		defs = "definitions"
	}
	if _, ok := doc[defs].(map[string]any)[def]; !ok {
		t.Fatalf("the %s schema defines no %s", version, def)
	}
	doc["allOf"] = []any{map[string]any{"$ref": "#/" + defs + "/" + def}}
	b, _ = json.Marshal(doc)
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("the %s schema: %v", version, err)
	}
	specSchemas[version+"#"+def] = rs
	return rs
}

// checkSchema checks message m, received by an agent of version, against
// that version's schema: a result against its method's result, a
// notification whole. It reports whether it checked m (its method known;
// the tasks of 2026-07-28 are an extension, not in its schema).
func checkSchema(t *testing.T, version string, m message) bool {
	t.Helper()
	var def string
	var instance any
	switch {
	case m.Method != "":
		def = notificationOf[m.Method]
		json.Unmarshal([]byte(m.raw), &instance)
	case m.Result != nil:
		def = resultOf[m.of]
		switch {
		case version == "2025-11-25" && m.of == "tools/call" && m.Result["task"] != nil:
			def = "CreateTaskResult"
		case version == "2025-11-25" && m.of == "tasks/result":
			def = "CallToolResult"
		case version >= "2026-07-28" && (strings.HasPrefix(m.of, "tasks/") || string(m.Result["resultType"]) == `"task"`):
			return false
		}
		raw, _ := json.Marshal(m.Result)
		json.Unmarshal(raw, &instance)
	}
	if def == "" {
		return false
	}
	if err := specSchema(t, version, def).Validate(instance); err != nil {
		t.Errorf("not a %s of %s: %v\n%s", def, version, err, m.raw)
	}
	return true
}

// The schemas refuse what their versions do not allow, so that a transcript
// checked against them could fail.
func TestTheSpecSchemasRefuseWrongShapes(t *testing.T) {
	for _, version := range agentEras {
		for def, instance := range map[string]string{
			"ListToolsResult":  `{"tools":"echo"}`,
			"CallToolResult":   `{"content":[{"type":"text"}]}`,
			"InitializeResult": `{"protocolVersion":"` + version + `"}`,
		} {
			if version >= "2026-07-28" && def == "InitializeResult" {
				def, instance = "DiscoverResult", `{"supportedVersions":"all"}`
			}
			var v any
			json.Unmarshal([]byte(instance), &v)
			if err := specSchema(t, version, def).Validate(v); err == nil {
				t.Errorf("%s: %s passes as a %s", version, instance, def)
			}
		}
	}
}
