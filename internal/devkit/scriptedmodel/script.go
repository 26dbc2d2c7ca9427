package scriptedmodel

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"text/template"

	"sigs.k8s.io/yaml"
)

// Script is a rule-based Responder: the first rule whose conditions hold answers, otherwise
// the fallback does. Replies are Go templates over the conversation (see TemplateData).
type Script struct {
	Rules    []Rule `json:"rules"`
	Fallback Reply  `json:"fallback"`

	mu       sync.Mutex // guards the rules' fire counts
	fallback *compiledReply
}

// Rule is one scripted behaviour.
type Rule struct {
	Name string `json:"name"`
	When When   `json:"when"`
	// Reply's Text and each tool call's Arguments are templates.
	Reply Reply `json:"reply"`
	// Times, when > 0, limits how often the rule fires.
	Times int `json:"times,omitempty"`

	pattern *regexp.Regexp
	reply   *compiledReply
	fired   int
}

// compiledReply is a Reply with its templates parsed once, at load time.
type compiledReply struct {
	Reply
	text      *template.Template
	reasoning *template.Template
	args      []*template.Template
}

// When holds a rule's conditions; all that are set must hold.
type When struct {
	// LastRole is the role of the last message ("user" or "tool").
	LastRole string `json:"lastRole,omitempty"`
	// Pattern is a regular expression matched against the last user message.
	Pattern string `json:"pattern,omitempty"`
	// ToolOffered requires the request to offer this tool.
	ToolOffered string `json:"toolOffered,omitempty"`
	// LastTool is the name of the tool whose result is the last message.
	LastTool string `json:"lastTool,omitempty"`
}

// TemplateData is what reply templates see.
type TemplateData struct {
	// Text is the last user message.
	Text string
	// Match holds the Pattern's match and groups.
	Match []string
	// LastTool and LastToolResult describe the last message when it is a tool result.
	LastTool       string
	LastToolResult string
	// Tools are the offered tool names.
	Tools []string
	// Steps counts the assistant messages so far.
	Steps int
}

//go:embed dev-script.yaml
var devScript []byte

// DevScript is the script `agentry dev` uses without an API key: it drives the sample
// agents' tools and frontend action from plain-language prompts.
func DevScript() *Script {
	s, err := ParseScript(devScript)
	if err != nil {
		panic(fmt.Sprintf("embedded dev script: %v", err))
	}
	return s
}

// ParseScript reads a script from YAML or JSON and checks its patterns and templates.
func ParseScript(data []byte) (*Script, error) {
	var s Script
	if err := yaml.UnmarshalStrict(data, &s); err != nil {
		return nil, fmt.Errorf("failed to parse script: %w", err)
	}
	for i := range s.Rules {
		r := &s.Rules[i]
		if r.When.Pattern != "" {
			re, err := regexp.Compile(r.When.Pattern)
			if err != nil {
				return nil, fmt.Errorf("rule %q: bad pattern: %w", r.Name, err)
			}
			r.pattern = re
		}
		c, err := compileReply(r.Reply)
		if err != nil {
			return nil, fmt.Errorf("rule %q: %w", r.Name, err)
		}
		r.reply = c
	}
	c, err := compileReply(s.Fallback)
	if err != nil {
		return nil, fmt.Errorf("fallback: %w", err)
	}
	s.fallback = c
	return &s, nil
}

// Respond implements Responder.
func (s *Script) Respond(req *Request) Reply {
	data := templateData(req)
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.Rules {
		r := &s.Rules[i]
		if r.Times > 0 && r.fired >= r.Times {
			continue
		}
		d, ok := r.matches(req, data)
		if !ok {
			continue
		}
		r.fired++
		return r.reply.render(d)
	}
	return s.fallback.render(data)
}

