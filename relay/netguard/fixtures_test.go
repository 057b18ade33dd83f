package netguard

import (
	"context"
	"encoding/binary"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// testTimeout bounds every request a test makes.
const testTimeout = 10 * time.Second

// dialRecord is one address the dialer's Control hook was asked about.
type dialRecord struct {
	address string
	err     error // the policy's verdict; nil means it let the connect go ahead
}

// dialWatch records every verdict of a dialer's Control hook.
type dialWatch struct {
	mu      sync.Mutex
	records []dialRecord
}

// errTestGuard stops a connect that the policy let through to a
// non-loopback address, so that even a broken policy sends no traffic out.
var errTestGuard = errors.New("test guard: connect to a non-loopback address stopped")

// watchedClient returns p's client whose dialer reports each Control verdict
// to the returned watch.
func watchedClient(p Policy) (*http.Client, *dialWatch) {
	d := p.Dialer()
	w := watchDialer(d)
	c := p.Client(testTimeout)
	c.Transport = p.transportWith(d)
	return c, w
}

// watchDialer wraps d's Control hook so that each verdict is recorded and no
// connect to a non-loopback address ever happens.
func watchDialer(d *net.Dialer) *dialWatch {
	w := &dialWatch{}
	check := d.Control
	d.Control = func(network, address string, c syscall.RawConn) error {
		err := check(network, address, c)
		w.mu.Lock()
		w.records = append(w.records, dialRecord{address, err})
		w.mu.Unlock()
		if err == nil && !isLoopbackAddrPort(address) {
			return errTestGuard
		}
		return err
	}
	return w
}

// isLoopbackAddrPort reports whether address is a loopback "ip:port".
func isLoopbackAddrPort(address string) bool {
	ap, err := netip.ParseAddrPort(address)
	return err == nil && ap.Addr().Unmap().IsLoopback()
}

// snapshot returns the verdicts recorded so far.
func (w *dialWatch) snapshot() []dialRecord {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]dialRecord(nil), w.records...)
}

// assertOnlyLoopbackConnects fails t if the policy let a connect to a
// non-loopback address go ahead (the test guard stopped it).
func (w *dialWatch) assertOnlyLoopbackConnects(t *testing.T) {
	t.Helper()
	for _, r := range w.snapshot() {
		if r.err == nil && !isLoopbackAddrPort(r.address) {
			t.Errorf("policy let a connect to non-loopback %s go ahead", r.address)
		}
	}
}

// refused returns the addresses the policy refused at dial time.
func (w *dialWatch) refused() []string {
	var out []string
	for _, r := range w.snapshot() {
		if r.err != nil {
			out = append(out, r.address)
		}
	}
	return out
}

// countingServer is an HTTP server on 127.0.0.1 that counts the requests it
// receives and answers them with h (200 "ok" when h is nil).
type countingServer struct {
	*httptest.Server
	hits atomic.Int64
}

func newCountingServer(t *testing.T, h http.HandlerFunc) *countingServer {
	t.Helper()
	s := &countingServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		if h == nil {
			_, _ = w.Write([]byte("ok"))
			return
		}
		h(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// port returns the server's port as a string.
func (s *countingServer) port() string {
	_, port, _ := net.SplitHostPort(s.Listener.Addr().String())
	return port
}

// DNS wire format constants for the test server (RFC 1035).
const (
	dnsHeaderLen   = 12
	dnsTypeA       = 1
	dnsFlagsHigh   = 0x85 // QR, AA, RD
	dnsFlagsLowOK  = 0x80 // RA, RCODE NOERROR
	dnsFlagsLowNX  = 0x83 // RA, RCODE NXDOMAIN
	dnsNamePointer = 0xc00c
	dnsTTL         = 60
	dnsMaxMessage  = 512
	ipv4Len        = 4
)

// dnsServer is a tiny UDP DNS server on 127.0.0.1 answering A queries from a
// fixed table, AAAA queries with no records, and unknown names with
// NXDOMAIN.
type dnsServer struct {
	conn    net.PacketConn
	records map[string]netip.Addr
	queries atomic.Int64
}

func newDNSServer(t *testing.T, records map[string]string) *dnsServer {
	t.Helper()
	conn, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen dns: %v", err)
	}
	s := &dnsServer{conn: conn, records: map[string]netip.Addr{}}
	for name, addr := range records {
		s.records[name] = netip.MustParseAddr(addr)
	}
	done := make(chan struct{})
	go s.serve(done)
	t.Cleanup(func() {
		conn.Close()
		<-done
	})
	return s
}

func (s *dnsServer) serve(done chan<- struct{}) {
	defer close(done)
	buf := make([]byte, dnsMaxMessage)
	for {
		n, from, err := s.conn.ReadFrom(buf)
		if err != nil {
			return // closed by cleanup
		}
		s.queries.Add(1)
		if resp, ok := s.answer(buf[:n]); ok {
			_, _ = s.conn.WriteTo(resp, from)
		}
	}
}

// answer builds the response to query, echoing its single question.
func (s *dnsServer) answer(query []byte) ([]byte, bool) {
	if len(query) < dnsHeaderLen || binary.BigEndian.Uint16(query[4:6]) != 1 {
		return nil, false
	}
	var labels []string
	off := dnsHeaderLen
	for off < len(query) && query[off] != 0 {
		n := int(query[off])
		if off+1+n > len(query) {
			return nil, false
		}
		labels = append(labels, string(query[off+1:off+1+n]))
		off += 1 + n
	}
	end := off + 1 + 4 // zero label, QTYPE, QCLASS
	if end > len(query) {
		return nil, false
	}
	qtype := binary.BigEndian.Uint16(query[off+1 : off+3])
	resp := append([]byte(nil), query[:end]...)
	clear(resp[6:dnsHeaderLen]) // ANCOUNT, NSCOUNT, ARCOUNT
	resp[2] = dnsFlagsHigh
	addr, known := s.records[strings.ToLower(strings.Join(labels, "."))]
	if !known {
		resp[3] = dnsFlagsLowNX
		return resp, true
	}
	resp[3] = dnsFlagsLowOK
	if qtype != dnsTypeA {
		return resp, true
	}
	binary.BigEndian.PutUint16(resp[6:8], 1)
	ip := addr.As4()
	resp = binary.BigEndian.AppendUint16(resp, dnsNamePointer)
	resp = binary.BigEndian.AppendUint16(resp, dnsTypeA)
	resp = binary.BigEndian.AppendUint16(resp, 1) // class IN
	resp = binary.BigEndian.AppendUint32(resp, dnsTTL)
	resp = binary.BigEndian.AppendUint16(resp, ipv4Len)
	return append(resp, ip[:]...), true
}

// resolver returns a pure-Go resolver that sends every query to s.
func (s *dnsServer) resolver() *net.Resolver {
	return &net.Resolver{
		PreferGo: true,
		Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "udp", s.conn.LocalAddr().String())
		},
	}
}

// blockedError returns the *BlockedError in err's chain, failing t if none.
func blockedError(t *testing.T, err error) *BlockedError {
	t.Helper()
	var be *BlockedError
	if !errors.As(err, &be) {
		t.Fatalf("error %v is not a BlockedError", err)
	}
	return be
}
