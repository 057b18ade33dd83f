package oauth

// Names the external tests (package oauth_test) use.
type (
	// CallbackError is callbackError.
	CallbackError = callbackError
)

// StateTTL is stateTTL.
const StateTTL = stateTTL
