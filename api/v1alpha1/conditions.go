package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Condition types.
const (
	// ConditionToolsResolved: every spec.tools entry names an existing, valid Tool whose
	// spec.id equals the key.
	ConditionToolsResolved = "ToolsResolved"
	// ConditionFrontendActionsResolved: every referenced FrontendAction exists and is valid.
	ConditionFrontendActionsResolved = "FrontendActionsResolved"
	// ConditionModelSecretResolved: the model API-key Secret and key exist.
	ConditionModelSecretResolved = "ModelSecretResolved"
	// ConditionExposed: a public URL is resolved.
	ConditionExposed = "Exposed"
	// ConditionAvailable: the runtime Deployment has available replicas.
	ConditionAvailable = "Available"
	// ConditionReady: the platform can call the agent now.
	ConditionReady = "Ready"
	// ConditionValid: a Tool or FrontendAction compiles.
	ConditionValid = "Valid"
)

// Condition reasons.
const (
	ReasonResolved = "Resolved"

	ReasonToolNotFound   = "ToolNotFound"
	ReasonToolIDMismatch = "ToolIDMismatch"
	ReasonToolInvalid    = "ToolInvalid"

	ReasonFrontendActionNotFound = "FrontendActionNotFound"
	ReasonFrontendActionInvalid  = "FrontendActionInvalid"
	ReasonNameConflict           = "NameConflict"

	ReasonSecretNotFound   = "SecretNotFound"
	ReasonSecretKeyMissing = "SecretKeyMissing"
	ReasonNotRequired      = "NotRequired"
	// ReasonCredentialsRequired: provider azure-openai names neither an api-key nor a token.
	ReasonCredentialsRequired = "CredentialsRequired"
	// ReasonModelConfigNotFound: spec.model.configRef names no ModelConfig in the namespace.
	ReasonModelConfigNotFound = "ModelConfigNotFound"
	// ReasonInvalidURL: a ModelConfig's baseURL has no host.
	ReasonInvalidURL = "InvalidURL"

	ReasonIngressReady  = "IngressReady"
	ReasonPublicURLSet  = "PublicURLSet"
	ReasonNotExposed    = "NotExposed"
	ReasonHTTPSRequired = "HTTPSRequired"
	// ReasonAuthRequired: a public endpoint without spec.endpoint.auth is refused unless
	// spec.endpoint.allowUnauthenticated is true.
	ReasonAuthRequired = "AuthRequired"

	ReasonDeploymentAvailable   = "DeploymentAvailable"
	ReasonDeploymentUnavailable = "DeploymentUnavailable"
	ReasonDeploymentProgressing = "DeploymentProgressing"

	ReasonReady           = "Ready"
	ReasonNotReady        = "NotReady"
	ReasonReconcileFailed = "ReconcileFailed"
	// ReasonResourceConflict: an object the Agent would own exists and is not the Agent's.
	ReasonResourceConflict = "ResourceConflict"
	// ReasonAuthSecretInvalid: the auth headers Secret has no keys or an empty value, which
	// the runtime refuses (fail closed).
	ReasonAuthSecretInvalid = "AuthSecretInvalid"
	// ReasonAuthInvalid: spec.endpoint.auth.jwt cannot work (an http issuer off loopback, a
	// clock skew over the maximum).
	ReasonAuthInvalid = "AuthInvalid"
	// ReasonMemoryNotShared: the memory Secret holds a file: store while the Agent asks for more
	// than one replica (each pod would have a thread store of its own).
	ReasonMemoryNotShared = "MemoryNotShared"

	// MCPServer Ready reasons.
	ReasonDiscovered    = "Discovered"
	ReasonDiscovering   = "Discovering"
	ReasonUnreachable   = "Unreachable"
	ReasonTLSError      = "TLSError"
	ReasonUnauthorized  = "Unauthorized"
	ReasonProtocolError = "ProtocolError"
	ReasonTimeout       = "Timeout"

	// Agent ToolsResolved reasons for MCP entries.
	ReasonMCPServerNotFound = "MCPServerNotFound"
	ReasonMCPServerNotReady = "MCPServerNotReady"
	ReasonMCPToolNotFound   = "MCPToolNotFound"
	ReasonInvalidToolName   = "InvalidToolName"
	ReasonDuplicateToolName = "DuplicateToolName"

	// Agent ToolsResolved reasons for agentRef and remoteAgentRef entries.
	ReasonAgentNotFound       = "AgentNotFound"
	ReasonAgentNotReady       = "AgentNotReady"
	ReasonAgentRefNotAllowed  = "AgentRefNotAllowed"
	ReasonAgentRefLoop        = "AgentRefLoop"
	ReasonRemoteAgentNotFound = "RemoteAgentNotFound"
	ReasonRemoteAgentNotReady = "RemoteAgentNotReady"

	ReasonValid         = "Valid"
	ReasonInvalidSchema = "InvalidSchema"
	ReasonInvalidCEL    = "InvalidCEL"
	ReasonInvalidHTTP   = "InvalidHTTP"
)

// GetConditions returns the status conditions (the operator's status patcher records their
// changes as events).
func (in *Agent) GetConditions() []metav1.Condition          { return in.Status.Conditions }
func (in *Tool) GetConditions() []metav1.Condition           { return in.Status.Conditions }
func (in *FrontendAction) GetConditions() []metav1.Condition { return in.Status.Conditions }
func (in *RemoteAgent) GetConditions() []metav1.Condition    { return in.Status.Conditions }
func (in *MCPServer) GetConditions() []metav1.Condition      { return in.Status.Conditions }
func (in *ModelConfig) GetConditions() []metav1.Condition    { return in.Status.Conditions }
