package web

import (
	"strconv"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// tick is how often a countdown redraws.
const tick = time.Second

// Countdown shows the time left before a deadline, redrawn every second.
type Countdown struct {
	app.Compo

	Deadline time.Time
	Created  time.Time // when the deadline was set; bounds the time left if the clocks disagree
	Label    string    // what ends at the deadline, such as "Answer within"
}

// OnMount starts the ticking, which ends when the countdown is gone.
func (c *Countdown) OnMount(ctx app.Context) {
	if app.IsClient {
		ctx.After(tick, c.tick)
	}
}

func (c *Countdown) tick(ctx app.Context) { ctx.After(tick, c.tick) }

// Render implements app.Composer.
func (c *Countdown) Render() app.UI {
	left := timeLeft(c.Deadline, c.Created, time.Now())
	text := c.Label + " " + clock(left)
	if left <= 0 {
		text = "Time is up"
	}
	return app.Time().Class("ask-deadline").DataSet("expired", strconv.FormatBool(left <= 0)).
		DateTime(c.Deadline.UTC().Format(time.RFC3339)).
		Title("Until " + c.Deadline.Local().Format("15:04:05")).
		Text(text)
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
