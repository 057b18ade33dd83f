package web

import (
	"reflect"
	"strings"
	"testing"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

func TestParseTriggerFindsSlashAtStartAndAtInLastWord(t *testing.T) {
	cases := []struct {
		input string
		want  trigger
	}{
		{"/wel", trigger{attachPrompts, "wel", "/wel"}},
		{"/", trigger{attachPrompts, "", "/"}},
		{"/code review", trigger{attachPrompts, "code review", "/code review"}},
		{"/wel\nmore", trigger{}},
		{"see /wel", trigger{}},
		{"see @read", trigger{attachResource, "read", "@read"}},
		{"@", trigger{attachResource, "", "@"}},
		{"line one\n@notes", trigger{attachResource, "notes", "@notes"}},
		{"see\u00a0@nbsp", trigger{attachResource, "nbsp", "@nbsp"}},
		{"see @read ", trigger{}},
		{"mail me@example.com", trigger{}},
		{"plain text", trigger{}},
		{"", trigger{}},
	}
	for _, c := range cases {
		if got := parseTrigger(c.input); got != c.want {
			t.Errorf("parseTrigger(%q) = %+v, want %+v", c.input, got, c.want)
		}
	}
}

func TestClosedListStaysClosedOnlyForTheSameTrigger(t *testing.T) {
	cases := []struct {
		closed, input string
		want          bool
	}{
		{"/wel", "/wel", true},
		{"/wel", "/welcome", true},
		{"/wel", "/we", false},      // went back: the list comes again
		{"/wel", "/wel\nhi", false}, // no trigger any more
		{"see @re", "see @read", true},
		{"see @re", "see @re and @fi", false}, // another @ word
		{"see @re", "see @re ", false},
		{"", "/wel", false},
		{"plain", "plain /x", false},
	}
	for _, c := range cases {
		if got := stillClosed(c.closed, c.input); got != c.want {
			t.Errorf("stillClosed(%q, %q) = %v, want %v", c.closed, c.input, got, c.want)
		}
	}
}

func attachServers() []wire.Server {
	return []wire.Server{
		{ID: "s1", Name: "demo", State: wire.StateReady, Capabilities: &wire.ServerCapabilities{Completions: true},
			Prompts: []wire.Prompt{
				{Name: "say-welcome", Title: "Say welcome"},
				{Name: "welcome", Arguments: []wire.PromptArgument{{Name: "name", Required: true}}},
				{Name: "summary"},
			},
			Resources: []wire.Resource{
				{URI: "file:///notes/readme.md", Name: "readme"},
				{URI: "file:///notes/todo.md", Name: "todo", Title: "Things to read later"},
			},
			Templates: []wire.ResourceTemplate{{URITemplate: "file:///notes/{name}", Name: "note"}},
		},
		{ID: "s2", Name: "docs", State: wire.StateReady,
			Prompts:   []wire.Prompt{{Name: "Welcome-docs"}},
			Resources: []wire.Resource{{URI: "docs://read", Name: "index"}},
		},
		{ID: "s3", Name: "down", State: wire.StateFailed,
			Prompts:   []wire.Prompt{{Name: "welcome-down"}},
			Resources: []wire.Resource{{URI: "file:///readme", Name: "readme"}},
		},
	}
}

// itemNames lists items as server/detail.
func itemNames(items []attachItem) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.Server+" "+it.detail())
	}
	return out
}

func TestPromptsMatchNameOrTitleOfReadyServersPrefixFirst(t *testing.T) {
	items, total := attachItems(attachServers(), attachPrompts, "wel")
	want := []string{"s1 /welcome", "s2 /Welcome-docs", "s1 /say-welcome"}
	if got := itemNames(items); !reflect.DeepEqual(got, want) || total != 3 {
		t.Errorf("prompts for wel: %v (%d), want %v", got, total, want)
	}
	if items[0].ServerName != "demo" || !items[0].Complete || items[1].Complete {
		t.Errorf("items do not carry their server: %+v", items[:2])
	}
	if all, _ := attachItems(attachServers(), attachPrompts, ""); len(all) != 4 {
		t.Errorf("an empty query lists %d prompts, want the 4 of ready servers", len(all))
	}
	if none, total := attachItems(attachServers(), attachPrompts, "nothing"); len(none) != 0 || total != 0 {
		t.Errorf("nothing matches, yet %v", itemNames(none))
	}
}

func TestResourcesMatchNameTitleOrURIAndTemplates(t *testing.T) {
	items, _ := attachItems(attachServers(), attachResource, "READ")
	want := []string{"s1 file:///notes/readme.md", "s1 file:///notes/todo.md", "s2 docs://read"}
	if got := itemNames(items); !reflect.DeepEqual(got, want) {
		t.Errorf("resources for READ: %v, want %v", got, want)
	}
	items, _ = attachItems(attachServers(), attachResource, "note")
	if got := itemNames(items); !reflect.DeepEqual(got, []string{"s1 file:///notes/{name}", "s1 file:///notes/readme.md", "s1 file:///notes/todo.md"}) {
		t.Errorf("resources for note: %v, the template named note first", got)
	}
	if items[0].kind() != "template" || items[1].kind() != "resource" {
		t.Errorf("kinds: %s, %s", items[0].kind(), items[1].kind())
	}
}

func TestListsAreCappedWithTheCountOfAllMatches(t *testing.T) {
	s := wire.Server{ID: "big", State: wire.StateReady}
	for i := range maxAttachItems + 7 {
		s.Resources = append(s.Resources, wire.Resource{URI: "file:///r" + itoa(i), Name: "r" + itoa(i)})
	}
	items, total := attachItems([]wire.Server{s}, attachResource, "r")
	if len(items) != maxAttachItems || total != maxAttachItems+7 {
		t.Errorf("%d items of %d, want %d of %d", len(items), total, maxAttachItems, maxAttachItems+7)
	}
}

