package server

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

// cors answers browser pre-flight requests and marks allowed cross-origin responses. The
// allowed origins are the agent's spec.endpoint.corsOrigins, else the server's --cors-origins;
// the page's own origin (same host) is always allowed.
//
// A request from a browser page whose origin is not allowed is refused with 403 before it
// reaches the agent: a "simple" cross-origin POST (text/plain) is sent by browsers without a
// pre-flight, and would otherwise spend the model budget even though the page cannot read the
// answer.
func (s *Server) cors(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		origin := req.Header.Get("Origin")
		if origin == "" {
			return next(c)
		}
		h := c.Response().Header()
		h.Add("Vary", "Origin")
		allowed := s.originAllowed(c, origin)
		preflight := req.Method == http.MethodOptions && req.Header.Get("Access-Control-Request-Method") != ""
		if preflight {
			h.Add("Vary", "Access-Control-Request-Method")
			h.Add("Vary", "Access-Control-Request-Headers")
			if !allowed {
				return echo.NewHTTPError(http.StatusForbidden, "Origin not allowed")
			}
			h.Set("Access-Control-Allow-Origin", origin)
			h.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
			// Echo the requested headers: "*" does not cover Authorization in browsers, and the
			// auth headers an agent requires are named by its Secret, not known here.
			if rh := req.Header.Get("Access-Control-Request-Headers"); rh != "" {
				h.Set("Access-Control-Allow-Headers", rh)
			}
			h.Set("Access-Control-Max-Age", "600")
			return c.NoContent(http.StatusNoContent)
		}
		if !allowed {
			return echo.NewHTTPError(http.StatusForbidden, "Origin not allowed")
		}
		h.Set("Access-Control-Allow-Origin", origin)
		h.Set("Access-Control-Expose-Headers", "Retry-After")
		return next(c)
	}
}

func (s *Server) originAllowed(c echo.Context, origin string) bool {
	if sameOrigin(c.Request(), origin) {
		return true
	}
	list := s.opts.CORSOrigins
	id := c.Param("agentId")
	if id == "" {
		id = strings.TrimSpace(c.QueryParam("agentId"))
	}
	if e, ok := s.opts.Registry.Get(id); ok && e.Manifest != nil {
		if ep := e.Manifest.Spec.Endpoint; ep != nil && len(ep.CORSOrigins) > 0 {
			list = list[:0:0]
			for _, o := range ep.CORSOrigins {
				list = append(list, string(o))
			}
		}
	}
	for _, o := range list {
		if o == "*" || strings.EqualFold(strings.TrimSuffix(o, "/"), origin) {
			return true
		}
	}
	return false
}

// sameOrigin reports whether origin is the host the request was sent to (a page served by the
// same server).
func sameOrigin(r *http.Request, origin string) bool {
	_, host, ok := strings.Cut(origin, "://")
	return ok && strings.EqualFold(host, r.Host)
}
