package controllers

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/controllers/render"
	"github.com/agentry-dev/agentry/internal/devkit/testutil"
	"github.com/agentry-dev/agentry/internal/protocol/manifest"
	"github.com/agentry-dev/agentry/runtime/registry"
)

var ctx = context.Background()

// decode turns one YAML document into a typed object of the operator's scheme.
func decode(t *testing.T, doc string) client.Object {
	t.Helper()
	var head struct{ APIVersion, Kind string }
	testutil.NoError(t, yaml.Unmarshal([]byte(doc), &head))
	obj, err := NewScheme().New(schema.FromAPIVersionAndKind(head.APIVersion, head.Kind))
	testutil.NoError(t, err)
	if err := yaml.UnmarshalStrict([]byte(doc), obj); err != nil {
		t.Fatalf("%s: %v", head.Kind, err)
	}
	return obj.(client.Object)
}

// create creates every document of a multi-document YAML in namespace ns.
func create(t *testing.T, ns, docs string) {
	t.Helper()
	for _, doc := range strings.Split(docs, "\n---\n") {
		if strings.TrimSpace(doc) == "" {
			continue
		}
		obj := decode(t, doc)
		obj.SetNamespace(ns)
		if err := k8s.Create(ctx, obj); err != nil {
			t.Fatalf("create %T %s: %v", obj, obj.GetName(), err)
		}
	}
}

// agentDoc and toolDoc are an Agent's and a Tool's YAML with the given spec lines.
func agentDoc(name, spec string) string {
	return fmt.Sprintf("apiVersion: agentry.dev/v1alpha1\nkind: Agent\nmetadata: {name: %s}\nspec:\n%s", name, spec)
}

func modelConfigDoc(name, spec string) string {
	return fmt.Sprintf("apiVersion: agentry.dev/v1alpha1\nkind: ModelConfig\nmetadata: {name: %s}\nspec:\n%s", name, spec)
}

func toolDoc(name, execute string) string {
	return fmt.Sprintf("apiVersion: agentry.dev/v1alpha1\nkind: Tool\nmetadata: {name: %s}\nspec:\n  id: %s\n  description: d\n  inputSchema: {type: object}\n  execute: %s", name, name, execute)
}

// createSamples creates every document of config/samples in ns.
func createSamples(t *testing.T, ns string) {
	t.Helper()
	files, _ := filepath.Glob("../config/samples/*.yaml")
	for _, f := range files {
		data, err := os.ReadFile(f)
		testutil.NoError(t, err)
		create(t, ns, string(data))
	}
}

func secret(t *testing.T, ns, name string, data map[string]string) *corev1.Secret {
	t.Helper()
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, StringData: data}
	testutil.NoError(t, k8s.Create(ctx, s))
	return s
}

// get reads ns/name into obj.
func get[T client.Object](t *testing.T, ns, name string, obj T) T {
	t.Helper()
	testutil.NoError(t, k8s.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, obj))
	return obj
}

func getAgent(t *testing.T, ns, name string) *v1alpha1.Agent {
	return get(t, ns, name, &v1alpha1.Agent{})
}

// waitCondition waits until the Agent's condition has the status and reason, for the current
// generation, and a message that holds each of contains; it returns the Agent.
func waitCondition(t *testing.T, ns, name, typ string, status metav1.ConditionStatus, reason string, contains ...string) *v1alpha1.Agent {
	t.Helper()
	var a *v1alpha1.Agent
	eventually(t, fmt.Sprintf("%s/%s %s=%s (%s) %q", ns, name, typ, status, reason, contains), func() error {
		a = getAgent(t, ns, name)
		c := meta.FindStatusCondition(a.Status.Conditions, typ)
		if c == nil {
			return fmt.Errorf("no %s condition yet", typ)
		}
		if c.Status != status || c.Reason != reason || c.ObservedGeneration != a.Generation || a.Status.ObservedGeneration != a.Generation {
			return fmt.Errorf("%s is %s/%s (gen %d/%d): %s", typ, c.Status, c.Reason, c.ObservedGeneration, a.Generation, c.Message)
		}
		for _, want := range contains {
			if !strings.Contains(c.Message, want) {
				return fmt.Errorf("%s lacks %q: %s", typ, want, c.Message)
			}
		}
		return nil
	})
	return a
}

