// Package conformance runs the client scenarios of the official MCP
// conformance suite (@modelcontextprotocol/conformance) with the relay's own
// connection code, so that the suite tests what users meet: [conn.Start]
// over a netguard client, the relay's OAuth client and its elicitation
// answers.
//
// The suite starts a mock server for one scenario, then runs the client with
// the server's URL and the scenario's name. [Run] connects, waits until the
// connection is ready, completing an OAuth authorization on the way when the
// server asks for one, performs the scenario's operation (calling its tool)
// and returns; the suite's mock server judges what it saw.
//
// The extension scenarios of machine access (client credentials with
// client_secret_basic or private_key_jwt, cross-app access) configure the
// run's server for machine access with the context's credentials, as an
// operator would, and the identity provider of the context for cross-app
// access; the relay's OAuth client then obtains the token without a person.
//
// Nothing here needs a person: an authorization is approved by fetching the
// authorization URL without following its redirect and handing the code and
// state in its Location to the relay's callback logic, and a form
// elicitation is accepted with the defaults of its schema.
package conformance
