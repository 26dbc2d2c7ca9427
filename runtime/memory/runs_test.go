package memory

import (
	"errors"
	"fmt"
	"testing"

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
