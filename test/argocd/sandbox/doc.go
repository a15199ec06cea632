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

// Package sandbox runs Lua scripts as Argo CD runs health checks, resource
// action discovery and resource actions configured in argocd-cm, so that
// tests (test/argocd, test/integration) can run the scripts shipped in
// examples/argocd/ as Argo CD would.
//
// Argo CD (util/lua in argoproj/argo-cd) runs every script in a new
// gopher-lua state with the standard libraries off: it opens only the
// package, base and table libraries and its own safe os library, which
// holds just os.time and os.date. The string and math libraries are
// missing (resource.customizations.useOpenLibs turns them on for health
// checks only, never for actions or their discovery), so string methods
// such as s:upper() fail too: gopher-lua gives strings their methods only
// when it opens the string library. Argo CD's OpenSafeOs registers its two
// functions under the name of the table library, which is loaded already,
// so it adds nothing: there is no global os, and a script gets the safe os
// only from require("os"), which Argo CD preloads. A script gets one
// second; the live object is the global obj and, from Argo CD 3.1 on, the
// action's parameters (name to string value) the global actionParams.
//
// What a script returns is encoded to JSON with gopher-json's rules
// (layeh.com/gopher-json, the version Argo CD pins) and decoded as Argo CD
// decodes it. An action's patch is applied as Argo CD applies it: as a
// JSON merge patch from the live object to the one the script returned.
package sandbox
