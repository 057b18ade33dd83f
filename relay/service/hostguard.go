package service

import (
	"net"
	"net/http"
	"strings"

	"github.com/switchboard-mcp/switchboard/shared/urlnorm"
)

// hostGuard refuses requests whose Host is neither a loopback name nor one of
// allowed, or whose port is not a number. It stops DNS rebinding: a page on evil.example whose name is made
// to resolve to 127.0.0.1 reaches the relay with Host evil.example.
func hostGuard(allowed []string, next http.Handler) http.Handler {
	ok := map[string]bool{}
	for _, h := range allowed {
		ok[strings.ToLower(h)] = true
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := strings.ToLower(r.Host)
		port := ""
		if h, p, err := net.SplitHostPort(host); err == nil {
			host, port = h, p
		}
		host = strings.Trim(host, "[]")
		if strings.Trim(port, "0123456789") != "" || !urlnorm.IsLoopback(host) && !ok[host] {
			http.Error(w, "unknown host: set --public-url to the address people use to reach the relay", http.StatusMisdirectedRequest)
			return
		}
		next.ServeHTTP(w, r)
	})
}
