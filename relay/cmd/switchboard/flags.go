package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// flagSet is a flag.FlagSet whose defaults come from SWITCHBOARD_* variables.
type flagSet struct {
	*flag.FlagSet
	errs []error
}

func newFlagSet(name string) *flagSet {
	return &flagSet{FlagSet: flag.NewFlagSet(name, flag.ContinueOnError)}
}

// envName is the environment variable of a flag: SWITCHBOARD_ + NAME.
func envName(flag string) string {
	return "SWITCHBOARD_" + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}

func (fs *flagSet) env(name string) (string, bool) {
	return os.LookupEnv(envName(name))
}

func (fs *flagSet) String(name, def, help string) *string {
	if v, ok := fs.env(name); ok {
		def = v
	}
	return fs.FlagSet.String(name, def, help+" ($"+envName(name)+")")
}

func (fs *flagSet) Bool(name string, def bool, help string) *bool {
	if v, ok := fs.env(name); ok {
		switch strings.ToLower(v) {
		case "1", "true", "yes", "on":
			def = true
		case "0", "false", "no", "off", "":
			def = false
		default:
			fs.errs = append(fs.errs, fmt.Errorf("$%s: %q is not a boolean", envName(name), v))
		}
	}
	return fs.FlagSet.Bool(name, def, help+" ($"+envName(name)+")")
}

func (fs *flagSet) Duration(name string, def time.Duration, help string) *time.Duration {
	if v, ok := fs.env(name); ok {
		d, err := time.ParseDuration(v)
		if err != nil {
			fs.errs = append(fs.errs, fmt.Errorf("$%s: %w", envName(name), err))
		}
		def = d
	}
	return fs.FlagSet.Duration(name, def, help+" ($"+envName(name)+")")
}

func (fs *flagSet) Int(name string, def int, help string) *int {
	if v, ok := fs.env(name); ok {
		n, err := strconv.Atoi(v)
		if err != nil {
			fs.errs = append(fs.errs, fmt.Errorf("$%s: %q is not an integer", envName(name), v))
		}
		def = n
	}
	return fs.FlagSet.Int(name, def, help+" ($"+envName(name)+")")
}

// parse parses args and reports the first bad environment value.
func (fs *flagSet) parse(args []string) error {
	if len(fs.errs) > 0 {
		return fs.errs[0]
	}
	if err := fs.FlagSet.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	return nil
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// Strings declares a repeatable flag. Its variable holds values separated
// by ";", which the flag replaces when given on the command line.
func (fs *flagSet) Strings(name, help string) *[]string {
	l := &listValue{}
	if v, ok := fs.env(name); ok {
		for item := range strings.SplitSeq(v, ";") {
			if item = strings.TrimSpace(item); item != "" {
				l.items = append(l.items, item)
			}
		}
		l.fromEnv = len(l.items) > 0
	}
	fs.FlagSet.Var(l, name, help+" ($"+envName(name)+", separated by ';')")
	return &l.items
}

// listValue is the value of a repeatable flag.
type listValue struct {
	items   []string
	fromEnv bool // items came from the environment: the first flag replaces them
}

func (l *listValue) String() string {
	if l == nil {
		return ""
	}
	return strings.Join(l.items, ";")
}

func (l *listValue) Set(v string) error {
	if l.fromEnv {
		l.items, l.fromEnv = nil, false
	}
	l.items = append(l.items, v)
	return nil
}
