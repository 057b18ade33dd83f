package web

import (
	"fmt"
	"maps"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestTheProxyCapsAViewAsThePageDoes: the sandbox proxy (relay/apps/sandbox.js)
// counts a view's messages on the view's clock with the page's own caps,
// and refuses a request with the page's error: the two must not drift.
func TestTheProxyCapsAViewAsThePageDoes(t *testing.T) {
	src, err := os.ReadFile("../relay/apps/sandbox.js")
	if err != nil {
		t.Fatal(err)
	}
	js := string(src)
	number := func(name string) int {
		t.Helper()
		m := regexp.MustCompile(`\b` + name + ` = (\d+)`).FindStringSubmatch(js)
		if m == nil {
			t.Fatalf("sandbox.js sets no %s", name)
		}
		n, _ := strconv.Atoi(m[1])
		return n
	}
	for _, c := range []struct {
		name string
		want int
	}{
		{"PASS", maxViewMessages},
		{"REQUESTS", maxViewRequests},
		{"BURST", strayBurst},
		{"RATE", strayRate},
	} {
		if got := number(c.name); got != c.want {
			t.Errorf("sandbox.js %s = %d, the page's is %d", c.name, got, c.want)
		}
	}
	m := regexp.MustCompile(`RELAYED = \{([^}]*)\}`).FindStringSubmatch(js)
	if m == nil {
		t.Fatal("sandbox.js has no RELAYED")
	}
	relayed := map[string]bool{}
	for _, k := range regexp.MustCompile(`"([^"]+)": true`).FindAllStringSubmatch(m[1], -1) {
		relayed[k[1]] = true
	}
	if !maps.Equal(relayed, reachesRelay) {
		t.Errorf("sandbox.js RELAYED = %v, the page's reachesRelay = %v", relayed, reachesRelay)
	}
	refusal := fmt.Sprintf("error: { code: %d, message: %q }", rpcRefused, refusedTooOften)
	if !strings.Contains(js, refusal) {
		t.Errorf("sandbox.js does not refuse with %s", refusal)
	}
}
