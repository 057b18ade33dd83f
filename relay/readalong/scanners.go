package readalong

import (
	"bytes"
	"io"
)

// Caps on reading along.
const (
	// MaxScanBytes caps a message (a JSON body, an event's data, a message
	// of a process) read along; a larger one passes unread.
	MaxScanBytes = 1 << 20
	// keepScanBytes is the largest buffer an event stream keeps between
	// events.
	keepScanBytes = 64 << 10
)

// messageScanner finds the messages of a body read in pieces.
type messageScanner interface {
	feed(p []byte) // the next bytes read
	end()          // the body ended (EOF)
}

// scannedBody shows its scanner what is read from it, before the reader
// gets it, and leaves the bytes as they are.
type scannedBody struct {
	io.ReadCloser
	scanner messageScanner
	done    bool // the body failed or ended: nothing more to scan
}

func (b *scannedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if b.done {
		return n, err
	}
	b.scanner.feed(p[:n])
	if err != nil {
		b.done = true
		if err == io.EOF {
			b.scanner.end()
		}
	}
	return n, err
}

// jsonScanner reads along a JSON body: one message or batch.
type jsonScanner struct {
	scan func(msg []byte)
	buf  []byte
	over bool // the body is over MaxScanBytes
}

func (s *jsonScanner) feed(p []byte) {
	if s.over {
		return
	}
	if len(s.buf)+len(p) > MaxScanBytes {
		s.over, s.buf = true, nil
		return
	}
	s.buf = append(s.buf, p...)
}

func (s *jsonScanner) end() {
	if !s.over {
		s.scan(s.buf)
	}
	s.buf = nil
}

// eventScanner reads along an event stream, splitting it as the go-sdk
// does: lines end at '\n' and lose trailing '\r's, a blank line ends an
// event, data fields are trimmed and joined with '\n', and the stream's end
// ends its last event.
type eventScanner struct {
	scan   func(msg []byte)
	line   []byte // the current line so far, unless skipping
	blank  bool   // the current line so far is only '\r's
	data   []byte // the current event's data
	inData bool   // the current event has a data field
	skip   bool   // the current event is over MaxScanBytes: unread to its end
}

func newEventScanner(scan func(msg []byte)) *eventScanner {
	return &eventScanner{scan: scan, blank: true}
}

func (s *eventScanner) feed(p []byte) {
	for {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			s.add(p)
			return
		}
		s.add(p[:i])
		s.endLine()
		p = p[i+1:]
	}
}

func (s *eventScanner) end() {
	if !s.blank {
		s.endLine()
	}
	s.endEvent()
}

// add appends part of a line.
func (s *eventScanner) add(part []byte) {
	if s.blank && len(bytes.TrimLeft(part, "\r")) > 0 {
		s.blank = false
	}
	if s.skip {
		return
	}
	if len(s.data)+len(s.line)+len(part) > MaxScanBytes {
		s.skip = true
		s.line, s.data = nil, nil
		return
	}
	s.line = append(s.line, part...)
}

// endLine handles the line read: a field, or the end of the event.
func (s *eventScanner) endLine() {
	blank, line := s.blank, bytes.TrimRight(s.line, "\r")
	s.blank = true
	if blank {
		s.line = s.line[:0]
		s.endEvent()
		return
	}
	if name, value, ok := bytes.Cut(line, []byte{':'}); ok && !s.skip && string(name) == "data" {
		if s.inData {
			s.data = append(s.data, '\n')
		}
		s.data = append(s.data, bytes.TrimSpace(value)...)
		s.inData = true
	}
	s.line = s.line[:0]
}

// endEvent scans the event read, unless it was skipped, and starts the next.
func (s *eventScanner) endEvent() {
	if !s.skip && s.inData {
		s.scan(s.data)
	}
	s.data, s.inData, s.skip = s.data[:0], false, false
	if cap(s.data) > keepScanBytes {
		s.data = nil
	}
	if cap(s.line) > keepScanBytes {
		s.line = nil
	}
}
