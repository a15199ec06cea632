-- Argo CD health check for a simplyblock steady-state managed resource
-- (StorageCluster, StorageNode, StoragePool), from its Crossplane Synced and
-- Ready conditions. Argo CD runs scripts from argocd-cm without the Lua
-- standard libraries, so this one uses only the base and table libraries.
--
--   Synced=False, ReconcilePaused       -> Suspended
--   Synced=False (ReconcileError)       -> Degraded     the condition's message
--   Ready=True                          -> Healthy      "Available, status <backend status>"
--   Ready=False, Unavailable            -> Degraded     "Unavailable: <message>", for a
--                                                       settled backend status (offline,
--                                                       degraded, suspended, inactive, ...)
--   Ready=False, Unavailable while an   -> Progressing  "...; <kind> <name> (<type>) is running"
--     operation holds the resource
--     (status.atProvider.activeOperation)
--     or in a transitional status
--     (in_shutdown, in_restart, ...)
--   Ready=False, another reason         -> Progressing  "<reason>: <message>"
--     (Creating, Deleting)
--   no status or no Ready condition yet -> Progressing

local hs = {}

local function says(reason, message)
  if message ~= nil and message ~= "" then
    if reason ~= nil and reason ~= "" then
      return reason .. ": " .. message
    end
    return message
  end
  if reason ~= nil and reason ~= "" then
    return reason
  end
  return ""
end

-- Backend statuses a resource passes through on its way to another one.
local transitional = {
  in_creation = true,
  in_activation = true,
  in_expansion = true,
  in_shrink = true,
  in_shutdown = true,
  in_restart = true,
}

if obj.status == nil or obj.status.conditions == nil then
  hs.status = "Progressing"
  hs.message = "Waiting for the provider to observe the resource"
  return hs
end

local ready = nil
local synced = nil
for _, c in ipairs(obj.status.conditions) do
  if c.type == "Ready" then
    ready = c
  elseif c.type == "Synced" then
    synced = c
  end
end

local at = obj.status.atProvider
if at == nil then
  at = {}
end

if synced ~= nil and synced.status == "False" then
  if synced.reason == "ReconcilePaused" then
    hs.status = "Suspended"
    hs.message = "Reconciliation is paused (annotation crossplane.io/paused)"
    return hs
  end
  hs.status = "Degraded"
  hs.message = says(nil, synced.message)
  if hs.message == "" then
    hs.message = says(synced.reason, nil)
  end
  return hs
end

if ready == nil then
  hs.status = "Progressing"
  hs.message = "Waiting for the Ready condition"
  return hs
end

if ready.status == "True" then
  hs.status = "Healthy"
  if at.status ~= nil and at.status ~= "" then
    hs.message = "Available, status " .. at.status
  else
    hs.message = "Available"
  end
  return hs
end

hs.message = says(ready.reason, ready.message)
if ready.status == "False" and ready.reason == "Unavailable" then
  local op = at.activeOperation
  if op ~= nil and op.name ~= nil then
    local kind = op.kind
    if kind == nil or kind == "" then
      kind = "ClusterOps"
    end
    local what = kind .. " " .. op.name
    if op.type ~= nil and op.type ~= "" then
      what = what .. " (" .. op.type .. ")"
    end
    hs.status = "Progressing"
    hs.message = hs.message .. "; " .. what .. " is running"
    return hs
  end
  if at.status ~= nil and transitional[at.status] then
    hs.status = "Progressing"
    return hs
  end
  hs.status = "Degraded"
  return hs
end

hs.status = "Progressing"
return hs
