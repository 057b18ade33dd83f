package codemode

import (
	"encoding/json"
	"testing"
)

// FuzzArguments reads any arguments of search and execute: a clear error,
// or the query and the program the arguments hold, the program not empty
// and within MaxProgramBytes.
func FuzzArguments(f *testing.F) {
	for _, s := range []string{
		`{"query":"files list"}`, `{"code":"return 1"}`, `{}`, ``, `null`, `[]`, `{"query":1}`, `{"code":""}`,
		`{"code":"a","code":"b"}`, `{"Code":"x"}`, `{"code":"\ud800"}`, `{"query":"q","extra":{"deep":[1,2]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, args []byte) {
		var a struct {
			Query *string `json:"query"`
			Code  *string `json:"code"`
		}
		valid := json.Unmarshal(args, &a) == nil
		q, err := QueryOf(args)
		switch {
		case err != nil && err.Error() == "":
			t.Fatalf("QueryOf(%q) fails without saying why", args)
		case err == nil && valid && a.Query != nil && q != *a.Query:
			t.Fatalf("QueryOf(%q) = %q", args, q)
		case err == nil && len(args) > 0 && !valid:
			t.Fatalf("QueryOf(%q) read arguments that are not an object", args)
		}
		code, err := ProgramOf(args)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("ProgramOf(%q) fails without saying why", args)
			}
			return
		}
		if !valid || a.Code == nil || code != *a.Code || code == "" || len(code) > MaxProgramBytes {
			t.Fatalf("ProgramOf(%q) = %q", args, code)
		}
	})
}
