-- Argo CD resource actions of a simplyblock operation (ClusterOps,
-- StorageNodeOps; the scripts of both kinds are the same):
--
--   approve  sets spec.forProvider.approved: the operation, created with
--            approval Required, runs the plan it shows in
--            status.atProvider.plan. Enabled only while it awaits approval
--            (status.atProvider.reason AwaitingApproval), neither approved
--            nor cancelled yet.
--   cancel   sets spec.forProvider.cancel: the operation stops (see the
--            CRD's description of cancel). Disabled once it finished
--            (Succeeded or Failed) or when it was cancelled already.
--
-- Neither can be undone. If the operation is in Git, leave approved and
-- cancel out of its file there, or Argo CD's next sync tries to set them
-- back, which admission refuses.
--
-- Argo CD runs actions and their discovery without the Lua standard
-- libraries (whatever useOpenLibs says): this script uses only the base
-- library.

local at = {}
if obj.status ~= nil and obj.status.atProvider ~= nil then
  at = obj.status.atProvider
end
local fp = {}
if obj.spec ~= nil and obj.spec.forProvider ~= nil then
  fp = obj.spec.forProvider
end
local finished = at.phase == "Succeeded" or at.phase == "Failed"
local cancelled = fp.cancel == true
local awaiting = at.reason == "AwaitingApproval" and not finished and not cancelled and fp.approved ~= true

local actions = {}
actions["approve"] = {
  displayName = "Approve the plan",
  iconClass = "fa fa-fw fa-check",
  disabled = not awaiting,
}
actions["cancel"] = {
  displayName = "Cancel the operation",
  iconClass = "fa fa-fw fa-ban",
  disabled = finished or cancelled,
}
return actions
