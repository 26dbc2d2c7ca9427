package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// The auth cost: the same agent without auth, behind a headers Secret and behind bearer JWTs
// (RS256, as identity providers sign), on one runtime; CPU per request of each.
const (
	benchIssuer   = "https://issuer.bench.example.com"
	benchAudience = "https://agents.bench.example.com/bench-jwt"
	staticHeader  = "Bearer bench-static-secret-0123456789"
)

func authManifests(jwksURL string) string {
	agent := func(name, auth string) string {
		return fmt.Sprintf(`---
apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: %s}
spec:
  instructions: You answer briefly.
  model: {name: scripted, maxRetries: 0}
  endpoint:
    rateLimit: {requestsPerMinute: 0, userRequestsPerMinute: 0}
    auth: %s
`, name, auth)
	}
	return agent("bench-headers", "{headersSecretRef: {name: bench-auth}}") +
		agent("bench-jwt", fmt.Sprintf("{jwt: {issuer: %q, jwksURL: %q, audiences: [%q]}}", benchIssuer, jwksURL, benchAudience))
}

// benchIssuerKeys serves a key set on loopback and returns its URL, a token signed with its RSA
// key (RS256, as identity providers sign, sent again and again) and fresh tokens signed with its
// EC key (ES256, as the chat signs: one per person and conversation).
func benchIssuerKeys() (jwksURL, token string, fresh []string, err error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return "", "", nil, err
	}
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", "", nil, err
	}
	set := jose.JSONWebKeySet{Keys: []jose.JSONWebKey{
		{Key: &key.PublicKey, KeyID: "bench-rsa", Algorithm: string(jose.RS256), Use: "sig"},
		{Key: &ec.PublicKey, KeyID: "bench-ec", Algorithm: string(jose.ES256), Use: "sig"},
	}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", "", nil, err
	}
	go func() {
		_ = http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _ = json.NewEncoder(w).Encode(set) }))
	}()
	sign := func(alg jose.SignatureAlgorithm, k any, kid, subject string) (string, error) {
		signer, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: jose.JSONWebKey{Key: k, KeyID: kid}}, (&jose.SignerOptions{}).WithType("JWT"))
		if err != nil {
			return "", err
		}
		now := time.Now()
		return jwt.Signed(signer).Claims(jwt.Claims{Issuer: benchIssuer, Subject: subject, Audience: jwt.Audience{benchAudience},
			IssuedAt: jwt.NewNumericDate(now), Expiry: jwt.NewNumericDate(now.Add(24 * time.Hour))}).Serialize()
	}
	if token, err = sign(jose.RS256, key, "bench-rsa", "bench-user"); err != nil {
		return "", "", nil, err
	}
	fresh = make([]string, freshTokens)
	for i := range fresh {
		if fresh[i], err = sign(jose.ES256, ec, "bench-ec", fmt.Sprint("bench-user-", i)); err != nil {
			return "", "", nil, err
		}
	}
	return "http://" + ln.Addr().String() + "/jwks", token, fresh, nil
}

// freshTokens bounds the distinct tokens the fresh row sends (more than its requests).
const freshTokens = 40000

// writeAuthConfig writes config-auth (the bench agent, and the same behind headers and behind
// JWTs) and the headers Secret; the other runtimes keep config, which an earlier version reads.
func writeAuthConfig(dir string) (token string, fresh []string, err error) {
	jwksURL, token, fresh, err := benchIssuerKeys()
	if err != nil {
		return "", nil, err
	}
	if err := os.MkdirAll(filepath.Join(dir, "config-auth"), 0o700); err != nil {
		return "", nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "config-auth", "agents.yaml"), []byte(manifest+authManifests(jwksURL)), 0o600); err != nil {
		return "", nil, err
	}
	if err := os.MkdirAll(filepath.Join(dir, "secrets", "bench-auth"), 0o700); err != nil {
		return "", nil, err
	}
	return token, fresh, os.WriteFile(filepath.Join(dir, "secrets", "bench-auth", "Authorization"), []byte(staticHeader), 0o600)
}

// authCost measures CPU per AG-UI request of the three agents on s at concurrency c, in rounds
// that change their order, and prints the median of each against no auth.
func authCost(client *http.Client, s server, token string, fresh []string, body string, c, rounds int, d time.Duration) {
	type kind struct {
		name, agent string
		header      func() string
	}
	fixed := func(v string) func() string { return func() string { return v } }
	var next atomic.Int64
	kinds := []kind{{"no auth", "bench", nil}, {"headers Secret", "bench-headers", fixed(staticHeader)},
		{"bearer JWT (RS256, the same token again: remembered)", "bench-jwt", fixed("Bearer " + token)},
		{"bearer JWT (ES256, a new token every request: verified each time)", "bench-jwt", func() string {
			return "Bearer " + fresh[int(next.Add(1))%len(fresh)]
		}}}
	fmt.Printf("\nAuth cost: the same agent on one runtime without auth, behind a headers Secret and behind bearer JWTs, AG-UI at c=%d,\n", c)
	fmt.Printf("%d rounds of %s each in a changing order; median (10th–90th percentile) of the rounds' CPU per request against no auth\n\n", rounds, d)
	fmt.Println("| auth | CPU per request | vs no auth | req/s | errors |")
	fmt.Println("|---|---|---|---|---|")
	perReq := make([][]float64, len(kinds))
	ratio := make([][]float64, len(kinds))
	rps := make([][]float64, len(kinds))
	errors := make([]int, len(kinds))
	for r := 0; r < rounds; r++ {
		cpu := make([]float64, len(kinds))
		for i := range kinds {
			k := (r + i) % len(kinds)
			c0 := cpuTime(s.pid)
			lat, errs, el := loadWith(client, "http://"+s.addr+"/api/agents/"+kinds[k].agent+"/ag-ui", `"type":"RUN_FINISHED"`, body, kinds[k].header, c, d)
			used := cpuTime(s.pid) - c0
			errors[k] += errs
			if len(lat) > 0 {
				cpu[k] = float64(used.Microseconds()) / float64(len(lat))
				rps[k] = append(rps[k], float64(len(lat))/el.Seconds())
			}
		}
		for k := range kinds {
			perReq[k] = append(perReq[k], cpu[k])
			if cpu[0] > 0 {
				ratio[k] = append(ratio[k], cpu[k]/cpu[0])
			}
		}
	}
	for k, kd := range kinds {
		fmt.Printf("| %s | %.0f µs | %s | %.0f | %d |\n", kd.name, median(perReq[k]), spread(ratio[k]), median(rps[k]), errors[k])
	}
	verdict := func(r float64) string {
		if r > 1.05 {
			return "NOT met"
		}
		return "met"
	}
	fmt.Printf("\nGoal: JWT validation costs under 5 %% of the runtime's CPU per request at c=%d: a caller's repeated token %.3f× no auth (%s); a new token on every request %.3f× (%s)\n",
		c, median(ratio[2]), verdict(median(ratio[2])), median(ratio[3]), verdict(median(ratio[3])))
}
