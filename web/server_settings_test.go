package web

import (
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func TestCheckSettingsSendsOnlyWhatChanged(t *testing.T) {
	s := wire.Server{ID: "a", Name: "docs", URL: "https://d.example/mcp?api_key=•••", Transport: wire.TransportAuto,
		HeaderNames: []string{"X-Keep", "X-Gone", "X-New-Value"}}
	in := settingsInput{Name: "docs", URL: s.URL, Transport: wire.TransportSSE,
		Replace: map[string]string{"X-Keep": "", "X-Gone": "", "X-New-Value": "v2"}, Delete: map[string]bool{"X-Gone": true},
		New: []headerRow{{"x-added", "v3"}}, Retry: [3]string{"5", "", ""}}
	args, problem, _ := checkSettings(s, in)
	if problem != "" {
		t.Fatal(problem)
	}
	if args.Name != nil || args.URL != nil || args.Transport == nil || *args.Transport != wire.TransportSSE {
		t.Errorf("args %+v", args)
	}
	want := map[string]string{"X-Gone": "", "X-New-Value": "v2", "X-Added": "v3"}
	if len(args.Headers) != len(want) {
		t.Errorf("headers %v, want %v", args.Headers, want)
	}
	for k, v := range want {
		if args.Headers[k] != v {
			t.Errorf("header %s = %q, want %q", k, args.Headers[k], v)
		}
	}
	if args.Retry == nil || args.Retry.Attempts != 5 {
		t.Errorf("retry %+v", args.Retry)
	}
}

func TestCheckSettingsExplainsBadInput(t *testing.T) {
	s := wire.Server{ID: "a", Name: "docs", URL: "https://d.example/mcp?api_key=•••", Transport: wire.TransportAuto}
	for _, c := range []struct {
		in    settingsInput
		want  string
		field string
	}{
		{settingsInput{Name: "", URL: s.URL}, "Give the server a name", fieldName},
		{settingsInput{Name: "docs", URL: "https://d.example:0/mcp"}, "out of range", fieldURL},
		{settingsInput{Name: "docs", URL: s.URL, Retry: [3]string{"x"}}, "not a whole number", fieldRetry},
		{settingsInput{Name: "docs", URL: s.URL, Retry: [3]string{"", "2000", "1000"}}, "shorter than the first", fieldRetry},
		{settingsInput{Name: "docs", URL: s.URL, New: []headerRow{{"Transfer-Encoding", "x"}}}, "cannot be set", fieldHeaders},
	} {
		_, problem, field := checkSettings(s, c.in)
		if !strings.Contains(problem, c.want) || field != c.field {
			t.Errorf("%+v: %q (%s), want %q (%s)", c.in, problem, field, c.want, c.field)
		}
	}
}
