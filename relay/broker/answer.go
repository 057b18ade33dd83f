package broker

import (
	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Errors of the ops on asks.
var (
	errUnknown    = wire.NewError(wire.CodeNotFound, "no such ask: it was answered, timed out or withdrawn")
	errNotWaiting = wire.NewError(wire.CodeBadRequest, "the ask is not waiting for a URL to be completed: answer it instead")
	errRefused    = wire.NewError(wire.CodeBadRequest, "the relay refused this request and declined it: there is nothing to answer")
)

// Answer records a person's answer to the pending ask args.Ask; the first
// answer wins. An answer to an unknown or settled ask is a
// [wire.CodeNotFound] error, one to a refused ask a [wire.CodeBadRequest]
// error. The action must be accept, decline or cancel;
// only an accepted form carries content, which must validate against the
// form's schema (empty values count as not given and are left out), or the
// answer is refused with a [wire.CodeBadRequest] error naming the fields at
// fault, and the ask stays pending.
func (b *Broker) Answer(args wire.AnswerAskArgs) error {
	b.mu.Lock()
	e := b.asks[args.Ask]
	refused := e != nil && e.ask.State == wire.AskRefused
	b.mu.Unlock()
	switch {
	case e == nil:
		return errUnknown
	case refused:
		return errRefused
	}
	args, err := e.check(args)
	if err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if e.settled {
		return errUnknown
	}
	b.settleLocked(e, args)
	return nil
}

// check returns args fit to send to the server, or why they are refused.
// Only immutable fields of e are read.
func (e *entry) check(args wire.AnswerAskArgs) (wire.AnswerAskArgs, error) {
	switch args.Action {
	case wire.ActionAccept, wire.ActionDecline, wire.ActionCancel:
	default:
		return args, wire.NewError(wire.CodeBadRequest, "the action must be accept, decline or cancel")
	}
	if e.ask.Kind == wire.AskSampling {
		return e.checkSampling(args)
	}
	if args.Sampling != nil {
		return args, wire.NewError(wire.CodeBadRequest, "only a sampling ask is answered with a message")
	}
	content := withoutBlanks(args.Content)
	switch {
	case e.ask.Kind == wire.AskURL && len(content) > 0:
		return args, wire.NewError(wire.CodeBadRequest, "a URL answer carries no content: accepting only consents to open the URL")
	case args.Action != wire.ActionAccept && len(content) > 0:
		return args, wire.NewError(wire.CodeBadRequest, "only an accepted answer carries content")
	case e.ask.Kind == wire.AskForm && args.Action == wire.ActionAccept:
		if errs := e.form.Validate(content); errs != nil {
			return args, wire.NewError(wire.CodeBadRequest, "the answer does not fit the form: "+errs.Error())
		}
		if content == nil {
			content = map[string]any{}
		}
	}
	args.Content = content
	return args, nil
}

// withoutBlanks drops the values a form counts as not given (null and the
// empty string), which must not reach the server; nil when none remain.
func withoutBlanks(values map[string]any) map[string]any {
	var out map[string]any
	for k, v := range values {
		if v == nil || v == "" {
			continue
		}
		if out == nil {
			out = make(map[string]any, len(values))
		}
		out[k] = v
	}
	return out
}

// Dismiss stops waiting for the completion of the accepted URL ask id (its
// waiter gets [ErrDismissed]), or takes the refused ask id off the
// dashboards. An unknown ask is a [wire.CodeNotFound] error, one that is
// neither waiting nor refused a [wire.CodeBadRequest] error.
func (b *Broker) Dismiss(id string) error {
	b.mu.Lock()
	e := b.asks[id]
	if e != nil && e.ask.State == wire.AskRefused {
		e.hide.Stop()
		b.removeLocked(e)
		b.mu.Unlock()
		return nil
	}
	b.mu.Unlock()
	return b.endWait(id, ErrDismissed)
}

// MarkDone ends the wait of the accepted URL ask id as completed, on the
// person's word, for servers that send no completion notification. Errors
// are those of [Broker.Dismiss].
func (b *Broker) MarkDone(id string) error { return b.endWait(id, nil) }

func (b *Broker) endWait(id string, why error) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	e := b.asks[id]
	switch {
	case e == nil:
		return errUnknown
	case e.ask.State != wire.AskWaiting:
		return errNotWaiting
	}
	b.finishLocked(e, why)
	return nil
}

// Completed reports the server's notifications/elicitation/complete for
// elicitationID: the URL asks of server with that elicitation id stop
// waiting, as completed; one still pending is completed as soon as it is
// accepted. Unknown ids are ignored.
func (b *Broker) Completed(server, elicitationID string) {
	if elicitationID == "" {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, e := range b.asks {
		if e.ask.Kind != wire.AskURL || e.ask.State == wire.AskRefused || e.ask.Server != server || e.ask.ElicitationID != elicitationID {
			continue
		}
		if e.ask.State == wire.AskWaiting {
			b.finishLocked(e, nil)
		} else {
			e.completed = true
		}
	}
}
