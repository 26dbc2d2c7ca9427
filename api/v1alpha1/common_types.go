package v1alpha1

// LocalObjectReference names an object in the same namespace.
type LocalObjectReference struct {
	// name of the referenced object.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
}

// CallerIdentity passes a tool who is asking: only what the agent verified (the subject of the
// bearer JWT it accepted, see spec.endpoint.auth.jwt), never a value a client merely claimed.
// Without a verified caller the header is not sent (and no header of that name from a Secret is).
// +kubebuilder:validation:XValidation:rule="has(self.subjectHeader) || has(self.tokenAudience)",message="callerIdentity needs subjectHeader, tokenAudience or both"
type CallerIdentity struct {
	// subjectHeader names the header that carries the verified subject, e.g. X-Agentry-User.
	// +optional
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9-]{1,64}$`
	SubjectHeader string `json:"subjectHeader,omitempty"`

	// tokenAudience is the tool's own audience: when the caller's token names it, the token is
	// forwarded as Authorization: Bearer (the tool verifies it itself); otherwise not sent.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	TokenAudience string `json:"tokenAudience,omitempty"`
}

// SecretKeyRef selects one key of a Secret in the same namespace.
type SecretKeyRef struct {
	// name of the Secret.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`

	// key inside the Secret's data.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Key string `json:"key"`
}
