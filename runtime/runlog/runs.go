package runlog

import (
	"context"
	"errors"
	"sort"
	"sync"
	"time"
)

// Errors of Start.
var (
	// ErrRunning: a run of that id is going on for the agent (a client must re-attach to it,
	// not start it twice).
	ErrRunning = errors.New("a run with this id is going on")
	// ErrFull: as many runs as the limits allow are going on.
	ErrFull = errors.New("too many runs are going on")
)

// Runs keeps the logs of the runs of one runtime, by agent and run id, each for the resource
// (the caller) that started it: another caller neither follows nor cancels it.
type Runs struct {
	limits Limits
	now    func() time.Time

	mu   sync.Mutex
	runs map[string]*run
}

type run struct {
	log      *Log
	resource string
	cancel   context.CancelFunc
}

// New keeps logs within limits (zero fields: the defaults).
func New(limits Limits) *Runs {
	return &Runs{limits: limits.normalized(), now: time.Now, runs: map[string]*run{}}
}

func key(agentID, runID string) string { return agentID + "\x00" + runID }

// Start makes the log of a new run of resource; cancel ends the run on Cancel. A finished run
// of the same id is replaced (a client may reuse a run id after its run ended).
func (r *Runs) Start(agentID, runID, resource string, cancel context.CancelFunc) (*Log, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.prune()
	if old, ok := r.runs[key(agentID, runID)]; ok {
		if _, ended := old.log.Ended(); !ended {
			return nil, ErrRunning
		}
	}
	if len(r.runs) >= r.limits.MaxRuns {
		return nil, ErrFull
	}
	l := newLog(r.limits)
	r.runs[key(agentID, runID)] = &run{log: l, resource: resource, cancel: cancel}
	return l, nil
}

// Get is the log of resource's run, false for none (never started, another resource's, or
// expired).
func (r *Runs) Get(agentID, runID, resource string) (*Log, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.prune()
	x, ok := r.runs[key(agentID, runID)]
	if !ok || x.resource != resource {
		return nil, false
	}
	return x.log, true
}

// Cancel ends resource's run on purpose; false when there is no such run going on.
func (r *Runs) Cancel(agentID, runID, resource string) bool {
	r.mu.Lock()
	x, ok := r.runs[key(agentID, runID)]
	r.mu.Unlock()
	if !ok || x.resource != resource {
		return false
	}
	if _, ended := x.log.Ended(); ended {
		return false
	}
	if x.cancel != nil {
		x.cancel()
	}
	return true
}

// Limits are the limits the logs are kept within.
func (r *Runs) Limits() Limits { return r.limits }

// Len is how many logs are kept.
func (r *Runs) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.prune()
	return len(r.runs)
}

// prune drops the logs kept past Keep after their run ended and, over MaxRuns, the
// longest-ended ones. r.mu is held.
func (r *Runs) prune() {
	now := r.now()
	type endedRun struct {
		key string
		at  time.Time
	}
	var ended []endedRun
	for k, x := range r.runs {
		at, ok := x.log.Ended()
		switch {
		case !ok:
		case now.Sub(at) >= r.limits.Keep:
			delete(r.runs, k)
		default:
			ended = append(ended, endedRun{k, at})
		}
	}
	if over := len(r.runs) - r.limits.MaxRuns + 1; over > 0 && len(ended) > 0 {
		sort.Slice(ended, func(i, j int) bool { return ended[i].at.Before(ended[j].at) })
		for _, e := range ended[:min(over, len(ended))] {
			delete(r.runs, e.key)
		}
	}
}