// waitRolled waits until the status describes the Agent's generation and its Deployment's pod
// template carries the status's config hash. Wait first for the conditions that fix the config:
// a Secret or Tool the operator has not seen yet changes the hash, and the Deployment again.
func waitRolled(t *testing.T, ns, name string) (*v1alpha1.Agent, *appsv1.Deployment) {
	t.Helper()
	var a *v1alpha1.Agent
	var d *appsv1.Deployment
	eventually(t, fmt.Sprintf("the Deployment of %s/%s to carry the status's config hash", ns, name), func() error {
		a, d = getAgent(t, ns, name), deployment(t, ns, name)
		if h := d.Spec.Template.Annotations[render.AnnotationConfigHash]; a.Status.ObservedGeneration != a.Generation || h != a.Status.ConfigHash {
			return fmt.Errorf("deployment hash %q, status %q (gen %d/%d)", h, a.Status.ConfigHash, a.Status.ObservedGeneration, a.Generation)
		}
		return nil
	})
	return a, d
}

// updateAgent applies change to the current Agent, again when the operator's status patch got
// there first.
func updateAgent(t *testing.T, ns, name string, change func(*v1alpha1.Agent)) {
	t.Helper()
	modify(t, &v1alpha1.Agent{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}, false, change)
}

// agentEvents are the events about the named object in ns, as "reason: message".
func agentEvents(t *testing.T, ns, name string) []string {
	t.Helper()
	var list corev1.EventList
	testutil.NoError(t, k8s.List(ctx, &list, client.InNamespace(ns)))
	var out []string
	for _, e := range list.Items {
		if e.InvolvedObject.Name == name {
			out = append(out, e.Reason+": "+e.Message)
		}
	}
	return out
}

// fromSecret reports whether the container's variable name comes from key of Secret secret only.
func fromSecret(c corev1.Container, name, secret, key string) bool {
	for _, e := range c.Env {
		if e.Name == name {
			return e.Value == "" && e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil && e.ValueFrom.SecretKeyRef.Name == secret && e.ValueFrom.SecretKeyRef.Key == key
		}
	}
	return false
}

// noEventHolds fails when an event about the named object holds secret.
func noEventHolds(t *testing.T, ns, name, secret string) {
	t.Helper()
	for _, ev := range agentEvents(t, ns, name) {
		if strings.Contains(ev, secret) {
			t.Errorf("an event about %s holds a secret value: %s", name, ev)
		}
	}
}

func condition(a *v1alpha1.Agent, typ string) metav1.Condition {
	c := meta.FindStatusCondition(a.Status.Conditions, typ)
	if c == nil {
		return metav1.Condition{}
	}
	return *c
}

func child[T client.Object](t *testing.T, ns, agent string, obj T) T {
	t.Helper()
	eventually(t, fmt.Sprintf("%T of %s/%s", obj, ns, agent), func() error {
		return k8s.Get(ctx, types.NamespacedName{Namespace: ns, Name: render.ChildName(agent)}, obj)
	})
	return obj
}

func deployment(t *testing.T, ns, agent string) *appsv1.Deployment {
	return child(t, ns, agent, &appsv1.Deployment{})
}

// renderedRegistry loads the Agent's ConfigMap the way the runtime does and builds its registry.
func renderedRegistry(t *testing.T, ns, agent string) (*registry.Registry, []registry.Warning, string) {
	t.Helper()
	cm := child(t, ns, agent, &corev1.ConfigMap{})
	data := cm.Data[render.ConfigKey]
	loader, err := manifest.NewLoader()
	testutil.NoError(t, err)
	set := &manifest.Set{}
	if err := loader.Decode(ctx, "configmap", []byte(data), set); err != nil {
		t.Fatalf("the rendered config does not load in the runtime: %v\n%s", err, data)
	}
	reg, warnings, err := registry.Build(ctx, set, registry.Options{})
	if err != nil {
		t.Fatalf("the rendered config does not build: %v\n%s", err, data)
	}
	return reg, warnings, data
}

func toYAML(t *testing.T, v any) string {
	b, err := yaml.Marshal(v)
	testutil.NoError(t, err)
	return string(bytes.TrimSpace(b))
}

// modify applies change to the object's current version and writes it (its status when
// status is set), again when the operator wrote the object between the read and the write.
func modify[T client.Object](t *testing.T, obj T, status bool, change func(T)) {
	t.Helper()
	if err := tryModify(obj, status, change); err != nil {
		t.Fatalf("update %T %s: %v", obj, obj.GetName(), err)
	}
}

// tryModify is modify for a change the API server may refuse: it returns why.
func tryModify[T client.Object](obj T, status bool, change func(T)) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
			return err
		}
		change(obj)
		if status {
			return k8s.Status().Update(ctx, obj)
		}
		return k8s.Update(ctx, obj)
	})
}