func TestChoosingAttachesAtOnceOrAsksFirst(t *testing.T) {
	prompt := func(args ...wire.PromptArgument) attachItem {
		return attachItem{Server: "s1", Prompt: &wire.Prompt{Name: "p", Arguments: args}}
	}
	tpl := func(uri string) attachItem {
		return attachItem{Server: "s1", Template: &wire.ResourceTemplate{URITemplate: uri}}
	}
	cases := []struct {
		it   attachItem
		want wire.ChatAttachment
		ok   bool
	}{
		{prompt(), wire.ChatAttachment{Kind: wire.AttachPrompt, Server: "s1", Name: "p"}, true},
		{prompt(wire.PromptArgument{Name: "x"}), wire.ChatAttachment{}, false},
		{attachItem{Server: "s1", Resource: &wire.Resource{URI: "file:///a"}}, wire.ChatAttachment{Kind: wire.AttachResource, Server: "s1", URI: "file:///a"}, true},
		{tpl("file:///{path}"), wire.ChatAttachment{}, false},
		{tpl("file:///fixed"), wire.ChatAttachment{Kind: wire.AttachResource, Server: "s1", URI: "file:///fixed"}, true},
		{tpl("file:///{bad"), wire.ChatAttachment{}, false},
	}
	for i, c := range cases {
		got, ok := c.it.attachment()
		if ok != c.ok || !reflect.DeepEqual(got, c.want) {
			t.Errorf("case %d: %+v %v, want %+v %v", i, got, ok, c.want, c.ok)
		}
	}
}

func TestPickerShowsTheMenuOfTheTypedTrigger(t *testing.T) {
	html := rendered(t, &ChatAttachPicker{Input: "/wel", Servers: attachServers()})
	if n := len(elements(html, `class="chat-slash-item`)); n != 3 {
		t.Errorf("%d prompt items for /wel, want 3:\n%s", n, html)
	}
	if element(html, `class="chat-slash"`, `role="listbox"`) == "" || element(html, `class="chat-at"`) != "" {
		t.Errorf("no prompt listbox, or a resource one:\n%s", html)
	}
	first := element(html, `id="chat-attach-option-0"`)
	if !strings.Contains(first, "is-active") || !strings.Contains(first, `role="option"`) || !strings.Contains(first, `data-server="s1"`) {
		t.Errorf("first item not highlighted as an option: %s", first)
	}
	if !strings.Contains(html, `<span class="chat-attach-server">docs</span>`) {
		t.Error("items do not name their server")
	}
	if strings.Contains(html, "welcome-down") {
		t.Error("a server that is not ready offers its prompts")
	}

	html = rendered(t, &ChatAttachPicker{Input: "see @read", Servers: attachServers()})
	if n := len(elements(html, `class="chat-at-item`)); n != 3 || element(html, `class="chat-slash"`) != "" {
		t.Errorf("%d resource items for @read, want 3:\n%s", n, html)
	}
	html = rendered(t, &ChatAttachPicker{Input: "/wel", Servers: attachServers(), closed: "/we"})
	if element(html, `class="chat-slash"`) != "" {
		t.Error("a list closed with Escape came back while its trigger was typed on")
	}
	html = rendered(t, &ChatAttachPicker{Input: "hello", Servers: attachServers()})
	if element(html, `role="listbox"`) != "" || element(html, `class="chat-attach-button`) == "" {
		t.Errorf("plain text opens a list, or the button is missing:\n%s", html)
	}
}

func TestPickerAsksArgumentsWithRequiredMarked(t *testing.T) {
	s := attachServers()
	it := attachItem{Server: "s1", ServerName: "demo", Complete: true, Prompt: &s[0].Prompts[1]}
	html := rendered(t, &ChatAttachPicker{Input: "/wel", Servers: s, chosen: &it})
	if element(html, `class="chat-slash"`) != "" {
		t.Error("the list stays under the arguments' form")
	}
	for _, want := range []string{`id="chat-attach-arg-0"`, "name (required)", `class="chat-attach-confirm`, `role="combobox"`} {
		if !strings.Contains(html, want) {
			t.Errorf("arguments' form lacks %s:\n%s", want, html)
		}
	}
}

func TestListStatusSaysWhatTheListShows(t *testing.T) {
	cases := []struct {
		kind     attachKind
		n        int
		query    string
		browsing bool
		want     string
	}{
		{attachPrompts, 2, "", false, "2 prompts: up and down arrows to choose, Enter to attach, Escape to close."},
		{attachResource, 1, "x", true, "1 resource: up and down arrows to choose, Enter to attach, Escape to close."},
		{attachPrompts, 0, "x", false, ""},
		{attachPrompts, 0, " ", true, "No ready server offers a prompt."},
		{attachResource, 0, "zz", true, "No resource matches “zz”."},
		{attachNone, 0, "", false, ""},
	}
	for _, c := range cases {
		if got := listStatus(c.kind, c.n, c.query, c.browsing); got != c.want {
			t.Errorf("listStatus(%c, %d, %q, %v) = %q, want %q", c.kind, c.n, c.query, c.browsing, got, c.want)
		}
	}
}

// go-app runs OnMount through a dispatch after the first render, so a
// parent's update in between reaches OnUpdate first: the picker must not
// reach for a context it does not have yet.
func TestPickerUpdatedBeforeItsMountWaitsForIt(t *testing.T) {
	var c ChatAttachPicker
	c.OnUpdate(app.Context{})
	if len(c.waiting) != 1 {
		t.Fatalf("%d functions wait for the mount, want the update's one", len(c.waiting))
	}
}
