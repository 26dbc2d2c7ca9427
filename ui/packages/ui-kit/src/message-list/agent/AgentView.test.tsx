import { Chat } from "@agentry/chat-sdk";
import { act, cleanup, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { StrictMode } from "react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { AgentActionHandler, ChatMessageListProps } from "../props";
import { agentic, bob, chef, fakeListeners, me } from "../testing/fixtures";
import { resetActionRegistry } from "./actions";
import { AgentView } from "./AgentView";

vi.mock("@agentry/chat-sdk", async (io) => (await import("../fakeChat")).spyableChatSDK(io));

let sdk: ReturnType<typeof fakeListeners>;
let sendActionResult: ReturnType<typeof vi.fn>;
beforeEach(() => {
  resetActionRegistry();
  sdk = fakeListeners();
  sendActionResult = vi.fn().mockResolvedValue(agentic({ type: "tool_result" }));
  vi.spyOn(Chat, "sendActionResult").mockImplementation(sendActionResult as unknown as typeof Chat.sendActionResult);
  vi.spyOn(Chat, "getAgentProfile").mockResolvedValue({ agentId: "chef", name: "Chef", suggestedMessages: [] });
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

function mount(props: ChatMessageListProps = {}, o: { user?: Chat.User; isEmpty?: boolean; strict?: boolean } = {}) {
  const onGrow = vi.fn();
  const onError = vi.fn();
  const view = (
    <div className="chat-message-list">
      <AgentView props={props} user={o.user ?? chef} loggedInUser={me} isEmpty={o.isEmpty ?? false} onGrow={onGrow} onError={onError} />
    </div>
  );
  const r = render(o.strict === false ? view : <StrictMode>{view}</StrictMode>);
  return { ...r, onGrow, onError };
}

const recipeArgs = '{"title":"Pantry Skillet","steps":["Prepare the eggs.","Serve warm."]}';
const awaiting = (o: { executor?: string; name?: string } = {}) =>
  agentic({
    id: 201,
    text: "Here is a recipe. ",
    agentMessageId: "msg_1",
    executor: o.executor ?? "alice",
    awaiting: ["call_1"],
    toolCalls: [{ id: "call_1", name: o.name ?? "show-recipe-card", arguments: recipeArgs, frontend: true, displayName: "Show recipe card", executionText: "Showing the recipe card" }],
  });

/** The chef's run as the service relays it: text, then the frontend action call in pieces. */
function streamRun() {
  act(() => {
    sdk.frame({ type: "RUN_STARTED" });
    sdk.frame({ type: "TEXT_MESSAGE_START", messageId: "msg_1", role: "assistant" });
    sdk.frame({ type: "TEXT_MESSAGE_CONTENT", messageId: "msg_1", delta: "Here is " });
  });
  expect(screen.getByText(/Here is/).textContent).toBe("Here is ");
  act(() => {
    sdk.frame({ type: "TEXT_MESSAGE_CONTENT", messageId: "msg_1", delta: "a recipe. " });
    sdk.frame({ type: "TEXT_MESSAGE_END", messageId: "msg_1" });
    sdk.frame({ type: "TOOL_CALL_START", toolCallId: "call_1", toolCallName: "show-recipe-card", parentMessageId: "msg_1",
      displayName: "Show recipe card", executionText: "Showing the recipe card", frontend: true });
    sdk.frame({ type: "TOOL_CALL_ARGS", toolCallId: "call_1", delta: recipeArgs.slice(0, 20) });
  });
}

describe("AgentView", () => {
  it("adds one agent listener and one message listener in strict mode, and removes them on unmount", () => {
    const { unmount } = mount();
    expect([sdk.agent.size, sdk.message.size]).toEqual([1, 1]);
    unmount();
    expect([sdk.agent.size, sdk.message.size]).toEqual([0, 0]);
  });

  it("follows the conversation's agent runs while mounted (a reload mid-answer gets the run so far), once in strict mode", () => {
    const { unmount } = mount();
    expect(sdk.followed.get("user_alice_user_chef")).toBe(1);
    unmount();
    expect(sdk.followed.get("user_alice_user_chef")).toBe(0);
  });

  it("listens to nothing in a chat with a person (not isAgentChat) and inside a thread", () => {
    const { container } = mount({}, { user: bob });
    expect(sdk.agent.size).toBe(0);
    expect(container.querySelector(".chat-agent-view")).toBeNull();
    cleanup();
    mount({ parentMessageId: 7 });
    expect(sdk.agent.size).toBe(0);
  });

  it("streams the answer; the tool call shows its execution text with a spinner until the stored message replaces it", () => {
    const handler = vi.fn<AgentActionHandler>();
    const { onGrow, container } = mount({ agentActions: { "show-recipe-card": handler } });
    streamRun();
    const bubble = container.querySelector(".chat-agent-live")!;
    expect(bubble.textContent).toContain("Here is a recipe.");
    const chip = within(bubble as HTMLElement).getByText("Showing the recipe card").closest(".chat-agent-tool")!;
    expect(chip.getAttribute("data-state")).toBe("running");
    expect(chip.querySelector(".chat-agent-tool__spinner")).not.toBeNull();
    expect(onGrow).toHaveBeenCalled();
    // Half the arguments: nothing runs from the stream.
    expect(handler).not.toHaveBeenCalled();
    act(() => {
      sdk.frame({ type: "TOOL_CALL_ARGS", toolCallId: "call_1", delta: recipeArgs.slice(20) });
      sdk.frame({ type: "TOOL_CALL_END", toolCallId: "call_1" });
      sdk.frame({ type: "RUN_FINISHED" });
    });
    expect(handler).not.toHaveBeenCalled();
    act(() => sdk.stored(awaiting()));
    expect(container.querySelector(".chat-agent-live")).toBeNull();
  });

  it("runs the awaited action once with the complete arguments and posts the result (duplicates, strict mode)", async () => {
    const handler = vi.fn<AgentActionHandler>().mockResolvedValue({ shown: true });
    mount({ agentActions: { "show-recipe-card": handler } });
    streamRun();
    const m = awaiting();
    act(() => {
      sdk.stored(m);
      sdk.stored(m); // delivered twice
    });
    await waitFor(() => expect(sendActionResult).toHaveBeenCalledTimes(1));
    expect(handler).toHaveBeenCalledTimes(1);
    expect(handler.mock.calls[0]![0]).toEqual({ title: "Pantry Skillet", steps: ["Prepare the eggs.", "Serve warm."] });
    expect(handler.mock.calls[0]![1]).toMatchObject({ id: "call_1", name: "show-recipe-card" });
    expect(sendActionResult).toHaveBeenCalledWith("run_1", "call_1", { result: { shown: true } });
    // A second list of the same conversation (or a remount) does not run it again.
    cleanup();
    mount({ agentActions: { "show-recipe-card": handler } });
    act(() => sdk.stored(m));
    await act(async () => undefined);
    expect(handler).toHaveBeenCalledTimes(1);
    expect(sendActionResult).toHaveBeenCalledTimes(1);
  });
});

describe("AgentView: actions, errors and the welcome", () => {
  it("never runs actions of messages it did not receive live (history), nor another user's", async () => {
    const handler = vi.fn<AgentActionHandler>();
    mount({ agentActions: { "show-recipe-card": handler } });
    // History is loaded by the list, not through the listener: nothing to do. Another executor:
    act(() => sdk.stored(awaiting({ executor: "bob" })));
    await act(async () => undefined);
    expect(handler).not.toHaveBeenCalled();
    expect(sendActionResult).not.toHaveBeenCalled();
  });

  it("sends the error when the handler throws, and 'no handler' when none is registered", async () => {
    mount({ agentActions: { "show-recipe-card": () => { throw new Error("no room for a card"); } } });
    act(() => sdk.stored(awaiting()));
    await waitFor(() => expect(sendActionResult).toHaveBeenCalledWith("run_1", "call_1", { error: "no room for a card" }));
    cleanup();
    resetActionRegistry();
    mount({ agentActions: {} });
    act(() => sdk.stored(awaiting({ name: "open-map" })));
    await waitFor(() => expect(sendActionResult).toHaveBeenLastCalledWith("run_1", "call_1", { error: "no handler for action open-map in this app" }));
  });

  it("live reasoning shows as 'Thinking…' until the answer starts, then folds under it as 'Thought for 3 s'; the stored answer replaces it", () => {
    const { container } = mount();
    act(() => {
      sdk.frame({ type: "RUN_STARTED", timestamp: 10_000 });
      sdk.frame({ type: "REASONING_START", messageId: "rsn_1", timestamp: 10_000 });
      sdk.frame({ type: "REASONING_MESSAGE_START", messageId: "rsn_1", role: "reasoning", timestamp: 10_000 });
      sdk.frame({ type: "REASONING_MESSAGE_CONTENT", messageId: "rsn_1", delta: "Seven minutes ", timestamp: 11_000 });
    });
    const thinking = screen.getByRole("button", { name: "Thinking…" });
    expect(thinking.getAttribute("aria-expanded")).toBe("false");
    expect(screen.queryByRole("status")).toBeNull(); // the reasoning says the agent is busy; no second indicator
    act(() => {
      sdk.frame({ type: "REASONING_MESSAGE_CONTENT", messageId: "rsn_1", delta: "is the middle.", timestamp: 12_000 });
      sdk.frame({ type: "REASONING_MESSAGE_END", messageId: "rsn_1", timestamp: 13_000 });
      sdk.frame({ type: "REASONING_END", messageId: "rsn_1", timestamp: 13_000 });
      sdk.frame({ type: "TEXT_MESSAGE_START", messageId: "msg_1", role: "assistant", timestamp: 13_100 });
      sdk.frame({ type: "TEXT_MESSAGE_CONTENT", messageId: "msg_1", delta: "Boil it for 7 minutes.", timestamp: 13_200 });
    });
    const bubbles = container.querySelectorAll(".chat-agent-live");
    expect(bubbles).toHaveLength(1);
    expect(bubbles[0]!.getAttribute("data-agent-message-id")).toBe("msg_1");
    const toggle = screen.getByRole("button", { name: "Thought for 3 s" });
    act(() => toggle.click());
    expect(container.querySelector(".chat-agent-reasoning__text")!.textContent).toBe("Seven minutes is the middle.");
    expect(container.querySelector(".chat-text-bubble__text")!.textContent).toBe("Boil it for 7 minutes.");
    act(() => {
      sdk.frame({ type: "TEXT_MESSAGE_END", messageId: "msg_1" });
      sdk.stored(agentic({ text: "Boil it for 7 minutes.", agentMessageId: "msg_1", data: { reasoning: { text: "Seven minutes is the middle.", durationMs: 3_000 } } }));
      sdk.frame({ type: "RUN_FINISHED" });
    });
    expect(container.querySelector(".chat-agent-live")).toBeNull();
  });

  it("shows a run error until its stored agent_error arrives", () => {
    mount();
    act(() => {
      sdk.frame({ type: "RUN_STARTED" });
      sdk.frame({ type: "RUN_ERROR", code: "AGENT_UNREACHABLE", message: "Chef could not answer: it is unreachable." });
    });
    expect(screen.getByRole("alert").textContent).toBe("Chef could not answer: it is unreachable.");
    act(() => sdk.stored(agentic({ type: "agent_error", text: "Chef could not answer: it is unreachable.", data: { code: "AGENT_UNREACHABLE" } })));
    expect(screen.queryByRole("alert")).toBeNull();
  });

  it("ignores frames of other conversations", () => {
    const { container } = mount();
    act(() => {
      sdk.frame({ type: "RUN_STARTED" }, "run_9", "user_bob_user_chef");
      sdk.frame({ type: "TEXT_MESSAGE_CONTENT", messageId: "x", delta: "not yours" }, "run_9", "user_bob_user_chef");
    });
    expect(container.textContent).not.toContain("not yours");
  });

  it("an empty conversation shows the greeting, introduction and suggestions; a suggestion is sent", async () => {
    vi.spyOn(Chat, "getAgentProfile").mockResolvedValue({
      agentId: "chef", name: "Chef", greeting: "Hi! What are we cooking today?", introductoryMessage: "I turn your pantry into a recipe.",
      suggestedMessages: ["What can I use instead of butter?", "I have eggs. What can I cook?"],
    });
    const send = vi.spyOn(Chat, "sendMessage").mockImplementation(async (m) => m);
    mount({}, { isEmpty: true });
    expect(await screen.findByText("Hi! What are we cooking today?")).toBeTruthy();
    expect(screen.getByText("I turn your pantry into a recipe.")).toBeTruthy();
    const group = screen.getByRole("group", { name: "Suggested messages" });
    await userEvent.setup().click(within(group).getByRole("button", { name: "What can I use instead of butter?" }));
    await waitFor(() => expect(send).toHaveBeenCalledTimes(1));
    const sent = send.mock.calls[0]![0];
    expect([sent.getReceiverId(), sent.getReceiverType(), sent.getText()]).toEqual(["chef", "user", "What can I use instead of butter?"]);
  });
});
