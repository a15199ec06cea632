// Package controller registers every controller of the provider.
package controller

import (
	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/simplyblock/provider-simplyblock/internal/controller/config"
	"github.com/simplyblock/provider-simplyblock/internal/controller/storagecluster"
	"github.com/simplyblock/provider-simplyblock/internal/controller/storagenode"
	"github.com/simplyblock/provider-simplyblock/internal/controller/storagepool"
)

// setups lists each controller's Setup and SetupGated once.
var setups = []struct {
	setup, gated func(ctrl.Manager, controller.Options) error
}{
	{config.Setup, config.SetupGated},
	{storagecluster.Setup, storagecluster.SetupGated},
	{storagenode.Setup, storagenode.SetupGated},
	{storagepool.Setup, storagepool.SetupGated},
}

// Setup starts every controller at once.
func Setup(mgr ctrl.Manager, o controller.Options) error {
	for _, s := range setups {
		if err := s.setup(mgr, o); err != nil {
			return err
		}
	}
	return nil
}

// SetupGated starts each controller once its CRD is established.
func SetupGated(mgr ctrl.Manager, o controller.Options) error {
	for _, s := range setups {
		if err := s.gated(mgr, o); err != nil {
			return err
		}
	}
	return nil
}
