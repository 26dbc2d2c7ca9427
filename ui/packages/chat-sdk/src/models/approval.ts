import { seconds, type JSONObject, type JSONValue } from "../wire";
import type { Approval, ApprovalStatus } from "./agent";

const statuses: readonly ApprovalStatus[] = ["pending", "approved", "declined", "expired"];
const str = (v: JSONValue | undefined): string => (typeof v === "string" ? v : "");

/** Reads an approval from its wire form (the API's answer, or an approval message's data). */
export function toApproval(w: JSONObject): Approval {
  const status = statuses.find((x) => x === w["status"]) ?? "pending";
  const list = (v: JSONValue | undefined) => (Array.isArray(v) ? v : []);
  const a: { -readonly [K in keyof Approval]: Approval[K] } = {
    id: str(w["id"]),
    conversationId: str(w["conversationId"]),
    agentId: str(w["agentId"]),
    runId: str(w["runId"]),
    toolCallId: str(w["toolCallId"]),
    toolName: str(w["toolName"]),
    arguments: str(w["arguments"]),
    requestedBy: str(w["requestedBy"]),
    approvers: list(w["approvers"]).filter((x): x is string => typeof x === "string"),
    status,
    createdAt: seconds(str(w["createdAt"]) || undefined) ?? 0,
    expiresAt: seconds(str(w["expiresAt"]) || undefined) ?? 0,
    messageIds: list(w["messageIds"]).filter((x): x is number => typeof x === "number"),
  };
  if (str(w["decidedBy"])) a.decidedBy = str(w["decidedBy"]);
  if (str(w["reason"])) a.reason = str(w["reason"]);
  const decided = seconds(str(w["decidedAt"]) || undefined);
  if (decided !== undefined) a.decidedAt = decided;
  return a;
}
