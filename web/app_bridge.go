package web

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// The host side of an App view's protocol (the io.modelcontextprotocol/ui
// extension): JSON-RPC messages to and from the view, through the sandbox
// proxy. The bridge is plain Go: the view component (app_view.go) hands it
// each message that came from its proxy, and gives it what it needs of the
// page as an appHost.

// Methods of the view protocol the host meets.
const (
	mProxyReady     = "ui/notifications/sandbox-proxy-ready"
	mResourceReady  = "ui/notifications/sandbox-resource-ready"
	mFlood          = "ui/notifications/sandbox-flood"
	mInitialize     = "ui/initialize"
	mInitialized    = "ui/notifications/initialized"
	mToolInput      = "ui/notifications/tool-input"
	mToolPartial    = "ui/notifications/tool-input-partial"
	mToolResult     = "ui/notifications/tool-result"
	mSizeChanged    = "ui/notifications/size-changed"
	mContextChanged = "ui/notifications/host-context-changed"
	mTeardown       = "ui/resource-teardown"
	mOpenLink       = "ui/open-link"
	mMessage        = "ui/message"
	mModelContext   = "ui/update-model-context"
	mDisplayMode    = "ui/request-display-mode"
	mToolsCall      = "tools/call"
	mResourcesRead  = "resources/read"
	mLog            = "notifications/message"
	mPing           = "ping"
)

// JSON-RPC error codes the bridge answers with.
const (
	rpcInvalidParams  = -32602
	rpcMethodNotFound = -32601
	rpcRefused        = -32000 // the protocol's implementation-defined error
)

// Limits the bridge keeps a view to.
const (
	maxViewHeight = 2000 // pixels: a taller view scrolls inside
	minViewHeight = 40
	// maxViewRequests is how many requests that reach the relay (tool
	// calls, reads, log lines) a view may make each second; the others
	// are refused at once.
	maxViewRequests = 10
)

// rpcMessage is one JSON-RPC message, either way.
type rpcMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// rpcError is a JSON-RPC error.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// appHost is what the bridge needs of the page.
type appHost interface {
	// post sends a message to the proxy.
	post(msg rpcMessage)
	// callTool calls a tool of the view's server for the view.
	callTool(name string, args json.RawMessage, done func(json.RawMessage, *wire.Error))
	// readResource reads a resource of the view's server for the view.
	readResource(uri string, done func(json.RawMessage, *wire.Error))
	// log writes the view's log message into its server's log.
	log(level, logger string, data any)
	// openLink asks the person whether to open url; answer gets whether
	// they did.
	openLink(url string, answer func(opened bool)) error
	// message puts text where the person writes to the conversation the
	// view lives in; it fails when there is none.
	message(text string) error
	// modelContext gives the model of the view's conversation text with
	// the person's next messages ("" clears it); done gets the relay's
	// answer. Outside a conversation it does nothing and answers at once.
	modelContext(text string, done func(*wire.Error))
	// resize sets the view's height in pixels.
	resize(height int)
	// displayMode shows the view in mode ("inline" or "fullscreen") when
	// the page lets it now; done gets the mode in force.
	displayMode(mode string, done func(mode string))
	// suspend says the view sent more than the proxy passes on.
	suspend()
	// started says the view is initialized.
	started()
}

// appContext is what the view is told about its place (hostContext).
type appContext struct {
	Theme    string // light or dark
	Locale   string
	TimeZone string
	Mode     string // displayInline ("" too) or displayFullscreen
	Width    int    // the view's container in pixels, when known
	Height   int    // in full screen, the container's height
}

// The display modes a view may be shown in.
const (
	displayInline     = "inline"
	displayFullscreen = "fullscreen"
)

// appBridge speaks for the host to one view.
type appBridge struct {
	host appHost
	view wire.AppView
	ctx  appContext
	tool wire.Tool

	granted   wire.AppPermissions  // what of the view's permissions the person allowed
	args      json.RawMessage      // the call's arguments
	streaming bool                 // the model is still writing them: partial holds what it wrote
	partial   string               // the arguments so far, while streaming
	inputOut  bool                 // the view was sent the whole arguments
	partOut   string               // the partial arguments the view was sent last
	result    *wire.CallToolResult // the call's result, once known
	sent      bool                 // the view's HTML went to the proxy
	window    time.Time            // the start of the second of relay requests counted
	inWindow  int                  // the relay requests of that second
	ready     bool                 // the view said it is initialized
	resultOut *wire.CallToolResult // the result the view was sent
}

