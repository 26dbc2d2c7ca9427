package process

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// The chat service as it is deployed: `agentry chat` processes on one PostgreSQL (or one on a
// SQLite file), real sockets, kill -9 and a database restart in the middle of traffic.

// chatWorld is the users and conversations every chat test uses: a group of everyone, a
// smaller group and a one-to-one conversation.
type chatWorld struct {
	uids   []string
	tokens map[string]string
	convs  []*conv
}

func newChatWorld(t *testing.T, base string) *chatWorld {
	t.Helper()
	w := &chatWorld{tokens: map[string]string{}}
	for i := 0; i < 6; i++ {
		uid := fmt.Sprintf("u%d", i)
		w.uids = append(w.uids, uid)
		w.tokens[uid] = createChatUser(t, base, uid)
	}
	createChatGroup(t, base, w.tokens["u0"], "all", "u1", "u2", "u3", "u4", "u5")
	createChatGroup(t, base, w.tokens["u1"], "few", "u0", "u2")
	w.convs = []*conv{
		{receiver: "all", receiverType: "group", members: w.uids},
		{receiver: "few", receiverType: "group", members: []string{"u0", "u1", "u2"}},
		{receiver: "u4", receiverType: "user", members: []string{"u3", "u4"}},
	}
	return w
}

// sender posts messages from several goroutines, message i through bases[i % len(bases)],
// and records every attempt per conversation.
type sender struct {
	w     *chatWorld
	bases []string
	next  atomic.Int64
	total int64
	stop  atomic.Bool
	acked atomic.Int64
	wg    sync.WaitGroup
	// hold, when set, holds back message holdAt and those after until it is closed.
	hold   chan struct{}
	holdAt int64

	mu   sync.Mutex
	sent map[*conv][]sendResult
	// byBase counts acked sends per base.
	byBase map[string]int
	failed []sendResult
}

func startSending(w *chatWorld, total, workers int, bases ...string) *sender {
	s := newSender(w, total, bases...)
	s.start(workers)
	return s
}

func newSender(w *chatWorld, total int, bases ...string) *sender {
	return &sender{w: w, bases: bases, total: int64(total), sent: map[*conv][]sendResult{}, byBase: map[string]int{}}
}

// start sends with workers goroutines; message holdAt and those after wait for hold to close
// (when it is set).
func (s *sender) start(workers int) {
	for range workers {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			for !s.stop.Load() {
				i := s.next.Add(1) - 1
				if i >= s.total {
					return
				}
				if s.hold != nil && i >= s.holdAt {
					<-s.hold
				}
				s.send(int(i), s.bases[int(i)%len(s.bases)])
			}
		}()
	}
}

// send posts message i through base (i picks the conversation and its sender).
func (s *sender) send(i int, base string) sendResult {
	cv := s.w.convs[i%len(s.w.convs)]
	from := cv.members[(i/len(s.w.convs))%len(cv.members)]
	if cv.receiverType == "user" {
		from = "u3"
	}
	r := sendChat(base, s.w.tokens[from], *cv, fmt.Sprintf("msg %d (#%d) via %s", i, textSeq.Add(1), base))
	s.mu.Lock()
	s.sent[cv] = append(s.sent[cv], r)
	if r.acked() {
		s.acked.Add(1)
		s.byBase[base]++
	} else {
		s.failed = append(s.failed, r)
	}
	s.mu.Unlock()
	return r
}

// textSeq makes every message text unique across senders.
var textSeq atomic.Int64

func (s *sender) wait() { s.wg.Wait() }

func (s *sender) ackedCount() int { return int(s.acked.Load()) }

// allAcked lists every acked message id.
func (s *sender) allAcked() []int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []int64
	for _, rs := range s.sent {
		for _, r := range rs {
			if r.acked() {
				out = append(out, r.id)
			}
		}
	}
	return out
}

// expect waits until every client has every acked message of its conversations, then checks
// the clients (nothing duplicated under two positions, seq gap-free per conversation).
func expectDelivered(t *testing.T, s *sender, clients []*wsClient, timeout time.Duration) {
	t.Helper()
	s.mu.Lock()
	want := map[*wsClient][]int64{}
	for _, c := range clients {
		want[c] = idsFor(c.uid, s.sent)
	}
	s.mu.Unlock()
	deadline := time.Now().Add(timeout)
	for _, c := range clients {
		for !c.has(want[c]) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
	}
	for _, c := range clients {
		c.check(t, want[c])
		t.Log(c.stats())
	}
}

