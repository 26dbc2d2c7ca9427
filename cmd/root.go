// Package cmd holds the agentry command line: one binary, one sub-command per role.
package cmd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	"github.com/spf13/cobra"

	"github.com/agentry-dev/agentry/internal/platform/telemetry"
)

// Version is set at build time with -ldflags "-X github.com/agentry-dev/agentry/cmd.Version=…".
var Version = "dev"

type globalFlags struct {
	logLevel  string
	logFormat string
}

// Execute runs the command line and returns the exit code.
func Execute() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	stopWithParent()
	root := newRootCommand()
	err := root.ExecuteContext(ctx)
	if tracing.shutdown != nil {
		flush, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if serr := tracing.shutdown(flush); serr != nil {
			fmt.Fprintln(os.Stderr, "Warning: failed to flush traces:", serr)
		}
		cancel()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		return 1
	}
	return 0
}

// tracing is the process's OpenTelemetry setup (off unless OTEL_* says where to export).
var tracing struct{ shutdown func(context.Context) error }

// services name the processes in traces (OTEL_SERVICE_NAME wins).
var services = map[string]string{"serve": "agentry-runtime", "chat": "agentry-chat", "operator": "agentry-operator", "dev": "agentry-dev"}

func newRootCommand() *cobra.Command {
	g := &globalFlags{}
	root := &cobra.Command{
		Use:           "agentry",
		Short:         "Run conversational AI agents on Kubernetes and connect them to chat platforms",
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			service, ok := services[cmd.Name()]
			if !ok || tracing.shutdown != nil {
				return nil
			}
			shutdown, err := telemetry.Setup(cmd.Context(), service, Version)
			if err != nil {
				return err
			}
			tracing.shutdown = shutdown
			return nil
		},
	}
	root.PersistentFlags().StringVar(&g.logLevel, "log-level", envOr("AGENTRY_LOG_LEVEL", "info"), "log level: debug, info, warn or error")
	root.PersistentFlags().StringVar(&g.logFormat, "log-format", envOr("AGENTRY_LOG_FORMAT", "text"), "log format: text or json")
	root.AddCommand(newServeCommand(g), newVersionCommand())
	for _, extra := range extraCommands {
		root.AddCommand(extra(g))
	}
	return root
}

// extraCommands lets other files of the package register sub-commands: dev, scripted-model,
// chat and operator, which the runtime build (-tags agentry_runtime) leaves out.
var extraCommands []func(*globalFlags) *cobra.Command

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

func (g *globalFlags) logger() (logr.Logger, error) {
	var level slog.Level
	switch g.logLevel {
	case "debug":
		level = slog.LevelDebug
	case "info", "":
		level = slog.LevelInfo
	case "warn":
		level = slog.LevelWarn
	case "error":
		level = slog.LevelError
	default:
		return logr.Discard(), fmt.Errorf("unknown --log-level %q: use debug, info, warn or error", g.logLevel)
	}
	opts := &slog.HandlerOptions{Level: level}
	var h slog.Handler
	switch g.logFormat {
	case "text", "":
		h = slog.NewTextHandler(os.Stderr, opts)
	case "json":
		h = slog.NewJSONHandler(os.Stderr, opts)
	default:
		return logr.Discard(), fmt.Errorf("unknown --log-format %q: use text or json", g.logFormat)
	}
	return logr.FromSlogHandler(h), nil
}

func newVersionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Run: func(cmd *cobra.Command, _ []string) {
			fmt.Fprintln(cmd.OutOrStdout(), Version)
		},
	}
}

// ignoreCanceled treats a shutdown by signal as success.
func ignoreCanceled(err error) error {
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

func envInt(key string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(key)); err == nil {
		return n
	}
	return def
}
