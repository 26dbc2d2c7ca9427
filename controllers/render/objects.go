package render

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/runtime/llm"
	"github.com/agentry-dev/agentry/runtime/memlimit"
)

// document is an object as the runtime reads it: identity and spec, nothing the cluster added.
type document struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Metadata   map[string]string `json:"metadata"`
	Spec       any               `json:"spec"`
	Status     any               `json:"status,omitempty"`
}

func doc(kind, name, namespace string, spec any) document {
	return document{APIVersion: v1alpha1.GroupVersion.String(), Kind: kind, Metadata: map[string]string{"name": name, "namespace": namespace}, Spec: spec}
}

// ConfigYAML is the runtime config: the Agent (its tool map reduced to the entries that fire),
// its Tools, MCPServers and FrontendActions as multi-document YAML — the same documents
// `agentry serve` reads. An MCPServer carries the tools the operator discovered (status.tools
// only: its conditions and times change without changing what the pods offer). It never holds
// a Secret value; Secrets are referenced by name only.
func ConfigYAML(r Resolved) ([]byte, error) {
	spec := r.Agent.Spec.DeepCopy()
	spec.Tools = nil
	for _, t := range r.Tools {
		spec.Tools = append(spec.Tools, t.Entry)
	}
	spec.Tools = append(spec.Tools, r.MCP...)
	spec.FrontendActions = nil
	for _, f := range r.FrontendActions {
		spec.FrontendActions = append(spec.FrontendActions, v1alpha1.LocalObjectReference{Name: f.Name})
	}
	// The runtime section configures pods, not the agent; leave it out of the agent's config.
	spec.Runtime = nil
	docs := []document{doc("Agent", r.Agent.Name, r.Agent.Namespace, spec)}
	for _, t := range r.Tools {
		docs = append(docs, doc("Tool", t.Tool.Name, t.Tool.Namespace, t.Tool.Spec))
	}
	for _, m := range r.MCPServers {
		d := doc("MCPServer", m.Name, m.Namespace, m.Spec)
		d.Status = v1alpha1.MCPServerStatus{Tools: m.Status.Tools}
		docs = append(docs, d)
	}
	for _, f := range r.FrontendActions {
		docs = append(docs, doc("FrontendAction", f.Name, f.Namespace, f.Spec))
	}
	var buf bytes.Buffer
	buf.WriteString("# Rendered by the Agentry operator; do not edit.\n")
	for i, d := range docs {
		if i > 0 {
			buf.WriteString("---\n")
		}
		b, err := yaml.Marshal(d)
		if err != nil {
			return nil, fmt.Errorf("failed to render %s %q: %w", d.Kind, d.Metadata["name"], err)
		}
		buf.Write(b)
	}
	return buf.Bytes(), nil
}

func meta(a *v1alpha1.Agent, component string) metav1.ObjectMeta {
	labels := Labels(a.Name)
	labels[LabelComponent] = component
	return metav1.ObjectMeta{Name: ChildName(a.Name), Namespace: a.Namespace, Labels: labels}
}

// ConfigMapFor holds the rendered config.
func ConfigMapFor(a *v1alpha1.Agent, config []byte) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: meta(a, "config"),
		Data:       map[string]string{ConfigKey: string(config)},
	}
}

