package controllers

import (
	"context"
	"fmt"
	"reflect"

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

// adopt copies the owned part of desired onto existing, keeping what the API server and
// other controllers set (a Service's cluster IPs, status, defaults).
func adopt(existing, desired client.Object) {
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
		e.Spec = desired.(*appsv1.Deployment).Spec
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
// already controls is left alone. It returns the object as it is in the cluster.
func (r *AgentReconciler) apply(ctx context.Context, owner *v1alpha1.Agent, desired client.Object) (client.Object, error) {
	hash := render.SpecHash(desiredState(desired))
	kind := reflect.TypeOf(desired).Elem().Name()
	existing := desired.DeepCopyObject().(client.Object)
	key := types.NamespacedName{Namespace: desired.GetNamespace(), Name: desired.GetName()}
	err := r.Get(ctx, key, existing)
	if apierrors.IsNotFound(err) {
		created := desired.DeepCopyObject().(client.Object)
		setAnnotation(created, render.AnnotationSpecHash, hash)
		if err := controllerutil.SetControllerReference(owner, created, r.Scheme); err != nil {
			return nil, err
		}
		err = r.Create(ctx, created)
		if err == nil {
			return created, nil
		}
		if !apierrors.IsAlreadyExists(err) || r.APIReader == nil {
			return nil, fmt.Errorf("failed to create %s %q: %w", kind, desired.GetName(), err)
		}
		// The cache is behind our own earlier create: read the object from the API server.
		err = r.APIReader.Get(ctx, key, existing)
	}
	if err != nil {
		return nil, fmt.Errorf("failed to get %s %q: %w", kind, desired.GetName(), err)
	}
	if !metav1.IsControlledBy(existing, owner) {
		if ref := metav1.GetControllerOf(existing); ref != nil {
			return nil, fmt.Errorf("%s %q is controlled by %s %q, not by this Agent; rename or delete it", kind, existing.GetName(), ref.Kind, ref.Name)
		}
	} else if existing.GetAnnotations()[render.AnnotationSpecHash] == hash &&
		equality.Semantic.DeepDerivative(desiredState(desired), desiredState(existing)) {
		// Unchanged, and nobody edited it since: DeepDerivative ignores what desired leaves
		// unset, so API-server defaults do not count as drift.
		return existing, nil
	}
	adopt(existing, desired)
	setAnnotation(existing, render.AnnotationSpecHash, hash)
	if err := controllerutil.SetControllerReference(owner, existing, r.Scheme); err != nil {
		return nil, err
	}
	if err := r.Update(ctx, existing); err != nil {
		return nil, fmt.Errorf("failed to update %s %q: %w", kind, existing.GetName(), err)
	}
	return existing, nil
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
