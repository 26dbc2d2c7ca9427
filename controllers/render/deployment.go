package render

import (
	"cmp"
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/internal/platform/telemetry"
	"github.com/agentry-dev/agentry/internal/protocol/manifest/decode"
	"github.com/agentry-dev/agentry/runtime/llm"
	"github.com/agentry-dev/agentry/runtime/memlimit"
	"github.com/agentry-dev/agentry/runtime/secrets"
)

// DeploymentFor runs `agentry serve` on the rendered config. The model key reaches the pod only
// as an env var from secretKeyRef (runtimeEnv), header Secrets only as read-only volumes
// (runtimeVolumes); the pod runs as non-root, read-only root filesystem, no capabilities.
func DeploymentFor(r Resolved, cfg Config, configHash string) *appsv1.Deployment {
	a := r.Agent
	rt := a.Spec.Runtime
	if rt == nil {
		rt = &v1alpha1.RuntimeSpec{}
	}
	// Unset replicas stay unset: the API server defaults a new Deployment to 1 and the
	// operator leaves the field to whoever scales it (an HPA, kubectl scale).
	var replicas *int32
	if rt.Replicas != nil {
		replicas = ptr.To(*rt.Replicas)
	}
	podLabels := Labels(a.Name)
	podLabels[LabelComponent] = "runtime"
	for k, v := range rt.PodLabels {
		if _, reserved := podLabels[k]; !reserved {
			podLabels[k] = v
		}
	}
	podAnnotations := map[string]string{}
	for k, v := range rt.PodAnnotations {
		podAnnotations[k] = v
	}
	podAnnotations[AnnotationConfigHash] = configHash
	volumes, mounts := runtimeVolumes(r)
	return &appsv1.Deployment{
		ObjectMeta: meta(a, "runtime"),
		Spec: appsv1.DeploymentSpec{
			Replicas: replicas,
			Selector: &metav1.LabelSelector{MatchLabels: Labels(a.Name)},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: podLabels, Annotations: podAnnotations},
				Spec: corev1.PodSpec{
					// Only an agent that accepts ServiceAccount tokens needs its own, to read the
					// cluster's keys.
					AutomountServiceAccountToken:  ptr.To(acceptsServiceAccounts(a)),
					TerminationGracePeriodSeconds: ptr.To(int64(TerminationGracePeriodSeconds)),
					SecurityContext: &corev1.PodSecurityContext{
						RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To(int64(65532)), RunAsGroup: ptr.To(int64(65532)), FSGroup: ptr.To(int64(65532)),
						SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
					},
					Containers: []corev1.Container{runtimeContainer(cfg, rt, runtimeEnv(a, cfg), mounts)},
					Volumes:    volumes,
				},
			},
		},
	}
}

// acceptsServiceAccounts: the agent's spec.endpoint.auth.serviceAccounts lists any.
func acceptsServiceAccounts(a *v1alpha1.Agent) bool {
	ep := a.Spec.Endpoint
	return ep != nil && ep.Auth != nil && len(ep.Auth.ServiceAccounts) > 0
}

// runtimeContainer is the one container of the runtime pods.
func runtimeContainer(cfg Config, rt *v1alpha1.RuntimeSpec, env []corev1.EnvVar, mounts []corev1.VolumeMount) corev1.Container {
	image := cfg.RuntimeImage
	if rt.Image != "" {
		image = rt.Image
	}
	pullPolicy := corev1.PullPolicy(cfg.ImagePullPolicy)
	if rt.ImagePullPolicy != "" {
		pullPolicy = rt.ImagePullPolicy
	}
	resources := cfg.resources()
	if rt.Resources != nil {
		resources = *rt.Resources.DeepCopy()
	}
	probe := func(path string, period int32) *corev1.Probe {
		return &corev1.Probe{
			ProbeHandler:  corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromString(PortName)}},
			PeriodSeconds: period, TimeoutSeconds: 2, FailureThreshold: 3,
		}
	}
	return corev1.Container{
		Name:            "runtime",
		Image:           image,
		ImagePullPolicy: pullPolicy,
		Args:            runtimeArgs(cfg),
		Ports:           []corev1.ContainerPort{{Name: PortName, ContainerPort: RuntimePort, Protocol: corev1.ProtocolTCP}},
		Env:             env,
		VolumeMounts:    mounts,
		Resources:       resources,
		ReadinessProbe:  probe("/readyz", 5),
		LivenessProbe:   probe("/healthz", 10),
		// Endpoints and kube-proxy's rules take a moment to drop a terminating pod: it keeps
		// serving new requests that long before it drains (a rollout otherwise refuses a
		// request routed to an old pod).
		Lifecycle: &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: PreStopSeconds}}},
		SecurityContext: &corev1.SecurityContext{
			AllowPrivilegeEscalation: ptr.To(false),
			ReadOnlyRootFilesystem:   ptr.To(true),
			RunAsNonRoot:             ptr.To(true),
			Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
		},
	}
}

// runtimeArgs are the `agentry serve` arguments; the operator-wide proxy and CORS settings are
// passed only when set, so the runtime's own defaults apply otherwise.
func runtimeArgs(cfg Config) []string {
	args := []string{"serve", "--config", ConfigDir, "--addr", fmt.Sprintf(":%d", RuntimePort),
		"--secrets-dir", SecretsDir, "--log-format", "json"}
	if len(cfg.TrustedProxies) > 0 {
		args = append(args, "--trusted-proxies="+strings.Join(cfg.TrustedProxies, ","))
	}
	if len(cfg.CORSOrigins) > 0 {
		args = append(args, "--cors-origins="+strings.Join(cfg.CORSOrigins, ","))
	}
	return args
}

// runtimeVolumes are the pod's volumes and the container's mounts: the config, a writable /tmp
// and each Secret the runtime reads as files (MountedSecrets) under SecretsDir/<name>.
func runtimeVolumes(r Resolved) ([]corev1.Volume, []corev1.VolumeMount) {
	volumes := []corev1.Volume{
		{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: ChildName(r.Agent.Name)}, DefaultMode: ptr.To(int32(0o440)),
		}}},
		{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: ptr.To(resource.MustParse("64Mi"))}}},
	}
	mounts := []corev1.VolumeMount{
		{Name: "config", MountPath: ConfigDir, ReadOnly: true},
		{Name: "tmp", MountPath: "/tmp"},
	}
	for i, s := range MountedSecrets(r) {
		name := fmt.Sprintf("secret-%d", i)
		volumes = append(volumes, corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
			// Optional: a missing header Secret breaks only what uses it (the runtime reports it),
			// not the whole pod.
			SecretName: s, DefaultMode: ptr.To(int32(0o440)), Optional: ptr.To(true),
		}}})
		mounts = append(mounts, corev1.VolumeMount{Name: name, MountPath: SecretsDir + "/" + s, ReadOnly: true})
	}
	return volumes, mounts
}

// runtimeEnv is the runtime container's environment, by the names the runtime reads: Secret
// values only from secretKeyRef (the model's API key or Entra token, the memory URL), tracing,
// the prevalidated config and the memory limit. spec.runtime.env replaces a name it repeats.
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
		corev1.EnvVar{Name: decode.PrevalidatedEnv, Value: "true"},
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
		key = cmp.Or(key, "headers")
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
