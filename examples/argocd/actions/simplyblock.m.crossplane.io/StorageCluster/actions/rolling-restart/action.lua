-- Argo CD resource action "rolling-restart" of a StorageCluster: creates a
-- ClusterOps of type NodeRollingRestart for the cluster. The provider
-- restarts the cluster's storage nodes one after another, waiting for each
-- to be back online and for the data to be rebalanced before the next.
--
-- The ClusterOps is created in the cluster's namespace, named
-- <cluster>-<action>-<UTC time as yyyymmdd-hhmmss> (the cluster's name cut
-- to fit 253 characters), labelled with the action and the cluster, and
-- owned by the StorageCluster (an ownerReference, neither controller nor
-- blocking its deletion): Argo CD shows it under the cluster and does not
-- prune it. It targets the cluster by clusterIdRef, uses the cluster's
-- providerConfigRef, and deletes itself a day after it finished; its
-- record stays in the cluster's operation history. The parameter approval
-- is Automatic (the default: it runs when its turn comes) or Required: it
-- shows its plan and waits for the approve action of the ClusterOps.
-- The action refuses while the cluster is not Ready or is being deleted.
--
-- Argo CD runs actions with the base, table and package libraries and
-- os.time and os.date from require("os") only: no string or math library,
-- whatever useOpenLibs says.

local os = require("os")

local action = "rolling-restart"
local opType = "NodeRollingRestart"

-- The rest is the same in every action of StorageCluster.

local cluster = obj.metadata.name

local function refuse(why)
  error("the action " .. action .. " cannot run on StorageCluster " .. cluster .. ": " .. why, 0)
end

if obj.metadata.deletionTimestamp ~= nil then
  refuse("it is being deleted")
end
local ready = nil
if obj.status ~= nil and obj.status.conditions ~= nil then
  for _, c in ipairs(obj.status.conditions) do
    if c.type == "Ready" then
      ready = c
    end
  end
end
if ready == nil or ready.status ~= "True" then
  local why = "it is not Ready"
  if ready ~= nil and ready.reason ~= nil and ready.reason ~= "" then
    why = why .. " (" .. ready.reason
    if ready.message ~= nil and ready.message ~= "" then
      why = why .. ": " .. ready.message
    end
    why = why .. ")"
  end
  refuse(why)
end

-- actionParams holds the parameters from Argo CD 3.1 on; it is unset
-- before, and empty when the action was run without them.
local approval = "Automatic"
if actionParams ~= nil and actionParams["approval"] ~= nil and actionParams["approval"] ~= "" then
  approval = actionParams["approval"]
end
if approval ~= "Automatic" and approval ~= "Required" then
  refuse("the parameter approval is \"" .. approval .. "\", want Automatic or Required")
end

-- cut returns the first n characters of s, a Kubernetes name (lower-case
-- letters, digits, "-" and "."), without a trailing "-" or ".". Without
-- the string library strings can only be compared: t is the start of s
-- exactly when t <= s < t .. "\255", so the cut is found one character at
-- a time.
local nameChars = {
  "-", ".", "0", "1", "2", "3", "4", "5", "6", "7", "8", "9",
  "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m",
  "n", "o", "p", "q", "r", "s", "t", "u", "v", "w", "x", "y", "z",
}
local function cut(s, n)
  local chars = {}
  local head = ""
  for i = 1, n do
    local found = nil
    for _, c in ipairs(nameChars) do
      local t = head .. c
      if t <= s and s < t .. "\255" then
        found = c
        break
      end
    end
    if found == nil then
      break
    end
    head = head .. found
    chars[i] = found
  end
  while #chars > 0 and (chars[#chars] == "-" or chars[#chars] == ".") do
    chars[#chars] = nil
  end
  return table.concat(chars)
end

local suffix = "-" .. action .. "-" .. os.date("!%Y%m%d-%H%M%S")
local name = cluster
if #name + #suffix > 253 then
  name = cut(name, 253 - #suffix)
end
name = name .. suffix

-- A label value has at most 63 characters: longer cluster names are in
-- the ownerReference and the uid label only.
local labels = {}
labels["simplyblock.m.crossplane.io/argocd-action"] = action
labels["simplyblock.m.crossplane.io/cluster-uid"] = obj.metadata.uid
if #cluster <= 63 then
  labels["simplyblock.m.crossplane.io/cluster"] = cluster
end

local forProvider = {
  type = opType,
  clusterIdRef = {name = cluster},
  ttlSecondsAfterFinished = 86400,
}
if approval == "Required" then
  forProvider.approval = "Required"
end
local spec = {forProvider = forProvider}
if obj.spec ~= nil and obj.spec.providerConfigRef ~= nil then
  spec.providerConfigRef = {
    kind = obj.spec.providerConfigRef.kind,
    name = obj.spec.providerConfigRef.name,
  }
end

local op = {
  apiVersion = "simplyblock.m.crossplane.io/v1alpha1",
  kind = "ClusterOps",
  metadata = {
    name = name,
    namespace = obj.metadata.namespace,
    labels = labels,
    ownerReferences = {
      {
        apiVersion = obj.apiVersion,
        kind = obj.kind,
        name = cluster,
        uid = obj.metadata.uid,
        controller = false,
        blockOwnerDeletion = false,
      },
    },
  },
  spec = spec,
}

return {{operation = "create", resource = op}}
