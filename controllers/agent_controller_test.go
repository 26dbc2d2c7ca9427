package controllers

import (
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/controllers/render"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
	manifestdecode "github.com/agentry-dev/agentry/internal/protocol/manifest/decode"
)

const apiKey = "sk-test-SECRET-value-1234"

func TestSamplesGetTheFullObjectSet(t *testing.T) {
	ns := "t-samples"
	createSamples(t, ns)
	secret(t, ns, "openai", map[string]string{"apiKey": apiKey})

	for _, name := range []string{"chef", "weather"} {
		// The Agents come before their Tools (and the Secret after both): wait for each.
		var a *v1alpha1.Agent
		for _, typ := range []string{v1alpha1.ConditionModelSecretResolved, v1alpha1.ConditionToolsResolved, v1alpha1.ConditionFrontendActionsResolved} {
			a = waitCondition(t, ns, name, typ, metav1.ConditionTrue, v1alpha1.ReasonResolved)
		}
		if c := condition(a, v1alpha1.ConditionExposed); c.Status != metav1.ConditionFalse || c.Reason != v1alpha1.ReasonNotExposed {
			t.Errorf("%s without ingress or publicURL must be NotExposed: %+v", name, c)
		}
		if c := condition(a, v1alpha1.ConditionReady); c.Status != metav1.ConditionFalse {
			t.Errorf("%s cannot be Ready before its Deployment is available: %+v", name, c)
		}
		if a.Status.AgentID != name || a.Status.Endpoints == nil || a.Status.Endpoints.Internal != fmt.Sprintf("http://agentry-%s.%s.svc.cluster.local:4111/api/agents/%s", name, ns, name) {
			t.Errorf("%s status: %+v", name, a.Status)
		}

		dep := deployment(t, ns, name)
		svc := child(t, ns, name, &corev1.Service{})
		cm := child(t, ns, name, &corev1.ConfigMap{})
		for _, obj := range []client.Object{dep, svc, cm} {
			ref := metav1.GetControllerOf(obj)
			if ref == nil || ref.Kind != "Agent" || ref.Name != name || ref.UID != a.UID || ref.BlockOwnerDeletion == nil || !*ref.BlockOwnerDeletion {
				t.Errorf("%T of %s: owner %+v", obj, name, ref)
			}
		}
		if strings.Contains(cm.Data[render.ConfigKey], apiKey) {
			t.Errorf("the ConfigMap of %s holds the API key", name)
		}
		pod := dep.Spec.Template.Spec
		c := pod.Containers[0]
		if c.Image != renderCfg.RuntimeImage || strings.Join(c.Args, " ") != "serve --config /etc/agentry/config --addr :4111 --secrets-dir /var/run/agentry/secrets --log-format json" {
			t.Errorf("container: %s %v", c.Image, c.Args)
		}
		if len(c.Env) != 3 || c.Env[0].Name != "OPENAI_API_KEY" || c.Env[0].Value != "" || c.Env[0].ValueFrom.SecretKeyRef.Name != "openai" || c.Env[0].ValueFrom.SecretKeyRef.Key != "apiKey" {
			t.Errorf("the key must come from secretKeyRef only: %+v", c.Env)
		}
		// Besides the key: the config is the operator's rendering of validated objects, and the
		// Go runtime's soft memory limit follows the container's limit.
		if len(c.Env) == 3 && (c.Env[1] != corev1.EnvVar{Name: manifestdecode.PrevalidatedEnv, Value: "true"} ||
			c.Env[2].Name != "AGENTRY_MEMORY_LIMIT" || c.Env[2].ValueFrom.ResourceFieldRef.Resource != "limits.memory") {
			t.Errorf("runtime env: %+v", c.Env)
		}
		sc := c.SecurityContext
		if !*sc.ReadOnlyRootFilesystem || *sc.AllowPrivilegeEscalation || !*pod.SecurityContext.RunAsNonRoot || sc.Capabilities.Drop[0] != "ALL" {
			t.Errorf("security context: %+v", sc)
		}
		if c.ReadinessProbe.HTTPGet.Path != "/readyz" || c.LivenessProbe.HTTPGet.Path != "/healthz" {
			t.Error("probes")
		}
		if got := dep.Spec.Template.Annotations[render.AnnotationConfigHash]; got == "" || got != a.Status.ConfigHash {
			t.Errorf("config hash annotation %q, status %q", got, a.Status.ConfigHash)
		}
		if svc.Spec.Type != corev1.ServiceTypeClusterIP || svc.Spec.Ports[0].Port != 4111 {
			t.Errorf("service: %+v", svc.Spec)
		}
	}

	reg, warnings, _ := renderedRegistry(t, ns, "chef")
	chef, ok := reg.Get("chef")
	if !ok || len(warnings) != 0 {
		t.Fatalf("chef in rendered config: %v %v", ok, warnings)
	}
	if len(chef.Agent.Tools) != 2 || len(chef.Agent.FrontendActions) != 1 || chef.Agent.MaxSteps != 10 {
		t.Errorf("rendered chef: tools %v, actions %v", chef.Agent.ToolKeys, chef.Agent.FrontendActions)
	}
}

