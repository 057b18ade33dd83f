package web

import (
	"strconv"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// tick is how often a countdown redraws.
const tick = time.Second

// Countdown shows the time left before a deadline, redrawn every second
// until the time is up.
type Countdown struct {
	app.Compo

	Deadline time.Time
	Created  time.Time // when the deadline was set; bounds the time left if the clocks disagree
	Label    string    // what ends at the deadline, such as "Answer within"

	ticking bool
}

// OnMount starts the ticking, which ends when the countdown is gone or the
// time is up.
func (c *Countdown) OnMount(ctx app.Context) { c.start(ctx) }

// OnUpdate starts the ticking again if a new deadline came after the time was up.
func (c *Countdown) OnUpdate(ctx app.Context) { c.start(ctx) }

func (c *Countdown) start(ctx app.Context) {
	if app.IsClient && !c.ticking {
		c.ticking = true
		ctx.After(tick, c.tick)
	}
}

// tick redraws the time left. A render would flag every component above
// this one too (go-app updates the ancestors of a component that asks),
// which is the whole page, every second; so tick prevents the render and
// sets the text and data-expired of its own element. Render draws the same
// from the same clock, so the renders that come for other reasons agree.
func (c *Countdown) tick(ctx app.Context) {
	ctx.PreventUpdate()
	text, expired := countdownText(c.Label, c.Deadline, c.Created, time.Now())
	if el := c.JSValue(); el != nil && el.Truthy() {
		if node := el.Get("firstChild"); node.Truthy() {
			node.Set("nodeValue", text) // the text node go-app holds stays in place
		}
		el.Call("setAttribute", "data-expired", strconv.FormatBool(expired))
	}
	if expired {
		c.ticking = false
		return
	}
	ctx.After(tick, c.tick)
}

// Render implements app.Composer.
func (c *Countdown) Render() app.UI {
	text, expired := countdownText(c.Label, c.Deadline, c.Created, time.Now())
	return app.Time().Class("ask-deadline").DataSet("expired", strconv.FormatBool(expired)).
		DateTime(c.Deadline.UTC().Format(time.RFC3339)).
		Title("Until " + c.Deadline.Local().Format("15:04:05")).
		Text(text)
}

// countdownText is what a countdown says at now, and whether the time is up.
func countdownText(label string, deadline, created, now time.Time) (text string, expired bool) {
	left := timeLeft(deadline, created, now)
	if left <= 0 {
		return "Time is up", true
	}
	return label + " " + clock(left), false
}

// timeLeft is the time from now to deadline, never below zero nor above
// the whole span from created (the browser's clock may differ from the
// relay's).
func timeLeft(deadline, created, now time.Time) time.Duration {
	left := deadline.Sub(now)
	if span := deadline.Sub(created); !created.IsZero() && span > 0 && left > span {
		left = span
	}
	return max(left, 0)
}

// clock writes a duration as m:ss, or h:mm:ss from an hour up, rounding up
// to the second.
func clock(d time.Duration) string {
	s := int((d + time.Second - 1) / time.Second)
	h, m, sec := s/3600, s/60%60, s%60
	two := func(n int) string {
		if n < 10 {
			return "0" + strconv.Itoa(n)
		}
		return strconv.Itoa(n)
	}
	if h > 0 {
		return strconv.Itoa(h) + ":" + two(m) + ":" + two(sec)
	}
	return strconv.Itoa(m) + ":" + two(sec)
}
