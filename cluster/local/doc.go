// Command local is `make demo`: the provider's embedded default.
//
// It starts a real kube-apiserver and etcd (the envtest binaries from
// hack/envtest-binaries.sh), the simplyblock control-plane simulator, installs
// the CRDs, a Secret and a ClusterProviderConfig, runs the provider binary as
// a separate process, applies examples/quickstart/ and prints a live progress
// view until every managed resource is Ready. It then keeps everything
// running, with the kubeconfig path printed, until Ctrl-C, which cleans up.
package main
