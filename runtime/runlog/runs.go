package runlog

import (
	"context"
	"errors"
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
	// ended is the runs in the order they ended, so pruning takes the oldest first without
	// looking at every run (a busy runtime keeps thousands).
	ended []endedRun
}

type endedRun struct {
	key string
	run *run
	at  time.Time
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
	k, x := key(agentID, runID), &run{log: l, resource: resource, cancel: cancel}
	l.onEnd = func() {
		r.mu.Lock()
		r.ended = append(r.ended, endedRun{key: k, run: x, at: r.now()})
		r.mu.Unlock()
	}
	r.runs[k] = x
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

// prune drops the logs kept past Keep after their run ended and, at MaxRuns, the
// longest-ended ones, oldest first. r.mu is held.
func (r *Runs) prune() {
	now := r.now()
	for len(r.ended) > 0 {
		e := r.ended[0]
		if now.Sub(e.at) < r.limits.Keep && len(r.runs) < r.limits.MaxRuns {
			return
		}
		r.ended[0] = endedRun{}
		r.ended = r.ended[1:]
		if r.runs[e.key] == e.run { // not a later run of the same id
			delete(r.runs, e.key)
		}
	}
}
