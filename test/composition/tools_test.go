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

package composition

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/simplyblock/provider-simplyblock/test/testenv"
)

// toolsEnv names the folder holding crossplane, crossplane-core and
// function-patch-and-transform.
const toolsEnv = "CROSSPLANE_TOOLS"

// repoRoot is the repository's root folder.
var repoRoot = func() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}()

// tools are the binaries a render test runs.
type tools struct {
	crossplane string // the CLI
	core       string // the core binary with the composition engine
	pat        string // function-patch-and-transform
	function   string // function-storagecluster, built from this repository
}

// needTools returns the tools, or skips the test when CROSSPLANE_TOOLS is
// unset (make test always sets it).
func needTools(t *testing.T) tools {
	t.Helper()
	dir := os.Getenv(toolsEnv)
	if dir == "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not set; make test sets it to the folder printed by hack/crossplane-tools.sh", toolsEnv)
		}
		t.Skipf("%s is not set; run make test, or set it to the folder printed by hack/crossplane-tools.sh", toolsEnv)
	}
	tl := tools{
		crossplane: filepath.Join(dir, "crossplane"),
		core:       filepath.Join(dir, "crossplane-core"),
		pat:        filepath.Join(dir, "function-patch-and-transform"),
		function:   filepath.Join(t.TempDir(), "function-storagecluster"),
	}
	for _, b := range []string{tl.crossplane, tl.core, tl.pat} {
		if _, err := os.Stat(b); err != nil {
			t.Fatalf("%s: %v (run hack/crossplane-tools.sh)", b, err)
		}
	}
	if err := testenv.GoBuild(repoRoot, tl.function, "./cmd/function-storagecluster"); err != nil {
		t.Fatal(err)
	}
	return tl
}

// serveFunction runs a composition function on a free local port until the
// test ends and returns its address.
func serveFunction(t *testing.T, binary string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()

	ctx, cancel := context.WithCancel(context.Background())
	var logs bytes.Buffer
	cmd := exec.CommandContext(ctx, binary, "--insecure", "--address="+addr) //nolint:gosec // a binary this test built or was given
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("cannot start %s: %v", binary, err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("%s output:\n%s", filepath.Base(binary), logs.String())
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			_ = c.Close()
			return addr
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not listen on %s: %v\n%s", binary, addr, err, logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// functionsFile writes the Function objects a render uses: both functions
// in the Development runtime, reached at the given addresses.
func functionsFile(t *testing.T, patAddr, fnAddr string) string {
	t.Helper()
	fn := func(name, addr string) string {
		return fmt.Sprintf(`apiVersion: pkg.crossplane.io/v1
kind: Function
metadata:
  name: %s
  annotations:
    render.crossplane.io/runtime: Development
    render.crossplane.io/runtime-development-target: %s
spec:
  package: %s
`, name, addr, name)
	}
	path := filepath.Join(t.TempDir(), "functions.yaml")
	content := fn("function-patch-and-transform", patAddr) + "---\n" + fn("function-storagecluster", fnAddr)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
