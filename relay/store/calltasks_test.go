package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/relay/store"
)

func TestCallTasksGoWithTheirServer(t *testing.T) {
	ctx := context.Background()
	st, _ := openTemp(t)
	if err := st.PutServer(ctx, store.Server{User: "u", ID: "s1", Name: "one", URL: "http://127.0.0.1:1/mcp"}); err != nil {
		t.Fatal(err)
	}
	task := store.CallTask{User: "u", Server: "s1", Call: "c1", Task: "t1", Tool: "research", Started: time.UnixMilli(1000)}
	if err := st.PutCallTask(ctx, task); err != nil {
		t.Fatal(err)
	}
	got, err := st.CallTasks(ctx, "u", "s1")
	if err != nil || len(got) != 1 || got[0] != task {
		t.Fatalf("CallTasks = %+v, %v; want %+v", got, err, task)
	}
	if err := st.PutCallTask(ctx, store.CallTask{User: "u", Server: "nope", Call: "c2", Task: "t2", Tool: "x"}); err == nil {
		t.Errorf("a task of an unknown server was stored")
	}
	if err := st.DeleteServer(ctx, "u", "s1"); err != nil {
		t.Fatal(err)
	}
	if got, err := st.CallTasks(ctx, "u", "s1"); err != nil || len(got) != 0 {
		t.Errorf("after removing the server: CallTasks = %+v, %v; want none", got, err)
	}
}
