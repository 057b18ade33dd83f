package netguard_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/netguard"
)

func ExamplePolicy_CheckAddr() {
	hosted := netguard.Policy{}
	for _, s := range []string{"93.184.216.34", "169.254.169.254", "::ffff:10.0.0.5", "127.0.0.1"} {
		fmt.Println(s, "->", hosted.CheckAddr(netip.MustParseAddr(s)))
	}
	// Output:
	// 93.184.216.34 -> <nil>
	// 169.254.169.254 -> blocked address 169.254.169.254: link-local (cloud metadata)
	// ::ffff:10.0.0.5 -> blocked address ::ffff:10.0.0.5: private network (RFC 1918) via IPv4-mapped IPv6 (10.0.0.5)
	// 127.0.0.1 -> blocked address 127.0.0.1: loopback (AllowLoopback is off)
}

func ExamplePolicy_Client() {
	// An MCP server on this machine.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()

	local := netguard.Policy{AllowLoopback: true} // a relay run on one's own machine
	hosted := netguard.Policy{}                   // a hosted relay
	for _, p := range []netguard.Policy{local, hosted} {
		resp, err := p.Client(10 * time.Second).Get(srv.URL)
		if err != nil {
			fmt.Println("blocked:", netguard.IsBlocked(err))
			continue
		}
		resp.Body.Close()
		fmt.Println(resp.Status)
	}
	// Output:
	// 200 OK
	// blocked: true
}
