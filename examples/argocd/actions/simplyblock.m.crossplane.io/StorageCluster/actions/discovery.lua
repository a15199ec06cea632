-- Argo CD resource actions of a StorageCluster. Each creates a ClusterOps
-- for the cluster (see its action.lua); the provider queues it behind the
-- cluster's other operations and runs it.
--
--   restart          ClusterOps type Restart: the cluster is shut down and
--                    started again (an outage)
--   rolling-restart  ClusterOps type NodeRollingRestart: the storage nodes
--                    are restarted one after another
--   rebalance        ClusterOps type Rebalance: the data is spread evenly
--                    over the online storage nodes
--
-- They are disabled while the cluster's Ready condition is not True or the
-- cluster is being deleted (the actions refuse then too). Each has the
-- parameter approval: Automatic (the default) runs the operation when its
-- turn comes, Required makes it show its plan and wait for the approve
-- action of the ClusterOps. Argo CD 3.1 and later ask for it in the UI;
-- earlier versions and the CLI run the action without it (Automatic).
--
-- Argo CD runs actions and their discovery without the Lua standard
-- libraries (whatever useOpenLibs says): this script uses only the base
-- and table libraries.

local ready = false
if obj.status ~= nil and obj.status.conditions ~= nil then
  for _, c in ipairs(obj.status.conditions) do
    if c.type == "Ready" and c.status == "True" then
      ready = true
    end
  end
end
local disabled = not ready or obj.metadata.deletionTimestamp ~= nil

local function action(displayName, iconClass)
  return {
    displayName = displayName,
    iconClass = iconClass,
    disabled = disabled,
    params = {
      {name = "approval", type = "string", default = "Automatic"},
    },
  }
end

local actions = {}
actions["restart"] = action("Restart the cluster (ClusterOps)", "fa fa-fw fa-redo")
actions["rolling-restart"] = action("Restart the nodes one by one (ClusterOps)", "fa fa-fw fa-sync-alt")
actions["rebalance"] = action("Rebalance the data (ClusterOps)", "fa fa-fw fa-balance-scale")
return actions
