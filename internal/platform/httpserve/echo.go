package httpserve

import (
	"net/netip"

	"github.com/go-logr/logr"
	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"github.com/agentry-dev/agentry/internal/platform/cidr"
)

// EchoOptions configure NewEcho.
type EchoOptions struct {
	// Logger receives recovered panics (with the request's id).
	Logger logr.Logger
	// TrustedProxies are the networks whose X-Forwarded-For names the client; loopback always is.
	TrustedProxies []netip.Prefix
	// ErrorHandler answers errors in the service's error shape.
	ErrorHandler echo.HTTPErrorHandler
}

// NewEcho is the echo instance of every Agentry server: no banner, client addresses from
// ClientIP, a panic answered as a 500 and logged without its stack (which may hold request
// data), and the service's error shape.
func NewEcho(o EchoOptions) *echo.Echo {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.IPExtractor = ClientIP(o.TrustedProxies)
	if o.ErrorHandler != nil {
		e.HTTPErrorHandler = o.ErrorHandler
	}
	e.Use(middleware.RecoverWithConfig(middleware.RecoverConfig{DisablePrintStack: true, LogErrorFunc: func(c echo.Context, err error, _ []byte) error {
		Log(c, o.Logger).Error(err, "panic while serving a request", "route", c.Path())
		return err
	}}))
	return e
}

// ClientIP is the echo IPExtractor of Agentry's servers: the connection's address, or the
// X-Forwarded-For entry a trusted proxy (loopback always, and these networks) added. A
// header from anyone else is ignored, so a client cannot choose the address its rate limits
// and throttles are counted under.
func ClientIP(trusted []netip.Prefix) echo.IPExtractor {
	opts := []echo.TrustOption{echo.TrustLoopback(true), echo.TrustLinkLocal(false), echo.TrustPrivateNet(false)}
	for _, n := range cidr.IPNets(trusted) {
		opts = append(opts, echo.TrustIPRange(n))
	}
	return echo.ExtractIPFromXFFHeader(opts...)
}
