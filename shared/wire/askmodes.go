package wire

// Ask modes: the kinds of asks a person lets one server raise. The relay
// advertises only these to the server, when a session starts.

// AskModes are the kinds of asks a server may raise.
type AskModes struct {
	Form     bool         `json:"form"`     // elicitation forms
	URL      bool         `json:"url"`      // requests to open a URL
	Sampling SamplingMode `json:"sampling"` // SamplingOff, SamplingAsk or SamplingModel
	// Model names the model the relay is configured with, which
	// SamplingModel answers with; empty when there is none (then
	// SamplingModel cannot be chosen). Set by the relay.
	Model string `json:"model,omitempty"`
}

// SetAskModesArgs are the arguments of [OpSetAskModes].
type SetAskModesArgs struct {
	Server   string       `json:"server"`
	Form     bool         `json:"form"`
	URL      bool         `json:"url"`
	Sampling SamplingMode `json:"sampling"` // SamplingOff, SamplingAsk or SamplingModel; empty keeps SamplingAsk
}

// ServerID returns the server the arguments name.
func (a SetAskModesArgs) ServerID() string { return a.Server }