// handle takes one message from the proxy, which came at now.
func (b *appBridge) handle(raw []byte, now time.Time) {
	var m rpcMessage
	if json.Unmarshal(raw, &m) != nil || m.JSONRPC != "2.0" {
		return
	}
	if m.Method == "" {
		return // an answer: the host sends the view no requests it waits on
	}
	if reachesRelay[m.Method] && !b.spend(now) {
		if len(m.ID) > 0 {
			b.fail(m.ID, rpcRefused, refusedTooOften)
		}
		return
	}
	if len(m.ID) == 0 {
		b.notification(m)
		return
	}
	b.request(m)
}

// refusedTooOften is the error a view's request gets past its caps, from
// the page or its proxy (sandbox.js).
const refusedTooOften = "The view asks too often; try again in a moment."

// reachesRelay are the methods whose messages cost the relay a request.
var reachesRelay = map[string]bool{mToolsCall: true, mResourcesRead: true, mLog: true}

// spend counts one request that reaches the relay, and says whether the
// view may make it this second.
func (b *appBridge) spend(now time.Time) bool {
	if now.Sub(b.window) >= time.Second {
		b.window, b.inWindow = now, 0
	}
	b.inWindow++
	return b.inWindow <= maxViewRequests
}

// notification handles a notification of the proxy or the view.
func (b *appBridge) notification(m rpcMessage) {
	switch m.Method {
	case mProxyReady:
		if b.sent { // only once: a view may forge it to be loaded again
			return
		}
		b.sent = true
		b.post(mResourceReady, map[string]any{"html": b.view.HTML, "csp": b.view.CSP, "permissions": b.granted})
	case mFlood:
		b.host.suspend()
	case mInitialized:
		if b.ready {
			return
		}
		b.ready = true
		b.host.started()
		b.sendInput()
		b.sendOutcome()
	case mSizeChanged:
		var p struct {
			Height float64 `json:"height"`
		}
		if json.Unmarshal(m.Params, &p) == nil && p.Height > 0 {
			b.host.resize(min(max(int(p.Height), minViewHeight), maxViewHeight))
		}
	case mLog:
		var p struct {
			Level  string `json:"level"`
			Logger string `json:"logger"`
			Data   any    `json:"data"`
		}
		if json.Unmarshal(m.Params, &p) == nil && p.Level != "" {
			b.host.log(p.Level, p.Logger, p.Data)
		}
	}
}

