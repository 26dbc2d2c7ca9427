package v1alpha1

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DefaultMaxSteps is the number of model steps per request when spec.maxSteps is unset;
// it is also the hard cap the runtime applies to every request.
const DefaultMaxSteps = 100

// AgentSpec is the desired state of an Agent.
// +kubebuilder:validation:XValidation:rule="has(oldSelf.agentId) == has(self.agentId)",message="spec.agentId cannot be added or removed after creation: the chat platform routes on it"
// +kubebuilder:validation:XValidation:rule="!(has(self.memory) && has(self.memory.url) && self.memory.url.startsWith('file:') && has(self.runtime) && has(self.runtime.replicas) && self.runtime.replicas > 1)",message="a file: memory store lives on one pod's disk; use a postgres:// store to run more than one replica"
type AgentSpec struct {
	// agentId is the REST id of the agent: it is served under /api/agents/{agentId}/.
	// Defaults to metadata.name. Immutable, because the chat platform routes on it.
	// +optional
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$`
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="spec.agentId is immutable: the chat platform routes on it"
	AgentID string `json:"agentId,omitempty"`

	// displayName is the agent's display name (listed as `name` by GET /api/agents).
	// Defaults to metadata.name.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	DisplayName string `json:"displayName,omitempty"`

	// instructions are the system instructions given to the model.
	// +optional
	// +kubebuilder:validation:MaxLength=65536
	Instructions string `json:"instructions,omitempty"`

	// model selects the language model.
	// +required
	Model ModelSpec `json:"model"`

	// tools are the server tools the agent may call: Tools, and tools of MCP servers. A tool
	// fires only when its key equals the name the model sees (the Tool's spec.id, or prefix +
	// toolName) exactly; a mismatch is reported, never fixed.
	// +optional
	// +listType=map
	// +listMapKey=key
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:XValidation:rule="self.all(t, self.exists_one(u, u.key == t.key))",message="spec.tools keys must be unique"
	Tools []AgentTool `json:"tools,omitempty"`

	// frontendActions name FrontendAction objects in the same namespace: client-side tools
	// the chat UI executes.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=128
	FrontendActions []LocalObjectReference `json:"frontendActions,omitempty"`

	// memory enables persistent conversation memory.
	// +optional
	Memory *MemorySpec `json:"memory,omitempty"`

	// maxSteps is the number of model steps allowed per request (1-100, default 100).
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	// +kubebuilder:default=100
	MaxSteps *int32 `json:"maxSteps,omitempty"`

	// endpoint configures how the agent is exposed: authentication, Ingress, public URL
	// and rate limits.
	// +optional
	Endpoint *EndpointSpec `json:"endpoint,omitempty"`

	// platform holds what the chat platform's agent form needs besides URL and id.
	// +optional
	Platform *PlatformSpec `json:"platform,omitempty"`

	// runtime tunes the runtime pods the operator runs for this agent.
	// +optional
	Runtime *RuntimeSpec `json:"runtime,omitempty"`
}

// AgentTool is one entry of an Agent's tool map.
// +kubebuilder:validation:XValidation:rule="[has(self.toolRef), has(self.mcpServerRef), has(self.agentRef), has(self.remoteAgentRef)].filter(x, x).size() == 1",message="a tool entry needs exactly one of toolRef, mcpServerRef, agentRef or remoteAgentRef"
// +kubebuilder:validation:XValidation:rule="has(self.mcpServerRef) || (!has(self.toolName) && !has(self.prefix))",message="toolName and prefix belong to mcpServerRef entries"
// +kubebuilder:validation:XValidation:rule="!has(self.timeout) || has(self.agentRef) || has(self.remoteAgentRef)",message="timeout belongs to agentRef and remoteAgentRef entries (a Tool has its own spec.execute.timeout)"
// +kubebuilder:validation:XValidation:rule="!has(self.approvalTimeout) || (has(self.requireApproval) && self.requireApproval)",message="approvalTimeout needs requireApproval: true"
type AgentTool struct {
	// key names the entry. For a Tool or one MCP tool it is the function name the model
	// sees and must equal it exactly (the Tool's spec.id; prefix + toolName), otherwise the
	// tool does not fire and the mismatch is reported. For all tools of an MCP server it only
	// names the entry.
	// +required
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9_-]{1,64}$`
	// +kubebuilder:validation:MaxLength=64
	Key string `json:"key"`

	// toolRef names a Tool in the same namespace.
	// +optional
	ToolRef *LocalObjectReference `json:"toolRef,omitempty"`

	// mcpServerRef names an MCPServer in the same namespace: its tool toolName, or all of its
	// (allowed) tools when toolName is unset.
	// +optional
	MCPServerRef *LocalObjectReference `json:"mcpServerRef,omitempty"`

	// agentRef names another Agent this one may ask over A2A: the model sees a tool named key,
	// described from the other agent, taking a message; the other agent's answer is the result.
	// The other Agent is in this namespace, or in one that lists this namespace in its
	// spec.endpoint.allowAgentRefsFrom. The call goes to its in-cluster A2A endpoint with its
	// headers Secret (same namespace only) and this run's trace; a chain of agents asking
	// agents stops at depth 4.
	// +optional
	AgentRef *AgentReference `json:"agentRef,omitempty"`

	// remoteAgentRef names a RemoteAgent (an A2A agent outside Agentry, whose card the operator
	// reads) in the same namespace, used like agentRef.
	// +optional
	RemoteAgentRef *LocalObjectReference `json:"remoteAgentRef,omitempty"`

	// timeout bounds one call of the agent an agentRef or remoteAgentRef entry names (default:
	// the RemoteAgent's spec.timeout, else 60s).
	// +optional
	// +kubebuilder:validation:XValidation:rule="duration(self) > duration('0s') && duration(self) <= duration('30m')",message="timeout must be more than 0s and at most 30m"
	Timeout *metav1.Duration `json:"timeout,omitempty"`

	// toolName is the server's name of the one MCP tool this entry uses.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=128
	ToolName string `json:"toolName,omitempty"`

	// prefix is put before the server's tool names to make the names the model sees
	// (e.g. github_ makes create_issue github_create_issue).
	// +optional
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9_-]{1,32}$`
	Prefix string `json:"prefix,omitempty"`

	// requireApproval stops a run before the tool (each tool of the entry) executes: the run
	// ends with an AG-UI interrupt (or Mastra's suspended result) and continues once a person
	// approves or declines the call. Without spec.memory the pending call lives in the pod
	// that stopped, so the answer must reach that pod; with a shared store any replica resumes it.
	// +optional
	RequireApproval bool `json:"requireApproval,omitempty"`

	// approvalTimeout is how long a call waits for a decision (default 1h, at most 168h); an
	// answer after that is a decline.
	// +optional
	// +kubebuilder:validation:XValidation:rule="duration(self) > duration('0s') && duration(self) <= duration('168h')",message="approvalTimeout must be more than 0s and at most 168h"
	ApprovalTimeout *metav1.Duration `json:"approvalTimeout,omitempty"`
}

// AgentReference names an Agent, in the referring object's namespace unless namespace is set.
type AgentReference struct {
	// name of the Agent.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`

	// namespace of the Agent (default: the referring Agent's).
	// +optional
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Namespace string `json:"namespace,omitempty"`
}

