package llm

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// Limits of a streamed answer.
const (
	// MaxEventBytes caps one server-sent event (its lines together).
	MaxEventBytes = 1 << 20
	// MaxResponseBytes caps a whole streamed answer.
	MaxResponseBytes = 8 << 20
	// MaxToolCalls caps the tool calls of one answer.
	MaxToolCalls = 128
	// MaxArgumentBytes caps the JSON arguments of one tool call.
	MaxArgumentBytes = 1 << 20
)

// errBrokeOff is a stream that ended before its end marker.
var errBrokeOff = errors.New("the model's answer broke off before its end")

// sseEvent is one server-sent event: its data lines joined. Both
// providers name an event's type in its data too, so its name is not kept.
type sseEvent struct {
	data []byte
}

// sseReader reads server-sent events from a body, within the limits.
type sseReader struct {
	lines *bufio.Scanner
}

func newSSEReader(body io.Reader) *sseReader {
	sc := bufio.NewScanner(&cappedReader{r: body, left: MaxResponseBytes})
	sc.Buffer(make([]byte, 0, 64<<10), MaxEventBytes)
	return &sseReader{lines: sc}
}

// next returns the next event with data. At the body's end it returns
// errBrokeOff: each provider's stream says it is complete before that.
func (r *sseReader) next() (sseEvent, error) {
	var ev sseEvent
	size := 0
	for r.lines.Scan() {
		line := r.lines.Bytes()
		size += len(line) + 1
		if size > MaxEventBytes {
			return sseEvent{}, fmt.Errorf("an event of the model's answer is over %d bytes", MaxEventBytes)
		}
		if len(line) == 0 {
			if ev.data != nil {
				return ev, nil
			}
			ev, size = sseEvent{}, 0
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		if string(field) != "data" {
			continue // event names, ids, retry hints and comments
		}
		if ev.data != nil {
			ev.data = append(ev.data, '\n')
		}
		ev.data = append(ev.data, bytes.TrimPrefix(value, []byte(" "))...)
	}
	switch err := r.lines.Err(); {
	case errors.Is(err, bufio.ErrTooLong):
		return sseEvent{}, fmt.Errorf("a line of the model's answer is over %d bytes", MaxEventBytes)
	case err != nil:
		return sseEvent{}, err
	}
	return sseEvent{}, errBrokeOff
}

// errTooLarge is a body over MaxResponseBytes.
var errTooLarge = fmt.Errorf("the model's answer is over %d bytes", MaxResponseBytes)

// cappedReader reads at most left bytes, then fails with errTooLarge.
type cappedReader struct {
	r    io.Reader
	left int
}

func (c *cappedReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, errTooLarge
	}
	if len(p) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= n
	return n, err
}