// DeploymentFor runs `agentry serve` on the rendered config. The model key reaches the pod only
// as an env var from secretKeyRef, header Secrets only as read-only volumes; the pod runs as
// non-root with a read-only root filesystem and no capabilities.
func DeploymentFor(r Resolved, cfg Config, configHash string) *appsv1.Deployment {
	a := r.Agent
	rt := a.Spec.Runtime
	if rt == nil {
		rt = &v1alpha1.RuntimeSpec{}
	}
	image := cfg.RuntimeImage
	if rt.Image != "" {
		image = rt.Image
	}
	pullPolicy := corev1.PullPolicy(cfg.ImagePullPolicy)
	if rt.ImagePullPolicy != "" {
		pullPolicy = rt.ImagePullPolicy
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

	env := []corev1.EnvVar{}
	if ref := a.Spec.Model.APIKeySecretRef; ref != nil {
		env = append(env, corev1.EnvVar{Name: llm.APIKeyEnv, ValueFrom: &corev1.EnvVarSource{
			SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: ref.Name}, Key: ref.Key},
		}})
	}
	if az := a.Spec.Model.Azure; az != nil && az.TokenSecretRef != nil {
		env = append(env, corev1.EnvVar{Name: llm.AzureTokenEnv, ValueFrom: &corev1.EnvVarSource{
			SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: az.TokenSecretRef.Name}, Key: az.TokenSecretRef.Key},
		}})
	}
	if m := a.Spec.Memory; m != nil && m.URLSecretRef != nil {
		env = append(env, corev1.EnvVar{Name: "AGENTRY_MEMORY_URL", ValueFrom: &corev1.EnvVarSource{
			SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: m.URLSecretRef.Name}, Key: m.URLSecretRef.Key},
		}})
	}
	env = append(env, tracingEnv(cfg.Tracing, a.Namespace, a.Name)...)
	// The config is rendered from objects the API server validated; the soft memory limit of
	// the Go runtime follows the container's limit.
	env = append(env,
		corev1.EnvVar{Name: PrevalidatedEnv, Value: "true"},
		corev1.EnvVar{Name: memlimit.Env, ValueFrom: &corev1.EnvVarSource{
			ResourceFieldRef: &corev1.ResourceFieldSelector{ContainerName: "runtime", Resource: "limits.memory", Divisor: resource.MustParse("1")},
		}})
	userEnv := map[string]bool{}
	for _, e := range rt.Env {
		userEnv[e.Name] = true
	}
	merged := make([]corev1.EnvVar, 0, len(env)+len(rt.Env))
	for _, e := range env {
		if !userEnv[e.Name] {
			merged = append(merged, e)
		}
	}
	merged = append(merged, rt.Env...)

	volumes := []corev1.Volume{
		{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: ChildName(a.Name)}, DefaultMode: ptr.To(int32(0o440)),
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

	d := &appsv1.Deployment{
		ObjectMeta: meta(a, "runtime"),
		Spec: appsv1.DeploymentSpec{
			Replicas: replicas,
			Selector: &metav1.LabelSelector{MatchLabels: Labels(a.Name)},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: podLabels, Annotations: podAnnotations},
				Spec: corev1.PodSpec{
					AutomountServiceAccountToken:  ptr.To(false),
					TerminationGracePeriodSeconds: ptr.To(int64(TerminationGracePeriodSeconds)),
					SecurityContext: &corev1.PodSecurityContext{
						RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To(int64(65532)), RunAsGroup: ptr.To(int64(65532)), FSGroup: ptr.To(int64(65532)),
						SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
					},
					Containers: []corev1.Container{{
						Name:            "runtime",
						Image:           image,
						ImagePullPolicy: pullPolicy,
						Args:            runtimeArgs(cfg),
						Ports:           []corev1.ContainerPort{{Name: PortName, ContainerPort: RuntimePort, Protocol: corev1.ProtocolTCP}},
						Env:             merged,
						VolumeMounts:    mounts,
						Resources:       resources,
						ReadinessProbe:  probe("/readyz", 5),
						LivenessProbe:   probe("/healthz", 10),
						// Endpoints and kube-proxy's rules take a moment to drop a terminating pod:
						// it keeps serving new requests that long before it drains (a rollout
						// otherwise refuses a request routed to an old pod).
						Lifecycle: &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: PreStopSeconds}}},
						SecurityContext: &corev1.SecurityContext{
							AllowPrivilegeEscalation: ptr.To(false),
							ReadOnlyRootFilesystem:   ptr.To(true),
							RunAsNonRoot:             ptr.To(true),
							Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
						},
					}},
					Volumes: volumes,
				},
			},
		},
	}
	return d
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

// ServiceFor is the ClusterIP Service in front of the runtime pods.
func ServiceFor(a *v1alpha1.Agent) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: meta(a, "runtime"),
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeClusterIP,
			Selector: Labels(a.Name),
			Ports: []corev1.ServicePort{{
				Name: PortName, Port: RuntimePort, TargetPort: intstr.FromString(PortName), Protocol: corev1.ProtocolTCP,
			}},
		},
	}
}

