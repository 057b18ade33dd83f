package main

import (
	"bytes"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"testing"
)

func TestListenAppsOrigin(t *testing.T) {
	for _, tt := range []struct {
		base, origin, want string // want: "localhost", "127.0.0.1", "" (off) or an origin
	}{
		{base: "http://127.0.0.1:8080", want: "localhost"},
		{base: "http://localhost:8080", want: "127.0.0.1"},
		{base: "http://[::1]:8080", want: "127.0.0.1"},
		{base: "https://relay.example.com", want: ""},
		{base: "https://relay.example.com", origin: "https://apps.example.net/", want: "https://apps.example.net"},
	} {
		var log bytes.Buffer
		ln, origin, err := listenApps("127.0.0.1:0", tt.origin, tt.base, slog.New(slog.NewTextHandler(&log, nil)))
		if err != nil {
			t.Fatal(err)
		}
		if tt.want == "" {
			if ln != nil || origin != "" || !strings.Contains(log.String(), "MCP Apps are off") {
				t.Errorf("%s: Apps on at %q; log %q", tt.base, origin, log.String())
			}
			continue
		}
		port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
		ln.Close()
		want := tt.want
		if !strings.Contains(want, "://") {
			want = "http://" + want + ":" + port
		}
		if origin != want {
			t.Errorf("%s: origin %q, want %q", tt.base, origin, want)
		}
	}
}