// DefaultApprovalTimeout and MaxApprovalTimeout bound how long a tool call waits for approval.
const (
	DefaultApprovalTimeout = time.Hour
	MaxApprovalTimeout     = 168 * time.Hour
)

// EffectiveApprovalTimeout is the entry's approval timeout, defaulted and capped.
func (t AgentTool) EffectiveApprovalTimeout() time.Duration {
	if t.ApprovalTimeout == nil || t.ApprovalTimeout.Duration <= 0 {
		return DefaultApprovalTimeout
	}
	return min(t.ApprovalTimeout.Duration, MaxApprovalTimeout)
}

// MemorySpec configures persistent conversation memory.
// +kubebuilder:validation:XValidation:rule="has(self.url) != has(self.urlSecretRef)",message="memory needs exactly one of url or urlSecretRef"
type MemorySpec struct {
	// url is the storage location: memory://, file:PATH (SQLite) or postgres://... .
	// It is copied into the runtime's ConfigMap, so it must not carry a password: put URLs
	// with credentials in a Secret and use urlSecretRef instead.
	// +optional
	// +kubebuilder:validation:XValidation:rule="self.startsWith('memory://') || self.startsWith('file:') || self.startsWith('postgres://') || self.startsWith('postgresql://')",message="memory.url must start with memory://, file: or postgres://"
	// +kubebuilder:validation:XValidation:rule="!self.matches('^[A-Za-z][A-Za-z0-9+.-]*://[^/?#@]*:[^/?#@]+@') && !self.matches('(?i)[?&](ssl)?password=')",message="memory.url must not contain a password (user:password@host or a password= parameter): it would be stored in a ConfigMap; put the URL in a Secret and use spec.memory.urlSecretRef"
	// +kubebuilder:validation:MaxLength=2048
	URL string `json:"url,omitempty"`

	// urlSecretRef selects a Secret key holding the storage URL.
	// +optional
	URLSecretRef *SecretKeyRef `json:"urlSecretRef,omitempty"`

	// lastMessages is how many recent messages of the thread are recalled (default 20).
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1000
	LastMessages *int32 `json:"lastMessages,omitempty"`
}

// RuntimeSpec tunes the runtime pods.
type RuntimeSpec struct {
	// replicas is the number of runtime pods. Unset: the operator leaves the Deployment's count
	// alone (1 when it is created; an HPA or kubectl scale may change it).
	// +optional
	// +kubebuilder:validation:Minimum=0
	Replicas *int32 `json:"replicas,omitempty"`

	// image overrides the runtime image.
	// +optional
	Image string `json:"image,omitempty"`

	// imagePullPolicy of the runtime container.
	// +optional
	ImagePullPolicy PullPolicy `json:"imagePullPolicy,omitempty"`

	// resources of the runtime container.
	// +optional
	Resources *ResourceRequirements `json:"resources,omitempty"`

	// env adds environment variables to the runtime container.
	// +optional
	Env []EnvVar `json:"env,omitempty"`

	// podLabels are added to the runtime pods.
	// +optional
	PodLabels map[string]string `json:"podLabels,omitempty"`

	// podAnnotations are added to the runtime pods.
	// +optional
	PodAnnotations map[string]string `json:"podAnnotations,omitempty"`
}