// IngressFor routes the platform paths of the Agent (PlatformPaths, exact matches) to the
// Service, or returns nil when the Agent asks for no Ingress or no host is known
// (spec.endpoint.ingress.host, else the operator default). Whether the Agent may be public at
// all (auth) is the reconciler's decision.
func IngressFor(a *v1alpha1.Agent, cfg Config) *networkingv1.Ingress {
	ep := a.Spec.Endpoint
	if ep == nil || ep.Ingress == nil {
		return nil
	}
	host, class, tls := IngressSettings(a, cfg)
	if host == "" {
		return nil
	}
	paths := make([]networkingv1.HTTPIngressPath, 0, len(PlatformPaths))
	for _, p := range PlatformPaths {
		paths = append(paths, networkingv1.HTTPIngressPath{
			Path:     "/api/agents/" + a.EffectiveAgentID() + "/" + p,
			PathType: ptr.To(networkingv1.PathTypeExact),
			Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{
				Name: ChildName(a.Name), Port: networkingv1.ServiceBackendPort{Name: PortName},
			}},
		})
	}
	ing := &networkingv1.Ingress{
		ObjectMeta: meta(a, "ingress"),
		Spec: networkingv1.IngressSpec{
			Rules: []networkingv1.IngressRule{{
				Host:             host,
				IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{Paths: paths}},
			}},
		},
	}
	if len(ep.Ingress.Annotations) > 0 {
		ing.Annotations = map[string]string{}
		for k, v := range ep.Ingress.Annotations {
			ing.Annotations[k] = v
		}
	}
	if class != "" {
		ing.Spec.IngressClassName = ptr.To(class)
	}
	if tls != "" {
		ing.Spec.TLS = []networkingv1.IngressTLS{{Hosts: []string{host}, SecretName: tls}}
	}
	return ing
}

// IngressSettings resolves host, class and TLS Secret: the Agent's, else the operator's default.
// The default TLS Secret applies only together with the default host it was made for.
func IngressSettings(a *v1alpha1.Agent, cfg Config) (host, class, tlsSecret string) {
	in := a.Spec.Endpoint.Ingress
	host, class, tlsSecret = in.Host, in.ClassName, in.TLSSecretName
	if host == "" {
		host = cfg.DefaultIngress.Host
		if tlsSecret == "" {
			tlsSecret = cfg.DefaultIngress.TLSSecretName
		}
	}
	if class == "" {
		class = cfg.DefaultIngress.ClassName
	}
	return host, class, tlsSecret
}

// SpecHash fingerprints what the operator wants of a child object, so that it writes only
// when that changes.
func SpecHash(obj any) string {
	b, _ := json.Marshal(obj)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])[:16]
}

// tracingEnv is the OTEL_* environment of a runtime pod when tracing is on: where to export,
// the headers from a Secret (never their value in the spec), sampling, and which agent the
// spans come from.
func tracingEnv(t Tracing, namespace, agent string) []corev1.EnvVar {
	if t.Endpoint == "" {
		return nil
	}
	env := []corev1.EnvVar{
		{Name: "OTEL_EXPORTER_OTLP_ENDPOINT", Value: t.Endpoint},
		{Name: "OTEL_SERVICE_NAME", Value: "agentry-runtime"},
		{Name: "OTEL_RESOURCE_ATTRIBUTES", Value: "k8s.namespace.name=" + namespace + ",agentry.agent=" + agent},
	}
	if t.HeadersSecret != "" {
		key := t.HeadersKey
		if key == "" {
			key = "headers"
		}
		env = append(env, corev1.EnvVar{Name: "OTEL_EXPORTER_OTLP_HEADERS", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: t.HeadersSecret}, Key: key, Optional: ptr.To(true),
		}}})
	}
	if t.SamplerRatio != "" {
		env = append(env, corev1.EnvVar{Name: "OTEL_TRACES_SAMPLER", Value: "parentbased_traceidratio"}, corev1.EnvVar{Name: "OTEL_TRACES_SAMPLER_ARG", Value: t.SamplerRatio})
	}
	if t.CaptureContent {
		env = append(env, corev1.EnvVar{Name: "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", Value: "true"})
	}
	return env
}
