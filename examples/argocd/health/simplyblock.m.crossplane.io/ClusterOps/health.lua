-- Argo CD health check for a simplyblock operation (ClusterOps,
-- StorageNodeOps), from status.atProvider.phase. Argo CD runs scripts from
-- argocd-cm without the Lua standard libraries, so this one uses only the
-- base and table libraries.
--
--   Succeeded                      -> Healthy      "<reason>: <message>"
--   Failed                         -> Degraded     "<reason>: <message>"
--   Pending (queued or waiting     -> Progressing  "<reason>: <message>"; a queued
--     for its precondition)                        operation's message names its
--                                                  queue position
--   Running                        -> Progressing  "<reason> (step k of n): <message>",
--                                                  "(d of n nodes done)" when
--                                                  progress counts nodes (unit)
--   not picked up yet              -> Progressing; Degraded with the Synced message
--                                     when the provider cannot reconcile it (for
--                                     example a missing ProviderConfig)
--   unfinished and paused          -> Suspended
--     (crossplane.io/paused)
--   Running/AwaitingConfirmation   -> Suspended    "<reason>: <message>": a call's
--                                                  answer was lost and the operation
--                                                  waits for confirmResend or cancel
--   AwaitingApproval               -> Suspended    "<reason>: <message>": it shows its
--                                                  plan and waits for approved: true
--                                                  (or cancel)
--   WaitingForWindow               -> Suspended    "<reason>: <message>", with its
--                                                  progress: it waits for its
--                                                  maintenance window to open
--   WaitingForConcurrencySlot      -> Progressing  "<reason>: <message>": it waits for
--                                                  another operation to finish and
--                                                  then goes on by itself

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

local at = {}
local synced = nil
if obj.status ~= nil then
  if obj.status.atProvider ~= nil then
    at = obj.status.atProvider
  end
  if obj.status.conditions ~= nil then
    for _, c in ipairs(obj.status.conditions) do
      if c.type == "Synced" then
        synced = c
      end
    end
  end
end
local phase = at.phase

if phase == "Succeeded" then
  hs.status = "Healthy"
  hs.message = says(at.reason, at.message)
  return hs
end
if phase == "Failed" then
  hs.status = "Degraded"
  hs.message = says(at.reason, at.message)
  return hs
end

local failing = synced ~= nil and synced.status == "False"
if failing and synced.reason == "ReconcilePaused" then
  hs.status = "Suspended"
  hs.message = "Reconciliation is paused (annotation crossplane.io/paused)"
  if phase ~= nil and phase ~= "" then
    hs.message = hs.message .. "; the operation stays " .. says(phase, says(at.reason, at.message))
  end
  return hs
end

if at.reason == "AwaitingConfirmation" then
  hs.status = "Suspended"
  hs.message = says(at.reason, at.message)
  return hs
end

if phase == nil or phase == "" then
  if failing then
    hs.status = "Degraded"
    hs.message = says(nil, synced.message)
    if hs.message == "" then
      hs.message = says(synced.reason, nil)
    end
    return hs
  end
  hs.status = "Progressing"
  hs.message = "Waiting for the provider to pick up the operation"
  return hs
end

local reason = at.reason
if reason == nil or reason == "" then
  reason = phase
end
local p = at.progress
if phase == "Running" and p ~= nil and p.total ~= nil and p.total > 0 then
  local done = p.done
  if done == nil then
    done = 0
  end
  if p.unit ~= nil and p.unit ~= "" then
    reason = reason .. " (" .. tostring(done) .. " of " .. tostring(p.total) .. " " .. p.unit .. " done)"
  elseif done < p.total then
    reason = reason .. " (step " .. tostring(done + 1) .. " of " .. tostring(p.total) .. ")"
  end
end

-- Waits that need a person (an approval) or a time (a maintenance window)
-- are Suspended; a message says what they wait for even when the status
-- has none.
local message = at.message
local waitsFor = {
  AwaitingApproval = "waiting for approval: set spec.forProvider.approved to true to run its plan",
  WaitingForWindow = "waiting for its maintenance window to open",
}
hs.status = "Progressing"
if at.reason ~= nil and waitsFor[at.reason] ~= nil then
  hs.status = "Suspended"
  if message == nil or message == "" then
    message = waitsFor[at.reason]
  end
end
hs.message = says(reason, message)
if failing and synced.message ~= nil and synced.message ~= "" then
  hs.message = hs.message .. " (the last reconcile failed: " .. synced.message .. ")"
end
return hs
