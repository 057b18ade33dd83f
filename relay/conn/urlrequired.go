package conn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Methods a -32042 error may interrupt and 2026-07-28 input requests serve.
const (
	methodCallTool     = "tools/call"
	methodGetPrompt    = "prompts/get"
	methodReadResource = "resources/read"
)

// asking is a sending middleware for the operations that may need a
// person: it marks their context as the input-request lane, and when one
// fails with "URL elicitation required" (-32042) it shows each URL
// elicitation of the error as a URL ask, waits until each is complete (the
// server's notification, or the person's word) and retries. A retry that
// requires an elicitation already completed ends the operation with an
// error rather than a loop. (The go-sdk has such a middleware but neither
// exports nor installs it.)
func (c *Conn) asking(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case methodCallTool, methodGetPrompt, methodReadResource:
		case methodTaskResult:
			// A task's questions come on the stream of its tasks/result:
			// they are the questions of the call that made the task.
			ctx, end := c.calls.begin(ctx)
			defer end()
			return next(ctx, method, req)
		default:
			return next(ctx, method, req)
		}
		ctx = context.WithValue(ctx, inputLane{}, true)
		ctx, end := c.calls.begin(ctx)
		defer end()
		res, err := next(ctx, method, req)
		if !c.elicits() || !c.cfg.Modes.URL {
			return res, err
		}
		completed := map[string]bool{}
		for range maxURLRequiredRounds {
			required, ok := urlRequired(err)
			if !ok {
				return res, err
			}
			for _, p := range required {
				if completed[p.ElicitationID] {
					return nil, errors.New("the server asked again for a URL interaction that was completed; giving up")
				}
				completed[p.ElicitationID] = true
			}
			if err := c.completeAll(ctx, required); err != nil {
				return nil, err
			}
			res, err = next(ctx, method, req)
		}
		return res, err
	}
}

// urlRequired returns the URL elicitations of a -32042 error; ok is false
// for any other error, and for one the relay cannot follow (no
// elicitations, too many, or not all URL mode with an id), which then
// reaches the caller as it is.
func urlRequired(err error) (required []*mcp.ElicitParams, ok bool) {
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != mcp.CodeURLElicitationRequired {
		return nil, false
	}
	var data struct {
		Elicitations []*mcp.ElicitParams `json:"elicitations"`
	}
	if json.Unmarshal(rpcErr.Data, &data) != nil || len(data.Elicitations) == 0 || len(data.Elicitations) > maxURLRequired {
		return nil, false
	}
	for _, p := range data.Elicitations {
		if p == nil || elicitMode(p) != modeURL || p.ElicitationID == "" {
			return nil, false
		}
	}
	return data.Elicitations, true
}

// completeAll shows every required URL at once and waits until all are
// complete; the first failure withdraws the others.
func (c *Conn) completeAll(ctx context.Context, required []*mcp.ElicitParams) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
	)
	for _, p := range required {
		wg.Go(func() {
			if err := c.complete(ctx, p); err != nil {
				once.Do(func() { first = err; cancel() })
			}
		})
	}
	wg.Wait()
	return first
}

// complete shows one required URL and waits until it is complete.
func (c *Conn) complete(ctx context.Context, p *mcp.ElicitParams) error {
	ctx, done := c.onBehalf(ctx, methodElicit, p)
	defer done()
	ans, err := c.cfg.Asker.Elicit(ctx, p, FromURLRequired)
	var refused *jsonrpc.Error
	switch {
	case errors.As(err, &refused):
		return fmt.Errorf("the server requires a URL interaction the relay refuses: %s", refused.Message)
	case err != nil:
		return err
	case ans.Result == nil || ans.Result.Action == actionDecline:
		return errors.New("the server requires a URL interaction, which was declined")
	case ans.Result.Action != actionAccept:
		return errors.New("the server requires a URL interaction, which was not accepted")
	case ans.Wait == nil:
		return nil
	}
	return ans.Wait(ctx)
}

// Actions of an elicitation's result.
const (
	actionAccept  = "accept"
	actionDecline = "decline"
)