// latency sends n messages from u0 to the group of everyone through base, one at a time, and
// returns the median and the slowest time until c received one (c on the other process: the
// NOTIFY path).
func latency(t *testing.T, w *chatWorld, base string, c *wsClient, n int) (median, worst time.Duration) {
	t.Helper()
	var took []time.Duration
	for range n {
		start := time.Now()
		r := sendChat(base, w.tokens["u0"], *w.convs[0], fmt.Sprintf("msg latency (#%d)", textSeq.Add(1)))
		if !r.acked() {
			t.Fatalf("send: %d %v", r.status, r.err)
		}
		waitUntil(t, 10*time.Second, "the message arrives", func() bool { return c.has([]int64{r.id}) })
		took = append(took, time.Since(start))
	}
	slices.Sort(took)
	return took[n/2], took[n-1]
}

func connectAll(t *testing.T, w *chatWorld, bases func(i int) []string) []*wsClient {
	t.Helper()
	var clients []*wsClient
	for i, uid := range w.uids {
		clients = append(clients, startClient(t, uid, w.tokens[uid], bases(i)...))
	}
	// A second socket of u0 on the other process.
	clients = append(clients, startClient(t, "u0", w.tokens["u0"], bases(1)...))
	waitUntil(t, 10*time.Second, "every socket is ready", func() bool {
		for _, c := range clients {
			if !c.isConnected() {
				return false
			}
		}
		return true
	})
	return clients
}

// TestChatTwoProcessesOnePostgres: messages sent through either process reach the sockets of
// both, each exactly once after dedupe by pos, in seq order per conversation.
func TestChatTwoProcessesOnePostgres(t *testing.T) {
	pg := testutil.StartPostgres(t)
	a := startChat(t, pg.URL, 2)
	b := startChat(t, pg.URL, 2)
	w := newChatWorld(t, a.base)
	procs := []string{a.base, b.base}
	clients := connectAll(t, w, func(i int) []string { return []string{procs[i%2]} })

	start := time.Now()
	s := startSending(w, 200, 4, a.base, b.base)
	s.wait()
	if s.ackedCount() != 200 {
		t.Fatalf("%d of 200 sends acked: %+v", s.ackedCount(), s.failed)
	}
	expectDelivered(t, s, clients, 20*time.Second)
	took := time.Since(start)
	// Sent through A, received on B (u1's socket): woken by NOTIFY, well before the 1 s poll. A
	// message left to the poll waits half a second on average, so the median of 20 tells the
	// two apart; one slow message on a loaded machine says nothing.
	median, worst := latency(t, w, a.base, clients[1], 20)
	if median > 250*time.Millisecond {
		t.Errorf("A to B took %s at the median (up to %s): the NOTIFY wake-up does not work, only the poll", median, worst)
	}
	t.Logf("200 messages (%d via A, %d via B, 4 concurrent senders) delivered to %d sockets on 2 processes in %s; A to B latency %s at the median, ≤ %s",
		s.byBase[a.base], s.byBase[b.base], len(clients), took.Round(time.Millisecond), median.Round(time.Millisecond), worst.Round(time.Millisecond))
}

// TestChatKillOneProcessMidTraffic: kill -9 of one of two processes while messages flow
// through both; its sockets resume on the survivor and every acked message reaches every
// member once.
func TestChatKillOneProcessMidTraffic(t *testing.T) {
	pg := testutil.StartPostgres(t)
	a := startChat(t, pg.URL, 2)
	b := startChat(t, pg.URL, 2)
	w := newChatWorld(t, a.base)
	procs := []string{a.base, b.base}
	// Sockets fail over to the other process when theirs is gone.
	clients := connectAll(t, w, func(i int) []string { return []string{procs[i%2], procs[(i+1)%2]} })

	// The second half of the sends waits for the kill, so it lands mid-traffic however fast or
	// slow the machine is.
	s := newSender(w, 240, a.base, b.base)
	s.hold, s.holdAt = make(chan struct{}), 120
	s.start(2)
	waitUntil(t, 20*time.Second, "60 sends are acked", func() bool { return s.ackedCount() >= 60 })
	b.kill(t)
	killedAt := s.ackedCount()
	close(s.hold)
	s.wait()

	s.mu.Lock()
	viaA, viaB, failed := s.byBase[a.base], s.byBase[b.base], len(s.failed)
	for _, r := range s.failed {
		if r.err == nil {
			t.Errorf("a send failed with %d instead of a connection error: %s", r.status, r.text)
		}
	}
	s.mu.Unlock()
	if viaA < 120 || failed == 0 {
		t.Fatalf("acked via A %d, via B %d, failed %d: the kill did not happen mid-traffic", viaA, viaB, failed)
	}
	expectDelivered(t, s, clients, 20*time.Second)
	for i, c := range clients {
		if c.bases[0] == b.base {
			c.mu.Lock()
			cur, n := c.cur, c.connects
			c.mu.Unlock()
			if c.bases[cur] != a.base || n < 2 {
				t.Errorf("client %d (%s) did not resume on the survivor: connections %d", i, c.uid, n)
			}
		}
	}
	t.Logf("kill -9 after %d acked sends; acked via A %d, via B %d, %d sends failed; every acked message delivered", killedAt, viaA, viaB, failed)
}

