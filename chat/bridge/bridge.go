// Package bridge is the chat service's agent bridge: a user's message to an agent starts a run
// that calls the agent's Deployment URL exactly as an external chat platform would (AG-UI
// RunAgentInput in, an event stream out; or Mastra's /generate), relays the stream live to the
// conversation's sockets, persists the agent's messages once per call, and pauses for the
// frontend actions the user's client executes.
//
// One run per conversation at a time, across replicas: the claim is a row in the store
// (store.AgentRuns), taken before the user's message is stored, so a refused message is
// never half-sent.
package bridge

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"go.opentelemetry.io/otel/trace"

	"github.com/agentry-dev/agentry/chat/agentref"
	"github.com/agentry-dev/agentry/chat/jwtsign"
	"github.com/agentry-dev/agentry/chat/metrics"
	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/chat/store"
	"github.com/agentry-dev/agentry/internal/platform/defaults"
	"github.com/agentry-dev/agentry/internal/platform/egress"
	"github.com/agentry-dev/agentry/internal/platform/ids"
)

// Store is what the bridge needs of the chat store.
type Store interface {
	GetUser(ctx context.Context, uid string) (model.User, error)
	GetAgent(ctx context.Context, agentID string) (model.AgentConfig, error)
	AgentHeaders(ctx context.Context, agentID string) (map[string]string, error)
	ListActions(ctx context.Context, agentID string) ([]model.FrontendAction, error)
	ListMessages(ctx context.Context, viewer string, q store.MessageQuery) ([]model.Message, error)
	GetMessage(ctx context.Context, viewer string, id int64) (model.Message, error)
	Members(ctx context.Context, conversationID string) ([]string, error)
	SendMessages(ctx context.Context, ms []model.Message) ([]model.Message, error)
	store.AgentRuns
	store.Approvals
	RecordAgentUsage(ctx context.Context, u model.AgentUsage) error
}

// Publisher relays ephemeral frames to a conversation's sockets and wakes the event feed after
// a commit (the hub).
type Publisher interface {
	Publish(conversation string, frame []byte)
	Notify()
}

// Resolver maps an in-cluster Agent reference (namespace/name) to the URL to POST to.
type Resolver interface {
	Resolve(ctx context.Context, ref string, route agentref.Route) (string, error)
}

// AudienceResolver is a Resolver that also reads an Agent manifest's spec.platform.audience
// (agentref.KubeResolver): nil when it sets none or there is no such Agent.
type AudienceResolver interface {
	Resolver
	Audience(ctx context.Context, ref string) ([]string, error)
}

// Signer signs a token for the person a run is for (jwtsign.Signer): subject the chat user,
// audience the agent, with the conversation id.
type Signer interface {
	Sign(ctx context.Context, person jwtsign.Person, audience, conversation string) (string, error)
}

// ServiceTokens issues the chat's own ServiceAccount token for an audience
// (agentref.ServiceAccountTokens).
type ServiceTokens interface {
	Token(ctx context.Context, audience string) (string, error)
}

// Options configure a Bridge. Store and Publisher are required.
type Options struct {
	Store     Store
	Publisher Publisher
	Resolver  Resolver // nil: agentRef configurations fail with AGENT_NOT_READY
	// Signer signs the tokens of agents with auth chat-jwt; nil: their runs fail, saying so.
	Signer Signer
	// ServiceTokens issues the chat's ServiceAccount tokens for agents with auth
	// service-account; nil (outside a cluster): their runs fail, saying so.
	ServiceTokens ServiceTokens
	Logger        logr.Logger
	// Egress is what admin-configured Deployment URLs may reach (see internal/platform/egress): the
	// zero Policy allows only public addresses. Calls to in-cluster Agents (agentRef), whose
	// URLs the operator writes, may reach internal addresses too, never metadata ones.
	Egress egress.Policy
	// Client overrides the client for Deployment URLs (tests); ClusterClient the one for
	// agentRef URLs. Default: Egress applied after DNS, no redirects, no proxy, 10 s dial and TLS
	// handshake.
	Client        *http.Client
	ClusterClient *http.Client

	IdleTimeout   time.Duration // no byte from the agent for this long fails the run (default 60 s)
	RunTimeout    time.Duration // a whole run, frontend actions included (default 5 min)
	ActionTimeout time.Duration // one wait for frontend action results (default 2 min)
	History       int           // messages of the conversation sent to the agent (default 50, max 100)
	MaxRuns       int           // concurrent runs of this process (default 256)
	MaxSteps      int           // calls of one run (each frontend action round trip is one; default 10)
	ApprovalSweep time.Duration // how often expired approval requests are closed (default 5 s)
	// Replica names this process among the replicas sharing the store (default: a random id).
	Replica string
	// Heartbeat is how often this replica marks its runs alive and looks for runs another
	// replica stopped bridging (default 5 s); a run not marked for TakeOverAfter is taken over
	// (default 15 s).
	Heartbeat, TakeOverAfter time.Duration
	// Metrics records runs and the messages they store; nil records nothing.
	Metrics *metrics.Metrics
}

