// Package api serves the chat service's REST API under /chat/v1 on echo: auth (REST API key,
// per-user bearer tokens, the development Auth Key login), users, groups and their members,
// messages and media, receipts, conversations and moderation. Rules that must hold under
// concurrency live in the store's transactions; this package authenticates, validates input,
// maps errors to the catalogue and wakes the hub after each write.
package api

import (
	"cmp"
	"crypto/rand"
	_ "embed"
	"net/http"
	"net/netip"
	"runtime"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"github.com/labstack/echo/v4"
	"golang.org/x/crypto/bcrypt"

	"github.com/agentry-dev/agentry/chat/bridge"
	"github.com/agentry-dev/agentry/chat/jwtsign"
	"github.com/agentry-dev/agentry/chat/metrics"
	"github.com/agentry-dev/agentry/chat/oidc"
	"github.com/agentry-dev/agentry/chat/store"
	"github.com/agentry-dev/agentry/internal/platform/defaults"
	"github.com/agentry-dev/agentry/internal/platform/egress"
	"github.com/agentry-dev/agentry/internal/platform/httpserve"
	"github.com/agentry-dev/agentry/internal/platform/logwarn"
	"github.com/agentry-dev/agentry/internal/platform/ratelimit"
)

// Prefix is where every route of the API lives.
const Prefix = "/chat/v1"

// DefaultMaxMediaBytes limits uploaded media unless Options say otherwise.
const DefaultMaxMediaBytes = 10 << 20

// maxJSONBytes limits JSON bodies: the largest legitimate one is a message's text and data.
const maxJSONBytes = 1 << 20

// Hub is what the API needs of the WebSocket hub: it serves GET /chat/v1/ws, is woken after
// every committed write so it reads the new events, relays ephemeral typing indicators and
// sends ephemeral frames to every socket (agents.changed).
type Hub interface {
	http.Handler
	Notify()
	Typing(uid, conversationID string, started bool)
	PublishAll(frame []byte)
}

// Options configure the API.
type Options struct {
	Store store.Store
	// Hub serves the WebSocket; nil answers /ws with 503 and skips notifications (tests).
	Hub Hub
	// APIKey is the server-side REST API key (header apikey). Empty refuses every server route.
	APIKey string
	// AuthKey enables the development login as any uid (POST /chat/v1/login); empty = off.
	AuthKey string
	// AppID is checked on login when set.
	AppID string
	// LoginTokenTTL is the lifetime of a token from the development login (POST /login);
	// 0 means it lives until revoked. Callers pass DefaultLoginTokenTTL unless configured.
	LoginTokenTTL time.Duration
	// MaxMediaBytes limits one upload (default DefaultMaxMediaBytes).
	MaxMediaBytes int64
	// MediaDir holds uploaded media (default: a directory under os.TempDir()).
	MediaDir string
	Logger   logr.Logger
	// PasswordCost is the bcrypt cost of group passwords (default bcrypt.DefaultCost; tests
	// lower it).
	PasswordCost int
	// Development accepts http (not only https) agent Deployment URLs (agentry dev).
	Development bool
	// AuthKeyAdmins lets the development login (the Auth Key) sign in as users whose role is
	// admin. Only agentry dev, a loopback playground, sets it: elsewhere whoever holds the Auth
	// Key (a client-side key) could otherwise configure agents.
	AuthKeyAdmins bool
	// CORSOrigins are the browser origins (scheme://host[:port], or "*") allowed to call the
	// API from another origin; empty allows none (same-origin pages need none).
	CORSOrigins []string
	// Bridge runs agents for messages sent to them; nil: messages to agents are only stored.
	Bridge *bridge.Bridge
	// AgentEgress is what the connection test may reach at an admin's Deployment URL: the
	// bridge's policy (internal/platform/egress; the zero Policy allows only public addresses).
	AgentEgress egress.Policy
	// AgentTestTimeout bounds an agent's connection test (default DefaultAgentTestTimeout).
	AgentTestTimeout time.Duration
	// Metrics records requests and stored messages; nil records nothing.
	Metrics *metrics.Metrics
	// TrustedProxies are the networks whose X-Forwarded-For names the client (for the
	// per-address throttle of failed credentials); default loopback only.
	TrustedProxies []netip.Prefix
	// RateLimit is each signed-in user's sustained budget in requests per second on this
	// replica, RateBurst how many may come at once (default DefaultRateBurst); 0 (the zero
	// Options) does not limit. The REST API key is never limited.
	RateLimit float64
	RateBurst int
	// SSO signs users in through an OpenID provider (GET /auth/sso); nil: not offered.
	SSO *oidc.Client
	// SessionTTL is the lifetime of a session from a provider sign-in (default
	// DefaultSessionTTL).
	SessionTTL time.Duration
	// SessionIdleTimeout ends a session (a provider sign-in, or POST /sessions) nobody has
	// used for this long: no request and no socket frame from its client; 0: no idle timeout.
	SessionIdleTimeout time.Duration
	// Signer signs the tokens agents with auth chat-jwt get for each run; its public keys are
	// served at /.well-known/jwks.json (with a discovery document). nil: no chat-jwt agents.
	Signer *jwtsign.Signer
	// ServiceAccount is the chat's own ServiceAccount (namespace/name) whose tokens agents with
	// auth service-account get; empty: no service-account agents.
	ServiceAccount string
}

