package memory

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

func TestPendingRuns(t *testing.T) {
	for name, open := range backends(t) {
		t.Run(name, func(t *testing.T) {
			s := open(t)
			ctx := context.Background()
			exp := time.Now().Add(time.Hour).Truncate(time.Microsecond)
			testutil.Check(t, s.SavePending(ctx, "a", PendingRun{ID: "r1", ThreadID: "t", ResourceID: "ann", State: []byte(`{"n":0}`), ExpiresAt: exp}))
			if err := s.UpdatePending(ctx, "b", "r1", func(*PendingRun) (bool, error) { return false, nil }); !errors.Is(err, ErrPendingNotFound) {
				t.Errorf("another agent's run: %v", err)
			}
			// fn's error changes nothing and comes back as it is.
			boom := errors.New("boom")
			err := s.UpdatePending(ctx, "a", "r1", func(p *PendingRun) (bool, error) {
				p.State = []byte(`{"n":99}`)
				return false, boom
			})
			if !errors.Is(err, boom) {
				t.Errorf("fn's error: %v", err)
			}
			// Updates are serialised: each sees the one before.
			var wg sync.WaitGroup
			for i := 0; i < 8; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if err := s.UpdatePending(ctx, "a", "r1", func(p *PendingRun) (bool, error) {
						n := int(p.State[5] - '0')
						p.State = []byte(`{"n":` + string(rune('0'+n+1)) + `}`)
						return false, nil
					}); err != nil {
						t.Error(err)
					}
				}()
			}
			wg.Wait()
			err = s.UpdatePending(ctx, "a", "r1", func(p *PendingRun) (bool, error) {
				if string(p.State) != `{"n":8}` || p.ThreadID != "t" || p.ResourceID != "ann" || !p.ExpiresAt.Equal(exp) {
					t.Errorf("stored: %s %+v", p.State, p)
				}
				return true, nil
			})
			testutil.Check(t, err)
			if err := s.UpdatePending(ctx, "a", "r1", func(*PendingRun) (bool, error) { return false, nil }); !errors.Is(err, ErrPendingNotFound) {
				t.Errorf("a removed run: %v", err)
			}
		})
	}
}
