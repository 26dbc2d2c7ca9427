package render

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/internal/platform/telemetry"
	"github.com/agentry-dev/agentry/runtime/llm"
	"github.com/agentry-dev/agentry/runtime/memlimit"
	"github.com/agentry-dev/agentry/runtime/secrets"
)

// runtimeEnv is the runtime container's environment, by the names the runtime reads: Secret
// values only from secretKeyRef (the model's API key or Entra token, the memory URL), tracing
// (tracingEnv), the prevalidated config and the container's memory limit. A variable of
// spec.runtime.env replaces the operator's of the same name.
func runtimeEnv(a *v1alpha1.Agent, cfg Config) []corev1.EnvVar {
	var env []corev1.EnvVar
	if ref := a.Spec.Model.APIKeySecretRef; ref != nil {
		env = append(env, secretEnv(llm.APIKeyEnv, ref))
	}
	if az := a.Spec.Model.Azure; az != nil && az.TokenSecretRef != nil {
		env = append(env, secretEnv(llm.AzureTokenEnv, az.TokenSecretRef))
	}
	if m := a.Spec.Memory; m != nil && m.URLSecretRef != nil {
		env = append(env, secretEnv(secrets.MemoryURLEnv, m.URLSecretRef))
	}
	env = append(env, tracingEnv(cfg.Tracing, a.Namespace, a.Name)...)
	// The config is rendered from objects the API server validated; the soft memory limit of
	// the Go runtime follows the container's limit.
	env = append(env,
		corev1.EnvVar{Name: PrevalidatedEnv, Value: "true"},
		corev1.EnvVar{Name: memlimit.Env, ValueFrom: &corev1.EnvVarSource{
			ResourceFieldRef: &corev1.ResourceFieldSelector{ContainerName: "runtime", Resource: "limits.memory", Divisor: resource.MustParse("1")},
		}})
	var user []corev1.EnvVar
	if a.Spec.Runtime != nil {
		user = a.Spec.Runtime.Env
	}
	replaced := map[string]bool{}
	for _, e := range user {
		replaced[e.Name] = true
	}
	merged := make([]corev1.EnvVar, 0, len(env)+len(user))
	for _, e := range env {
		if !replaced[e.Name] {
			merged = append(merged, e)
		}
	}
	return append(merged, user...)
}

func secretEnv(name string, ref *v1alpha1.SecretKeyRef) corev1.EnvVar {
	return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{
		SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: ref.Name}, Key: ref.Key},
	}}
}

// tracingEnv is the OTEL_* environment of a runtime pod when tracing is on: where to export,
// the headers from a Secret (never their value in the spec), sampling, and which agent the
// spans come from.
func tracingEnv(t Tracing, namespace, agent string) []corev1.EnvVar {
	if t.Endpoint == "" {
		return nil
	}
	env := []corev1.EnvVar{
		{Name: telemetry.EndpointEnv, Value: t.Endpoint},
		{Name: telemetry.ServiceNameEnv, Value: "agentry-runtime"},
		{Name: telemetry.ResourceAttributesEnv, Value: "k8s.namespace.name=" + namespace + ",agentry.agent=" + agent},
	}
	if t.HeadersSecret != "" {
		key := t.HeadersKey
		if key == "" {
			key = "headers"
		}
		env = append(env, corev1.EnvVar{Name: telemetry.HeadersEnv, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: t.HeadersSecret}, Key: key, Optional: ptr.To(true),
		}}})
	}
	if t.SamplerRatio != "" {
		env = append(env, corev1.EnvVar{Name: telemetry.SamplerEnv, Value: "parentbased_traceidratio"}, corev1.EnvVar{Name: telemetry.SamplerArgEnv, Value: t.SamplerRatio})
	}
	if t.CaptureContent {
		env = append(env, corev1.EnvVar{Name: telemetry.CaptureContentEnv, Value: "true"})
	}
	return env
}
