package httpserve

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

// CORSPolicy is one service's answer to browsers on other origins. Origins compare one way in
// every service: case-insensitively, a trailing "/" ignored, "*" for any; the page's own
// origin (the host the request was sent to) is always allowed.
type CORSPolicy struct {
	// Origins are the allowed origins for this request (the runtime's depend on the agent).
	Origins func(c echo.Context) []string
	// RefuseOthers answers 403 to every request from a browser page of an origin not allowed,
	// not only to its pre-flight. The runtime sets it: a "simple" cross-origin POST
	// (text/plain) is sent without a pre-flight and would spend the model budget although the
	// page cannot read the answer. The chat service does not: its clients authenticate with a
	// bearer token in a header, which a foreign page can only send after a pre-flight.
	RefuseOthers bool
	// AllowMethods and ExposeHeaders are answered as they are; AllowHeaders too, or when empty
	// the headers the pre-flight asks for are echoed ("*" does not cover Authorization).
	AllowMethods, AllowHeaders, ExposeHeaders string
	// Refuse answers a refused request in the service's shape.
	Refuse func(c echo.Context) error
}

// CORS answers pre-flight requests and marks allowed cross-origin responses.
func CORS(p CORSPolicy) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			origin := req.Header.Get("Origin")
			if origin == "" {
				return next(c)
			}
			h := c.Response().Header()
			h.Add("Vary", "Origin")
			allowed := p.allows(c, origin)
			if req.Method == http.MethodOptions && req.Header.Get("Access-Control-Request-Method") != "" {
				h.Add("Vary", "Access-Control-Request-Method")
				h.Add("Vary", "Access-Control-Request-Headers")
				if !allowed {
					return p.Refuse(c)
				}
				h.Set("Access-Control-Allow-Origin", origin)
				h.Set("Access-Control-Allow-Methods", p.AllowMethods)
				if allow := p.AllowHeaders; allow != "" {
					h.Set("Access-Control-Allow-Headers", allow)
				} else if rh := req.Header.Get("Access-Control-Request-Headers"); rh != "" {
					h.Set("Access-Control-Allow-Headers", rh)
				}
				h.Set("Access-Control-Max-Age", "600")
				return c.NoContent(http.StatusNoContent)
			}
			if !allowed {
				if p.RefuseOthers {
					return p.Refuse(c)
				}
				return next(c)
			}
			h.Set("Access-Control-Allow-Origin", origin)
			h.Set("Access-Control-Expose-Headers", p.ExposeHeaders)
			return next(c)
		}
	}
}

func (p CORSPolicy) allows(c echo.Context, origin string) bool {
	if _, host, ok := strings.Cut(origin, "://"); ok && strings.EqualFold(host, c.Request().Host) {
		return true
	}
	for _, o := range p.Origins(c) {
		if o == "*" || strings.EqualFold(strings.TrimSuffix(o, "/"), origin) {
			return true
		}
	}
	return false
}
