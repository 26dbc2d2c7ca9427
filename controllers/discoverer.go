package controllers

import (
	"context"
	"fmt"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/agentry-dev/agentry/api/v1alpha1"
	"github.com/agentry-dev/agentry/internal/protocol/mcpclient"
)

// maxConcurrentDiscoveries bounds the discoveries in flight (a goroutine and a connection
// each). Each ends within its server's timeout, so a hanging server holds one slot for that
// long and no reconcile at all; only more hanging servers than slots make others queue.
const maxConcurrentDiscoveries = 64

// discoverer runs the network checks of a kind (an MCPServer's tools, a RemoteAgent's card)
// outside the reconcile, in a goroutine per object bounded by the object's timeout: a reconcile
// starts one and returns, the result comes back as an event, and the next reconcile writes it.
// A slow or hanging server therefore never holds a worker, nor delays any other object.
type discoverer[R any] struct {
	// newObject is an empty object of the kind, for the result events.
	newObject func() client.Object

	mu      sync.Mutex
	state   map[types.NamespacedName]*discovery[R]
	results chan event.GenericEvent
	slots   chan struct{}
	done    chan struct{} // closed when the manager stops
}

// discovery is the latest check of one object, running or done.
type discovery[R any] struct {
	// inputs identifies what it was started with (e.g. the generation and the headers Secret's
	// resourceVersion). A result for other inputs is stale.
	inputs  string
	running bool
	cancel  context.CancelFunc
	at      time.Time
	result  R
	err     *mcpclient.Error
}

// discoveryStep is what a reconcile does with an object's check.
type discoveryStep int

const (
	// stepStart: no check for these inputs, or the last one is older than the interval.
	stepStart discoveryStep = iota
	// stepWait: the check for these inputs runs; its result will wake the reconcile.
	stepWait
	// stepApply: a fresh result for these inputs is there to write.
	stepApply
)

// setup makes the discoverer's channels and, on the manager's shutdown, cancels the checks in
// flight so none waits to report.
func (d *discoverer[R]) setup(mgr ctrl.Manager) error {
	d.state = map[types.NamespacedName]*discovery[R]{}
	d.results = make(chan event.GenericEvent, 64)
	d.slots = make(chan struct{}, maxConcurrentDiscoveries)
	d.done = make(chan struct{})
	return mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		<-ctx.Done()
		d.mu.Lock()
		for _, x := range d.state {
			if x.cancel != nil {
				x.cancel()
			}
		}
		d.mu.Unlock()
		close(d.done)
		return nil
	}))
}

// source delivers the finished checks' objects to the controller.
func (d *discoverer[R]) source() source.Source {
	return source.Channel(d.results, &handler.EnqueueRequestForObject{})
}

// next says what to do with key's check for inputs, and the check when there is a result; the
// result is fresh for interval.
func (d *discoverer[R]) next(key types.NamespacedName, inputs string, interval time.Duration) (discoveryStep, *discovery[R]) {
	d.mu.Lock()
	defer d.mu.Unlock()
	x := d.state[key]
	switch {
	case x != nil && x.inputs == inputs && x.running:
		return stepWait, nil
	case x != nil && x.inputs == inputs && time.Since(x.at) < interval:
		return stepApply, x
	}
	return stepStart, nil
}

func (d *discoverer[R]) forget(key types.NamespacedName) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if x := d.state[key]; x != nil && x.cancel != nil {
		x.cancel()
	}
	delete(d.state, key)
}

// start runs check in the background, replacing one with other inputs; classify turns its
// error into a reason and a message.
func (d *discoverer[R]) start(key types.NamespacedName, inputs string, check func(context.Context) (R, error), classify func(error) *mcpclient.Error) {
	ctx, cancel := context.WithCancel(context.Background())
	x := &discovery[R]{inputs: inputs, running: true, cancel: cancel}
	d.mu.Lock()
	if old := d.state[key]; old != nil && old.cancel != nil {
		old.cancel()
	}
	d.state[key] = x
	d.mu.Unlock()
	go func() {
		defer cancel()
		select {
		case d.slots <- struct{}{}:
			defer func() { <-d.slots }()
		case <-ctx.Done():
			return
		}
		res, err := check(ctx)
		if ctx.Err() != nil {
			return // replaced or deleted
		}
		d.mu.Lock()
		x.running, x.at, x.result = false, time.Now(), res
		if err != nil {
			x.err = classify(err)
		}
		d.mu.Unlock()
		obj := d.newObject()
		obj.SetNamespace(key.Namespace)
		obj.SetName(key.Name)
		select {
		case d.results <- event.GenericEvent{Object: obj}:
		case <-d.done:
		}
	}()
}

// checked is how a kind whose status a background check writes looks to reconcileCheck.
type checked[R any, O conditioned] struct {
	// action names the status events; pending is the Ready message while the first check runs.
	action, pending string
	interval        time.Duration
	// headers is the object's headers Secret reference.
	headers func(O) *v1alpha1.LocalObjectReference
	// status gives the conditions and observedGeneration to write.
	status func(O) (*[]metav1.Condition, *int64)
	// check is the network check of the object with its headers.
	check    func(O, map[string]string) func(context.Context) (R, error)
	classify func(error) *mcpclient.Error
	// apply writes a finished check into the status and returns Ready.
	apply func(O, *discovery[R]) metav1.Condition
}

// reconcileCheck is the Reconcile of such a kind: it reads the headers Secret, starts a check
// or writes the finished one for the object's inputs (generation and Secret version), keeps
// the last verdict while a new check runs, and patches the status once.
func reconcileCheck[R any, O conditioned](ctx context.Context, c client.Client, rec events.EventRecorder, d *discoverer[R], k checked[R, O], req ctrl.Request, obj O) (ctrl.Result, error) {
	if err := c.Get(ctx, req.NamespacedName, obj); err != nil {
		if apierrors.IsNotFound(err) {
			d.forget(req.NamespacedName)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	original := obj.DeepCopyObject().(O)
	headers, secretVersion, secretErr, err := headersFrom(ctx, c, obj.GetNamespace(), k.headers(obj))
	if err != nil {
		return ctrl.Result{}, err
	}
	gen := obj.GetGeneration()
	inputs := fmt.Sprintf("%d/%s", gen, secretVersion)
	conditions, observed := k.status(obj)

	var requeue time.Duration
	var cond metav1.Condition
	step, x := d.next(req.NamespacedName, inputs, k.interval)
	switch {
	case secretErr != nil:
		d.forget(req.NamespacedName)
		cond = readyCondition(gen, metav1.ConditionFalse, secretErr.Reason, secretErr.Message)
	case step == stepApply:
		cond = k.apply(obj, x)
		requeue = k.interval - time.Since(x.at)
	case step == stepWait:
		return ctrl.Result{}, nil // its result will wake us
	default:
		d.start(req.NamespacedName, inputs, k.check(obj, headers), k.classify)
		if ready := meta.FindStatusCondition(*conditions, v1alpha1.ConditionReady); ready != nil && ready.ObservedGeneration == gen {
			return ctrl.Result{}, nil // keep the last verdict until the new one comes
		}
		cond = readyCondition(gen, metav1.ConditionUnknown, v1alpha1.ReasonDiscovering, k.pending)
	}
	meta.SetStatusCondition(conditions, cond)
	*observed = gen
	if err := (statusPatcher{client: c, recorder: rec, action: k.action}).patch(ctx, original, obj); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{RequeueAfter: requeue}, nil
}
