package controllers

import (
	"context"
	"fmt"
	"reflect"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/controllers/render"
)

// children are the Agent's objects as they are in the cluster (nil: not there).
type children struct {
	deployment *appsv1.Deployment
	ingress    *networkingv1.Ingress
}

// applyChildren applies the ConfigMap, Deployment, Service and Ingress in that order and stops
// at the first object held by someone else: each depends on the one before (the pods mount
// the ConfigMap, the Service selects the pods, the Ingress routes to the Service), so the
// runtime never reads another owner's config and nothing public points at another owner's
// Service. A refused public endpoint (no auth) gets no Ingress, and an existing one is removed.
func (r *AgentReconciler) applyChildren(ctx context.Context, s *agentState) error {
	if s.modelMissing {
		return r.keepChildren(ctx, s)
	}
	a := s.agent
	if _, p, err := r.apply(ctx, a, render.ConfigMapFor(a, s.config)); err != nil || p != nil {
		return s.blocked(p, err)
	}
	dep, p, err := r.apply(ctx, a, render.DeploymentFor(s.resolved, r.Render, s.hash))
	if err != nil || p != nil {
		return s.blocked(p, err)
	}
	s.children.deployment = dep.(*appsv1.Deployment)
	if _, p, err := r.apply(ctx, a, render.ServiceFor(a)); err != nil || p != nil {
		return s.blocked(p, err)
	}
	desired := render.IngressFor(a, r.Render)
	if desired == nil || authRequired(a) {
		return r.deleteOwned(ctx, a, &networkingv1.Ingress{})
	}
	ing, p, err := r.apply(ctx, a, desired)
	if err != nil || p != nil {
		return s.blocked(p, err)
	}
	s.children.ingress = ing.(*networkingv1.Ingress)
	return nil
}

// conflictRetry is how often an Agent blocked by someone else's object looks again: that
// object carries none of our labels, so no watch of ours sees it go away.
const conflictRetry = time.Minute

// blocked makes an object in the way (p) Ready's first problem, looked at again after
// conflictRetry, and passes err on.
func (s *agentState) blocked(p *problem, err error) error {
	if p != nil {
		s.problems = append([]problem{*p}, s.problems...)
		s.result.RequeueAfter = conflictRetry
	}
	return err
}

// desiredState is the part of a child object the operator owns, for hashing.
func desiredState(obj client.Object) any {
	switch o := obj.(type) {
	case *corev1.ConfigMap:
		return []any{o.Labels, o.Data}
	case *appsv1.Deployment:
		return []any{o.Labels, o.Spec}
	case *corev1.Service:
		return []any{o.Labels, o.Spec}
	case *networkingv1.Ingress:
		return []any{o.Labels, o.Annotations, o.Spec}
	}
	panic(fmt.Sprintf("unsupported child type %T", obj))
}

// restore copies the owned part of desired onto existing (an object this Agent controls),
// keeping what the API server and other controllers set (a Service's cluster IPs, status,
// defaults, and the replicas of a Deployment when the Agent leaves them unset).
func restore(existing, desired client.Object) {
	for k, v := range desired.GetLabels() {
		labels := existing.GetLabels()
		if labels == nil {
			labels = map[string]string{}
		}
		labels[k] = v
		existing.SetLabels(labels)
	}
	switch e := existing.(type) {
	case *corev1.ConfigMap:
		e.Data = desired.(*corev1.ConfigMap).Data
		e.BinaryData = nil
	case *appsv1.Deployment:
		replicas := e.Spec.Replicas
		e.Spec = desired.(*appsv1.Deployment).Spec
		if e.Spec.Replicas == nil {
			// Without spec.runtime.replicas the count is someone else's (an HPA): keep it, or
			// the API server would default it back to 1 on this update.
			e.Spec.Replicas = replicas
		}
	case *corev1.Service:
		d := desired.(*corev1.Service)
		e.Spec.Type, e.Spec.Selector, e.Spec.Ports = d.Spec.Type, d.Spec.Selector, d.Spec.Ports
	case *networkingv1.Ingress:
		d := desired.(*networkingv1.Ingress)
		hash := e.Annotations[render.AnnotationSpecHash]
		e.Annotations = d.Annotations
		if hash != "" {
			setAnnotation(e, render.AnnotationSpecHash, hash)
		}
		e.Spec = d.Spec
	}
}

