package service

import (
	"context"
	"encoding/json"
	"net/http"
	"time"
)

// readyTimeout bounds the readiness probe of the store: a store another
// process holds locked, or a database that does not answer, is "not
// ready" rather than hanging the check.
const readyTimeout = 3 * time.Second

// readiness is the body of /readyz.
type readiness struct {
	Status string `json:"status"`          // "ready" or "not ready"
	Error  string `json:"error,omitempty"` // why not ready
	// OwedRecords counts records the relay keeps in memory until the store
	// takes them (agent calls, keys' last uses); LostRecords those it could
	// not keep because too many waited.
	OwedRecords int   `json:"owedRecords"`
	LostRecords int64 `json:"lostRecords"`
}

// readyz answers whether the relay can do its work: 200 when its store
// takes a write, 503 naming the cause (a full disk, an unreachable or
// locked store) when not. /healthz only says that the process answers.
func (s *Service) readyz(w http.ResponseWriter, r *http.Request) {
	body := readiness{Status: "ready"}
	body.OwedRecords, body.LostRecords = s.owedRecords()
	s.readyMu.Lock()
	ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
	err := s.store.Ready(ctx)
	timedOut := ctx.Err() == context.DeadlineExceeded
	cancel()
	s.readyMu.Unlock()
	status := http.StatusOK
	if err != nil {
		status = http.StatusServiceUnavailable
		body.Status, body.Error = "not ready", err.Error()
		if timedOut {
			body.Error = "the store did not take a write within " + readyTimeout.String() + ": another process may hold its lock"
			if s.cfg.Store != "" {
				body.Error += ", or the database does not answer"
			}
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(body)
}

// owedRecords sums what the agents' log and keys owe the store and lost.
func (s *Service) owedRecords() (owed int, lost int64) {
	if s.agents.log != nil {
		o, l := s.agents.log.Owed()
		owed, lost = owed+o, lost+l
	}
	if s.agents.keys != nil {
		o, l := s.agents.keys.Owed()
		owed, lost = owed+o, lost+l
	}
	return owed, lost
}
