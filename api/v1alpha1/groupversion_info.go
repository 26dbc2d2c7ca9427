// Package v1alpha1 contains the agentry.dev/v1alpha1 API: Agent, Tool and FrontendAction.
// The same types are the runtime's configuration format: `agentry serve` reads these manifests.
// +kubebuilder:object:generate=true
// +groupName=agentry.dev
package v1alpha1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	// GroupVersion is the group and version of every Agentry object.
	GroupVersion = schema.GroupVersion{Group: "agentry.dev", Version: "v1alpha1"}

	// SchemeBuilder registers the Agentry types with a runtime.Scheme.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}

	// AddToScheme adds the Agentry types to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)
