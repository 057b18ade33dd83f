package web

// Paths of the embedded dashboard.
const (
	// EmbedPath is the page an embedding site frames. Its query names the
	// view (EmbedView*), the server of the one-server view and the origin
	// of the host page; the relay serves it only to the sites its
	// --embed-origins lists.
	EmbedPath = "/embed"
	// EmbedScriptPath is the script a host page loads to embed the
	// dashboard (static/embed.js).
	EmbedScriptPath = "/embed.js"
	// OAuthHandoffPath is the page an embedded dashboard opens in its
	// authorization popup: it takes the token from the dashboard that
	// opened it and starts the authorization there (the relay's
	// oauth.HandoffPath).
	OAuthHandoffPath = "/oauth/handoff"
	// OAuthStartPath is the relay's start page of an authorization (the
	// relay's oauth.StartPath), which the hand-off page stands in for.
	OAuthStartPath = "/oauth/start"
)

// Query parameters of [EmbedPath].
const (
	EmbedParamView   = "view"
	EmbedParamServer = "server"
	EmbedParamHost   = "host"
)

// Views an embedding site can choose.
const (
	EmbedViewDashboard = "dashboard" // everything: asks, the list and the selected server
	EmbedViewServers   = "servers"   // the server list, with the asks
	EmbedViewServer    = "server"    // one server, with its asks
	EmbedViewQuestions = "questions" // only the asks waiting for the person
)
