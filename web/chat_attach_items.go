package web

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/yosida95/uritemplate/v3"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// attachKind is what a list offers, named by the character that opens it.
type attachKind byte

const (
	attachNone     attachKind = 0
	attachPrompts  attachKind = '/'
	attachResource attachKind = '@'
)

// maxAttachItems caps a list; typing narrows it.
const maxAttachItems = 50

// listStatus says, for assistive technology, what a list shows.
func listStatus(kind attachKind, n int, query string, browsing bool) string {
	what := choose(kind == attachPrompts, "prompt", "resource")
	switch {
	case kind == attachNone:
		return ""
	case n == 0 && !browsing:
		return ""
	case n == 0 && strings.TrimSpace(query) == "":
		return "No ready server offers a " + what + "."
	case n == 0:
		return "No " + what + " matches “" + strings.TrimSpace(query) + "”."
	}
	return countWords(n, what) + ": up and down arrows to choose, Enter to attach, Escape to close."
}

// trigger is the part of the composer's text that opens a list.
type trigger struct {
	kind  attachKind
	query string // what follows the "/" or "@"
	text  string // the trigger's text, which the attachment replaces
}

// parseTrigger finds the trigger in a composer's text: the whole text when
// it starts with "/" (on one line), else its last word when that starts
// with "@".
func parseTrigger(input string) trigger {
	if rest, ok := strings.CutPrefix(input, "/"); ok && !strings.ContainsAny(rest, "\r\n") {
		return trigger{kind: attachPrompts, query: strings.TrimSpace(rest), text: input}
	}
	word := input
	if i := strings.LastIndexFunc(input, unicode.IsSpace); i >= 0 {
		_, n := utf8.DecodeRuneInString(input[i:])
		word = input[i+n:]
	}
	if rest, ok := strings.CutPrefix(word, "@"); ok {
		return trigger{kind: attachResource, query: rest, text: word}
	}
	return trigger{}
}

// stillClosed reports whether a list closed on the composer text closed
// stays closed for input: the person went on typing the same trigger.
func stillClosed(closed, input string) bool {
	if closed == "" || !strings.HasPrefix(input, closed) {
		return false
	}
	was, now := parseTrigger(closed), parseTrigger(input)
	return was.kind != attachNone && now.kind == was.kind && len(closed)-len(was.text) == len(input)-len(now.text)
}

// attachItem is an entry of a list: a prompt, a resource or a resource
// template of a server.
type attachItem struct {
	Server, ServerName string
	Complete           bool // the server suggests values
	Prompt             *wire.Prompt
	Resource           *wire.Resource
	Template           *wire.ResourceTemplate
}

// attachItems lists the prompts, or the resources and resource templates, of
// the ready servers whose name, title or URI holds query, those that start
// with it first: at most maxAttachItems of them, and how many matched.
func attachItems(servers []wire.Server, kind attachKind, query string) ([]attachItem, int) {
	q := strings.ToLower(strings.TrimSpace(query))
	type ranked struct {
		attachItem
		rank int
	}
	var all []ranked
	add := func(it attachItem, fields ...string) {
		if r := matchRank(q, fields...); r >= 0 {
			all = append(all, ranked{it, r})
		}
	}
	for _, s := range servers {
		if s.State != wire.StateReady {
			continue
		}
		base := attachItem{Server: s.ID, ServerName: s.Name, Complete: s.Capabilities.CanComplete()}
		if kind == attachPrompts {
			for _, p := range s.Prompts {
				it := base
				it.Prompt = &p
				add(it, p.Name, p.Title)
			}
			continue
		}
		for _, r := range s.Resources {
			it := base
			it.Resource = &r
			add(it, r.Name, r.Title, r.URI)
		}
		for _, t := range s.Templates {
			it := base
			it.Template = &t
			add(it, t.Name, t.Title, t.URITemplate)
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].rank < all[j].rank })
	out := make([]attachItem, 0, min(len(all), maxAttachItems))
	for _, r := range all[:min(len(all), maxAttachItems)] {
		out = append(out, r.attachItem)
	}
	return out, len(all)
}

// matchRank is 0 when a field starts with q (lower case), 1 when one holds
// it and -1 when none does.
func matchRank(q string, fields ...string) int {
	rank := -1
	for _, f := range fields {
		f = strings.ToLower(f)
		switch {
		case strings.HasPrefix(f, q):
			return 0
		case strings.Contains(f, q):
			rank = 1
		}
	}
	return rank
}

// attachment is what choosing the item attaches; ok is false when a
// prompt's arguments or a template's variables must be asked first (a
// malformed template's form says it cannot be filled).
func (it attachItem) attachment() (wire.ChatAttachment, bool) {
	switch {
	case it.Prompt != nil && len(it.Prompt.Arguments) == 0:
		return wire.ChatAttachment{Kind: wire.AttachPrompt, Server: it.Server, Name: it.Prompt.Name}, true
	case it.Resource != nil:
		return wire.ChatAttachment{Kind: wire.AttachResource, Server: it.Server, URI: it.Resource.URI}, true
	case it.Template != nil:
		if tpl, err := uritemplate.New(it.Template.URITemplate); err == nil && len(tpl.Varnames()) == 0 {
			if uri, err := tpl.Expand(uritemplate.Values{}); err == nil && uri != "" {
				return wire.ChatAttachment{Kind: wire.AttachResource, Server: it.Server, URI: uri}, true
			}
		}
	}
	return wire.ChatAttachment{}, false
}

func (it attachItem) kind() string {
	switch {
	case it.Prompt != nil:
		return "prompt"
	case it.Resource != nil:
		return "resource"
	}
	return "template"
}

// key names the item among those of every server.
func (it attachItem) key() string { return it.kind() + "\n" + it.Server + "\n" + it.detail() }

func (it attachItem) title() string {
	switch {
	case it.Prompt != nil:
		return titleOr(it.Prompt.Title, it.Prompt.Name)
	case it.Resource != nil:
		return titleOr(it.Resource.Title, it.Resource.Name)
	}
	return titleOr(it.Template.Title, it.Template.Name)
}

// detail is what names the item for its server: a prompt's command, a
// resource's URI or a template's.
func (it attachItem) detail() string {
	switch {
	case it.Prompt != nil:
		return "/" + it.Prompt.Name
	case it.Resource != nil:
		return it.Resource.URI
	}
	return it.Template.URITemplate
}

func (it attachItem) description() string {
	switch {
	case it.Prompt != nil:
		return it.Prompt.Description
	case it.Resource != nil:
		return it.Resource.Description
	}
	return it.Template.Description
}
