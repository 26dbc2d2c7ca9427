package tools

import (
	"fmt"
	"hash/fnv"
	"regexp"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/agentry-dev/agentry/api/v1alpha1"
)

// SelfURL stands for this runtime's own base URL in the A2A URL of a tool that asks an agent of
// the same runtime (an agentRef in agentry dev or serve): Options.Self replaces it at each call,
// since the address is known only once the runtime listens. CRD validation keeps users from
// writing it.
const SelfURL = "http://agentry.self"

// AskToolPrefix begins the names of the Tools made for agentRef and remoteAgentRef entries; with
// the key's hash at the end, a user's Tool of the same name is not a practical worry.
const AskToolPrefix = "agent-ref."

// maxAskDescription is a Tool's longest description.
const maxAskDescription = 4096

// askInputSchema is the input of a tool that asks another agent: what to ask, in words.
var askInputSchema = []byte(`{"type":"object","required":["message"],"properties":{"message":{"type":"string","minLength":1,"description":"What to ask the agent, in words, with everything it needs to answer."}}}`)

// AskAgent is the Tool an entry that asks an agent (agentRef, remoteAgentRef) runs as: named
// key, described as asking the agent called name (what it says about itself after), sending a
// message over A2A as ex says, within timeout (nil: DefaultA2ATimeout).
func AskAgent(namespace, key, kind, name, about string, ex v1alpha1.A2AExecute, timeout *metav1.Duration) *v1alpha1.Tool {
	h := fnv.New32a()
	h.Write([]byte(key))
	desc := strings.TrimSpace(fmt.Sprintf("Asks the %s %s (another AI agent) and returns its answer. %s", kind, name, about))
	if len(desc) > maxAskDescription {
		desc = strings.ToValidUTF8(desc[:maxAskDescription], "")
	}
	t := &v1alpha1.Tool{Spec: v1alpha1.ToolSpec{
		ID:          key,
		Description: desc,
		InputSchema: &runtime.RawExtension{Raw: askInputSchema},
		Execute:     v1alpha1.ToolExecute{A2A: &ex, Timeout: timeout},
	}}
	t.Namespace, t.Name = namespace, fmt.Sprintf("%s%s-%08x", AskToolPrefix, dnsSafe(key), h.Sum32())
	return t
}

var notDNS = regexp.MustCompile(`[^a-z0-9-]+`)

func dnsSafe(s string) string {
	if s = strings.Trim(notDNS.ReplaceAllString(strings.ToLower(s), "-"), "-"); s == "" {
		return "tool"
	}
	return s
}