// TestChatPostgresRestart: with both processes running, PostgreSQL stops and starts again on
// the same port and data directory. REST calls fail with 503 during the outage and recover by
// themselves; sockets keep (or regain) their feeds.
func TestChatPostgresRestart(t *testing.T) {
	pg := testutil.StartPostgres(t)
	a := startChat(t, pg.URL, 2)
	b := startChat(t, pg.URL, 2)
	w := newChatWorld(t, a.base)
	procs := []string{a.base, b.base}
	clients := connectAll(t, w, func(i int) []string { return []string{procs[i%2], procs[(i+1)%2]} })

	before := startSending(w, 30, 2, a.base, b.base)
	before.wait()
	expectDelivered(t, before, clients, 10*time.Second)

	// Traffic keeps coming through both processes across the outage (one send per 10 ms).
	during, stopDuring := sendEvery(w, 10*time.Millisecond, procs...)
	waitUntil(t, 10*time.Second, "traffic flows", func() bool { return during.ackedCount() >= 10 })

	pg.Stop()
	outage := time.Now()
	// Half the sockets lose their connection during the outage: they reconnect (refused with
	// 1013 while the store is down) and resume once it is back.
	for _, c := range clients[:len(clients)/2] {
		c.drop()
	}
	unavailable := 0
	for _, base := range procs {
		unavailable += callDuringOutage(t, base, w.tokens["u0"])
	}
	// The dropped sockets try again while the store is down.
	waitUntil(t, 10*time.Second, "a dropped socket is refused with 1013", func() bool {
		clients[0].mu.Lock()
		defer clients[0].mu.Unlock()
		return clients[0].refused > 0
	})
	pg.Start()
	restarted := time.Now()

	// Recovery without restarting the processes: the first successful send through each.
	after := newSender(w, 0)
	for _, base := range procs {
		waitUntil(t, 30*time.Second, "a send through "+base+" succeeds after the restart", func() bool {
			return after.send(0, base).acked()
		})
	}
	recovered := time.Since(restarted)
	more := startSending(w, 60, 2, a.base, b.base)
	more.wait()
	stopDuring()
	if more.ackedCount() != 60 {
		t.Fatalf("%d of 60 sends after recovery acked: %+v", more.ackedCount(), more.failed)
	}
	for _, r := range during.failed {
		if r.err == nil && r.status != 503 {
			t.Errorf("a send across the outage failed with %d", r.status)
		}
	}
	t.Logf("across the outage: %d sends acked, %d failed", during.ackedCount(), len(during.failed))
	// Everything acked before, during and after the outage arrives.
	all := &sender{sent: map[*conv][]sendResult{}}
	for _, s := range []*sender{before, during, after, more} {
		for cv, rs := range s.sent {
			all.sent[cv] = append(all.sent[cv], rs...)
		}
	}
	expectDelivered(t, all, clients, 20*time.Second)
	// The LISTEN connection is back: B hears of A's commits by NOTIFY again, not by the poll.
	median, worst := latency(t, w, a.base, clients[1], 5)
	t.Logf("after recovery, A to B latency %s at the median, ≤ %s", median.Round(time.Millisecond), worst.Round(time.Millisecond))
	t.Logf("outage %s: %d of 8 REST calls answered 503 ERR_SERVICE_UNAVAILABLE (the rest: connection errors); REST recovered %s after the restart (%d failed attempts meanwhile); %d messages delivered after recovery",
		restarted.Sub(outage).Round(time.Millisecond), unavailable, recovered.Round(time.Millisecond), len(after.failed), more.ackedCount()+len(procs))
}

