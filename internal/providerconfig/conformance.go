package providerconfig

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/pkg/errors"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/simplyblock/provider-simplyblock/apis/v1alpha1"
	"github.com/simplyblock/provider-simplyblock/internal/clients/simplyblock"
	"github.com/simplyblock/provider-simplyblock/internal/conformance"
)

// A VerifyFn checks the control plane a new client reaches.
type VerifyFn func(ctx context.Context, api simplyblock.API, cfg simplyblock.Config) conformance.Verdict

// ProbeTimeout bounds one check of a control plane (two GETs).
const ProbeTimeout = 30 * time.Second

// Verifier returns the production VerifyFn: conformance.Probe on the
// client's own connection, with classify (the provider's reading of a log
// entry, internal/ops.ParseLogEntry; nil leaves the classification out).
// The token is only compared with the cluster secrets the probe lists.
func Verifier(classify conformance.Classifier) VerifyFn {
	return func(ctx context.Context, api simplyblock.API, cfg simplyblock.Config) conformance.Verdict {
		raw, ok := api.(simplyblock.RawGetter)
		if !ok {
			return conformance.Verdict{State: conformance.Unchecked, Reason: "the client cannot read raw answers"}
		}
		ctx, cancel := context.WithTimeout(ctx, ProbeTimeout)
		defer cancel()
		return conformance.Probe(ctx, raw, cfg.Token, classify)
	}
}

// A NonconformantError is the connect error of a configuration whose
// control plane does not answer the way the provider reads it: every
// managed resource using it shows it in its Synced condition.
type NonconformantError struct {
	Endpoint string
	Failures []string
}

func (e *NonconformantError) Error() string {
	return fmt.Sprintf("the control plane at %s does not answer the way this provider reads it, so the provider does not act on it "+
		"(ProviderConfig condition %s; `make conformance` checks it in full): %s", e.Endpoint, TypeBackendConformant,
		strings.Join(e.Failures, "; "))
}

// IsNonconformant reports whether err is a NonconformantError.
func IsNonconformant(err error) bool {
	var e *NonconformantError
	return errors.As(err, &e)
}

// TypeBackendConformant is the condition a ProviderConfig or
// ClusterProviderConfig carries with the verdict on its control plane.
const TypeBackendConformant xpv2.ConditionType = "BackendConformant"

// Reasons of the BackendConformant condition.
const (
	ReasonConformant    xpv2.ConditionReason = "Conformant"
	ReasonNonconformant xpv2.ConditionReason = "Nonconformant"
	ReasonUnchecked     xpv2.ConditionReason = "Unchecked"
)

// maxConditionMessage bounds the condition's message.
const maxConditionMessage = 2048

// BackendConformant returns the condition for verdict v on a provider that
// refuses a Nonconformant control plane (enforced) or only warns. Its
// message never holds the token or a secret: the verdict's details are
// scrubbed of both.
func BackendConformant(v conformance.Verdict, enforced bool) xpv2.Condition {
	c := xpv2.Condition{Type: TypeBackendConformant, LastTransitionTime: metav1.Now()}
	var checked []string
	for _, r := range v.Results {
		if r.Status == conformance.Pass {
			checked = append(checked, r.ID+": "+r.Detail)
		}
	}
	every := RecheckAfter(v)
	switch v.State {
	case conformance.Conformant:
		c.Status, c.Reason = corev1.ConditionTrue, ReasonConformant
		c.Message = "The control plane answers the way the provider reads it: " + strings.Join(checked, "; ") + "."
		if !v.Complete && v.Reason != "" {
			c.Message += fmt.Sprintf(" Not checked yet: %s; checked again every %s.", v.Reason, every)
		}
	case conformance.Nonconformant:
		c.Status, c.Reason = corev1.ConditionFalse, ReasonNonconformant
		act := "so the provider does not act on it through this configuration (managed resources show it in Synced)"
		if !enforced {
			act = "and the provider acts on it all the same (--backend-conformance=warn): it may decide wrongly"
		}
		c.Message = fmt.Sprintf("The control plane does not answer the way the provider reads it, %s: %s. Checked again every %s; "+
			"`make conformance` checks the control plane in full.", act, strings.Join(v.Failures(), "; "), every)
	default:
		c.Status, c.Reason = corev1.ConditionUnknown, ReasonUnchecked
		c.Message = fmt.Sprintf("The control plane could not be checked: %s. Checked again every %s.", v.Reason, every)
	}
	if len(c.Message) > maxConditionMessage {
		cut := maxConditionMessage - len("…")
		for cut > 0 && !utf8.RuneStart(c.Message[cut]) {
			cut--
		}
		c.Message = c.Message[:cut] + "…"
	}
	return c
}

// ConfigOf resolves a ProviderConfig or ClusterProviderConfig into the
// client configuration its managed resources connect with (ClientConfig).
func ConfigOf(ctx context.Context, kube client.Client, pc client.Object) (simplyblock.Config, error) {
	switch o := pc.(type) {
	case *v1alpha1.ProviderConfig:
		return fromSpec(ctx, kube, o.Spec, o.GetNamespace())
	case *v1alpha1.ClusterProviderConfig:
		return fromSpec(ctx, kube, o.Spec, "")
	}
	return simplyblock.Config{}, errors.Errorf(errUnknownKind, fmt.Sprintf("%T", pc))
}
