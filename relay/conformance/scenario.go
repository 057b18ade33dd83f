package conformance

import (
	"encoding/json"
	"slices"

	"github.com/switchboard-mcp/switchboard/relay/store"
)

// scenario is what the client does in one suite scenario once connected.
type scenario struct {
	// tool is called once the connection is ready, with args; "" calls
	// nothing (the handshake and listing are the test).
	tool string
	args json.RawMessage
	// machine, when set, is the grant of machine access the server is
	// configured with (a store.Machine* grant).
	machine string
}

// authTool is the tool every authorization scenario's server offers; calling
// it is what triggers step-up authorization.
const authTool = "test-tool"

// scenarios are the suite's client scenarios other than authorization ones.
var scenarios = map[string]scenario{
	"initialize":                          {},
	"tools_call":                          {tool: "add_numbers", args: json.RawMessage(`{"a":5,"b":3}`)},
	"elicitation-sep1034-client-defaults": {tool: "test_client_elicitation_defaults"},
	"sse-retry":                           {tool: "test_reconnection"},
}

// authScenarios are the authorization scenarios of the authorization code
// flow: discovery, registration (dynamic, metadata document or
// pre-registered), scopes and step-up.
var authScenarios = []string{
	"auth/metadata-default",
	"auth/metadata-var1",
	"auth/metadata-var2",
	"auth/metadata-var3",
	"auth/basic-cimd",
	"auth/scope-from-www-authenticate",
	"auth/scope-from-scopes-supported",
	"auth/scope-omitted-when-undefined",
	"auth/scope-step-up",
	"auth/scope-retry-limit",
	"auth/token-endpoint-auth-basic",
	"auth/token-endpoint-auth-post",
	"auth/token-endpoint-auth-none",
	"auth/pre-registration",
	"auth/2025-03-26-oauth-metadata-backcompat",
	"auth/2025-03-26-oauth-endpoint-fallback",
	"auth/resource-mismatch",
	"auth/offline-access-scope",
	"auth/offline-access-not-supported",
}

// machineScenarios are the extension scenarios of machine access, with
// their grant: the server is configured with the context's credentials, and
// the relay obtains its token without a person.
var machineScenarios = map[string]string{
	"auth/client-credentials-basic":       store.MachineClientCredentials,
	"auth/client-credentials-jwt":         store.MachineClientCredentials,
	"auth/cross-app-access-complete-flow": store.MachineCrossApp,
}

// lookup returns the scenario called name.
func lookup(name string) (scenario, bool) {
	if sc, ok := scenarios[name]; ok {
		return sc, true
	}
	if grant, ok := machineScenarios[name]; ok {
		return scenario{tool: authTool, machine: grant}, true
	}
	if slices.Contains(authScenarios, name) {
		return scenario{tool: authTool}, true
	}
	return scenario{}, false
}

// Scenarios returns the names of the scenarios [Run] knows, sorted.
func Scenarios() []string {
	names := slices.Clone(authScenarios)
	for name := range scenarios {
		names = append(names, name)
	}
	for name := range machineScenarios {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}
