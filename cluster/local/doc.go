// Command local is `make demo`: the provider's embedded default.
//
// It starts a real kube-apiserver and etcd (the envtest binaries from
// hack/envtest-binaries.sh), the simplyblock control-plane simulator, installs
// the CRDs, a Secret and a ClusterProviderConfig, and runs the provider binary
// as a separate process (with faster operation timings when the simulator
// runs sped up).
//
// It then applies examples/quickstart/ in file-name order, in stages: a file
// holding a ClusterOps ends a stage, and the next stage is applied only once
// that operation Succeeded. The quickstart thus creates the cluster, three
// nodes and a pool and activates the cluster, then adds two nodes with
// expand: true and expands the cluster. A ClusterOps that ends Failed, or a
// stage that times out (-timeout), stops the demo with the operation's
// reason and message. A live table of the managed resources and the
// operations is printed whenever it changes, until every operation Succeeded
// and every managed resource is Ready. The demo then keeps everything
// running, with the kubeconfig path printed, until Ctrl-C, which cleans up;
// -exit-when-ready exits instead.
package main
