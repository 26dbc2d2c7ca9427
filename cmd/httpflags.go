package cmd

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/pflag"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/agentry-dev/agentry/internal/platform/cidr"
	"github.com/agentry-dev/agentry/internal/platform/httpserve"
	"github.com/agentry-dev/agentry/runtime/server"
)

// httpFlags are the HTTP exposure settings serve and dev share.
type httpFlags struct {
	maxBodyBytes   int64
	corsOrigins    []string
	trustedProxies []string
	drainTimeout   time.Duration
	runTimeout     time.Duration
	maxConnsPerIP  int
}

func (f *httpFlags) register(fs *pflag.FlagSet) {
	fs.Int64Var(&f.maxBodyBytes, "max-body-bytes", server.DefaultMaxBodyBytes, "request body limit in bytes")
	fs.StringSliceVar(&f.corsOrigins, "cors-origins", splitEnv("AGENTRY_CORS_ORIGINS"),
		`browser origins allowed to call agents that set no spec.endpoint.corsOrigins (e.g. https://chat.example.com, or "*"); default none`)
	fs.StringSliceVar(&f.trustedProxies, "trusted-proxies", splitEnv("AGENTRY_TRUSTED_PROXIES"),
		"CIDRs of proxies whose X-Forwarded-For is believed for rate limiting (loopback always is)")
	fs.DurationVar(&f.drainTimeout, "drain-timeout", server.DefaultDrainTimeout,
		"at shutdown, how long open streams may finish before they are ended with RUN_ERROR")
	fs.DurationVar(&f.runTimeout, "run-timeout", server.DefaultRunTimeout,
		"how long an AG-UI run may go on, followed by a client or not (a client that leaves does not end it)")
	registerConnsPerIP(fs, &f.maxConnsPerIP)
}

// registerConnsPerIP adds --max-conns-per-ip (serve, dev and chat).
func registerConnsPerIP(fs *pflag.FlagSet, v *int) {
	fs.IntVar(v, "max-conns-per-ip", envInt("AGENTRY_MAX_CONNS_PER_IP", httpserve.DefaultMaxConnsPerIP),
		"connections one client address may hold open (more are closed at once); behind a proxy every client shares its address: raise it, or 0 to turn the cap off (env AGENTRY_MAX_CONNS_PER_IP)")
}

// connsPerIP maps the flag to httpserve.Limits.MaxConnsPerIP (whose 0 means the default).
func connsPerIP(n int) int {
	if n <= 0 {
		return -1
	}
	return n
}

func (f *httpFlags) options() (server.Options, error) {
	proxies, err := cidr.Parse(f.trustedProxies)
	if err != nil {
		return server.Options{}, fmt.Errorf("invalid --trusted-proxies: %w", err)
	}
	for _, o := range f.corsOrigins {
		if o != "*" && !strings.HasPrefix(o, "http://") && !strings.HasPrefix(o, "https://") {
			return server.Options{}, fmt.Errorf("invalid --cors-origins entry %q: use scheme://host[:port] or *", o)
		}
	}
	return server.Options{MaxBodyBytes: f.maxBodyBytes, CORSOrigins: f.corsOrigins, TrustedProxies: proxies, DrainTimeout: f.drainTimeout, RunTimeout: f.runTimeout,
		Limits: httpserve.Limits{MaxConnsPerIP: connsPerIP(f.maxConnsPerIP), MaxBody: f.maxBodyBytes},
		// In a pod its own API server; elsewhere KUBECONFIG's (agents that accept
		// ServiceAccount tokens only).
		ClusterConfig: ctrl.GetConfig}, nil
}

func splitEnv(key string) []string {
	v := strings.TrimSpace(envOr(key, ""))
	if v == "" {
		return nil
	}
	return strings.Split(v, ",")
}