func (o *Options) defaults() {
	defaults.Positive(&o.IdleTimeout, 60*time.Second)
	defaults.Positive(&o.RunTimeout, 5*time.Minute)
	defaults.Positive(&o.ActionTimeout, 2*time.Minute)
	if o.History <= 0 || o.History > 100 {
		o.History = 50
	}
	defaults.Positive(&o.MaxRuns, 256)
	defaults.Positive(&o.MaxSteps, 10)
	defaults.Positive(&o.ApprovalSweep, 5*time.Second)
	defaults.Positive(&o.Heartbeat, 5*time.Second)
	defaults.Positive(&o.TakeOverAfter, 15*time.Second)
	if o.Replica == "" {
		o.Replica = ids.New("chat")
	}
	if o.Client == nil {
		o.Client = Client(o.Egress)
	}
	if o.ClusterClient == nil {
		cluster := o.Egress
		cluster.AllowInternal = true
		o.ClusterClient = Client(cluster)
	}
}

// Bridge starts and tracks agent runs.
type Bridge struct {
	o     Options
	log   logr.Logger
	slots chan struct{}

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	// handingOver: Close released the runs; one calling its agent stops without failing.
	handingOver atomic.Bool

	mu      sync.Mutex
	waiters map[string]chan struct{} // conversation → woken when one of its messages is stored
	running map[string]*Plan         // conversation → its run bridged here (for replays)
}

// New makes a Bridge; Close stops its runs.
func New(o Options) *Bridge {
	if o.Store == nil || o.Publisher == nil {
		panic("bridge.New: Options.Store and Options.Publisher are required")
	}
	o.defaults()
	ctx, cancel := context.WithCancel(context.Background())
	b := &Bridge{o: o, log: o.Logger.WithName("agent-bridge"), slots: make(chan struct{}, o.MaxRuns),
		ctx: ctx, cancel: cancel, waiters: map[string]chan struct{}{}, running: map[string]*Plan{}}
	b.every(b.o.ApprovalSweep, b.expireApprovals)
	b.every(b.o.Heartbeat, b.keepRuns)
	return b
}

