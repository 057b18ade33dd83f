package conformance

import (
	"slices"
	"testing"
)

func TestScenariosListsTheSuiteScenariosTheRelayImplements(t *testing.T) {
	names := Scenarios()
	if !slices.IsSorted(names) {
		t.Errorf("Scenarios() is not sorted: %v", names)
	}
	for _, want := range []string{"initialize", "tools_call", "sse-retry", "elicitation-sep1034-client-defaults", "auth/metadata-default", "auth/pre-registration", "auth/scope-step-up"} {
		if !slices.Contains(names, want) {
			t.Errorf("Scenarios() lacks %q", want)
		}
	}
	for _, gap := range []string{"auth/client-credentials-jwt", "auth/client-credentials-basic", "auth/cross-app-access-complete-flow"} {
		if slices.Contains(names, gap) {
			t.Errorf("Scenarios() lists the unimplemented %q", gap)
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
