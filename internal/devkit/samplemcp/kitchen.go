//go:build !agentry_runtime

// Package samplemcp is the MCP server `agentry dev` runs for the sample sous-chef agent
// (config/samples-mcp): kitchen unit conversions, written with the official MCP Go SDK, so
// MCP tools work offline like the other samples.
package samplemcp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultAddr is where agentry dev serves it; config/samples-mcp/mcpserver_kitchen.yaml points here.
const DefaultAddr = "127.0.0.1:4112"

// ConvertInput is convert-units' input.
type ConvertInput struct {
	Quantity float64 `json:"quantity" jsonschema:"how much, e.g. 2"`
	From     string  `json:"from" jsonschema:"the unit it is in: g, kg, oz, lb, ml, l, cup, tbsp or tsp"`
	To       string  `json:"to" jsonschema:"the unit wanted: g, kg, oz, lb, ml, l, cup, tbsp or tsp"`
}

// ConvertOutput is convert-units' structured result.
type ConvertOutput struct {
	Quantity float64 `json:"quantity"`
	Unit     string  `json:"unit"`
	Text     string  `json:"text"`
}

// units maps a unit to its dimension and its size in grams or millilitres.
var units = map[string]struct {
	dim  string
	size float64
}{
	"g": {"mass", 1}, "kg": {"mass", 1000}, "oz": {"mass", 28.349523125}, "lb": {"mass", 453.59237},
	"ml": {"volume", 1}, "l": {"volume", 1000}, "cup": {"volume", 236.5882365}, "tbsp": {"volume", 14.78676478125}, "tsp": {"volume", 4.92892159375},
}

var aliases = map[string]string{
	"gram": "g", "grams": "g", "kilogram": "kg", "kilograms": "kg", "ounce": "oz", "ounces": "oz",
	"pound": "lb", "pounds": "lb", "lbs": "lb", "millilitre": "ml", "millilitres": "ml", "milliliter": "ml",
	"milliliters": "ml", "litre": "l", "litres": "l", "liter": "l", "liters": "l", "cups": "cup",
	"tablespoon": "tbsp", "tablespoons": "tbsp", "teaspoon": "tsp", "teaspoons": "tsp",
}

func unit(s string) (string, error) {
	u := strings.ToLower(strings.TrimSpace(s))
	if a, ok := aliases[u]; ok {
		u = a
	}
	if _, ok := units[u]; !ok {
		return "", fmt.Errorf("unknown unit %q: use g, kg, oz, lb, ml, l, cup, tbsp or tsp", s)
	}
	return u, nil
}

// Convert converts between kitchen units of the same dimension (mass or volume).
func Convert(in ConvertInput) (ConvertOutput, error) {
	from, err := unit(in.From)
	if err != nil {
		return ConvertOutput{}, err
	}
	to, err := unit(in.To)
	if err != nil {
		return ConvertOutput{}, err
	}
	if units[from].dim != units[to].dim {
		return ConvertOutput{}, fmt.Errorf("cannot convert %s (a %s) to %s (a %s) without the ingredient's density", from, units[from].dim, to, units[to].dim)
	}
	if in.Quantity < 0 || math.IsNaN(in.Quantity) || math.IsInf(in.Quantity, 0) {
		return ConvertOutput{}, errors.New("quantity must be a non-negative number")
	}
	q := math.Round(in.Quantity*units[from].size/units[to].size*100) / 100
	return ConvertOutput{Quantity: q, Unit: to, Text: fmt.Sprintf("%g %s is %g %s", in.Quantity, spoken(from, in.Quantity), q, spoken(to, q))}, nil
}

// spoken is a unit as a sentence says it for quantity: symbols stay (2 ml, 1 lb), cups count.
func spoken(unit string, quantity float64) string {
	if unit == "cup" && quantity != 1 {
		return "cups"
	}
	return unit
}

// NewServer returns the kitchen MCP server.
func NewServer(version string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "agentry-kitchen", Title: "Agentry sample kitchen tools", Version: version}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "convert-units", Description: "Converts a kitchen quantity between units of mass (g, kg, oz, lb) or of volume (ml, l, cup, tbsp, tsp)."},
		func(_ context.Context, _ *mcp.CallToolRequest, in ConvertInput) (*mcp.CallToolResult, ConvertOutput, error) {
			out, err := Convert(in)
			return nil, out, err // an error is a tool error the model sees
		})
	return s
}

// Serve serves the kitchen server over streamable HTTP at http://<addr>/mcp until Close.
func Serve(addr, version string) (*http.Server, string, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, "", fmt.Errorf("failed to listen on %q: %w", addr, err)
	}
	s := NewServer(version)
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return srv, "http://" + ln.Addr().String() + "/mcp", nil
}
