package web

import "github.com/maxence-charriere/go-app/v10/pkg/app"

// go-app writes a false boolean attribute as hidden="false" when it
// prerenders on the server, which HTML reads as true; these helpers set the
// attribute only when it holds.

func disabledIf[T interface{ Disabled(bool) T }](e T, on bool) T {
	if on {
		return e.Disabled(true)
	}
	return e
}

func hiddenIf[T interface{ Hidden(bool) T }](e T, on bool) T {
	if on {
		return e.Hidden(true)
	}
	return e
}

func checkedIf[T interface{ Checked(bool) T }](e T, on bool) T {
	if on {
		return e.Checked(true)
	}
	return e
}

func selectedIf[T interface{ Selected(bool) T }](e T, on bool) T {
	if on {
		return e.Selected(true)
	}
	return e
}

// choose returns yes when cond holds, else no.
func choose(cond bool, yes, no string) string {
	if cond {
		return yes
	}
	return no
}

// checkedNow sets whether a checkbox is checked. In the browser go-app sets
// the property, both ways, so a box the person clicked follows the state;
// prerendered markup carries the attribute only when it holds.
func checkedNow[T interface{ Checked(bool) T }](e T, on bool) T {
	if app.IsClient {
		return e.Checked(on)
	}
	return checkedIf(e, on)
}

// selectedNow sets whether an option is selected, as checkedNow does.
func selectedNow[T interface{ Selected(bool) T }](e T, on bool) T {
	if app.IsClient {
		return e.Selected(on)
	}
	return selectedIf(e, on)
}
