//go:build !agentry_runtime

package v1alpha1

import corev1 "k8s.io/api/core/v1"

// spec.runtime's core/v1 types, by these names so the agent pods' build can hold them
// undecoded instead (corev1_runtime.go).
type (
	PullPolicy           = corev1.PullPolicy
	ResourceRequirements = corev1.ResourceRequirements
	EnvVar               = corev1.EnvVar
)
