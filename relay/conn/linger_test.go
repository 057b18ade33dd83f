package conn

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// TestConnectionOutlivesACallEndedBeforeItsStreamEnded pins what lingering
// is for: the caller has its answer and ends the request's context before
// the stream's last chunk arrived; the connection is still reused.
func TestConnectionOutlivesACallEndedBeforeItsStreamEnded(t *testing.T) {
	finish := make(chan struct{})
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(headerContentType, eventStreamType)
		io.WriteString(w, "data: {\"answer\":1}\n\n")
		w.(http.Flusher).Flush()
		<-finish // the stream's end comes after the caller moved on
	}))
	var dials atomic.Int32
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			dials.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	client := &http.Client{Transport: lingering{base: srv.Client().Transport}}

	for i := range 3 {
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, nil)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil {
			t.Fatalf("call %d: read the answer: %v", i, err)
		}
		cancel()                       // the caller has its answer
		finish <- struct{}{}           // then the stream ends
		io.Copy(io.Discard, resp.Body) // the go-sdk reads it to its end
		resp.Body.Close()
	}
	if n := dials.Load(); n != 1 {
		t.Errorf("3 calls opened %d connections, want 1", n)
	}
}

func TestLingeringCancelsARequestNotYetAnsweredAtOnce(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-release
	}))
	defer srv.Close()
	defer close(release)
	client := &http.Client{Transport: lingering{base: srv.Client().Transport}}
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, nil)
	done := make(chan error, 1)
	go func() {
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	case <-time.After(drainGrace / 2):
		t.Error("a cancelled request waiting for its answer was not aborted at once")
	}
}