func (r *Rule) matches(req *Request, data TemplateData) (TemplateData, bool) {
	last := Message{}
	if n := len(req.Messages); n > 0 {
		last = req.Messages[n-1]
	}
	if r.When.LastRole != "" && r.When.LastRole != last.Role {
		return data, false
	}
	if r.When.ToolOffered != "" && !contains(req.Tools, r.When.ToolOffered) {
		return data, false
	}
	if r.When.LastTool != "" && (last.Role != "tool" || data.LastTool != r.When.LastTool) {
		return data, false
	}
	if r.pattern != nil {
		if last.Role != "user" {
			return data, false
		}
		m := r.pattern.FindStringSubmatch(data.Text)
		if m == nil {
			return data, false
		}
		data.Match = m
	}
	return data, true
}

func templateData(req *Request) TemplateData {
	d := TemplateData{Tools: req.Tools}
	names := map[string]string{}
	for _, m := range req.Messages {
		switch m.Role {
		case "user":
			d.Text = m.Content
		case "assistant":
			d.Steps++
			for _, tc := range m.ToolCalls {
				names[tc.ID] = tc.Name
			}
		}
	}
	if n := len(req.Messages); n > 0 && req.Messages[n-1].Role == "tool" {
		last := req.Messages[n-1]
		d.LastTool = names[last.ToolCallID]
		d.LastToolResult = last.Content
	}
	return d
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// listSeparator splits "eggs, spinach and feta".
var listSeparator = regexp.MustCompile(`\s*(?:,|\band\b|&)\s*`)

var funcs = template.FuncMap{
	"json": func(v any) (string, error) {
		b, err := json.Marshal(v)
		return string(b), err
	},
	"fromJSON": func(s string) (any, error) {
		var v any
		err := json.Unmarshal([]byte(s), &v)
		return v, err
	},
	"trim":  strings.TrimSpace,
	"lower": strings.ToLower,
	// splitList turns "eggs, spinach and feta" into ["eggs", "spinach", "feta"].
	"splitList": func(s string) []string {
		var out []string
		for _, part := range listSeparator.Split(s, -1) {
			if p := strings.Trim(strings.TrimSpace(part), ".!?"); p != "" {
				out = append(out, p)
			}
		}
		return out
	},
}

func parseTemplate(text string) (*template.Template, error) {
	return template.New("reply").Funcs(funcs).Option("missingkey=zero").Parse(text)
}

func compileReply(r Reply) (*compiledReply, error) {
	c := &compiledReply{Reply: r}
	var err error
	if c.text, err = parseTemplate(r.Text); err != nil {
		return nil, fmt.Errorf("text template: %w", err)
	}
	if c.reasoning, err = parseTemplate(r.Reasoning); err != nil {
		return nil, fmt.Errorf("reasoning template: %w", err)
	}
	switch r.ReasoningField {
	case "", ReasoningContentField, ReasoningField:
	default:
		return nil, fmt.Errorf("reasoningField %q: use %s or %s", r.ReasoningField, ReasoningContentField, ReasoningField)
	}
	for _, tc := range r.ToolCalls {
		t, err := parseTemplate(tc.Arguments)
		if err != nil {
			return nil, fmt.Errorf("arguments template of %q: %w", tc.Name, err)
		}
		c.args = append(c.args, t)
	}
	return c, nil
}

func execTemplate(t *template.Template, d TemplateData) string {
	var b bytes.Buffer
	if err := t.Execute(&b, d); err != nil {
		return "(scripted model template error: " + err.Error() + ")"
	}
	return b.String()
}

func (c *compiledReply) render(d TemplateData) Reply {
	out := c.Reply
	out.Text = execTemplate(c.text, d)
	out.Reasoning = execTemplate(c.reasoning, d)
	out.ToolCalls = nil
	for i, tc := range c.Reply.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Name, Arguments: execTemplate(c.args[i], d)})
	}
	return out
}

// Sequence answers with the given replies in order, then repeats the last one.
func Sequence(replies ...Reply) Responder {
	var mu sync.Mutex
	i := 0
	return ResponderFunc(func(*Request) Reply {
		mu.Lock()
		defer mu.Unlock()
		if len(replies) == 0 {
			return Reply{Text: "ok"}
		}
		r := replies[min(i, len(replies)-1)]
		i++
		return r
	})
}
