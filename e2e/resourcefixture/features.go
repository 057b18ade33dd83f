package resourcefixture

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Names of the fixture's prompts, resources and template.
const (
	PromptCode     = "code_review" // arguments language and framework, both complete
	PromptEmbedded = "embedded"    // a message with a JSON resource, one with a PNG
	ClockURI       = "fixture://clock"
	JSONURI        = "fixture://data.json"
	ImageURI       = "fixture://pixel.png"
	SoundURI       = "fixture://tone.wav"
	BinaryURI      = "fixture://archive.bin"
	NotesTemplate  = "fixture://users/{user}/notes/{note}"
	// JSONText is the text of JSONURI.
	JSONText = `{"name":"fixture","tags":["a","b"],"nested":{"depth":2,"ok":true}}`
)

// Languages are what the language argument completes from; Frameworks what
// the framework argument completes from, by language (the context).
var (
	Languages  = []string{"go", "haskell", "java", "javascript", "python", "ruby", "rust", "scala"}
	Frameworks = map[string][]string{
		"go":     {"chi", "echo", "gin"},
		"python": {"django", "fastapi", "flask"},
		"ruby":   {"rails", "sinatra"},
	}
	Users = []string{"ada", "alan", "grace"}
)

// maxValues is how many values one completion sends; more are reported by
// total and hasMore.
const maxValues = 3

// BinaryData is the content of BinaryURI.
var BinaryData = bytes.Repeat([]byte{0, 1, 2, 3, 0xff}, 300)

func contextBackground() context.Context { return context.Background() }

// newMCPServer builds the fixture's MCP server.
func (s *Server) newMCPServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "resource-fixture", Version: "1.0.0"}, &mcp.ServerOptions{
		CompletionHandler: s.complete,
		SubscribeHandler: func(_ context.Context, req *mcp.SubscribeRequest) error {
			s.subscribed(req.Params.URI)
			return nil
		},
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
	})
	srv.AddPrompt(&mcp.Prompt{Name: PromptCode, Description: "Review code.", Arguments: []*mcp.PromptArgument{
		{Name: "language", Required: true}, {Name: "framework"},
	}}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		a := req.Params.Arguments
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{
			Text: fmt.Sprintf("Review this %s code using %s.", a["language"], a["framework"]),
		}}}}, nil
	})
	srv.AddPrompt(&mcp.Prompt{Name: PromptEmbedded, Description: "Embeds resources."},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
				{Role: "user", Content: &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: JSONURI, MIMEType: "application/json", Text: JSONText}}},
				{Role: "user", Content: &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: ImageURI, MIMEType: "image/png", Blob: PNG()}}},
			}}, nil
		})
	text := func(uri, mime string, get func() string) {
		srv.AddResource(&mcp.Resource{URI: uri, Name: strings.TrimPrefix(uri, "fixture://"), MIMEType: mime},
			func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: mime, Text: get()}}}, nil
			})
	}
	blob := func(uri, mime string, data []byte) {
		srv.AddResource(&mcp.Resource{URI: uri, Name: strings.TrimPrefix(uri, "fixture://"), MIMEType: mime},
			func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: mime, Blob: data}}}, nil
			})
	}
	text(ClockURI, "text/plain", s.clockText)
	text(JSONURI, "application/json", func() string { return JSONText })
	blob(ImageURI, "image/png", PNG())
	blob(SoundURI, "audio/wav", WAV())
	blob(BinaryURI, "application/octet-stream", BinaryData)
	srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: NotesTemplate, Name: "notes", MIMEType: "text/plain"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			user, note, ok := strings.Cut(strings.TrimPrefix(req.Params.URI, "fixture://users/"), "/notes/")
			if !ok {
				return nil, mcp.ResourceNotFoundError(req.Params.URI)
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
				URI: req.Params.URI, MIMEType: "text/plain", Text: NoteText(user, note),
			}}}, nil
		})
	return srv
}

// NoteText is the text of the note of user read through NotesTemplate.
func NoteText(user, note string) string { return "Note " + note + " of " + user }

// Notes are what the note variable completes from, by user (the context).
func Notes(user string) []string { return []string{user + "-todo", user + "-ideas"} }

// SlowValue is a language value whose completion answers only after
// slowFor, or when the client cancels it.
const SlowValue = "h"

// slowFor is how long the completion of SlowValue takes.
const slowFor = 10 * time.Second

// complete suggests values that start with what is typed.
func (s *Server) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	p := req.Params
	if p.Argument.Name == "language" && p.Argument.Value == SlowValue {
		s.slowStarted()
		select {
		case <-ctx.Done():
			s.slowCancelled()
			return nil, ctx.Err()
		case <-time.After(slowFor):
		}
	}
	ctxArgs := map[string]string{}
	if p.Context != nil {
		ctxArgs = p.Context.Arguments
	}
	var all []string
	switch {
	case p.Ref.Type == "ref/prompt" && p.Ref.Name == PromptCode && p.Argument.Name == "language":
		all = Languages
	case p.Ref.Type == "ref/prompt" && p.Ref.Name == PromptCode && p.Argument.Name == "framework":
		all = Frameworks[ctxArgs["language"]]
	case p.Ref.Type == "ref/resource" && p.Ref.URI == NotesTemplate && p.Argument.Name == "user":
		all = Users
	case p.Ref.Type == "ref/resource" && p.Ref.URI == NotesTemplate && p.Argument.Name == "note":
		all = Notes(ctxArgs["user"])
	}
	var match []string
	for _, v := range all {
		if strings.HasPrefix(v, p.Argument.Value) {
			match = append(match, v)
		}
	}
	out := mcp.CompletionResultDetails{Values: slices.Clone(match), Total: len(match)}
	if len(match) > maxValues {
		out.Values, out.HasMore = match[:maxValues], true
	}
	if out.Values == nil {
		out.Values = []string{}
	}
	return &mcp.CompleteResult{Completion: out}, nil
}

// PNG is a 4×4 PNG image.
func PNG() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 4, 4))
	for x := range 4 {
		for y := range 4 {
			img.Set(x, y, color.RGBA{R: uint8(60 * x), G: uint8(60 * y), B: 200, A: 255})
		}
	}
	var b bytes.Buffer
	png.Encode(&b, img) // an in-memory image always encodes
	return b.Bytes()
}

// WAV is a tenth of a second of a 440 Hz tone, 8 kHz mono 16-bit PCM.
func WAV() []byte {
	const rate, samples = 8000, 800
	var data bytes.Buffer
	for i := range samples {
		v := int16(8000 * math.Sin(2*math.Pi*440*float64(i)/rate))
		binary.Write(&data, binary.LittleEndian, v)
	}
	var b bytes.Buffer
	w := func(v any) { binary.Write(&b, binary.LittleEndian, v) }
	b.WriteString("RIFF")
	w(uint32(36 + data.Len()))
	b.WriteString("WAVEfmt ")
	w(uint32(16))
	w(uint16(1))        // PCM
	w(uint16(1))        // mono
	w(uint32(rate))     // sample rate
	w(uint32(rate * 2)) // byte rate
	w(uint16(2))        // block align
	w(uint16(16))       // bits per sample
	b.WriteString("data")
	w(uint32(data.Len()))
	b.Write(data.Bytes())
	return b.Bytes()
}
