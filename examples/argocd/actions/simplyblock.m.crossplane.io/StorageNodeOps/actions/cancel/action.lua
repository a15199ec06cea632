-- Argo CD resource action "cancel" of a simplyblock operation (ClusterOps,
-- StorageNodeOps): sets spec.forProvider.cancel to true. A Pending
-- operation then fails with reason Cancelled and sends nothing; a running
-- NodeRollingRestart stops before its next node; other types cannot be
-- stopped once their backend call was sent (see the CRD's description of
-- cancel). A cancel cannot be taken back.
--
-- Argo CD's server does not ask the discovery before it runs an action, so
-- this one refuses as the discovery disables it: once the operation
-- finished (Succeeded or Failed), or when it was cancelled already. Argo CD
-- sends the change as a merge patch of spec.forProvider.cancel.
--
-- Argo CD runs actions without the Lua standard libraries (whatever
-- useOpenLibs says): this script uses only the base library.

local at = {}
if obj.status ~= nil and obj.status.atProvider ~= nil then
  at = obj.status.atProvider
end
local fp = obj.spec.forProvider

local function refuse(why)
  error("cannot cancel " .. obj.kind .. " " .. obj.metadata.name .. ": " .. why, 0)
end

if at.phase == "Succeeded" or at.phase == "Failed" then
  local why = "it has finished (" .. at.phase
  if at.reason ~= nil and at.reason ~= "" then
    why = why .. ", " .. at.reason
  end
  refuse(why .. ")")
end
if fp.cancel == true then
  refuse("it was cancelled already")
end

fp.cancel = true
return obj
