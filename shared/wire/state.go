package wire

import "encoding/json"

// ServerState is where a server's connection is in its life.
type ServerState string

// Server lifecycle states.
const (
	StateConnecting     ServerState = "connecting"
	StateConnected      ServerState = "connected"
	StateDiscovering    ServerState = "discovering"
	StateReady          ServerState = "ready"
	StateFailed         ServerState = "failed"
	StateAuthenticating ServerState = "authenticating"
)

// Snapshot is the data of a [TypeSnapshot] frame: a user's whole state.
// The frame's Seq is the sequence number this state corresponds to.
type Snapshot struct {
	Epoch   string   `json:"epoch"` // changes when the relay's session restarts; a new epoch means resync
	User    string   `json:"user"`
	Servers []Server `json:"servers"`
	Asks    []Ask    `json:"asks,omitempty"`  // pending asks in arrival order
	Calls   []Call   `json:"calls,omitempty"` // calls in the order they started

	// Roots are the person's roots, in their order.
	Roots []Root `json:"roots,omitempty"`
	// Journals hold each server's logs and activity.
	Journals []Journal `json:"journals,omitempty"`
	// AgentCalls are the latest agent calls, oldest first (see [KindAgentCall]).
	AgentCalls []AgentCall `json:"agentCalls,omitempty"`

	// Chats are the person's conversations (a dashboard orders them by
	// Updated); ChatTurns the latest turn of the conversations that ran
	// lately (see chat.go).
	Chats     []Chat     `json:"chats,omitempty"`
	ChatTurns []ChatTurn `json:"chatTurns,omitempty"`

	// Catalog are the servers the relay's operator offers to every user.
	Catalog []CatalogEntry `json:"catalog,omitempty"`
}

// Server is one registered MCP server as the dashboard sees it.
type Server struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	URL       string    `json:"url"`
	Transport Transport `json:"transport"`
	// TransportInUse is the transport the connection uses (set when
	// Transport is TransportAuto and it found one).
	TransportInUse Transport   `json:"transportInUse,omitempty"`
	State          ServerState `json:"state"`
	Error          string      `json:"error,omitempty"` // sanitized, set when State is failed

	// HeaderNames name the custom headers sent upstream; values never leave the relay.
	HeaderNames []string `json:"headerNames,omitempty"`
	// Disconnected is set while the person keeps the server disconnected.
	Disconnected bool   `json:"disconnected,omitempty"`
	Retry        *Retry `json:"retry,omitempty"`
	// Configured is set for servers from the relay operator's configuration
	// file (stdio among them): a person cannot remove or edit them.
	Configured bool `json:"configured,omitempty"`

	Auth *AuthState `json:"auth,omitempty"` // OAuth status, when the server uses OAuth
	// AskModes are the kinds of asks the relay lets this server raise; a
	// person may change them.
	AskModes *AskModes `json:"askModes,omitempty"`
	// RootsExcluded is set when the person hides their roots from this server.
	RootsExcluded bool     `json:"rootsExcluded,omitempty"`
	Logging       *Logging `json:"logging,omitempty"` // set when the server declares logging

	Info            *Implementation `json:"info,omitempty"`
	ProtocolVersion string          `json:"protocolVersion,omitempty"`
	Instructions    string          `json:"instructions,omitempty"`
	// Capabilities are those the server declared; ClientCapabilities name
	// those the relay advertised to it (ClientCap*).
	Capabilities       *ServerCapabilities `json:"capabilities,omitempty"`
	ClientCapabilities []ClientCapability  `json:"clientCapabilities,omitempty"`

	Tools     []Tool             `json:"tools,omitempty"`
	Prompts   []Prompt           `json:"prompts,omitempty"`
	Resources []Resource         `json:"resources,omitempty"`
	Templates []ResourceTemplate `json:"templates,omitempty"`

	Subscriptions []Subscription `json:"subscriptions,omitempty"` // resources subscribed to
}

// Meta returns a copy of s without its lists: the part a [KindServer] change carries.
func (s Server) Meta() Server {
	for _, l := range serverLists {
		l.clear(&s)
	}
	return s
}

// Implementation names an MCP server's software.
type Implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version,omitempty"`
}

// Tool is an MCP tool.
type Tool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  json.RawMessage `json:"annotations,omitempty"`
	Icons        []Icon          `json:"icons,omitempty"` // safe icons only (see [Icon])
	// TaskSupport is the tool's execution.taskSupport (TaskSupport*), and
	// Uncallable, when set, says why the relay cannot call the tool.
	TaskSupport TaskSupport `json:"taskSupport,omitempty"`
	Uncallable  string      `json:"uncallable,omitempty"`
	// UI is the tool's App (_meta.ui), when it has one.
	UI *ToolUI `json:"ui,omitempty"`
}

// Prompt is an MCP prompt.
type Prompt struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
	Icons       []Icon           `json:"icons,omitempty"` // safe icons only (see [Icon])
}

// PromptArgument is one argument of a [Prompt].
type PromptArgument struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// Resource is an MCP resource.
type Resource struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
	Size        int64  `json:"size,omitempty"`
	Icons       []Icon `json:"icons,omitempty"` // safe icons only (see [Icon])
}

// ResourceTemplate is an MCP resource template.
type ResourceTemplate struct {
	URITemplate string `json:"uriTemplate"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
	Icons       []Icon `json:"icons,omitempty"` // safe icons only (see [Icon])
}