// sendEvery sends a message every interval through bases by turns until stop, which returns
// once the last send has.
func sendEvery(w *chatWorld, interval time.Duration, bases ...string) (s *sender, stop func()) {
	s = newSender(w, 0)
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-quit:
				return
			case <-time.After(interval):
			}
			s.send(i, bases[i%len(bases)])
		}
	}()
	return s, func() { close(quit); <-done }
}

// callDuringOutage makes REST calls through base while the database is down: each fails with a
// connection error or 503 ERR_SERVICE_UNAVAILABLE (counted), and none tells the database's
// details.
func callDuringOutage(t *testing.T, base, token string) (unavailable int) {
	t.Helper()
	for _, call := range []struct{ method, path string }{{"POST", "/messages"}, {"GET", "/me"}, {"GET", "/groups/all/messages"}, {"GET", "/healthz"}} {
		var body any
		if call.method == "POST" {
			body = map[string]any{"receiver": "all", "receiverType": "group", "text": "during the outage"}
		}
		status, raw, err := chatCall(call.method, base+call.path, token, body)
		if err != nil {
			continue // a connection error is an acceptable failure
		}
		var e struct {
			Error struct{ Code, Message string }
		}
		_ = json.Unmarshal(raw, &e)
		if status == 503 && e.Error.Code == "ERR_SERVICE_UNAVAILABLE" {
			unavailable++
		} else {
			t.Errorf("%s %s during the outage: %d %s", call.method, call.path, status, raw)
		}
		if strings.Contains(string(raw), "127.0.0.1") || strings.Contains(strings.ToLower(string(raw)), "sql") {
			t.Errorf("the error leaks details: %s", raw)
		}
	}
	return unavailable
}

// TestChatSQLiteKillMidTraffic: kill -9 of a SQLite-backed process while messages are sent;
// after a restart on the same file every acked message is listed and replayed from pos 0.
func TestChatSQLiteKillMidTraffic(t *testing.T) {
	storage := "file:" + t.TempDir() + "/chat.db"
	a := startChat(t, storage, 1)
	w := newChatWorld(t, a.base)

	s := startSending(w, 300, 3, a.base)
	waitUntil(t, 20*time.Second, "100 sends are acked", func() bool { return s.ackedCount() >= 100 })
	a.kill(t)
	s.stop.Store(true)
	s.wait()
	acked := s.allAcked()
	s.mu.Lock()
	failed := len(s.failed)
	s.mu.Unlock()

	a2 := startChat(t, storage, 1)
	// Read every conversation back through the REST list route, newest first, paging back.
	stored := map[int64]bool{}
	for _, cv := range w.convs {
		path := a2.base + "/groups/" + cv.receiver + "/messages"
		if cv.receiverType == "user" {
			path = a2.base + "/users/" + cv.receiver + "/messages"
		}
		before := ""
		for {
			var page struct {
				Items []struct {
					ID int64 `json:"id"`
				} `json:"items"`
			}
			mustCall(t, 200, "GET", path+"?limit=100"+before, w.tokens[cv.members[0]], nil, &page)
			if len(page.Items) == 0 {
				break
			}
			oldest := page.Items[0].ID
			for _, m := range page.Items {
				stored[m.ID] = true
				oldest = min(oldest, m.ID)
			}
			before = fmt.Sprintf("&before=%d", oldest)
		}
	}
	var lost []int64
	for _, id := range acked {
		if !stored[id] {
			lost = append(lost, id)
		}
	}
	if len(lost) > 0 {
		t.Errorf("%d of %d acked messages are not in the store after the restart: %v", len(lost), len(acked), lost)
	}

	// A client of each user resuming from pos 0 replays every acked message of its conversations.
	var clients []*wsClient
	for _, uid := range w.uids {
		clients = append(clients, startClient(t, uid, w.tokens[uid], a2.base))
	}
	expectDelivered(t, s, clients, 20*time.Second)
	t.Logf("kill -9 after %d acked sends (%d failed); %d messages stored, all %d acked ones listed and replayed", len(acked), failed, len(stored), len(acked))
}
