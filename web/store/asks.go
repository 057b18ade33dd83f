package store

import (
	"cmp"
	"slices"
	"time"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Asks (elicitation forms, URL consent) arrive in the snapshot and by
// deltas; the client adds what this dashboard did about them: the op on its
// way, the relay's refusal of it, and a notice for each ask that left while
// it was shown, unless this dashboard's own answer ended it.

// What an [AskStatus] may be sending besides the answer actions
// (wire.ActionAccept, ActionDecline, ActionCancel).
const (
	AskDismiss  = "dismiss"  // wire.OpDismissAsk
	AskComplete = "complete" // wire.OpCompleteAsk
)

// DepartedFor is how long a [Departed] notice is shown.
const DepartedFor = 6 * time.Second

// maxDeparted caps the notices kept: one per ask a user may have pending.
const maxDeparted = 32

// AskStatus is this dashboard's op on one ask.
type AskStatus struct {
	Sending string      // the action or op on its way (wire.ActionAccept, ..., AskDismiss, AskComplete); "" when none
	Err     *wire.Error // why the relay refused the last op
}

// Departed is an ask that left the list while this dashboard showed it:
// answered in another tab, timed out, withdrawn by its server, or refused
// by this dashboard.
type Departed struct {
	Ask  wire.Ask
	At   time.Time   // when it left
	Note string      // why this dashboard declined it; "" when it did not
	Err  *wire.Error // the relay's refusal of this dashboard's op, which came after the ask left
}

// askTrack is what the client remembers of its ops on one ask.
type askTrack struct {
	AskStatus
	settled bool      // this dashboard's op ended the ask
	note    string    // why this dashboard declined the ask (RefuseAsk)
	gone    *wire.Ask // the ask left while an op was on its way
}

// AnswerAsk sends a person's answer to the ask id: action is
// wire.ActionAccept, ActionDecline or ActionCancel, content the values of
// an accepted form (nil otherwise). Nothing is sent while another op on the
// ask is on its way.
func (c *Client) AnswerAsk(id string, action wire.Action, content map[string]any) {
	c.mu.Lock()
	settles := true // an accepted URL stays, waiting for its completion
	if i := slices.IndexFunc(c.snap.Asks, func(a wire.Ask) bool { return a.ID == id }); i >= 0 {
		settles = c.snap.Asks[i].Kind != wire.AskURL || action != wire.ActionAccept
	}
	c.mu.Unlock()
	c.askOp(id, string(action), "", settles, wire.OpAnswerAsk, wire.AnswerAskArgs{Ask: id, Action: action, Content: content})
}

// RefuseAsk declines the ask id on the dashboard's own account, because it
// cannot be shown safely; why is kept as the notice shown once the ask is
// gone. An ask is refused once, unless the refusal could not be sent.
func (c *Client) RefuseAsk(id, why string) {
	c.mu.Lock()
	refused := c.asks[id] != nil && c.asks[id].note != ""
	c.mu.Unlock()
	if refused {
		return
	}
	c.askOp(id, string(wire.ActionDecline), why, true, wire.OpAnswerAsk, wire.AnswerAskArgs{Ask: id, Action: wire.ActionDecline})
}

// DismissAsk stops waiting for the completion of the accepted URL ask id.
func (c *Client) DismissAsk(id string) {
	c.askOp(id, AskDismiss, "", true, wire.OpDismissAsk, wire.AskArgs{Ask: id})
}

// CompleteAsk tells the relay that the person finished at the URL of the
// waiting ask id.
func (c *Client) CompleteAsk(id string) {
	c.askOp(id, AskComplete, "", true, wire.OpCompleteAsk, wire.AskArgs{Ask: id})
}

// askOp sends op on the ask id, shown as sending what; settles says
// whether its success ends the ask.
func (c *Client) askOp(id, what, note string, settles bool, op wire.OpName, args any) {
	c.mu.Lock()
	t := c.asks[id]
	if t == nil {
		t = &askTrack{}
		c.asks[id] = t
	}
	if t.Sending != "" {
		c.mu.Unlock()
		return
	}
	t.Sending, t.Err = what, nil
	if note != "" {
		t.note = note
	}
	c.mu.Unlock()
	c.cfg.OnChange()
	c.Do(op, args, func(r Reply) {
		c.askAnswered(id, settles, r)
		c.cfg.OnChange()
	})
}

// askAnswered records the relay's answer to an op on the ask id.
func (c *Client) askAnswered(id string, settles bool, r Reply) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.asks[id]
	if t == nil {
		return
	}
	t.Sending = ""
	switch {
	case t.gone != nil && r.Err != nil:
		c.departLocked(*t.gone, t.note, r.Err)
		delete(c.asks, id)
	case t.gone != nil:
		if t.note != "" {
			c.departLocked(*t.gone, t.note, nil)
		}
		delete(c.asks, id)
	case !slices.ContainsFunc(c.snap.Asks, func(a wire.Ask) bool { return a.ID == id }):
		delete(c.asks, id) // an op on an ask this client never showed
	case r.Err != nil:
		t.Err = r.Err
		if r.Err.Code == CodeOffline || r.Err.Code == CodeConnectionLost {
			t.note = "" // a refusal that was not sent may be sent again
		}
	default:
		t.settled = settles
	}
}

// MsgRestarted is the note of the asks a restart of the relay's session
// withdrew (a relay that restarted, or a replica that took the person over
// from one that stopped).
const MsgRestarted = "The relay restarted this connection, which withdrew this request; the server asks again if it still needs to."

// noteDeparturesLocked records the asks of before that after lacks; why,
// when not empty, says why those that have no note of their own went.
func (c *Client) noteDeparturesLocked(before, after []wire.Ask, why string) {
	for _, a := range before {
		if slices.ContainsFunc(after, func(b wire.Ask) bool { return b.ID == a.ID }) {
			continue
		}
		t := c.asks[a.ID]
		switch {
		case t == nil:
			c.departLocked(a, why, nil)
		case t.Sending != "":
			gone := a
			t.gone = &gone // the answer to the op decides
			continue
		case !t.settled || t.note != "":
			c.departLocked(a, cmp.Or(t.note, why), nil)
		}
		delete(c.asks, a.ID)
	}
}

// departLocked adds a notice for a, dropping the notices that ran out.
func (c *Client) departLocked(a wire.Ask, note string, err *wire.Error) {
	now := c.cfg.Now()
	kept := slices.DeleteFunc(slices.Clone(c.departed), func(d Departed) bool { return now.Sub(d.At) >= DepartedFor })
	if len(kept) >= maxDeparted {
		kept = kept[len(kept)-maxDeparted+1:]
	}
	c.departed = append(kept, Departed{Ask: a, At: now, Note: note, Err: err})
}

// askStatusLocked returns the status of the asks with an op on its way or
// refused, in a new map.
func (c *Client) askStatusLocked() map[string]AskStatus {
	var out map[string]AskStatus
	for id, t := range c.asks {
		if t.Sending == "" && t.Err == nil {
			continue
		}
		if out == nil {
			out = make(map[string]AskStatus, len(c.asks))
		}
		out[id] = t.AskStatus
	}
	return out
}
