//go:build !agentry_runtime

package cmd

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"github.com/labstack/echo/v4"

	chatapi "github.com/agentry-dev/agentry/chat/api"
	"github.com/agentry-dev/agentry/chat/bridge"
	"github.com/agentry-dev/agentry/chat/hub"
	"github.com/agentry-dev/agentry/chat/jwtsign"
	chatmetrics "github.com/agentry-dev/agentry/chat/metrics"
	"github.com/agentry-dev/agentry/chat/model"
	"github.com/agentry-dev/agentry/chat/store"
	"github.com/agentry-dev/agentry/internal/platform/egress"
	rtmetrics "github.com/agentry-dev/agentry/runtime/metrics"
	"github.com/agentry-dev/agentry/runtime/registry"
	"github.com/agentry-dev/agentry/runtime/secrets"
	"github.com/agentry-dev/agentry/runtime/server"
)

// Development credentials of the chat service in agentry dev. The Auth Key lets anyone who
// reaches the server log in as any uid, which is what a local playground wants and why dev
// listens on loopback only.
const (
	DevChatAppID   = "agentry-dev"
	DevChatAuthKey = "agentry-dev-auth-key"
)

// devChat is the chat service agentry dev runs beside the agents.
type devChat struct {
	store  store.Store
	hub    *hub.Hub
	bridge *bridge.Bridge
	apiKey string
	// issuer is the chat's token issuer URL (agents whose manifest trusts it get chat-jwt).
	issuer string
	stop   context.CancelFunc
	done   chan error
}

// startDevChat opens the chat store, starts the hub and returns the mount for the dev server.
// The REST API key is generated once into dir/chat-api-key (0600), so curl examples can read it;
// the key agent headers are encrypted with likewise into dir/chat-headers-key.
// With web, the embedded web app is mounted at / too. A store without users is seeded
// (seedDevChat) so the app has people to log in as.
func startDevChat(ctx context.Context, log logr.Logger, storage, dir string, web bool, issuer string) (*devChat, func(*echo.Echo), error) {
	key, err := devAPIKey(filepath.Join(dir, "chat-api-key"))
	if err != nil {
		return nil, nil, err
	}
	headersKey, err := devHeadersKey(filepath.Join(dir, "chat-headers-key"))
	if err != nil {
		return nil, nil, err
	}
	st, err := store.OpenWith(ctx, storage, store.Options{HeadersKey: headersKey})
	if err != nil {
		return nil, nil, fmt.Errorf("failed to open chat storage %q: %w", store.Redact(storage), err)
	}
	if seeded, err := seedDevChat(ctx, st); err != nil {
		_ = st.Close()
		return nil, nil, fmt.Errorf("failed to seed the chat service's users: %w", err)
	} else if seeded {
		log.Info("seeded the chat service: users alice, bob, carol and admin (role admin), public group general")
	}
	h := hub.New(hub.Options{Events: st, Authenticate: chatapi.Authenticator(st), Sessions: st, Logger: log, Retention: hub.DefaultRetention, Presence: st.SetPresence})
	// The chat's metrics join the runtime's on the dev server's /metrics.
	m, err := chatmetrics.New(rtmetrics.Registry)
	if err == nil {
		err = chatmetrics.RegisterHub(rtmetrics.Registry, h.Stats)
	}
	if err != nil {
		log.Error(err, "failed to register the chat service's metrics")
	}
	// A loopback playground: its agents (and an admin's local experiments) live on this machine.
	// Link-local and metadata addresses stay refused.
	devEgress := egress.Policy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}}
	// The chat signs its users' tokens (agents with auth chat-jwt), as a production chat with
	// --issuer-url does.
	signer, err := jwtsign.New(ctx, st, issuer, 0)
	if err != nil {
		_ = st.Close()
		return nil, nil, fmt.Errorf("failed to set up the chat's token signing: %w", err)
	}
	br := bridge.New(bridge.Options{Store: st, Publisher: h, Logger: log, Metrics: m, Egress: devEgress, Signer: signer})
	h.Observe(br.OnEvent)
	h.OnReplay(br.Replay)
	hubCtx, stop := context.WithCancel(context.Background())
	dc := &devChat{store: st, hub: h, bridge: br, apiKey: key, issuer: issuer, stop: stop, done: make(chan error, 1)}
	go func() { dc.done <- h.Run(hubCtx) }()
	mount := func(e *echo.Echo) {
		chatapi.Mount(e, chatapi.Options{
			Store: st, Hub: h, APIKey: key, AuthKey: DevChatAuthKey, AppID: DevChatAppID, LoginTokenTTL: chatapi.DefaultLoginTokenTTL,
			MediaDir: filepath.Join(dir, "chat-media"), Logger: log, Development: true, AuthKeyAdmins: true, Bridge: br, Metrics: m,
			RateLimit: chatapi.DefaultRateLimit, RateBurst: chatapi.DefaultRateBurst, AgentEgress: devEgress, Signer: signer,
		})
		if web {
			mountWeb(st, DevChatAppID, DevChatAuthKey, true, nil)(e)
		}
	}
	return dc, mount, nil
}

// close stops the hub (closing its sockets) and the store.
func (d *devChat) close(log logr.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	if err := d.bridge.Close(ctx); err != nil {
		log.Error(err, "agent runs did not stop in time")
	}
	cancel()
	d.stop()
	if err := <-d.done; err != nil && !errors.Is(err, context.Canceled) {
		log.Error(err, "chat hub stopped with an error")
	}
	_ = d.store.Close()
}

