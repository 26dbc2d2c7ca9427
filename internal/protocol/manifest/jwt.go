package manifest

import (
	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/internal/platform/jwtauth"
)

// JWTConfig is the verifier's view of spec.endpoint.auth.jwt: the runtime verifies with it and
// the operator checks it (jwtauth.Config.Check), so both read the manifest alike.
func JWTConfig(cfg *v1alpha1.JWTAuth) jwtauth.Config {
	c := jwtauth.Config{Issuer: cfg.Issuer, JWKSURL: cfg.JWKSURL, Audiences: cfg.Audiences, RequiredClaims: cfg.RequiredClaims}
	if cfg.ClockSkew != nil {
		c.ClockSkew = cfg.ClockSkew.Duration
	}
	return c
}
