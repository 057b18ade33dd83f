package codemode

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestToolArgumentsAreReadOrRefused(t *testing.T) {
	if q, err := QueryOf(nil); q != "" || err != nil {
		t.Errorf("no arguments: %q %v", q, err)
	}
	if q, err := QueryOf(json.RawMessage(`{"query":"files"}`)); q != "files" || err != nil {
		t.Errorf("a query: %q %v", q, err)
	}
	if _, err := QueryOf(json.RawMessage(`["files"]`)); err == nil {
		t.Error("search took an array")
	}
	if p, err := ProgramOf(json.RawMessage(`{"code":"return 1"}`)); p != "return 1" || err != nil {
		t.Errorf("a program: %q %v", p, err)
	}
	for _, bad := range []string{``, `{}`, `{"code":""}`, `{"code":7}`} {
		if _, err := ProgramOf(json.RawMessage(bad)); err == nil || !strings.Contains(err.Error(), "execute takes") {
			t.Errorf("%s: %v", bad, err)
		}
	}
	huge, _ := json.Marshal(map[string]string{"code": strings.Repeat("x", MaxProgramBytes+1)})
	if _, err := ProgramOf(huge); err == nil || err.Error() != "the program is over 64 KiB" {
		t.Errorf("a huge program: %v", err)
	}
}