// Close hands the runs in progress over to the other replicas: a run calling an AG-UI agent
// is released for another replica to re-attach to and finish (within TakeOverAfter, at once
// on a graceful stop), any other ends with a SERVICE_SHUTTING_DOWN error message. It waits for
// them, at most until ctx ends.
func (b *Bridge) Close(ctx context.Context) error {
	b.handingOver.Store(true)
	rctx, rcancel := context.WithTimeout(ctx, 5*time.Second)
	if err := b.o.Store.ReleaseAgentRuns(rctx, b.o.Replica); err != nil {
		b.log.Error(err, "failed to hand the agent runs over; other replicas take them over once they look stale")
	}
	rcancel()
	b.cancel()
	done := make(chan struct{})
	go func() { b.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Plan is a message's agent run, claimed before the message is stored: Start it with the
// stored message, or Cancel it when storing failed.
type Plan struct {
	b       *Bridge
	cfg     model.AgentConfig
	run     model.AgentRun
	sender  string
	group   string // the guid for a group conversation
	quiet   bool   // an AI feature's call: nothing is relayed
	once    sync.Once
	parent  trace.SpanContext // the span of what started the run (the message's send)
	traceID string            // the run's trace, stored with its answers (when sampled)
	resume  *decision         // a decided approval the run's first call answers
	// takeover is the agent call (AG-UI runId) a run taken over from another replica
	// re-attaches to before anything else; inCall says a call is in flight (Close hands such
	// a run over instead of failing it).
	takeover string
	inCall   atomic.Bool
	// waiting: taken over while it waited for frontend actions (awaiting: it waits now).
	waiting  bool
	awaiting atomic.Bool
	// resumed names the held call's tool: its result comes in a run that did not make the call.
	resumed struct{ toolCallID, toolName string }
	// live is the agent call in flight, for a page that asks for it (Replay).
	live liveCall
}

// mention is how a group message addresses an agent: "@chef" or the SDK's "<@uid:chef>".
var mention = regexp.MustCompile(`(?:<@uid:([A-Za-z0-9_-]{1,64})>|(?:^|[^A-Za-z0-9_<-])@([A-Za-z0-9_-]{1,64}))`)

// Message is what Prepare looks at of a message about to be stored.
type Message struct {
	Sender, Receiver string
	ReceiverType     model.ReceiverType
	Category, Type   string
	Text             string
	ParentID         int64
}

// Prepare decides whether a message starts a run and claims the conversation if so. It
// returns nil when no agent is addressed. A one-to-one message to an agent that is not
// enabled is ErrAgentDisabled; a conversation whose agent is still answering is ErrAgentBusy.
// Only text messages in the main conversation start runs (the agent reads the main
// conversation, not threads); other messages to an enabled agent are stored as they are.
func (b *Bridge) Prepare(ctx context.Context, msg Message) (*Plan, error) {
	sender, receiverType, receiver, text := msg.Sender, msg.ReceiverType, msg.Receiver, msg.Text
	starts := msg.Category == model.CategoryMessage && msg.Type == model.TypeText && msg.ParentID == 0
	var cfg model.AgentConfig
	p := &Plan{b: b, sender: sender}
	if receiverType == model.ReceiverUser {
		u, err := b.o.Store.GetUser(ctx, receiver)
		if err != nil || u.Kind != model.UserKindAgent {
			return nil, nil // the store answers unknown users
		}
		if cfg, err = b.o.Store.GetAgent(ctx, receiver); err != nil || !cfg.Enabled {
			if err != nil && model.CodeOf(err) != model.ErrUIDNotFound {
				return nil, err
			}
			return nil, model.Errorf(model.ErrAgentDisabled, "agent %q is not enabled: messages to it are not accepted", receiver)
		}
		if err := b.mayUse(ctx, sender, cfg, ""); err != nil {
			return nil, err
		}
		if !starts {
			return nil, nil
		}
		p.run.ConversationID = model.ConversationID(model.ReceiverUser, sender, receiver)
	} else {
		if !starts {
			return nil, nil
		}
		var ok bool
		if cfg, ok = b.mentioned(ctx, receiver, text); !ok {
			return nil, nil
		}
		if err := b.mayUse(ctx, sender, cfg, receiver); err != nil {
			return nil, err
		}
		p.group = receiver
		p.run.ConversationID = model.ConversationID(model.ReceiverGroup, sender, receiver)
	}
	if cfg.AgentID == sender {
		return nil, nil
	}
	select {
	case b.slots <- struct{}{}:
	default:
		return nil, model.Errorf(model.ErrAgentBusy, "too many agent runs are in progress; try again shortly")
	}
	p.cfg = cfg
	p.run.RunID, p.run.AgentID, p.run.StartedBy, p.run.Owner = ids.New("run"), cfg.AgentID, sender, b.o.Replica
	p.run.ExpiresAt = time.Now().Add(b.o.RunTimeout + 30*time.Second)
	if err := b.o.Store.BeginAgentRun(ctx, p.run); err != nil {
		<-b.slots
		return nil, err
	}
	return p, nil
}

// Retry asks the agent again in the conversation of failed, an agent_error message uid can
// see (a try again after a failure): a new run over the conversation as it is, the question
// not sent twice. Start the plan it returns; an agent busy in the conversation, disabled or not
// for uid is an error.
func (b *Bridge) Retry(ctx context.Context, uid string, failed model.Message) (*Plan, error) {
	if failed.Type != model.TypeAgentError {
		return nil, model.Errorf(model.ErrValidation, "message %d is not an agent's error: only a failed run can be tried again", failed.ID)
	}
	cfg, err := b.o.Store.GetAgent(ctx, failed.Sender)
	if err != nil || !cfg.Enabled {
		if err != nil && model.CodeOf(err) != model.ErrUIDNotFound {
			return nil, err
		}
		return nil, model.Errorf(model.ErrAgentDisabled, "agent %q is not enabled: it cannot be asked again", failed.Sender)
	}
	p := &Plan{b: b, sender: uid, cfg: cfg}
	if failed.ReceiverType == model.ReceiverGroup {
		p.group = failed.ReceiverID
	}
	if err := b.mayUse(ctx, uid, cfg, p.group); err != nil {
		return nil, err
	}
	select {
	case b.slots <- struct{}{}:
	default:
		return nil, model.Errorf(model.ErrAgentBusy, "too many agent runs are in progress; try again shortly")
	}
	p.run = model.AgentRun{ConversationID: failed.ConversationID, RunID: ids.New("run"), AgentID: cfg.AgentID, StartedBy: uid, Owner: b.o.Replica,
		ExpiresAt: time.Now().Add(b.o.RunTimeout + 30*time.Second)}
	if err := b.o.Store.BeginAgentRun(ctx, p.run); err != nil {
		<-b.slots
		return nil, err
	}
	return p, nil
}

// mayUse refuses, with a sentence, a message to an agent (or mentioning it in group) from
// someone outside its audience: the message is not stored, so nothing waits for an answer.
func (b *Bridge) mayUse(ctx context.Context, sender string, cfg model.AgentConfig, group string) error {
	ok, err := b.MayUse(ctx, sender, cfg)
	switch {
	case err != nil:
		return err
	case ok:
		return nil
	case group != "":
		return model.Errorf(model.ErrPermissionDenied, "@%s is not available to you, so your message was not sent: ask an admin for access, or send it without the mention", cfg.AgentID)
	}
	return model.Errorf(model.ErrPermissionDenied, "agent %q is not available to you: ask an admin for access", cfg.AgentID)
}

// MayUse says whether uid may see and use the agent cfg: its audience and, for an agent
// registered by reference, the audience of the Agent's manifest (when the Resolver knows it)
// must both let uid in.
func (b *Bridge) MayUse(ctx context.Context, uid string, cfg model.AgentConfig) (bool, error) {
	audiences := [][]string{cfg.Audience}
	if ar, ok := b.o.Resolver.(AudienceResolver); ok && cfg.AgentRef != "" {
		manifest, err := ar.Audience(ctx, cfg.AgentRef)
		if err != nil {
			return false, fmt.Errorf("failed to read the audience of agent %q: %w", cfg.AgentRef, err)
		}
		audiences = append(audiences, manifest)
	}
	return store.MayUseAgent(ctx, b.o.Store, uid, audiences...)
}

// mentioned returns the first enabled agent mentioned in text that is a member of the group.
func (b *Bridge) mentioned(ctx context.Context, guid, text string) (model.AgentConfig, bool) {
	var members []string
	for _, m := range mention.FindAllStringSubmatch(text, 5) {
		id := m[1] + m[2]
		cfg, err := b.o.Store.GetAgent(ctx, id)
		if err != nil || !cfg.Enabled {
			continue
		}
		if members == nil {
			if members, err = b.o.Store.Members(ctx, model.ConversationID(model.ReceiverGroup, "", guid)); err != nil {
				return cfg, false
			}
		}
		for _, uid := range members {
			if uid == id {
				return cfg, true
			}
		}
	}
	return model.AgentConfig{}, false
}

// Cancel releases the claim of a plan whose message was not stored.
func (p *Plan) Cancel() {
	p.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := p.b.o.Store.EndAgentRun(ctx, p.run.ConversationID, p.run.RunID); err != nil {
			p.b.log.Error(err, "failed to release an agent run", "run", p.run.RunID)
		}
		<-p.b.slots
	})
}

