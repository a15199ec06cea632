-- Argo CD resource action "approve" of a simplyblock operation (ClusterOps,
-- StorageNodeOps): sets spec.forProvider.approved to true. An operation
-- created with approval Required then runs the plan it shows in
-- status.atProvider.plan: the provider computes the plan again and runs it
-- only if it is the same (otherwise the operation fails with reason
-- PlanChanged and sends nothing). An approval cannot be taken back.
--
-- Argo CD's server does not ask the discovery before it runs an action, so
-- this one refuses as the discovery disables it: unless the operation
-- awaits approval (status.atProvider.reason AwaitingApproval), or when it
-- was approved or cancelled already. Argo CD sends the change as a merge
-- patch of spec.forProvider.approved.
--
-- Argo CD runs actions without the Lua standard libraries (whatever
-- useOpenLibs says): this script uses only the base library.

local at = {}
if obj.status ~= nil and obj.status.atProvider ~= nil then
  at = obj.status.atProvider
end
local fp = obj.spec.forProvider

local function refuse(why)
  error("cannot approve " .. obj.kind .. " " .. obj.metadata.name .. ": " .. why, 0)
end

if fp.cancel == true then
  refuse("it was cancelled")
end
if fp.approved == true then
  refuse("it is approved already")
end
if at.reason ~= "AwaitingApproval" or at.phase == "Succeeded" or at.phase == "Failed" then
  local why = "it does not await approval"
  if at.phase ~= nil and at.phase ~= "" then
    why = why .. " (it is " .. at.phase
    if at.reason ~= nil and at.reason ~= "" then
      why = why .. ", " .. at.reason
    end
    why = why .. ")"
  end
  refuse(why)
end

fp.approved = true
return obj
