import { Chat } from "@agentry/chat-sdk";
import { cleanup, render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { agentic } from "../testing/fixtures";
import { AgenticContent } from "./AgenticContent";
import { expiryText, outcomeText } from "./ApprovalCard";

vi.mock("@agentry/chat-sdk", async (io) => (await import("../fakeChat")).spyableChatSDK(io));

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

const NOW = Math.floor(Date.now() / 1000);
const iso = (s: number) => new Date(s * 1000).toISOString();

function request(over: Record<string, Chat.JSONValue> = {}) {
  return agentic({
    type: "approval_request",
    text: "Chef asks to run refund-order.",
    data: {
      id: "approval_aaaaaaaaaaaaaaaaaaaaaaaa", toolName: "refund-order", toolCallId: "call_1", arguments: '{"order":42,"amount":"19.90"}',
      requestedBy: "alice", approvers: ["bob", "carol"], status: "pending", createdAt: iso(NOW - 60), expiresAt: iso(NOW + 3600), messageIds: [100],
      ...over,
    },
  });
}

describe("ApprovalCard", () => {
  it("shows the tool, its arguments and who asked; an approver approves with the keyboard", async () => {
    const decided = { ...request().getApproval()!, status: "approved" as const, decidedBy: "bob" };
    const decide = vi.spyOn(Chat, "decideApproval").mockResolvedValue(decided);
    render(<AgenticContent message={request()} props={{}} me="bob" />);
    const card = screen.getByRole("group", { name: /Approval needed: Refund order/ });
    expect(card.textContent).toContain("alice");
    expect(screen.getByLabelText("Arguments").textContent).toBe('{\n  "order": 42,\n  "amount": "19.90"\n}');
    expect(screen.getByRole("status").textContent).toBe("Waiting for bob, carol");
    expect(card.querySelector("time")?.getAttribute("dateTime")).toBe(new Date((NOW + 3600) * 1000).toISOString());
    const approve = screen.getByRole("button", { name: "Approve" });
    approve.focus();
    await userEvent.keyboard("{Enter}");
    expect(decide).toHaveBeenCalledWith("approval_aaaaaaaaaaaaaaaaaaaaaaaa", { approved: true });
    // Decided: who decided shows, and the buttons are disabled.
    expect((await screen.findByRole("status")).textContent).toBe("Approved by bob");
    expect(screen.getByRole("button", { name: "Approve" }).hasAttribute("disabled")).toBe(true);
    expect(screen.getByRole("button", { name: "Decline…" }).hasAttribute("disabled")).toBe(true);
  });

  it("declines with a reason; Escape cancels the reason", async () => {
    const decide = vi.spyOn(Chat, "decideApproval").mockResolvedValue({ ...request().getApproval()!, status: "declined", decidedBy: "carol", reason: "wrong order" });
    render(<AgenticContent message={request()} props={{}} me="carol" />);
    await userEvent.click(screen.getByRole("button", { name: "Decline…" }));
    expect(document.activeElement).toBe(screen.getByLabelText(/Reason/));
    await userEvent.keyboard("{Escape}");
    expect(screen.queryByLabelText(/Reason/)).toBeNull();
    await userEvent.click(screen.getByRole("button", { name: "Decline…" }));
    await userEvent.type(screen.getByLabelText(/Reason/), "wrong order");
    await userEvent.click(screen.getByRole("button", { name: "Decline" }));
    expect(decide).toHaveBeenCalledWith("approval_aaaaaaaaaaaaaaaaaaaaaaaa", { approved: false, reason: "wrong order" });
    expect((await screen.findByRole("status")).textContent).toBe("Declined by carol: wrong order");
  });

  it("offers no buttons to others, and says so when someone else decided first", async () => {
    render(<AgenticContent message={request()} props={{}} me="alice" />);
    expect(screen.queryByRole("button")).toBeNull();
    cleanup();
    vi.spyOn(Chat, "decideApproval").mockRejectedValue(Object.assign(new Error("decided"), { code: "ERR_APPROVAL_DECIDED" }));
    render(<AgenticContent message={request()} props={{}} me="bob" />);
    await userEvent.click(screen.getByRole("button", { name: "Approve" }));
    expect((await screen.findByRole("alert")).textContent).toBe("Someone decided this already.");
  });

  it("a decided or expired request (updated in place) shows the outcome with the buttons disabled", () => {
    const { rerender } = render(<AgenticContent message={request({ status: "declined", decidedBy: "bob", reason: "not now" })} props={{}} me="bob" />);
    expect(screen.getByRole("status").textContent).toBe("Declined by bob: not now");
    expect(screen.getByRole("button", { name: "Approve" }).hasAttribute("disabled")).toBe(true);
    rerender(<AgenticContent message={request({ expiresAt: iso(NOW - 1) })} props={{}} me="bob" />);
    expect(screen.getByRole("group").getAttribute("data-state")).toBe("expired");
    expect(screen.getByRole("button", { name: "Approve" }).hasAttribute("disabled")).toBe(true);
  });

  it("expiry: a time today, a date and time otherwise", () => {
    const noon = new Date(2026, 10, 25, 12, 0).getTime() / 1000;
    expect(expiryText(noon + 1800, noon)).toBe(new Date((noon + 1800) * 1000).toLocaleTimeString([], { hour: "numeric", minute: "2-digit" }));
    expect(expiryText(noon + 2 * 86400, noon)).toMatch(/27.*Nov|Nov.*27/);
  });

  it("outcome texts", () => {
    const a = request().getApproval()!;
    expect(outcomeText(a, NOW)).toBe("Waiting for bob, carol");
    expect(outcomeText({ ...a, status: "expired" }, NOW)).toBe("Expired: nobody approved it in time");
    expect(outcomeText({ ...a, approvers: [] }, NOW + 7200)).toBe("Expired: nobody approved it in time");
  });
});
