package wire

// RefType names what a [CompleteRef] refers to.
type RefType string

// Reference types.
const (
	RefPrompt   RefType = "ref/prompt"   // a prompt argument; Name is the prompt
	RefResource RefType = "ref/resource" // a template variable; URI is the URI template
)

// Limits on completions.
const (
	// MaxCompletionValues is how many suggested values a result keeps (the
	// protocol's own limit).
	MaxCompletionValues = 100
	// MaxCompletionValue caps the length of one value and of the value
	// typed, in bytes.
	MaxCompletionValue = 1000
	// MaxCompletionContext is how many already-filled arguments a request
	// may carry as context.
	MaxCompletionContext = 64
)

// CompleteArgs are the arguments of [OpComplete].
type CompleteArgs struct {
	Server   string      `json:"server"`
	Ref      CompleteRef `json:"ref"`
	Argument string      `json:"argument"` // the argument or variable being typed
	Value    string      `json:"value"`    // what is typed so far
	// Context holds the arguments or variables already filled in.
	Context map[string]string `json:"context,omitempty"`
}

// CompleteRef names what is being completed.
type CompleteRef struct {
	Type RefType `json:"type"`           // RefPrompt or RefResource
	Name string  `json:"name,omitempty"` // the prompt, for RefPrompt
	URI  string  `json:"uri,omitempty"`  // the URI template, for RefResource
}

// CompleteResult is a server's suggestions.
type CompleteResult struct {
	Values  []string `json:"values"`
	Total   int      `json:"total,omitempty"`   // how many exist in all, when the server says
	HasMore bool     `json:"hasMore,omitempty"` // more exist than were sent
}

// ServerID returns the server the arguments name.
func (a CompleteArgs) ServerID() string { return a.Server }