func TestToolAndSecretChangesRollThePods(t *testing.T) {
	ns := "t-roll"
	createSamples(t, ns)
	secret(t, ns, "openai", map[string]string{"apiKey": apiKey})
	waitCondition(t, ns, "weather", v1alpha1.ConditionModelSecretResolved, metav1.ConditionTrue, v1alpha1.ReasonResolved)
	// The first hash must already include the Tool: otherwise the Tool's arrival, not its edit,
	// changes the hash below.
	waitCondition(t, ns, "weather", v1alpha1.ConditionToolsResolved, metav1.ConditionTrue, v1alpha1.ReasonResolved)
	_, dep := waitRolled(t, ns, "weather")
	hashOf := func() string {
		return deployment(t, ns, "weather").Spec.Template.Annotations[render.AnnotationConfigHash]
	}
	first := dep.Spec.Template.Annotations[render.AnnotationConfigHash]

	// chef too is compared with itself once its config is complete: its Tools and action come
	// after it, the Secret after them.
	for _, typ := range []string{v1alpha1.ConditionModelSecretResolved, v1alpha1.ConditionToolsResolved, v1alpha1.ConditionFrontendActionsResolved} {
		waitCondition(t, ns, "chef", typ, metav1.ConditionTrue, v1alpha1.ReasonResolved)
	}
	chefBefore, chefDep := waitRolled(t, ns, "chef")
	modify(t, &v1alpha1.Tool{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "weather"}}, false, func(tool *v1alpha1.Tool) {
		tool.Spec.Description = "Estimates the temperature, now with a better description."
	})
	var second string
	eventually(t, "a Tool edit to change the pod template", func() error {
		if second = hashOf(); second == first {
			return fmt.Errorf("hash still %s", second)
		}
		return nil
	})
	_, _, data := renderedRegistry(t, ns, "weather")
	if !strings.Contains(data, "now with a better description") {
		t.Error("the ConfigMap must carry the new Tool")
	}
	// chef does not use the weather Tool: its pods and status are untouched.
	if d := deployment(t, ns, "chef"); d.Generation != chefDep.Generation {
		t.Errorf("chef's Deployment changed: generation %d → %d", chefDep.Generation, d.Generation)
	}
	if c := getAgent(t, ns, "chef"); c.Status.ConfigHash != chefBefore.Status.ConfigHash {
		t.Error("chef's config hash changed")
	}

	modify(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "openai"}}, false, func(s *corev1.Secret) { s.StringData = map[string]string{"apiKey": "sk-rotated"} })
	eventually(t, "a Secret rotation to change the pod template", func() error {
		if h := hashOf(); h == second {
			return fmt.Errorf("hash still %s", h)
		}
		return nil
	})
	if got := getAgent(t, ns, "chef").Status.ConfigHash; got == "" {
		t.Error("chef has no hash")
	}
}

