package api

import (
	"net/http"
	"slices"

	"github.com/labstack/echo/v4"
)

// cors lets the configured browser origins call the API. Clients authenticate with a bearer
// token in a header (never a cookie), so a foreign page gains nothing it could not do with its
// own token; the list still keeps unknown pages from using a user's browser as a client.
// Server routes (apikey) are not for browsers: the header is not allowed cross-origin.
func (a *API) cors() echo.MiddlewareFunc {
	origins := a.opts.CORSOrigins
	any := slices.Contains(origins, "*")
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			origin := c.Request().Header.Get("Origin")
			if origin == "" || (!any && !slices.Contains(origins, origin)) {
				if c.Request().Method == http.MethodOptions {
					return c.NoContent(http.StatusForbidden)
				}
				return next(c)
			}
			h := c.Response().Header()
			h.Add("Vary", "Origin")
			h.Set("Access-Control-Allow-Origin", origin)
			h.Set("Access-Control-Expose-Headers", "X-Agent-Run, Retry-After")
			if c.Request().Method == http.MethodOptions && c.Request().Header.Get("Access-Control-Request-Method") != "" {
				h.Set("Access-Control-Allow-Methods", "GET, POST, PUT, DELETE")
				h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type")
				h.Set("Access-Control-Max-Age", "600")
				return c.NoContent(http.StatusNoContent)
			}
			return next(c)
		}
	}
}
