package web

import (
	"strconv"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
	"github.com/switchboard-mcp/switchboard/web/store"
)

// maxAnnounced caps the part of a message the live region reads out, in characters.
const maxAnnounced = 140

// focusable is what focus goes to in a card: its first input, else its
// first action.
const focusable = ".ask-field:not(:disabled), .ask-open:not(:disabled), .ask-retry:not(:disabled), " +
	".ask-accept:not(:disabled), .ask-decline:not(:disabled)"

// AskStack is the region above the page where asks wait, as cards in
// arrival order: never in a tab, announced through a live region, focused
// when they arrive and left with Escape (Cancel). An ask that goes while
// shown leaves a short notice in its place.
//
// go-app matches children by position, so every ask keeps the slot it got
// when it came: a card that goes is replaced by its notice, then by an
// empty slot, and only empty slots at the end are dropped. The cards after
// it never move to another slot, which would remount them and lose what was
// typed in them.
type AskStack struct {
	app.Compo

	Asks     []wire.Ask
	Status   map[string]store.AskStatus
	Departed []store.Departed
	Live     bool // the relay connection is live: answers can be sent

	slots     []string        // ask ids, in the order their cards were placed
	placed    map[string]bool // the ids in slots
	live      map[string]bool // the asks shown at the last reconcile
	announced map[string]bool // the notices read out
	ending    map[string]bool // the notices whose end is scheduled
	announce  string          // what the live region says
	returnTo  app.Value       // what had the focus before a card took it
	keydown   app.Func
	top       atomic.Value // string: the id of the topmost card, for onKey, which runs off the UI goroutine
}

// OnMount places the asks and listens for Escape anywhere on the page.
func (s *AskStack) OnMount(ctx app.Context) {
	if !app.IsClient {
		return
	}
	s.keydown = app.FuncOf(func(_ app.Value, args []app.Value) any {
		if len(args) > 0 {
			s.onKey(ctx, args[0])
		}
		return nil
	})
	app.Window().Call("addEventListener", "keydown", s.keydown)
	s.reconcile(ctx)
}

// OnDismount stops listening for Escape.
func (s *AskStack) OnDismount() {
	if s.keydown != nil {
		app.Window().Call("removeEventListener", "keydown", s.keydown)
		s.keydown.Release()
		s.keydown = nil
	}
}

// OnUpdate places new asks and notices.
func (s *AskStack) OnUpdate(ctx app.Context) { s.reconcile(ctx) }

// Render implements app.Composer.
func (s *AskStack) Render() app.UI {
	now := time.Now()
	return app.Div().Class("ask-region").Body(
		app.Div().ID("asks-live").Class("sb-visually-hidden").Role("status").Aria("live", "polite").Text(s.announce),
		hiddenIf(app.Section().ID("asks").Class("ask-stack").Aria("labelledby", "asks-title"), len(s.slots) == 0).Body(
			app.H2().ID("asks-title").Class("ask-stack-title").Text(waitingTitle(len(s.Asks))),
			app.Range(s.slots).Slice(func(i int) app.UI { return s.renderSlot(s.slots[i], now) }),
		),
	)
}

// renderSlot is the card of a waiting ask, the notice of one that went, or
// an empty slot.
func (s *AskStack) renderSlot(id string, now time.Time) app.UI {
	if a, ok := s.ask(id); ok {
		return askCardOf(a, s.Status[id], s.Live)
	}
	if d := s.notice(id, now); d != nil {
		return renderDeparted(*d)
	}
	return app.Div().Class("ask-slot")
}

// reconcile places the asks that came, schedules the end of the notices,
// drops the empty slots at the end, and moves the focus and announces as
// cards come and go.
func (s *AskStack) reconcile(ctx app.Context) {
	if s.placed == nil {
		s.placed, s.live, s.announced, s.ending = map[string]bool{}, map[string]bool{}, map[string]bool{}, map[string]bool{}
	}
	now := time.Now()
	live := make(map[string]bool, len(s.Asks))
	var came []wire.Ask
	for _, a := range s.Asks {
		live[a.ID] = true
		if !s.placed[a.ID] {
			s.placed[a.ID] = true
			s.slots = append(s.slots, a.ID)
			came = append(came, a)
		}
	}
	closed := false
	for id := range s.live {
		closed = closed || !live[id]
	}
	s.live = live

	var went []store.Departed
	for _, d := range s.Departed {
		id := d.Ask.ID
		if !s.placed[id] || live[id] || now.Sub(d.At) >= store.DepartedFor {
			continue
		}
		if !s.announced[id] {
			s.announced[id] = true
			went = append(went, d)
		}
		if !s.ending[id] {
			s.ending[id] = true
			ctx.After(d.At.Add(store.DepartedFor).Sub(now), s.reconcile)
		}
	}
	for n := len(s.slots); n > 0; n-- {
		id := s.slots[n-1]
		if live[id] || s.notice(id, now) != nil || s.Status[id].Sending != "" {
			break // a card, a notice, or an answer whose outcome may bring a notice
		}
		s.slots = s.slots[:n-1]
		delete(s.placed, id)
		delete(s.announced, id)
		delete(s.ending, id)
	}

	s.top.Store(topCard(s.slots, live))
	if text := announcement(came, went); text != "" {
		s.announce = text
	}
	if app.IsClient {
		s.moveFocus(ctx, came, closed)
	}
}