func devAPIKey(path string) (string, error) {
	if b, err := os.ReadFile(path); err == nil && len(strings.TrimSpace(string(b))) >= minAPIKeyLen {
		return strings.TrimSpace(string(b)), nil
	}
	buf := make([]byte, 24)
	if _, err := rand.Read(buf); err != nil {
		return "", fmt.Errorf("failed to generate the chat API key: %w", err)
	}
	key := hex.EncodeToString(buf)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", fmt.Errorf("failed to create directory %q: %w", filepath.Dir(path), err)
	}
	if err := os.WriteFile(path, []byte(key+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("failed to write the chat API key to %q: %w", path, err)
	}
	return key, nil
}

// devHeadersKey reads the agent headers key from path, generating 32 random bytes (hex, 0600)
// the first time.
func devHeadersKey(path string) ([]byte, error) {
	if b, err := os.ReadFile(path); err == nil {
		return parseHeadersKey(strings.TrimSpace(string(b)), path)
	}
	buf := make([]byte, 32)
	if _, err := rand.Read(buf); err != nil {
		return nil, fmt.Errorf("failed to generate the chat headers key: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("failed to create directory %q: %w", filepath.Dir(path), err)
	}
	if err := os.WriteFile(path, []byte(hex.EncodeToString(buf)+"\n"), 0o600); err != nil {
		return nil, fmt.Errorf("failed to write the chat headers key to %q: %w", path, err)
	}
	return buf, nil
}

// registerAgents puts the served agents on the chat platform, pointing at this server, the way
// an admin would fill the platform's form from each Agent's spec.platform. A configuration
// that exists keeps what an admin changed (enabled, texts, headers); only its URL follows the
// server's address. Missing frontend actions are added. An agent whose endpoint requires auth
// headers (spec.endpoint.auth.headersSecretRef) gets them from that local Secret on every
// start, so the chat calls it as it demands (stored encrypted, like an admin's). One whose
// spec.endpoint.auth.jwt trusts this chat's issuer is registered with auth chat-jwt for its
// first audience (unless the stored one is another of its audiences), so each person's token
// reaches it without an admin filling the form.
func (d *devChat) registerAgents(ctx context.Context, log logr.Logger, base string, reg *registry.Registry, src secrets.Source) {
	for _, id := range reg.IDs() {
		e, _ := reg.Get(id)
		m := e.Manifest
		cfg := model.AgentConfig{AgentID: id, Provider: model.ProviderAGUI, Name: m.EffectiveDisplayName(), Enabled: true}
		if p := m.Spec.Platform; p != nil {
			cfg.Greeting, cfg.IntroductoryMessage, cfg.SuggestedMessages, cfg.Icon = p.Greeting, p.IntroductoryMessage, p.SuggestedMessages, p.IconURL
			if string(p.Provider) == string(model.ProviderMastra) {
				cfg.Provider = model.ProviderMastra
			}
		}
		if old, err := d.store.GetAgent(ctx, id); err == nil {
			old.DeploymentURL, old.AgentRef = "", ""
			cfg = old
		}
		// What it supports is the agent's to say, as a chat reading its description would learn.
		cfg.Capabilities = model.ParseCapabilities(server.Capabilities(e.Agent))
		cfg.DeploymentURL = base + "/api/agents/" + id + "/ag-ui"
		if cfg.Provider == model.ProviderMastra {
			cfg.DeploymentURL = base + "/api/agents/" + id + "/generate"
		}
		if ep := m.Spec.Endpoint; ep != nil && ep.Auth != nil && ep.Auth.JWT != nil && len(ep.Auth.JWT.Audiences) > 0 && strings.TrimRight(ep.Auth.JWT.Issuer, "/") == d.issuer {
			if cfg.Auth != model.AgentAuthChatJWT || !slices.Contains(ep.Auth.JWT.Audiences, cfg.TokenAudience) {
				cfg.Auth, cfg.TokenAudience = model.AgentAuthChatJWT, ep.Auth.JWT.Audiences[0]
			}
		}
		var headers *map[string]string
		if ep := m.Spec.Endpoint; ep != nil && ep.Auth != nil && ep.Auth.HeadersSecretRef != nil && src != nil {
			name := ep.Auth.HeadersSecretRef.Name
			h, err := src.Secret(name)
			if err != nil || len(h) == 0 {
				log.Error(err, "the agent's endpoint requires auth headers, but their Secret cannot be read: the chat's calls will be refused", "agent", id, "secret", name)
			} else {
				headers = &h
			}
		}
		if _, _, err := d.store.PutAgent(ctx, cfg, headers); err != nil {
			log.Error(err, "failed to register an agent on the chat platform", "agent", id)
			continue
		}
		for _, fa := range e.Agent.FrontendActions {
			if _, err := d.store.GetAction(ctx, id, fa.Name); err == nil {
				continue
			}
			a := model.FrontendAction{AgentID: id, Name: fa.Name, DisplayName: fa.DisplayName, ExecutionText: fa.ExecutionText, Description: fa.Description, Parameters: fa.Parameters}
			a.DisplayName = cmp.Or(a.DisplayName, fa.Name)
			if len(a.Parameters) == 0 {
				a.Parameters = []byte(`{"type":"object","properties":{}}`)
			}
			if _, _, err := d.store.PutAction(ctx, a); err != nil {
				log.Error(err, "failed to register a frontend action on the chat platform", "agent", id, "action", fa.Name)
			}
		}
	}
}