func setAnnotation(obj client.Object, k, v string) {
	a := obj.GetAnnotations()
	if a == nil {
		a = map[string]string{}
	}
	a[k] = v
	obj.SetAnnotations(a)
}

// apply makes the child object match desired. It compares before writing: the hash of the
// desired state is kept in an annotation, and an object whose hash matches and that the Agent
// already controls is left alone. It returns the object as it is in the cluster, or a
// ResourceConflict problem when an object of that name exists that this Agent does not
// control: that object is never adopted or overwritten.
func (r *AgentReconciler) apply(ctx context.Context, owner *v1alpha1.Agent, desired client.Object) (client.Object, *problem, error) {
	hash := render.SpecHash(desiredState(desired))
	kind := reflect.TypeOf(desired).Elem().Name()
	existing := desired.DeepCopyObject().(client.Object)
	key := types.NamespacedName{Namespace: desired.GetNamespace(), Name: desired.GetName()}
	err := r.Get(ctx, key, existing)
	if apierrors.IsNotFound(err) {
		created := desired.DeepCopyObject().(client.Object)
		setAnnotation(created, render.AnnotationSpecHash, hash)
		if err := controllerutil.SetControllerReference(owner, created, r.Scheme); err != nil {
			return nil, nil, err
		}
		err = r.Create(ctx, created)
		if err == nil {
			return created, nil, nil
		}
		if !apierrors.IsAlreadyExists(err) || r.APIReader == nil {
			return nil, nil, fmt.Errorf("failed to create %s %q: %w", kind, desired.GetName(), err)
		}
		// The name is taken by an object the cache does not hold: ours, when the cache is
		// behind our own earlier create, or someone else's without our labels. Ask the API server.
		err = r.APIReader.Get(ctx, key, existing)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("failed to get %s %q: %w", kind, desired.GetName(), err)
	}
	if !metav1.IsControlledBy(existing, owner) {
		return nil, conflict(kind, existing), nil
	}
	if existing.GetAnnotations()[render.AnnotationSpecHash] == hash &&
		equality.Semantic.DeepDerivative(desiredState(desired), desiredState(existing)) {
		// Unchanged, and nobody edited it since: DeepDerivative ignores what desired leaves
		// unset (API-server defaults, replicas left to an HPA), so those are not drift.
		return existing, nil, nil
	}
	restore(existing, desired)
	setAnnotation(existing, render.AnnotationSpecHash, hash)
	if err := r.Update(ctx, existing); err != nil {
		return nil, nil, fmt.Errorf("failed to update %s %q: %w", kind, existing.GetName(), err)
	}
	return existing, nil, nil
}

// conflict describes an object in the way without naming anything from its data.
func conflict(kind string, obj client.Object) *problem {
	who := "it has no controller"
	if ref := metav1.GetControllerOf(obj); ref != nil {
		who = fmt.Sprintf("it is controlled by %s %q", ref.Kind, ref.Name)
	} else if obj.GetLabels()[render.LabelManagedBy] == render.ManagedBy {
		who = "it carries the operator's labels but no owner reference to this Agent"
	}
	return &problem{v1alpha1.ReasonResourceConflict, fmt.Sprintf(
		"%s %q already exists and does not belong to this Agent (%s); the operator does not adopt or overwrite it: delete or rename it, or rename the Agent",
		kind, obj.GetName(), who)}
}

// deleteOwned removes the Agent's child of obj's type when it exists and the Agent controls it.
func (r *AgentReconciler) deleteOwned(ctx context.Context, owner *v1alpha1.Agent, obj client.Object) error {
	err := r.Get(ctx, types.NamespacedName{Namespace: owner.Namespace, Name: render.ChildName(owner.Name)}, obj)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("failed to get %s %q: %w", reflect.TypeOf(obj).Elem().Name(), render.ChildName(owner.Name), err)
	}
	if !metav1.IsControlledBy(obj, owner) {
		return nil
	}
	if err := r.Delete(ctx, obj); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("failed to delete %s %q: %w", reflect.TypeOf(obj).Elem().Name(), obj.GetName(), err)
	}
	return nil
}
