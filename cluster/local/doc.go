// Command local is `make demo` and `make demo-xr`: the provider's embedded
// default.
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
//
// # Composite mode
//
// With -composite (`make demo-xr`) the demo goes through the composite API
// of examples/composition/ instead of the quickstart. It builds
// cmd/function-storagecluster into the work folder and, next to the parts
// above, runs kube-controller-manager's garbage collector (when
// KUBEBUILDER_ASSETS has it) and, through package controlplane, Crossplane
// core and the two composition functions as local processes (core out of
// cluster, mTLS to the functions, which FunctionRevisions register;
// -crossplane-tools names the folder hack/crossplane-tools.sh prints). It
// applies functions.yaml, both XRDs and both Compositions unchanged, waits
// for the XRDs to be Established, and creates the namespace storage with
// the credentials Secret and the namespaced ProviderConfig default that the
// XR names. It creates the XStorageCluster of xr.yaml (three nodes and a
// pool) and waits until it is Ready and its Activate ClusterOps Succeeded,
// then updates the XR's spec.nodes to those of xr-expanded.yaml (five
// nodes) and waits until the composed Expand Succeeded (reason NothingToDo:
// nodes added with expand: true expand the cluster by themselves) and the
// XR is Ready with five ready nodes. The live view then starts with a line
// for the XR (its Ready and Synced conditions, cluster status, ready nodes,
// active and last operation). Crossplane's circuit breaker for the XR may
// open while the composed resources write their status often, so the XR can
// turn Ready up to about 30 s after its parts did.
//
// # Output
//
// On a terminal the live view is redrawn in place: the cursor moves up over
// the previous table and the screen is cleared below it. Step lines
// ("==> ...") and other messages print normally, and the next table starts
// below them. When stdout is not a terminal every change prints a new
// table. In messages, the backend UUIDs of storage nodes are replaced by
// the names of their StorageNode objects. The API server's warnings are
// printed once each; controller-runtime's own log goes to demo.log in the
// work folder, next to the kubeconfig and the logs of every process.
//
// # Stopping
//
// Ctrl-C, SIGTERM and SIGHUP (the terminal closing) all stop everything the
// demo started, in the reverse order of starting: Crossplane core and the
// functions, the provider, the garbage collector, the simulator, and
// kube-apiserver and etcd. So does every error and the end of an
// -exit-when-ready run. The processes it starts also die with it on Linux
// should it be killed outright (SIGKILL), except kube-apiserver and etcd,
// which envtest starts. Writes to a terminal or pipe that is gone fail
// without stopping the cleanup.
package main
