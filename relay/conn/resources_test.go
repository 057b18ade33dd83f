package conn

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// subscribeFixture is a server with completions and a subscribable
// resource; subscribed receives the URI of every resources/subscribe.
func subscribeFixture(t *testing.T, e era) (*fixture, chan string) {
	t.Helper()
	subscribed := make(chan string, 16)
	var mu sync.Mutex
	f := newFixture(t, e, &mcp.ServerOptions{
		CompletionHandler: func(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			p := req.Params
			values := []string{p.Argument.Value + "-a", p.Argument.Value + "-b", p.Argument.Value + "-a", "bad\x1bvalue"}
			if p.Context != nil {
				values = append(values, "ctx:"+p.Context.Arguments["lang"])
			}
			values = append(values, "ref:"+p.Ref.Type+":"+p.Ref.Name+p.Ref.URI)
			return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: values, Total: 42, HasMore: true}}, nil
		},
		SubscribeHandler: func(_ context.Context, req *mcp.SubscribeRequest) error {
			mu.Lock()
			defer mu.Unlock()
			subscribed <- req.Params.URI
			return nil
		},
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
	})
	f.server.AddResource(&mcp.Resource{URI: "test://clock", Name: "clock", MIMEType: "text/plain"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "test://clock", Text: "tick"}}}, nil
		})
	f.server.AddPrompt(&mcp.Prompt{Name: "code", Arguments: []*mcp.PromptArgument{{Name: "lang"}, {Name: "style"}}},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{}, nil
		})
	return f, subscribed
}

func TestCompleteSendsTheContext(t *testing.T) {
	for _, e := range eras {
		t.Run(e.name, func(t *testing.T) {
			f, _ := subscribeFixture(t, e)
			c, _, ready := startReady(t, f)
			if caps := ready.Init.Capabilities; caps.Completions == nil || caps.Resources == nil || !caps.Resources.Subscribe {
				t.Fatalf("declared capabilities not kept: %+v", caps)
			}
			res, err := c.Complete(context.Background(), &mcp.CompleteParams{
				Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "code"}, Argument: mcp.CompleteParamsArgument{Name: "style", Value: "py"},
				Context: &mcp.CompleteContext{Arguments: map[string]string{"lang": "go"}},
			})
			if err != nil {
				t.Fatal(err)
			}
			want := []string{"py-a", "py-b", "py-a", "bad\x1bvalue", "ctx:go", "ref:ref/prompt:code"}
			if d := res.Completion; !slices.Equal(d.Values, want) || d.Total != 42 || !d.HasMore {
				t.Errorf("got %+v, want values %q, total 42, more", d, want)
			}
		})
	}
}

func TestSubscribeNeedsTheCapability(t *testing.T) {
	c, _, ready := startReady(t, opsFixture(t, legacyEra))
	if caps := ready.Init.Capabilities; caps.Completions != nil {
		t.Fatalf("a server without completions has them: %+v", caps)
	}
	if err := c.Subscribe(context.Background(), "test://readme"); errCode(t, err) != BadRequest {
		t.Errorf("subscribe without the capability: %v", err)
	}
}

func TestSubscriptionIsMarkedUpdatedAndMadeAgainAfterAReconnect(t *testing.T) {
	for _, e := range eras {
		t.Run(e.name, func(t *testing.T) {
			f, subscribed := subscribeFixture(t, e)
			c, r, _ := startReady(t, f)
			ctx := context.Background()
			if err := c.Subscribe(ctx, "test://clock"); err != nil {
				t.Fatal(err)
			}
			<-subscribed
			r.Await("subscribed", func(s State) bool {
				return len(s.Subscriptions) == 1 && s.Subscriptions[0].URI == "test://clock"
			})
			f.server.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: "test://clock"})
			first := r.Await("updated", func(s State) bool {
				return len(s.Subscriptions) == 1 && s.Subscriptions[0].Updated != ""
			}).Subscriptions[0].Updated

			f.stop()
			r.AwaitState(wire.StateFailed)
			f.restart()
			r.AwaitState(wire.StateReady)
			if uri := <-subscribed; uri != "test://clock" {
				t.Fatalf("made again for %q", uri)
			}
			f.server.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: "test://clock"})
			r.Await("updated again", func(s State) bool {
				return len(s.Subscriptions) == 1 && s.Subscriptions[0].Updated > first
			})

			c.Unsubscribe(ctx, "test://clock")
			r.Await("unsubscribed", func(s State) bool { return len(s.Subscriptions) == 0 })
		})
	}
}

func TestSubscriptionsGivenAtStartAreMade(t *testing.T) {
	f, subscribed := subscribeFixture(t, legacyEra)
	cfg := testConfig(f.url)
	cfg.Subscriptions = []string{"test://clock"}
	_, r := start(t, cfg)
	if first := r.Await("any", func(State) bool { return true }); len(first.Subscriptions) != 1 {
		t.Errorf("the first state shows %+v", first.Subscriptions)
	}
	r.AwaitState(wire.StateReady)
	if uri := <-subscribed; uri != "test://clock" {
		t.Errorf("subscribed to %q", uri)
	}
}

func TestUnsubscribeWhileTheServerIsAwayShows(t *testing.T) {
	f, _ := subscribeFixture(t, legacyEra)
	cfg := testConfig(f.url)
	cfg.Subscriptions = []string{"test://clock"}
	c, r := start(t, cfg)
	r.AwaitState(wire.StateReady)
	f.stop()
	r.AwaitState(wire.StateFailed)
	c.Unsubscribe(context.Background(), "test://clock")
	r.Await("no subscription while failed", func(s State) bool {
		return s.State == wire.StateFailed && len(s.Subscriptions) == 0
	})
}
