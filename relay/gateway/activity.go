package gateway

import (
	"context"
	"time"
)

// recording is the activity record of one operation in progress.
type recording struct {
	r     Recorder // nil: nothing recorded
	c     CallRecord
	asked bool
}

// record starts the record of an operation of grant's agent on server id.
func (v *view) record(grant Grant, id, kind, name string) *recording {
	return &recording{r: v.g.cfg.Recorder, c: CallRecord{
		User: grant.User, Agent: grant.Agent, KeyID: grant.KeyID,
		Server: id, Kind: kind, Name: name, Start: time.Now(),
	}}
}

// done records the operation's end. It uses a context that outlives the
// call's, which may be cancelled.
func (r *recording) done(ctx context.Context, outcome string) {
	if r.r == nil {
		return
	}
	r.c.Duration = time.Since(r.c.Start)
	r.c.Outcome = outcome
	r.c.AskedPerson = r.asked
	r.r.Record(context.WithoutCancel(ctx), r.c)
}