// request answers a request of the view.
func (b *appBridge) request(m rpcMessage) {
	id := m.ID
	switch m.Method {
	case mInitialize:
		b.answer(id, b.initializeResult())
	case mPing:
		b.answer(id, struct{}{})
	case mToolsCall:
		var p struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		if json.Unmarshal(m.Params, &p) != nil || p.Name == "" {
			b.fail(id, rpcInvalidParams, "tools/call needs a tool name")
			return
		}
		b.host.callTool(p.Name, objectOrEmpty(p.Arguments), func(res json.RawMessage, err *wire.Error) {
			if err != nil {
				b.fail(id, rpcRefused, err.Message)
				return
			}
			b.answer(id, res)
		})
	case mResourcesRead:
		var p struct {
			URI string `json:"uri"`
		}
		if json.Unmarshal(m.Params, &p) != nil || p.URI == "" {
			b.fail(id, rpcInvalidParams, "resources/read needs a uri")
			return
		}
		b.host.readResource(p.URI, func(res json.RawMessage, err *wire.Error) {
			if err != nil {
				b.fail(id, rpcRefused, err.Message)
				return
			}
			b.answer(id, res)
		})
	case mOpenLink:
		var p struct {
			URL string `json:"url"`
		}
		if json.Unmarshal(m.Params, &p) != nil || p.URL == "" {
			b.fail(id, rpcInvalidParams, "Invalid URL")
			return
		}
		err := b.host.openLink(p.URL, func(opened bool) {
			if opened {
				b.answer(id, struct{}{})
			} else {
				b.fail(id, rpcRefused, "Link opening denied by user")
			}
		})
		if err != nil {
			b.fail(id, rpcRefused, "Invalid URL: "+err.Error())
		}
	case mMessage:
		var p struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		}
		if json.Unmarshal(m.Params, &p) != nil {
			b.fail(id, rpcInvalidParams, "Invalid message format")
			return
		}
		text := messageText(p.Content)
		if text == "" {
			b.fail(id, rpcInvalidParams, "Invalid message format")
			return
		}
		if err := b.host.message(text); err != nil {
			b.fail(id, rpcRefused, err.Error())
			return
		}
		b.answer(id, struct{}{})
	case mModelContext:
		var p struct {
			Content           any             `json:"content"`
			StructuredContent json.RawMessage `json:"structuredContent"`
		}
		if json.Unmarshal(m.Params, &p) != nil {
			b.fail(id, rpcInvalidParams, "Invalid model context")
			return
		}
		text := modelContextText(p.Content, p.StructuredContent)
		if len(text) > wire.MaxAppContext {
			b.fail(id, rpcInvalidParams, fmt.Sprintf("The model context is over %d KiB", wire.MaxAppContext>>10))
			return
		}
		b.host.modelContext(text, func(err *wire.Error) {
			if err != nil {
				b.fail(id, rpcRefused, err.Message)
				return
			}
			b.answer(id, struct{}{})
		})
	case mDisplayMode:
		var p struct {
			Mode string `json:"mode"`
		}
		if json.Unmarshal(m.Params, &p) != nil || p.Mode == "" {
			b.fail(id, rpcInvalidParams, "ui/request-display-mode needs a mode")
			return
		}
		b.host.displayMode(p.Mode, func(mode string) { b.answer(id, map[string]string{"mode": mode}) })
	default:
		b.fail(id, rpcMethodNotFound, "Method not found: "+visibleControls(clipRunes(m.Method, 100)))
	}
}

// initializeResult is the host's answer to ui/initialize.
func (b *appBridge) initializeResult() map[string]any {
	return map[string]any{
		"protocolVersion": wire.AppsProtocolVersion,
		"hostInfo":        map[string]string{"name": "Switchboard", "version": "1"},
		"hostCapabilities": map[string]any{
			"openLinks":       struct{}{},
			"serverTools":     struct{}{},
			"serverResources": struct{}{},
			"logging":         struct{}{},
			"sandbox":         map[string]any{"csp": b.view.CSP, "permissions": b.granted},
		},
		"hostContext": b.hostContext(),
	}
}

// hostContext is the view's place, as ui/initialize tells it.
func (b *appBridge) hostContext() map[string]any {
	hc := map[string]any{
		"toolInfo":              map[string]any{"tool": b.tool},
		"theme":                 b.ctx.Theme,
		"displayMode":           b.mode(),
		"availableDisplayModes": []string{displayInline, displayFullscreen},
		"containerDimensions":   b.dimensions(),
		"platform":              "web",
	}
	if b.ctx.Locale != "" {
		hc["locale"] = b.ctx.Locale
	}
	if b.ctx.TimeZone != "" {
		hc["timeZone"] = b.ctx.TimeZone
	}
	return hc
}

// mode is the display mode the view is shown in.
func (b *appBridge) mode() string { return orDefault(b.ctx.Mode, displayInline) }

// dimensions are the view's containerDimensions: inline, a width when known
// and the most height it may ask for; in full screen, the whole container.
func (b *appBridge) dimensions() map[string]int {
	if b.mode() == displayFullscreen {
		return map[string]int{"width": b.ctx.Width, "height": b.ctx.Height}
	}
	dims := map[string]int{"maxHeight": maxViewHeight}
	if b.ctx.Width > 0 {
		dims["width"] = b.ctx.Width
	}
	return dims
}

