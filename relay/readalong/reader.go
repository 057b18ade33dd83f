package readalong

// Reader is what one connection reads along: the schemas' key orders, what
// tasks need, and the count of log and progress messages. The zero value
// is ready; it is safe for concurrent use.
type Reader struct {
	Schemas Schemas
	Tasks   Tasks
	Notices Notices
}

// Scan reads along msg, one message or batch the server sent. It does not
// keep msg.
func (r *Reader) Scan(msg []byte) {
	r.Schemas.scan(msg)
	r.Tasks.scan(msg)
	r.Notices.scan(msg)
}
