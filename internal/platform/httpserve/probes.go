package httpserve

import (
	"context"
	"encoding/json"
	"net/http"
	"time"
)

// probeTimeout bounds one readiness check: a dependency that hangs is not ready.
const probeTimeout = 5 * time.Second

// Unavailable names a dependency that is down: never its error text, which may hold hosts
// and addresses (the service logs it).
type Unavailable struct {
	Dependency string   `json:"dependency"`
	Kind       string   `json:"kind"`
	Agents     []string `json:"agents,omitempty"`
}

// Healthz answers liveness: the process serves.
func Healthz(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, `{"status":"ok"}`)
}

// Readyz answers readiness: 200 {"status":"ok", …ok()} when check finds nothing down, else 503
// {"status":"unavailable","unavailable":[…]}.
func Readyz(check func(context.Context) []Unavailable, ok func() map[string]any) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), probeTimeout)
		defer cancel()
		body := map[string]any{"status": "ok"}
		status := http.StatusOK
		if down := check(ctx); len(down) > 0 {
			body = map[string]any{"status": "unavailable", "unavailable": down}
			status = http.StatusServiceUnavailable
		} else if ok != nil {
			for k, v := range ok() {
				body[k] = v
			}
		}
		b, _ := json.Marshal(body)
		writeJSON(w, status, string(b))
	}
}
