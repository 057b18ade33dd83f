package modelfixture

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// event is one server-sent event.
type event struct {
	name  string // "" for a data-only event (OpenAI)
	data  any    // sent as JSON; a string is sent as it is
	delta bool   // it carries content: text, reasoning or an argument fragment
}

// plan is a stream's events and where its faults go.
type plan struct {
	events    []event
	tail      int              // the first event after the content: the finish
	endlessAt int              // where an endless stream's tokens go, after the text
	token     func() event     // an endless stream's token
	failure   func(Fail) event // the provider's error event
}

// failAt is the index of the event a stream fails before: the delta after
// the first after ones, or the tail when there are no more.
func (p plan) failAt(after int) int {
	n := 0
	for i, e := range p.events[:p.tail] {
		if !e.delta {
			continue
		}
		if n == after {
			return i
		}
		n++
	}
	return p.tail
}

// setRequestID sets the header each provider names its requests in.
func setRequestID(w http.ResponseWriter, req *Request) {
	name := "x-request-id"
	if req.Provider == Anthropic {
		name = "request-id"
	}
	w.Header().Set(name, fmt.Sprintf("req_fixture_%d", req.N))
}

// answer answers a request with its reply.
func answer(w http.ResponseWriter, r *http.Request, req *Request, reply Reply) {
	if reply.Latency > 0 && !hold(r.Context(), reply.Latency) {
		req.gone.Store(true)
		return
	}
	switch {
	case reply.Status != 0:
		if reply.RetryAfter != "" {
			w.Header().Set("Retry-After", reply.RetryAfter)
		}
		if reply.Body == "" {
			writeError(w, req, reply.Status, "", "")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(reply.Status)
		io.WriteString(w, reply.Body)
	case !req.Stream:
		answerJSON(w, r, req, reply)
	case req.Provider == OpenAI:
		stream(w, r, req, reply, openAIPlan(req, reply))
	default:
		stream(w, r, req, reply, anthropicPlan(req, reply))
	}
}

// hold waits d, or until ctx ends; it reports whether d passed.
func hold(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// answerJSON answers a request that asked for no stream.
func answerJSON(w http.ResponseWriter, r *http.Request, req *Request, reply Reply) {
	f := reply.Fail
	switch {
	case reply.Endless > 0:
		<-r.Context().Done()
		req.gone.Store(true)
	case f != nil && f.Cut:
		panic(http.ErrAbortHandler)
	case f != nil:
		typ, msg := failDefaults(req.Provider, *f)
		status := http.StatusInternalServerError
		if typ == "overloaded_error" {
			status = statusOverloaded
		}
		writeError(w, req, status, typ, msg)
	default:
		var body any = openAIMessage(req, reply)
		if req.Provider == Anthropic {
			body = anthropicMessage(req, reply)
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(body)
	}
}

// stream answers a request with the events of pl, and the reply's faults.
func stream(w http.ResponseWriter, r *http.Request, req *Request, reply Reply, pl plan) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	send := func(e event) bool { return writeEvent(w, e) == nil && rc.Flush() == nil }
	end := len(pl.events)
	switch {
	case reply.Endless > 0:
		end = pl.endlessAt
	case reply.Fail != nil:
		end = pl.failAt(reply.Fail.After)
	}
	holdAt := -1
	if reply.Hold != nil {
		holdAt = pl.failAt(reply.Hold.After)
	}
	for i, e := range pl.events[:end] {
		if i == holdAt && !wait(r.Context(), reply.Hold.Until) {
			req.gone.Store(true)
			return
		}
		if !send(e) {
			req.gone.Store(true)
			return
		}
	}
	f := reply.Fail
	switch {
	case reply.Endless > 0:
		tick(r.Context(), reply.Endless, func() bool { return send(pl.token()) })
		req.gone.Store(true)
	case f != nil && f.Cut && f.Abort:
		panic(http.ErrAbortHandler)
	case f != nil && !f.Cut:
		send(pl.failure(*f))
	}
}

// wait waits until until is closed, false when ctx ends first.
func wait(ctx context.Context, until <-chan struct{}) bool {
	select {
	case <-until:
		return true
	case <-ctx.Done():
		return false
	}
}

// tick sends a token every period until ctx ends or a send fails.
func tick(ctx context.Context, period time.Duration, send func() bool) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if !send() {
				return
			}
		}
	}
}

// writeEvent writes one server-sent event.
func writeEvent(w io.Writer, e event) error {
	data, ok := e.data.(string)
	if !ok {
		b, err := json.Marshal(e.data)
		if err != nil {
			return err
		}
		data = string(b)
	}
	if e.name != "" {
		data = "event: " + e.name + "\ndata: " + data + "\n\n"
	} else {
		data = "data: " + data + "\n\n"
	}
	_, err := io.WriteString(w, data)
	return err
}

// modelOf is the model an answer names.
func modelOf(req *Request) string {
	if req.Model == "" {
		return DefaultModel
	}
	return req.Model
}

// callID is a tool call's id, defaulted with the provider's prefix.
func callID(req *Request, i int, c ToolCall) string {
	switch {
	case c.ID != "":
		return c.ID
	case req.Provider == Anthropic:
		return fmt.Sprintf("toolu_%d_%d", req.N, i)
	default:
		return fmt.Sprintf("call_%d_%d", req.N, i)
	}
}
