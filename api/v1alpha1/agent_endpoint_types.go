package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// PlatformProvider selects which endpoint the chat platform calls, and so which URL
// status.deploymentURL reports.
// +kubebuilder:validation:Enum=mastra;ag-ui
type PlatformProvider string

const (
	// PlatformProviderMastra: the platform calls POST .../generate (JSON).
	PlatformProviderMastra PlatformProvider = "mastra"
	// PlatformProviderAGUI: the platform calls POST .../ag-ui (server-sent events).
	PlatformProviderAGUI PlatformProvider = "ag-ui"
)

// EndpointSpec configures how the agent's HTTP endpoints are exposed.
type EndpointSpec struct {
	// auth requires the platform to send configured headers.
	// +optional
	Auth *EndpointAuth `json:"auth,omitempty"`

	// ingress asks the operator to create an Ingress routing the platform routes of
	// /api/agents/{agentId} (ag-ui, generate, stream, approve-tool-call, decline-tool-call).
	// +optional
	Ingress *IngressSpec `json:"ingress,omitempty"`

	// publicURL is the public base URL (scheme and host, optionally a path) when exposure is
	// handled elsewhere, e.g. https://agents.example.com.
	// +optional
	// +kubebuilder:validation:Pattern=`^https?://[^\s]+$`
	// +kubebuilder:validation:MaxLength=2048
	PublicURL string `json:"publicURL,omitempty"`

	// rateLimit limits requests per client IP (default 3000 per minute, burst 500) and, after
	// authentication, per end user (default 120 per minute, burst 30).
	// +optional
	RateLimit *RateLimitSpec `json:"rateLimit,omitempty"`

	// maxBodyBytes limits request bodies (default 1048576); larger bodies get 413.
	// +optional
	// +kubebuilder:validation:Minimum=1024
	MaxBodyBytes *int64 `json:"maxBodyBytes,omitempty"`

	// allowUnauthenticated lets a public endpoint (ingress or publicURL) go without auth.
	// Without it, a public agent that sets no auth is refused (Exposed=False, AuthRequired).
	// +optional
	AllowUnauthenticated bool `json:"allowUnauthenticated,omitempty"`

	// allowAgentRefsFrom are the other namespaces whose Agents may name this one in a tool
	// entry's agentRef ("*": every namespace). Agents of its own namespace always may.
	// +optional
	// +kubebuilder:validation:MaxItems=32
	// +listType=set
	// +kubebuilder:validation:items:MaxLength=63
	// +kubebuilder:validation:items:Pattern=`^(\*|[a-z0-9]([-a-z0-9]*[a-z0-9])?)$`
	AllowAgentRefsFrom []string `json:"allowAgentRefsFrom,omitempty"`

	// corsOrigins are the browser origins allowed to call the agent (e.g.
	// https://chat.example.com); default: the runtime's --cors-origins.
	// +optional
	// +kubebuilder:validation:MaxItems=32
	// +listType=set
	CORSOrigins []CORSOrigin `json:"corsOrigins,omitempty"`
}

// CORSOrigin is a browser origin (scheme://host[:port]) or "*".
// +kubebuilder:validation:Pattern=`^(\*|https?://[^\s/]+)$`
// +kubebuilder:validation:MaxLength=253
type CORSOrigin string

// EndpointAuth configures who may call the platform endpoints: the exact headers a Secret
// holds, a bearer JWT from a trusted issuer, a ServiceAccount token from this cluster, or any
// of them when several are set.
// +kubebuilder:validation:XValidation:rule="has(self.headersSecretRef) || has(self.jwt) || (has(self.serviceAccounts) && size(self.serviceAccounts) > 0)",message="spec.endpoint.auth needs headersSecretRef, jwt or serviceAccounts"
type EndpointAuth struct {
	// headersSecretRef names a Secret whose keys are header names and whose values are the
	// exact values the platform must send (e.g. key Authorization, value "Bearer s3cr3t").
	// +optional
	HeadersSecretRef *LocalObjectReference `json:"headersSecretRef,omitempty"`

	// jwt accepts `Authorization: Bearer <JWT>` signed by the issuer's keys, for one of the
	// audiences, unexpired, carrying the required claims. The verified subject is who the
	// agent runs for.
	// +optional
	JWT *JWTAuth `json:"jwt,omitempty"`

	// serviceAccounts accepts `Authorization: Bearer <ServiceAccount token>` from workloads in
	// this cluster (the chart's chat service, another agent): a token the cluster issued to one
	// of these ServiceAccounts for the audience agentry.dev/agents/<namespace>/<name> of this
	// Agent, unexpired. Nothing to distribute or rotate. The caller is a service acting for its users, as with headers: it is not a person, so memory
	// is not bound to it. The runtime pod mounts its own ServiceAccount token to read the
	// cluster's public keys (/openid/v1/jwks, which every ServiceAccount may read by default).
	// +optional
	// +kubebuilder:validation:MaxItems=32
	// +listType=atomic
	ServiceAccounts []ServiceAccountRef `json:"serviceAccounts,omitempty"`
}

// ServiceAccountRef names a ServiceAccount of this cluster.
type ServiceAccountRef struct {
	// namespace of the ServiceAccount.
	// +required
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Namespace string `json:"namespace"`

	// name of the ServiceAccount.
	// +required
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	Name string `json:"name"`
}

// Subject is the token subject the cluster gives the ServiceAccount.
func (r ServiceAccountRef) Subject() string {
	return "system:serviceaccount:" + r.Namespace + ":" + r.Name
}