// moveFocus takes the focus into the first card that came, unless it is in
// a card already, and, when a card closed with the focus in it, gives it
// to the next card or back to where it was.
func (s *AskStack) moveFocus(ctx app.Context, came []wire.Ask, closed bool) {
	first := ""
	for _, a := range came {
		if a.State == wire.AskPending {
			first = a.ID
			break
		}
	}
	if first == "" && !closed {
		return
	}
	ctx.Defer(func(app.Context) {
		doc := app.Window().Get("document")
		active := doc.Get("activeElement")
		lost := !active.Truthy() || active.Equal(doc.Get("body"))
		inCards := false
		if stack := app.Window().GetElementByID("asks"); stack.Truthy() && !lost {
			inCards = stack.Call("contains", active).Bool()
		}
		switch {
		case first != "" && !inCards:
			if !lost {
				s.returnTo = active
			}
			focusCard(first)
		case closed && lost:
			for _, id := range s.slots {
				if s.live[id] && focusCard(id) {
					return
				}
			}
			if s.returnTo != nil && s.returnTo.Get("isConnected").Bool() {
				s.returnTo.Call("focus")
			}
			s.returnTo = nil
		}
	})
}

// onKey answers Escape, in a card (Cancel, or Stop waiting) or where
// nothing has the focus (the topmost card, if there is one; else the
// Escape is left alone). It runs outside the UI goroutine.
func (s *AskStack) onKey(ctx app.Context, ev app.Value) {
	if ev.Get("key").String() != "Escape" || ev.Get("defaultPrevented").Bool() {
		return
	}
	id := ""
	target := ev.Get("target")
	if target.Truthy() && target.Get("closest").Truthy() {
		if card := target.Call("closest", ".ask-card"); card.Truthy() {
			id = card.Get("dataset").Get("askId").String()
		}
	}
	if id == "" {
		doc := app.Window().Get("document")
		if active := doc.Get("activeElement"); active.Truthy() && !active.Equal(doc.Get("body")) {
			return // Escape belongs to what has the focus
		}
		if id, _ = s.top.Load().(string); id == "" {
			return // no card to close
		}
	}
	ev.Call("preventDefault")
	ctx.Dispatch(func(app.Context) { s.escape(id) })
}

// topCard is the ask of the first card in slots: one of the asks live,
// pending or waiting alike (Escape stops a wait as it cancels a question);
// "" when no card is shown.
func topCard(slots []string, live map[string]bool) string {
	for _, id := range slots {
		if live[id] {
			return id
		}
	}
	return ""
}

// escape closes the card of ask id: Stop waiting for a waiting URL, Dismiss
// a refused one, else Cancel.
func (s *AskStack) escape(id string) {
	r := relay()
	if r == nil {
		return
	}
	a, ok := s.ask(id)
	switch {
	case !ok:
	case a.State == wire.AskWaiting || a.State == wire.AskRefused:
		r.DismissAsk(id)
	default:
		r.AnswerAsk(id, wire.ActionCancel, nil)
	}
}

// ask returns the waiting ask id.
func (s *AskStack) ask(id string) (wire.Ask, bool) {
	for _, a := range s.Asks {
		if a.ID == id {
			return a, true
		}
	}
	return wire.Ask{}, false
}

// notice returns the newest notice of ask id still shown at now, or nil.
func (s *AskStack) notice(id string, now time.Time) *store.Departed {
	for i := len(s.Departed) - 1; i >= 0; i-- {
		if d := &s.Departed[i]; d.Ask.ID == id && now.Sub(d.At) < store.DepartedFor {
			return d
		}
	}
	return nil
}

// waitingTitle heads the region.
func waitingTitle(n int) string {
	switch n {
	case 0:
		return "No request is waiting"
	case 1:
		return "1 request is waiting for you"
	}
	return strconv.Itoa(n) + " requests are waiting for you"
}

// announcement is what the live region says about the asks that came and
// went, or "".
func announcement(came []wire.Ask, went []store.Departed) string {
	switch {
	case len(came) == 1:
		return "New request from " + serverNameOf(came[0]) + ": " + clipRunes(orDefault(came[0].Message, "a model reply"), maxAnnounced)
	case len(came) > 1:
		return strconv.Itoa(len(came)) + " new requests, the first from " + serverNameOf(came[0]) + "."
	case len(went) > 0:
		return departedText(went[len(went)-1])
	}
	return ""
}

// focusCard moves the focus into the card of ask id and reports whether
// there is one.
func focusCard(id string) bool {
	card := app.Window().GetElementByID(askCardID(id))
	if !card.Truthy() {
		return false
	}
	el := card.Call("querySelector", focusable)
	if !el.Truthy() {
		el = card
	}
	el.Call("focus")
	return true
}

// focusAsksOf moves the focus into the first card of server.
func focusAsksOf(server string) {
	cards := app.Window().Get("document").Call("querySelectorAll", ".ask-card")
	for i := 0; i < cards.Length(); i++ {
		card := cards.Index(i)
		if card.Get("dataset").Get("serverId").String() == server {
			focusCard(card.Get("dataset").Get("askId").String())
			return
		}
	}
}

// clipRunes cuts s to max characters, ending with an ellipsis when cut.
func clipRunes(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	return string([]rune(s)[:max-1]) + "…"
}
