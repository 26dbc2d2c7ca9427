package runlog

import (
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

func seqs(evs []Event) []int {
	out := make([]int, len(evs))
	for i, e := range evs {
		out[i] = e.Seq
	}
	return out
}

// TestLogFollow: a follower reads from any offset, is woken by each event and by the end, and
// reads what is left after the end.
func TestLogFollow(t *testing.T) {
	l := newLog(Limits{}.normalized())
	evs, ended, wake, err := l.Since(0)
	if len(evs) != 0 || ended || err != nil {
		t.Fatalf("empty log: %v %v %v", evs, ended, err)
	}
	for i := range 3 {
		if err := l.Append(map[string]int{"n": i}); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-wake:
	default:
		t.Fatal("an event did not wake the follower")
	}
	evs, _, wake, _ = l.Since(1)
	if got := seqs(evs); len(got) != 2 || got[0] != 2 || got[1] != 3 || string(evs[1].Data) != `{"n":2}` {
		t.Fatalf("since 1: %v %v", got, evs)
	}
	l.End()
	select {
	case <-wake:
	default:
		t.Fatal("the end did not wake the follower")
	}
	evs, ended, _, _ = l.Since(3)
	if len(evs) != 0 || !ended {
		t.Fatalf("after the end: %v %v", evs, ended)
	}
	if err := l.Append("late"); err == nil {
		t.Error("an event after the end was taken")
	}
}

// TestLogBounded: past MaxEvents or MaxBytes the oldest events go; a follower asking for them
// gets ErrGone, one asking after them gets the rest.
func TestLogBounded(t *testing.T) {
	l := newLog(Limits{MaxEvents: 3, MaxBytes: 1 << 20}.normalized())
	for i := range 5 {
		_ = l.Append(i)
	}
	if n, _ := l.Size(); n != 3 {
		t.Fatalf("%d events kept", n)
	}
	if _, _, _, err := l.Since(0); !errors.Is(err, ErrGone) {
		t.Errorf("since 0 after drops: %v", err)
	}
	if evs, _, _, err := l.Since(2); err != nil || seqs(evs)[0] != 3 {
		t.Errorf("since 2: %v %v", seqs(evs), err)
	}
	b := newLog(Limits{MaxBytes: 100}.normalized())
	for range 10 {
		_ = b.Append(strings.Repeat("x", 30))
	}
	if n, bytes := b.Size(); bytes > 100 || n != 3 {
		t.Errorf("bytes bound: %d events, %d bytes", n, bytes)
	}
}

// TestRuns: a run id is started once while it goes on, followed and canceled by its resource
// only, replaced once it ended, and its log dropped Keep after the end; over MaxRuns the
// longest-ended go, and a new run is refused while all are going on.
func TestRuns(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	r := New(Limits{Keep: time.Minute, MaxRuns: 2})
	r.now = func() time.Time { return now }
	var canceled atomic.Int32
	l, err := r.Start("chef", "r1", "ann", func() { canceled.Add(1) })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Start("chef", "r1", "ann", nil); !errors.Is(err, ErrRunning) {
		t.Errorf("the same run twice: %v", err)
	}
	if _, ok := r.Get("chef", "r1", "bob"); ok {
		t.Error("bob follows ann's run")
	}
	if r.Cancel("chef", "r1", "bob") || canceled.Load() != 0 {
		t.Error("bob canceled ann's run")
	}
	if got, ok := r.Get("chef", "r1", "ann"); !ok || got != l {
		t.Error("ann does not find her run")
	}
	if !r.Cancel("chef", "r1", "ann") || canceled.Load() != 1 {
		t.Error("ann could not cancel her run")
	}
	if _, err := r.Start("weather", "r1", "ann", nil); err != nil {
		t.Errorf("another agent's run of the same id: %v", err)
	}
	if _, err := r.Start("chef", "r2", "ann", nil); !errors.Is(err, ErrFull) {
		t.Errorf("a third run with two going on: %v", err)
	}
	l.End()
	if r.Cancel("chef", "r1", "ann") {
		t.Error("an ended run was canceled")
	}
	now = now.Add(30 * time.Second)
	if _, err := r.Start("chef", "r2", "ann", nil); err != nil {
		t.Errorf("a run once another ended, over MaxRuns: %v", err)
	}
	if _, ok := r.Get("chef", "r1", "ann"); ok {
		t.Error("the longest-ended log was kept over MaxRuns")
	}
	l3, _ := r.Get("weather", "r1", "ann")
	l3.End()
	now = now.Add(2 * time.Minute)
	if _, ok := r.Get("weather", "r1", "ann"); ok || r.Len() != 1 {
		t.Errorf("a log kept past Keep: %d kept", r.Len())
	}
	if _, err := r.Start("weather", "r1", "ann", nil); err != nil {
		t.Errorf("reusing an ended run's id: %v", err)
	}
}

// TestLogTail: a tail gets the events after its offset at once, then each new one as it is
// added, in order, until the end; a stopped tail gets nothing more; a sink that fails stops its
// tail; an offset before what the log keeps is ErrGone.
func TestLogTail(t *testing.T) {
	l := newLog(Limits{MaxEvents: 3, MaxBytes: 1 << 20}.normalized())
	for i := 1; i <= 4; i++ {
		testutil.Check(t, l.Append(i))
	}
	if _, _, err := l.Tail(0, func([]byte) error { return nil }); !errors.Is(err, ErrGone) {
		t.Errorf("a tail before the kept events: %v", err)
	}
	var got, stoppedGot []string
	done, _, err := l.Tail(2, func(b []byte) error { got = append(got, string(b)); return nil })
	testutil.Check(t, err)
	stoppedDone, stop, err := l.Tail(3, func(b []byte) error { stoppedGot = append(stoppedGot, string(b)); return nil })
	testutil.Check(t, err)
	failing, _, err := l.Tail(4, func([]byte) error { return errors.New("client gone") })
	testutil.Check(t, err)
	testutil.Check(t, l.Append(5))
	stop()
	select {
	case <-stoppedDone:
	default:
		t.Error("a stopped tail's done is open")
	}
	select {
	case <-failing:
	default:
		t.Error("a failing sink's tail goes on")
	}
	testutil.Check(t, l.Append(6))
	select {
	case <-done:
		t.Fatal("done before the end")
	default:
	}
	l.End()
	<-done
	if strings.Join(got, ",") != "3,4,5,6" || strings.Join(stoppedGot, ",") != "4,5" {
		t.Errorf("tailed %v, stopped tail %v", got, stoppedGot)
	}
	after, _, err := l.Tail(6, func([]byte) error { t.Error("an event after the end"); return nil })
	testutil.Check(t, err)
	<-after // an ended log's tail is done at once
}