func TestAvailabilityMakesTheAgentReady(t *testing.T) {
	ns := "t-avail"
	create(t, ns, `apiVersion: agentry.dev/v1alpha1
kind: Agent
metadata: {name: live}
spec:
  model: {name: m}
  runtime: {replicas: 2}
  endpoint:
    publicURL: "https://agents.example.org"
    auth: {headersSecretRef: {name: platform-auth}}`)
	secret(t, ns, "platform-auth", map[string]string{"Authorization": "Bearer platform-SECRET"})
	waitCondition(t, ns, "live", v1alpha1.ConditionAvailable, metav1.ConditionFalse, v1alpha1.ReasonDeploymentUnavailable)
	// The Secret is in the config hash: once the operator has seen it (Ready no longer says it
	// is missing), the Deployment it rolled for it is the one to report on. Reporting on an
	// earlier one would make the replicas a rollout in progress.
	waitCondition(t, ns, "live", v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonNotReady)
	a, dep := waitRolled(t, ns, "live")
	if c := condition(a, v1alpha1.ConditionAvailable); c.Status != metav1.ConditionFalse || c.Reason != v1alpha1.ReasonDeploymentUnavailable {
		t.Errorf("Available before the replicas: %+v", c)
	}
	// No kubelet runs in envtest: play the Deployment controller and report one replica.
	modify(t, dep, true, func(dep *appsv1.Deployment) {
		dep.Status = appsv1.DeploymentStatus{ObservedGeneration: dep.Generation, Replicas: 2, ReadyReplicas: 1, AvailableReplicas: 1, UpdatedReplicas: 2}
	})
	a = waitCondition(t, ns, "live", v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady)
	if c := condition(a, v1alpha1.ConditionAvailable); c.Message != "1/2 replicas available" || a.Status.ReadyReplicas != 1 {
		t.Errorf("available: %+v ready %d", c, a.Status.ReadyReplicas)
	}
	if a.Status.DeploymentURL != "https://agents.example.org/api/agents/live/ag-ui" {
		t.Errorf("url %q", a.Status.DeploymentURL)
	}
}

func TestOwnedObjectsAreRestoredAndCollected(t *testing.T) {
	ns := "t-owner"
	create(t, ns, agentDoc("owned", "  model: {name: m}"))
	waitCondition(t, ns, "owned", v1alpha1.ConditionToolsResolved, metav1.ConditionTrue, v1alpha1.ReasonResolved)
	// Someone edits the Deployment; the operator puts its spec back.
	modify(t, deployment(t, ns, "owned"), false, func(dep *appsv1.Deployment) {
		dep.Spec.Template.Spec.Containers[0].Image = "evil:latest"
	})
	eventually(t, "the Deployment to be restored", func() error {
		d := deployment(t, ns, "owned")
		if img := d.Spec.Template.Spec.Containers[0].Image; img != renderCfg.RuntimeImage {
			return fmt.Errorf("image %s", img)
		}
		return nil
	})
	// A deleted child is recreated.
	svc := child(t, ns, "owned", &corev1.Service{})
	testutil.NoError(t, k8s.Delete(ctx, svc))
	eventually(t, "the Service to be recreated", func() error {
		var s corev1.Service
		if err := k8s.Get(ctx, types.NamespacedName{Namespace: ns, Name: svc.Name}, &s); err != nil {
			return err
		}
		if s.UID == svc.UID {
			return fmt.Errorf("not deleted yet")
		}
		return nil
	})
}

// A reconcile that finds nothing changed writes nothing: not the children, not the status.
func TestNoWritesWhenNothingChanged(t *testing.T) {
	rec := testutil.RecordSpans(t)
	ns := "t-owner"
	create(t, ns, agentDoc("quiet", "  model: {name: m}"))
	waitCondition(t, ns, "quiet", v1alpha1.ConditionToolsResolved, metav1.ConditionTrue, v1alpha1.ReasonResolved)
	// A Deployment status change the Agent does not report triggers a reconcile.
	// (Its reconcile may start before the write returns: the time is taken before.)
	poke := func(reason string) time.Time {
		before := time.Now()
		modify(t, deployment(t, ns, "quiet"), true, func(d *appsv1.Deployment) {
			d.Status.Conditions = append(d.Status.Conditions, appsv1.DeploymentCondition{Type: appsv1.DeploymentConditionType(reason), Status: corev1.ConditionTrue, Reason: "Poke", LastUpdateTime: metav1.Now()})
		})
		return before
	}
	// The first poke's reconcile starts after the creation's have written all there is to write.
	reconciledSince(t, rec, ns, "quiet", poke("Settle"))
	dep := deployment(t, ns, "quiet")
	cm := child(t, ns, "quiet", &corev1.ConfigMap{})
	a := getAgent(t, ns, "quiet")

	reconciledSince(t, rec, ns, "quiet", poke("Test"))
	d := deployment(t, ns, "quiet")
	c := child(t, ns, "quiet", &corev1.ConfigMap{})
	now := getAgent(t, ns, "quiet")
	if d.Generation != dep.Generation || c.ResourceVersion != cm.ResourceVersion || now.ResourceVersion != a.ResourceVersion {
		t.Errorf("written: deployment gen %d→%d, configmap %s→%s, agent %s→%s", dep.Generation, d.Generation, cm.ResourceVersion, c.ResourceVersion, a.ResourceVersion, now.ResourceVersion)
	}
}
