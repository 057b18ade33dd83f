package broker

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/switchboard-mcp/switchboard/shared/schema"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Sampling asks differ from elicitations in how they end without an
// answer: the server gets an error, never a made-up message. At the
// deadline [Broker.Ask] returns a [wire.CodeCancelled] error, and when the
// ask cannot be shown a [wire.CodeInternal] one. An accepted answer carries
// a [wire.SamplingResult], checked here: content of the kinds an assistant
// message holds, media of an allowed type, and tool_use blocks only for
// tools the server offered (unless its tool choice is "none"), with
// arguments that fit the tool's input schema as far as shared/schema reads
// it.

// Caps and defaults of sampling answers.
const (
	maxAnswerBlocks = 64
	// DefaultAnswerModel names the writer of an answer that names none.
	DefaultAnswerModel = "human"
	maxModelRunes      = 200
	toolUseIDBytes     = 6
)

// Errors of sampling asks.
var (
	errNoAnswerInTime = wire.NewError(wire.CodeCancelled, "nobody answered in time")
	errNotShown       = wire.NewError(wire.CodeInternal, "the relay cannot show the request now: too many are waiting")
)

// samplingTools parses the input schemas of the tools a request offers; a
// tool whose schema shared/schema cannot read maps to nil (its arguments
// need only be an object).
func samplingTools(req *wire.SamplingRequest) map[string]*schema.Form {
	tools := make(map[string]*schema.Form, len(req.Tools))
	for _, t := range req.Tools {
		form, err := schema.Parse(t.InputSchema)
		if err != nil {
			form = nil
		}
		tools[t.Name] = form
	}
	return tools
}

// Get returns the pending or waiting ask id, as the dashboards see it.
func (b *Broker) Get(id string) (wire.Ask, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	e, ok := b.asks[id]
	if !ok || e.settled {
		return wire.Ask{}, false
	}
	return e.ask, true
}

// checkSampling returns the answer to the sampling ask e fit to send, or
// why it is refused.
func (e *entry) checkSampling(args wire.AnswerAskArgs) (wire.AnswerAskArgs, error) {
	if len(args.Content) > 0 {
		return args, wire.NewError(wire.CodeBadRequest, "a sampling answer carries a message, not form content")
	}
	if args.Action != wire.ActionAccept {
		if args.Sampling != nil {
			return args, wire.NewError(wire.CodeBadRequest, "only an accepted answer carries a message")
		}
		return args, nil
	}
	if args.Sampling == nil {
		return args, wire.NewError(wire.CodeBadRequest, "an accepted sampling answer needs a message")
	}
	res, err := CheckSamplingResult(e.ask.Sampling, e.tools, *args.Sampling)
	if err != nil {
		return args, err
	}
	args.Sampling = &res
	return args, nil
}

// CheckSamplingResult checks res as the answer to req, whose tools' schemas
// are tools (nil: parse them from req), and returns it completed: the model
// named, tool_use blocks given ids, the stop reason set. Errors are
// [wire.CodeBadRequest] errors that say what is wrong.
func CheckSamplingResult(req *wire.SamplingRequest, tools map[string]*schema.Form, res wire.SamplingResult) (wire.SamplingResult, error) {
	bad := func(format string, a ...any) (wire.SamplingResult, error) {
		return res, wire.NewError(wire.CodeBadRequest, fmt.Sprintf(format, a...))
	}
	if tools == nil {
		tools = samplingTools(req)
	}
	switch n := len(res.Content); {
	case n == 0:
		return bad("the answer is empty: write a text or a tool call")
	case n > maxAnswerBlocks:
		return bad("the answer has %d blocks, over %d", n, maxAnswerBlocks)
	}
	res.Model = strings.TrimSpace(res.Model)
	switch {
	case res.Model == "":
		res.Model = DefaultAnswerModel
	case utf8.RuneCountInString(res.Model) > maxModelRunes || !utf8.ValidString(res.Model):
		return bad("the model name is over %d characters", maxModelRunes)
	}
	content := make([]wire.SamplingContent, len(res.Content))
	uses := 0
	for i, c := range res.Content {
		c, err := checkBlock(req, tools, c)
		if err != nil {
			return bad("block %d: %s", i+1, err.Error())
		}
		if c.Type == wire.ContentToolUse {
			uses++
		}
		content[i] = c
	}
	res.Content = content
	if req.ToolChoice == wire.ToolChoiceRequired && uses == 0 {
		return bad("the server requires a tool call in the answer")
	}
	switch {
	case uses > 0:
		res.StopReason = wire.StopToolUse
	case res.StopReason == "" || res.StopReason == wire.StopToolUse:
		res.StopReason = wire.StopEndTurn
	}
	if b, _ := json.Marshal(res); len(b) > wire.MaxSamplingBytes {
		return bad("the answer is %d bytes, over %d", len(b), wire.MaxSamplingBytes)
	}
	return res, nil
}

// checkBlock checks one block of an answer.
func checkBlock(req *wire.SamplingRequest, tools map[string]*schema.Form, c wire.SamplingContent) (wire.SamplingContent, error) {
	switch c.Type {
	case wire.ContentText:
		if strings.TrimSpace(c.Text) == "" || !utf8.ValidString(c.Text) {
			return c, fmt.Errorf("the text is empty")
		}
		return wire.SamplingContent{Type: c.Type, Text: c.Text}, nil
	case wire.ContentImage, wire.ContentAudio:
		if !wire.RenderableMedia(c.Type, c.MIMEType) {
			return c, fmt.Errorf("%s of type %q is not accepted", c.Type, c.MIMEType)
		}
		if _, err := base64.StdEncoding.DecodeString(c.Data); err != nil || c.Data == "" {
			return c, fmt.Errorf("the %s data is not base64", c.Type)
		}
		return wire.SamplingContent{Type: c.Type, MIMEType: c.MIMEType, Data: c.Data}, nil
	case wire.ContentToolUse:
		return checkToolUse(req, tools, c)
	}
	return c, fmt.Errorf("an answer holds text, image, audio or tool_use blocks, not %q", c.Type)
}

// checkToolUse checks a tool call of an answer against the tools offered.
func checkToolUse(req *wire.SamplingRequest, tools map[string]*schema.Form, c wire.SamplingContent) (wire.SamplingContent, error) {
	switch form, offered := tools[c.Name]; {
	case len(req.Tools) == 0:
		return c, fmt.Errorf("the server offered no tools to call")
	case req.ToolChoice == wire.ToolChoiceNone:
		return c, fmt.Errorf("the server asked for no tool calls")
	case !offered:
		return c, fmt.Errorf("the server offered no tool %q", c.Name)
	default:
		if len(c.Input) == 0 {
			c.Input = json.RawMessage(`{}`)
		}
		var input map[string]any
		if err := json.Unmarshal(c.Input, &input); err != nil || input == nil {
			return c, fmt.Errorf("the arguments of %q are not a JSON object", c.Name)
		}
		if form != nil {
			if errs := form.Validate(input); errs != nil {
				return c, fmt.Errorf("the arguments of %q do not fit its schema: %s", c.Name, errs.Error())
			}
		}
		out := wire.SamplingContent{Type: c.Type, ID: strings.TrimSpace(c.ID), Name: c.Name, Input: c.Input}
		if out.ID == "" {
			out.ID = "toolu_" + newID()[:2*toolUseIDBytes]
		}
		return out, nil
	}
}