// setDisplay tells an initialized view it is now shown in mode, in a
// container of width and height (in full screen), when that changed.
func (b *appBridge) setDisplay(mode string, width, height int) {
	if b.mode() == orDefault(mode, displayInline) && b.ctx.Width == width && b.ctx.Height == height {
		return
	}
	b.ctx.Mode, b.ctx.Width, b.ctx.Height = mode, width, height
	if b.ready {
		b.post(mContextChanged, map[string]any{"displayMode": b.mode(), "containerDimensions": b.dimensions()})
	}
}

// setTheme tells an initialized view the dashboard's theme changed.
func (b *appBridge) setTheme(theme string) {
	if theme == b.ctx.Theme {
		return
	}
	b.ctx.Theme = theme
	if b.ready {
		b.post(mContextChanged, map[string]string{"theme": theme})
	}
}

// setInput records the call's arguments (partial, while the model still
// writes them) and tells an initialized view.
func (b *appBridge) setInput(args json.RawMessage, partial string, streaming bool) {
	b.args, b.partial, b.streaming = args, partial, streaming
	if b.ready {
		b.sendInput()
	}
}

// sendInput sends the view the call's arguments once they are whole, and
// before that each new object the partial arguments stand for.
func (b *appBridge) sendInput() {
	switch {
	case b.inputOut:
	case !b.streaming:
		b.inputOut = true
		b.post(mToolInput, map[string]any{"arguments": objectOrEmpty(b.args)})
	default:
		if obj, ok := partialObject(b.partial); ok && string(obj) != b.partOut {
			b.partOut = string(obj)
			b.post(mToolPartial, map[string]any{"arguments": obj})
		}
	}
}

// setOutcome records the call's result and tells an initialized view.
func (b *appBridge) setOutcome(result *wire.CallToolResult) {
	b.result = result
	if b.ready {
		b.sendOutcome()
	}
}

// sendOutcome sends the view the call's result, once.
func (b *appBridge) sendOutcome() {
	if b.result != nil && b.resultOut != b.result {
		b.resultOut = b.result
		b.post(mToolResult, b.result)
	}
}

// teardown tells the view it is going away.
func (b *appBridge) teardown() {
	if b.ready {
		b.host.post(rpcMessage{JSONRPC: "2.0", ID: json.RawMessage(`"teardown"`), Method: mTeardown,
			Params: mustJSON(map[string]string{"reason": "The view was closed."})})
	}
}

func (b *appBridge) post(method string, params any) {
	b.host.post(rpcMessage{JSONRPC: "2.0", Method: method, Params: mustJSON(params)})
}

func (b *appBridge) answer(id json.RawMessage, result any) {
	b.host.post(rpcMessage{JSONRPC: "2.0", ID: id, Result: result})
}

func (b *appBridge) fail(id json.RawMessage, code int, message string) {
	b.host.post(rpcMessage{JSONRPC: "2.0", ID: id, Error: &rpcError{Code: code, Message: message}})
}

// messageText is the text of a ui/message's content: a text block, or
// a list of them.
func messageText(content any) string {
	var texts []string
	add := func(v any) {
		if m, ok := v.(map[string]any); ok && m["type"] == "text" {
			if s, ok := m["text"].(string); ok && strings.TrimSpace(s) != "" {
				texts = append(texts, s)
			}
		}
	}
	if list, ok := content.([]any); ok {
		for _, v := range list {
			add(v)
		}
	} else {
		add(content)
	}
	return strings.Join(texts, "\n")
}

// modelContextText is a ui/update-model-context as the model reads it: its
// text blocks, then its structured content as JSON.
func modelContextText(content any, structured json.RawMessage) string {
	text := messageText(content)
	var obj map[string]json.RawMessage
	if json.Unmarshal(structured, &obj) == nil && len(obj) > 0 {
		compact, _ := json.Marshal(obj) // it was just read
		text = strings.TrimSpace(text + "\n" + string(compact))
	}
	return text
}

// objectOrEmpty is raw when it is a JSON object, else {}.
func objectOrEmpty(raw json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return json.RawMessage(`{}`)
	}
	return raw
}

// mustJSON marshals v, which always marshals.
func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
