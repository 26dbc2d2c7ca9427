import { Chat } from "@agentry/chat-sdk";
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { agentic } from "../testing/fixtures";
import { AgenticContent } from "./AgenticContent";

vi.mock("@agentry/chat-sdk", async (io) => (await import("../fakeChat")).spyableChatSDK(io));

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

describe("AgenticContent", () => {
  it("assistant text with links and line breaks (as elements), and its tool calls as chips", () => {
    const m = agentic({
      text: "See https://example.com/recipe.\nEnjoy <b>it</b>!",
      toolCalls: [
        { id: "c1", name: "show-recipe-card", arguments: "{}", frontend: true, displayName: "Show recipe card", executionText: "Showing the recipe card" },
        { id: "c2", name: "recipe-from-pantry", arguments: "{}" },
      ],
    });
    const { container } = render(<AgenticContent message={m} props={{}} />);
    const link = screen.getByRole("link", { name: "https://example.com/recipe" });
    expect(link.getAttribute("href")).toBe("https://example.com/recipe");
    expect(link.getAttribute("rel")).toContain("noopener");
    expect(container.querySelectorAll("br")).toHaveLength(1);
    expect(container.querySelector("b")).toBeNull(); // text, never HTML
    expect(container.textContent).toContain("Enjoy <b>it</b>!");
    // Stored, a call says what it is (its display name); the execution text is for while it runs.
    expect(screen.getByRole("list", { name: "Actions" }).textContent).toContain("Show recipe card");
    expect(screen.getByRole("list", { name: "Actions" }).textContent).not.toContain("Showing the recipe card");
    expect(screen.getByRole("list", { name: "Actions" }).textContent).toContain("Recipe from pantry");
  });

  it("textFormatters replace the default formatting", () => {
    const m = agentic({ text: "shout" });
    render(<AgenticContent message={m} props={{ textFormatters: [{ id: "up", format: (n) => n.map((x) => (typeof x === "string" ? x.toUpperCase() : x)) }] }} />);
    expect(screen.getByText("SHOUT")).toBeTruthy();
  });

  it("a tool result is one compact line with the action's display name, or its error", () => {
    render(<AgenticContent message={agentic({ toolCalls: [{ id: "c9", name: "show-recipe-card", arguments: "{}", frontend: true, displayName: "Show the card" }] })} props={{}} />);
    cleanup();
    const { container } = render(<AgenticContent message={agentic({ type: "tool_result", data: { toolCallId: "c9", name: "show-recipe-card", result: "{}" } })} props={{}} />);
    expect(container.textContent).toBe("✓Done:  Show the card");
    cleanup();
    const failed = render(<AgenticContent message={agentic({ type: "tool_result", data: { toolCallId: "c8", name: "open-map", error: "no handler" } })} props={{}} />);
    expect(failed.container.querySelector('[data-state="error"]')!.textContent).toContain("Open map: no handler");
  });

  it("an agent error is an error bubble with its text", () => {
    const { container } = render(<AgenticContent message={agentic({ type: "agent_error", text: "Chef could not answer: it timed out.", data: { code: "AGENT_RUN_TIMEOUT" } })} props={{}} />);
    const bubble = container.querySelector(".chat-agentic--error")!;
    expect(bubble.getAttribute("data-code")).toBe("AGENT_RUN_TIMEOUT");
    expect(bubble.textContent).toContain("Chef could not answer: it timed out.");
  });

  it("Try again asks the agent of the failed run again once, then goes; a refusal brings it back and reaches onError", async () => {
    let answer: { resolve(runId: string): void; reject(e: unknown): void } | undefined;
    const retry = vi.spyOn(Chat, "retryAgentRun").mockImplementation(() => new Promise<string>((resolve, reject) => void (answer = { resolve, reject })));
    const onError = vi.fn();
    const m = agentic({ id: 77, type: "agent_error", text: "Chef could not answer: its answer was interrupted.", data: { code: "AGENT_RUN_INTERRUPTED" } });
    render(<AgenticContent message={m} props={{}} onError={onError} />);
    fireEvent.click(screen.getByRole("button", { name: "Try again" }));
    expect(retry).toHaveBeenCalledWith(77);
    const asking = screen.getByRole("button", { name: "Asking again…" }) as HTMLButtonElement;
    expect(asking.disabled).toBe(true);
    const busy = new Error("busy");
    await act(async () => answer!.reject(busy));
    expect(onError).toHaveBeenCalledWith(busy);
    fireEvent.click(screen.getByRole("button", { name: "Try again" }));
    await act(async () => answer!.resolve("run_2"));
    expect(screen.queryByRole("button")).toBeNull();
    expect(retry).toHaveBeenCalledTimes(2);
  });
  it("a reasoning model's thinking is folded under the answer: 'Thought for 4 s', opened and closed by its button", () => {
    const m = agentic({ text: "Boil it for 7 minutes.", data: { reasoning: { text: "Soft or hard? Seven minutes is the middle.", durationMs: 4_400 } } });
    const { container } = render(<AgenticContent message={m} props={{}} />);
    const toggle = screen.getByRole("button", { name: "Thought for 4 s" });
    const thought = container.querySelector(".chat-agent-reasoning__text") as HTMLElement;
    expect([toggle.getAttribute("aria-expanded"), thought.hidden, toggle.getAttribute("aria-controls")]).toEqual(["false", true, thought.id]);
    // Under the answer, and never part of its text.
    expect(container.querySelector(".chat-text-bubble__text")!.textContent).toBe("Boil it for 7 minutes.");
    expect(container.querySelector(".chat-text-bubble")!.compareDocumentPosition(toggle) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    fireEvent.click(toggle);
    expect([toggle.getAttribute("aria-expanded"), thought.hidden, thought.textContent]).toEqual(["true", false, "Soft or hard? Seven minutes is the middle."]);
    fireEvent.click(toggle);
    expect(thought.hidden).toBe(true);
    cleanup();
    // A duration under a second still reads as a second; none known (a generate answer) says "Thoughts".
    render(<AgenticContent message={agentic({ text: "a", data: { reasoning: { text: "b", durationMs: 120 } } })} props={{}} />);
    expect(screen.getByRole("button", { name: "Thought for 1 s" })).toBeTruthy();
    cleanup();
    render(<AgenticContent message={agentic({ text: "a", data: { reasoning: { text: "b" } } })} props={{}} />);
    expect(screen.getByRole("button", { name: "Thoughts" })).toBeTruthy();
    cleanup();
    render(<AgenticContent message={agentic({ text: "no reasoning" })} props={{}} />);
    expect(screen.queryByRole("button")).toBeNull();
  });
});
