package bridge

import (
	"context"
	"errors"
	"time"

	"github.com/agentry-dev/agentry/chat/model"
)

// keepRuns marks this replica's runs alive and takes over the runs of replicas that stopped
// (killed, or handing over on a graceful stop): every Heartbeat.
func (b *Bridge) keepRuns() {
	ctx, cancel := context.WithTimeout(b.ctx, b.o.Heartbeat)
	defer cancel()
	if err := b.o.Store.HeartbeatAgentRuns(ctx, b.o.Replica); err != nil && b.ctx.Err() == nil {
		b.log.Error(err, "failed to mark this replica's agent runs alive")
	}
	for b.ctx.Err() == nil {
		run, ok, err := b.o.Store.ClaimStaleAgentRun(ctx, b.o.Replica, time.Now().Add(-b.o.TakeOverAfter))
		if err != nil && b.ctx.Err() == nil {
			b.log.Error(err, "failed to look for agent runs to take over")
		}
		if !ok || err != nil {
			return
		}
		b.takeOver(run)
	}
}

// every runs fn every d until Close (a goroutine counted in b.wg).
func (b *Bridge) every(d time.Duration, fn func()) {
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		tick := time.NewTicker(d)
		defer tick.Stop()
		for {
			select {
			case <-b.ctx.Done():
				return
			case <-tick.C:
				fn()
			}
		}
	}()
}

// takeOver finishes a run another replica was bridging: it re-attaches to the AG-UI call in
// flight (from its first event: clients start the live answer over at its RUN_STARTED), calls a
// Mastra or A2A agent again, or waits for the frontend actions the run waited for, and goes on
// as the run would have.
func (b *Bridge) takeOver(run model.AgentRun) {
	log := b.log.WithValues("run", run.RunID, "agent", run.AgentID, "conversation", run.ConversationID)
	cfg, err := b.o.Store.GetAgent(b.ctx, run.AgentID)
	p := &Plan{b: b, run: run, sender: run.StartedBy, takeover: run.CallID, waiting: run.CallID == "" && len(run.Pending) > 0}
	if guid, ok := model.GroupOf(run.ConversationID); ok {
		p.group = guid
	}
	if err != nil {
		log.Error(err, "failed to read the agent of a run taken over")
		p.cfg = model.AgentConfig{AgentID: run.AgentID}
		b.failRun(p, fail(model.RunErrNotReady, "its configuration could not be read", err))
		b.release(p)
		return
	}
	p.cfg = cfg
	select {
	case b.slots <- struct{}{}:
	case <-b.ctx.Done():
		return
	}
	log.Info("taking over an agent run another replica stopped bridging", "call", run.CallID)
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		defer func() { <-b.slots }()
		b.execute(p, model.Message{})
	}()
}

// errHandedOver stops a run this replica no longer bridges.
var errHandedOver = errors.New("the run was handed over to another replica")

// handedOver: the run stopped because this replica handed it over (Close) or lost it to
// another one; it must neither fail nor release the run, which goes on elsewhere.
func (b *Bridge) handedOver(p *Plan, rerr *runError) bool {
	if rerr == nil {
		return false
	}
	if errors.Is(rerr.Cause, errHandedOver) {
		return true
	}
	return b.handingOver.Load() && (p.inCall.Load() || p.awaiting.Load())
}

// stillOwner: this replica still bridges p's run (checked before storing a call's output, so
// a run taken over is stored once, by its new owner). A store error counts as still owning:
// the store write that follows fails the same way.
func (b *Bridge) stillOwner(ctx context.Context, p *Plan) bool {
	run, err := b.o.Store.GetAgentRun(ctx, p.run.ConversationID)
	if err != nil {
		return model.CodeOf(err) != model.ErrNotFound
	}
	return run.RunID != p.run.RunID || run.Owner == "" || run.Owner == b.o.Replica
}
