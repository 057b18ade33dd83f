package web

import (
	"net/url"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func TestCheckAddServer(t *testing.T) {
	cases := []struct {
		name, url    string
		wantURL      string
		wantProblem  string // a part of the problem; "" when the form can be sent
		wantTrimName string
	}{
		{"demo", "http://127.0.0.1:9001/mcp/", "http://127.0.0.1:9001/mcp", "", "demo"},
		{"  spaced  ", "HTTPS://Example.com:443/mcp", "https://example.com/mcp", "", "spaced"},
		{"", "http://127.0.0.1/mcp", "", "Give the server a name", ""},
		{"   ", "http://127.0.0.1/mcp", "", "Give the server a name", ""},
		{strings.Repeat("n", maxServerName*100), "http://127.0.0.1/mcp", "", "10000 characters long; the limit is 100", ""},
		{"demo", "http://127.0.0.1:8192/ mcp", "", "spaces", ""},
		{"demo", "127.0.0.1:8192/mcp", "", "missing scheme", ""},
		{"demo", "http://127.0.0.1:99999/mcp", "", "port", ""},
		{strings.Repeat("é", maxServerName), "http://127.0.0.1/mcp", "http://127.0.0.1/mcp", "", strings.Repeat("é", maxServerName)},
		{"demo", "", "", "The URL cannot be used: empty", ""},
		{"demo", "ftp://example.com", "", `scheme "ftp" is not allowed`, ""},
		{"demo", "example.com/mcp", "", "missing scheme", ""},
		{"demo", "http://user:pw@example.com/mcp", "", "credentials", ""},
		{"demo", "http://", "", "missing host", ""},
	}
	for _, c := range cases {
		args, problem, _ := checkAddServer(addInput{Name: c.name, URL: c.url})
		if c.wantProblem == "" {
			if problem != "" || args.URL != c.wantURL || args.Name != c.wantTrimName {
				t.Errorf("checkAddServer(%q, %q) = %+v, %q; want URL %q", c.name, c.url, args, problem, c.wantURL)
			}
			continue
		}
		if !strings.Contains(problem, c.wantProblem) {
			t.Errorf("checkAddServer(%q, %q) problem = %q, want it to contain %q", c.name, c.url, problem, c.wantProblem)
		}
	}
}

func TestCheckAddServerSendsTheChosenTransport(t *testing.T) {
	cases := []struct {
		transport, want wire.Transport
		wantProblem     string
	}{
		{"", wire.TransportAuto, ""},
		{wire.TransportAuto, wire.TransportAuto, ""},
		{wire.TransportStreamable, wire.TransportStreamable, ""},
		{wire.TransportSSE, wire.TransportSSE, ""},
		{"websocket", "", "Choose auto, Streamable HTTP or SSE"},
	}
	for _, c := range cases {
		args, problem, _ := checkAddServer(addInput{Name: "demo", URL: "http://127.0.0.1:9001/mcp", Transport: c.transport})
		if args.Transport != c.want || !strings.Contains(problem, c.wantProblem) || (c.wantProblem == "") != (problem == "") {
			t.Errorf("transport %q: args %+v problem %q, want transport %q problem %q", c.transport, args, problem, c.want, c.wantProblem)
		}
	}
}

func TestParseToolArgs(t *testing.T) {
	cases := []struct {
		in          string
		want        string // compacted JSON when accepted
		wantProblem string
	}{
		{"{}", "{}", ""},
		{"  {\n  \"text\": \"hi\",\n  \"n\": 2\n}\n", `{"text":"hi","n":2}`, ""},
		{`{"nested": {"a": [1, 2]}}`, `{"nested":{"a":[1,2]}}`, ""},
		{"", "", "must be a JSON object"},
		{"[]", "", "must be a JSON object"},
		{"null", "", "must be a JSON object"},
		{`"text"`, "", "must be a JSON object"},
		{`{"text": }`, "", "line 1, column 10"},
		{"{\n  \"a\": 1,\n}", "", "line 3"},
		{`{"a": 1`, "", "ends too early"},
		{`{} {}`, "", "more text after it"},
		{`{}}`, "", "more text after it"},
	}
	for _, c := range cases {
		got, problem := parseToolArgs(c.in)
		if c.wantProblem == "" {
			if problem != "" || string(got) != c.want {
				t.Errorf("parseToolArgs(%q) = %s, %q; want %s", c.in, got, problem, c.want)
			}
			continue
		}
		if got != nil || !strings.Contains(problem, c.wantProblem) {
			t.Errorf("parseToolArgs(%q) = %s, %q; want no args and a problem containing %q", c.in, got, problem, c.wantProblem)
		}
	}
}

func TestMissingPromptArgsNamesTheEmptyRequiredOnes(t *testing.T) {
	p := wire.Prompt{Name: "greet", Arguments: []wire.PromptArgument{
		{Name: "name", Required: true}, {Name: "tone"}, {Name: "city", Required: true},
	}}
	cases := []struct {
		values map[string]string
		want   string
	}{
		{map[string]string{"name": "Ada", "city": "Paris"}, ""},
		{map[string]string{"name": "Ada"}, "city"},
		{map[string]string{"name": "  ", "tone": "warm"}, "name,city"},
		{nil, "name,city"},
	}
	for _, c := range cases {
		if got := strings.Join(missingPromptArgs(p, c.values), ","); got != c.want {
			t.Errorf("missingPromptArgs(%v) = %q, want %q", c.values, got, c.want)
		}
	}
}

func TestRelayURLIsTheSameOriginWebSocket(t *testing.T) {
	cases := []struct{ page, want string }{
		{"http://127.0.0.1:8080/", "ws://127.0.0.1:8080/ws"},
		{"https://relay.example.com/some/page?x=1#frag", "wss://relay.example.com/ws"},
		{"http://[::1]:9000/", "ws://[::1]:9000/ws"},
	}
	for _, c := range cases {
		u, err := url.Parse(c.page)
		if err != nil {
			t.Fatal(err)
		}
		if got := relayURL(u); got != c.want {
			t.Errorf("relayURL(%s) = %s, want %s", c.page, got, c.want)
		}
	}
}

func TestCheckAddServerNamesTheFieldAtFault(t *testing.T) {
	cases := []struct {
		in                 addInput
		wantProblem, field string
	}{
		{addInput{Name: "docs", URL: "https://e.example/mcp", Taken: []string{"docs"}}, "names are unique", fieldName},
		{addInput{Name: "x", URL: "https://e.example/mcp", ID: "!!!"}, "The id cannot be used", fieldServerID},
		{addInput{Name: "x", URL: "http://u:p@e.example/mcp"}, "credentials", fieldURL},
		{addInput{Name: "x", URL: "https://e.example/mcp", Headers: []headerRow{{"Host", "h"}}}, "cannot be set", fieldHeaders},
		{addInput{Name: "x", URL: "https://e.example/mcp", Headers: []headerRow{{"X-Key", ""}}}, "Enter a value for the header X-Key", fieldHeaders},
		{addInput{Name: "x", URL: "https://e.example/mcp", Headers: []headerRow{{"", "v"}}}, "no name", fieldHeaders},
	}
	for _, c := range cases {
		_, problem, field := checkAddServer(c.in)
		if !strings.Contains(problem, c.wantProblem) || field != c.field {
			t.Errorf("%+v: problem %q field %q, want %q in %q", c.in, problem, field, c.wantProblem, c.field)
		}
	}
	args, problem, _ := checkAddServer(addInput{Name: "x", URL: "https://e.example/mcp", ID: "My Server",
		Headers: []headerRow{{"x-api-key", "v1"}, {"", ""}}})
	if problem != "" || args.ID != "my-server" || args.Headers["X-Api-Key"] != "v1" || len(args.Headers) != 1 {
		t.Errorf("args %+v problem %q", args, problem)
	}
}
