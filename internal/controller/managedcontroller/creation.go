package managedcontroller

import (
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"

	"github.com/simplyblock/provider-simplyblock/apis/simplyblock/v1alpha1"
)

// CreateOutcomeUnknown reports whether the last create of mg may have
// reached the backend without its result being recorded: its answer was
// ambiguous (v1alpha1.AnnotationCreateOutcomeUnknown), or the provider
// stopped between crossplane-runtime's create-pending annotation and the
// create's result. Observe then looks for what the create would have made
// before it reports the resource absent (README, "Lost create answers").
func CreateOutcomeUnknown(mg resource.Object) bool {
	return mg.GetAnnotations()[v1alpha1.AnnotationCreateOutcomeUnknown] != "" || meta.ExternalCreateIncomplete(mg)
}

// CreateOutcomeFound records on mg that Observe found what its unknown
// create made. Observe must report the resource late-initialized, so that
// the record is persisted.
func CreateOutcomeFound(mg resource.Object) {
	meta.RemoveAnnotations(mg, v1alpha1.AnnotationCreateOutcomeUnknown)
	if meta.ExternalCreateIncomplete(mg) {
		meta.SetExternalCreateSucceeded(mg, time.Now())
	}
}
