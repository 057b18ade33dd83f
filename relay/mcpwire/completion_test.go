package mcpwire

import (
	"errors"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func TestCompleteResultSanitizesValues(t *testing.T) {
	got := CompleteResult(mcp.CompletionResultDetails{Values: []string{"py-a", "py-b", "py-a", "bad\x1bvalue", "", "ctx:go"}, Total: 42, HasMore: true})
	want := []string{"py-a", "py-b", "bad value", "ctx:go"}
	if !slices.Equal(got.Values, want) || got.Total != 42 || !got.HasMore {
		t.Errorf("got %+v, want values %q, total 42, more", got, want)
	}
}

func TestCompleteParamsCarryTheContext(t *testing.T) {
	p, err := CompleteParams(wire.CompleteArgs{
		Ref: wire.CompleteRef{Type: wire.RefPrompt, Name: "code"}, Argument: "style", Value: "py",
		Context: map[string]string{"lang": "go"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if p.Ref.Type != string(wire.RefPrompt) || p.Ref.Name != "code" || p.Argument.Name != "style" || p.Argument.Value != "py" || p.Context.Arguments["lang"] != "go" {
		t.Errorf("params %+v", p)
	}
}

func TestCompleteParamsRefuseMalformedArguments(t *testing.T) {
	for name, a := range map[string]wire.CompleteArgs{
		"another reference": {Ref: wire.CompleteRef{Type: "ref/other"}, Argument: "x"},
		"no argument":       {Ref: wire.CompleteRef{Type: wire.RefPrompt, Name: "code"}},
		"no prompt name":    {Ref: wire.CompleteRef{Type: wire.RefPrompt}, Argument: "x"},
		"no URI template":   {Ref: wire.CompleteRef{Type: wire.RefResource}, Argument: "x"},
		"bad context":       {Ref: wire.CompleteRef{Type: wire.RefPrompt, Name: "code"}, Argument: "x", Context: map[string]string{"a\nb": "v"}},
	} {
		_, err := CompleteParams(a)
		var we *wire.Error
		if !errors.As(err, &we) || we.Code != wire.CodeBadRequest {
			t.Errorf("%s: %v, want bad request", name, err)
		}
	}
}

func TestProgressIsOneLine(t *testing.T) {
	got := Progress(&mcp.ProgressNotificationParams{Progress: 1, Total: 3, Message: "step\n1\x1b"})
	if got != (wire.Progress{Progress: 1, Total: 3, Message: "step 1"}) {
		t.Errorf("progress %+v", got)
	}
}