// API serves the chat routes.
type API struct {
	opts  Options
	media *mediaStore
	// limits holds the users' request budgets (userRate; zero: none) and the throttles of
	// failed credentials per client address and of failed group passwords per user and group.
	limits   *ratelimit.Limiter
	userRate ratelimit.Rate
	// probe and probeCluster are the connection test's clients: for admin URLs, and for
	// in-cluster Agents (agentRef), which may be internal.
	probe, probeCluster *http.Client
	// passwordChecks bounds concurrent bcrypt checks.
	passwordChecks chan struct{}
	// throwawayHash is compared when a password sign-in names nobody with a password, so a
	// wrong uid takes as long as a wrong password.
	throwawayHash func() string
}

// New checks the options and logs the warnings an operator must see at start-up.
func New(opts Options) *API {
	defaults.Positive(&opts.MaxMediaBytes, DefaultMaxMediaBytes)
	opts.PasswordCost = cmp.Or(opts.PasswordCost, bcrypt.DefaultCost)
	if opts.AuthKey != "" {
		logwarn.Warn(opts.Logger, "the chat Auth Key is enabled: anyone who has it can log in as any user. Use it for development only; production clients log in with auth tokens minted with the REST API key")
	}
	if opts.APIKey == "" {
		logwarn.Warn(opts.Logger, "no chat REST API key is configured: server routes (creating users, minting tokens, moderation) are refused")
	}
	defaults.Positive(&opts.RateBurst, DefaultRateBurst)
	defaults.Positive(&opts.SessionTTL, DefaultSessionTTL)
	cluster := opts.AgentEgress
	cluster.AllowInternal = true
	return &API{opts: opts, media: newMediaStore(opts.MediaDir), limits: ratelimit.New(0), userRate: ratelimit.PerSecond(opts.RateLimit, opts.RateBurst),
		probe: bridge.Client(opts.AgentEgress), probeCluster: bridge.Client(cluster),
		// bcrypt takes tens of milliseconds of CPU: at most half the cores check passwords, so
		// a flood of wrong ones cannot take the CPU from everyone else.
		passwordChecks: make(chan struct{}, max(1, runtime.GOMAXPROCS(0)/2)),
		throwawayHash: sync.OnceValue(func() string {
			h, _ := bcrypt.GenerateFromPassword([]byte(rand.Text()), opts.PasswordCost)
			return string(h)
		})}
}

// Mount builds the API and registers its routes on e (agentry dev mounts it beside the runtime).
func Mount(e *echo.Echo, opts Options) *API {
	a := New(opts)
	a.Register(e)
	return a
}

// Handler serves the API alone, as agentry chat does; mounts add other routes (the web app)
// after the API's, on the same error handler.
func (a *API) Handler(mounts ...func(*echo.Echo)) http.Handler {
	e := httpserve.NewEcho(httpserve.EchoOptions{Logger: a.opts.Logger, TrustedProxies: a.opts.TrustedProxies,
		// Outside /chat/v1, answer in the API's error shape too.
		ErrorHandler: func(err error, c echo.Context) { a.writeError(c, err) }})
	a.Register(e)
	for _, m := range mounts {
		m(e)
	}
	return e
}

