package web

import (
	"sync"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// mounted keeps a component's own context, so an op's answer that arrives
// later updates the component even if the button that sent it is gone.
//
// go-app calls OnMount through a dispatch, after the first render: an
// update of the parent in between calls OnUpdate first. What a component
// asks for then waits for the mount.
type mounted struct {
	mu      sync.Mutex
	ctx     app.Context
	live    bool
	waiting []func(app.Context) // asked for before the mount
}

// OnMount implements app.Mounter.
func (m *mounted) OnMount(ctx app.Context) {
	m.mu.Lock()
	m.ctx, m.live = ctx, true
	waiting := m.waiting
	m.waiting = nil
	m.mu.Unlock()
	for _, f := range waiting {
		ctx.Dispatch(f)
	}
}

// later runs f on the UI goroutine and re-renders the component.
func (m *mounted) later(f func(app.Context)) {
	if ctx, ok := m.own(f); ok {
		ctx.Dispatch(f)
	}
}

// afterRender runs f on the UI goroutine once the current update is done.
func (m *mounted) afterRender(f func(app.Context)) {
	if ctx, ok := m.own(f); ok {
		ctx.Defer(f)
	}
}

// own returns the component's context, or keeps f for the mount.
func (m *mounted) own(f func(app.Context)) (app.Context, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.live {
		m.waiting = append(m.waiting, f)
	}
	return m.ctx, m.live
}

// domValue reads the value of the input or textarea with id.
func domValue(id string) string {
	if el := app.Window().GetElementByID(id); el.Truthy() {
		return el.Get("value").String()
	}
	return ""
}

// setDOMValue sets the value of the input or textarea with id; go-app does
// not reset an input whose bound value did not change.
func setDOMValue(id, v string) {
	if el := app.Window().GetElementByID(id); el.Truthy() {
		el.Set("value", v)
	}
}

// setDOMChecked sets the checked property of the checkbox with id: what
// it shows, which its checked attribute stops governing once clicked.
func setDOMChecked(id string, on bool) {
	if el := app.Window().GetElementByID(id); el.Truthy() {
		el.Set("checked", on)
	}
}

// focusLater moves the focus, after the render, to the first element of ids
// that exists.
func focusLater(ctx app.Context, ids ...string) {
	ctx.Defer(func(app.Context) {
		for _, id := range ids {
			if el := app.Window().GetElementByID(id); el.Truthy() {
				el.Call("focus")
				return
			}
		}
	})
}

// focusFirstLater moves the focus, after the render, to the first element
// that matches the CSS selectors.
func focusFirstLater(ctx app.Context, selectors string) {
	ctx.Defer(func(app.Context) {
		if el := app.Window().Get("document").Call("querySelector", selectors); el.Truthy() {
			el.Call("focus")
		}
	})
}

// hasFocus reports whether the element with id has the keyboard focus.
func hasFocus(id string) bool {
	active := app.Window().Get("document").Get("activeElement")
	return active.Truthy() && active.Get("id").String() == id
}
