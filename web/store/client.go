package store

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/switchboard-mcp/switchboard/shared/wire"
)

// Config configures a [Client].
type Config struct {
	// URL is the relay's WebSocket address (ws:// or wss://).
	URL string
	// Dial opens sockets.
	Dial Dialer
	// AfterFunc schedules f after d; it defaults to time.AfterFunc. Tests
	// replace it to run reconnections without waiting.
	AfterFunc func(d time.Duration, f func())
	// OnChange is called, outside any lock, after the state a [View] shows changed.
	OnChange func()
	// Now tells the time; it defaults to time.Now.
	Now func() time.Time
	// Token, when set, returns the token a socket sends in an auth frame
	// before its hello (an embedded dashboard has no session cookie); ""
	// means there is none yet, and the client dials once [Client.Reauth]
	// says one came.
	Token func() string
}

// Client holds the dashboard's connection to the relay and its mirror of the
// relay's state. Its methods are safe for concurrent use.
type Client struct {
	cfg Config

	mu      sync.Mutex
	started bool
	status  Status
	gen     int    // generation of the current socket; events of older ones are ignored
	sock    Socket // nil while no socket is open
	backoff time.Duration
	noToken bool // a dial found no token (Config.Token); Reauth dials

	loaded bool          // a snapshot was applied
	resync bool          // the next hello asks for a fresh snapshot
	snap   wire.Snapshot // copy on write: a View may hold the old one
	seq    uint64

	nextID    uint64
	pending   map[string]*pendingOp
	calls     []Call          // newest first; copy on write
	tab       string          // this client's name for its calls in the state
	stateDone map[string]Call // finished calls of the state, converted, by id

	asks     map[string]*askTrack // this dashboard's ops on asks, by ask id
	departed []Departed           // asks that left while shown, oldest first; copy on write
	auth     map[string]AuthFlow  // authorizations started here, by server id; copy on write
}

// View is what the views show: an immutable copy of the client's state.
// Its slices must not be modified.
type View struct {
	Status   Status
	Socket   int  // the current socket's number: it changes each time one is lost
	Loaded   bool // the first snapshot arrived
	Snapshot wire.Snapshot
	Calls    []Call // newest first

	AskStatus map[string]AskStatus // this dashboard's ops on pending asks, by ask id
	Departed  []Departed           // asks that left while shown, oldest first; see [DepartedFor]
	Auth      map[string]AuthFlow  // authorizations started here, by server id
}

