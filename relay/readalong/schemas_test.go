package readalong

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/switchboard-mcp/switchboard/shared/schema"
)

// fieldOrder is the order in which a form of schema raw shows its fields.
func fieldOrder(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	form, err := schema.Parse(raw)
	if err != nil {
		t.Fatalf("parse %s: %v", raw, err)
	}
	var names []string
	for _, f := range form.Fields {
		names = append(names, f.Name)
	}
	return names
}

// elicitMessage is an elicitation/create request with schema s and a
// message of pad bytes.
func elicitMessage(s string, pad int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":%q,"requestedSchema":%s}}`,
		strings.Repeat("x", pad), compact(s))
}

// inputMessage is a 2026-07-28 result asking for a form of schema s.
func inputMessage(s string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"result":{"resultType":"input_required","inputRequests":{"a":{"method":"sampling/createMessage","params":{}},"b":{"method":"elicitation/create","params":{"mode":"form","message":"m","requestedSchema":%s}}}}}`,
		compact(s))
}

func compact(s string) string {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		panic(err)
	}
	return b.String()
}

// schemaOf is a schema whose properties are names, in that order.
func schemaOf(names ...string) string {
	var props []string
	for _, n := range names {
		props = append(props, fmt.Sprintf(`%q:{"type":"string"}`, n))
	}
	return `{"type":"object","properties":{` + strings.Join(props, ",") + `}}`
}

// orderShown is the field order of an ask for schema s after o read along.
func orderShown(t *testing.T, o *Schemas, s string) []string {
	t.Helper()
	var decoded any
	if err := json.Unmarshal([]byte(s), &decoded); err != nil {
		t.Fatal(err)
	}
	canonical, _ := json.Marshal(decoded)
	return fieldOrder(t, o.inOrder(canonical))
}

// readAlong reads body through a scannedBody, in pieces as r cuts them.
func readAlong(t *testing.T, o *Schemas, scanner func(*Schemas) messageScanner, cut func(io.Reader) io.Reader, body string) {
	t.Helper()
	b := &scannedBody{ReadCloser: io.NopCloser(cut(strings.NewReader(body))), scanner: scanner(o)}
	got, err := io.ReadAll(b)
	if err != nil || string(got) != body {
		t.Fatalf("read %d bytes, %v; want the %d bytes sent", len(got), err, len(body))
	}
}

func eventScannerOf(o *Schemas) messageScanner { return newEventScanner(o.scan) }
func jsonScannerOf(o *Schemas) messageScanner  { return &jsonScanner{scan: o.scan} }

// cuts are the ways a body may arrive.
var cuts = map[string]func(io.Reader) io.Reader{
	"whole":    func(r io.Reader) io.Reader { return r },
	"one byte": iotest.OneByteReader,
	"halves":   iotest.HalfReader,
}

// readAlongCase is a body read along and the order each of its schemas is
// then shown in.
type readAlongCase struct {
	name    string
	scanner func(*Schemas) messageScanner
	body    string
	want    map[string][]string // schema: its order shown
}

// readAlongCases are the ways a schema may arrive, with zyx and abc two
// schemas out of key order.
func readAlongCases(zyx, abc string) []readAlongCase {
	return []readAlongCase{
		{
			name:    "event with LF",
			scanner: eventScannerOf,
			body:    ": hello\n\nevent: message\nid: 1\ndata: " + elicitMessage(zyx, 0) + "\n\n",
			want:    map[string][]string{zyx: {"z", "y", "x"}},
		},
		{
			name:    "event with CRLF, data on several lines",
			scanner: eventScannerOf,
			body:    "id: 7\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\r\ndata:  \"method\":\"elicitation/create\",\r\ndata: \"params\":{\"message\":\"m\",\"requestedSchema\":" + compact(zyx) + "}}\r\n\r\n",
			want:    map[string][]string{zyx: {"z", "y", "x"}},
		},
		{
			name:    "last event ended by the stream's end",
			scanner: eventScannerOf,
			body:    "data: " + inputMessage(abc) + "\n\ndata: " + elicitMessage(zyx, 0),
			want:    map[string][]string{abc: {"c", "a", "b"}, zyx: {"z", "y", "x"}},
		},
		{
			name:    "event after one over the scan limit",
			scanner: eventScannerOf,
			body:    "data: " + elicitMessage(abc, MaxScanBytes) + "\n\ndata: " + elicitMessage(zyx, 0) + "\n\n",
			want:    map[string][]string{abc: {"a", "b", "c"}, zyx: {"z", "y", "x"}},
		},
		{
			name:    "JSON body",
			scanner: jsonScannerOf,
			body:    inputMessage(abc),
			want:    map[string][]string{abc: {"c", "a", "b"}},
		},
		{
			name:    "JSON batch",
			scanner: jsonScannerOf,
			body:    " [" + elicitMessage(zyx, 0) + "," + inputMessage(abc) + "]",
			want:    map[string][]string{abc: {"c", "a", "b"}, zyx: {"z", "y", "x"}},
		},
		{
			name:    "JSON body over the scan limit",
			scanner: jsonScannerOf,
			body:    elicitMessage(zyx, MaxScanBytes),
			want:    map[string][]string{zyx: {"x", "y", "z"}},
		},
		{
			name:    "tools/list result",
			scanner: eventScannerOf,
			body:    `data: {"jsonrpc":"2.0","id":4,"result":{"tools":[{"name":"a","inputSchema":` + compact(zyx) + `},{"name":"b","inputSchema":{"type":"object"},"outputSchema":` + compact(abc) + `}]}}` + "\n\n",
			want:    map[string][]string{zyx: {"z", "y", "x"}, abc: {"c", "a", "b"}},
		},
		{
			name:    "tools of a tool's result",
			scanner: jsonScannerOf,
			body:    `{"jsonrpc":"2.0","id":5,"result":{"structuredContent":{"tools":[{"name":"a","inputSchema":` + compact(zyx) + `}]}}}`,
			want:    map[string][]string{zyx: {"x", "y", "z"}},
		},
		{
			name:    "schema of another method",
			scanner: jsonScannerOf,
			body:    `{"jsonrpc":"2.0","id":3,"result":{"structuredContent":{"requestedSchema":` + compact(zyx) + `}}}`,
			want:    map[string][]string{zyx: {"x", "y", "z"}},
		},
	}
}

func TestReadingAlongFindsRequestedSchemasHoweverTheyArrive(t *testing.T) {
	for _, tc := range readAlongCases(schemaOf("z", "y", "x"), schemaOf("c", "a", "b")) {
		for cutName, cut := range cuts {
			t.Run(tc.name+", "+cutName, func(t *testing.T) {
				var o Schemas
				readAlong(t, &o, tc.scanner, cut, tc.body)
				for s, want := range tc.want {
					if got := orderShown(t, &o, s); !slices.Equal(got, want) {
						t.Errorf("%s shown as %v, want %v", s, got, want)
					}
				}
			})
		}
	}
}

func TestHugeUnrelatedEventPassesThroughByteIdentical(t *testing.T) {
	zyx := schemaOf("z", "y", "x")
	huge := `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"` + strings.Repeat("é\\n", MaxScanBytes) + `"}}`
	stream := "event: message\ndata: " + huge + "\n\nevent: message\ndata: " + elicitMessage(zyx, 0) + "\n\n"
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set(headerContentType, eventStreamType)
		// In uneven pieces, flushed one by one.
		for rest, n := stream, 1; rest != ""; n = n*7%65521 + 1 {
			n = min(n, len(rest))
			io.WriteString(w, rest[:n])
			w.(http.Flusher).Flush()
			rest = rest[n:]
		}
	}))
	defer hs.Close()

	var o Schemas
	hc := hs.Client()
	hc.Transport = Tee(hc.Transport, func(_ context.Context, msg []byte) { o.scan(msg) })
	resp, err := hc.Get(hs.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, []byte(stream)) {
		t.Fatalf("read %d bytes that differ from the %d bytes sent", len(got), len(stream))
	}
	if got := orderShown(t, &o, zyx); !slices.Equal(got, []string{"z", "y", "x"}) {
		t.Errorf("the event after the huge one was not read along: shown as %v", got)
	}
}

func TestSchemaOrdersRememberOnlyTheLatest(t *testing.T) {
	var o Schemas
	schemas := make([]string, maxSchemaOrders+1)
	for i := range schemas {
		schemas[i] = schemaOf("z", "y", fmt.Sprintf("f%d", i))
		o.remember(json.RawMessage(schemas[i]))
	}
	o.remember(json.RawMessage(schemas[maxSchemaOrders])) // again: no new entry
	if len(o.orders) != maxSchemaOrders {
		t.Errorf("%d orders remembered, want %d", len(o.orders), maxSchemaOrders)
	}
	if got := orderShown(t, &o, schemas[0]); !slices.Equal(got, []string{"f0", "y", "z"}) {
		t.Errorf("the oldest schema shown as %v, want it forgotten", got)
	}
	for _, i := range []int{1, maxSchemaOrders} {
		want := []string{"z", "y", fmt.Sprintf("f%d", i)}
		if got := orderShown(t, &o, schemas[i]); !slices.Equal(got, want) {
			t.Errorf("schema %d shown as %v, want %v", i, got, want)
		}
	}
}

func TestSchemaOrdersKeepWithinTheirBytes(t *testing.T) {
	var o Schemas
	pad := strings.Repeat("d", maxSchemaBytes-200)
	n := maxSchemaOrderBytes/len(pad) + 2
	schemas := make([]string, n)
	for i := range schemas {
		schemas[i] = fmt.Sprintf(`{"type":"object","properties":{"z":{"type":"string","description":%q},"y%d":{"type":"string"}}}`, pad, i)
		o.remember(json.RawMessage(schemas[i]))
	}
	if o.size > maxSchemaOrderBytes || len(o.orders) >= n {
		t.Errorf("%d orders of %d bytes remembered, want at most %d bytes", len(o.orders), o.size, maxSchemaOrderBytes)
	}
	if got := orderShown(t, &o, schemas[0]); !slices.Equal(got, []string{"y0", "z"}) {
		t.Errorf("the oldest schema shown as %v, want it forgotten", got)
	}
	want := []string{"z", fmt.Sprintf("y%d", n-1)}
	if got := orderShown(t, &o, schemas[n-1]); !slices.Equal(got, want) {
		t.Errorf("the newest schema shown as %v, want %v", got, want)
	}
}

func TestSchemaOrdersIgnoreWhatTheyCannotUse(t *testing.T) {
	big := strings.Repeat("d", maxSchemaBytes)
	tests := []struct {
		name, schema string
		want         string // what is remembered; "" for nothing
	}{
		{"over the schema cap", `{"type":"object","properties":{"b":{"type":"string","description":"` + big + `"},"a":{"type":"string"}}}`, ""},
		{"repeated property", `{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"string"},"b":{"title":"B","type":"string"}}}`,
			`{"type":"object","properties":{"b":{"title":"B","type":"string"},"a":{"type":"string"}}}`},
		{"already in canonical order", `{"properties":{"a":{"type":"string"},"b":{"type":"string"}},"type":"object"}`, ""},
		{"not an object", `[{"properties":{"b":{},"a":{}}}]`, ""},
		{"not JSON", `{"type":"object","properties":{"b":{},"a":{}}`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var o Schemas
			o.remember(json.RawMessage(tc.schema))
			var got string
			for _, ordered := range o.orders {
				got = string(ordered)
			}
			if got != tc.want || len(o.orders) > 1 {
				t.Errorf("remembered %d: %s; want %s", len(o.orders), got, tc.want)
			}
		})
	}
}

func TestSchemaOrdersFollowTheServersLatestOrder(t *testing.T) {
	var o Schemas
	o.remember(json.RawMessage(schemaOf("z", "y", "x")))
	o.remember(json.RawMessage(`{"properties":{"x":{"type":"string"},"y":{"type":"string"},"z":{"type":"string"}},"type":"object"}`))
	if got := orderShown(t, &o, schemaOf("z", "y", "x")); !slices.Equal(got, []string{"x", "y", "z"}) {
		t.Errorf("shown as %v, want the order sent last", got)
	}
}
