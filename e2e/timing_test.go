package e2e

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/switchboard-mcp/switchboard/e2e/fixture"
)

// Names and units of the first-render measurement.
const (
	wasmName        = "app.wasm"
	megabyte        = 1e6
	swReadyTimeout  = 5 * time.Second // how long to wait for the service worker before the warm load
	noEncoding      = "identity"
	encodingHeader  = "content-encoding"
	swReadyFunction = `Promise.race([
		navigator.serviceWorker ? navigator.serviceWorker.ready.then(() => true) : Promise.resolve(false),
		new Promise(resolve => setTimeout(() => resolve(false), %d)),
	])`
)

// firstRender is one measurement of the dashboard's first render.
type firstRender struct {
	cold, warm time.Duration // navigation start to the servers-rendered mark
	wasmBytes  int64         // bytes of app.wasm on the wire, cold
	encoding   string        // Content-Encoding of app.wasm, cold
	warmFrom   string        // where the warm load got app.wasm
	warmBytes  int64         // bytes of app.wasm on the wire, warm
	sw         bool          // a service worker was ready before the warm load
}

func (m firstRender) String() string {
	return fmt.Sprintf("first-render cold=%dms warm=%dms app.wasm transferred=%.2fMB (%s); warm: app.wasm from %s, %d bytes, service worker ready %v",
		m.cold.Milliseconds(), m.warm.Milliseconds(), float64(m.wasmBytes)/megabyte, m.encoding, m.warmFrom, m.warmBytes, m.sw)
}

// wasmLoads records the app.wasm requests of a tab, in order.
type wasmLoads struct {
	finished chan struct{} // a value after each finished load, buffered 1

	mu       sync.Mutex
	order    []network.RequestID
	response map[network.RequestID]*network.Response
	bytes    map[network.RequestID]int64
}

func watchWASM(t testing.TB, p *tab) *wasmLoads {
	t.Helper()
	w := &wasmLoads{
		finished: make(chan struct{}, 1),
		response: map[network.RequestID]*network.Response{},
		bytes:    map[network.RequestID]int64{},
	}
	err := chromedp.Listen(p.ctx, func(ev any) {
		w.mu.Lock()
		defer w.mu.Unlock()
		switch ev := ev.(type) {
		case *network.EventResponseReceived:
			if path, _, _ := strings.Cut(ev.Response.URL, "?"); strings.HasSuffix(path, "/"+wasmName) {
				w.order = append(w.order, ev.RequestID)
				w.response[ev.RequestID] = ev.Response
			}
		case *network.EventLoadingFinished:
			if _, ok := w.response[ev.RequestID]; ok {
				w.bytes[ev.RequestID] = int64(ev.EncodedDataLength)
				select {
				case w.finished <- struct{}{}:
				default:
				}
			}
		}
	})
	if err != nil {
		t.Fatalf("listen to the network: %v", err)
	}
	return w
}

// load returns load number n (from 0) of app.wasm once it finished.
func (w *wasmLoads) load(t testing.TB, n int) (*network.Response, int64) {
	t.Helper()
	timeout := time.After(waitTimeout)
	for {
		w.mu.Lock()
		if len(w.order) > n {
			id := w.order[n]
			if b, ok := w.bytes[id]; ok {
				resp := w.response[id]
				w.mu.Unlock()
				return resp, b
			}
		}
		w.mu.Unlock()
		select {
		case <-w.finished:
		case <-timeout:
			t.Fatalf("%s load %d did not finish within %v", wasmName, n, waitTimeout)
		}
	}
}

func (w *wasmLoads) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.order)
}

// markMillis returns the servers-rendered mark's time since navigation start.
func (p *tab) markMillis() time.Duration {
	p.t.Helper()
	p.waitServersRendered()
	ms := eval[float64](p, fmt.Sprintf(`performance.getEntriesByName(%s, "mark")[0].startTime`, jsString(serversRenderedMark)))
	return time.Duration(ms * float64(time.Millisecond))
}

// measureFirstRender opens the dashboard of r in a browser with a fresh
// profile (cold), then again in the same tab (warm: cache and service worker
// filled).
func measureFirstRender(t testing.TB, r *relay) firstRender {
	t.Helper()
	b := launchBrowser(t, t.TempDir())
	defer b.cancel()
	p := openTabIn(t, b)
	loads := watchWASM(t, p)

	var m firstRender
	p.navigate(r.loginURL(t))
	m.cold = p.markMillis()
	resp, n := loads.load(t, 0)
	m.wasmBytes = n
	m.encoding = noEncoding
	for k, v := range resp.Headers {
		if strings.EqualFold(k, encodingHeader) {
			m.encoding = fmt.Sprint(v)
		}
	}
	m.sw = evalAwait[bool](p, fmt.Sprintf(swReadyFunction, swReadyTimeout.Milliseconds()))

	before := loads.count()
	p.navigate(r.URL() + "/")
	m.warm = p.markMillis()
	m.warmFrom = "memory (no request)"
	if loads.count() > before {
		warm, n := loads.load(t, before)
		m.warmBytes = n
		switch {
		case warm.FromServiceWorker:
			m.warmFrom = "service worker"
		case warm.FromDiskCache:
			m.warmFrom = "disk cache"
		default:
			m.warmFrom = fmt.Sprintf("network, status %d", warm.Status)
		}
	}
	return m
}

// relayWithFixture is a relay whose local user has the fixture, ready.
func relayWithFixture(t testing.TB) *relay {
	t.Helper()
	r := startRelay(t)
	fx := fixture.Start(t)
	s, _ := r.openSocket(t, r.sessionCookie(t))
	s.addServer(fixtureName, fx.URL())
	return r
}

func TestFirstRenderTiming(t *testing.T) {
	r := relayWithFixture(t)
	m := measureFirstRender(t, r)
	t.Log(m)
	if m.wasmBytes <= 0 {
		t.Errorf("app.wasm transferred %d bytes", m.wasmBytes)
	}
	if m.encoding == noEncoding {
		t.Errorf("app.wasm came uncompressed (%d bytes); the relay must serve it with Content-Encoding", m.wasmBytes)
	}
	// A second visit must not download the whole of app.wasm again.
	if m.warmBytes > m.wasmBytes/2 {
		t.Errorf("the warm load transferred %d bytes of app.wasm (%s), the cold one %d", m.warmBytes, m.warmFrom, m.wasmBytes)
	}
}

func BenchmarkFirstRender(b *testing.B) {
	r := relayWithFixture(b)
	var cold, warm time.Duration
	var bytes int64
	var encoding string
	n := 0
	for b.Loop() {
		m := measureFirstRender(b, r)
		b.Log(m)
		cold += m.cold
		warm += m.warm
		bytes += m.wasmBytes
		encoding = m.encoding
		n++
	}
	b.ReportMetric(float64(cold.Milliseconds())/float64(n), "cold_ms")
	b.ReportMetric(float64(warm.Milliseconds())/float64(n), "warm_ms")
	// wasm_br_bytes when the relay serves brotli, as it should.
	b.ReportMetric(float64(bytes)/float64(n), "wasm_"+encoding+"_bytes")
}
