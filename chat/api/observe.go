package api

import (
	"time"

	"github.com/go-logr/logr"
	"github.com/labstack/echo/v4"

	"github.com/agentry-dev/agentry/internal/platform/httpserve"
)

// HeaderRequestID carries a request's id, answered on every response (httpserve.Observe).
const HeaderRequestID = httpserve.HeaderRequestID

// log is the API's logger with the request's id.
func (a *API) log(c echo.Context) logr.Logger { return httpserve.Log(c, a.opts.Logger) }

// record counts a request in the chat's metrics (the socket's route apart).
func (a *API) record(c echo.Context, route string, status int, d time.Duration) {
	a.opts.Metrics.Request(c.Request().Method, route, status, d, route == Prefix+"/ws")
}
