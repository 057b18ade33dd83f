package wire

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestDecodeRefusesWhatIsNotAFrame(t *testing.T) {
	for _, in := range []string{
		``, `{`, `[]`, `"hello"`, `{"type":"op"}`, `{"v":2,"type":"op"}`, `{"v":1}`, `{"v":1,"type":""}`,
		`{"v":1,"type":"op","id":7}`,
	} {
		if _, err := Decode([]byte(in)); !errors.Is(err, ErrBadFrame) {
			t.Errorf("Decode(%q) = %v, want ErrBadFrame", in, err)
		}
	}
}

func TestOpFrameRoundTrips(t *testing.T) {
	f, err := Op("42", OpCallTool, CallToolArgs{Server: "s1", Name: "echo", Arguments: json.RawMessage(`{"x":1}`)})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Encode(f)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	var args CallToolArgs
	if err := json.Unmarshal(got.Data, &args); err != nil {
		t.Fatal(err)
	}
	if got.V != Version || got.Type != TypeOp || got.ID != "42" || got.Op != OpCallTool ||
		args.Server != "s1" || args.Name != "echo" || string(args.Arguments) != `{"x":1}` {
		t.Fatalf("round trip: %+v %+v", got, args)
	}
}

func TestEncodeAlwaysStampsTheVersion(t *testing.T) {
	b, err := Encode(Frame{Type: TypeSynced, Seq: 3})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"v":1`) {
		t.Fatalf("%s has no version", b)
	}
}

func TestErrorFrameCarriesASanitizedMessage(t *testing.T) {
	f := ErrorFrame("9", NewError(CodeUpstream, "boom\x1b[31m\nred\u202e"+strings.Repeat("x", 1000)))
	if f.Type != TypeError || f.ID != "9" || f.Error.Code != CodeUpstream {
		t.Fatalf("frame %+v", f)
	}
	if strings.ContainsAny(f.Error.Message, "\x1b\n\u202e") || utf8.RuneCountInString(f.Error.Message) > MaxErrorMessage {
		t.Fatalf("message not sanitized: %q", f.Error.Message)
	}
}

func TestSanitize(t *testing.T) {
	cases := []struct {
		in   string
		max  int
		want string
	}{
		{"plain", 10, "plain"},
		{"  two\t\tspaces \n\n lines  ", 50, "two spaces lines"},
		{"bell\a and esc\x1b[0m", 50, "bell and esc [0m"},
		{"rtl\u202eevil\u200b", 50, "rtlevil"},
		{"bad \xff byte", 50, "bad \ufffd byte"},
		{"abcdefghij", 5, "abcd…"},
		{"héllo wörld", 7, "héllo…"},
		{"", 5, ""},
		{"anything", 0, ""},
	}
	for _, c := range cases {
		if got := Sanitize(c.in, c.max); got != c.want {
			t.Errorf("Sanitize(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
	}
}
