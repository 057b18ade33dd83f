package main

import (
	"net"
	"strings"
	"testing"
)

// The internal address is told to the other replicas: it must name one host
// and a fixed port.
func TestReplicaAddrMustNameAReachableHostAndAFixedPort(t *testing.T) {
	for addr, want := range map[string]string{
		"0.0.0.0:9090":    "not every interface",
		"[::]:9090":       "not every interface",
		":9090":           "not every interface",
		"127.0.0.1:0":     "fixed port",
		"127.0.0.1":       "fixed port",
		"10.0.0.5:9090:1": "fixed port",
	} {
		ln, err := listenReplica(addr)
		if ln != nil {
			ln.Close()
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("--replica-addr %s: %v, want an error saying %q", addr, err, want)
		}
	}
	if ln, err := listenReplica(""); ln != nil || err != nil {
		t.Errorf("no --replica-addr: %v, %v; want no listener", ln, err)
	}
	free, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := free.Addr().String()
	free.Close()
	ln, err := listenReplica(addr)
	if err != nil {
		t.Fatalf("--replica-addr %s: %v", addr, err)
	}
	ln.Close()
}
