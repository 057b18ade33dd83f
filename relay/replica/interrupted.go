package replica

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
)

// Interrupted is what an agent's request is answered when the replica
// that ran it stopped before it ended.
const Interrupted = "the relay restarted this connection before the call ended: call again"

// interruptedCode is the JSON-RPC error code of Interrupted (an internal
// error: the call may or may not have run).
const interruptedCode = -32603

// requestIDs returns the ids of the JSON-RPC requests in body (one message
// or a batch); none for notifications, responses or anything else.
func requestIDs(body []byte) []json.RawMessage {
	var one struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(body, &one) == nil {
		if one.Method != "" && len(one.ID) > 0 && !bytes.Equal(one.ID, []byte("null")) {
			return []json.RawMessage{one.ID}
		}
		return nil
	}
	var batch []json.RawMessage
	if json.Unmarshal(body, &batch) != nil {
		return nil
	}
	var ids []json.RawMessage
	for _, m := range batch {
		ids = append(ids, requestIDs(m)...)
	}
	return ids
}

// interruptedError is the JSON-RPC error answering request id with
// Interrupted.
func interruptedError(id json.RawMessage) []byte {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id,
		"error": map[string]any{"code": interruptedCode, "message": Interrupted}})
	return b
}

// writeInterrupted answers the requests ids, whose replica died before it
// answered, with Interrupted errors (a batch gets a batch).
func writeInterrupted(w http.ResponseWriter, ids []json.RawMessage) {
	w.Header().Set("Content-Type", "application/json")
	if len(ids) == 1 {
		w.Write(interruptedError(ids[0]))
		return
	}
	msgs := make([]json.RawMessage, len(ids))
	for i, id := range ids {
		msgs[i] = interruptedError(id)
	}
	b, _ := json.Marshal(msgs)
	w.Write(b)
}

// endInterrupted makes an event stream that breaks off (its replica died
// mid-call) end with an Interrupted error for each request still owed an
// answer, so that the agent's call fails saying why rather than hanging
// up. Other answers pass unchanged.
func endInterrupted(resp *http.Response, ids []json.RawMessage) {
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mt != "text/event-stream" || len(ids) == 0 {
		return
	}
	resp.Body = &interruptible{body: resp.Body, ids: ids}
}

// interruptible is an event stream that, when it breaks off, ends with the
// errors of the requests it has not answered.
type interruptible struct {
	body io.ReadCloser
	ids  []json.RawMessage
	tail *bytes.Reader // the errors, once the stream broke off
}

func (s *interruptible) Read(p []byte) (int, error) {
	if s.tail != nil {
		return s.tail.Read(p)
	}
	n, err := s.body.Read(p)
	if err == nil || errors.Is(err, io.EOF) {
		return n, err
	}
	var b bytes.Buffer
	for _, id := range s.ids {
		b.WriteString("event: message\ndata: ")
		b.Write(interruptedError(id))
		b.WriteString("\n\n")
	}
	s.tail = bytes.NewReader(b.Bytes())
	return n, nil
}

func (s *interruptible) Close() error { return s.body.Close() }
