package store

import (
	"cmp"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agentry-dev/agentry/chat/model"
)

// sealer encrypts agent headers with AES-256-GCM; the agent id is the additional data, so a
// ciphertext copied onto another agent's row does not decrypt.
type sealer struct{ aead cipher.AEAD }

func newSealer(key []byte) (*sealer, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("invalid chat headers key: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("invalid chat headers key: %w", err)
	}
	return &sealer{aead: aead}, nil
}

// seal returns base64(nonce || ciphertext), with a fresh random nonce.
func (s *sealer) seal(agentID string, plain []byte) (string, error) {
	nonce := make([]byte, s.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(s.aead.Seal(nonce, nonce, plain, []byte(agentID))), nil
}

func (s *sealer) open(agentID, sealed string) ([]byte, error) {
	b, err := base64.StdEncoding.DecodeString(sealed)
	if err != nil || len(b) < s.aead.NonceSize() {
		return nil, errors.New("malformed ciphertext")
	}
	n := s.aead.NonceSize()
	return s.aead.Open(nil, b[:n], b[n:], []byte(agentID))
}

const agentColumns = `agent_id, provider, name, icon, greeting, introductory, suggested, deployment_url, headers, enabled, created_us, updated_us, agent_ref, approvers, audience, auth, token_audience, prices, capabilities`

// scanAgent reads a configuration and its sealed headers.
func scanAgent(sc scanner) (model.AgentConfig, string, error) {
	var a model.AgentConfig
	var provider, suggested, sealed, approvers, audience, auth, prices, capabilities string
	var enabled int
	var created, updated int64
	if err := sc.Scan(&a.AgentID, &provider, &a.Name, &a.Icon, &a.Greeting, &a.IntroductoryMessage, &suggested, &a.DeploymentURL, &sealed, &enabled, &created, &updated, &a.AgentRef, &approvers, &audience, &auth, &a.TokenAudience, &prices, &capabilities); err != nil {
		return a, "", err
	}
	if prices != "" {
		a.Prices = &model.AgentPrices{}
		if err := json.Unmarshal([]byte(prices), a.Prices); err != nil {
			return a, "", err
		}
	}
	if capabilities != "" {
		a.Capabilities = &model.AgentCapabilities{}
		if err := json.Unmarshal([]byte(capabilities), a.Capabilities); err != nil {
			return a, "", err
		}
	}
	a.Approvers, a.Audience = []string{}, []string{}
	if err := json.Unmarshal([]byte(approvers), &a.Approvers); err != nil {
		return a, "", err
	}
	if err := json.Unmarshal([]byte(audience), &a.Audience); err != nil {
		return a, "", err
	}
	a.Provider = model.AgentProvider(provider)
	a.Auth = model.AgentAuth(cmp.Or(auth, string(model.AgentAuthHeaders)))
	a.SuggestedMessages = []string{}
	if err := json.Unmarshal([]byte(suggested), &a.SuggestedMessages); err != nil {
		return a, "", err
	}
	a.HasHeaders = sealed != ""
	a.Enabled = enabled == 1
	a.CreatedAt, a.UpdatedAt = fromUS(created), fromUS(updated)
	return a, sealed, nil
}

func getAgent(t *txn, agentID, lock string) (model.AgentConfig, string, error) {
	a, sealed, err := scanAgent(t.row(`SELECT `+agentColumns+` FROM chat_agents WHERE agent_id = $1`+lock, agentID))
	if errors.Is(err, sql.ErrNoRows) {
		return a, "", model.Errorf(model.ErrUIDNotFound, "no agent %q", agentID)
	}
	return a, sealed, err
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// PutAgent implements Agents.
func (s *sqlStore) PutAgent(ctx context.Context, a model.AgentConfig, headers *map[string]string) (model.AgentConfig, bool, error) {
	if a.Approvers == nil {
		a.Approvers = []string{}
	}
	if a.Audience == nil {
		a.Audience = []string{}
	}
	if a.SuggestedMessages == nil {
		a.SuggestedMessages = []string{}
	}
	if err := a.Validate(); err != nil {
		return model.AgentConfig{}, false, err
	}
	replaceHeaders := headers != nil
	newSealed, err := s.sealHeaders(a.AgentID, headers)
	if err != nil {
		return model.AgentConfig{}, false, err
	}
	suggested, _ := json.Marshal(a.SuggestedMessages)
	approvers, _ := json.Marshal(a.Approvers)
	audience, _ := json.Marshal(a.Audience)
	prices := ""
	if a.Prices != nil {
		prices = string(model.MustJSON(a.Prices))
	}
	capabilitiesJSON := func() string {
		if a.Capabilities == nil {
			return ""
		}
		return string(model.MustJSON(a.Capabilities))
	}
	var out model.AgentConfig
	created := false
	err = s.write(ctx, "save agent", func(t *txn) error {
		if err := putAgentUser(t, a); err != nil {
			return err
		}
		old, oldSealed, err := getAgent(t, a.AgentID, t.s.d.forUpdate)
		switch {
		case model.CodeOf(err) == model.ErrUIDNotFound:
			created = true
			a.CreatedAt = t.now
			if !replaceHeaders {
				newSealed = ""
			}
		case err != nil:
			return err
		default:
			a.CreatedAt = old.CreatedAt
			if !replaceHeaders {
				newSealed = oldSealed
			}
			if a.Capabilities == nil {
				a.Capabilities = old.Capabilities
			}
		}
		a.UpdatedAt = t.now
		if created {
			_, err = t.exec(`INSERT INTO chat_agents (`+agentColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)`,
				a.AgentID, string(a.Provider), a.Name, a.Icon, a.Greeting, a.IntroductoryMessage, string(suggested), a.DeploymentURL, newSealed, boolInt(a.Enabled), us(a.CreatedAt), us(a.UpdatedAt), a.AgentRef, string(approvers), string(audience), string(a.Auth), a.TokenAudience, prices, capabilitiesJSON())
		} else {
			_, err = t.exec(`UPDATE chat_agents SET provider = $2, name = $3, icon = $4, greeting = $5, introductory = $6, suggested = $7, deployment_url = $8, headers = $9, enabled = $10, updated_us = $11, agent_ref = $12, approvers = $13, audience = $14, auth = $15, token_audience = $16, prices = $17, capabilities = $18 WHERE agent_id = $1`,
				a.AgentID, string(a.Provider), a.Name, a.Icon, a.Greeting, a.IntroductoryMessage, string(suggested), a.DeploymentURL, newSealed, boolInt(a.Enabled), us(a.UpdatedAt), a.AgentRef, string(approvers), string(audience), string(a.Auth), a.TokenAudience, prices, capabilitiesJSON())
		}
		if err != nil {
			return err
		}
		out, _, err = getAgent(t, a.AgentID, "")
		return err
	})
	if err != nil {
		return model.AgentConfig{}, false, err
	}
	return out, created, nil
}

// sealHeaders encrypts the headers PutAgent is to replace the agent's with; "" for none (nil:
// keep them, the caller's business; empty: remove them).
func (s *sqlStore) sealHeaders(agentID string, headers *map[string]string) (string, error) {
	if headers == nil || len(*headers) == 0 {
		return "", nil
	}
	if err := model.ValidateHeaders(*headers); err != nil {
		return "", err
	}
	if s.headers == nil {
		return "", model.Errorf(model.ErrValidation, "headers cannot be stored: the server has no headers key (AGENTRY_CHAT_HEADERS_KEY)")
	}
	plain, err := json.Marshal(*headers)
	if err != nil {
		return "", err
	}
	sealed, err := s.headers.seal(agentID, plain)
	if err != nil {
		return "", fail("encrypt agent headers", err)
	}
	return sealed, nil
}

// putAgentUser creates the agent's user, or renames it; a person holding the uid keeps it.
func putAgentUser(t *txn, a model.AgentConfig) error {
	res, err := t.exec(`INSERT INTO chat_users (`+userColumns+`) VALUES ($1, $2, $3, '', $4, '', $5) ON CONFLICT (uid) DO NOTHING`,
		a.AgentID, a.Name, a.Icon, string(model.UserKindAgent), us(t.now))
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n > 0 {
		return err
	}
	u, err := getUser(t, a.AgentID)
	if err != nil {
		return err
	}
	if u.Kind != model.UserKindAgent {
		return model.Errorf(model.ErrUIDExists, "uid %q belongs to a user who is not an agent", a.AgentID)
	}
	_, err = t.exec(`UPDATE chat_users SET name = $2, avatar = $3 WHERE uid = $1`, a.AgentID, a.Name, a.Icon)
	return err
}

// GetAgent implements Agents.
func (s *sqlStore) GetAgent(ctx context.Context, agentID string) (model.AgentConfig, error) {
	var a model.AgentConfig
	err := s.read(ctx, "read agent", func(t *txn) (err error) {
		a, _, err = getAgent(t, agentID, "")
		return err
	})
	return a, err
}

// ListAgents implements Agents, in agent id order.
func (s *sqlStore) ListAgents(ctx context.Context) ([]model.AgentConfig, error) {
	var out []model.AgentConfig
	err := s.read(ctx, "list agents", func(t *txn) (err error) {
		out, err = queryAll(t, func(sc scanner) (model.AgentConfig, error) {
			a, _, err := scanAgent(sc)
			return a, err
		}, `SELECT `+agentColumns+` FROM chat_agents ORDER BY agent_id`)
		return err
	})
	return out, err
}

// SetAgentEnabled implements Agents.
func (s *sqlStore) SetAgentEnabled(ctx context.Context, agentID string, enabled bool) (model.AgentConfig, error) {
	var a model.AgentConfig
	err := s.write(ctx, "enable agent", func(t *txn) error {
		err := t.execOne(model.Errorf(model.ErrUIDNotFound, "no agent %q", agentID),
			`UPDATE chat_agents SET enabled = $2, updated_us = $3 WHERE agent_id = $1`, agentID, boolInt(enabled), us(t.now))
		if err != nil {
			return err
		}
		a, _, err = getAgent(t, agentID, "")
		return err
	})
	return a, err
}

// DeleteAgent implements Agents.
func (s *sqlStore) DeleteAgent(ctx context.Context, agentID string) error {
	return s.write(ctx, "delete agent", func(t *txn) error {
		if err := t.execOne(model.Errorf(model.ErrUIDNotFound, "no agent %q", agentID), `DELETE FROM chat_agents WHERE agent_id = $1`, agentID); err != nil {
			return err
		}
		_, err := t.exec(`DELETE FROM chat_agent_actions WHERE agent_id = $1`, agentID)
		return err
	})
}

// AgentHeaders implements Agents.
func (s *sqlStore) AgentHeaders(ctx context.Context, agentID string) (map[string]string, error) {
	var sealed string
	err := s.read(ctx, "read agent headers", func(t *txn) (err error) {
		_, sealed, err = getAgent(t, agentID, "")
		return err
	})
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	if sealed == "" {
		return out, nil
	}
	if s.headers == nil {
		return nil, unavailable("decrypt agent headers", errors.New("the server has no headers key"))
	}
	plain, err := s.headers.open(agentID, sealed)
	if err != nil {
		// Never the ciphertext or key in the error: only that the key does not match.
		return nil, unavailable("decrypt agent headers", errors.New("the headers key does not decrypt them (was the key changed?)"))
	}
	if err := json.Unmarshal(plain, &out); err != nil {
		return nil, unavailable("decode agent headers", errors.New("malformed"))
	}
	return out, nil
}

const actionColumns = `agent_id, name, display_name, execution_text, description, parameters, created_us, updated_us`

func scanAction(sc scanner) (model.FrontendAction, error) {
	var f model.FrontendAction
	var params string
	var created, updated int64
	if err := sc.Scan(&f.AgentID, &f.Name, &f.DisplayName, &f.ExecutionText, &f.Description, &params, &created, &updated); err != nil {
		return f, err
	}
	f.Parameters = json.RawMessage(params)
	f.CreatedAt, f.UpdatedAt = fromUS(created), fromUS(updated)
	return f, nil
}

func getAction(t *txn, agentID, name string) (model.FrontendAction, error) {
	f, err := scanAction(t.row(`SELECT `+actionColumns+` FROM chat_agent_actions WHERE agent_id = $1 AND name = $2`, agentID, name))
	if errors.Is(err, sql.ErrNoRows) {
		return f, model.Errorf(model.ErrActionNotFound, "agent %q has no frontend action %q", agentID, name)
	}
	return f, err
}

// PutAction implements Agents: creates or replaces the agent's action of that name.
func (s *sqlStore) PutAction(ctx context.Context, f model.FrontendAction) (model.FrontendAction, bool, error) {
	if err := f.Validate(); err != nil {
		return model.FrontendAction{}, false, err
	}
	var out model.FrontendAction
	created := false
	err := s.write(ctx, "save frontend action", func(t *txn) error {
		if _, _, err := getAgent(t, f.AgentID, t.s.d.forShare); err != nil {
			return err
		}
		res, err := t.exec(`UPDATE chat_agent_actions SET display_name = $3, execution_text = $4, description = $5, parameters = $6, updated_us = $7 WHERE agent_id = $1 AND name = $2`,
			f.AgentID, f.Name, f.DisplayName, f.ExecutionText, f.Description, string(f.Parameters), us(t.now))
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			created = true
			res, err = t.exec(`INSERT INTO chat_agent_actions (`+actionColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $7) ON CONFLICT (agent_id, name) DO NOTHING`,
				f.AgentID, f.Name, f.DisplayName, f.ExecutionText, f.Description, string(f.Parameters), us(t.now))
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil {
				return err
			} else if n == 0 {
				return model.Errorf(model.ErrUnavailable, "the action was saved concurrently; retry")
			}
		}
		out, err = getAction(t, f.AgentID, f.Name)
		return err
	})
	if err != nil {
		return model.FrontendAction{}, false, err
	}
	return out, created, nil
}

// GetAction implements Agents.
func (s *sqlStore) GetAction(ctx context.Context, agentID, name string) (model.FrontendAction, error) {
	var f model.FrontendAction
	err := s.read(ctx, "read frontend action", func(t *txn) (err error) {
		f, err = getAction(t, agentID, name)
		return err
	})
	return f, err
}

// ListActions implements Agents, in name order.
func (s *sqlStore) ListActions(ctx context.Context, agentID string) ([]model.FrontendAction, error) {
	var out []model.FrontendAction
	err := s.read(ctx, "list frontend actions", func(t *txn) (err error) {
		if _, _, err = getAgent(t, agentID, ""); err != nil {
			return err
		}
		out, err = queryAll(t, scanAction, `SELECT `+actionColumns+` FROM chat_agent_actions WHERE agent_id = $1 ORDER BY name`, agentID)
		return err
	})
	return out, err
}

// DeleteAction implements Agents.
func (s *sqlStore) DeleteAction(ctx context.Context, agentID, name string) error {
	return s.write(ctx, "delete frontend action", func(t *txn) error {
		res, err := t.exec(`DELETE FROM chat_agent_actions WHERE agent_id = $1 AND name = $2`, agentID, name)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			if _, _, err := getAgent(t, agentID, ""); err != nil {
				return err
			}
			return model.Errorf(model.ErrActionNotFound, "agent %q has no frontend action %q", agentID, name)
		}
		return nil
	})
}