// AgentAudience is the audience a ServiceAccount token for the Agent namespace/name must carry:
// one per agent, so a token one agent receives cannot be replayed to another.
func AgentAudience(namespace, name string) string {
	return "agentry.dev/agents/" + namespace + "/" + name
}

// JWTAuth says which bearer JWTs an agent accepts.
type JWTAuth struct {
	// issuer is the `iss` every token must carry (https; http only on loopback). Its OpenID
	// discovery document (/.well-known/openid-configuration) names the keys unless jwksURL is set.
	// +required
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:Pattern=`^https?://[^\s]+$`
	Issuer string `json:"issuer"`

	// jwksURL is where the issuer's public keys are (JWK Set), for issuers without discovery.
	// Keys are cached and fetched again only for a key id not seen before.
	// +optional
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:Pattern=`^https?://[^\s]+$`
	JWKSURL string `json:"jwksURL,omitempty"`

	// audiences: a token's `aud` must name at least one of them (e.g. the agent's URL).
	// +required
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=512
	// +listType=set
	Audiences []string `json:"audiences"`

	// requiredClaims maps a claim name to the value the token must carry: a string claim equal
	// to it, or a list claim containing it (e.g. groups: agent-users).
	// +optional
	// +kubebuilder:validation:MaxProperties=16
	RequiredClaims map[string]string `json:"requiredClaims,omitempty"`

	// clockSkew is how long past `exp` a token is still accepted, for clocks that drift
	// (default 30s, at most 5m).
	// +optional
	ClockSkew *metav1.Duration `json:"clockSkew,omitempty"`
}

// IngressSpec configures the Ingress the operator creates.
type IngressSpec struct {
	// host is the public host name; defaults to the operator's default Ingress host.
	// +optional
	// +kubebuilder:validation:Pattern=`^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	Host string `json:"host,omitempty"`

	// className is the IngressClass; defaults to the operator's default class.
	// +optional
	ClassName string `json:"className,omitempty"`

	// tlsSecretName is the Secret holding the TLS certificate; without TLS the URL is http://
	// and the Exposed condition says HTTPSRequired.
	// +optional
	TLSSecretName string `json:"tlsSecretName,omitempty"`

	// annotations are added to the Ingress (e.g. cert-manager or proxy settings).
	// +optional
	Annotations map[string]string `json:"annotations,omitempty"`
}

// RateLimitSpec limits requests per client IP and, after authentication, per end user.
type RateLimitSpec struct {
	// requestsPerMinute is the sustained rate allowed per client IP (default 3000; 0 disables
	// the per-IP limit). A chat platform calls from a few IPs on behalf of all its users: size
	// it for the platform's peak (active users x messages per minute), and rely on the
	// per-user limit for fairness between users.
	// +optional
	// +kubebuilder:validation:Minimum=0
	RequestsPerMinute *int32 `json:"requestsPerMinute,omitempty"`

	// burst is how many requests one IP may send at once (default: requestsPerMinute/6, at
	// least 1).
	// +optional
	// +kubebuilder:validation:Minimum=0
	Burst int32 `json:"burst,omitempty"`

	// userRequestsPerMinute is the sustained rate allowed per end user, identified by
	// userHeader and counted only after the request passed authentication, so a client cannot
	// mint fresh budgets by rotating the header (default 120; 0 disables the per-user limit).
	// +optional
	// +kubebuilder:validation:Minimum=0
	UserRequestsPerMinute *int32 `json:"userRequestsPerMinute,omitempty"`

	// userBurst is how many requests one user may send at once (default:
	// userRequestsPerMinute/4, at least 1).
	// +optional
	// +kubebuilder:validation:Minimum=0
	UserBurst int32 `json:"userBurst,omitempty"`

	// userHeader names the request header that identifies the end user behind the platform
	// (default X-User-Id).
	// +optional
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9-]{1,64}$`
	UserHeader string `json:"userHeader,omitempty"`
}

// PlatformSpec is what the chat platform's agent form needs besides the URL and id.
type PlatformSpec struct {
	// provider selects the endpoint the platform calls: `ag-ui` (server-sent events, the
	// default) or `mastra` (the generate endpoint).
	// +optional
	// +kubebuilder:default=ag-ui
	Provider PlatformProvider `json:"provider,omitempty"`

	// greeting is shown when a conversation opens.
	// +optional
	Greeting string `json:"greeting,omitempty"`

	// introductoryMessage introduces the agent to users.
	// +optional
	IntroductoryMessage string `json:"introductoryMessage,omitempty"`

	// suggestedMessages are offered to users as conversation starters.
	// +optional
	// +kubebuilder:validation:MaxItems=20
	SuggestedMessages []string `json:"suggestedMessages,omitempty"`

	// iconURL is the agent's icon.
	// +optional
	IconURL string `json:"iconURL,omitempty"`

	// audience is who may use the agent on the chat platform when it is registered there by
	// reference (agentRef): chat uids, `group:<guid>` (a chat group's members) or
	// `idp:<group>` (holders of the identity provider's group). Empty is everyone. The chat
	// platform applies it beside the audience its admins set: a user must be in both.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=50
	// +kubebuilder:validation:items:Pattern=`^(group:[A-Za-z0-9_.@-]{1,100}|idp:[^\s]{1,200}|[A-Za-z0-9_.@-]{1,100})$`
	Audience []string `json:"audience,omitempty"`
}
