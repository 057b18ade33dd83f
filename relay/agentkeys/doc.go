// Package agentkeys is the agents' credentials as the relay checks them:
// the [Grant] a bearer credential gives (whose servers, which of them,
// which tools, until when), and [Keys], which authenticates agent keys
// (stored as hashes, read through a one-second cache), an embedding site's
// agent tokens, and, through [Keys.Tokens], the OAuth access tokens of
// relay/agentauth.
//
// The agent endpoint (relay/gateway) and the authorization server
// (relay/agentauth) both use it; neither knows the other. The dashboard's
// ops on keys (list, create, revoke) are registered by [Keys.HandleOps].
package agentkeys
