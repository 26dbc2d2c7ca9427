package api

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/agentry-dev/agentry/chat/model"
)

// The chat as an issuer of the tokens it signs for its users (agents with auth chat-jwt): a
// discovery document, so an agent configures the issuer URL alone, and the public keys. Both are
// public: they hold nothing secret, and agents fetch them without credentials.

func (a *API) discovery(c echo.Context) error {
	if a.opts.Signer == nil {
		return model.Errorf(model.ErrNotFound, "this chat signs no tokens (start it with --issuer-url)")
	}
	iss := a.opts.Signer.Issuer()
	c.Response().Header().Set("Cache-Control", "public, max-age=300")
	return c.JSON(http.StatusOK, map[string]any{
		"issuer":                                iss,
		"jwks_uri":                              iss + "/.well-known/jwks.json",
		"id_token_signing_alg_values_supported": []string{"ES256"},
		"subject_types_supported":               []string{"public"},
		"response_types_supported":              []string{"id_token"},
	})
}

func (a *API) jwks(c echo.Context) error {
	if a.opts.Signer == nil {
		return model.Errorf(model.ErrNotFound, "this chat signs no tokens (start it with --issuer-url)")
	}
	set, err := a.opts.Signer.KeySet(c.Request().Context())
	if err != nil {
		return err
	}
	// Short: a key made by another replica is published within minutes (agents fetch again
	// for an unknown key id anyway).
	c.Response().Header().Set("Cache-Control", "public, max-age=60")
	return c.JSON(http.StatusOK, set)
}
