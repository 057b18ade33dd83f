package gateway

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/relay/session"
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// The agent is told its call waits for a person only while an ask is out.
func TestWaiterStopsTellingOnceTheAskIsSettled(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	heard := make(chan string, 256)
	ss := progressPair(t, ctx, func(p *mcp.ProgressNotificationParams) {
		select {
		case heard <- p.Message:
		default:
		}
	})

	w := newWaiter(ctx, ss, "tok", 5*time.Millisecond)
	w.note(session.AskShown)
	if m := <-heard; m != msgWaiting {
		t.Fatalf("heard %q first, want %q", m, msgWaiting)
	}
	w.note(session.AskSettled)
	w.forward(wire.Progress{Progress: 1, Message: "working again"})
	// Messages sent before the settle may still arrive; none after the
	// server's own progress.
	for m := <-heard; m != "working again"; m = <-heard {
	}
	deadline := time.After(100 * time.Millisecond) // twenty intervals
	for {
		select {
		case m := <-heard:
			t.Fatalf("heard %q after the ask was settled", m)
		case <-deadline:
			w.stop()
			return
		}
	}
}

// Waiting is told in whole steps, and a server's progress the steps
// overtook goes on from them: always increasing, never a crumb.
func TestProgressWhileWaitingIsWholeSteps(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	heard := make(chan *mcp.ProgressNotificationParams, 256)
	ss := progressPair(t, ctx, func(p *mcp.ProgressNotificationParams) { heard <- p })

	w := newWaiter(ctx, ss, "tok", 0) // no ticker: the test ticks
	w.forward(wire.Progress{Progress: 0.25, Total: 1, Message: "started"})
	w.note(session.AskShown)
	w.sendWaiting(nil)
	w.sendWaiting(nil)
	w.forward(wire.Progress{Progress: 0.5, Total: 1, Message: "half"})
	w.forward(wire.Progress{Progress: 4.5, Total: 10, Message: "ahead"})
	w.stop()
	want := []struct {
		progress, total float64
		msg             string
	}{{0.25, 1, "started"}, {1, 0, msgWaiting}, {2, 0, msgWaiting}, {3, 0, "half"}, {4.5, 10, "ahead"}}
	for i, wn := range want {
		var p *mcp.ProgressNotificationParams
		select {
		case p = <-heard:
		case <-ctx.Done():
			t.Fatalf("heard %d notifications, want %d", i, len(want))
		}
		if p.Progress != wn.progress || p.Total != wn.total || p.Message != wn.msg {
			t.Errorf("notification %d: %v/%v %q, want %v/%v %q", i, p.Progress, p.Total, p.Message, wn.progress, wn.total, wn.msg)
		}
	}
}

// progressPair connects an agent's client, whose progress notifications go
// to heard, to a server in memory, and returns the server's session.
func progressPair(t *testing.T, ctx context.Context, heard func(*mcp.ProgressNotificationParams)) *mcp.ServerSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) { heard(req.Params) },
	})
	server := mcp.NewServer(&mcp.Implementation{Name: "gateway", Version: "1"}, nil)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return ss
}
