//go:build !agentry_runtime

package cmd

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentry-dev/agentry/internal/devkit/scriptedmodel"
)

func init() { extraCommands = append(extraCommands, newScriptedModelCommand) }

func newScriptedModelCommand(g *globalFlags) *cobra.Command {
	var addr, script, requireKey string
	var pace time.Duration
	cmd := &cobra.Command{
		Use:   "scripted-model",
		Short: "Run the scripted OpenAI-compatible model server used by tests and agentry dev",
		Long: `Run an OpenAI-wire-compatible Chat Completions server whose answers follow a script
(YAML rules; the built-in dev script by default). Point OPENAI_BASE_URL at the printed URL.
A rule's reply may reason first (reasoning: …), streamed in delta.reasoning_content (or
delta.reasoning with reasoningField: reasoning) as reasoning models do; the dev script does
for "Think it through: <question>".`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s := scriptedmodel.DevScript()
			if script != "" {
				data, err := os.ReadFile(script)
				if err != nil {
					return fmt.Errorf("failed to read script %q: %w", script, err)
				}
				if s, err = scriptedmodel.ParseScript(data); err != nil {
					return err
				}
			}
			srv, err := scriptedmodel.Start(addr, s, scriptedmodel.Options{RequireAPIKey: requireKey, Pace: pace})
			if err != nil {
				return err
			}
			defer srv.Close()
			fmt.Fprintf(cmd.OutOrStdout(), "scripted model listening on %s\n", srv.URL())
			<-cmd.Context().Done()
			return nil
		},
	}
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:8090", "listen address")
	cmd.Flags().StringVar(&script, "script", "", "script file (default: the built-in dev script)")
	cmd.Flags().DurationVar(&pace, "pace", 0, "wait between the streamed chunks of a reply whose rule sets no chunkDelayMs (answers of several seconds, as real models stream)")
	cmd.Flags().StringVar(&requireKey, "require-api-key", os.Getenv("SCRIPTED_MODEL_API_KEY"), "answer 401 unless this key is sent")
	return cmd
}
