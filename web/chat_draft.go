package web

import (
	"slices"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// chatDraft is what the next conversation will be, as chosen before its
// first message: its model, or the models to compare, and its tools.
type chatDraft struct {
	Model    string // "" is the first model
	Compare  bool
	Models   []string // the models to compare
	Tools    toolChoice
	CodeMode bool
}

// model is the model chosen, of models.
func (d chatDraft) model(models []wire.ChatModel) string {
	for _, m := range models {
		if m.Name == d.Model {
			return m.Name
		}
	}
	if len(models) == 0 {
		return ""
	}
	return models[0].Name
}

// withCompared returns the draft with model name compared (on) or not, at
// most wire.MaxCompare of them.
func (d chatDraft) withCompared(name string, on bool) chatDraft {
	d.Models = slices.DeleteFunc(slices.Clone(d.Models), func(m string) bool { return m == name })
	if on && len(d.Models) < wire.MaxCompare {
		d.Models = append(d.Models, name)
	}
	return d
}

// createArgs are the arguments that create the draft's conversations, or
// what is missing.
func (d chatDraft) createArgs(models []wire.ChatModel) (wire.CreateChatArgs, string) {
	args := wire.CreateChatArgs{Servers: d.Tools.Servers, Tools: d.Tools.Tools, CodeMode: d.CodeMode}
	if !d.Compare {
		args.Models = []string{d.model(models)}
		return args, ""
	}
	for _, name := range d.Models {
		if slices.ContainsFunc(models, func(m wire.ChatModel) bool { return m.Name == name }) {
			args.Models = append(args.Models, name)
		}
	}
	if len(args.Models) < 2 {
		return args, "Choose two or three models to compare."
	}
	return args, ""
}