// AgentEndpoints are the URLs of the agent's endpoints.
type AgentEndpoints struct {
	// generate is the public URL of POST .../generate (empty when not exposed).
	// +optional
	Generate string `json:"generate,omitempty"`

	// agui is the public URL of the AG-UI endpoint POST .../ag-ui (empty when not exposed).
	// +optional
	AGUI string `json:"agui,omitempty"`

	// internal is the in-cluster base URL of the agent, e.g.
	// http://agentry-chef.default.svc.cluster.local:4111/api/agents/chef.
	// +optional
	Internal string `json:"internal,omitempty"`

	// a2a is the public URL of the agent's Agent2Agent endpoint, POST /a2a/{agentId}, whose card
	// is at .../.well-known/agent-card.json (empty when not exposed).
	// +optional
	A2A string `json:"a2a,omitempty"`

	// a2aInternal is the in-cluster A2A endpoint, e.g.
	// http://agentry-chef.default.svc.cluster.local:4111/a2a/chef.
	// +optional
	A2AInternal string `json:"a2aInternal,omitempty"`
}

// AgentStatus is the observed state of an Agent.
type AgentStatus struct {
	// observedGeneration is the generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions: ToolsResolved, FrontendActionsResolved, ModelSecretResolved, Exposed,
	// Available and Ready.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// agentId is the resolved REST id.
	// +optional
	AgentID string `json:"agentId,omitempty"`

	// endpoints are the agent's URLs.
	// +optional
	Endpoints *AgentEndpoints `json:"endpoints,omitempty"`

	// deploymentURL is the URL to paste into the chat platform's agent form, chosen by
	// spec.platform.provider.
	// +optional
	DeploymentURL string `json:"deploymentURL,omitempty"`

	// readyReplicas is the number of runtime pods ready to serve.
	// +optional
	ReadyReplicas int32 `json:"readyReplicas,omitempty"`

	// configHash is the hash of the rendered configuration and referenced Secret data.
	// +optional
	ConfigHash string `json:"configHash,omitempty"`

	// storage is the kind of memory store in use: memory, sqlite or postgres.
	// +optional
	Storage string `json:"storage,omitempty"`

	// model is the model id the agent calls: spec.model.name, or its ModelConfig's model.
	// +optional
	Model string `json:"model,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=ag,categories=agentry
// +kubebuilder:printcolumn:name="Agent ID",type=string,JSONPath=`.status.agentId`
// +kubebuilder:printcolumn:name="Model",type=string,JSONPath=`.status.model`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="URL",type=string,JSONPath=`.status.deploymentURL`
// +kubebuilder:printcolumn:name="A2A",type=string,JSONPath=`.status.endpoints.a2aInternal`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// Agent is a conversational agent served over HTTP under /api/agents/{agentId}/.
type Agent struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the Agent.
	// +required
	Spec AgentSpec `json:"spec"`

	// status is the observed state of the Agent.
	// +optional
	Status AgentStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// AgentList is a list of Agents.
type AgentList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Agent `json:"items"`
}

func init() {
	SchemeBuilder.Register(&Agent{}, &AgentList{})
}

// EffectiveAgentID is spec.agentId, or metadata.name when unset.
func (a *Agent) EffectiveAgentID() string {
	if a.Spec.AgentID != "" {
		return a.Spec.AgentID
	}
	return a.Name
}

// EffectiveDisplayName is spec.displayName, or metadata.name when unset.
func (a *Agent) EffectiveDisplayName() string {
	if a.Spec.DisplayName != "" {
		return a.Spec.DisplayName
	}
	return a.Name
}

// A2ADescription is what the agent says it does, on its A2A card and as the tool of an Agent
// that asks it: its platform introduction, else its name.
func (a *Agent) A2ADescription() string {
	if p := a.Spec.Platform; p != nil && p.IntroductoryMessage != "" {
		return p.IntroductoryMessage
	}
	return "The " + a.EffectiveDisplayName() + " agent."
}

// EffectiveMaxSteps is spec.maxSteps capped to DefaultMaxSteps.
func (a *Agent) EffectiveMaxSteps() int {
	if a.Spec.MaxSteps == nil || *a.Spec.MaxSteps <= 0 || *a.Spec.MaxSteps > DefaultMaxSteps {
		return DefaultMaxSteps
	}
	return int(*a.Spec.MaxSteps)
}

// EffectivePlatformProvider is spec.platform.provider, defaulting to ag-ui.
func (a *Agent) EffectivePlatformProvider() PlatformProvider {
	if a.Spec.Platform == nil || a.Spec.Platform.Provider == "" {
		return PlatformProviderAGUI
	}
	return a.Spec.Platform.Provider
}
