package servercfg

import (
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func TestNormalizeID(t *testing.T) {
	for in, want := range map[string]string{
		"My Server":                    "my-server",
		"  GitHub / MCP !! ":           "github-mcp",
		"a__b--c":                      "a__b--c",
		"Ünïcode":                      "n-code",
		strings.Repeat("x", 70):        strings.Repeat("x", 64),
		strings.Repeat("a", 63) + " b": strings.Repeat("a", 63),
	} {
		got, err := NormalizeID(in)
		if err != nil || got != want {
			t.Errorf("NormalizeID(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "!!!", " - "} {
		if _, err := NormalizeID(in); err == nil {
			t.Errorf("NormalizeID(%q) succeeded", in)
		}
	}
}

func TestCheckHeaderRefusesTransportAndHopByHopNames(t *testing.T) {
	for _, name := range []string{"Host", "content-length", "Connection", "Transfer-Encoding", "mcp-session-id", "MCP-Protocol-Version", "Cookie"} {
		err := CheckHeader(name, "v")
		if err == nil || !strings.Contains(err.Error(), "cannot be set") {
			t.Errorf("CheckHeader(%q) = %v", name, err)
		}
	}
	for _, name := range []string{"X-Api-Key", "Authorization", "x-goog-api-key"} {
		if err := CheckHeader(name, "secret-value"); err != nil {
			t.Errorf("CheckHeader(%q) = %v", name, err)
		}
	}
	for name, value := range map[string]string{"": "v", "Bad Name": "v", "X-A": "line\r\nbreak", "X-B": strings.Repeat("v", MaxHeaderValue+1)} {
		err := CheckHeader(name, value)
		if err == nil {
			t.Errorf("CheckHeader(%q, ...) succeeded", name)
		} else if strings.Contains(err.Error(), "line\r\nbreak") {
			t.Errorf("the error quotes the value: %v", err)
		}
	}
}

func TestMaskURLHidesSecretQueryValues(t *testing.T) {
	for in, want := range map[string]string{
		"https://h.example/mcp?api_key=sk-1&x=2":          "https://h.example/mcp?api_key=•••&x=2",
		"https://h.example/mcp?apiKey=sk-1":               "https://h.example/mcp?apiKey=•••",
		"https://h.example/mcp?access_token=t&sig=s":      "https://h.example/mcp?access_token=•••&sig=•••",
		"https://h.example/mcp?Password=p&TOKEN=t&page=1": "https://h.example/mcp?Password=•••&TOKEN=•••&page=1",
	} {
		got, masked := MaskURL(in)
		if got != want || !masked {
			t.Errorf("MaskURL(%q) = %q, %v; want %q", in, got, masked, want)
		}
	}
	for _, in := range []string{"https://h.example/mcp", "https://h.example/mcp?page=2&keyboard=1", "https://h.example/mcp?token="} {
		if got, masked := MaskURL(in); got != in || masked {
			t.Errorf("MaskURL(%q) = %q, %v; want it unchanged", in, got, masked)
		}
	}
}

func TestUnmaskKeepsTheSecretsOfTheOriginal(t *testing.T) {
	orig := "https://h.example/mcp?api_key=sk-1&x=2"
	for edited, want := range map[string]string{
		"https://h.example/v2?api_key=•••&x=3":                     "https://h.example/v2?api_key=sk-1&x=3",
		"https://h.example/v2?api_key=%E2%80%A2%E2%80%A2%E2%80%A2": "https://h.example/v2?api_key=sk-1",
		"https://h.example/v2?api_key=new":                         "https://h.example/v2?api_key=new",
		"https://h.example/v2?token=•••":                           "https://h.example/v2?token=•••",
		"https://h.example/v2?api_key=•••#part":                    "https://h.example/v2?api_key=sk-1#part",
		"https://h.example/v2?x=1#&api_key=•••":                    "https://h.example/v2?x=1#&api_key=•••",
	} {
		if got := Unmask(edited, orig); got != want {
			t.Errorf("Unmask(%q) = %q, want %q", edited, got, want)
		}
	}
}

func TestCheckRetry(t *testing.T) {
	for _, ok := range []wire.Retry{{}, {Attempts: 5, BaseDelayMS: 500, MaxDelayMS: 60000}} {
		if err := CheckRetry(ok); err != nil {
			t.Errorf("CheckRetry(%+v) = %v", ok, err)
		}
	}
	for _, bad := range []wire.Retry{{Attempts: -1}, {BaseDelayMS: 5}, {BaseDelayMS: 1000, MaxDelayMS: 500}, {MaxDelayMS: MaxRetryDelayMS + 1}} {
		if err := CheckRetry(bad); err == nil {
			t.Errorf("CheckRetry(%+v) succeeded", bad)
		}
	}
}
