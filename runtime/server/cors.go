package server

import (
	"cmp"
	"strings"

	"github.com/labstack/echo/v4"
)

// corsOrigins are the browser origins allowed to call the request's agent: its
// spec.endpoint.corsOrigins, else the server's --cors-origins (httpserve.CORSPolicy; the
// runtime refuses every request of another origin, see RefuseOthers).
func (s *Server) corsOrigins(c echo.Context) []string {
	id := c.Param("agentId")
	id = cmp.Or(id, strings.TrimSpace(c.QueryParam("agentId")))
	if e, ok := s.opts.Registry.Get(id); ok && e.Manifest != nil {
		if ep := e.Manifest.Spec.Endpoint; ep != nil && len(ep.CORSOrigins) > 0 {
			list := make([]string, 0, len(ep.CORSOrigins))
			for _, o := range ep.CORSOrigins {
				list = append(list, string(o))
			}
			return list
		}
	}
	return s.opts.CORSOrigins
}
