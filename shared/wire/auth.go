package wire

// AuthState is what a dashboard may know of a server's OAuth: never a token,
// a refresh token or a client secret, only whether they are set.
type AuthState struct {
	Required        bool     `json:"required,omitempty"`        // the server asked for OAuth
	Authorized      bool     `json:"authorized,omitempty"`      // the relay holds a token for it
	Issuer          string   `json:"issuer,omitempty"`          // the authorization server
	Scopes          []string `json:"scopes,omitempty"`          // scopes asked for or granted
	ClientID        string   `json:"clientId,omitempty"`        // the client id in use, if known
	ClientSecretSet bool     `json:"clientSecretSet,omitempty"` // a client secret is stored (write-only)
	Error           string   `json:"error,omitempty"`           // why the last authorization failed, sanitized
}

// AuthorizeResult is the result of [OpAuthorize].
type AuthorizeResult struct {
	URL string `json:"url"` // the authorization server's authorization URL, checked http(s)
}

// SetClientArgs are the arguments of [OpSetClient]. An empty ClientID clears
// the stored credentials.
type SetClientArgs struct {
	Server       string `json:"server"`
	ClientID     string `json:"clientId"`
	ClientSecret string `json:"clientSecret,omitempty"`
}

// ServerID returns the server the arguments name.
func (a SetClientArgs) ServerID() string { return a.Server }
