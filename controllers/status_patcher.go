package controllers

import (
	"cmp"
	"context"
	"fmt"
	"reflect"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// conditioned is an object whose status a reconciler writes: every Agentry kind.
type conditioned interface {
	client.Object
	GetConditions() []metav1.Condition
}

// statusPatcher is the one way every reconciler writes status: one merge patch at the end of a
// reconcile, sent only when the status changed, then an event for each condition that changed
// (Warning unless it is True; Unknown means "in progress" and is not told). Reconcilers change
// nothing but the status of the object they reconcile, so any difference is a status change.
type statusPatcher struct {
	client   client.Client
	recorder events.EventRecorder
	// action names the events ("Validate", "Discover"); empty: the condition's type.
	action string
	// messages: a changed message is an event too (a Tool's Valid lists its errors).
	messages bool
}

// patch writes obj's status when it differs from original's.
func (p statusPatcher) patch(ctx context.Context, original, obj conditioned) error {
	if equality.Semantic.DeepEqual(original, obj) {
		return nil
	}
	if err := p.client.Status().Patch(ctx, obj, client.MergeFrom(original)); err != nil {
		return fmt.Errorf("failed to patch status of %s %q: %w", reflect.TypeOf(obj).Elem().Name(), obj.GetName(), err)
	}
	if p.recorder == nil {
		return nil
	}
	before := original.GetConditions()
	for _, c := range obj.GetConditions() {
		if c.Status == metav1.ConditionUnknown || !p.changed(meta.FindStatusCondition(before, c.Type), c) {
			continue
		}
		typ := corev1.EventTypeNormal
		if c.Status != metav1.ConditionTrue {
			typ = corev1.EventTypeWarning
		}
		p.recorder.Eventf(obj, nil, typ, c.Reason, cmp.Or(p.action, c.Type), "%s", c.Message)
	}
	return nil
}

func (p statusPatcher) changed(old *metav1.Condition, now metav1.Condition) bool {
	return old == nil || old.Status != now.Status || old.Reason != now.Reason || (p.messages && old.Message != now.Message)
}
