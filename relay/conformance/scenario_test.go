package conformance

import (
	"slices"
	"testing"

	"github.com/switchboard-mcp/switchboard/relay/store"
)

func TestScenariosListsTheSuiteScenariosTheRelayImplements(t *testing.T) {
	names := Scenarios()
	if !slices.IsSorted(names) {
		t.Errorf("Scenarios() is not sorted: %v", names)
	}
	for _, want := range []string{"initialize", "tools_call", "sse-retry", "elicitation-sep1034-client-defaults", "auth/metadata-default", "auth/pre-registration", "auth/scope-step-up",
		"auth/client-credentials-jwt", "auth/client-credentials-basic", "auth/cross-app-access-complete-flow"} {
		if !slices.Contains(names, want) {
			t.Errorf("Scenarios() lacks %q", want)
		}
	}
	for _, name := range names {
		if _, ok := lookup(name); !ok {
			t.Errorf("lookup(%q) fails for a listed scenario", name)
		}
	}
}

func TestAuthScenariosCallTheSuiteTestTool(t *testing.T) {
	sc, ok := lookup("auth/scope-step-up")
	if !ok || sc.tool != authTool {
		t.Fatalf("lookup(auth/scope-step-up) = %+v, %v; want a call of %q", sc, ok, authTool)
	}
}

func TestMachineScenariosConfigureMachineAccess(t *testing.T) {
	for name, grant := range map[string]string{
		"auth/client-credentials-basic":       store.MachineClientCredentials,
		"auth/cross-app-access-complete-flow": store.MachineCrossApp,
	} {
		sc, ok := lookup(name)
		if !ok || sc.machine != grant || sc.tool != authTool {
			t.Errorf("lookup(%s) = %+v, %v; want machine access by %s and a call of %q", name, sc, ok, grant, authTool)
		}
	}
	if sc, _ := lookup("auth/pre-registration"); sc.machine != "" {
		t.Errorf("auth/pre-registration is configured for machine access (%s)", sc.machine)
	}
}
