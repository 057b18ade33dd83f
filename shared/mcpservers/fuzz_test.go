package mcpservers

import (
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/shared/urlnorm"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// FuzzParse reads any document as an imported mcpServers file: it is
// refused as a whole with a reason, or each entry is a server over HTTP, a
// command or a one-line problem, within the limits, each name taken once;
// the HTTP servers exported again read back with the same names,
// transports and header names, every header value the placeholder, and
// the URL of the server (as the relay keeps it) without its secrets.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"mcpServers":{"a":{"url":"https://a.example/mcp","headers":{"X-Key":"k"}},"b":{"command":"npx","args":["-y","x"],"env":{"K":"v"}},"c":{"type":"sse","url":"https://c.example/sse?api_key=s&x=1"}}}`,
		`{"servers":{"v":{"type":"http","url":"https://v.example"},"w":{"type":"stdio"}}}`,
		`{"mcp":{"servers":{"m":{"serverUrl":"https://m.example","transport":"streamable_http"}}}}`,
		`{"mcpServers":{"a":{"url":"https://x"},"a":{"url":"https://y"},"b":{"url":"u","command":"c"},"c":{"type":"carrier\npigeon","url":"u"},"d":[],"e":{}}}`,
		`{"mcpServers":[]}`, `{"mcpServers":{"a":1,}}`, `{}`, `[]`, `{"mcpServers":{"":{"url":"https://e"}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		entries, err := Parse(doc)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("Parse(%q) fails without saying why", doc)
			}
			return
		}
		if len(entries) > MaxEntries {
			t.Fatalf("Parse(%q) read %d entries", doc, len(entries))
		}
		var servers []wire.Server
		want := map[string]Entry{}
		for _, e := range entries {
			set := 0
			for _, is := range []bool{e.HTTP != nil, e.Stdio != nil, e.Problem != ""} {
				if is {
					set++
				}
			}
			if set != 1 {
				t.Fatalf("Parse(%q): entry %+v is not one of HTTP, stdio or problem", doc, e)
			}
			if strings.ContainsAny(e.Problem, "\r\n") {
				t.Fatalf("Parse(%q): problem %q is not one line", doc, e.Problem)
			}
			if e.Problem != "" {
				continue
			}
			if _, dup := want[e.Name]; dup {
				t.Fatalf("Parse(%q) took %q twice", doc, e.Name)
			}
			want[e.Name] = e
			if s := e.Stdio; s != nil && (s.Command == "" || len(s.Args) > MaxArgs || len(s.Env) > MaxEnv) {
				t.Fatalf("Parse(%q): command %+v", doc, s)
			}
			if h := e.HTTP; h != nil {
				if h.URL == "" || len(h.Headers) > MaxHeaders {
					t.Fatalf("Parse(%q): HTTP server %+v", doc, h)
				}
				var names []string
				for n := range h.Headers {
					names = append(names, n)
				}
				// The relay keeps a server's URL in its normal form.
				if norm, err := urlnorm.Normalize(h.URL); err == nil {
					h.URL = norm
					servers = append(servers, wire.Server{Name: e.Name, URL: norm, Transport: h.Transport, HeaderNames: names})
				} else {
					delete(want, e.Name)
				}
			}
		}
		out, err := Export(servers)
		if err != nil {
			t.Fatalf("Export: %v", err)
		}
		back, err := Parse(out)
		if err != nil {
			t.Fatalf("Parse(Export(...)) = %v\n%s", err, out)
		}
		if len(back) != len(servers) {
			t.Fatalf("exported %d servers, read back %d:\n%s", len(servers), len(back), out)
		}
		for _, b := range back {
			e := want[b.Name]
			if b.HTTP == nil || e.HTTP == nil {
				t.Fatalf("read back %+v, from %+v", b, e)
			}
			if b.HTTP.URL != withoutSecrets(e.HTTP.URL) || b.HTTP.Transport != e.HTTP.Transport {
				t.Fatalf("read back %+v, from %+v", b.HTTP, e.HTTP)
			}
			u, err := url.Parse(b.HTTP.URL)
			was, _ := url.Parse(e.HTTP.URL)
			if err != nil || u.Host != was.Host {
				t.Fatalf("exported %q as %q", e.HTTP.URL, b.HTTP.URL)
			}
			for name := range u.Query() {
				if slices.ContainsFunc(secretWords, func(w string) bool { return strings.Contains(strings.ToLower(name), w) }) {
					t.Fatalf("exported %q as %q, with %q", e.HTTP.URL, b.HTTP.URL, name)
				}
			}
			var names, wantNames []string
			for n, v := range b.HTTP.Headers {
				if !UnsetHeader(v) {
					t.Fatalf("an exported header %s has a value %q", n, v)
				}
				names = append(names, n)
			}
			for n := range e.HTTP.Headers {
				wantNames = append(wantNames, n)
			}
			slices.Sort(names)
			slices.Sort(wantNames)
			if !slices.Equal(names, wantNames) {
				t.Fatalf("header names %q read back as %q", wantNames, names)
			}
		}
	})
}
