// Command bearerproxy forwards every request to -target with an
// Authorization: Bearer header added, as an agent configured with a key
// would send it; the conformance suite's "server --url" sends no headers.
// It adds that header and nothing else. The key comes from -key-file or
// $BEARERPROXY_KEY, never from the command line, so that it does not show
// in a process list. It listens on loopback only and prints its URL
// (http://ADDR) once listening, then serves until killed.
package main

import (
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
	"time"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "loopback address to listen on (port 0: any free one)")
	target := flag.String("target", "", "base URL to forward to, such as http://127.0.0.1:8080 (required)")
	keyFile := flag.String("key-file", "", "file holding the bearer key (default: $BEARERPROXY_KEY)")
	flag.Parse()
	if err := run(*listen, *target, *keyFile); err != nil {
		log.Fatal("bearerproxy: ", err)
	}
}

func run(listen, target, keyFile string) error {
	if flag.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q (the key goes in -key-file or $BEARERPROXY_KEY)", flag.Args())
	}
	to, err := url.Parse(target)
	if err != nil || (to.Scheme != "http" && to.Scheme != "https") || to.Host == "" {
		return fmt.Errorf("-target %q: want an absolute http(s) URL", target)
	}
	key, err := readKey(keyFile)
	if err != nil {
		return err
	}
	host, _, err := net.SplitHostPort(listen)
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("-listen %q: want a loopback address such as 127.0.0.1:0", listen)
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	proxy := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(to)
			r.Out.Host = r.In.Host // as the client sent it: the relay checks it against Origin
			r.Out.Header.Set("Authorization", "Bearer "+key)
		},
		FlushInterval: -1, // pass server-sent events on as they come
	}
	fmt.Printf("http://%s\n", ln.Addr())
	return (&http.Server{Handler: proxy, ReadHeaderTimeout: 10 * time.Second}).Serve(ln)
}

// readKey reads the key from file, or from $BEARERPROXY_KEY when file is "".
func readKey(file string) (string, error) {
	key := os.Getenv("BEARERPROXY_KEY")
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return "", err
		}
		key = string(b)
	}
	key = strings.TrimSpace(key)
	switch {
	case key == "":
		return "", errors.New("no key: give -key-file or set $BEARERPROXY_KEY")
	case strings.ContainsAny(key, " \t\r\n"):
		return "", errors.New("the key must be one word")
	}
	return key, nil
}
