package memory

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

func runEvents(from, to int) []RunEvent {
	var out []RunEvent
	for i := from; i <= to; i++ {
		out = append(out, RunEvent{Seq: i, Data: []byte(fmt.Sprintf(`{"n":%d}`, i))})
	}
	return out
}

// TestRuns: a run's events are stored in order for its resource only, read from any offset,
// bounded to maxEvents (the oldest go), ended once; a cancel reaches the writer's next save and
// only a run going on can be canceled.
func TestRuns(t *testing.T) {
	for name, open := range backends(t) {
		t.Run(name, func(t *testing.T) {
			s := open(t)
			st, err := s.SaveRunEvents(ctx, "a", "r1", "ann", runEvents(1, 3), false, 4)
			testutil.Check(t, err)
			if st.Ended || st.CancelRequested || st.UpdatedAt.IsZero() {
				t.Errorf("state after the first save: %+v", st)
			}
			evs, st, err := s.RunEvents(ctx, "a", "r1", "ann", 1, 100)
			testutil.Check(t, err)
			if len(evs) != 2 || evs[0].Seq != 2 || string(evs[1].Data) != `{"n":3}` || st.Ended {
				t.Fatalf("after 1: %+v %+v", evs, st)
			}
			if _, _, err := s.RunEvents(ctx, "a", "r1", "bob", 0, 100); !errors.Is(err, ErrRunNotFound) {
				t.Errorf("bob reads ann's run: %v", err)
			}
			if _, err := s.SaveRunEvents(ctx, "a", "r1", "bob", runEvents(4, 4), false, 4); !errors.Is(err, ErrRunNotFound) {
				t.Errorf("bob writes ann's run: %v", err)
			}
			if _, _, err := s.RunEvents(ctx, "b", "r1", "ann", 0, 100); !errors.Is(err, ErrRunNotFound) {
				t.Errorf("another agent's run: %v", err)
			}
			// A heartbeat (no events) keeps the run; a cancel shows at the next save.
			testutil.Check(t, s.CancelRun(ctx, "a", "r1", "ann"))
			if err := s.CancelRun(ctx, "a", "r1", "bob"); !errors.Is(err, ErrRunNotFound) {
				t.Errorf("bob cancels ann's run: %v", err)
			}
			st, err = s.SaveRunEvents(ctx, "a", "r1", "ann", nil, false, 4)
			testutil.Check(t, err)
			if !st.CancelRequested {
				t.Errorf("the cancel did not reach the writer: %+v", st)
			}
			// Past maxEvents the oldest go; the end is kept, and an ended run cannot be canceled.
			_, err = s.SaveRunEvents(ctx, "a", "r1", "ann", runEvents(4, 6), true, 4)
			testutil.Check(t, err)
			evs, st, err = s.RunEvents(ctx, "a", "r1", "ann", 0, 100)
			testutil.Check(t, err)
			if len(evs) != 4 || evs[0].Seq != 3 || evs[3].Seq != 6 || !st.Ended {
				t.Errorf("bounded and ended: %+v %+v", evs, st)
			}
			if evs, _, _ := s.RunEvents(ctx, "a", "r1", "ann", 0, 2); len(evs) != 2 {
				t.Errorf("the limit: %d events", len(evs))
			}
			if err := s.CancelRun(ctx, "a", "r1", "ann"); !errors.Is(err, ErrRunNotFound) {
				t.Errorf("cancel an ended run: %v", err)
			}
			if st, _ := s.SaveRunEvents(ctx, "a", "r1", "ann", nil, false, 4); !st.Ended {
				t.Error("a later save without ended un-ended the run")
			}
		})
	}
}

// TestRunsExpire: a run no client came back for is kept RunKeep after its last write, then it
// is gone: not served, and (SQL) its rows deleted by the next pruning, so a client that never
// re-attaches costs bounded storage.
func TestRunsExpire(t *testing.T) {
	for name, open := range backends(t) {
		t.Run(name, func(t *testing.T) {
			s := open(t)
			_, err := s.SaveRunEvents(ctx, "a", "r1", "ann", runEvents(1, 50), true, 100)
			testutil.Check(t, err)
			if _, _, err := s.RunEvents(ctx, "a", "r1", "ann", 0, 100); err != nil {
				t.Fatalf("a fresh run: %v", err)
			}
			switch b := s.(type) {
			case *InMemory:
				b.mu.Lock()
				b.runs["a\x00r1"].state.UpdatedAt = time.Now().Add(-RunKeep - time.Second)
				b.mu.Unlock()
			case *sqlStore:
				_, err := b.db.ExecContext(ctx, b.d.rebind(`UPDATE agentry_runs SET updated_us = updated_us - $1`), (RunKeep + time.Second).Microseconds())
				testutil.Check(t, err)
			}
			if _, _, err := s.RunEvents(ctx, "a", "r1", "ann", 0, 100); !errors.Is(err, ErrRunNotFound) {
				t.Errorf("a run past RunKeep: %v", err)
			}
			// Another run's save prunes (SQLite and PostgreSQL: at most once a minute per process).
			if b, ok := s.(*sqlStore); ok {
				b.runsPruned.Store(0)
			}
			_, err = s.SaveRunEvents(ctx, "a", "r2", "ann", runEvents(1, 1), false, 100)
			testutil.Check(t, err)
			switch b := s.(type) {
			case *InMemory:
				b.mu.Lock()
				_, kept := b.runs["a\x00r1"]
				b.mu.Unlock()
				if kept {
					t.Error("the expired run is still held in memory")
				}
			case *sqlStore:
				var runs, events int
				testutil.Check(t, b.db.QueryRowContext(ctx, b.d.rebind(`SELECT count(*) FROM agentry_runs WHERE run_id = $1`), "r1").Scan(&runs))
				testutil.Check(t, b.db.QueryRowContext(ctx, b.d.rebind(`SELECT count(*) FROM agentry_run_events WHERE run_id = $1`), "r1").Scan(&events))
				if runs != 0 || events != 0 {
					t.Errorf("the expired run's rows: %d runs, %d events", runs, events)
				}
			}
		})
	}
}
