// Package controller registers every controller of the provider.
package controller

import (
	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/simplyblock/provider-simplyblock/internal/controller/clusterops"
	"github.com/simplyblock/provider-simplyblock/internal/controller/config"
	"github.com/simplyblock/provider-simplyblock/internal/controller/storagecluster"
	"github.com/simplyblock/provider-simplyblock/internal/controller/storagenode"
	"github.com/simplyblock/provider-simplyblock/internal/controller/storagenodeops"
	"github.com/simplyblock/provider-simplyblock/internal/controller/storagepool"
	"github.com/simplyblock/provider-simplyblock/internal/ops"
)

// setups lists each controller's Setup and SetupGated once; both operation
// kinds share one observer and watcher.
func setups(s ops.Settings, log logging.Logger) []struct {
	setup, gated func(ctrl.Manager, controller.Options) error
} {
	sh := s.NewSharedObservation(log)
	return []struct {
		setup, gated func(ctrl.Manager, controller.Options) error
	}{
		{config.Setup, config.SetupGated},
		{storagecluster.Setup, storagecluster.SetupGated},
		{storagenode.Setup, storagenode.SetupGated},
		{storagepool.Setup, storagepool.SetupGated},
		{
			func(mgr ctrl.Manager, o controller.Options) error { return clusterops.Setup(mgr, o, s, sh) },
			func(mgr ctrl.Manager, o controller.Options) error { return clusterops.SetupGated(mgr, o, s, sh) },
		},
		{
			func(mgr ctrl.Manager, o controller.Options) error { return storagenodeops.Setup(mgr, o, s, sh) },
			func(mgr ctrl.Manager, o controller.Options) error { return storagenodeops.SetupGated(mgr, o, s, sh) },
		},
	}
}

// Setup starts every controller at once.
func Setup(mgr ctrl.Manager, o controller.Options, s ops.Settings) error {
	for _, c := range setups(s, o.Logger) {
		if err := c.setup(mgr, o); err != nil {
			return err
		}
	}
	return nil
}

// SetupGated starts each controller once its CRD is established.
func SetupGated(mgr ctrl.Manager, o controller.Options, s ops.Settings) error {
	for _, c := range setups(s, o.Logger) {
		if err := c.gated(mgr, o); err != nil {
			return err
		}
	}
	return nil
}