// Register adds every route under /chat/v1 to e. Errors are answered inside the group, so
// mounting on another server's echo leaves its error handler alone.
func (a *API) Register(e *echo.Echo) {
	observe := httpserve.Observe(httpserve.Observer{Logger: a.opts.Logger, Message: "chat request", Routes: []string{Prefix}, Record: a.record})
	// Clients authenticate with a bearer token in a header (never a cookie), so a foreign page
	// gains nothing it could not do with its own token; the list still keeps unknown pages from
	// using a user's browser as a client. Server routes (apikey) are not for browsers: the
	// header is not allowed cross-origin.
	cors := httpserve.CORS(httpserve.CORSPolicy{Origins: func(echo.Context) []string { return a.opts.CORSOrigins },
		AllowMethods: "GET, POST, PUT, DELETE", AllowHeaders: "Authorization, Content-Type", ExposeHeaders: "X-Agent-Run, Retry-After",
		Refuse: func(c echo.Context) error { return c.NoContent(http.StatusForbidden) }})
	g := e.Group(Prefix, observe, a.errors, cors, rejectNUL)
	user, server, admin := a.requireUser, a.requireAPIKey, a.requireAdmin
	// Pre-flight requests of every route: the CORS middleware answers them.
	g.OPTIONS("/*", func(c echo.Context) error { return c.NoContent(http.StatusNoContent) })

	g.GET("/healthz", a.healthz)
	g.GET("/.well-known/openid-configuration", a.discovery)
	g.GET("/.well-known/jwks.json", a.jwks)
	g.GET("/openapi.yaml", a.openapi, a.requireAny)
	g.GET("/ws", a.ws)
	g.POST("/login", a.login)
	g.GET("/auth/sso", a.ssoStart)
	g.GET("/auth/sso/callback", a.ssoCallback)
	g.POST("/auth/session", a.ssoSession)
	g.POST("/sessions", a.startSession, user)
	g.POST("/auth/password", a.passwordLogin)
	g.POST("/auth/invitation", a.invitation)
	g.POST("/auth/invitation/accept", a.acceptInvitation)
	g.POST("/invitations", a.createInvitation, admin)

	g.POST("/users", a.createUser, a.requireAPIKeyOrAuthKey)
	g.GET("/users", a.listUsers, user)
	g.GET("/users/:uid", a.getUser, user)
	g.PUT("/users/:uid", a.updateUser, server)
	g.GET("/me", a.me, user)
	g.POST("/logout", a.logout, user)
	g.POST("/users/:uid/deactivate", a.setDeactivated(true), admin)
	g.POST("/users/:uid/reactivate", a.setDeactivated(false), admin)
	g.PUT("/users/:uid/role", a.setRole, admin)
	g.POST("/users/:uid/auth_tokens", a.createToken, server)
	g.DELETE("/users/:uid/auth_tokens", a.revokeTokens, server)
	g.DELETE("/users/:uid/auth_tokens/:id", a.revokeToken, server)

	g.POST("/groups", a.createGroup, user)
	g.GET("/groups", a.listGroups, user)
	g.GET("/groups/:guid", a.getGroup, user)
	g.PUT("/groups/:guid", a.updateGroup, user)
	g.DELETE("/groups/:guid", a.deleteGroup, user)
	g.POST("/groups/:guid/join", a.joinGroup, user)
	g.POST("/groups/:guid/leave", a.leaveGroup, user)
	g.GET("/groups/:guid/members", a.listMembers, user)
	g.POST("/groups/:guid/members", a.addMembers, user)
	g.PUT("/groups/:guid/members/:uid", a.changeScope, user)
	g.DELETE("/groups/:guid/members/:uid", a.kickMember, user)
	g.GET("/groups/:guid/bans", a.listBanned, user)
	g.POST("/groups/:guid/bans/:uid", a.banMember, user)
	g.DELETE("/groups/:guid/bans/:uid", a.unbanMember, user)
	g.PUT("/groups/:guid/owner", a.transferOwnership, user)

	g.POST("/messages", a.sendMessage, user)
	g.GET("/messages", a.searchMessages, user)
	g.POST("/messages/media", a.sendMedia, user)
	g.GET("/media/:id", a.getMedia, user)
	g.GET("/messages/:id", a.getMessage, user)
	g.PUT("/messages/:id", a.editMessage, user)
	g.DELETE("/messages/:id", a.deleteMessage, user)
	g.GET("/users/:uid/messages", a.listUserMessages, user)
	g.GET("/groups/:guid/messages", a.listGroupMessages, user)
	g.GET("/messages/:id/reactions", a.listReactions, user)
	g.POST("/messages/:id/reactions/:reaction", a.addReaction, user)
	g.DELETE("/messages/:id/reactions/:reaction", a.removeReaction, user)
	g.POST("/messages/:id/delivered", a.markDelivered, user)
	g.POST("/messages/:id/read", a.markRead, user)
	g.POST("/messages/:id/unread", a.markUnread, user)
	g.GET("/messages/:id/info", a.messageInfo, user)
	g.POST("/messages/:id/flag", a.flagMessage, user)
	g.POST("/typing/start", a.typingStart, user)
	g.POST("/typing/end", a.typingEnd, user)
	g.GET("/conversations", a.listConversations, user)

	g.GET("/moderation/rules", a.getRules, server)
	g.PUT("/moderation/rules", a.putRules, server)
	g.GET("/moderation/flags", a.listFlags, server)
	g.PUT("/moderation/messages/:id", a.moderateMessage, server)

	g.GET("/agents", a.listAgents, admin)
	g.GET("/agent-usage", a.agentUsage, admin)
	g.PUT("/agents/:agentId", a.putAgent, admin)
	g.GET("/agents/:agentId", a.getAgent, admin)
	g.DELETE("/agents/:agentId", a.deleteAgent, admin)
	g.POST("/agents/:agentId/enable", a.enableAgent, admin)
	g.POST("/agents/:agentId/disable", a.disableAgent, admin)
	g.POST("/agents/:agentId/test", a.testAgent, admin)
	g.POST("/agents/:agentId/import", a.importAgent, admin)
	g.GET("/agents/:agentId/profile", a.agentProfile, user)
	g.POST("/agent-runs/:runId/actions/:toolCallId", a.actionResult, user)
	g.POST("/messages/:id/retry", a.retryAgentRun, user)
	g.GET("/approvals/:approvalId", a.getApproval, user)
	g.POST("/approvals/:approvalId/decision", a.decideApproval, user)
	g.GET("/ai", a.aiStatus, user)
	g.PUT("/ai/assistant", a.putAssistant, admin)
	g.DELETE("/ai/assistant", a.deleteAssistant, admin)
	g.POST("/ai/smart-replies", a.smartReplies, user)
	g.POST("/ai/conversation-starters", a.conversationStarters, user)
	g.POST("/messages/:id/translate", a.translateMessage, user)
	g.GET("/agents/:agentId/actions", a.listActions, admin)
	g.PUT("/agents/:agentId/actions/:name", a.putAction, admin)
	g.GET("/agents/:agentId/actions/:name", a.getAction, admin)
	g.DELETE("/agents/:agentId/actions/:name", a.deleteAction, admin)
}

// notify wakes the hub after a committed write, so sockets get its events without waiting for
// the hub's poll.
func (a *API) notify() {
	if a.opts.Hub != nil {
		a.opts.Hub.Notify()
	}
}

func (a *API) healthz(c echo.Context) error {
	if err := a.opts.Store.Ping(c.Request().Context()); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]string{"status": "ok", "storage": a.opts.Store.Kind()})
}

// ws hands the connection to the hub, which authenticates it in the first frame (a token in
// the URL would land in access logs, and browsers cannot set headers on WebSockets).
func (a *API) ws(c echo.Context) error {
	if a.opts.Hub == nil {
		return errUnavailable("real-time events are not enabled on this server")
	}
	a.opts.Hub.ServeHTTP(c.Response(), c.Request())
	return nil
}

//go:embed openapi.yaml
var openapiDoc []byte

// OpenAPI returns the embedded OpenAPI document.
func OpenAPI() []byte { return openapiDoc }

func (a *API) openapi(c echo.Context) error {
	return c.Blob(http.StatusOK, "application/yaml", openapiDoc)
}
