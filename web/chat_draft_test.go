package web

import (
	"slices"
	"testing"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

var draftModels = []wire.ChatModel{{Name: "first"}, {Name: "second"}, {Name: "third"}, {Name: "fourth"}}

func TestChatDraftDefaultsToTheFirstModel(t *testing.T) {
	args, problem := chatDraft{}.createArgs(draftModels)
	if problem != "" || !slices.Equal(args.Models, []string{"first"}) {
		t.Fatalf("args = %+v, problem %q", args, problem)
	}
	args, _ = chatDraft{Model: "third", Tools: toolChoice{Servers: []string{"s1"}}}.createArgs(draftModels)
	if !slices.Equal(args.Models, []string{"third"}) || !slices.Equal(args.Servers, []string{"s1"}) {
		t.Fatalf("args = %+v", args)
	}
	if args, _ = (chatDraft{Model: "gone"}).createArgs(draftModels); !slices.Equal(args.Models, []string{"first"}) {
		t.Fatalf("a model no longer configured: args = %+v", args)
	}
}

func TestChatDraftComparesTwoOrThreeModels(t *testing.T) {
	d := chatDraft{Compare: true}.withCompared("second", true)
	if _, problem := d.createArgs(draftModels); problem == "" {
		t.Fatal("one model was accepted for a comparison")
	}
	d = d.withCompared("first", true).withCompared("third", true).withCompared("fourth", true)
	args, problem := d.createArgs(draftModels)
	if problem != "" || !slices.Equal(args.Models, []string{"second", "first", "third"}) {
		t.Fatalf("args = %+v, problem %q: a fourth model got in", args, problem)
	}
	d = d.withCompared("first", false)
	if args, _ = d.createArgs(draftModels); !slices.Equal(args.Models, []string{"second", "third"}) {
		t.Fatalf("after taking one out: %v", args.Models)
	}
}
