/*
Copyright 2026 The provider-simplyblock Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// Command function-scheduled-ops serves the operation function behind
// scheduled operations: run by a CronOperation at each opening of a
// maintenance window, it returns one ClusterOps or StorageNodeOps named
// after the opening, for Crossplane to apply (see internal/scheduling and
// examples/scheduled).
package main

import (
	"os"

	"github.com/alecthomas/kingpin/v2"
	"github.com/crossplane/function-sdk-go"

	"github.com/simplyblock/provider-simplyblock/internal/scheduling"
)

func main() {
	var (
		app      = kingpin.New("function-scheduled-ops", "Creates the operation of a maintenance window's opening, for a CronOperation.").DefaultEnvars()
		debug    = app.Flag("debug", "Emit debug logs.").Short('d').Bool()
		network  = app.Flag("network", "Network on which to listen for gRPC connections.").Default("tcp").String()
		address  = app.Flag("address", "Address at which to listen for gRPC connections.").Default(":9443").String()
		certsDir = app.Flag("tls-server-certs-dir", "Folder holding the server's mTLS certificates (tls.key, tls.crt, ca.crt).").Envar("TLS_SERVER_CERTS_DIR").String()
		insecure = app.Flag("insecure", "Serve without mTLS, for example under crossplane operation render.").Bool()
	)
	kingpin.MustParse(app.Parse(os.Args[1:]))

	log, err := function.NewLogger(*debug)
	kingpin.FatalIfError(err, "cannot create a logger")

	kingpin.FatalIfError(function.Serve(scheduling.NewFunction(log),
		function.Listen(*network, *address),
		function.MTLSCertificates(*certsDir),
		function.Insecure(*insecure)), "cannot serve the function")
}