// RunID is the chat-level id of the run (frames and agentic messages carry it).
func (p *Plan) RunID() string { return p.run.RunID }

// Start runs the plan in the background, triggered by the stored message m; ctx carries the
// trace the run's span joins (the request that stored m), not its deadline.
func (p *Plan) Start(ctx context.Context, m model.Message) {
	p.once.Do(func() {
		p.parent = trace.SpanContextFromContext(ctx)
		p.b.wg.Add(1)
		go func() {
			defer p.b.wg.Done()
			defer func() { <-p.b.slots }()
			p.b.execute(p, m)
		}()
	})
}

// OnEvent lets a waiting run see that a message of its conversation was stored (mount it with
// the hub's Observe). It never blocks.
func (b *Bridge) OnEvent(ev model.Event) {
	if ev.Type != model.EventMessageCreated || ev.ConversationID == "" {
		return
	}
	b.mu.Lock()
	ch := b.waiters[ev.ConversationID]
	b.mu.Unlock()
	if ch != nil {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

func (b *Bridge) wait(conv string) (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	b.mu.Lock()
	b.waiters[conv] = ch
	b.mu.Unlock()
	return ch, func() {
		b.mu.Lock()
		if b.waiters[conv] == ch {
			delete(b.waiters, conv)
		}
		b.mu.Unlock()
	}
}

// Client is the bridge's HTTP client for a policy: it never follows redirects (the agent's
// headers must reach the configured URL only), checks every connection's address after DNS
// resolution and bounds dialing and the TLS handshake.
func Client(p egress.Policy) *http.Client {
	c := p.Client(10 * time.Second)
	c.Transport.(*http.Transport).MaxIdleConnsPerHost = 64
	return c
}

var errShuttingDown = errors.New("the chat service is shutting down")