// New returns a client; Start connects it.
func New(cfg Config) *Client {
	if cfg.AfterFunc == nil {
		cfg.AfterFunc = func(d time.Duration, f func()) { time.AfterFunc(d, f) }
	}
	if cfg.OnChange == nil {
		cfg.OnChange = func() {}
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Client{
		cfg:     cfg,
		status:  StatusConnecting,
		backoff: initialBackoff,
		pending: map[string]*pendingOp{},
		asks:    map[string]*askTrack{},
		tab:     newTabID(),
	}
}

// Start opens the first socket. Later calls do nothing.
func (c *Client) Start() {
	c.mu.Lock()
	if c.started {
		c.mu.Unlock()
		return
	}
	c.started = true
	gen := c.gen
	c.mu.Unlock()
	c.dial(gen)
}

// View returns the current state.
func (c *Client) View() View {
	c.mu.Lock()
	defer c.mu.Unlock()
	return View{
		Status: c.status, Socket: c.gen, Loaded: c.loaded, Snapshot: c.snap, Calls: c.viewCallsLocked(),
		AskStatus: c.askStatusLocked(), Departed: c.departed, Auth: c.auth,
	}
}

// dial opens the socket of generation gen, unless a newer one replaced it.
func (c *Client) dial(gen int) {
	c.mu.Lock()
	if gen != c.gen || c.status == StatusSignedOut || c.awaitingTokenLocked() {
		c.noToken = c.noToken || (gen == c.gen && c.awaitingTokenLocked())
		c.mu.Unlock()
		return
	}
	c.mu.Unlock()
	sock, err := c.cfg.Dial(c.cfg.URL, Handlers{
		Open:    func() { c.opened(gen) },
		Message: func(text string) { c.received(gen, text) },
		Closed:  func(code int) { c.closed(gen, code) },
	})
	if err != nil {
		c.closed(gen, CloseAbnormal)
		return
	}
	c.mu.Lock()
	if gen == c.gen && c.sock == nil {
		c.sock = sock
	}
	c.mu.Unlock()
}

// opened sends the hello naming the last state applied. The status turns
// live only when the relay says the mirror is in sync.
func (c *Client) opened(gen int) {
	c.mu.Lock()
	if gen != c.gen {
		c.mu.Unlock()
		return
	}
	var hello wire.Hello
	if c.loaded && !c.resync {
		hello = wire.Hello{Epoch: c.snap.Epoch, Seq: c.seq}
	}
	sock := c.sock
	c.mu.Unlock()
	c.sendToken(sock)
	if f, err := wire.NewFrame(wire.TypeHello, hello); err == nil && sock != nil {
		if b, err := wire.Encode(f); err == nil {
			_ = sock.Send(string(b)) // a failed send ends in Closed
		}
	}
	c.cfg.OnChange()
}

// closed handles the end of a socket: fail its ops and decide what next.
func (c *Client) closed(gen int, code int) {
	c.mu.Lock()
	if gen != c.gen {
		c.mu.Unlock()
		return
	}
	lost := msgConnectionLost
	if wire.CloseCode(code) == wire.CloseShuttingDown {
		lost = msgRelayRestarted
	}
	failed := c.dropLocked(lost)
	delay := c.backoff
	switch wire.CloseCode(code) {
	case wire.CloseUnauthorized:
		c.status = StatusSignedOut
		c.forgetLocked()
	case wire.CloseTooSlow, wire.CloseProtocolError:
		c.resync = true
	}
	if c.status != StatusSignedOut {
		c.backoff = nextBackoff(c.backoff)
		if c.status == StatusLive {
			c.status = StatusReconnecting
		}
	}
	next := c.gen
	signedOut := c.status == StatusSignedOut
	c.mu.Unlock()

	failed.run()
	c.cfg.OnChange()
	if !signedOut {
		c.cfg.AfterFunc(delay, func() { c.dial(next) })
	}
}

// forgetLocked drops the mirror and all that was done on it: a signed-out
// page shows nothing of the user's (servers, asks, calls, authorizations).
func (c *Client) forgetLocked() {
	c.snap, c.seq, c.loaded, c.resync = wire.Snapshot{}, 0, false, false
	c.calls, c.departed, c.auth = nil, nil, nil
	c.asks = map[string]*askTrack{}
}

// restartLocked gives up on the current socket, whose stream can no longer
// be trusted, and returns how to dial a new one that asks for a fresh snapshot.
func (c *Client) restartLocked() (failed replies, redial func()) {
	c.resync = true
	old := c.sock
	failed = c.dropLocked(msgConnectionLost)
	c.status = StatusReconnecting
	delay, next := c.backoff, c.gen
	c.backoff = nextBackoff(c.backoff)
	return failed, func() {
		if old != nil {
			old.Close(CloseNormal, "resync")
		}
		c.cfg.AfterFunc(delay, func() { c.dial(next) })
	}
}

// dropLocked forgets the socket, starts a new generation and fails the ops
// waiting on the old one, saying lost.
func (c *Client) dropLocked(lost string) replies {
	c.sock = nil
	c.gen++
	return c.failPendingLocked(&wire.Error{Code: CodeConnectionLost, Message: lost})
}

// received handles one frame from the relay.
func (c *Client) received(gen int, text string) {
	f, err := wire.Decode([]byte(text))
	if err != nil {
		return // nothing to answer: the relay never sends such frames
	}
	c.mu.Lock()
	if gen != c.gen {
		c.mu.Unlock()
		return
	}
	var (
		done   replies
		redial func()
	)
	switch f.Type {
	case wire.TypeSnapshot:
		if c.applySnapshotLocked(f) != nil {
			done, redial = c.restartLocked()
		}
	case wire.TypeDelta:
		before := c.snap
		if c.applyDeltaLocked(f) != nil {
			done, redial = c.restartLocked()
		} else {
			done = c.rereadLocked(before)
		}
	case wire.TypeSynced:
		if c.loaded && f.Seq == c.seq {
			c.status = StatusLive
		} else {
			done, redial = c.restartLocked()
		}
	case wire.TypeResult, wire.TypeError, wire.TypeProgress:
		done = c.answerLocked(f)
	}
	c.mu.Unlock()

	done.run()
	c.cfg.OnChange()
	if redial != nil {
		redial()
	}
}

// applySnapshotLocked replaces the mirror with the frame's snapshot.
func (c *Client) applySnapshotLocked(f wire.Frame) error {
	var s wire.Snapshot
	if err := json.Unmarshal(f.Data, &s); err != nil {
		return err
	}
	why := ""
	if c.loaded && s.Epoch != c.snap.Epoch {
		why = MsgRestarted // the relay's session started again
	}
	c.noteDeparturesLocked(c.snap.Asks, s.Asks, why)
	c.snap, c.seq, c.loaded, c.resync = s, f.Seq, true, false
	c.pruneAuthLocked()
	c.backoff = initialBackoff
	return nil
}

// applyDeltaLocked applies a delta that carries the next sequence number.
func (c *Client) applyDeltaLocked(f wire.Frame) error {
	if !c.loaded || c.resync {
		return errNoBase
	}
	if f.Seq != c.seq+1 {
		return errGap
	}
	var d wire.Delta
	if err := json.Unmarshal(f.Data, &d); err != nil {
		return err
	}
	next, err := applyDelta(c.snap, d)
	if err != nil {
		return err
	}
	c.noteDeparturesLocked(c.snap.Asks, next.Asks, "")
	c.snap, c.seq = next, f.Seq
	c.pruneAuthLocked()
	c.backoff = initialBackoff
	return nil
}
